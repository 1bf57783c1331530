package workspace

import (
	"fmt"
	"strings"
)

// configEntry is one "key = value" of a git configuration file.
type configEntry struct {
	section  string // lower case
	sub      string // case kept; "" when the section has none
	key      string // lower case
	value    string // unquoted, escapes applied
	hasValue bool   // false for a bare "key" (boolean true)
	line     int
}

// name is the entry's canonical dotted name, as git config prints it.
func (e configEntry) name() string {
	if e.section == "" {
		return e.key
	}
	if e.sub != "" {
		return e.section + "." + e.sub + "." + e.key
	}
	return e.section + "." + e.key
}

// parseGitConfig parses data in git-config syntax: sections "[name]",
// "[name "sub"]" and the deprecated "[name.sub]" (sub lowered), keys that
// may follow a header on the same line, values with quotes, escapes and
// backslash-newline continuations, and "#" or ";" comments. Names of
// sections and keys are case-insensitive and returned in lower case;
// subsection names keep their case. A syntax error is returned with its
// line: git itself refuses to run with such a file, but the caller fails
// closed anyway.
func parseGitConfig(data []byte) ([]configEntry, error) {
	p := configParser{data: data, line: 1}
	return p.parse()
}

type configParser struct {
	data    []byte
	i       int
	line    int
	section string
	sub     string
	out     []configEntry
}

func (p *configParser) peek() int {
	if p.i >= len(p.data) {
		return -1
	}
	return int(p.data[p.i])
}

func (p *configParser) next() int {
	c := p.peek()
	if c >= 0 {
		p.i++
		if c == '\n' {
			p.line++
		}
	}
	return c
}

func (p *configParser) errorf(format string, args ...any) error {
	return fmt.Errorf("line %d: "+format, append([]any{p.line}, args...)...)
}

func isSpace(c int) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' }

func isAlpha(c int) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

func isKeyChar(c int) bool { return isAlpha(c) || (c >= '0' && c <= '9') || c == '-' }

func lower(c int) byte {
	if c >= 'A' && c <= 'Z' {
		return byte(c - 'A' + 'a')
	}
	return byte(c)
}

func (p *configParser) parse() ([]configEntry, error) {
	// A UTF-8 byte order mark is skipped, as git does.
	if len(p.data) >= 3 && p.data[0] == 0xef && p.data[1] == 0xbb && p.data[2] == 0xbf {
		p.i = 3
	}
	for {
		c := p.next()
		switch {
		case c < 0:
			return p.out, nil
		case c == '\n' || isSpace(c):
		case c == '#' || c == ';':
			p.skipLine()
		case c == '[':
			if err := p.header(); err != nil {
				return nil, err
			}
		case isAlpha(c):
			// git accepts a key before any section (it names no
			// setting that matters here).
			if err := p.entry(c); err != nil {
				return nil, err
			}
		default:
			return nil, p.errorf("unexpected %q", rune(c))
		}
	}
}

func (p *configParser) skipLine() {
	for c := p.next(); c >= 0 && c != '\n'; c = p.next() {
	}
}

func (p *configParser) header() error {
	var name []byte
	for {
		c := p.next()
		switch {
		case c < 0 || c == '\n':
			return p.errorf("unterminated section header")
		case c == ']':
			p.setSection(string(name), "", false)
			return nil
		case isSpace(c):
			return p.extendedHeader(string(name))
		case isKeyChar(c) || c == '.':
			name = append(name, lower(c))
		default:
			return p.errorf("bad character %q in section name", rune(c))
		}
	}
}

// extendedHeader reads ` "sub"]` after a section name.
func (p *configParser) extendedHeader(name string) error {
	for isSpace(p.peek()) {
		p.next()
	}
	if p.next() != '"' {
		return p.errorf("bad section header")
	}
	var sub []byte
	for {
		c := p.next()
		switch c {
		case -1, '\n':
			return p.errorf("unterminated subsection name")
		case '"':
			if p.next() != ']' {
				return p.errorf("bad section header")
			}
			p.setSection(name, string(sub), true)
			return nil
		case '\\':
			c = p.next()
			if c < 0 || c == '\n' {
				return p.errorf("unterminated subsection name")
			}
		}
		sub = append(sub, byte(c))
	}
}

func (p *configParser) setSection(name, sub string, quoted bool) {
	if !quoted {
		// Deprecated [section.sub]: the subsection is lowered.
		if i := strings.IndexByte(name, '.'); i >= 0 {
			name, sub = name[:i], name[i+1:]
		}
	}
	p.section, p.sub = name, sub
}

func (p *configParser) entry(first int) error {
	e := configEntry{section: p.section, sub: p.sub, line: p.line}
	key := []byte{lower(first)}
	for isKeyChar(p.peek()) {
		key = append(key, lower(p.next()))
	}
	e.key = string(key)
	for isSpace(p.peek()) {
		p.next()
	}
	switch c := p.peek(); c {
	case -1, '\n', '#', ';':
		if c == '#' || c == ';' {
			p.skipLine()
		}
		p.out = append(p.out, e)
		return nil
	case '=':
		p.next()
	default:
		return p.errorf("bad config line for key %q", e.key)
	}
	v, err := p.value()
	if err != nil {
		return err
	}
	e.value, e.hasValue = v, true
	p.out = append(p.out, e)
	return nil
}

// value reads a value up to the end of its (possibly continued) line.
func (p *configParser) value() (string, error) {
	var (
		out     []byte
		quoted  bool
		pending int // unquoted whitespace seen but not yet kept
	)
	for isSpace(p.peek()) {
		p.next()
	}
	for {
		c := p.next()
		switch {
		case c < 0 || c == '\n':
			if quoted {
				return "", p.errorf("unterminated quote")
			}
			return string(out), nil
		case !quoted && (c == '#' || c == ';'):
			p.skipLine()
			return string(out), nil
		case !quoted && isSpace(c):
			if len(out) > 0 {
				pending++
			}
			continue
		}
		for ; pending > 0; pending-- {
			out = append(out, ' ')
		}
		switch c {
		case '"':
			quoted = !quoted
		case '\\':
			switch d := p.next(); d {
			case '\n':
				// Continuation.
			case 'n':
				out = append(out, '\n')
			case 't':
				out = append(out, '\t')
			case 'b':
				if len(out) > 0 {
					out = out[:len(out)-1]
				}
			case '\\', '"':
				out = append(out, byte(d))
			default:
				return "", p.errorf("bad escape in value")
			}
		default:
			out = append(out, byte(c))
		}
	}
}

// gitBool is git's reading of a boolean value; ok is false when v is not
// one (a program, for a key like pager.log).
func gitBool(e configEntry) (val, ok bool) {
	if !e.hasValue {
		return true, true
	}
	switch strings.ToLower(e.value) {
	case "true", "yes", "on", "1":
		return true, true
	case "false", "no", "off", "0", "":
		return false, true
	}
	return false, false
}

// runsProgram reports whether the entry makes git run a program on a read
// command (diff, log, show, status, ls-files, rev-parse, branch), or is on
// the list of keys the gate treats as if it did. Keys that only editing or
// network commands read (core.editor, sequence.editor, credential.*,
// core.askPass, remote.*.uploadpack) are not reported: those commands are
// not admitted to agents.
func runsProgram(e configEntry) bool {
	switch e.section {
	case "core":
		switch e.key {
		case "fsmonitor":
			v, ok := gitBool(e)
			return !ok || v
		case "pager":
			return e.hasValue && e.value != "" && e.value != "cat"
		case "sshcommand", "hookspath", "gitproxy":
			return e.hasValue && e.value != ""
		}
	case "pager":
		// pager.<cmd> = true/false only switches the pager; any other
		// value is a program.
		_, isBool := gitBool(e)
		return e.sub == "" && !isBool
	case "diff":
		if e.sub == "" {
			return e.key == "external" && e.hasValue && e.value != ""
		}
		return (e.key == "textconv" || e.key == "command") && e.hasValue && e.value != ""
	case "filter":
		return e.sub != "" && (e.key == "clean" || e.key == "smudge" || e.key == "process") && e.hasValue && e.value != ""
	case "gpg":
		return e.key == "program" && e.hasValue && e.value != ""
	case "alias":
		return true
	}
	return false
}

// isInclude reports whether the entry includes another file.
func isInclude(e configEntry) bool {
	return e.key == "path" && ((e.section == "include" && e.sub == "") || (e.section == "includeif" && e.sub != ""))
}
