package cli

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	policycmd "admit/policy/command"
	"admit/rpc"
	"admit/workspace/run"
)

// serve is `admit serve`: the stdio JSON-RPC server the editor starts.
func serve(args []string, std Stdio) int {
	fs := flag.NewFlagSet("admit serve", flag.ContinueOnError)
	fs.SetOutput(std.Err)
	listen := fs.String("listen", "", "unix:PATH for the socket other local agents use, or none (default: a per-workspace path)")
	fs.Bool("stdio", true, "speak over stdin and stdout (the only transport; vscode-languageclient passes it)")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	socket := strings.TrimPrefix(*listen, "unix:")
	if *listen != "" && *listen != "none" && (socket == *listen || !filepath.IsAbs(socket)) {
		fmt.Fprintf(std.Err, "admit: --listen must be unix:ABSOLUTE-PATH or none, got %q\n", *listen)
		return exitUsage
	}
	bounds, err := boundsFromEnv()
	if err != nil {
		fmt.Fprintln(std.Err, "admit:", err)
		return exitConfig
	}
	export, err := personExport()
	if err != nil {
		fmt.Fprintln(std.Err, "admit:", err)
		return exitConfig
	}
	// The empties an admit killed during a run of code left in a
	// workspace go now, not at the next run (workspace/run/ledger_linux.go).
	run.SweepLeftovers("")
	home, _ := os.UserHomeDir()
	return rpc.Serve(context.Background(), stdio{}, rpc.ServerConfig{Logger: newLogger(std), Home: home, Shell: os.Getenv("SHELL"), Bounds: bounds, Listen: socket, Export: export,
		SecretValues: policycmd.SecretValueNames(os.Environ())})
}

// newLogger logs to stderr, with debug records when ADMIT_TRACE is set.
func newLogger(std Stdio) *slog.Logger {
	level := slog.LevelInfo
	if os.Getenv("ADMIT_TRACE") != "" {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(std.Err, &slog.HandlerOptions{Level: level}))
}
