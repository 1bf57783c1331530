package connect

import (
	"fmt"
	"strings"
)

// A TOML file admit shares with the host's other settings (Codex's
// requirements.toml) holds admit's hooks as one block between two marker
// comments, appended at the end as arrays of tables ([[hooks.EVENT]]),
// which TOML lets a file add to wherever it likes. admit reads and
// rewrites only that block; the rest of the file stays byte for byte.

const (
	tomlBegin = "# admit: the hooks below are admit's (admit connect writes them, admit disconnect removes them)"
	tomlEnd   = "# admit: end of admit's hooks"
)

// tomlSplit cuts src into what comes before admit's block, the block, and
// what comes after; block is "" when there is none.
func tomlSplit(src string) (before, block, after string, err error) {
	i := strings.Index(src, tomlBegin)
	if i < 0 {
		return src, "", "", nil
	}
	j := strings.Index(src[i:], tomlEnd)
	if j < 0 {
		return "", "", "", fmt.Errorf("admit's block starts (%q) but does not end (%q): fix the file by hand", tomlBegin, tomlEnd)
	}
	end := i + j + len(tomlEnd)
	if end < len(src) && src[end] == '\n' {
		end++
	}
	return src[:i], src[i:end], src[end:], nil
}

// tomlConflict says why the person's part of the file cannot take admit's
// arrays of tables: it sets one of the events another way (a plain array,
// an inline table), which TOML forbids extending.
func tomlConflict(src string, events []string) string {
	table := ""
	for _, line := range strings.Split(src, "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "[") {
			table = strings.Trim(strings.TrimSpace(strings.SplitN(l, "#", 2)[0]), "[] ")
			continue
		}
		key, _, ok := strings.Cut(l, "=")
		if !ok || strings.HasPrefix(l, "#") {
			continue
		}
		full := strings.TrimSpace(key)
		if table != "" {
			full = table + "." + full
		}
		if full == "hooks" {
			return "it sets hooks as a value (hooks = ...)"
		}
		for _, ev := range events {
			if full == "hooks."+ev {
				return fmt.Sprintf("it sets hooks.%s as a value, not as [[hooks.%s]] tables", ev, ev)
			}
		}
	}
	return ""
}

// tomlQuote is s as a TOML basic string.
func tomlQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// tomlBlockText is admit's block: for each event, one group with f's
// matcher and one handler, the handler's keys as f.entry gives them.
func (f *fileSpec) tomlBlockText(t target) string {
	var b strings.Builder
	b.WriteString(tomlBegin + "\n")
	for _, ev := range f.events {
		fmt.Fprintf(&b, "[[hooks.%s]]\nmatcher = %s\n\n[[hooks.%s.hooks]]\n", ev, tomlQuote(f.matcher), ev)
		for _, kv := range f.entry(ev, t) {
			switch v := kv.v.(type) {
			case string:
				fmt.Fprintf(&b, "%s = %s\n", kv.k, tomlQuote(v))
			case int:
				fmt.Fprintf(&b, "%s = %d\n", kv.k, v)
			case bool:
				fmt.Fprintf(&b, "%s = %t\n", kv.k, v)
			default:
				panic(fmt.Sprintf("connect: no TOML for %s's %T", kv.k, kv.v))
			}
		}
		b.WriteString("\n")
	}
	b.WriteString(tomlEnd + "\n")
	return b.String()
}

// tomlConnect is src with admit's block in it, up to date.
func (f *fileSpec) tomlConnect(src []byte, t target) ([]byte, error) {
	kept, _, err := f.tomlDisconnect(src)
	if err != nil {
		return nil, err
	}
	rest := string(kept)
	if why := tomlConflict(rest, f.events); why != "" {
		return nil, fmt.Errorf("admit cannot add its hooks: %s; write admit's entries there by hand (docs/teams.md)", why)
	}
	if rest != "" && !strings.HasSuffix(rest, "\n") {
		rest += "\n"
	}
	if strings.TrimSpace(rest) != "" {
		rest += "\n"
	}
	return []byte(rest + f.tomlBlockText(t)), nil
}

// tomlDisconnect is src without admit's block (and the blank line
// tomlConnect put before it); empty says nothing else is left.
func (f *fileSpec) tomlDisconnect(src []byte) ([]byte, bool, error) {
	before, block, after, err := tomlSplit(string(src))
	if err != nil {
		return nil, false, err
	}
	if block != "" && after == "" {
		before = strings.TrimSuffix(before, "\n")
		if !strings.HasSuffix(before, "\n") && before != "" {
			before += "\n"
		}
	}
	out := before + after
	return []byte(out), strings.TrimSpace(out) == "", nil
}

// tomlInspect lists the invocations of admit's block, per event.
func (f *fileSpec) tomlInspect(host string, src []byte) (map[string][]invocation, error) {
	found := map[string][]invocation{}
	_, block, _, err := tomlSplit(string(src))
	if err != nil || block == "" {
		return found, err
	}
	ev := ""
	for _, line := range strings.Split(block, "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "[[hooks.") {
			ev = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSuffix(l, "]]"), "[[hooks."), ".hooks")
			continue
		}
		key, val, ok := strings.Cut(l, "=")
		if !ok || strings.TrimSpace(key) != "command" {
			continue
		}
		s, _, ok := tomlString(val)
		if !ok {
			return nil, fmt.Errorf("admit's block: a command that is not a TOML string: %s", l)
		}
		if inv, ok := parseCommand(s); ok && inv.admitFor(host) {
			found[ev] = append(found[ev], inv)
		}
	}
	return found, nil
}
