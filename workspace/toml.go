package workspace

import (
	"fmt"
	"strconv"
	"strings"
)

// tomlEntry is one key of a TOML document with its full dotted path
// (tables, dotted keys and inline tables joined) and its values: a
// string's text, each string of an array (nested ones flattened), or a
// scalar's literal text.
type tomlEntry struct {
	key    []string
	values []string
}

// parseTOML reads the TOML that cargo's and rustup's configuration files
// use: tables and arrays of tables, dotted and quoted keys, the four kinds
// of strings, arrays over several lines and inline tables. It checks the
// shape, not every rule of TOML; anything it cannot read is an error, and
// the caller fails closed.
func parseTOML(data []byte) ([]tomlEntry, error) {
	p := &tomlParser{s: string(data), line: 1}
	var table []string
	for {
		p.skipBlank(true)
		if p.i >= len(p.s) {
			return p.out, nil
		}
		if p.s[p.i] == '[' {
			p.i++
			double := p.i < len(p.s) && p.s[p.i] == '['
			if double {
				p.i++
			}
			k, err := p.key()
			if err != nil {
				return nil, err
			}
			if !p.eat(']') || double && !p.eat(']') {
				return nil, p.errorf("bad table header")
			}
			table = k
		} else {
			k, err := p.key()
			if err != nil {
				return nil, err
			}
			if !p.eat('=') {
				return nil, p.errorf("expected = after a key")
			}
			if err := p.value(append(append([]string{}, table...), k...)); err != nil {
				return nil, err
			}
		}
		p.skipBlank(false)
		if p.i < len(p.s) && p.s[p.i] != '\n' {
			return nil, p.errorf("unexpected %q", p.s[p.i])
		}
	}
}

type tomlParser struct {
	s    string
	i    int
	line int
	out  []tomlEntry
}

func (p *tomlParser) errorf(format string, args ...any) error {
	return fmt.Errorf("line %d: "+format, append([]any{p.line}, args...)...)
}

// skipBlank skips spaces and comments, and newlines too when nl.
func (p *tomlParser) skipBlank(nl bool) {
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == ' ' || c == '\t' || c == '\r':
			p.i++
		case c == '#':
			for p.i < len(p.s) && p.s[p.i] != '\n' {
				p.i++
			}
		case c == '\n' && nl:
			p.i++
			p.line++
		default:
			return
		}
	}
}

// eat skips blanks and the byte c.
func (p *tomlParser) eat(c byte) bool {
	p.skipBlank(false)
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// key reads a dotted key of bare and quoted parts.
func (p *tomlParser) key() ([]string, error) {
	var out []string
	for {
		p.skipBlank(false)
		if p.i >= len(p.s) {
			return nil, p.errorf("expected a key")
		}
		switch c := p.s[p.i]; {
		case c == '"' || c == '\'':
			v, err := p.str()
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		default:
			j := p.i
			for j < len(p.s) && (isKeyChar(int(p.s[j])) || p.s[j] == '_') {
				j++
			}
			if j == p.i {
				return nil, p.errorf("expected a key, found %q", c)
			}
			out = append(out, p.s[p.i:j])
			p.i = j
		}
		p.skipBlank(false)
		if p.i >= len(p.s) || p.s[p.i] != '.' {
			return out, nil
		}
		p.i++
	}
}

// value reads the value of key and records it.
func (p *tomlParser) value(key []string) error {
	p.skipBlank(false)
	if p.i >= len(p.s) {
		return p.errorf("expected a value")
	}
	switch p.s[p.i] {
	case '{':
		p.i++
		if p.eat('}') {
			return nil
		}
		for {
			k, err := p.key()
			if err != nil {
				return err
			}
			if !p.eat('=') {
				return p.errorf("expected = in an inline table")
			}
			if err := p.value(append(append([]string{}, key...), k...)); err != nil {
				return err
			}
			if p.eat('}') {
				return nil
			}
			if !p.eat(',') {
				return p.errorf("expected , or } in an inline table")
			}
		}
	case '[':
		e := tomlEntry{key: key}
		if err := p.array(&e); err != nil {
			return err
		}
		p.out = append(p.out, e)
		return nil
	case '"', '\'':
		v, err := p.str()
		if err != nil {
			return err
		}
		p.out = append(p.out, tomlEntry{key: key, values: []string{v}})
		return nil
	}
	j := p.i
	for j < len(p.s) && !strings.ContainsRune(",]}#\n \t\r", rune(p.s[j])) {
		j++
	}
	if j == p.i {
		return p.errorf("expected a value")
	}
	p.out = append(p.out, tomlEntry{key: key, values: []string{p.s[p.i:j]}})
	p.i = j
	return nil
}

// array reads an array, over several lines, its strings into e (inline
// tables inside it recorded as entries under the array's key).
func (p *tomlParser) array(e *tomlEntry) error {
	p.i++ // [
	for {
		p.skipBlank(true)
		if p.i >= len(p.s) {
			return p.errorf("unterminated array")
		}
		switch c := p.s[p.i]; {
		case c == ']':
			p.i++
			return nil
		case c == ',':
			p.i++
		case c == '[':
			if err := p.array(e); err != nil {
				return err
			}
		case c == '"' || c == '\'':
			v, err := p.str()
			if err != nil {
				return err
			}
			e.values = append(e.values, v)
		case c == '{':
			if err := p.value(e.key); err != nil {
				return err
			}
		default:
			j := p.i
			for j < len(p.s) && !strings.ContainsRune(",]#\n \t\r", rune(p.s[j])) {
				j++
			}
			e.values = append(e.values, p.s[p.i:j])
			p.i = j
		}
	}
}

// str reads a basic or literal string, on one line or (tripled) several.
func (p *tomlParser) str() (string, error) {
	q := p.s[p.i]
	triple := strings.HasPrefix(p.s[p.i:], strings.Repeat(string(q), 3))
	if triple {
		p.i += 3
		end := strings.Index(p.s[p.i:], strings.Repeat(string(q), 3))
		if end < 0 {
			return "", p.errorf("unterminated string")
		}
		raw := p.s[p.i : p.i+end]
		p.line += strings.Count(raw, "\n")
		p.i += end + 3
		for p.i < len(p.s) && p.s[p.i] == q { // """a"""" ends with a quote
			raw += string(q)
			p.i++
		}
		if q == '"' {
			return unescapeTOML(raw), nil
		}
		return strings.TrimPrefix(raw, "\n"), nil
	}
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '\n':
			return "", p.errorf("unterminated string")
		case c == q:
			p.i++
			return b.String(), nil
		case c == '\\' && q == '"' && p.i+1 < len(p.s):
			n := 2
			switch p.s[p.i+1] {
			case 'u':
				n = 6
			case 'U':
				n = 10
			}
			n = min(n, len(p.s)-p.i)
			b.WriteString(unescapeTOML(p.s[p.i : p.i+n]))
			p.i += n
			continue
		}
		b.WriteByte(c)
		p.i++
	}
	return "", p.errorf("unterminated string")
}

// unescapeTOML applies the escapes of a basic string, \uXXXX and
// \UXXXXXXXX too: a key spelled with them names the same setting.
func unescapeTOML(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'e':
			b.WriteByte(0x1b)
		case 'u', 'U':
			n := 4
			if c == 'U' {
				n = 8
			}
			if v, err := strconv.ParseUint(s[i+1:min(i+1+n, len(s))], 16, 32); err == nil && i+n < len(s) {
				b.WriteRune(rune(v))
				i += n
				continue
			}
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n', ' ', '\t', '\r':
			// A line-ending backslash in a multi-line string trims the
			// blanks that follow.
			for i+1 < len(s) && strings.IndexByte(" \t\r\n", s[i+1]) >= 0 {
				i++
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
