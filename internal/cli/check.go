package cli

import (
	"context"
	"encoding/json"
	"fmt"
)

// check is `admit check`: one decision, the Verdict as JSON on stdout.
func check(args []string, std Stdio) int {
	f, err := parseGateFlags("check", args, std)
	if err != nil {
		return usageError(std, err)
	}
	g, session, err := f.localGate()
	if err != nil {
		return failed(std, err)
	}
	defer g.Close()
	p := f.checkParams(session)
	if f.tool == "" {
		p.Tool = g.ShellTool(session)
	}
	if len(p.Args) > 0 && !json.Valid(p.Args) {
		return usageError(std, fmt.Errorf("--args: not valid JSON: %q", f.args))
	}
	v, err := g.Check(context.Background(), p)
	if err != nil {
		return failed(std, err)
	}
	printJSON(std, v)
	if v.Rule == "policy-invalid" {
		fmt.Fprintln(std.Err, "admit:", v.Reason)
		return exitConfig
	}
	if v.Allowed {
		return exitOK
	}
	return exitRefused
}
