package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"admit/hook"
	"admit/policy/tape"
	"admit/rpc"
)

// defaultHookTimeout bounds one hook call, an approval in the editor
// included. It stays under the 60 s both Claude Code and Gemini CLI give a
// hook by default: an agent that kills a slow hook treats it as a
// non-blocking error and runs the call, so the hook must answer deny first.
const defaultHookTimeout = 50 * time.Second

// exitHookBlock is the exit status both agents read as "block the call,
// stderr is the reason". admit hook uses it only when it cannot even tell
// which agent's answer to print (a misconfigured hook command).
const exitHookBlock = 2

// hookOptions are admit hook's flags.
type hookOptions struct {
	agent    string
	socket   string
	timeout  time.Duration
	tapePath string
}

// hookCmd is `admit hook claude-code|gemini-cli`: one pre-tool event on
// stdin, the agent's answer on stdout, exit 0. It asks the editor's server
// over its socket, or decides alone with the workspace policy when no
// server is reachable (and says so). Whatever fails, the answer is deny.
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
	out := runHook(ctx, o, stdin, stderr)
	if _, err := stdout.Write(out); err != nil {
		fmt.Fprintln(stderr, "admit hook: writing the answer:", err)
		return exitHookBlock
	}
	return exitOK
}

func parseHook(args []string, stderr io.Writer) (hookOptions, error) {
	var o hookOptions
	if len(args) == 0 || args[0] == "" || args[0][0] == '-' {
		return o, fmt.Errorf("usage: admit hook claude-code|gemini-cli [--socket PATH] [--timeout D] [--tape PATH]")
	}
	o.agent = args[0]
	known := false
	for _, a := range hook.Agents {
		known = known || a == o.agent
	}
	if !known {
		return o, fmt.Errorf("unknown agent %q (want claude-code or gemini-cli)", o.agent)
	}
	fs := flag.NewFlagSet("admit hook "+o.agent, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.socket, "socket", os.Getenv("ADMIT_SOCKET"), "the editor's admit socket (default: $ADMIT_SOCKET, else the workspace's default socket)")
	fs.DurationVar(&o.timeout, "timeout", defaultHookTimeout, "give up (and refuse) after this long, an approval in the editor included")
	fs.StringVar(&o.tapePath, "tape", "", "the tape a decision taken alone is written to (default: $XDG_STATE_HOME/admit/tape.jsonl)")
	if err := fs.Parse(args[1:]); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if o.timeout <= 0 {
		return o, fmt.Errorf("--timeout must be positive, got %v", o.timeout)
	}
	return o, nil
}

// runHook turns one event into the answer to print.
func runHook(ctx context.Context, o hookOptions, stdin io.Reader, stderr io.Writer) []byte {
	data, err := io.ReadAll(io.LimitReader(stdin, hook.MaxEventBytes+1))
	if err != nil {
		return hook.Failure(o.agent, "reading the event: "+err.Error())
	}
	ev, err := hook.ParseEvent(o.agent, data)
	if err != nil {
		return hook.Failure(o.agent, err.Error())
	}
	call, err := hook.Map(o.agent, ev)
	if err != nil {
		return hook.Failure(o.agent, err.Error())
	}
	if call.Cwd == "" {
		if call.Cwd, err = os.Getwd(); err != nil {
			return hook.Failure(o.agent, "the event names no cwd and the working directory is unknown")
		}
	}
	d, err := decideHook(ctx, o, call, stderr)
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("no decision within %v: %w", o.timeout, err)
		}
		return hook.Failure(o.agent, err.Error())
	}
	return hook.Answer(o.agent, d)
}

// decideHook asks the editor's server, or a local gate when none answers.
func decideHook(ctx context.Context, o hookOptions, call hook.Call, stderr io.Writer) (hook.Decision, error) {
	p := rpc.CheckParams{Tool: call.Tool, Args: call.Args, Command: call.Command, Cwd: call.Cwd, Context: call.Context}
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
	return hook.Decision{Verdict: v.Verdict, Allowed: v.Allowed, Mode: v.Mode, Rule: v.Rule, Reason: v.Reason, ToolError: v.ToolError, Alone: alone}
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
