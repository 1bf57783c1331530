package realclients

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"admit/hook/connect"
)

// codexVersion is the Codex release scripts/realclients/setup.sh installs.
const codexVersion = "0.169.0"

// responses answers OpenAI's Responses API as a streaming model would:
// the scripted call (a function_call, or a custom_tool_call for a
// freeform tool such as apply_patch, whose input is the args' "input")
// when the request offers tools and holds no tool output yet, else a
// final message.
func responses(m *fakeModel, mux *http.ServeMux) {
	mux.HandleFunc("/v1/responses", func(rw http.ResponseWriter, r *http.Request) {
		body := m.readBody(r)
		var req struct {
			Tools []struct {
				Type string `json:"type"`
				Name string `json:"name"`
			} `json:"tools"`
		}
		_ = json.Unmarshal(body, &req)
		answered := strings.Contains(string(body), `_call_output"`)
		tool, args := m.scripted()
		freeform := false
		for _, t := range req.Tools {
			if t.Name == tool && t.Type == "custom" {
				freeform = true
			}
		}
		rw.Header().Set("Content-Type", "text/event-stream")
		ev := func(v map[string]any) {
			b, _ := json.Marshal(v)
			fmt.Fprintf(rw, "event: %s\ndata: %s\n\n", v["type"], b)
		}
		ev(map[string]any{"type": "response.created", "response": map[string]any{"id": "resp_admit", "object": "response", "status": "in_progress", "output": []any{}}})
		var item map[string]any
		switch {
		case len(req.Tools) > 0 && !answered && tool != "" && freeform:
			input, _ := args["input"].(string)
			item = map[string]any{"type": "custom_tool_call", "id": "ctc_admit1", "call_id": "call_admit1", "name": tool, "input": input, "status": "completed"}
		case len(req.Tools) > 0 && !answered && tool != "":
			a, _ := json.Marshal(args)
			item = map[string]any{"type": "function_call", "id": "fc_admit1", "call_id": "call_admit1", "name": tool, "arguments": string(a), "status": "completed"}
		default:
			item = map[string]any{"type": "message", "id": "msg_admit1", "role": "assistant", "status": "completed",
				"content": []any{map[string]any{"type": "output_text", "text": "done", "annotations": []any{}}}}
		}
		ev(map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
		ev(map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
		ev(map[string]any{"type": "response.completed", "response": map[string]any{"id": "resp_admit", "object": "response", "status": "completed",
			"model": "gpt-5.5", "output": []any{item}, "usage": map[string]any{
				"input_tokens": 10, "input_tokens_details": map[string]int{"cached_tokens": 0}, "output_tokens": 5,
				"output_tokens_details": map[string]int{"reasoning_tokens": 0}, "total_tokens": 15}}})
	})
	mux.HandleFunc("/", func(rw http.ResponseWriter, r *http.Request) {
		m.readBody(r)
		http.NotFound(rw, r)
	})
}

// TestCodex: the real Codex, its own approvals and sandbox switched off
// (--dangerously-bypass-approvals-and-sandbox), with admit connected.
// Codex skips a hook nobody has trusted in its /hooks screen: first the
// suite shows that (a line runs with no tape record, and connect --list
// says so), then trusts admit's entries with the record connect computes
// (hook/connect/codex.go) and shows Codex running them.
func TestCodex(t *testing.T) {
	dir := cache(t)
	t.Parallel()
	start := time.Now()
	codex := filepath.Join(dir, "codex-"+codexVersion, "node_modules", ".bin", "codex")
	m := startModel(t, responses)
	w := newWorld(t, m)
	w.connect("codex")
	cfg := filepath.Join(w.home, ".codex", "config.toml")
	base := fmt.Sprintf(`model = "gpt-5.5"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.fake]
name = "fake"
base_url = "http://%s/v1"
wire_api = "responses"
env_key = "ADMIT_FAKE_KEY"
`, m.addr)
	old, _ := os.ReadFile(cfg)
	write(t, cfg, base+string(old))
	w.env = append(w.env, "ADMIT_FAKE_KEY=sk-admit-test", "CODEX_HOME="+filepath.Join(w.home, ".codex"))
	do := func() string {
		return run(t, w, 90*time.Second, codex, "exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "do the scripted task")
	}

	// Untrusted: Codex runs the line and admit never hears of it.
	if list := w.admit("connect", "--list"); !strings.Contains(list, "connected, not trusted: inert") {
		t.Errorf("connect --list before the trust: want \"connected, not trusted: inert\" for Codex:\n%s", list)
	}
	w.model.script("exec_command", map[string]any{"cmd": "cat README.md"})
	do()
	if !w.model.saw("hello from the workspace") || len(w.tape()) != 0 {
		t.Errorf("untrusted hooks: want the line run with no tape record (Codex skips them); saw output %v, %d tape records", w.model.saw("hello from the workspace"), len(w.tape()))
	}

	// Trusted the way Codex's /hooks screen records it.
	hooksPath := filepath.Join(w.home, ".codex", "hooks.json")
	hooks, err := os.ReadFile(hooksPath)
	if err != nil {
		t.Fatal(err)
	}
	trust := codexTrust(t, hooksPath, hooks)
	cur, _ := os.ReadFile(cfg)
	write(t, cfg, string(cur)+"\n"+trust)
	if list := w.admit("connect", "--list"); strings.Contains(list, "inert") {
		t.Errorf("connect --list after the trust still says inert:\n%s", list)
	}

	playAll(t, w, client{name: "Codex", shell: "exec_command", key: "cmd", write: "apply_patch", rewrites: true, modelReads: true,
		writeArgs: func(path string) map[string]any {
			return map[string]any{"input": "*** Begin Patch\n*** Add File: " + path + "\n+planted\n*** End Patch\n"}
		},
		missingSign: []string{w.bin}, do: do})
	t.Logf("Codex %s: %v", codexVersion, time.Since(start).Round(time.Millisecond))
}

// codexTrust is the config.toml records that trust each of admit's
// entries in hooks.json, as Codex's /hooks screen writes them.
func codexTrust(t *testing.T, hooksPath string, hooks []byte) string {
	t.Helper()
	var b strings.Builder
	for _, ev := range []string{"PreToolUse", "PermissionRequest"} {
		rec := connect.CodexTrustRecord(hooksPath, hooks, ev)
		if rec == "" {
			t.Fatalf("no trust record for %s in %s:\n%s", ev, hooksPath, hooks)
		}
		b.WriteString(rec)
	}
	return b.String()
}
