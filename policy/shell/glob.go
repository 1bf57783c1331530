package shell

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// MaxMatches bounds the names one pattern may expand to; a word that
// matches more is refused rather than judged name by name.
const MaxMatches = 256

// ErrOptionName is returned by ExpandPatterns for a pattern that matches
// a name starting with "-": the program would read it as an option, and a
// file made to look like one (rm * beside a file named -rf) is a known
// trick.
var ErrOptionName = errors.New("shell: a pattern matches a name that starts with \"-\", which the program would read as an option")

// ErrTooManyMatches is returned by ExpandPatterns for a pattern that
// matches more than MaxMatches names.
var ErrTooManyMatches = fmt.Errorf("shell: a pattern matches more than %d names", MaxMatches)

// patternWord turns a pattern (quoted characters escaped for
// mvdan.cc/sh/v3/pattern, tilde already expanded) into shell text that
// mvdan.cc/sh/v3/expand reads back as the same pattern: braces were
// expanded already and a leading "~" was literal, so both are escaped.
func patternWord(pat []byte) string {
	out := make([]byte, 0, len(pat)+4)
	for i := 0; i < len(pat); i++ {
		switch c := pat[i]; {
		case c == '\\' && i+1 < len(pat):
			out = append(out, c, pat[i+1])
			i++
		case c == '{' || c == '}' || c == '~' && i == 0:
			out = append(out, '\\', c)
		default:
			out = append(out, c)
		}
	}
	return string(out)
}

// ExpandPatterns replaces the pattern words of c with the names they
// match in dir, as bash does: sorted, hidden names only for a pattern
// that starts with a dot, the word itself when nothing matches. readDir
// lists a folder; an error from it for a folder bash would read refuses
// the expansion. The command's GlobOptions move with the words after a
// pattern. c is left as it was on error.
func ExpandPatterns(c *Command, dir string, readDir func(string) ([]fs.DirEntry, error)) error {
	if len(c.Patterns) == 0 {
		return nil
	}
	cfg := &expand.Config{Env: expand.ListEnviron("PWD=" + dir), ReadDir2: readDir}
	argv := make([]string, 0, len(c.Argv))
	globs := slices.Clone(c.GlobOptions)
	next := 0 // the next word of c.Argv to copy
	for _, pt := range c.Patterns {
		argv = append(argv, c.Argv[next:pt.Index]...)
		var names []string
		word := &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: pt.Word}}}
		for name, err := range expand.FieldsSeq(cfg, word) {
			if err != nil {
				return fmt.Errorf("shell: expanding %s: %w", pt.Word, err)
			}
			if hiddenUnasked(pt.Word, name) {
				continue
			}
			if strings.HasPrefix(name, "-") && name != c.Argv[pt.Index] {
				return fmt.Errorf("%w: %s", ErrOptionName, name)
			}
			if len(names) == MaxMatches {
				return fmt.Errorf("%w: %s", ErrTooManyMatches, c.Argv[pt.Index])
			}
			names = append(names, name)
		}
		if len(names) == 0 {
			// Every match was a hidden name bash would not give: bash
			// passes the word as written.
			names = append(names, c.Argv[pt.Index])
		}
		for i, g := range globs {
			if g > pt.Index {
				globs[i] += len(names) - 1
			}
		}
		argv = append(argv, names...)
		next = pt.Index + 1
	}
	c.Argv = append(argv, c.Argv[next:]...)
	c.GlobOptions, c.Patterns = globs, nil
	return nil
}

// hiddenUnasked reports whether name, matched by the pattern word, has a
// component that starts with a dot where the pattern's component does
// not: bash never lets a pattern match a leading dot it does not spell
// out, and mvdan's [!a]* does.
func hiddenUnasked(word, name string) bool {
	if !strings.Contains(name, "/.") && !strings.HasPrefix(name, ".") {
		return false
	}
	pat, got := strings.Split(word, "/"), strings.Split(name, "/")
	if len(pat) != len(got) {
		return true // not a match this function understands: leave it out
	}
	for i, g := range got {
		if strings.HasPrefix(g, ".") && !strings.HasPrefix(pat[i], ".") && !strings.HasPrefix(pat[i], `\.`) {
			return true
		}
	}
	return false
}
