package shell

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"admit/policy/rule"
)

// class is what kind of problem one item is; it decides the Problem's Rule.
type class uint8

const (
	// classSyntax is a construct the profile does not run (an operator,
	// a loop, a parse error). It outranks the others: the line's shape is
	// wrong before any word is.
	classSyntax class = iota
	// classDynamic is a word whose value is only known at run time.
	classDynamic
	// classEmpty is a command with nothing (or an empty string) to run.
	classEmpty
)

// Bounds of a Problem. A hostile line could name thousands of distinct
// constructs; the reason is for a model to read, so it names the first
// maxItems and counts the rest, and quotes at most maxSnippet bytes of each.
const (
	maxItems   = 24
	maxSnippet = 48
)

// problems collects the items of one Parse call, in the order found,
// without duplicates.
type problems struct {
	items   []string
	worst   class // lowest class seen; meaningful only when len(items) > 0
	dropped int   // items past maxItems, counted for the reason
}

func (ps *problems) reset() {
	ps.items = ps.items[:0]
	ps.dropped = 0
	ps.worst = classEmpty
}

// add records one item: a construct's name and, when text is not empty,
// the text it was written as.
func (ps *problems) add(c class, name, text string) {
	item := name
	if text != "" {
		item = name + " " + quote(text)
	}
	ps.addItem(c, item)
}

// addItem records one item as written.
func (ps *problems) addItem(c class, item string) {
	if len(ps.items) == 0 || c < ps.worst {
		ps.worst = c
	}
	for _, have := range ps.items {
		if have == item {
			return
		}
	}
	if len(ps.items) >= maxItems {
		ps.dropped++
		return
	}
	ps.items = append(ps.items, item)
}

func (ps *problems) empty() bool { return len(ps.items) == 0 }

// problem builds the Problem for the items collected so far. Rule is
// shell-syntax if any item is structural, else dynamic-word, else
// empty-command; the reason names every item either way.
func (ps *problems) problem() *Problem {
	var r rule.Rule
	switch ps.worst {
	case classSyntax:
		r = rule.ShellSyntax
	case classDynamic:
		r = rule.DynamicWord
	default:
		r = rule.EmptyCommand
	}
	reason := leadOf(r) + strings.Join(ps.items, ", ")
	if ps.dropped > 0 {
		reason += ", and " + strconv.Itoa(ps.dropped) + " more"
	}
	return &Problem{Rule: r, Items: append([]string(nil), ps.items...), Reason: reason}
}

// leadOf is how a Problem's reason starts for its rule.
func leadOf(r rule.Rule) string {
	switch r {
	case rule.ShellSyntax:
		return "needs shell syntax the gate does not run: "
	case rule.DynamicWord:
		return "has words whose value is only known when a shell runs them: "
	}
	return "names no program to run: "
}

// rank orders a Problem's rules as their classes: the lower, the worse.
func rank(r rule.Rule) int {
	switch r {
	case rule.ShellSyntax:
		return int(classSyntax)
	case rule.DynamicWord:
		return int(classDynamic)
	}
	return int(classEmpty)
}

// quote shows text between double quotes, cut to maxSnippet bytes, with
// control characters escaped so a reason stays on one line and a hidden
// carriage return cannot rewrite what a person sees.
func quote(text string) string {
	cut := false
	if len(text) > maxSnippet {
		n := maxSnippet
		for n > 0 && !utf8.RuneStart(text[n]) {
			n--
		}
		text, cut = text[:n], true
	}
	var b strings.Builder
	b.Grow(len(text) + 5)
	b.WriteByte('"')
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c == 0x7f:
			b.WriteString(`\x`)
			b.WriteByte("0123456789abcdef"[c>>4])
			b.WriteByte("0123456789abcdef"[c&15])
		default:
			b.WriteByte(c)
		}
	}
	if cut {
		b.WriteString("...")
	}
	b.WriteByte('"')
	return b.String()
}
