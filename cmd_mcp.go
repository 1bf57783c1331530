package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"admit/mcpgate"
	"admit/policy/tape"
	"admit/rpc"
)

// dialTimeout bounds reaching the editor's server; past it, the gateway
// decides alone.
const dialTimeout = 2 * time.Second

// mcpCmd is `admit mcp [flags] -- COMMAND [ARGS]`: start an MCP server as a
// child and gate every tools/call it would receive, through the editor's
// server when one is reachable (its prompts appear in the editor), else
// through a gate in this process with nobody to ask.
func mcpCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("admit mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	socket := fs.String("socket", os.Getenv("ADMIT_SOCKET"), "the editor's admit socket (default: $ADMIT_SOCKET, else the workspace's default socket)")
	label := fs.String("label", "", "the session's label (default: mcp and the command's name)")
	dir := fs.String("cwd", "", "the project folder: relative paths resolve against it, and its .git/.admit folder is the workspace (default: the current folder)")
	tapePath := fs.String("tape", "", "the tape decisions taken alone are written to (default: $XDG_STATE_HOME/admit/tape.jsonl)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: admit mcp [--socket PATH] [--cwd DIR] [--label L] [--tape PATH] -- COMMAND [ARGS]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	argv := fs.Args()
	if len(argv) == 0 {
		fs.Usage()
		return exitUsage
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: logLevel()}))
	wd := *dir
	if wd == "" {
		var err error
		if wd, err = os.Getwd(); err != nil {
			return cliError(stderr, configError{err})
		}
	}
	if abs, err := filepath.Abs(wd); err == nil {
		wd = abs
	}
	root := workspaceRoot(wd)
	if *label == "" {
		*label = "mcp " + filepath.Base(argv[0])
	}
	if *socket == "" {
		*socket = rpc.DefaultSocket(root)
	}

	var err error
	var door mcpgate.Door
	dctx, cancel := context.WithTimeout(context.Background(), dialTimeout)
	c, dialErr := rpc.Dial(dctx, *socket)
	cancel()
	if dialErr == nil {
		defer c.Close()
		door = c
		logger.Info("admit mcp: gating through the editor's server", "socket", *socket)
	} else {
		if berr := broadRoot(root); berr != nil {
			return cliError(stderr, configError{fmt.Errorf("no admit server is reachable at %s (%v), and %w", *socket, dialErr, berr)})
		}
		f := &cliFlags{roots: list{root}, mode: "enforce", shell: "analyze", tapePath: *tapePath}
		if f.tapePath == "" {
			if f.tapePath, err = tape.DefaultPath(); err != nil {
				return cliError(stderr, configError{err})
			}
		}
		g, _, gerr := localGate(f, stderr)
		if gerr != nil {
			return cliError(stderr, gerr)
		}
		door = mcpgate.GateDoor{Gate: g}
		logger.Warn("admit mcp: no admit server is reachable; deciding alone, with nobody to ask", "socket", *socket, "err", dialErr)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = stderr
	err = mcpgate.Run(ctx, cmd, stdin, stdout, mcpgate.Config{Door: door, Label: *label, Cwd: wd, Logger: logger})
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
		fmt.Fprintln(stderr, "admit mcp:", err)
		return 1
	}
}
