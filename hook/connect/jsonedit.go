package connect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// obj is a JSON object to write, its members in the order written.
type obj []kv

// kv is one member of an obj.
type kv struct {
	k string
	v any // string, int, bool, nil, []any or obj
}

// get returns the value of key, or nil.
func (o obj) get(key string) (any, bool) {
	for _, m := range o {
		if m.k == key {
			return m.v, true
		}
	}
	return nil, false
}

// doc is a configuration being edited: its text and its parse, kept in
// step (every splice parses the text again).
type doc struct {
	src      []byte
	comments bool
	root     *node
}

func newDoc(src []byte, comments bool) (*doc, error) {
	d := &doc{src: src, comments: comments}
	root, err := parseDoc(src, comments)
	if err != nil {
		return nil, err
	}
	d.root = root
	return d, nil
}

// splice replaces src[start:end] with text and parses the result. An edit
// that leaves a document that does not parse is a bug, reported as one.
func (d *doc) splice(start, end int, text string) error {
	src := make([]byte, 0, len(d.src)-(end-start)+len(text))
	src = append(src, d.src[:start]...)
	src = append(src, text...)
	src = append(src, d.src[end:]...)
	root, err := parseDoc(src, d.comments)
	if err != nil {
		return fmt.Errorf("connect: an edit broke the document (%v); nothing is written", err)
	}
	d.src, d.root = src, root
	return nil
}

// newline is the file's line ending.
func (d *doc) newline() string {
	if bytes.Contains(d.src, []byte("\r\n")) {
		return "\r\n"
	}
	return "\n"
}

// multiline says whether the document is laid out on several lines; a
// document written on one line gets its new members on that line too.
func (d *doc) multiline() bool {
	return bytes.ContainsRune(d.src[d.root.start:d.root.end], '\n') || d.root.len() == 0
}

// lineIndent is the white space that starts the line holding pos.
func (d *doc) lineIndent(pos int) string {
	start := bytes.LastIndexByte(d.src[:pos], '\n') + 1
	end := start
	for end < len(d.src) && (d.src[end] == ' ' || d.src[end] == '\t') {
		end++
	}
	return string(d.src[start:end])
}

// sameLine says whether nothing but white space on one line lies between a
// and b.
func (d *doc) sameLine(a, b int) bool {
	return !bytes.ContainsRune(d.src[a:b], '\n')
}

// unit is one level of indentation, as the file's root members have it
// (two spaces when they say nothing).
func (d *doc) unit() string {
	r := d.root
	if r.kind == '{' && r.len() > 0 && !d.sameLine(r.start, r.childStart(0)) {
		ind := strings.TrimPrefix(d.lineIndent(r.childStart(0)), d.lineIndent(r.start))
		if ind != "" {
			return ind
		}
	}
	return "  "
}

// colon is what the file puts between a key and its value.
func (d *doc) colon() string {
	var first *member
	var find func(n *node)
	find = func(n *node) {
		if first != nil || n == nil {
			return
		}
		if n.kind == '{' && len(n.members) > 0 {
			first = &n.members[0]
			return
		}
		for _, c := range n.elems {
			find(c)
		}
	}
	find(d.root)
	if first != nil {
		// The key's end is the first '"' not escaped after its start.
		i := first.keyStart + 1
		for i < first.val.start && d.src[i] != '"' {
			if d.src[i] == '\\' {
				i++
			}
			i++
		}
		if gap := string(d.src[i+1 : first.val.start]); strings.TrimSpace(gap) == ":" && !strings.ContainsAny(gap, "\r\n") {
			return gap
		}
	}
	return ": "
}

// layout says how the children of container c are laid out: inline (all
// on the container's line) or each on its own line with indent ind.
func (d *doc) layout(c *node) (inline bool, ind string) {
	if c.len() > 0 {
		if d.sameLine(c.start, c.childStart(0)) {
			return true, ""
		}
		return false, d.lineIndent(c.childStart(0))
	}
	if !d.multiline() {
		return true, ""
	}
	return false, d.lineIndent(c.start) + d.unit()
}

// insert adds v as the last child of container c (under key, for an
// object). It goes right after the last child, so that remove of the
// last child takes back exactly what insert added.
func (d *doc) insert(c *node, key string, v any) error {
	inline, ind := d.layout(c)
	item := d.render(v, ind, inline)
	if c.kind == '{' {
		item = quote(key) + d.colon() + item
	}
	if n := c.len(); n > 0 {
		last := c.children()[n-1]
		sep := "," + d.newline() + ind
		if inline {
			sep = "," + strings.TrimPrefix(d.colon(), ":")
		}
		return d.splice(last.end, last.end, sep+item)
	}
	if inline {
		return d.splice(c.start+1, c.end-1, item)
	}
	nl := d.newline()
	return d.splice(c.start+1, c.end-1, nl+ind+item+nl+d.lineIndent(c.start))
}

// remove takes out the i-th child of container c with the separator that
// joins it to its neighbours.
func (d *doc) remove(c *node, i int) error {
	n := c.len()
	kids := c.children()
	switch {
	case n == 1:
		return d.splice(c.start+1, c.end-1, "")
	case i == n-1:
		return d.splice(kids[i-1].end, kids[i].end, "")
	default:
		return d.splice(c.childStart(i), c.childStart(i+1), "")
	}
}

// replace puts v in place of the value n.
func (d *doc) replace(n *node, v any) error {
	inline := d.sameLine(n.start, n.end)
	if (n.kind == '{' || n.kind == '[') && n.len() == 0 && d.multiline() {
		inline = false
	}
	return d.splice(n.start, n.end, d.render(v, d.lineIndent(n.start), inline))
}

// render writes v as JSON in the file's style: at indent ind, on one line
// or one member a line. Lists of plain values stay on one line.
func (d *doc) render(v any, ind string, inline bool) string {
	unit, colon, nl := d.unit(), d.colon(), d.newline()
	gap := strings.TrimPrefix(colon, ":")
	var r func(v any, ind string) string
	r = func(v any, ind string) string {
		switch v := v.(type) {
		case obj:
			if len(v) == 0 {
				return "{}"
			}
			parts := make([]string, len(v))
			for i, m := range v {
				if inline {
					parts[i] = quote(m.k) + colon + r(m.v, ind)
				} else {
					parts[i] = ind + unit + quote(m.k) + colon + r(m.v, ind+unit)
				}
			}
			if inline {
				return "{" + strings.Join(parts, ","+gap) + "}"
			}
			return "{" + nl + strings.Join(parts, ","+nl) + nl + ind + "}"
		case []any:
			if len(v) == 0 {
				return "[]"
			}
			plain := true
			for _, e := range v {
				switch e.(type) {
				case obj, []any:
					plain = false
				}
			}
			parts := make([]string, len(v))
			for i, e := range v {
				if inline || plain {
					parts[i] = r(e, ind)
				} else {
					parts[i] = ind + unit + r(e, ind+unit)
				}
			}
			if inline || plain {
				return "[" + strings.Join(parts, ","+gap) + "]"
			}
			return "[" + nl + strings.Join(parts, ","+nl) + nl + ind + "]"
		case string:
			return quote(v)
		case int:
			return fmt.Sprint(v)
		case bool:
			return fmt.Sprint(v)
		case nil:
			return "null"
		}
		panic(fmt.Sprintf("connect: cannot render %T", v))
	}
	return r(v, ind)
}

// quote is s as a JSON string, without the HTML escapes encoding/json
// adds by default.
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// skeletonText is a new file: the format's fixed members, one a line.
func skeletonText(sk obj) []byte {
	d := &doc{src: []byte("{}"), root: &node{kind: '{', start: 0, end: 2}}
	return []byte(d.render(sk, "", false) + "\n")
}
