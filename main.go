// Command admit is the capability gate for AI coding agents: a stdio
// JSON-RPC server (admit serve, the default) and the same decision on the
// command line (admit check, admit run, admit tape). See README.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"admit/rpc"
)

// Exit codes of the command line, from the design (and sysexits.h).
const (
	exitOK       = 0
	exitUsage    = 64
	exitProtocol = 70 // an effect that could not be verified
	exitRefused  = 77
	exitConfig   = 78
	exitBudget   = 124
)

func main() {
	args := os.Args[1:]
	cmd := "serve"
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		os.Exit(serve(args))
	case "check":
		os.Exit(check(args, os.Stdout, os.Stderr))
	case "run":
		os.Exit(runCmd(args, os.Stdout, os.Stderr))
	case "tape":
		os.Exit(tapeCmd(args, os.Stdout, os.Stderr))
	case "bench":
		os.Exit(benchCmd(args, os.Stdout, os.Stderr))
	case "__echo": // the bare jsonrpc2 server admit bench measures against
		rpc.Echo(context.Background(), stdio{})
	case "hook":
		os.Exit(hookCmd(args, os.Stdin, os.Stdout, os.Stderr))
	case "mcp":
		os.Exit(mcpCmd(args, os.Stdin, os.Stdout, os.Stderr))
	case "version", "--version":
		fmt.Println("admit", rpc.Version)
	case "help", "--help", "-h":
		fmt.Print(usage)
	default:
		fmt.Fprintf(os.Stderr, "admit: unknown command %q\n%s", cmd, usage)
		os.Exit(exitUsage)
	}
}

const usage = `usage:
  admit serve [--listen unix:PATH]    the stdio JSON-RPC server (default)
  admit check [flags] -c 'LINE'       one decision, printed as a Verdict (JSON)
  admit check [flags] -- WORD...      the same for an argv, each word literal
  admit check [flags] --tool NAME --args JSON
  admit run [flags] -c 'LINE'         check, run without a system shell, verify
  admit tape [filters] [--verify]     query the tape, or verify its hash chain
  admit bench [DURATION]              measure round trips and tape appends
  admit hook HOST                     answer an agent host's pre-tool hook (event on stdin):
                                      claude-code, cline, codex, copilot, cursor, gemini-cli, kiro, windsurf
  admit mcp [flags] -- COMMAND...     gate an MCP server's tool calls
exit codes: 0 allowed, 64 usage, 70 unverified effect, 77 refused,
78 bad configuration, 124 bound spent, 128+N killed by signal N.
`

func serve(args []string) int {
	fs := flag.NewFlagSet("admit serve", flag.ContinueOnError)
	listen := fs.String("listen", "", "unix:PATH for the socket other local agents use, or none (default: a per-workspace path)")
	fs.Bool("stdio", true, "speak over stdin and stdout (the only transport; vscode-languageclient passes it)")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	socket := strings.TrimPrefix(*listen, "unix:")
	if *listen != "" && *listen != "none" && (socket == *listen || !filepath.IsAbs(socket)) {
		fmt.Fprintf(os.Stderr, "admit: --listen must be unix:ABSOLUTE-PATH or none, got %q\n", *listen)
		return exitUsage
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: logLevel()}))
	bounds, err := boundsFromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, "admit:", err)
		return exitConfig
	}
	home, _ := os.UserHomeDir()
	return rpc.Serve(context.Background(), stdio{}, rpc.ServerConfig{Logger: logger, Home: home, Bounds: bounds, Listen: socket})
}

func logLevel() slog.Level {
	if os.Getenv("ADMIT_TRACE") != "" {
		return slog.LevelDebug
	}
	return slog.LevelInfo
}

// stdio is the server's stream: stdin and stdout; stdout carries only the wire.
type stdio struct{}

func (stdio) Read(p []byte) (int, error)  { return os.Stdin.Read(p) }
func (stdio) Write(p []byte) (int, error) { return os.Stdout.Write(p) }
func (stdio) Close() error                { return os.Stdin.Close() }
