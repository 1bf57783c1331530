package shell

import "strings"

// tokenize splits line with POSIX quoting, and adds to ps every character
// that would make a shell do more than split words, each by its name. Only ASCII
// bytes are special, so it works on bytes: a multi-byte UTF-8 sequence never
// contains one.
func tokenize(line string, ps *problems) []string {
	var (
		tokens  []string
		cur     strings.Builder
		started bool // a token is open, even an empty one like ''
		quote   byte // 0, '\'' or '"'
	)
	flush := func() {
		if started {
			tokens = append(tokens, cur.String())
			cur.Reset()
			started = false
		}
	}
	push := func(c byte) {
		cur.WriteByte(c)
		started = true
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch quote {
		case '\'':
			if c == '\'' {
				quote = 0
			} else {
				push(c)
			}
			continue
		case '"':
			switch {
			case c == '"':
				quote = 0
			case c == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0:
				i++
				push(line[i])
			default:
				if c == '$' || c == '`' {
					ps.add(classSyntax, "expansion", string(c))
				}
				push(c)
			}
			continue
		}
		switch {
		case c == ' ' || c == '\t':
			flush()
			continue
		case c == '\'' || c == '"':
			quote = c
			started = true
			continue
		case c == '\\':
			if i+1 < len(line) && line[i+1] != '\n' {
				i++
				push(line[i])
				continue
			}
			ps.add(classSyntax, "line continuation", "")
			continue
		case strings.IndexByte("\n\r;&|<>()$`", c) >= 0:
			ps.add(classSyntax, "shell operator", string(c))
		case strings.IndexByte("*?[]{}", c) >= 0:
			ps.add(classSyntax, "unquoted pattern", string(c))
		case c == '~' && !started:
			ps.add(classSyntax, "home directory expansion", "~")
		case c == '#' && !started:
			ps.add(classSyntax, "comment", "#")
		}
		push(c)
	}
	if quote != 0 {
		ps.add(classSyntax, "unterminated quote", "")
	}
	flush()
	return tokens
}
