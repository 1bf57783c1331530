package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"admit/gate"
	"admit/internal/strictjson"
	"admit/policy"
	"admit/tape"
)

// list is a repeatable string flag.
type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }

// gateFlags are the flags admit check and admit run share: the call, and
// the gate it is put to.
type gateFlags struct {
	roots, observed, observedDirs list
	effects, shell, mode          string
	caps, cwd, tapePath           string
	line, tool, args              string
	handle                        string  // admit run --handle: the judged line a hook's rewrite names
	lineSet                       bool    // -c was given, even empty
	envPath                       *string // --env-path: the PATH the command runs with
	noEnvPath                     bool    // --no-env-path: that PATH is not known
	terminal                      string  // --terminal: the line is typed into this terminal
	argv                          []string
}

// parseGateFlags parses the flags of admit check or admit run. A flag
// error is printed by the flag package; any other is the caller's to print.
func parseGateFlags(name string, args []string, std Stdio) (*gateFlags, error) {
	f := &gateFlags{}
	fs := flag.NewFlagSet("admit "+name, flag.ContinueOnError)
	fs.SetOutput(std.Err)
	fs.Var(&f.roots, "root", "a workspace root (repeatable; default: the current directory)")
	fs.Var(&f.observed, "observed", "a file the agent has read, relative to --cwd (repeatable)")
	fs.Var(&f.observedDirs, "observed-dir", "a folder the agent has listed, relative to --cwd (repeatable)")
	fs.StringVar(&f.effects, "effects", "", "read-only or workspace-write (default: ADMIT_EFFECTS, else read-only)")
	fs.StringVar(&f.shell, "shell", "analyze", "shell profile: analyze (bash -c), bash-interactive, zsh, fish (as an interactive terminal runs the line), portable (all of them alike) or refuse")
	fs.StringVar(&f.mode, "mode", "enforce", "off, warn or enforce")
	fs.StringVar(&f.caps, "caps", "", "a capability set as JSON: {label, tools, allow, needsHuman, mutators, writeRoots}")
	fs.StringVar(&f.cwd, "cwd", "", "working directory of the call (default: the first root)")
	tapeHelp := "append the decision to this tape (default: not taped)"
	if name == "run" {
		tapeHelp = "the tape the decision and the run's outcome are appended to (default: $XDG_STATE_HOME/admit/tape.jsonl)"
	}
	fs.StringVar(&f.tapePath, "tape", "", tapeHelp)
	fs.StringVar(&f.line, "c", "", "the command line to judge")
	fs.StringVar(&f.tool, "tool", "", "a tool name (with --args), or the shell tool's name with -c")
	fs.StringVar(&f.args, "args", "", "the tool's arguments as a JSON object")
	if name == "run" {
		fs.StringVar(&f.handle, "handle", "", "run the line a hook's rewrite judged (a single-use handle); its output is the command's own")
	} else {
		fs.StringVar(&f.terminal, "terminal", "", "the line is typed into this terminal, which keeps its folder: a cd whose effect is not certain is refused")
		fs.Func("env-path", "the PATH the command will run with: its program names are looked up on it, and one inside the workspace is asked (default: this process's PATH)", func(v string) error {
			f.envPath = &v
			return nil
		})
		fs.BoolVar(&f.noEnvPath, "no-env-path", false, "judge as if the PATH the command will run with is not known: program names are judged by name alone")
	}
	if err := fs.Parse(args); err != nil {
		return nil, errPrinted{err}
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
	for _, set := range []bool{f.lineSet, len(f.argv) > 0, f.args != "" || (f.tool != "" && !f.lineSet && len(f.argv) == 0), f.handle != ""} {
		if set {
			n++
		}
	}
	if n != 1 {
		if name == "run" {
			return nil, errors.New("give exactly one of -c 'LINE', -- WORD... or --handle H")
		}
		return nil, errors.New("give exactly one of -c 'LINE', -- WORD..., or --tool NAME --args JSON")
	}
	if f.args != "" && f.tool == "" {
		return nil, errors.New("--args needs --tool")
	}
	if f.envPath != nil && f.noEnvPath {
		return nil, errors.New("give --env-path PATH or --no-env-path, not both")
	}
	return f, nil
}

// errPrinted is a flag error the flag package has already printed.
type errPrinted struct{ error }

func (e errPrinted) Unwrap() error { return e.error }

// configError is a configuration the gate cannot use (exit 78).
type configError struct{ error }

func (e configError) Unwrap() error { return e.error }

// localGate builds the gate admit check and admit run decide with
// (openAlone), in the settings the flags name, on the roots they name,
// deciding one call: a terminal's next line is judged by another admit
// check, which cannot know where this one left the terminal (--terminal).
// It returns the session the call goes in ("" for the default one).
func (f *gateFlags) localGate() (*gate.Gate, string, error) {
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
	g, err := openAlone(aloneGate{dirs: dirs, settings: &gate.Settings{Mode: f.mode, Effects: f.effects, Shell: f.shell}, tapePath: f.tapePath, oneCall: true})
	if err != nil {
		var pe *gate.ParamError
		if errors.As(err, &pe) && pe.Field == "roots" {
			err = fmt.Errorf("--root: %s", pe.Msg)
		}
		return nil, "", configError{err}
	}
	session := ""
	if f.caps != "" {
		if session, err = openCaps(g, f.caps); err != nil {
			_ = g.Close()
			return nil, "", configError{err}
		}
	}
	if len(f.observed)+len(f.observedDirs) > 0 {
		if _, err := g.Observe(gate.ObserveParams{Session: session, Paths: f.observed, Dirs: f.observedDirs, Cwd: f.cwd}); err != nil {
			_ = g.Close()
			return nil, "", err
		}
	}
	return g, session, nil
}

// openCaps opens a session with the capability set in the file at path.
func openCaps(g *gate.Gate, path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("--caps: %w", err)
	}
	var p gate.OpenSessionParams
	if err := strictjson.Decode(data, &p); err != nil {
		return "", fmt.Errorf("--caps %s: %w", path, err)
	}
	if p.Label == "" {
		p.Label = filepath.Base(path)
	}
	id, err := g.OpenSession(context.Background(), p)
	if err != nil {
		return "", fmt.Errorf("--caps %s: %w", path, err)
	}
	return id, nil
}

// checkParams is the call the flags name.
func (f *gateFlags) checkParams(session string) gate.CheckParams {
	p := gate.CheckParams{Session: session, Tool: f.tool, Cwd: f.cwd}
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
	if f.envPath != nil {
		p.Env = &gate.CallEnv{PATH: f.envPath}
	} else if path, ok := os.LookupEnv("PATH"); ok && !f.noEnvPath && (p.Command != "" || len(p.Argv) > 0) {
		// The line would run with this process's PATH, as a hook's runs
		// with its host's: program names are looked up on it.
		p.Env = &gate.CallEnv{PATH: &path}
	}
	p.Terminal = f.terminal
	return p
}

func boundsFromEnv() (policy.Bounds, error) { return policy.ParseBounds(os.Getenv) }

// defaultTape is the tape a command writes to when no flag names one.
func defaultTape(flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	return tape.DefaultPath()
}

func printJSON(std Stdio, v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintf(std.Out, "%s\n", b)
}

// usageError prints a usage error once (the flag package has printed its
// own) and returns 64.
func usageError(std Stdio, err error) int {
	var printed errPrinted
	if !errors.As(err, &printed) {
		fmt.Fprintln(std.Err, "admit:", err)
	}
	return exitUsage
}

// failed prints err and returns the exit status for it: 78 for a
// configuration the gate cannot use, 64 for a bad parameter, 70 for
// anything else (an internal error).
func failed(std Stdio, err error) int {
	fmt.Fprintln(std.Err, "admit:", err)
	var ce configError
	if errors.As(err, &ce) {
		return exitConfig
	}
	var pe *gate.ParamError
	if errors.As(err, &pe) {
		return exitUsage
	}
	return exitUnverified
}
