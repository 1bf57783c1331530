// Package cli holds admit's commands, one file each: serve (the server),
// check and run (one decision, and a run, without a server), tape, bench,
// hook (the agents' pre-tool hooks), mcp (the MCP gateway), and connect
// and disconnect (setting the agents' hooks up, which needs no gate). Each
// other builds its gate with gate.Open; hook and mcp reach it through one door
// (door.go): the editor's server when one answers, else a gate of their
// own that says it decided alone. Start at Main.
package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"admit/rpc"
)

// Stdio is a command's standard streams.
type Stdio struct {
	In       io.Reader
	Out, Err io.Writer
}

// command is one of admit's commands: it runs with the arguments after its
// name and returns the exit status.
type command func(args []string, std Stdio) int

// commands is the switchboard: each command's name and its function.
var commands = map[string]command{
	"serve": serve,
	"check": check,
	"run":   runCmd,
	"tape":  tapeCmd,
	"bench": benchCmd,
	"hook":  hookCmd,
	"mcp":   mcpCmd,
	"__echo": func([]string, Stdio) int { // the bare jsonrpc2 server admit bench measures against
		rpc.Echo(context.Background(), stdio{})
		return exitOK
	},
	"version": version, "--version": version,
	"help": help, "--help": help, "-h": help,

	// Setting the agents' hooks up (connect.go).
	"connect":    connectCmd,
	"disconnect": disconnectCmd,
}

// Main runs the command args name and returns its exit status. With no
// command it serves, as the editor starts it, unless a person typed it at
// a terminal: then it prints the usage (exit 64), since a server reading
// the terminal would sit there saying nothing.
func Main(args []string, std Stdio) int {
	name := "serve"
	if len(args) > 0 {
		name, args = args[0], args[1:]
	} else if isTerminal(std.In) {
		fmt.Fprint(std.Err, usage)
		return exitUsage
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(std.Err, "admit: unknown command %q\n%s", name, usage)
		return exitUsage
	}
	return cmd(args, std)
}

const usage = `usage:
  admit serve [--listen unix:PATH]    the stdio JSON-RPC server (the default, but at a terminal)
  admit check [flags] -c 'LINE'       one decision, printed as a Verdict (JSON)
  admit check [flags] -- WORD...      the same for an argv, each word literal
  admit check [flags] --tool NAME --args JSON
  admit run [flags] -c 'LINE'         check, run without a system shell, verify
  admit tape [filters] [--verify]     query the tape, or verify its hash chain
  admit tape replay --policy FILE [--rules FILE] [--json] [TAPE...]
                                      what a proposed policy would change in the taped calls
  admit bench [DURATION]              measure round trips and tape appends
  admit hook HOST                     answer an agent host's pre-tool hook (event on stdin):
                                      claude-code, cline, codex, copilot, cursor, gemini-cli, kiro, windsurf
  admit mcp [flags] -- COMMAND...     gate every request to and from an MCP server
  admit mcp [flags] [serve]           admit's own MCP server: read, search, edit, write, run
  admit connect [--list] [--dry-run] [--yes] [--effects E] [--mode M] [HOST...]
                                      point the agents' user-level hooks at this binary (diff, then ask);
                                      --effects/--mode: what a hook deciding without the editor may do
  admit disconnect [--dry-run] [--yes] HOST...
                                      take admit's entries out of those hooks
exit codes: 0 allowed, 64 usage, 70 unverified effect (or an internal error),
77 refused, 78 bad configuration, 124 bound spent, 128+N killed by signal N.
`

func version(_ []string, std Stdio) int {
	fmt.Fprintln(std.Out, "admit", rpc.Version)
	return exitOK
}

func help(_ []string, std Stdio) int {
	fmt.Fprint(std.Out, usage)
	return exitOK
}

// stdio is the server's stream: stdin and stdout; stdout carries only the
// wire.
type stdio struct{}

func (stdio) Read(p []byte) (int, error)  { return os.Stdin.Read(p) }
func (stdio) Write(p []byte) (int, error) { return os.Stdout.Write(p) }
func (stdio) Close() error                { return os.Stdin.Close() }
