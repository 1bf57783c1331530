package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// newCall starts the gate's call for ev under admit's tool name, with the
// folder the host reports and the context the tape records. The event is
// recorded for a permission request, and where withEvent (a host with
// several pre-tool events).
func newCall(ev Event, tool string, withEvent bool) Call {
	ctx := CallContext{Agent: ev.Host, Task: ev.Session, Turn: ev.Turn, ToolUseID: ev.ToolUseID}
	if withEvent || ev.Permission {
		ctx.Event = ev.Name
	}
	if tool != ev.Tool {
		ctx.HostTool = ev.Tool
	}
	return Call{Tool: tool, Cwd: ev.Cwd, Context: marshal(ctx)}
}

// withArgs sets the call's arguments to ev's tool input, as sent where
// the adapter did not build it.
func withArgs(c Call, ev Event) Call {
	if ev.rawInput != nil {
		var b bytes.Buffer
		if json.Compact(&b, ev.rawInput) == nil {
			c.Args = b.Bytes()
			return c
		}
	}
	return withInput(c, ev.Input)
}

// withInput sets the call's arguments to an input the adapter built.
func withInput(c Call, in map[string]json.RawMessage) Call {
	if in == nil {
		in = map[string]json.RawMessage{}
	}
	c.Args = marshal(in)
	return c
}

// shellCall maps a shell tool: the command line under key, and the
// folder it runs in (dir, when the tool names one) in args.cwd, which the
// command policy checks.
func shellCall(c Call, in object, key, dir string) (Call, error) {
	raw, ok := in[key]
	if !ok || isNull(raw) {
		return c, fmt.Errorf("hook: %s names no command (tool_input.%s)", hostTool(c), key)
	}
	if err := json.Unmarshal(raw, &c.Command); err != nil {
		return c, fmt.Errorf("hook: %s: tool_input.%s must be a string", hostTool(c), key)
	}
	if dir != "" {
		c.Args = marshal(map[string]string{"cwd": dir})
	}
	// The host's own flag for a command it runs in the background, and
	// its timeout: what a background command may write stays in flux
	// that long. A flag that is not false counts as set: Claude Code's
	// run_in_background, VS Code's isBackground, Gemini CLI's
	// is_background (tools/shell.ts), the Copilot CLI's detach; and the
	// Copilot CLI's mode, unless it says "sync" (copilotCLITools.ts).
	for _, k := range []string{"run_in_background", "isBackground", "is_background", "detach"} {
		if raw, ok := in[k]; ok && !isNull(raw) && string(raw) != "false" {
			c.Background = true
		}
	}
	if raw, ok := in["mode"]; ok && !isNull(raw) && string(raw) != `"sync"` {
		c.Background = true
	}
	var ms float64
	if raw, ok := in["timeout"]; ok && json.Unmarshal(raw, &ms) == nil && ms > 0 {
		c.TimeoutMs = int64(ms)
	}
	return c, nil
}

// hostTool is the host's name of the call's tool, for messages.
func hostTool(c Call) string {
	var ctx CallContext
	if json.Unmarshal(c.Context, &ctx) == nil && ctx.HostTool != "" {
		return ctx.HostTool
	}
	return c.Tool
}

// firstString is the first of keys that holds a non-empty string.
func firstString(in object, keys ...string) string {
	for _, k := range keys {
		var s string
		if raw, ok := in[k]; ok && json.Unmarshal(raw, &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// rewriteInput is ev's whole tool input with the command line replaced:
// the hosts that rewrite (Claude Code's and VS Code's updatedInput)
// replace the input object entirely, and the others (Gemini CLI's merge)
// read the same object the same way, so every other key is kept.
func rewriteInput(ev Event, line string) (json.RawMessage, error) {
	if strings.TrimSpace(line) == "" {
		return nil, fmt.Errorf("the rewrite is an empty command line")
	}
	in := make(map[string]json.RawMessage, len(ev.Input))
	for k, v := range ev.Input {
		in[k] = v
	}
	in["command"] = marshal(line)
	return marshal(in), nil
}

// hasCommand says whether the tool input carries its command line as a
// string under "command", the key every rewriting host uses.
func hasCommand(ev Event) bool {
	var s string
	raw, ok := ev.Input["command"]
	return ok && json.Unmarshal(raw, &s) == nil
}

// mcpName is admit's name of an MCP tool: mcp__SERVER__TOOL, as Claude
// Code names them and the policy examples match them. A server or tool
// name holding "__" is refused: "a__b" serving "c" would read as server
// "a" serving "b__c", and a rule for one server would match another's.
func mcpName(server, tool string) (string, error) {
	server, tool = strings.TrimSpace(server), strings.TrimSpace(tool)
	switch {
	case server == "" || tool == "":
		return "", fmt.Errorf("hook: an MCP call must name its server and tool (got server %q, tool %q)", server, tool)
	case strings.Contains(server, "__"):
		return "", fmt.Errorf("hook: MCP server name %q holds \"__\", which would make its tools' names ambiguous", server)
	}
	return "mcp__" + server + "__" + tool, nil
}

// patchPaths are the files a patch in the apply_patch format names
// ("*** Add File: P", "*** Update File: P", "*** Delete File: P",
// "*** Move to: P"). Every line is trimmed first, as the lenient parsers
// of the hosts do, and any other line that starts with "***" is refused
// rather than skipped: a header this reader missed would be a write
// nobody judged. A patch that names no file is refused too.
func patchPaths(text string) ([]string, error) {
	var paths []string
	seen := map[string]bool{}
	for i, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "***") {
			continue
		}
		switch l {
		case "*** Begin Patch", "*** End Patch", "*** End of File":
			continue
		}
		found := false
		for _, h := range []string{"*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:"} {
			if p, ok := strings.CutPrefix(l, h); ok {
				p = strings.TrimSpace(p)
				if p == "" {
					return nil, fmt.Errorf("hook: line %d of the patch names no file: %q", i+1, l)
				}
				if !seen[p] {
					seen[p] = true
					paths = append(paths, p)
				}
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("hook: line %d of the patch is a header admit does not know: %q", i+1, l)
		}
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("hook: the patch names no file")
	}
	return paths, nil
}

// patchCall maps an apply_patch call to edit_file, a mutator of the
// built-in policy: its files as a path list (each judged as a write
// target) and the patch itself. The host's name stays in the context.
func patchCall(c Call, text string) (Call, error) {
	paths, err := patchPaths(text)
	if err != nil {
		return c, err
	}
	if c.Tool != "edit_file" {
		var ctx CallContext
		if json.Unmarshal(c.Context, &ctx) == nil && ctx.HostTool == "" {
			ctx.HostTool = c.Tool
			c.Context = marshal(ctx)
		}
	}
	c.Tool = "edit_file"
	c.Args = marshal(struct {
		Paths []string `json:"paths"`
		Input string   `json:"input"`
	}{paths, text})
	return c, nil
}

// toolTable maps host tool names to admit's. A name the table does not
// hold stays the host's own.
type toolTable map[string]string

func (t toolTable) name(host string) string {
	if n, ok := t[host]; ok {
		return n
	}
	return host
}

// sortedKeys lists a map's keys in order, for deterministic messages.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
