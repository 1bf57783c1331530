package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"admit/policy"
	"admit/policy/tape"
	"admit/rpc"
	"admit/workspace"
	"admit/workspace/run"
)

// list is a repeatable string flag.
type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }

// cliFlags are the flags admit check and admit run share.
type cliFlags struct {
	roots, observed, observedDirs list
	effects, shell, mode          string
	caps, cwd, tapePath           string
	line, tool, args              string
	lineSet                       bool // -c was given, even empty
	argv                          []string
}

func parseCLI(name string, args []string, stderr io.Writer) (*cliFlags, error) {
	f := &cliFlags{}
	fs := flag.NewFlagSet("admit "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Var(&f.roots, "root", "a workspace root (repeatable; default: the current directory)")
	fs.Var(&f.observed, "observed", "a file the agent has read, relative to --cwd (repeatable)")
	fs.Var(&f.observedDirs, "observed-dir", "a folder the agent has listed, relative to --cwd (repeatable)")
	fs.StringVar(&f.effects, "effects", "", "read-only or workspace-write (default: ADMIT_EFFECTS, else read-only)")
	fs.StringVar(&f.shell, "shell", "analyze", "shell profile: analyze or refuse")
	fs.StringVar(&f.mode, "mode", "enforce", "off, warn or enforce")
	fs.StringVar(&f.caps, "caps", "", "a capability set as JSON: {label, tools, allow, needsHuman, mutators, writeRoots}")
	fs.StringVar(&f.cwd, "cwd", "", "working directory of the call (default: the first root)")
	fs.StringVar(&f.tapePath, "tape", "", "append the decision to this tape (default: not taped)")
	fs.StringVar(&f.line, "c", "", "the command line to judge")
	fs.StringVar(&f.tool, "tool", "", "a tool name (with --args), or the shell tool's name with -c")
	fs.StringVar(&f.args, "args", "", "the tool's arguments as a JSON object")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	f.argv = fs.Args()
	// -c '' is a command line too: an empty one, which the policy refuses
	// as empty-command rather than the command line as a usage error.
	fs.Visit(func(fl *flag.Flag) {
		if fl.Name == "c" {
			f.lineSet = true
		}
	})
	n := 0
	for _, set := range []bool{f.lineSet, len(f.argv) > 0, f.args != "" || (f.tool != "" && !f.lineSet && len(f.argv) == 0)} {
		if set {
			n++
		}
	}
	if n != 1 {
		return nil, errors.New("give exactly one of -c 'LINE', -- WORD..., or --tool NAME --args JSON")
	}
	if f.args != "" && f.tool == "" {
		return nil, errors.New("--args needs --tool")
	}
	return f, nil
}

// configError is a configuration the gate cannot use (exit 78).
type configError struct{ error }

// localGate builds the same Gate the server uses, for one decision on the
// command line: no client to ask (what needs a person is refused), the
// workspace policy file from the roots, bounds from ADMIT_*.
func localGate(f *cliFlags, stderr io.Writer) (*rpc.Gate, string, error) {
	bounds, err := boundsFromEnv()
	if err != nil {
		return nil, "", configError{err}
	}
	effects := f.effects
	if effects == "" {
		effects = bounds.Effects
	}
	dirs := []string(f.roots)
	if len(dirs) == 0 {
		wd, err := os.Getwd()
		if err != nil {
			return nil, "", configError{err}
		}
		dirs = []string{wd}
	}
	for i, d := range dirs {
		if abs, err := filepath.Abs(d); err == nil {
			dirs[i] = abs
		}
	}
	roots, err := workspace.NewRoots(dirs...)
	if err != nil {
		return nil, "", configError{fmt.Errorf("--root: %w", err)}
	}
	home, _ := os.UserHomeDir()
	cfg := rpc.GateConfig{Mode: f.mode, Effects: effects, Shell: f.shell, Roots: roots, Resolver: workspace.NewResolver(roots), Home: home, Bounds: bounds, Headless: true}
	if f.tapePath != "" {
		t, err := tape.Open(f.tapePath, tape.Options{})
		if err != nil {
			return nil, "", configError{err}
		}
		cfg.Tape = t
	}
	g := rpc.NewGate(cfg)
	if err := g.SetMode(f.mode, effects, f.shell); err != nil {
		return nil, "", configError{err}
	}
	session := ""
	if f.caps != "" {
		data, err := os.ReadFile(f.caps)
		if err != nil {
			return nil, "", configError{fmt.Errorf("--caps: %w", err)}
		}
		var p rpc.OpenSessionParams
		dec := json.NewDecoder(strings.NewReader(string(data)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			return nil, "", configError{fmt.Errorf("--caps %s: %w", f.caps, err)}
		}
		if p.Label == "" {
			p.Label = filepath.Base(f.caps)
		}
		if session, err = g.OpenSession(p); err != nil {
			return nil, "", configError{fmt.Errorf("--caps %s: %w", f.caps, err)}
		}
	}
	if len(f.observed)+len(f.observedDirs) > 0 {
		if _, err := g.Observe(rpc.ObserveParams{Session: session, Paths: f.observed, Dirs: f.observedDirs, Cwd: f.cwd}); err != nil {
			return nil, "", err
		}
	}
	return g, session, nil
}

func (f *cliFlags) checkParams(session string) rpc.CheckParams {
	p := rpc.CheckParams{Session: session, Tool: f.tool, Cwd: f.cwd}
	switch {
	case f.lineSet:
		p.Command = f.line
	case len(f.argv) > 0:
		p.Argv = f.argv
	default:
		p.Args = json.RawMessage(f.args)
	}
	if p.Tool == "" {
		p.Tool = "bash"
	}
	return p
}

// check is `admit check`: one decision, the Verdict as JSON on stdout.
func check(args []string, stdout, stderr io.Writer) int {
	f, err := parseCLI("check", args, stderr)
	if err != nil {
		return usageError(stderr, err)
	}
	g, session, err := localGate(f, stderr)
	if err != nil {
		return cliError(stderr, err)
	}
	p := f.checkParams(session)
	if len(p.Args) > 0 && !json.Valid(p.Args) {
		return usageError(stderr, fmt.Errorf("--args: not valid JSON: %q", f.args))
	}
	v, err := g.Check(context.Background(), p)
	if err != nil {
		return cliError(stderr, err)
	}
	printJSON(stdout, v)
	if v.Rule == "policy-invalid" {
		fmt.Fprintln(stderr, "admit:", v.Reason)
		return exitConfig
	}
	if v.Allowed {
		return exitOK
	}
	return exitRefused
}

// runCmd is `admit run`: check, run without a system shell, verify.
func runCmd(args []string, stdout, stderr io.Writer) int {
	f, err := parseCLI("run", args, stderr)
	if err != nil {
		return usageError(stderr, err)
	}
	if !f.lineSet && len(f.argv) == 0 {
		return usageError(stderr, errors.New("admit run needs -c 'LINE' or -- WORD..."))
	}
	g, session, err := localGate(f, stderr)
	if err != nil {
		return cliError(stderr, err)
	}
	ctx, stop := signalContext()
	defer stop()
	res, err := g.Run(ctx, rpc.RunParams{Session: session, Command: f.line, Argv: f.argv, Cwd: f.cwd}, rpc.RunOptions{Env: os.Environ()})
	if err != nil {
		return cliError(stderr, err)
	}
	printJSON(stdout, res)
	if res.Rule == "policy-invalid" {
		return exitConfig
	}
	return res.Exit
}

// signalContext is cancelled by SIGINT, SIGTERM or SIGHUP with the signal
// as its cause, so a cancelled run reports 128+N for that signal.
func signalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			cancel(run.CancelSignal{Signal: sig.(syscall.Signal)})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

// tapeCmd is `admit tape`: query the tape, or verify its chain.
func tapeCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("admit tape", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var p rpc.TapeParams
	path := fs.String("path", "", "the tape (default: $XDG_STATE_HOME/admit/tape.jsonl)")
	verify := fs.Bool("verify", false, "verify the hash chain and name the first broken line")
	fs.StringVar(&p.Since, "since", "", "records at or after this RFC 3339 time")
	fs.IntVar(&p.Limit, "limit", 0, "only the newest N records")
	fs.StringVar(&p.Verdict, "verdict", "", "allow or deny")
	fs.StringVar(&p.Rule, "rule", "", "records decided by this rule")
	fs.StringVar(&p.Tool, "tool", "", "records of this tool")
	fs.StringVar(&p.Session, "session", "", "records of this session")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		return usageError(stderr, fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	}
	if *path == "" {
		var err error
		if *path, err = tape.DefaultPath(); err != nil {
			return cliError(stderr, configError{err})
		}
	}
	if *verify {
		n, err := tape.Verify(*path)
		if err != nil {
			fmt.Fprintf(stderr, "admit: tape %s: %v\n", *path, err)
			return 1
		}
		fmt.Fprintf(stdout, "%s: %d records, chain intact\n", *path, n)
		return exitOK
	}
	filter, err := p.Filter()
	if err != nil {
		return usageError(stderr, err)
	}
	recs, err := tape.Query(*path, filter)
	if err != nil {
		return cliError(stderr, err)
	}
	enc := json.NewEncoder(stdout)
	for i := range recs {
		_ = enc.Encode(&recs[i])
	}
	return exitOK
}

func boundsFromEnv() (policy.Bounds, error) { return policy.ParseBounds(os.Getenv) }

func printJSON(w io.Writer, v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintf(w, "%s\n", b)
}

func usageError(stderr io.Writer, err error) int {
	if !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(stderr, "admit:", err)
	}
	return exitUsage
}

func cliError(stderr io.Writer, err error) int {
	fmt.Fprintln(stderr, "admit:", err)
	var ce configError
	if errors.As(err, &ce) {
		return exitConfig
	}
	var pe *rpc.ParamError
	if errors.As(err, &pe) {
		return exitUsage
	}
	return exitConfig
}
