package connect

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The configurations are edited in place, as text: a node knows where its
// value starts and ends in the file, so an edit splices new text in and
// leaves every other byte (the person's keys, their order, spacing and
// comments) as it was. Decoding into a map and encoding it again would
// reorder keys, reformat numbers and drop comments.

// node is one JSON value of a document, with its place in the source.
type node struct {
	kind       byte // '{', '[', '"' (string), '0' (number), 't', 'f', 'n'
	start, end int  // the value's bytes: src[start:end]
	members    []member
	elems      []*node
	str        string // a string's decoded value
	num        string // a number's text
}

// member is one key and its value in an object.
type member struct {
	key      string
	keyStart int
	val      *node
}

// get returns the value of key in an object, or nil.
func (n *node) get(key string) *node {
	if n == nil || n.kind != '{' {
		return nil
	}
	for _, m := range n.members {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

// index returns the position of key among an object's members, or -1.
func (n *node) index(key string) int {
	for i, m := range n.members {
		if m.key == key {
			return i
		}
	}
	return -1
}

// children are a container's values: members' values or elements.
func (n *node) children() []*node {
	if n.kind == '[' {
		return n.elems
	}
	vals := make([]*node, len(n.members))
	for i, m := range n.members {
		vals[i] = m.val
	}
	return vals
}

// childStart is where the i-th child of a container starts: its key for
// an object member.
func (n *node) childStart(i int) int {
	if n.kind == '[' {
		return n.elems[i].start
	}
	return n.members[i].keyStart
}

func (n *node) len() int {
	if n.kind == '[' {
		return len(n.elems)
	}
	return len(n.members)
}

// SyntaxError is a configuration that is not JSON (or, for the hosts that
// read comments, JSON with comments): where and what.
type SyntaxError struct {
	Line, Column int
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// maxDepth bounds nesting: a configuration nested deeper than this is no
// configuration a host writes, and recursion must not run out of stack.
const maxDepth = 200

// parser reads one document.
type parser struct {
	src      []byte
	pos      int
	comments bool // "//" and "/* */" count as white space (JSON with comments)
	depth    int
}

// parseDoc parses src as one JSON value (with comments where allowed).
// Every key must be unique within its object: a host that keeps the first
// and one that keeps the last would read two different configurations.
func parseDoc(src []byte, comments bool) (*node, error) {
	if bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) {
		return nil, &SyntaxError{1, 1, "the file starts with a byte order mark, which JSON does not allow"}
	}
	if !utf8.Valid(src) {
		p := &parser{src: src}
		i := 0
		for i < len(src) {
			r, size := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			i += size
		}
		return nil, p.errAt(i, "invalid UTF-8")
	}
	p := &parser{src: src, comments: comments}
	if err := p.space(); err != nil {
		return nil, err
	}
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	if p.pos != len(src) {
		return nil, p.errAt(p.pos, "unexpected "+p.what(p.pos)+" after the document's end")
	}
	return n, nil
}

func (p *parser) errAt(pos int, msg string) *SyntaxError {
	line, col := 1, 1
	for _, r := range string(p.src[:min(pos, len(p.src))]) {
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return &SyntaxError{line, col, msg}
}

// what names the byte at pos for a message.
func (p *parser) what(pos int) string {
	if pos >= len(p.src) {
		return "end of file"
	}
	r, _ := utf8.DecodeRune(p.src[pos:])
	return strconv.QuoteRune(r)
}

// space skips white space, and comments where they are allowed.
func (p *parser) space() error {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.pos++
		case c == '/' && p.comments && p.pos+1 < len(p.src) && p.src[p.pos+1] == '/':
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		case c == '/' && p.comments && p.pos+1 < len(p.src) && p.src[p.pos+1] == '*':
			end := bytes.Index(p.src[p.pos+2:], []byte("*/"))
			if end < 0 {
				return p.errAt(p.pos, "a comment that never ends")
			}
			p.pos += 2 + end + 2
		default:
			return nil
		}
	}
	return nil
}

func (p *parser) value() (*node, error) {
	if p.pos >= len(p.src) {
		return nil, p.errAt(p.pos, "unexpected end of file, expected a value")
	}
	switch c := p.src[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		start := p.pos
		s, err := p.string()
		if err != nil {
			return nil, err
		}
		return &node{kind: '"', start: start, end: p.pos, str: s}, nil
	case c == '-' || '0' <= c && c <= '9':
		return p.number()
	}
	for _, lit := range []string{"true", "false", "null"} {
		if bytes.HasPrefix(p.src[p.pos:], []byte(lit)) {
			n := &node{kind: lit[0], start: p.pos, end: p.pos + len(lit)}
			p.pos += len(lit)
			return n, nil
		}
	}
	return nil, p.errAt(p.pos, "unexpected "+p.what(p.pos)+", expected a value")
}

func (p *parser) enter() error {
	if p.depth++; p.depth > maxDepth {
		return p.errAt(p.pos, fmt.Sprintf("nested more than %d deep", maxDepth))
	}
	return nil
}

func (p *parser) object() (*node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	n := &node{kind: '{', start: p.pos}
	p.pos++
	seen := map[string]bool{}
	for {
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos < len(p.src) && p.src[p.pos] == '}' && len(n.members) == 0 {
			p.pos++
			n.end = p.pos
			return n, nil
		}
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return nil, p.errAt(p.pos, "unexpected "+p.what(p.pos)+", expected a key in double quotes")
		}
		keyStart := p.pos
		key, err := p.string()
		if err != nil {
			return nil, err
		}
		if seen[key] {
			return nil, p.errAt(keyStart, fmt.Sprintf("the key %q is given twice in one object: hosts disagree on which one counts", key))
		}
		seen[key] = true
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return nil, p.errAt(p.pos, "unexpected "+p.what(p.pos)+", expected ':' after a key")
		}
		p.pos++
		if err := p.space(); err != nil {
			return nil, err
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, member{key: key, keyStart: keyStart, val: v})
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos < len(p.src) && p.src[p.pos] == '}' {
			p.pos++
			n.end = p.pos
			return n, nil
		}
		return nil, p.errAt(p.pos, "unexpected "+p.what(p.pos)+", expected ',' or '}'")
	}
}

func (p *parser) array() (*node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	n := &node{kind: '[', start: p.pos}
	p.pos++
	for {
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos < len(p.src) && p.src[p.pos] == ']' && len(n.elems) == 0 {
			p.pos++
			n.end = p.pos
			return n, nil
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, v)
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos < len(p.src) && p.src[p.pos] == ']' {
			p.pos++
			n.end = p.pos
			return n, nil
		}
		return nil, p.errAt(p.pos, "unexpected "+p.what(p.pos)+", expected ',' or ']'")
	}
}

// string reads a string at p.pos and returns its value.
func (p *parser) string() (string, error) {
	start := p.pos
	p.pos++
	var b strings.Builder
	for {
		if p.pos >= len(p.src) {
			return "", p.errAt(start, "a string that never ends")
		}
		c := p.src[p.pos]
		switch {
		case c == '"':
			p.pos++
			return b.String(), nil
		case c < 0x20:
			return "", p.errAt(p.pos, "a control character inside a string")
		case c == '\\':
			if p.pos+1 >= len(p.src) {
				return "", p.errAt(start, "a string that never ends")
			}
			e := p.src[p.pos+1]
			if r, ok := map[byte]rune{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}[e]; ok {
				b.WriteRune(r)
				p.pos += 2
				continue
			}
			if e != 'u' {
				return "", p.errAt(p.pos, fmt.Sprintf("an unknown escape \\%c", e))
			}
			r, err := p.hex4(p.pos + 2)
			if err != nil {
				return "", err
			}
			p.pos += 6
			if utf16.IsSurrogate(r) {
				// A surrogate must come in a pair; alone it is no
				// character, and readers replace it differently.
				if r >= 0xdc00 || p.pos+1 >= len(p.src) || p.src[p.pos] != '\\' || p.src[p.pos+1] != 'u' {
					return "", p.errAt(p.pos-6, "a lone UTF-16 surrogate escape")
				}
				r2, err := p.hex4(p.pos + 2)
				if err != nil {
					return "", err
				}
				if r2 < 0xdc00 || r2 > 0xdfff {
					return "", p.errAt(p.pos-6, "a lone UTF-16 surrogate escape")
				}
				r = utf16.DecodeRune(r, r2)
				p.pos += 6
			}
			b.WriteRune(r)
		default:
			r, size := utf8.DecodeRune(p.src[p.pos:])
			b.WriteRune(r)
			p.pos += size
		}
	}
}

func (p *parser) hex4(at int) (rune, error) {
	if at+4 > len(p.src) {
		return 0, p.errAt(at-2, "a \\u escape needs four hex digits")
	}
	v, err := strconv.ParseUint(string(p.src[at:at+4]), 16, 32)
	if err != nil {
		return 0, p.errAt(at-2, "a \\u escape needs four hex digits")
	}
	return rune(v), nil
}

func (p *parser) number() (*node, error) {
	start := p.pos
	if p.src[p.pos] == '-' {
		p.pos++
	}
	digits := func() int {
		n := 0
		for p.pos < len(p.src) && '0' <= p.src[p.pos] && p.src[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	switch {
	case p.pos < len(p.src) && p.src[p.pos] == '0':
		p.pos++
	case digits() == 0:
		return nil, p.errAt(p.pos, "a number needs digits")
	}
	if p.pos < len(p.src) && p.src[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return nil, p.errAt(p.pos, "a number needs digits after '.'")
		}
	}
	if p.pos < len(p.src) && (p.src[p.pos] == 'e' || p.src[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.src) && (p.src[p.pos] == '+' || p.src[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return nil, p.errAt(p.pos, "a number needs digits in its exponent")
		}
	}
	return &node{kind: '0', start: start, end: p.pos, num: string(p.src[start:p.pos])}, nil
}

// equal says whether a parsed value is the value v (see render for the
// types v may hold): the same strings, numbers of equal value, the same
// members whatever their order.
func equal(n *node, v any) bool {
	switch v := v.(type) {
	case string:
		return n.kind == '"' && n.str == v
	case int:
		if n.kind != '0' {
			return false
		}
		f, err := strconv.ParseFloat(n.num, 64)
		return err == nil && f == float64(v)
	case bool:
		return v && n.kind == 't' || !v && n.kind == 'f'
	case nil:
		return n.kind == 'n'
	case []any:
		if n.kind != '[' || len(n.elems) != len(v) {
			return false
		}
		for i := range v {
			if !equal(n.elems[i], v[i]) {
				return false
			}
		}
		return true
	case obj:
		if n.kind != '{' || len(n.members) != len(v) {
			return false
		}
		for _, kv := range v {
			m := n.get(kv.k)
			if m == nil || !equal(m, kv.v) {
				return false
			}
		}
		return true
	}
	return false
}
