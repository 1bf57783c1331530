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
	"syscall"

	"admit/mcpgate"
)

// mcpCmd is `admit mcp [flags] -- COMMAND [ARGS]`: start an MCP server as a
// child and gate every tools/call it would receive, through the editor's
// server when one is reachable (its prompts appear in the editor), else
// through a gate in this process with nobody to ask.
func mcpCmd(args []string, std Stdio) int {
	fs := flag.NewFlagSet("admit mcp", flag.ContinueOnError)
	fs.SetOutput(std.Err)
	socket := fs.String("socket", os.Getenv("ADMIT_SOCKET"), "the editor's admit socket (default: $ADMIT_SOCKET, else the workspace's default socket)")
	label := fs.String("label", "", "the session's label (default: mcp and the command's name)")
	dir := fs.String("cwd", "", "the project folder: relative paths resolve against it, and its .git/.admit folder is the workspace (default: the current folder)")
	tapePath := fs.String("tape", "", "the tape decisions taken alone are written to (default: $XDG_STATE_HOME/admit/tape.jsonl)")
	fs.Usage = func() {
		fmt.Fprintln(std.Err, "usage: admit mcp [--socket PATH] [--cwd DIR] [--label L] [--tape PATH] -- COMMAND [ARGS]")
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
	logger := newLogger(std)
	wd := *dir
	if wd == "" {
		var err error
		if wd, err = os.Getwd(); err != nil {
			return failed(std, configError{err})
		}
	}
	if abs, err := filepath.Abs(wd); err == nil {
		wd = abs
	}
	if *label == "" {
		*label = "mcp " + filepath.Base(argv[0])
	}
	door, alone, err := openDoor(context.Background(), doorOptions{cwd: wd, socket: *socket, tapePath: *tapePath})
	if err != nil {
		return failed(std, configError{err})
	}
	defer door.Close()
	if alone != "" {
		logger.Warn("admit mcp: deciding alone, with nobody to ask", "why", alone)
	} else {
		logger.Info("admit mcp: gating through the editor's server")
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = std.Err
	err = mcpgate.Run(ctx, cmd, std.In, std.Out, mcpgate.Config{Door: door, Label: *label, Cwd: wd, Logger: logger})
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
