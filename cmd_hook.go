package main

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

	"admit/hook"
	"admit/policy/tape"
	"admit/rpc"
)

// exitHookBlock is the exit status every exit-code host reads as "block
// the call, stderr is the reason". admit hook uses it on its own only when
// it cannot even tell which host's answer to print (a misconfigured hook
// command); otherwise the host's adapter says how to refuse.
const exitHookBlock = 2

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
func hookCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, err := parseHook(args, stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "admit hook:", err, "- the call is refused")
		}
		return exitHookBlock
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	r := runHook(ctx, o, stdin, stderr)
	if _, err := stdout.Write(r.Stdout); err != nil {
		fmt.Fprintln(stderr, "admit hook: writing the answer:", err)
		return exitHookBlock
	}
	if r.Stderr != "" {
		fmt.Fprintln(stderr, r.Stderr)
	}
	return r.Exit
}

func parseHook(args []string, stderr io.Writer) (hookOptions, error) {
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
	fs.SetOutput(stderr)
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

// runHook turns one event into the answer to print.
func runHook(ctx context.Context, o hookOptions, stdin io.Reader, stderr io.Writer) hook.Reply {
	a := o.agent
	data, err := io.ReadAll(io.LimitReader(stdin, hook.MaxEventBytes+1))
	if err != nil {
		return a.Failure(hook.Event{}, "reading the event: "+err.Error())
	}
	ev, err := a.Parse(data, o.event)
	if err != nil {
		return a.Failure(ev, err.Error())
	}
	calls, err := a.Map(ev)
	if err != nil {
		return a.Failure(ev, err.Error())
	}
	var ds []hook.Decision
	for _, call := range calls {
		if call.Cwd == "" {
			if call.Cwd, err = os.Getwd(); err != nil {
				return a.Failure(ev, "the event names no cwd and the working directory is unknown")
			}
		}
		d, err := decideHook(ctx, o, call, stderr)
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

// decideHook asks the editor's server, or a local gate when none answers.
func decideHook(ctx context.Context, o hookOptions, call hook.Call, stderr io.Writer) (hook.Decision, error) {
	p := rpc.CheckParams{Tool: call.Tool, Args: call.Args, Command: call.Command, Argv: call.Argv, Cwd: call.Cwd, Context: call.Context}
	root := workspaceRoot(call.Cwd)
	sock := o.socket
	if sock == "" {
		sock = rpc.DefaultSocket(root)
	}
	c, err := rpc.Dial(ctx, sock)
	if err != nil {
		if ctx.Err() != nil {
			return hook.Decision{}, err
		}
		return decideAlone(ctx, o, root, p, fmt.Sprintf("no admit server is reachable at %s", sock), stderr)
	}
	defer c.Close()
	v, err := c.Check(ctx, p)
	if err != nil {
		return hook.Decision{}, fmt.Errorf("admit server at %s: %w", sock, err)
	}
	return hookDecision(v, ""), nil
}

// decideAlone is the decision without a server: the same gate admit check
// builds, on the workspace root, with nobody to ask, taped.
func decideAlone(ctx context.Context, o hookOptions, root string, p rpc.CheckParams, why string, stderr io.Writer) (hook.Decision, error) {
	f := &cliFlags{roots: list{root}, mode: "enforce", shell: "analyze", tapePath: o.tapePath}
	if f.tapePath == "" {
		path, err := tape.DefaultPath()
		if err != nil {
			return hook.Decision{}, err
		}
		f.tapePath = path
	}
	if err := broadRoot(root); err != nil {
		return hook.Decision{}, fmt.Errorf("%s, and %w", why, err)
	}
	g, _, err := localGate(f, stderr)
	if err != nil {
		return hook.Decision{}, fmt.Errorf("%s, and the local gate cannot start: %w", why, err)
	}
	v, err := g.Check(ctx, p)
	if err != nil {
		return hook.Decision{}, fmt.Errorf("%s, and the local gate failed: %w", why, err)
	}
	return hookDecision(v, why), nil
}

func hookDecision(v rpc.Verdict, alone string) hook.Decision {
	return hook.Decision{Verdict: v.Verdict, Allowed: v.Allowed, Mode: v.Mode, Rule: v.Rule, Reason: v.Reason, ToolError: v.ToolError, DecidedBy: v.DecidedBy, Alone: alone}
}

// workspaceRoot is the folder a local decision takes as its root: the
// nearest folder at or above dir that holds .admit (the policy) or .git,
// else dir itself; symlinks resolved, as the server resolves its roots.
func workspaceRoot(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	for d := dir; ; {
		for _, marker := range []string{".admit", ".git"} {
			if _, err := os.Lstat(filepath.Join(d, marker)); err == nil {
				return d
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// broadRoot refuses to take the file system's root or the home folder as
// a workspace: a gate deciding alone there would let an agent write
// anywhere. It happens when an agent runs outside any project.
func broadRoot(root string) error {
	home, _ := os.UserHomeDir()
	if root == string(filepath.Separator) || (home != "" && root == filepath.Clean(home)) {
		return fmt.Errorf("%s is not a workspace (no .git or .admit found at or above the working folder), so no local decision is possible", root)
	}
	return nil
}
