package hook

import (
	"bytes"
	"encoding/json"
	"strings"
)

// What a host does with a reply, as its docs and code say it reads one
// (the sources are named per host below and in testdata/*/SOURCES.md).
const (
	hostAllow = "allow" // the call runs, approved by the hook
	hostAsk   = "ask"   // the host asks its user
	hostDeny  = "deny"  // the call is refused
	hostNone  = "none"  // no decision: the host's own flow (for most, the call runs)
)

// hostReads emulates how ev's host reads reply. It is the other half of
// every answer test: an answer is right when the host reads it as meant.
func hostReads(ev Event, r Reply) string {
	out := bytes.TrimSpace(r.Stdout)
	var o map[string]json.RawMessage
	isJSON := len(out) > 0 && out[0] == '{' && json.Unmarshal(out, &o) == nil
	str := func(m map[string]json.RawMessage, k string) string {
		var s string
		_ = json.Unmarshal(m[k], &s)
		return s
	}
	sub := func(m map[string]json.RawMessage, k string) map[string]json.RawMessage {
		var v map[string]json.RawMessage
		_ = json.Unmarshal(m[k], &v)
		return v
	}
	decision := func(s string) string {
		switch s {
		case "allow":
			return hostAllow
		case "ask":
			return hostAsk
		case "deny", "block":
			return hostDeny
		}
		return hostNone
	}
	switch ev.Host {
	case "claude-code": // hooks.md: exit 2 blocks; JSON read on every exit; PermissionRequest ignores exit 2
		if ev.Permission {
			if !isJSON {
				return hostNone
			}
			return decision(str(sub(sub(o, "hookSpecificOutput"), "decision"), "behavior"))
		}
		if r.Exit == exitBlock {
			return hostDeny
		}
		if !isJSON {
			return hostNone
		}
		return decision(str(sub(o, "hookSpecificOutput"), "permissionDecision"))
	case "gemini-cli": // hookRunner.ts: stdout, else stderr; JSON whatever the exit; text: exit >= 2 denies
		text := out
		if len(text) == 0 {
			text = []byte(strings.TrimSpace(r.Stderr))
		}
		if len(text) == 0 {
			return hostNone
		}
		var g map[string]json.RawMessage
		if json.Unmarshal(text, &g) == nil && text[0] == '{' {
			return decision(str(g, "decision"))
		}
		if r.Exit == 0 || r.Exit == 1 {
			return hostAllow
		}
		return hostDeny
	case "copilot":
		if ev.Shape == shapeVSCode { // hookExecutor.ts, chatHookService.ts
			switch r.Exit {
			case 0:
				if !isJSON {
					return hostNone
				}
				return decision(str(sub(o, "hookSpecificOutput"), "permissionDecision"))
			case exitBlock:
				return hostDeny
			}
			return hostNone
		}
		// hooks-reference.md: exit 2 denies preToolUse and
		// permissionRequest; any other non-zero exit denies preToolUse
		// only (fail-closed) and is a logged failure for permissionRequest
		if r.Exit == exitBlock || r.Exit != 0 && !ev.Permission {
			return hostDeny
		}
		if r.Exit != 0 {
			return hostNone
		}
		if !isJSON {
			return hostNone
		}
		if ev.Permission {
			return decision(str(o, "behavior"))
		}
		return decision(str(o, "permissionDecision"))
	case "codex": // pre_tool_use.rs, output_parser.rs, schema.rs (deny_unknown_fields)
		if ev.Permission {
			if r.Exit != 0 || !isJSON || !codexFieldsOK(out, true) {
				return hostNone
			}
			return decision(str(sub(sub(o, "hookSpecificOutput"), "decision"), "behavior"))
		}
		switch r.Exit {
		case 0:
			if len(out) == 0 {
				return hostNone
			}
			if !isJSON || !codexFieldsOK(out, false) {
				return hostNone // failed: the call proceeds
			}
			h := sub(o, "hookSpecificOutput")
			if h == nil {
				return hostNone
			}
			if str(h, "permissionDecision") == "deny" && strings.TrimSpace(str(h, "permissionDecisionReason")) != "" {
				return hostDeny
			}
			if str(h, "permissionDecision") == "allow" && len(sub(h, "updatedInput")) > 0 {
				return hostAllow // runs the updated input (output_parser.rs @0ea8381)
			}
			return hostNone // ask, or allow without updatedInput: unsupported, fails open
		case exitBlock:
			if strings.TrimSpace(r.Stderr) != "" {
				return hostDeny
			}
		}
		return hostNone
	case "cursor": // with failClosed set: exit 2 blocks, a crash or no answer refuses
		if r.Exit != 0 || !isJSON {
			return hostDeny
		}
		d := decision(str(o, "permission"))
		// cursor.com/docs/reference/hooks (as quoted in testdata/cursor/
		// SOURCES.md): ask is not enforced on preToolUse, the call runs;
		// on beforeShellExecution and beforeMCPExecution it acts as a deny
		// with no prompt (live runs on 3.9.16).
		if d == hostAsk && ev.Name == "preToolUse" {
			return hostAllow
		}
		if d == hostAsk {
			return hostDeny
		}
		return d
	case "windsurf", "kiro": // exit 2 blocks, anything else runs
		if r.Exit == exitBlock {
			return hostDeny
		}
		return hostAllow
	case "cline": // hook-factory.ts: valid JSON honoured whatever the exit; none and exit 0 runs
		if isJSON {
			var cancel bool
			if raw, ok := o["cancel"]; ok && json.Unmarshal(raw, &cancel) != nil {
				return hostNone
			}
			if cancel {
				return hostDeny
			}
			return hostAllow
		}
		if r.Exit == 0 {
			return hostAllow
		}
		return hostNone
	case "opencode": // admit's own plugin (hook/connect): it lets the call run on {"decision":"allow"} at exit 0 alone, and throws otherwise
		if isJSON && r.Exit == 0 && str(o, "decision") == "allow" {
			return hostAllow
		}
		return hostDeny
	}
	return "unknown host " + ev.Host
}

// codexFieldsOK checks an answer against Codex's output schema, which
// denies unknown fields at every level (schema.rs).
func codexFieldsOK(out []byte, permission bool) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(out, &top) != nil {
		return false
	}
	allowed := map[string]bool{"continue": true, "stopReason": true, "suppressOutput": true, "systemMessage": true, "hookSpecificOutput": true}
	if !permission {
		allowed["decision"], allowed["reason"] = true, true
	}
	for k := range top {
		if !allowed[k] {
			return false
		}
	}
	raw, ok := top["hookSpecificOutput"]
	if !ok {
		return true
	}
	var h map[string]json.RawMessage
	if json.Unmarshal(raw, &h) != nil {
		return false
	}
	fields := map[string]bool{"hookEventName": true, "permissionDecision": true, "permissionDecisionReason": true, "updatedInput": true, "additionalContext": true}
	if permission {
		fields = map[string]bool{"hookEventName": true, "decision": true}
	}
	for k := range h {
		if !fields[k] {
			return false
		}
	}
	if permission {
		var d map[string]json.RawMessage
		if raw, ok := h["decision"]; ok {
			if json.Unmarshal(raw, &d) != nil {
				return false
			}
			for k := range d {
				if k != "behavior" && k != "message" {
					return false // updatedInput, updatedPermissions, interrupt are refused
				}
			}
		}
		return true
	}
	// updatedInput is supported only with allow, and allow only with
	// updatedInput; ask is not
	var pd string
	_ = json.Unmarshal(h["permissionDecision"], &pd)
	_, updated := h["updatedInput"]
	if updated != (pd == "allow") {
		return false
	}
	return pd == "" || pd == "deny" || pd == "allow"
}
