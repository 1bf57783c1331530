// Command admit is the capability gate for AI coding agents: a stdio
// JSON-RPC server (admit serve, the default), the same decision on the
// command line (admit check, admit run, admit tape), the agents' hooks
// (admit hook) and an MCP gateway (admit mcp). The commands live in
// internal/cli, one file each; see README.md.
package main

import (
	"os"

	"admit/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}))
}
