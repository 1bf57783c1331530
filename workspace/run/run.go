// Package run executes a command line the gate has admitted, without a
// system shell: mvdan.cc/sh/v3/interp interprets the line, and its handlers
// keep the gate in charge. Every simple command is checked again as it is
// about to run (Spec.Recheck, after expansion), only plain programs found on
// PATH start (never a shell), every file a redirection opens is confined to
// the roots (reads) and to Spec.Writes (writes) and must be a regular file
// with one link (or one of a few devices), and each program runs in its
// own process group with a scrubbed environment, closed standard input,
// capped output, a timeout that ends it (SIGTERM, then SIGKILL) and a
// memory limit.
//
// With Spec.Confine, each program is confined (docs/confinement.md): it
// reads only the
// workspace, the system's program folders and the toolchains' installs
// and caches; writes only the admitted targets or, for a program that runs
// code (Spec.Code), the workspace minus its protected paths and
// hard-linked files, a private temporary folder and the caches; reaches
// no network unless Spec.Network, and no unix socket; and cannot signal
// or trace a process outside the run. On Linux the walls come from
// Landlock, enforced on the OS thread that starts the program, a seccomp
// filter on that thread, and, for a program that runs code or where
// Landlock cannot scope signals, the confiner: the admit binary started
// again in its own mount, pid and network namespaces (confine_linux.go,
// seccomp_linux.go, confiner_linux.go, grants_linux.go). On macOS they
// come from Seatbelt: each program starts under sandbox-exec with a
// profile made from the run's plan (seatbelt.go, *_darwin.go). Windows
// gives none (*_windows.go): every wall is missing. Each system's files
// give the same names (confine, launch, probe, Confinement); Probe says
// which walls this machine gives; a run that needs one it cannot give is
// refused (ConfinementError) unless Spec.AcceptWeaker.
//
// Start with Run and Spec. A Result says how the run ended (its command's
// status, TimedOut, Cancelled, or an Err matching ErrRefused or ErrSetup);
// internal/cli maps that to the exit status of `admit run`.
package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// Spec is one admitted command and the bounds it runs under.
type Spec struct {
	Line  string   // the admitted command line (bash syntax, already judged by the gate)
	Argv  []string // or an argv, each word literal, instead of Line
	Dir   string   // working directory; must resolve inside Roots
	Roots []string // workspace roots (resolved again here, defensively)
	// Writes are the paths the verdict admitted for writing. A folder
	// admits everything beneath it (that is how Landlock grants), so a
	// command that creates or removes an entry needs its folder here.
	// Nothing else may be written, by a redirection or by a program.
	// Entries that resolve outside Roots are ignored: they grant nothing.
	Writes []string
	// Recheck is called for every simple command (builtins included) as it
	// is about to run, with the argv after expansion and the current
	// directory. A non-nil error refuses it: the command does not start
	// and the run ends with Err set. Nil means no recheck. It is called
	// concurrently for the parts of a pipeline.
	Recheck        func(argv []string, dir string) error
	Timeout        time.Duration // whole run; 0 means none. Spent: the group is killed, exit 124
	MaxOutputBytes int           // per stream; 0 means 64 KiB (defaultMaxOutput)
	MaxMemoryMB    int           // memory of each program (a cgroup's memory.max where delegated, else RLIMIT_DATA); 0 means none
	// Confine confines every program of the run (see the package doc). A
	// run that needs a wall this machine cannot give is refused, unless
	// AcceptWeaker.
	Confine bool
	// Code marks a run of a program that runs code (go test, npm test,
	// make, a workspace script): with Confine it may write the workspace
	// minus its protected paths and hard-linked files, its private
	// temporary folder and the toolchains' caches, and execute files in
	// the workspace, instead of writing only Writes.
	Code bool
	// Protected says whether a path in the workspace must stay as it is
	// (the gate passes policy/command's Protect). Required with Code and
	// Confine: the run walks the workspace and keeps what it names, as it
	// is when the run starts, read-only.
	Protected func(path string) bool
	// RootFolders and RootFiles are the protected names a root may not
	// have yet (the gate passes policy/command's RootNames), which a run
	// of code must not make there: on Linux, under the confiner, each
	// folder that does not exist is made empty before the run and bound
	// read-only in it (placeholders_linux.go); on macOS the profile denies
	// making any of them (seatbelt.go). Elsewhere, and at any depth, what
	// a run makes at a protected path is undone when it ends (undo.go).
	RootFolders, RootFiles []string
	// Keep says which protected paths made during the run are not undone
	// (the gate's own tape files, which it may rotate meanwhile); nil
	// undoes every one (undo.go).
	Keep func(path string) bool
	// Network opens the network (TCP and UDP, any address) to the run, as
	// the rule that admitted it says. Unix sockets stay closed.
	Network bool
	// AcceptWeaker runs a confined run even when this machine cannot give
	// every wall it needs (the person's setting); Result.Missing names
	// what it ran without.
	AcceptWeaker bool
	// StateDir is admit's own folder outside the workspace, for what a run
	// of code must outlive admit: the record of the empties it made (so a
	// killed admit's are removed by the next run, placeholders_linux.go)
	// and what its end took out of the workspace (undo.go). "" is
	// $XDG_STATE_HOME/admit, else ~/.local/state/admit.
	StateDir string
	Env      []string // base environment; Run keeps only an allowlist (see ScrubEnv)
	// Hidden are absolute paths of secret files the run must not read (a
	// .env beside a walk the gate allowed on that condition): each that
	// is a regular file reads as empty inside the run and cannot be
	// written (hidden.go). A link, a folder or a hard-linked file there,
	// or a run that cannot hide them here (unconfined, no namespaces,
	// Windows), is refused; a path that does not exist is skipped.
	Hidden []string
}

// Result is how a run ended.
type Result struct {
	ExitCode  int    `json:"exitCode"` // the last command's status; 124 timed out; 128+N killed by signal N; 126 refused or not started
	Stdout    string `json:"stdout"`
	Stderr    string `json:"stderr"`
	Truncated bool   `json:"truncated"`        // a stream hit MaxOutputBytes; it holds exactly the first MaxOutputBytes bytes
	Signal    string `json:"signal,omitempty"` // the signal that ended the last program killed by one, e.g. "SIGKILL"
	TimedOut  bool   `json:"timedOut,omitempty"`
	Cancelled bool   `json:"cancelled,omitempty"`
	// Confinement is "landlock" when programs ran under Landlock,
	// "seatbelt" under macOS's sandbox, or "none".
	Confinement string `json:"confinement"`
	LandlockABI int    `json:"landlockAbi,omitempty"`
	// Walls are the walls the run's programs stood behind, and what gave
	// each; Missing the walls it needed and ran without (AcceptWeaker).
	// Both are empty for an unconfined run.
	Walls   []Wall   `json:"walls,omitempty"`
	Missing []string `json:"missing,omitempty"`
	// Confiner is set when programs started in the confiner (namespaces).
	Confiner bool `json:"confiner,omitempty"`
	// Undone are the protected paths a run of code made, removed when it
	// ended (undo.go); NotUndone those that could not be removed.
	Undone    []string `json:"undone,omitempty"`
	NotUndone []string `json:"notUndone,omitempty"`
	// OutOfMemory: the kernel ended a program at its memory bound (a
	// cgroup's memory.max, cgroup_linux.go). Under RLIMIT_DATA an
	// allocation past the bound fails inside the program instead, which
	// reports it itself.
	OutOfMemory bool `json:"outOfMemory,omitempty"`
	// UndoneTo is the folder of admit's state the Undone paths were moved
	// into (the person may have made one of them meanwhile: who made a
	// file cannot be told); "" where they were removed.
	UndoneTo string `json:"undoneTo,omitempty"`
	// Hidden are the secret files (Spec.Hidden) that were regular files
	// and ran hidden: empty and read-only inside the run.
	Hidden []string `json:"hidden,omitempty"`
	// Err is a refusal (errors.Is ErrRefused: Recheck, a shell, a builtin,
	// a redirection outside its bounds, a hard-linked write target, a
	// FIFO or device operand, a wall the machine cannot give
	// (ConfinementError)) or a setup failure (errors.Is ErrSetup: bad
	// Spec, confiner failure). Nil when the command ran.
	Err error `json:"-"`
}

var (
	// ErrRefused marks a command or redirection the run refused; nothing of
	// that command ran.
	ErrRefused = errors.New("run: refused")
	// ErrSetup marks a run that could not be set up (bad Spec, missing
	// helper, Landlock that failed to apply).
	ErrSetup = errors.New("run: setup failed")
)

// RefusedError says what was refused and why. It matches ErrRefused.
type RefusedError struct {
	Argv   []string // the command refused, if a command
	Path   string   // the path refused, if a redirection
	Reason string
	Err    error // the Recheck error, if any
}

func (e *RefusedError) Error() string {
	what := strings.Join(e.Argv, " ")
	if e.Path != "" {
		what = e.Path
	}
	return fmt.Sprintf("refused %q: %s", what, e.Reason)
}

func (e *RefusedError) Unwrap() error        { return e.Err }
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// CancelSignal is a context cancellation cause naming the signal that asked
// for the cancellation (e.g. SIGINT to `admit run`); Run then reports
// 128+Signal. Without it a cancellation reports 128+SIGKILL, the signal the
// group is killed with.
type CancelSignal struct{ Signal syscall.Signal }

func (c CancelSignal) Error() string { return "cancelled by " + signalName(c.Signal) }

// defaultMaxOutput is the output bound per stream when none is given.
const defaultMaxOutput = 64 * 1024

// Run interprets s.Line (or s.Argv) and reports how it ended. It never
// returns early with a command still running: on timeout or cancellation
// the process group is killed and reaped first.
func Run(ctx context.Context, s Spec) Result {
	res := Result{Confinement: "none"}
	x, file, err := prepare(s)
	if x != nil {
		defer x.cleanup()
	}
	if err != nil {
		res.Err = err
		res.ExitCode = 126
		return res
	}
	if x.confined {
		res.Confinement, res.LandlockABI = x.sandbox, x.abi
		res.Walls, res.Missing, res.Confiner = x.walls, x.missing, x.confiner
	}
	if len(x.hidden) > 0 {
		res.Hidden = hiddenPaths(x.hidden)
	}
	runCtx := ctx
	var cancel context.CancelFunc = func() {}
	if s.Timeout > 0 {
		runCtx, cancel = context.WithTimeout(ctx, s.Timeout)
	}
	defer cancel()

	r, err := interp.New(
		interp.StdIO(nil, x.stdout, x.stderr),
		interp.Dir(x.dir),
		interp.Env(expand.ListEnviron(x.env...)),
		interp.CallHandler(x.call),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc { return x.exec }),
		interp.OpenHandler(x.open),
		interp.ReadDirHandler2(x.readDir),
	)
	if err != nil {
		res.Err = fmt.Errorf("%w: %v", ErrSetup, err)
		res.ExitCode = 126
		return res
	}
	runErr := r.Run(runCtx, file)
	if s.Code && x.confined {
		// A placeholder something else replaced (from outside the run) is
		// not what was there when the run started.
		before := x.protectedBefore
		if replaced := x.endPlaceholders(); len(replaced) > 0 {
			before = slices.DeleteFunc(slices.Clone(before), func(p string) bool { return slices.Contains(replaced, p) })
		}
		u := undo{roots: x.roots, protected: s.Protected, keep: s.Keep, before: before, links: x.danglingBefore, index: x.indexBefore}
		if x.state != "" {
			u.aside = filepath.Join(x.state, "undone")
		}
		undone, left, to, err := u.run()
		res.Undone, res.NotUndone, res.UndoneTo = undone, left, to
		if err != nil {
			left = append(left, err.Error())
			res.NotUndone = left
		}
	}

	res.Stdout, res.Stderr = x.stdout.String(), x.stderr.String()
	res.Truncated = x.stdout.truncated() || x.stderr.truncated()
	res.Signal = x.lastSignal()
	res.OutOfMemory = x.oom.Load()
	if status, ok := interp.IsExitStatus(runErr); ok {
		res.ExitCode = int(status)
	} else if runErr != nil {
		res.ExitCode = 126
		if fatal := x.fatalErr(); fatal != nil {
			res.Err = fatal
		} else if ctx.Err() == nil && runCtx.Err() == nil {
			res.Err = runErr
		}
	}
	switch {
	case ctx.Err() != nil:
		res.Cancelled = true
		sig := syscall.SIGKILL
		var cs CancelSignal
		if errors.As(context.Cause(ctx), &cs) {
			sig = cs.Signal
		}
		res.ExitCode, res.Signal = 128+int(sig), signalName(sig)
	case runCtx.Err() != nil:
		res.TimedOut = true
		res.ExitCode = 124
		if res.Signal == "" {
			res.Signal = signalName(syscall.SIGKILL)
		}
	}
	return res
}

// prepare validates s, parses the line and builds the handlers' state.
func prepare(s Spec) (*executor, *syntax.File, error) {
	setup := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrSetup, fmt.Sprintf(format, a...))
	}
	line := s.Line
	switch {
	case line != "" && len(s.Argv) > 0:
		return nil, nil, setup("both Line and Argv given")
	case len(s.Argv) > 0:
		words := make([]string, len(s.Argv))
		for i, w := range s.Argv {
			q, err := syntax.Quote(w, syntax.LangBash)
			if err != nil {
				return nil, nil, setup("argv word %d cannot be quoted: %v", i, err)
			}
			words[i] = q
		}
		line = strings.Join(words, " ")
	case strings.TrimSpace(line) == "":
		return nil, nil, setup("empty command")
	}
	if len(s.Roots) == 0 {
		return nil, nil, setup("no workspace root")
	}
	var roots []string
	for _, r := range s.Roots {
		if !filepath.IsAbs(r) {
			return nil, nil, setup("root %q is not absolute", r)
		}
		roots = append(roots, resolve(r))
	}
	dir := s.Dir
	if dir == "" {
		dir = roots[0]
	}
	if !filepath.IsAbs(dir) {
		return nil, nil, setup("dir %q is not absolute", dir)
	}
	dir = resolve(dir)
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return nil, nil, setup("dir %q is not a folder", s.Dir)
	}
	if !within(dir, roots) {
		return nil, nil, setup("dir %q is outside the workspace roots", s.Dir)
	}
	var writes []string
	for _, w := range s.Writes {
		if !filepath.IsAbs(w) {
			return nil, nil, setup("write path %q is not absolute", w)
		}
		// A write path that resolves outside the roots is never granted
		// (e.g. /dev, the folder of /dev/null, or a link pointing out):
		// devices are handled by the open handler, and nothing else
		// outside the workspace is ever writable.
		rw := resolve(w)
		if !within(rw, roots) {
			continue
		}
		// A regular file with more than one link may be the workspace's
		// name for a file outside (a pnpm store, a file of the person's):
		// writing it would write there.
		if n := linkCount(rw); n > 1 {
			return nil, nil, &RefusedError{Path: w, Reason: fmt.Sprintf("the write target is hard-linked (%d links): another link may be outside the workspace", n)}
		}
		writes = append(writes, rw)
	}
	hidden, err := hiddenFiles(s.Hidden, writes)
	if err != nil {
		return nil, nil, err
	}
	if len(hidden) > 0 && !s.Confine {
		// Only the walls hide a file from a program.
		return nil, nil, notHidden(hidden, "the run is not confined")
	}
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		return nil, nil, setup("parse: %v", err)
	}
	if err := checkSyntax(file); err != nil {
		return nil, nil, err
	}
	maxOut := s.MaxOutputBytes
	if maxOut <= 0 {
		maxOut = defaultMaxOutput
	}
	x := &executor{
		roots:   roots,
		writes:  writes,
		dir:     dir,
		env:     ScrubEnv(s.Env),
		recheck: s.Recheck,
		memMB:   s.MaxMemoryMB,
		stdout:  newCapWriter(maxOut),
		stderr:  newCapWriter(maxOut),
		hidden:  hidden,
	}
	if s.StateDir != "" && !filepath.IsAbs(s.StateDir) {
		return nil, nil, setup("stateDir %q is not absolute", s.StateDir)
	}
	x.state = s.StateDir
	if x.state == "" {
		x.state = defaultStateDir()
	}
	if x.state != "" && (within(resolve(x.state), roots) || within(x.state, roots)) {
		// A run of code writes the workspace: a record or a kept file
		// there would be the run's to forge.
		x.state = ""
	}
	if s.Confine {
		x.noPrograms = startsNoProgram(file)
		if err := x.confine(s); err != nil {
			return x, nil, err
		}
		if s.Code && x.protectedBefore == nil {
			// This system's confinement walked nothing (Windows) or kept
			// its walk to itself (macOS): what is protected now is what
			// the run's end compares with.
			sv, err := surveyWorkspace(x.roots, s.Protected)
			if err != nil {
				return x, nil, fmt.Errorf("%w: survey of the workspace: %v", ErrSetup, err)
			}
			x.protectedBefore = append([]string{}, sv.protected...)
		}
		if s.Code {
			x.danglingBefore = danglingLinks(x.protectedBefore)
			x.indexBefore = indexStates(x.roots)
		}
	}
	return x, file, nil
}

// checkSyntax refuses what the gate never admits and the run must not
// interpret even if asked: function definitions, process substitution,
// command substitution other than $(one simple command), background jobs,
// coprocesses, declarations, and any compound command. Pipelines, &&, ||,
// ; and redirections stay.
func checkSyntax(file *syntax.File) error {
	var bad string
	syntax.Walk(file, func(n syntax.Node) bool {
		if bad != "" {
			return false
		}
		switch n := n.(type) {
		case *syntax.CmdSubst:
			// The gate admits wc -l $(git ls-files) only: the command
			// inside is rechecked as any other, and so is the one around
			// it once its words are known.
			if why := narrowSubst(n); why != "" {
				bad = why
			}
		case *syntax.Stmt:
			if n.Background || n.Coprocess || n.Disown {
				bad = "background job"
			}
		case *syntax.ParamExp:
			// Only a plain $NAME or ${NAME}: no default words, slices,
			// replacements or indirection that could hide more syntax.
			if n.Param == nil || n.Excl || n.Length || n.Width || n.Index != nil || n.Slice != nil ||
				n.Repl != nil || n.Names != 0 || n.Exp != nil || n.NestedParam != nil {
				bad = "parameter expansion operator"
			}
			return false
		case *syntax.File, *syntax.CallExpr, *syntax.BinaryCmd, *syntax.Word, *syntax.Lit,
			*syntax.SglQuoted, *syntax.DblQuoted, *syntax.Redirect, *syntax.Assign,
			*syntax.Comment, *syntax.BraceExp:
		case nil:
		default:
			bad = strings.TrimPrefix(fmt.Sprintf("%T", n), "*syntax.")
		}
		return bad == ""
	})
	if bad != "" {
		return &RefusedError{Reason: "construct not run: " + bad}
	}
	return nil
}

// narrowSubst says why a command substitution is not $(one simple
// command without redirections), or "" when it is.
func narrowSubst(cs *syntax.CmdSubst) string {
	if cs.Backquotes || cs.TempFile || cs.ReplyVar || len(cs.Stmts) != 1 {
		return "CmdSubst"
	}
	s := cs.Stmts[0]
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(s.Redirs) > 0 || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return "CmdSubst"
	}
	nested := false
	syntax.Walk(call, func(n syntax.Node) bool {
		_, is := n.(*syntax.CmdSubst)
		nested = nested || is
		return !nested
	})
	if nested {
		return "nested CmdSubst"
	}
	return ""
}

// executor is the state the interp handlers share during one run. Handlers
// run concurrently for the parts of a pipeline.
type executor struct {
	roots   []string
	writes  []string
	dir     string
	env     []string
	recheck func([]string, string) error
	memMB   int
	stdout  *capWriter
	stderr  *capWriter
	hidden  []hiddenFile // Spec.Hidden that exist, read as empty (hidden.go)

	// Set by confine (confinement.go); fixed once the run starts.
	confined bool
	sandbox  string      // the layer the programs run under (Result.Confinement)
	abi      int         // Landlock ABI in use; 0 without Landlock
	walls    []Wall      // the run's walls
	missing  []string    // walls it needed and runs without
	temp     string      // the private temporary folder ("" when unconfined)
	tmpdir   string      // the programs' TMPDIR: temp, or where the confiner binds it
	caches   [][2]string // a run of code's private caches (caches.go), set in every program's environment
	// protectedBefore are the protected paths of the workspace when a run
	// of code started (undo.go).
	protectedBefore []string
	danglingBefore  []string              // the protected links among them that named nothing
	indexBefore     map[string]indexState // the roots' git index files (undo_git.go)
	state           string                // admit's state folder (Spec.StateDir), "" if none
	confiner        bool                  // programs start in the confiner (Linux)
	// noPrograms: every command of the line is a builtin the run allows,
	// so no program can start and the walls need not be built before it
	// (they still are, at the first program, if one does).
	noPrograms bool
	// sysRun is what this system's confinement keeps for the run
	// (confinement_linux.go, confinement_darwin.go, confinement_windows.go).
	sysRun

	oom atomic.Bool // a program was ended at its memory bound

	// mu guards the fields below.
	mu     sync.Mutex
	signal string
	fatal  error // first refusal or setup failure
}

func (x *executor) setSignal(sig syscall.Signal) {
	x.mu.Lock()
	x.signal = signalName(sig)
	x.mu.Unlock()
}

func (x *executor) lastSignal() string {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.signal
}

// fail records the first fatal error and returns err.
func (x *executor) fail(err error) error {
	x.mu.Lock()
	if x.fatal == nil {
		x.fatal = err
	}
	x.mu.Unlock()
	return err
}

func (x *executor) fatalErr() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.fatal
}

// maxLinks bounds the symlinks resolve follows, as the kernel's 40.
const maxLinks = 40

// resolve returns path with symlinks resolved through its nearest existing
// ancestor (the missing rest appended), cleaned and absolute. A dangling
// symlink is followed to where it points, as a write through it would be.
func resolve(path string) string {
	path = filepath.Clean(path)
	for range maxLinks {
		var rest []string
		cur := path
		for {
			if r, err := filepath.EvalSymlinks(cur); err == nil {
				for i := len(rest) - 1; i >= 0; i-- {
					r = filepath.Join(r, rest[i])
				}
				return r
			}
			if target, err := os.Readlink(cur); err == nil {
				// A dangling link: continue from its target.
				if !filepath.IsAbs(target) {
					target = filepath.Join(filepath.Dir(cur), target)
				}
				for i := len(rest) - 1; i >= 0; i-- {
					target = filepath.Join(target, rest[i])
				}
				path = filepath.Clean(target)
				break
			}
			parent := filepath.Dir(cur)
			if parent == cur {
				return path
			}
			rest = append(rest, filepath.Base(cur))
			cur = parent
		}
	}
	return path
}

// defaultStateDir is admit's state folder: $XDG_STATE_HOME/admit, else
// ~/.local/state/admit; "" where there is no home.
func defaultStateDir() string {
	base := os.Getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil || !filepath.IsAbs(home) {
			return ""
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "admit")
}

// within reports whether path is one of dirs or beneath one.
func within(path string, dirs []string) bool {
	const sep = string(filepath.Separator)
	for _, d := range dirs {
		if path == d || strings.HasPrefix(path, strings.TrimSuffix(d, sep)+sep) {
			return true
		}
	}
	return false
}

// signalName names a signal as "SIGKILL" (signalNames: signal_unix.go,
// signal_windows.go).
func signalName(sig syscall.Signal) string {
	if n, ok := signalNames[sig]; ok {
		return n
	}
	return fmt.Sprintf("SIG%d", int(sig))
}

// capWriter keeps the first max bytes written to it and drops the rest,
// always reporting success so a program is never killed by its own output.
type capWriter struct {
	// mu guards buf and over: pipeline parts and builtins write concurrently.
	mu   sync.Mutex
	buf  bytes.Buffer
	max  int
	over bool
}

func newCapWriter(max int) *capWriter { return &capWriter{max: max} }

func (w *capWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	room := w.max - w.buf.Len()
	if len(p) > room {
		w.buf.Write(p[:max(room, 0)])
		w.over = true
		return len(p), nil
	}
	w.buf.Write(p)
	return len(p), nil
}

func (w *capWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

func (w *capWriter) truncated() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.over
}
