package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"admit/hook"
	"admit/rpc/gate"
)

// defaultHookTimeout bounds one hook call, an approval in the editor
// included. It stays under the 60 s both Claude Code and Gemini CLI give a
// hook by default: an agent that kills a slow hook treats it as a
// non-blocking error and runs the call, so the hook must answer deny first.
const defaultHookTimeout = 50 * time.Second

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
	out := runHook(ctx, o, std.In)
	if _, err := std.Out.Write(out); err != nil {
		fmt.Fprintln(std.Err, "admit hook: writing the answer:", err)
		return exitHookBlock
	}
	return exitOK
}

func parseHook(args []string, std Stdio) (hookOptions, error) {
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
	fs.SetOutput(std.Err)
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
func runHook(ctx context.Context, o hookOptions, stdin io.Reader) []byte {
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
	d, err := decideHook(ctx, o, call)
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("no decision within %v: %w", o.timeout, err)
		}
		return hook.Failure(o.agent, err.Error())
	}
	return hook.Answer(o.agent, d)
}

// decideHook puts the call through the door: the editor's server, or a
// gate of its own when none answers.
func decideHook(ctx context.Context, o hookOptions, call hook.Call) (hook.Decision, error) {
	d, alone, err := openDoor(ctx, doorOptions{cwd: call.Cwd, socket: o.socket, tapePath: o.tapePath})
	if err != nil {
		return hook.Decision{}, err
	}
	defer d.Close()
	v, err := d.Check(ctx, gate.CheckParams{Tool: call.Tool, Args: call.Args, Command: call.Command, Cwd: call.Cwd, Context: call.Context})
	if err != nil {
		return hook.Decision{}, err
	}
	return hookDecision(v, alone), nil
}

func hookDecision(v gate.Verdict, alone string) hook.Decision {
	return hook.Decision{Verdict: string(v.Verdict), Allowed: v.Allowed, Mode: string(v.Mode), Rule: string(v.Rule), Reason: v.Reason, ToolError: v.ToolError, Alone: alone}
}
