package command

import (
	"fmt"
	"strings"
)

// optUse is one option as the program would see it.
type optUse struct {
	opt      *Option
	name     string // as written, without a value: "-o", "--output"
	value    string
	hasValue bool
	attached bool // the value was in the same word
	cluster  bool // a short option in a word with other options
}

// parsed is an argv split the way GNU getopt_long splits it: options
// (anywhere, as GNU permutes), operands, and "--" ending the options.
type parsed struct {
	opts     []optUse
	operands []string
	dash     int // index in operands where "--" was, or -1
}

func (ps *parsed) has(mark string) *optUse {
	for i := range ps.opts {
		if ps.opts[i].opt != nil && ps.opts[i].opt.Mark == mark {
			return &ps.opts[i]
		}
	}
	return nil
}

// sizeOpts makes opts, at the first option, room for n (bounded): the
// options of the words left are then one allocation, not one per
// doubling.
func (ps *parsed) sizeOpts(n int) {
	if ps.opts == nil {
		ps.opts = make([]optUse, 0, min(n, 16))
	}
}

// optError is an option the program table does not accept.
type optError struct{ reason string }

// unindexed refuses every option of a program whose entry does not index.
func (ix *optionIndex) unindexed() *optError {
	return &optError{fmt.Sprintf("the program table's entry does not compile (%v), so none of its options is accepted", ix.err)}
}

// parseArgs splits args (argv without the program name) with p's options.
// With stop, the first operand ends the options (a wrapper's command, or
// POSIX order), as getopt does with a "+" in its option string.
func parseArgs(p *Program, args []string, stop bool) (parsed, *optError) {
	ps := parsed{dash: -1}
	if p.NoOptions {
		ps.operands = args
		return ps, nil
	}
	ix := p.index()
	// Operands next to each other in args (grep -rn TODO src, wc -l a b)
	// are args's own words: operands is then args[from:i+1], capped so
	// that an append copies rather than writes into args. One that
	// follows an option copies them out.
	from := -1
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			ps.dash = len(ps.operands)
			ps.operands = append(ps.operands, args[i+1:]...)
			return ps, nil
		case len(a) < 2 || a[0] != '-':
			if stop {
				ps.operands = append(ps.operands, args[i:]...)
				return ps, nil
			}
			switch {
			case ps.operands == nil:
				from = i
			case from >= 0 && from+len(ps.operands) != i:
				// One allocation for every operand still to come.
				ops := make([]string, len(ps.operands), len(ps.operands)+len(args)-i)
				copy(ops, ps.operands)
				ps.operands, from = ops, -1
			}
			if from >= 0 {
				ps.operands = args[from : i+1 : i+1]
				continue
			}
			ps.operands = append(ps.operands, a)
		case a[1] == '-':
			ps.sizeOpts(len(args) - i)
			next, err := parseLong(p, ix, &ps, args, i)
			if err != nil {
				return ps, err
			}
			i = next
		default:
			ps.sizeOpts(len(args) - i + len(a) - 2) // -la is two
			next, err := parseShort(p, ix, &ps, args, i)
			if err != nil {
				return ps, err
			}
			i = next
		}
	}
	return ps, nil
}

// parseLong reads the long option at args[i] and returns the index of the
// last word it used.
func parseLong(p *Program, ix *optionIndex, ps *parsed, args []string, i int) (int, *optError) {
	a := args[i]
	name, value, hasValue := strings.Cut(a[2:], "=")
	o, full := lookupLong(p, ix, name)
	if o == nil {
		if ix.err != nil {
			return i, ix.unindexed()
		}
		if full == "" {
			return i, &optError{fmt.Sprintf("option %q of %s is not in the accepted options", "--"+name, p.Name)}
		}
		return i, &optError{fmt.Sprintf("option %q of %s is ambiguous (%s)", "--"+name, p.Name, full)}
	}
	u := optUse{opt: o, name: "--" + full, value: value, hasValue: hasValue, attached: hasValue}
	switch o.Arg {
	case NoArg:
		if hasValue {
			return i, &optError{fmt.Sprintf("option %q of %s takes no value", "--"+full, p.Name)}
		}
	case OptionalArg:
	default:
		if !hasValue {
			if i+1 >= len(args) {
				return i, &optError{fmt.Sprintf("option %q of %s needs a value", "--"+full, p.Name)}
			}
			i++
			u.value, u.hasValue = args[i], true
		}
	}
	ps.opts = append(ps.opts, u)
	return i, nil
}

// lookupLong finds a long option by its full name or, unless the program
// spells them out, by an unambiguous prefix. When nothing matches it
// returns "", when several do it returns them joined.
func lookupLong(p *Program, ix *optionIndex, name string) (*Option, string) {
	if o, ok := ix.long[name]; ok {
		return o, name
	}
	if p.ExactLong || name == "" {
		return nil, ""
	}
	var found *Option
	var names []string
	var first string
	for _, l := range ix.longs {
		if !strings.HasPrefix(l, name) {
			continue
		}
		o := ix.long[l]
		if found == nil {
			found, first = o, l
		} else if o != found {
			names = append(names, "--"+l)
		}
	}
	if found == nil {
		return nil, ""
	}
	if len(names) > 0 {
		return nil, strings.Join(append([]string{"--" + first}, names...), ", ")
	}
	return found, first
}

// shortNames[c] is "-" + string(c): built once, not once per option of
// every decision.
var shortNames = func() (names [256]string) {
	for c := range names {
		names[c] = "-" + string(rune(c))
	}
	return names
}()

// parseShort reads a word of short options (a cluster: -la, -uo file,
// -ofile) and returns the index of the last word it used.
func parseShort(p *Program, ix *optionIndex, ps *parsed, args []string, i int) (int, *optError) {
	a := args[i]
	if p.Digits {
		if allDigits(a[1:]) {
			ps.opts = append(ps.opts, optUse{name: a, value: a[1:], hasValue: true})
			return i, nil
		}
	}
	cluster := len(a) > 2
	for j := 1; j < len(a); j++ {
		c := a[j]
		o := ix.short[c]
		if o == nil {
			if ix.err != nil {
				return i, ix.unindexed()
			}
			if p.Digits && c >= '0' && c <= '9' {
				return i, &optError{fmt.Sprintf("option %q of %s mixes a count with other options; write -n N and the options separately", a, p.Name)}
			}
			return i, &optError{fmt.Sprintf("option %q of %s is not in the accepted options", "-"+string(c), p.Name)}
		}
		u := optUse{opt: o, name: shortNames[c], cluster: cluster}
		switch o.Arg {
		case NoArg:
			ps.opts = append(ps.opts, u)
			continue
		case OptionalArg:
			if j+1 < len(a) {
				u.value, u.hasValue, u.attached = a[j+1:], true, true
			}
		default:
			if j+1 < len(a) {
				u.value, u.hasValue, u.attached = a[j+1:], true, true
			} else {
				if i+1 >= len(args) {
					return i, &optError{fmt.Sprintf("option %q of %s needs a value", "-"+string(c), p.Name)}
				}
				i++
				u.value, u.hasValue = args[i], true
			}
		}
		ps.opts = append(ps.opts, u)
		return i, nil
	}
	return i, nil
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// valuePaths are the paths an option's value names past its start: after
// a second "=" (--node-options=--require=/x.js), in a "key=value" list
// (-o a=b,file=/x), or among words it holds ("--require /x.js"). Only
// what reads as a path for certain is returned (absolute, "~", "./",
// "../"); the value's start is the caller's to judge, as a path or as
// text, by what the option takes.
func valuePaths(v string, list bool) []string {
	var out []string
	// A list of folders (a class path: .:/x, lib/a.jar:/x) is split at
	// its colons too; a URL's colon is no separator, nor a host's
	// (host:/x, user@host:/x), unless the option takes a list (list).
	colons := list || !strings.Contains(v, "://") && !strings.Contains(v, "@") && classPathLike(v)
	for _, piece := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == ':' && colons }) {
		embedded := piece != v
		for {
			i := strings.IndexByte(piece, '=')
			if i < 0 || strings.ContainsRune(piece[:i], '/') {
				break
			}
			piece, embedded = piece[i+1:], true
		}
		if embedded && certainPath(piece) {
			out = append(out, piece)
		} else if p, ok := fileURLPath(piece); ok {
			out = append(out, p)
		}
	}
	return out
}

// fileURLPath is the path a file: URL or package spec names (file:../x,
// file:///tmp/x, git+file:///repo, file://localhost/x): what npm, uv,
// pip, deno and node load code from, as a path is.
func fileURLPath(piece string) (string, bool) {
	i := strings.Index(piece, "file:")
	if i < 0 || i > 0 && piece[i-1] != '+' {
		return "", false
	}
	rest := piece[i+len("file:"):]
	if after, ok := strings.CutPrefix(rest, "//"); ok {
		host, p, _ := strings.Cut(after, "/")
		if host != "" && host != "localhost" {
			return "", false // another machine's
		}
		rest = "/" + p
	}
	return rest, rest != ""
}

// certainPath reports a word that can only be a path: absolute (not "/"
// alone, a separator more often than a folder), under "~", or relative
// with "./" or "../".
func certainPath(w string) bool {
	return len(w) > 1 && w[0] == '/' || strings.HasPrefix(w, "~") || strings.HasPrefix(w, "./") || strings.HasPrefix(w, "../") || w == ".."
}

// classPathLike reports a value whose first colon follows a path (.,
// lib/, x.jar), as a class path's does, not a host name.
func classPathLike(v string) bool {
	first, _, ok := strings.Cut(v, ":")
	return ok && (first == "." || first == ".." || strings.Contains(first, "/") || strings.HasSuffix(first, ".jar") || strings.HasSuffix(first, ".zip"))
}

// listOptions take a colon-separated list of folders or archives as
// their next word (java -cp lib:/x).
var listOptions = map[string]bool{"-cp": true, "-classpath": true, "--class-path": true, "--module-path": true, "--upgrade-module-path": true,
	"-sourcepath": true, "--source-path": true, "-processorpath": true, "--processor-path": true, "-bootclasspath": true}
