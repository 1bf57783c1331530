package shell

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/pattern"
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

// The bounds of one line's pattern expansion. bash reads every folder a
// pattern needs, however many; the gate's answer must come in bounded
// time, so a line whose patterns would read more is refused (a 3.7 KB
// line of patterns over 8,000 folders once took 36 s of gate time). A
// pattern needs one read per folder it looks in, plus one for each link
// or literal name it looks through: "*/*.go" over a tree of 300 folders
// is about 300 reads.
const (
	// MaxWalkReads bounds the folders one line's patterns read.
	MaxWalkReads = 2048
	// MaxWalkEntries bounds the names those reads return, in all.
	MaxWalkEntries = 100_000
	// MaxWalkTime bounds the time the patterns of one line may take to
	// expand, when the Walk has a clock: 100,000 names take about half a
	// second, so a walk still going after two is on a file system too slow
	// to judge a line on (a network mount), and the line is refused.
	MaxWalkTime = 2 * time.Second
	// MaxPatternComponents bounds the components ("/"-separated parts)
	// of one pattern: each is a level of the walk.
	MaxPatternComponents = 32
)

// ErrUnreadable is returned by ExpandPatterns when a folder that a
// pattern would look in, on the way to a name it could match, cannot be
// read: it is outside the workspace (a symlink leading out: bash follows
// it), or its listing is refused. bash would expand through it, and the
// names it would give are not the gate's to see, so the expansion is
// refused rather than left as the word as written.
var ErrUnreadable = errors.New("shell: a folder the pattern looks in cannot be read, or is outside the workspace")

// ErrWalkBound is returned by ExpandPatterns when a line's patterns would
// read more folders or names than the Walk allows.
var ErrWalkBound = errors.New("shell: the patterns would read too many folders")

// Walk is the file system the patterns of one line are expanded against,
// and what the expansion may spend: one Walk serves every command of a
// line, so the bound holds for the line as a whole.
type Walk struct {
	// ReadDir lists a folder, sorted by name; an error other than "does
	// not exist" or "not a folder" for a folder on the way to a match
	// refuses the expansion (ErrUnreadable).
	ReadDir func(string) ([]fs.DirEntry, error)
	// MaxReads and MaxEntries bound the folders read and the names
	// listed; 0 is MaxWalkReads and MaxWalkEntries.
	MaxReads, MaxEntries int
	// Now is the clock of the walk's time bound (MaxWalkTime, from the
	// first read); nil: no time bound. The caller owns the clock.
	Now func() time.Time

	reads, entries int
	started        time.Time
	over           bool // a bound was reached: every later read fails
}

// Reads and Entries report what the walk has spent so far.
func (w *Walk) Reads() int   { return w.reads }
func (w *Walk) Entries() int { return w.entries }

// failedRead is a folder the expansion could not read.
type failedRead struct {
	path string
	err  error
}

// read is w.ReadDir, counted, with the folders it could not read kept.
func (w *Walk) read(failed *[]failedRead) func(string) ([]fs.DirEntry, error) {
	maxReads, maxEntries := w.MaxReads, w.MaxEntries
	if maxReads <= 0 {
		maxReads = MaxWalkReads
	}
	if maxEntries <= 0 {
		maxEntries = MaxWalkEntries
	}
	return func(dir string) ([]fs.DirEntry, error) {
		if w.over || w.reads >= maxReads {
			w.over = true
			return nil, ErrWalkBound
		}
		if w.Now != nil {
			if now := w.Now(); w.started.IsZero() {
				w.started = now
			} else if now.Sub(w.started) > MaxWalkTime {
				w.over = true
				return nil, fmt.Errorf("%w: the folders took longer than %s to read", ErrWalkBound, MaxWalkTime)
			}
		}
		w.reads++
		ents, err := w.ReadDir(dir)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
				*failed = append(*failed, failedRead{dir, err})
			}
			return nil, err
		}
		w.entries += len(ents)
		if w.entries > maxEntries {
			w.over = true
			return nil, ErrWalkBound
		}
		return ents, nil
	}
}

// ExpandPatterns replaces the pattern words of c with the names they
// match in dir, as bash does: sorted, hidden names only for a pattern
// that starts with a dot, the word itself when nothing matches. w lists
// the folders and bounds the work; a folder bash would read on the way
// to a match that w cannot read (a link leading out of the workspace, a
// refused listing) refuses the expansion (ErrUnreadable), and so does a
// line past the bounds (ErrWalkBound). The command's GlobOptions move
// with the words after a pattern. c is left as it was on error.
func ExpandPatterns(c *Command, dir string, w *Walk) error {
	if len(c.Patterns) == 0 {
		return nil
	}
	var failed []failedRead
	cfg := &expand.Config{Env: expand.ListEnviron("PWD=" + dir), ReadDir2: w.read(&failed)}
	argv := make([]string, 0, len(c.Argv))
	var fishArgv []string // argv as fish orders each pattern's names, where that differs
	fishDiffers := false
	globs := slices.Clone(c.GlobOptions)
	next := 0 // the next word of c.Argv to copy
	for _, pt := range c.Patterns {
		if n := strings.Count(pt.Word, "/") + 1; n > MaxPatternComponents {
			return fmt.Errorf("%w: %s has %d components, more than %d", ErrWalkBound, c.Argv[pt.Index], n, MaxPatternComponents)
		}
		argv = append(argv, c.Argv[next:pt.Index]...)
		var names []string
		word := &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: pt.Word}}}
		failed = failed[:0]
		// The walk's own errors come first: past the bound, or through a
		// folder that could not be read, the names found are not bash's.
		var nameErr error
		for name, err := range expand.FieldsSeq(cfg, word) {
			if err != nil || w.over {
				nameErr = err
				break
			}
			if hiddenUnasked(pt.Word, name) {
				continue
			}
			if strings.HasPrefix(name, "-") && name != c.Argv[pt.Index] {
				nameErr = fmt.Errorf("%w: %s", ErrOptionName, name)
				break
			}
			if len(names) == MaxMatches {
				nameErr = fmt.Errorf("%w: %s", ErrTooManyMatches, c.Argv[pt.Index])
				break
			}
			names = append(names, name)
		}
		if w.over {
			return fmt.Errorf("%w: the line's patterns would read more than %d folders or %d names; name the files, or narrow the pattern to a folder", ErrWalkBound, w.limit(true), w.limit(false))
		}
		for _, f := range failed {
			if rel, ok := onTheWay(pt.Word, dir, f.path); ok {
				return fmt.Errorf("%w: %s looks in %s: %w", ErrUnreadable, c.Argv[pt.Index], rel, f.err)
			}
		}
		switch {
		case errors.Is(nameErr, ErrOptionName), errors.Is(nameErr, ErrTooManyMatches):
			return nameErr
		case nameErr != nil:
			return fmt.Errorf("shell: expanding %s: %w", pt.Word, nameErr)
		}
		fishNames := names
		if c.SortedByFish {
			sorted, err := fishOrder(names)
			if err != nil {
				return err
			}
			if sorted != nil {
				fishNames, fishDiffers = sorted, true
			}
		}
		if len(names) == 0 {
			// Every match was a hidden name bash would not give: bash
			// passes the word as written.
			names = append(names, c.Argv[pt.Index])
			fishNames = names
		}
		for i, g := range globs {
			if g > pt.Index {
				globs[i] += len(names) - 1
			}
		}
		fishArgv = append(append(fishArgv, c.Argv[next:pt.Index]...), fishNames...)
		argv = append(argv, names...)
		next = pt.Index + 1
	}
	if fishDiffers {
		c.FishArgv = append(fishArgv, c.Argv[next:]...)
	}
	c.Argv = append(argv, c.Argv[next:]...)
	c.GlobOptions, c.Patterns = globs, nil
	return nil
}

// limit is the walk's bound on reads, or on entries.
func (w *Walk) limit(reads bool) int {
	if reads {
		if w.MaxReads > 0 {
			return w.MaxReads
		}
		return MaxWalkReads
	}
	if w.MaxEntries > 0 {
		return w.MaxEntries
	}
	return MaxWalkEntries
}

// onTheWay reports whether the folder read (absolute) could lie on the
// way to a name the pattern word matches, expanded in dir: each of its
// components below dir (or "/", for an absolute pattern) matches the
// pattern's component at the same level. It also returns read as the
// pattern sees it. The expansion reads some folders it then finds no
// match in (a link, to learn whether it leads to a folder); those are not
// on the way. A pattern with ".." or a folder it cannot place is read as
// on the way: the answer fails closed.
func onTheWay(word, dir, read string) (string, bool) {
	base := dir
	if strings.HasPrefix(word, "/") {
		base = "/"
	}
	rel := ""
	switch {
	case read == base:
		return read, true
	case base == "/" && strings.HasPrefix(read, "/"):
		rel = read[1:]
	case strings.HasPrefix(read, base+"/"):
		rel = read[len(base)+1:]
	default:
		return read, true
	}
	var pat []string
	for _, p := range strings.Split(word, "/") {
		switch p {
		case "", ".":
			continue
		case "..":
			return rel, true
		}
		pat = append(pat, p)
	}
	got := strings.Split(rel, "/")
	if len(got) > len(pat) {
		return rel, true
	}
	for i, g := range got {
		expr, err := pattern.Regexp(pat[i], pattern.Filenames|pattern.EntireString|pattern.NoGlobStar|pattern.GlobLeadingDot)
		if err != nil {
			return rel, true
		}
		rx, err := regexp.Compile(expr)
		if err != nil {
			return rel, true
		}
		if !rx.MatchString(g) {
			return rel, false
		}
	}
	return rel, true
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
