package connect

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Codex runs a hook of the person's (one in $CODEX_HOME/hooks.json) only
// once the person has trusted it in Codex's /hooks screen, which stores
// the trust in $CODEX_HOME/config.toml as
//
//	[hooks.state."<hooks.json>:pre_tool_use:<group>:<handler>"]
//	trusted_hash = "sha256:..."
//
// and skips, silently, a hook with no such record or whose hash no longer
// matches the entry (openai/codex codex-rs/hooks/src/engine/discovery.rs:
// hook_key, command_hook_hash, hook_trust_status). The hash is SHA-256 of
// the canonical JSON (keys sorted, compact) of the entry's normalized
// identity: {event_name, matcher, hooks: [{type, command, timeout, async,
// statusMessage}]}, absent fields left out (codex-rs/config/src/
// fingerprint.rs, version_for_toml).

// codexEvents are the labels Codex keys its hook state by.
var codexEvents = map[string]string{"PreToolUse": "pre_tool_use", "PermissionRequest": "permission_request"}

// codexInert says why Codex will not run admit's hooks in files (the
// hooks.json admit writes), or "" when every one of them is trusted: the
// trust records are read from config.toml beside it.
func codexInert(sys System, home string, files []File) string {
	hooksPath := files[0].Path
	if !files[0].Exists() {
		return ""
	}
	cfgPath := inDir(codexDir, "config.toml")(home, sys.Getenv)
	cfg, err := sys.ReadFile(cfgPath)
	if err != nil {
		cfg = nil
	}
	states := codexHookStates(cfg)
	spec := codexHost().files[0]
	d, err := spec.open(files[0].Data)
	if err != nil {
		return ""
	}
	hooks, err := spec.hooksNode(d.root)
	if err != nil || hooks == nil {
		return ""
	}
	var why []string
	for _, ev := range spec.events {
		arr, err := spec.eventList(hooks, ev)
		if err != nil {
			return ""
		}
		for _, r := range spec.units(arr, "codex", ev) {
			group := arr.elems[r.index]
			key := fmt.Sprintf("%s:%s:%d:%d", hooksPath, codexEvents[ev], r.index, r.handler)
			want, ok := codexHookHash(ev, group, spec.unit(arr, r))
			st, found := states[key]
			switch {
			case found && st.disabled:
				why = append(why, fmt.Sprintf("%s is turned off in Codex's /hooks (enabled = false in %s)", ev, cfgPath))
			case !found || st.hash == "":
				why = append(why, fmt.Sprintf("%s is not trusted yet (no trusted_hash for %q in %s)", ev, key, cfgPath))
			case ok && st.hash != want:
				why = append(why, fmt.Sprintf("%s changed since it was trusted (Codex shows it as modified; %s holds %s, the entry hashes to %s)", ev, cfgPath, st.hash, want))
			}
		}
	}
	if len(why) == 0 {
		return ""
	}
	return "Codex skips admit's hooks until you trust them: " + strings.Join(why, "; ") + ". Open /hooks in Codex and trust admit's entries"
}

// CodexTrustRecord is the config.toml table that trusts admit's entry for
// event (PreToolUse or PermissionRequest) in the hooks.json at hooksPath
// holding data, as Codex's /hooks screen writes it; "" when data holds no
// entry of admit's for event. Tests use it to trust what connect wrote.
func CodexTrustRecord(hooksPath string, data []byte, event string) string {
	spec := codexHost().files[0]
	d, err := spec.open(data)
	if err != nil {
		return ""
	}
	hooks, err := spec.hooksNode(d.root)
	if err != nil || hooks == nil {
		return ""
	}
	arr, err := spec.eventList(hooks, event)
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, r := range spec.units(arr, "codex", event) {
		h, ok := codexHookHash(event, arr.elems[r.index], spec.unit(arr, r))
		if !ok {
			return ""
		}
		key, _ := json.Marshal(fmt.Sprintf("%s:%s:%d:%d", hooksPath, codexEvents[event], r.index, r.handler))
		fmt.Fprintf(&b, "[hooks.state.%s]\ntrusted_hash = %q\n", key, h)
	}
	return b.String()
}

// codexHookHash is Codex's trust hash of handler h in matcher group g for
// event ev; false when the handler is not one Codex would run (no
// command).
func codexHookHash(ev string, g, h *node) (string, bool) {
	cmd := h.get("command")
	if cmd == nil || cmd.kind != '"' || strings.TrimSpace(cmd.str) == "" {
		return "", false
	}
	handler := map[string]any{"type": "command", "command": cmd.str, "async": false}
	timeout := int64(600)
	if t := h.get("timeout"); t != nil && t.kind == '0' {
		if n, err := strconv.ParseInt(t.num, 10, 64); err == nil {
			timeout = max(n, 1)
		}
	}
	handler["timeout"] = timeout
	if a := h.get("async"); a != nil && a.kind == 't' {
		handler["async"] = true
	}
	if s := h.get("statusMessage"); s != nil && s.kind == '"' {
		handler["statusMessage"] = s.str
	}
	identity := map[string]any{"event_name": codexEvents[ev], "hooks": []any{handler}}
	if m := g.get("matcher"); m != nil && m.kind == '"' {
		identity["matcher"] = m.str
	}
	// serde_json's compact form: keys sorted (encoding/json sorts map
	// keys), no HTML escaping.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(identity); err != nil {
		return "", false
	}
	sum := sha256.Sum256(bytes.TrimRight(buf.Bytes(), "\n"))
	return "sha256:" + hex.EncodeToString(sum[:]), true
}

// codexState is one hook's record in config.toml.
type codexState struct {
	hash     string
	disabled bool
}

// codexHookStates reads the [hooks.state."KEY"] records of a config.toml:
// the table form Codex writes, inline tables under [hooks.state], and
// dotted keys. It reads only what it needs of TOML: a line it cannot
// read is skipped, and a record it misses reads as untrusted (the
// warning is then one too many, never one too few).
func codexHookStates(src []byte) map[string]codexState {
	states := map[string]codexState{}
	var table []string
	set := func(path []string, val string) {
		if len(path) != 4 || path[0] != "hooks" || path[1] != "state" {
			return
		}
		st := states[path[2]]
		switch path[3] {
		case "trusted_hash":
			if s, _, ok := tomlString(val); ok {
				st.hash = s
			}
		case "enabled":
			st.disabled = strings.TrimSpace(val) == "false"
		}
		states[path[2]] = st
	}
	for _, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		if strings.HasPrefix(line, "[[") {
			table = nil // an array of tables: nothing of the hook state
			continue
		}
		if line[0] == '[' {
			keys, rest, ok := tomlKey(line[1:])
			if rest = strings.TrimSpace(rest); !ok || !strings.HasPrefix(rest, "]") {
				table = nil
				continue
			}
			table = keys
			continue
		}
		keys, rest, ok := tomlKey(line)
		if rest = strings.TrimSpace(rest); !ok || !strings.HasPrefix(rest, "=") {
			continue
		}
		path := append(append([]string{}, table...), keys...)
		val := strings.TrimSpace(rest[1:])
		if strings.HasPrefix(val, "{") {
			inline := strings.TrimSuffix(strings.TrimSpace(val[1:]), "}")
			for _, kv := range splitInline(inline) {
				k, r, ok := tomlKey(kv)
				if r = strings.TrimSpace(r); ok && strings.HasPrefix(r, "=") {
					set(append(append([]string{}, path...), k...), strings.TrimSpace(r[1:]))
				}
			}
			continue
		}
		set(path, val)
	}
	return states
}

// splitInline splits an inline table's body at the commas outside quotes.
func splitInline(s string) []string {
	var parts []string
	start, quote := 0, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '"' && c == '\\':
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '"' || c == '\''):
			quote = c
		case quote == 0 && c == ',':
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

// tomlKey reads a dotted key (bare, "basic" or 'literal' parts) from the
// start of s and returns its parts and what follows.
func tomlKey(s string) ([]string, string, bool) {
	var keys []string
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return nil, "", false
		}
		switch s[0] {
		case '"', '\'':
			k, rest, ok := tomlString(s)
			if !ok {
				return nil, "", false
			}
			keys, s = append(keys, k), rest
		default:
			i := 0
			for i < len(s) && (s[i] == '_' || s[i] == '-' || s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || s[i] >= '0' && s[i] <= '9') {
				i++
			}
			if i == 0 {
				return nil, "", false
			}
			keys, s = append(keys, s[:i]), s[i:]
		}
		s = strings.TrimLeft(s, " \t")
		if !strings.HasPrefix(s, ".") {
			return keys, s, true
		}
		s = s[1:]
	}
}

// tomlString reads a basic ("...", with escapes) or literal ('...')
// string from the start of s.
func tomlString(s string) (string, string, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", "", false
	}
	if s[0] == '\'' {
		end := strings.IndexByte(s[1:], '\'')
		if end < 0 {
			return "", "", false
		}
		return s[1 : 1+end], s[2+end:], true
	}
	if s[0] != '"' {
		return "", "", false
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			return b.String(), s[i+1:], true
		case '\\':
			if i+1 >= len(s) {
				return "", "", false
			}
			i++
			switch s[i] {
			case 'b':
				b.WriteByte('\b')
			case 't':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			case 'f':
				b.WriteByte('\f')
			case 'r':
				b.WriteByte('\r')
			case 'e':
				b.WriteByte(0x1b)
			case '"', '\\':
				b.WriteByte(s[i])
			case 'u', 'U':
				n := 4
				if s[i] == 'U' {
					n = 8
				}
				if i+n >= len(s) {
					return "", "", false
				}
				r, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32)
				if err != nil || !utf8.ValidRune(rune(r)) {
					return "", "", false
				}
				b.WriteRune(rune(r))
				i += n
			default:
				return "", "", false
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", "", false
}
