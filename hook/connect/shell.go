package connect

import (
	"path"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// invocation is the program a hook entry runs and its arguments, as read
// back from the entry.
type invocation struct {
	program string // as written; "$HOME/bin/admit" when it is not a literal
	literal bool   // program is a literal word: a path the shell runs as is
	args    []string
}

// admitFor says whether inv runs `admit hook host`: the program is named
// admit (admit.exe on Windows), wherever it lives, and its first
// arguments are hook and host. Any other program is the person's.
func (inv invocation) admitFor(host string) bool {
	base := strings.ToLower(path.Base(filepath.ToSlash(inv.program)))
	if base != "admit" && base != "admit.exe" {
		return false
	}
	return len(inv.args) >= 2 && inv.args[0] == "hook" && inv.args[1] == host
}

// absolute says whether the entry names its program by an absolute path,
// written as a literal: not a bare name looked up on PATH, not a variable.
func (inv invocation) absolute() bool {
	return inv.literal && (filepath.IsAbs(inv.program) || path.IsAbs(inv.program))
}

// parseCommand reads a hook's command line as the host's shell would split
// it, far enough to know what it runs: the first simple command of the
// line (before `||`, `&&`, `;`), after an `exec`, each word as its literal
// value. A line the shell cannot parse runs nothing admit knows.
func parseCommand(line string) (invocation, bool) {
	line = strings.TrimSpace(line)
	// PowerShell's call operator: & 'C:\path\admit.exe' hook copilot.
	line = strings.TrimPrefix(line, "& ")
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil || len(f.Stmts) == 0 {
		return invocation{}, false
	}
	st := f.Stmts[0]
	for {
		b, ok := st.Cmd.(*syntax.BinaryCmd)
		if !ok {
			break
		}
		st = b.X
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return invocation{}, false
	}
	words := call.Args
	if w, _ := wordText(words[0]); w == "exec" && len(words) > 1 {
		words = words[1:]
	}
	var inv invocation
	inv.program, inv.literal = wordText(words[0])
	for _, w := range words[1:] {
		s, _ := wordText(w)
		inv.args = append(inv.args, s)
	}
	return inv, true
}

// wordText is a word's value when it is literal (plain, quoted, escaped),
// and false with a readable rendering ($HOME/x) when part of it is
// expanded by the shell.
func wordText(w *syntax.Word) (string, bool) {
	var b strings.Builder
	literal := true
	var part func(p syntax.WordPart, quoted bool)
	part = func(p syntax.WordPart, quoted bool) {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value, quoted))
		case *syntax.SglQuoted:
			if p.Dollar {
				literal = false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				part(q, true)
			}
		case *syntax.ParamExp:
			literal = false
			if p.Param != nil {
				b.WriteString("$" + p.Param.Value)
			} else {
				b.WriteString("${...}")
			}
		default:
			literal = false
			b.WriteString("...")
		}
	}
	for _, p := range w.Parts {
		part(p, false)
	}
	return b.String(), literal
}

// unescape removes the backslashes the shell removes: any in a bare word,
// and before $ ` " \ and a newline inside double quotes.
func unescape(s string, quoted bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (!quoted || strings.IndexByte("$`\"\\\n", s[i+1]) >= 0) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// shellQuote is s in single quotes, which a POSIX shell (and fish, and
// PowerShell for a path without a quote in it) takes literally.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// psQuote is s in PowerShell's single quotes (a quote doubled).
func psQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
