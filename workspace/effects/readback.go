package effects

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"admit/policy/command"
)

// Verification is the outcome of reading a change back from the file system.
type Verification struct {
	Verified bool   `json:"verified"`
	Detail   string `json:"detail"`
}

// An Expectation is a run's readback: the intents the command policy
// admitted (command.Decision.Intents), each checked after the run in the
// policy's own reading of the command and nothing else. Take it with
// Expect before the run, let the run note each command it starts (Ran,
// or Recheck around run.Spec.Recheck), and call Verify once it ended.
//
// What a source held is remembered just before its command starts (or,
// without Ran, when Expect is called), so that "mv a b" can be checked
// once a is gone and "echo x >> a; cp a b" copies the a that cp saw.
type Expectation struct {
	intents []command.Intent
	argvs   [][]string // each command of the line, by index (Intent.Cmd); nil: not tracked
	// fits are the commands whose words are known only when they run
	// (Rejudged): argvs holds them as written, and fits tells their
	// words when they start.
	fits map[int]func(argv []string) bool
	// manyDirs: the intents were judged in more than one folder, so each
	// is shown with its folder (paths are shown relative to it).
	manyDirs bool

	mu       sync.Mutex
	before   []pair           // by intent: From and Path before the command ran
	ran      map[int][]string // command (Intent.Cmd) -> the folders it ran in
	ranCount int
}

// pair is what one intent's paths held before its command ran.
type pair struct {
	from, path state
	taken      bool
}

// Expect prepares the readback of intents. argvs are the commands of the
// admitted line (policy.Decision.Argv), in order: when given, only the
// intents of commands the run started are checked, in the folder each
// started in (see Ran); when nil, every intent is, and a command judged in
// several folders (after "cd DIR;") passes when it holds in one of them.
func Expect(intents []command.Intent, argvs [][]string) *Expectation {
	e := &Expectation{intents: intents, argvs: slices.Clone(argvs), before: make([]pair, len(intents))}
	for _, in := range intents {
		e.manyDirs = e.manyDirs || in.Dir != intents[0].Dir
	}
	if argvs == nil {
		for i := range intents {
			e.take(i)
		}
	} else {
		e.ran = map[int][]string{}
	}
	return e
}

// Rejudged marks command cmd as one whose words are known only when it
// runs (echo "$HOME", wc -l $(git ls-files)): written is how the line
// has it, and fits tells the words it starts with (policy.Shape.Fits).
func (e *Expectation) Rejudged(cmd int, written []string, fits func(argv []string) bool) {
	if cmd >= len(e.argvs) {
		return
	}
	if e.fits == nil {
		e.fits = map[int]func([]string) bool{}
	}
	e.argvs[cmd], e.fits[cmd] = written, fits
}

// is reports whether argv, a command starting, is command cmd of the line.
func (e *Expectation) is(cmd int, argv []string) bool {
	if fits := e.fits[cmd]; fits != nil {
		return fits(argv)
	}
	return slices.Equal(e.argvs[cmd], argv)
}

// Ran notes that the command argv starts in dir, and remembers what its
// intents' sources hold at that moment. It is safe for concurrent use
// (the members of a pipeline start together).
func (e *Expectation) Ran(argv []string, dir string) {
	if e.ran == nil {
		return
	}
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r // the policy judged the resolved folder
	}
	dir = filepath.Clean(dir)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.ranCount++
	for cmd := range e.argvs {
		if !e.is(cmd, argv) {
			continue
		}
		if !slices.Contains(e.ran[cmd], dir) {
			e.ran[cmd] = append(e.ran[cmd], dir)
		}
		for i, in := range e.intents {
			if in.Cmd == cmd && in.Dir == dir {
				e.take(i)
			}
		}
	}
}

// Recheck wraps a run's recheck so that every command it lets start is
// noted with Ran. next may be nil.
func (e *Expectation) Recheck(next func(argv []string, dir string) error) func(argv []string, dir string) error {
	return func(argv []string, dir string) error {
		if next != nil {
			if err := next(argv, dir); err != nil {
				return err
			}
		}
		e.Ran(argv, dir)
		return nil
	}
}

// take remembers what intent i's source and path hold now.
func (e *Expectation) take(i int) {
	in := e.intents[i]
	var p pair
	switch in.Op {
	case command.OpCopy, command.OpMove, command.OpExchange:
		p.from = snapshot(in.From)
	}
	if in.Keep || in.Op == command.OpUpdate || in.Op == command.OpExchange {
		p.path = snapshot(in.Path)
	}
	p.taken = true
	e.before[i] = p
}

// Verify checks, after the run, every intent of the commands that ran:
// the detail names each path and what was checked of it.
func (e *Expectation) Verify() Verification {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.intents) == 0 {
		return Verification{true, "nothing to read back: the command changes no file the policy could name; what changed was held to the admitted targets"}
	}
	if e.ran != nil && e.ranCount == 0 {
		return Verification{false, "readback failed: no command of the line was seen to start, so none of its changes can be read back"}
	}
	var done, problems, skipped []string
	for _, cmd := range e.commands() {
		d, p, s := e.verifyCommand(cmd)
		done, problems = append(done, d...), append(problems, p...)
		if s != "" {
			skipped = append(skipped, s)
		}
	}
	if len(problems) > 0 {
		return Verification{false, "readback failed: " + strings.Join(problems, "; ")}
	}
	detail := "readback confirmed " + strings.Join(done, "; ")
	if len(done) == 0 {
		detail = "readback confirmed nothing: no command that changes files ran"
	}
	if len(skipped) > 0 {
		detail += "; did not run: " + strings.Join(skipped, "; ")
	}
	return Verification{true, detail}
}

// commands lists the indexes of the commands with intents, in order.
func (e *Expectation) commands() []int {
	var cmds []int
	for _, in := range e.intents {
		if !slices.Contains(cmds, in.Cmd) {
			cmds = append(cmds, in.Cmd)
		}
	}
	return cmds
}

// verifyCommand checks the intents of one command, in the folders it ran
// in; skipped names the command when it did not run.
func (e *Expectation) verifyCommand(cmd int) (done, problems []string, skipped string) {
	var dirs []string // the folders it was judged in
	for _, in := range e.intents {
		if in.Cmd == cmd && !slices.Contains(dirs, in.Dir) {
			dirs = append(dirs, in.Dir)
		}
	}
	if e.ran != nil && cmd < len(e.argvs) {
		words := strings.Join(e.argvs[cmd], " ")
		ranIn := e.ran[cmd]
		if len(ranIn) == 0 {
			return nil, nil, words
		}
		var both []string
		for _, d := range dirs {
			if slices.Contains(ranIn, d) {
				both = append(both, d)
			}
		}
		if len(both) == 0 {
			return nil, []string{fmt.Sprintf("%q ran in %s, a folder it was not judged in (%s)", words, strings.Join(ranIn, ", "), strings.Join(dirs, ", "))}, ""
		}
		for _, d := range both {
			dd, dp := e.verifyIn(cmd, d)
			done, problems = append(done, dd...), append(problems, dp...)
		}
		return done, problems, ""
	}
	// Not tracked: one of the folders it may have run in must hold.
	for _, d := range dirs {
		dd, dp := e.verifyIn(cmd, d)
		if len(dp) == 0 {
			return dd, nil, ""
		}
		problems = append(problems, dp...)
	}
	return nil, problems, ""
}

// verifyIn checks the intents of command cmd judged in dir.
func (e *Expectation) verifyIn(cmd int, dir string) (done, problems []string) {
	for i, in := range e.intents {
		if in.Cmd != cmd || in.Dir != dir {
			continue
		}
		ok, problem := check(in, e.before[i])
		if later := e.changedLater(in); later != "" {
			ok, problem = fmt.Sprintf("%s on %s not read back: %s, later in the line, changes it", in.By, shown(in.Dir, in.Path), later), ""
		}
		where := ""
		if e.manyDirs {
			where = " (in " + dir + ")"
		}
		if problem != "" {
			problems = append(problems, problem+where)
		} else {
			done = append(done, ok+where)
		}
	}
	return done, problems
}

// changedLater names a command after in's, in the line, that ran and
// writes in's path (or, for a move, its source) or a folder above it: what
// in did may be undone there ("echo x >> a && mv a b"), so in is not read
// back on its own.
func (e *Expectation) changedLater(in command.Intent) string {
	for _, l := range e.intents {
		if l.Cmd <= in.Cmd || !e.started(l.Cmd) {
			continue
		}
		touched := []string{l.Path}
		if l.Op == command.OpMove || l.Op == command.OpExchange {
			touched = append(touched, l.From)
		}
		for _, t := range touched {
			if under(in.Path, t) || (in.Op == command.OpMove || in.Op == command.OpExchange) && under(in.From, t) {
				return l.By
			}
		}
	}
	return ""
}

// started reports whether command cmd was seen to start (always, when
// the run is not tracked).
func (e *Expectation) started(cmd int) bool {
	if e.ran == nil || cmd >= len(e.argvs) {
		return true
	}
	return len(e.ran[cmd]) > 0
}

// under reports whether p is dir or inside it.
func under(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

// check reads back one intent: what was confirmed, or the problem.
func check(in command.Intent, before pair) (string, string) {
	show := func(p string) string { return shown(in.Dir, p) }
	p, by := show(in.Path), in.By
	after := snapshot(in.Path)
	switch in.Op {
	case command.OpCreate:
		if after.kind == missing {
			return "", fmt.Sprintf("%s is missing (%s was to create it)", p, by)
		}
		return fmt.Sprintf("%s created %s", by, p), ""
	case command.OpCreateDir:
		if info, err := os.Stat(in.Path); err != nil || !info.IsDir() {
			return "", fmt.Sprintf("%s is not a folder (%s was to make it)", p, by)
		}
		return fmt.Sprintf("%s made the folder %s", by, p), ""
	case command.OpChange:
		if after.kind == missing {
			return "", fmt.Sprintf("%s is missing (%s was to write it)", p, by)
		}
		return fmt.Sprintf("%s wrote %s", by, p), ""
	case command.OpUpdate:
		switch existed := before.path.kind != missing; {
		case existed && after.kind == missing:
			return "", fmt.Sprintf("%s is gone (%s -c was only to change its times)", p, by)
		case !existed && after.kind != missing && before.taken:
			return "", fmt.Sprintf("%s appeared (%s -c creates nothing)", p, by)
		case after.kind == missing:
			return fmt.Sprintf("%s left %s absent", by, p), ""
		}
		return fmt.Sprintf("%s touched %s", by, p), ""
	case command.OpRemove:
		if _, err := os.Lstat(in.Path); err == nil {
			return "", fmt.Sprintf("%s is still present (%s was to remove it)", p, by)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Sprintf("%s cannot be read back (%v)", p, err)
		}
		return fmt.Sprintf("%s removed %s", by, p), ""
	case command.OpCopy:
		return checkCopy(in, before, after, show)
	case command.OpMove:
		return checkMove(in, before, after, show)
	case command.OpExchange:
		f := show(in.From)
		if !before.taken || !holds(after, before.from) || !holds(snapshot(in.From), before.path) {
			return "", fmt.Sprintf("%s and %s do not hold each other's former contents (%s was to exchange them)", f, p, by)
		}
		return fmt.Sprintf("%s exchanged %s and %s", by, f, p), ""
	}
	return "", fmt.Sprintf("%s: %s has no readback for %q", p, by, in.Op)
}

// checkCopy: the destination holds what the source held before cp ran
// (or holds now: cp does not change its source); with Keep, an existing
// destination may be left as it was.
func checkCopy(in command.Intent, before pair, after state, show func(string) string) (string, string) {
	p, f, by := show(in.Path), show(in.From), in.By
	if after.kind == missing {
		return "", fmt.Sprintf("%s is missing (%s was to copy %s there)", p, by, f)
	}
	if in.Keep && before.taken && before.path.kind != missing && after.same(before.path) {
		return fmt.Sprintf("%s left %s as it was (it existed, and %s may keep it)", by, p, by), ""
	}
	held := before.from
	if !before.taken || held.kind == missing {
		held = snapshot(in.From) // made by an earlier command, after Expect: as cp left it
	}
	if holds(after, held) {
		return fmt.Sprintf("%s copied %s to %s", by, f, p), ""
	}
	return "", fmt.Sprintf("%s does not hold what %s held (%s was to copy it there)", p, f, by)
}

// checkMove: the source is gone, and the destination holds what the
// source held before mv ran.
func checkMove(in command.Intent, before pair, after state, show func(string) string) (string, string) {
	p, f, by := show(in.Path), show(in.From), in.By
	if filepath.Clean(in.From) != filepath.Clean(in.Path) {
		if _, err := os.Lstat(in.From); err == nil {
			return "", fmt.Sprintf("%s is still present (%s was to move it to %s)", f, by, p)
		}
	}
	if after.kind == missing {
		return "", fmt.Sprintf("%s is missing (%s was to move %s there)", p, by, f)
	}
	if before.taken && before.from.kind != missing && !holds(after, before.from) {
		return "", fmt.Sprintf("%s does not hold what %s held (%s was to move it there)", p, f, by)
	}
	return fmt.Sprintf("%s moved %s to %s", by, f, p), ""
}

// shown is p relative to the folder the command ran in, when it is under it.
func shown(dir, p string) string {
	if r, err := filepath.Rel(dir, p); err == nil && r != ".." && !strings.HasPrefix(r, "../") {
		return r
	}
	return p
}

// The kinds of state.
const (
	missing = iota
	file
	folder
	symlink
	other
)

// hashMax bounds how much of a file a readback hashes: beyond it, only
// the size and the first hashMax bytes are compared, so a readback stays
// cheap.
const hashMax = 16 << 20

// maxNames bounds how many names of a folder a readback remembers.
const maxNames = 4096

// state is what a path held at one moment, as a readback compares it.
type state struct {
	kind   int
	size   int64
	sum    [sha256.Size]byte // of the first hashMax bytes of a file
	names  []string          // a folder's names (up to maxNames), sorted
	link   string            // a symlink's target, as written
	follow *state            // a symlink: what it leads to
}

// snapshot is what p holds now; a final symlink is not followed, but
// what it leads to is remembered too.
func snapshot(p string) state {
	info, err := os.Lstat(p)
	if err != nil {
		return state{}
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		s := state{kind: symlink}
		s.link, _ = os.Readlink(p)
		if target, err := os.Stat(p); err == nil {
			t := stateOf(p, target)
			s.follow = &t
		}
		return s
	}
	return stateOf(p, info)
}

// stateOf reads what info says p is: a file's size and hash, a folder's names.
func stateOf(p string, info fs.FileInfo) state {
	switch {
	case info.Mode().IsRegular():
		s := state{kind: file, size: info.Size()}
		if f, err := os.Open(p); err == nil {
			h := sha256.New()
			io.Copy(h, io.LimitReader(f, hashMax))
			f.Close()
			h.Sum(s.sum[:0])
		}
		return s
	case info.IsDir():
		s := state{kind: folder}
		if f, err := os.Open(p); err == nil {
			entries, _ := f.ReadDir(maxNames)
			f.Close()
			for _, d := range entries {
				s.names = append(s.names, d.Name())
			}
			slices.Sort(s.names)
		}
		return s
	}
	return state{kind: other}
}

// holds reports whether a destination that is now got holds what a
// source held (want): the same file contents, a folder with at least the
// same names, or the same symlink, or what the symlink led to (cp follows
// a link unless told not to).
func holds(got, want state) bool {
	switch want.kind {
	case missing:
		return false
	case symlink:
		if got.kind == symlink && got.link == want.link {
			return true
		}
		return want.follow != nil && holds(got, *want.follow)
	case file:
		return got.kind == file && got.size == want.size && got.sum == want.sum
	case folder:
		if got.kind != folder {
			return false
		}
		for _, n := range want.names {
			if _, found := slices.BinarySearch(got.names, n); !found && len(got.names) < maxNames {
				return false
			}
		}
		return true
	}
	return got.kind == want.kind
}

// same reports whether s is unchanged from before.
func (s state) same(before state) bool {
	return s.kind == before.kind && s.size == before.size && s.sum == before.sum && s.link == before.link && slices.Equal(s.names, before.names)
}
