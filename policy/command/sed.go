package command

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"admit/policy/rule"
)

// sedScript checks a sed script (GNU syntax) for commands that reach
// beyond the text sed prints: e runs a command, w and W write a file, r
// and R read one, and the s command's e and w flags do the same. What is
// left (addresses, p, d, s///, y, a/i/c text, labels and branches, hold
// space, q) only turns the input into output. The script is parsed, not
// searched, so a "w" inside a regex or an a/i/c text is no command; a
// script this parser does not follow is refused rather than guessed.
func sedScript(s string) error {
	p := sedParser{s: s}
	for {
		p.skip(" \t\n;")
		if p.eof() {
			break
		}
		if p.peek() == '#' {
			p.toEOL()
			continue
		}
		if err := p.addresses(); err != nil {
			return err
		}
		p.skip(" \t")
		for !p.eof() && p.peek() == '!' {
			p.i++
			p.skip(" \t")
		}
		if p.eof() {
			return errors.New("an address without a command")
		}
		ended, err := p.command(p.next())
		if err != nil {
			return err
		}
		if ended {
			continue
		}
		p.skip(" \t")
		if !p.eof() && !strings.ContainsRune(";\n}#", rune(p.peek())) {
			return fmt.Errorf("unexpected %q after a command", p.peek())
		}
	}
	if p.depth != 0 {
		return errors.New(`a "{" without its "}"`)
	}
	return nil
}

// command reads the rest of the command c. ended is true when the command
// ran to its own end (a label, a text, a "{"), so no ";" need follow.
func (p *sedParser) command(c byte) (ended bool, err error) {
	switch c {
	case '{':
		p.depth++
		return true, nil
	case '}':
		if p.depth == 0 {
			return false, errors.New(`a "}" without its "{"`)
		}
		p.depth--
	case '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
	case 'l', 'q', 'Q', 'L':
		if c == 'L' {
			return false, errors.New(`the obsolete "L" command`)
		}
		p.skip(" \t")
		p.digits()
	case ':':
		if label := p.label(); label == "" {
			return false, errors.New(`":" without a label`)
		}
		return true, nil // a label runs to the end of the line or a ";"
	case 'b', 't', 'T', 'v':
		p.label()
		return true, nil
	case 'a', 'i', 'c':
		p.text()
		return true, nil
	case 's':
		return false, p.substitute()
	case 'y':
		return false, p.transliterate()
	case 'e':
		return false, errors.New(`the "e" command runs a shell command`)
	case 'r', 'R':
		return false, fmt.Errorf("the %q command reads a file the policy does not see", c)
	case 'w', 'W':
		return false, fmt.Errorf("the %q command writes a file", c)
	default:
		return false, fmt.Errorf("unknown command %q", c)
	}
	return false, nil
}

type sedParser struct {
	s     string
	i     int
	depth int // of "{" blocks
}

func (p *sedParser) eof() bool  { return p.i >= len(p.s) }
func (p *sedParser) peek() byte { return p.s[p.i] }
func (p *sedParser) next() byte { p.i++; return p.s[p.i-1] }

func (p *sedParser) skip(set string) {
	for !p.eof() && strings.IndexByte(set, p.peek()) >= 0 {
		p.i++
	}
}

func (p *sedParser) digits() bool {
	start := p.i
	for !p.eof() && p.peek() >= '0' && p.peek() <= '9' {
		p.i++
	}
	return p.i > start
}

func (p *sedParser) toEOL() {
	for !p.eof() && p.peek() != '\n' {
		p.i++
	}
}

// label reads a label (of :, b, t, T, or v's version): up to a blank, a
// newline, a ";", a "#" or a "}", as GNU sed 4.9 reads it.
func (p *sedParser) label() string {
	p.skip(" \t")
	start := p.i
	for !p.eof() && strings.IndexByte(" \t\n;#}", p.peek()) < 0 {
		p.i++
	}
	return p.s[start:p.i]
}

// text skips the text of a, i or c: one line, where a backslash before
// the newline continues it (both the one-line GNU form and "a\").
func (p *sedParser) text() {
	for !p.eof() {
		c := p.next()
		if c == '\\' && !p.eof() {
			p.i++ // an escaped character, a newline included
			continue
		}
		if c == '\n' {
			return
		}
	}
}

// addresses reads an optional address or range: a line number, $, a
// regex (/re/ or \cREc, with I and M flags), first~step, and after a comma
// also +N and ~N.
func (p *sedParser) addresses() error {
	ok, err := p.address()
	if err != nil || !ok {
		return err
	}
	p.skip(" \t")
	if p.eof() || p.peek() != ',' {
		return nil
	}
	p.i++
	p.skip(" \t")
	if !p.eof() && (p.peek() == '+' || p.peek() == '~') {
		p.i++
		if !p.digits() {
			return errors.New("a range step without a number")
		}
		return nil
	}
	if ok, err := p.address(); err != nil || !ok {
		if err == nil {
			err = errors.New("a range without its second address")
		}
		return err
	}
	return nil
}

func (p *sedParser) address() (bool, error) {
	if p.eof() {
		return false, nil
	}
	switch c := p.peek(); {
	case c >= '0' && c <= '9':
		p.digits()
		if !p.eof() && p.peek() == '~' {
			p.i++
			if !p.digits() {
				return false, errors.New("first~step without a step")
			}
		}
		return true, nil
	case c == '$':
		p.i++
		return true, nil
	case c == '/' || c == '\\':
		if c == '\\' {
			p.i++
			if p.eof() || p.peek() == '\n' || p.peek() == '\\' {
				return false, errors.New(`a "\" address without a delimiter`)
			}
		}
		delim := p.next()
		if _, err := p.delimited(delim, true); err != nil {
			return false, err
		}
		for !p.eof() && (p.peek() == 'I' || p.peek() == 'M') {
			p.i++
		}
		return true, nil
	}
	return false, nil
}

// delimited reads up to the next unescaped delim and returns what it
// skipped. A newline may not appear unescaped, as in GNU sed. In a regex
// GNU sed does not end at a delimiter inside a bracket expression ([/]);
// such a bracket, or one holding a backslash, is refused rather than
// followed, so that the parse never ends somewhere sed does not.
func (p *sedParser) delimited(delim byte, regex bool) (string, error) {
	start := p.i
	for !p.eof() {
		c := p.next()
		switch {
		case c == '\\':
			if p.eof() {
				return "", errors.New("a trailing backslash")
			}
			p.i++
		case c == delim:
			return p.s[start : p.i-1], nil
		case c == '\n':
			return "", errors.New("a newline inside a regex or replacement")
		case c == '[' && regex:
			if err := p.bracket(delim); err != nil {
				return "", err
			}
		}
	}
	return "", fmt.Errorf("an unterminated %q", delim)
}

// bracket skips a bracket expression after its "[": an optional "^", a
// "]" that comes first, classes like [:alpha:], up to the closing "]".
func (p *sedParser) bracket(delim byte) error {
	if !p.eof() && p.peek() == '^' {
		p.i++
	}
	if !p.eof() && p.peek() == ']' {
		p.i++
	}
	for !p.eof() {
		c := p.next()
		switch {
		case c == ']':
			return nil
		case c == delim || c == '\\' || c == '\n':
			return fmt.Errorf("a bracket expression holding %q", c)
		case c == '[' && !p.eof() && strings.IndexByte(":=.", p.peek()) >= 0:
			end := "]"
			end = string(p.next()) + end
			k := strings.Index(p.s[p.i:], end)
			if k < 0 {
				return errors.New("an unterminated class in a bracket expression")
			}
			if strings.ContainsAny(p.s[p.i:p.i+k], string(delim)+"\\\n") {
				return errors.New("a class holding the delimiter")
			}
			p.i += k + len(end)
		}
	}
	return errors.New("an unterminated bracket expression")
}

// substitute reads s/re/replacement/flags after the "s".
func (p *sedParser) substitute() error {
	if p.eof() || strings.IndexByte("\n\\", p.peek()) >= 0 {
		return errors.New("s without a delimiter")
	}
	delim := p.next()
	if _, err := p.delimited(delim, true); err != nil {
		return err
	}
	if _, err := p.delimited(delim, false); err != nil {
		return err
	}
	for !p.eof() {
		switch c := p.peek(); {
		case c == 'g' || c == 'p' || c == 'i' || c == 'I' || c == 'm' || c == 'M':
			p.i++
		case c >= '0' && c <= '9':
			p.digits()
		case c == 'e':
			return errors.New(`the s command's "e" flag runs the result as a shell command`)
		case c == 'w' || c == 'W':
			return errors.New(`the s command's "w" flag writes a file`)
		default:
			return nil
		}
	}
	return nil
}

// transliterate reads y/src/dst/ after the "y".
func (p *sedParser) transliterate() error {
	if p.eof() || strings.IndexByte("\n\\", p.peek()) >= 0 {
		return errors.New("y without a delimiter")
	}
	delim := p.next()
	if _, err := p.delimited(delim, false); err != nil {
		return err
	}
	_, err := p.delimited(delim, false)
	return err
}

// sed judges sed: its script (the first operand, or the -e options) is
// parsed and refused when it reaches past the text; with -i its files are
// rewritten in place, and with -iSUFFIX each file's backup is written
// too, judged as a write of its own.
func (j *judge) sed(w *words) {
	var scripts []string
	for _, u := range w.ps.opts {
		if u.opt != nil && u.opt.Mark == "pattern" {
			scripts = append(scripts, u.value)
		}
	}
	if w.first == 1 {
		scripts = append(scripts, w.ops[0])
	}
	if len(scripts) == 0 {
		j.refuse(rule.ForbiddenFlag, "sed without a script", "")
		return
	}
	// Scripts given in pieces are one script, a line each.
	if err := sedScript(strings.Join(scripts, "\n")); err != nil {
		j.refuse(rule.ForbiddenFlag, fmt.Sprintf("the sed script cannot be admitted: %v", err), "print with p and change text with s///, and let the tools read or write other files")
		return
	}
	mode, what := modeRead, "operand"
	suffix := ""
	if u := w.ps.has("inplace"); u != nil {
		mode, what, suffix = modeWrite, "operand of "+u.name, u.value
		if len(w.files()) == 0 {
			j.refuse(rule.NoTarget, "sed -i names no file to edit", "")
			return
		}
	}
	for _, o := range w.files() {
		if o == "-" && mode == modeRead {
			continue // standard input
		}
		a := access{word: o, what: what, mode: mode}
		if mode == modeWrite {
			a.target, a.op = true, OpChange
		}
		w.add(a)
		if suffix != "" && o != runtimeName {
			w.add(access{word: sedBackup(o, suffix), what: "backup of " + o + " (suffix " + suffix + ")", mode: modeWrite, target: true})
		}
	}
}

// sedBackup is where GNU sed -iSUFFIX keeps the file's old content: the
// file's name with the suffix appended, or, when the suffix holds "*",
// the suffix with each "*" replaced by the file's name, in the file's
// folder (a "/" in it names a folder, which must exist).
func sedBackup(file, suffix string) string {
	if !strings.Contains(suffix, "*") {
		return file + suffix
	}
	dir, base := path.Split(file)
	return dir + strings.ReplaceAll(suffix, "*", base)
}
