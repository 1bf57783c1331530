package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"admit/gate"
	"admit/hook"
	policycmd "admit/policy/command"
	"admit/policy/rules"
)

// hookOptions are admit hook's flags.
type hookOptions struct {
	agent       *hook.Adapter
	event       string
	socket      string
	timeout     time.Duration
	hostTimeout time.Duration
	tapePath    string
}

// hookCmd is `admit hook HOST`: one hook event on stdin, the host's answer
// on stdout (and stderr, and the exit status the host reads). It asks the
// editor's server over its socket, or decides alone with the workspace
// policy when no server is reachable (and says so). Whatever fails, the
// answer is a deny in the host's own form, before the host's own timeout.
func hookCmd(args []string, std Stdio) int {
	o, err := parseHook(args, std)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(std.Err, "admit hook:", err, "- the call is refused")
		}
		return exitHookBlock
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	r := runHook(ctx, o, std.In)
	if _, err := std.Out.Write(r.Stdout); err != nil {
		fmt.Fprintln(std.Err, "admit hook: writing the answer:", err)
		return exitHookBlock
	}
	if r.Stderr != "" {
		fmt.Fprintln(std.Err, r.Stderr)
	}
	return r.Exit
}

func parseHook(args []string, std Stdio) (hookOptions, error) {
	var o hookOptions
	hosts := strings.Join(hook.Names(), "|")
	if len(args) == 0 || args[0] == "" || args[0][0] == '-' {
		return o, fmt.Errorf("usage: admit hook %s [--event E] [--socket PATH] [--timeout D] [--host-timeout D] [--tape PATH]", hosts)
	}
	a, ok := hook.Lookup(args[0])
	if !ok {
		return o, fmt.Errorf("unknown agent %q (want one of %s)", args[0], hosts)
	}
	o.agent = a
	fs := flag.NewFlagSet("admit hook "+a.Name, flag.ContinueOnError)
	fs.SetOutput(std.Err)
	fs.StringVar(&o.event, "event", "", "the hook event this entry is configured for (default: the one the payload names; the Copilot CLI's camelCase payload names none: preToolUse)")
	fs.StringVar(&o.socket, "socket", os.Getenv("ADMIT_SOCKET"), "the editor's admit socket (default: $ADMIT_SOCKET, else the workspace's default socket)")
	fs.DurationVar(&o.timeout, "timeout", 0, "give up (and refuse) after this long, an approval in the editor included (default: before --host-timeout runs out)")
	fs.DurationVar(&o.hostTimeout, "host-timeout", a.Timeout, "the hook timeout the host's configuration gives this hook")
	fs.StringVar(&o.tapePath, "tape", "", "the tape a decision taken alone is written to (default: $XDG_STATE_HOME/admit/tape.jsonl)")
	if err := fs.Parse(args[1:]); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if o.hostTimeout <= 0 {
		return o, fmt.Errorf("--host-timeout must be positive, got %v", o.hostTimeout)
	}
	if o.timeout == 0 {
		o.timeout = a.Budget(o.hostTimeout)
	}
	if o.timeout <= 0 {
		return o, fmt.Errorf("--timeout must be positive, got %v", o.timeout)
	}
	if o.timeout >= o.hostTimeout {
		return o, fmt.Errorf("--timeout %v is not below the host's %v: the host would run the call before admit refuses it", o.timeout, o.hostTimeout)
	}
	return o, nil
}

// runHook turns one event into the answer to print: parse, map, one
// decision per call, the strictest of them in the host's form.
func runHook(ctx context.Context, o hookOptions, stdin io.Reader) hook.Reply {
	a := o.agent
	data, err := io.ReadAll(io.LimitReader(stdin, hook.MaxEventBytes+1))
	if err != nil {
		return a.Failure(hook.Event{}, "reading the event: "+err.Error())
	}
	ev, err := a.Parse(data, o.event)
	if err != nil {
		return a.Failure(ev, err.Error())
	}
	ev.NoPrompt = nobodyAtPrompt(a.Name)
	calls, err := a.Map(ev)
	if err != nil {
		return a.Failure(ev, err.Error())
	}
	ds := make([]hook.Verdict, 0, len(calls))
	for _, call := range calls {
		named := call.Cwd != ""
		if !named {
			if call.Cwd, err = os.Getwd(); err != nil {
				return a.Failure(ev, "the event names no cwd and the working directory is unknown")
			}
		}
		d, err := decideHook(ctx, o, call, named, len(calls) == 1 && a.CanRewrite(ev))
		if err != nil {
			if ctx.Err() != nil {
				return a.Failure(ev, a.LateReason(o.timeout)+": "+err.Error())
			}
			return a.Failure(ev, err.Error())
		}
		ds = append(ds, d)
	}
	return a.Answer(ev, hook.Strictest(ds...))
}

// decideHook puts the call through the door: the editor's server, or a
// gate of its own when none answers. Where the host will run a
// replacement line (rewrite), an allowed shell call is answered with
// `admit run --handle H`: the host's shell then runs admit, which runs
// exactly the line that was judged.
//
// cwdNamed says whether the event named the folder the call runs in. VS
// Code's Local harness names none and starts the hook in the home folder
// (hookExecutor.ts: cwd = hook.cwd ?? homedir()), with the extension
// host's environment, where the admit extension puts ADMIT_SOCKET: the
// editor's server then judges the call from its own workspace, not from
// the home folder.
func decideHook(ctx context.Context, o hookOptions, call hook.Call, cwdNamed, rewrite bool) (hook.Verdict, error) {
	d, alone, err := openDoor(ctx, doorOptions{cwd: call.Cwd, socket: o.socket, tapePath: o.tapePath, oneCall: true})
	if err != nil {
		if !cwdNamed {
			err = fmt.Errorf("%w (the event names no folder, so the hook looked for a workspace around its working folder %s; an editor whose admit extension is running gives its hooks ADMIT_SOCKET, the way to its server)", err, call.Cwd)
		}
		return hook.Verdict{}, err
	}
	if !cwdNamed && alone == "" {
		call.Cwd = "" // the server's own working folder, its first root
	}
	defer d.Close()
	self := ""
	if rewrite && call.Command != "" {
		if self, err = os.Executable(); err != nil || !filepath.IsAbs(self) {
			self = "" // no absolute path to name: the host runs the line itself
		}
	}
	p := gate.CheckParams{Tool: call.Tool, Args: call.Args, Command: call.Command, Argv: call.Argv, Cwd: call.Cwd, Context: call.Context, Handle: self != "",
		Background: call.Background, TimeoutMs: call.TimeoutMs, Terminal: call.Terminal}
	if call.Terminal != "" {
		// The event's folder is where the terminal started, not where it
		// is now: the gate follows it from the workspace root.
		p.Cwd = ""
	}
	if path, ok := os.LookupEnv("PATH"); ok && (call.Command != "" || len(call.Argv) > 0) {
		// The host started this hook with its own environment, which its
		// shell tool runs the command with: program names are looked up
		// on that PATH (an activated virtualenv's bin, a direnv folder).
		p.Env = &gate.CallEnv{PATH: &path}
	}
	if names := policycmd.SecretValueNames(os.Environ()); len(names) > 0 && (call.Command != "" || len(call.Argv) > 0) {
		// The same environment's variables whose values are credentials,
		// by name only: the editor's server never sees a value.
		if p.Env == nil {
			p.Env = &gate.CallEnv{}
		}
		p.Env.SecretValues = names
	}
	if run, ok := o.agent.ShellRun(call.Tool); ok && call.Command != "" {
		// The host's shell runs the line wherever admit does not (no
		// rewrite; one its releases may ignore; a question the host puts
		// to its own prompt): judged as that shell reads it (hook/shell.go).
		prof := string(run.Profile(os.Getenv("SHELL")))
		if self != "" && run.RewriteHonoured {
			p.HostShell = prof
		} else {
			p.Shell = prof
			p.HostMayIgnore = self != ""
		}
		p.StayInFolder = run.Pinned()
	}
	v, err := d.Check(ctx, p)
	if err != nil {
		return hook.Verdict{}, err
	}
	hd := hookVerdict(v, alone)
	if v.Handle != "" && self != "" {
		hd.Rewrite = rules.Quote([]string{self, "run", "--handle", v.Handle})
	}
	return hd, nil
}

// hookVerdict is the gate's verdict as the hook's adapters read it: the
// same values, with why admit decided alone. A call nobody could be asked
// about in the editor (outcome ask, decided by headless) is the host's
// own person's to answer where the host can ask (hook.Verdict.Question).
func hookVerdict(v gate.Verdict, alone string) hook.Verdict {
	return hook.Verdict{Verdict: v.Verdict, Allowed: v.Allowed, Mode: v.Mode, Rule: v.Rule, Outcome: v.Outcome, DecidedBy: v.DecidedBy,
		Reason: v.Reason, Question: v.Question, ToolError: v.ToolError, Alone: alone}
}
