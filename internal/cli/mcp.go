package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"

	"admit/mcpgate"
	"admit/mcpserver"
	"admit/policy"
	"admit/rpc"
)

// mcpCmd is `admit mcp`, two MCP doors to the same gate:
//
//	admit mcp [flags] -- COMMAND [ARGS]  the gateway: start an MCP server as a child and decide every request either side sends
//	admit mcp [flags] [serve]            admit's own MCP server: the gated tools read, search, edit, write and run
//
// Both decide through the editor's server when one is reachable (its
// prompts appear in the editor), else through a gate in this process with
// nobody to ask, and say which.
func mcpCmd(args []string, std Stdio) int {
	fs := flag.NewFlagSet("admit mcp", flag.ContinueOnError)
	fs.SetOutput(std.Err)
	socket := fs.String("socket", os.Getenv("ADMIT_SOCKET"), "the editor's admit socket (default: $ADMIT_SOCKET, else the workspace's default socket)")
	label := fs.String("label", "", "the session's label (default: mcp and the command's name, or mcp admit)")
	dir := fs.String("cwd", "", "the project folder: relative paths resolve against it, and its .git folder marks the workspace (default: the current folder)")
	tapePath := fs.String("tape", "", "the tape decisions taken alone are written to (default: $XDG_STATE_HOME/admit/tape.jsonl)")
	rate := fs.Int64("max-steps-per-minute", 0, "the session's rate bound (default: $ADMIT_MAX_STEPS_PER_MINUTE, else the gate's, 120)")
	fs.Usage = func() {
		fmt.Fprintln(std.Err, "usage: admit mcp [--socket PATH] [--cwd DIR] [--label L] [--tape PATH] [--max-steps-per-minute N] -- COMMAND [ARGS]   (gateway)")
		fmt.Fprintln(std.Err, "       admit mcp [--socket PATH] [--cwd DIR] [--label L] [--tape PATH] [--max-steps-per-minute N] [serve]            (admit's own tools)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	argv := fs.Args()
	// "serve" names admit's own server (its flags may follow it) unless it
	// comes after "--": admit mcp -- serve gates a program called serve.
	serveOwn := len(argv) == 0
	if len(argv) > 0 && argv[0] == "serve" && !slices.Contains(args[:len(args)-len(argv)], "--") {
		if err := fs.Parse(argv[1:]); err != nil {
			return exitUsage
		}
		if rest := fs.Args(); len(rest) > 0 {
			fmt.Fprintf(std.Err, "admit mcp serve: unexpected arguments %q (to gate an MCP server, put its command after --)\n", rest)
			return exitUsage
		}
		serveOwn, argv = true, nil
	}
	bounds, err := sessionBounds(*rate)
	if err != nil {
		return failed(std, configError{err})
	}
	logger := newLogger(std)
	wd := *dir
	if wd == "" {
		if wd, err = os.Getwd(); err != nil {
			return failed(std, configError{err})
		}
	}
	if abs, err := filepath.Abs(wd); err == nil {
		wd = abs
	}
	if *label == "" {
		*label = "mcp admit"
		if !serveOwn {
			*label = "mcp " + filepath.Base(argv[0])
		}
	}
	door, alone, err := openDoor(context.Background(), doorOptions{cwd: wd, socket: *socket, tapePath: *tapePath})
	if err != nil {
		return failed(std, configError{err})
	}
	defer door.Close()
	if alone != "" {
		logger.Warn("admit mcp: deciding alone, with nobody to ask", "why", alone)
	} else {
		logger.Info("admit mcp: deciding through the editor's server")
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if serveOwn {
		err := mcpserver.Serve(ctx, std.In, std.Out, mcpserver.Config{Door: door, Label: *label, Cwd: wd, Version: rpc.Version, Alone: alone, Env: os.Environ(), Bounds: bounds, Logger: logger})
		if err != nil {
			fmt.Fprintln(std.Err, "admit mcp:", err)
			return 1
		}
		return exitOK
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = std.Err
	err = mcpgate.Run(ctx, cmd, std.In, std.Out, mcpgate.Config{Door: door, Label: *label, Cwd: wd, Logger: logger, Bounds: bounds})
	var exit *exec.ExitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &exit):
		if code := exit.ExitCode(); code >= 0 {
			return code
		}
		return 1
	default:
		fmt.Fprintln(std.Err, "admit mcp:", err)
		return 1
	}
}

// sessionBounds are the bounds an MCP session asks for: each ADMIT_*
// bound the person set in admit mcp's environment (an MCP client's server
// configuration sets them there), and the rate flag over its variable. A
// bound left unset is the gate's own (the editor's, or the defaults), so
// the gateway never loosens what the editor's person chose by accident.
func sessionBounds(rate int64) (map[string]int64, error) {
	if _, err := boundsFromEnv(); err != nil {
		return nil, err // the first invalid variable, named
	}
	set := map[string]int64{}
	for _, s := range policy.BoundSpecs() {
		if os.Getenv(s.Env) == "" || s.Key == "maxSteps" || s.Key == "timeoutMs" {
			continue // a long-lived session has no step total and no wall time
		}
		v, _ := s.Check(os.Getenv(s.Env))
		set[s.Key] = v
	}
	if rate != 0 {
		var spec policy.BoundSpec
		for _, s := range policy.BoundSpecs() {
			if s.Key == "maxStepsPerMinute" {
				spec = s
			}
		}
		if rate < spec.Min {
			return nil, fmt.Errorf("--max-steps-per-minute must be an integer of at least %d, got %d", spec.Min, rate)
		}
		set["maxStepsPerMinute"] = rate
	}
	if len(set) == 0 {
		return nil, nil
	}
	return set, nil
}
