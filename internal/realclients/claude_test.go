package realclients

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// claudeVersion is the Claude Code release scripts/realclients/setup.sh
// installs.
const claudeVersion = "2.1.328"

// anthropic answers the Messages API as a streaming model would: the
// scripted tool_use when the request offers tools and holds no
// tool_result yet, else a final text.
func anthropic(m *fakeModel, mux *http.ServeMux) {
	mux.HandleFunc("/v1/messages", func(rw http.ResponseWriter, r *http.Request) {
		body := m.readBody(r)
		var req struct {
			Stream   bool              `json:"stream"`
			Tools    []json.RawMessage `json:"tools"`
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		_ = json.Unmarshal(body, &req)
		answered := strings.Contains(string(body), `"tool_result"`)
		tool, args := m.scripted()
		useTool := len(req.Tools) > 0 && !answered && tool != ""
		input, _ := json.Marshal(args)
		if !req.Stream {
			content := []any{map[string]any{"type": "text", "text": "done"}}
			stop := "end_turn"
			if useTool {
				content = []any{map[string]any{"type": "tool_use", "id": "toolu_admit1", "name": tool, "input": args}}
				stop = "tool_use"
			}
			rw.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(rw).Encode(map[string]any{"id": "msg_admit", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
				"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": map[string]int{"input_tokens": 10, "output_tokens": 10}})
			return
		}
		rw.Header().Set("Content-Type", "text/event-stream")
		ev := func(name string, v any) {
			b, _ := json.Marshal(v)
			fmt.Fprintf(rw, "event: %s\ndata: %s\n\n", name, b)
		}
		ev("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_admit", "type": "message", "role": "assistant",
			"model": "claude-sonnet-4-5", "content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": map[string]int{"input_tokens": 10, "output_tokens": 1}}})
		stop := "end_turn"
		if useTool {
			ev("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "tool_use", "id": "toolu_admit1", "name": tool, "input": map[string]any{}}})
			ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
			stop = "tool_use"
		} else {
			ev("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
			ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": "done"}})
		}
		ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
		ev("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]int{"output_tokens": 5}})
		ev("message_stop", map[string]any{"type": "message_stop"})
	})
	mux.HandleFunc("/", func(rw http.ResponseWriter, r *http.Request) {
		m.readBody(r)
		rw.Header().Set("Content-Type", "application/json")
		fmt.Fprint(rw, `{}`)
	})
}

// TestClaudeCode: the real Claude Code, its own permission prompts
// switched off (--dangerously-skip-permissions), with admit connected.
func TestClaudeCode(t *testing.T) {
	dir := cache(t)
	t.Parallel()
	start := time.Now()
	claude := filepath.Join(dir, "claude-code-"+claudeVersion, "node_modules", ".bin", "claude")
	m := startModel(t, anthropic)
	w := newWorld(t, m)
	w.connect("claude-code")
	w.env = append(w.env, "ANTHROPIC_BASE_URL=http://"+m.addr, "ANTHROPIC_API_KEY=sk-ant-admit-test", "IS_SANDBOX=1",
		"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1")
	playAll(t, w, client{name: "Claude Code", shell: "Bash", key: "command", write: "Write", rewrites: true, modelReads: true,
		writeArgs:   func(path string) map[string]any { return map[string]any{"file_path": path, "content": "planted\n"} },
		missingSign: []string{w.bin},
		do: func() string {
			return run(t, w, 90*time.Second, claude, "-p", "do the scripted task", "--output-format", "stream-json", "--verbose",
				"--dangerously-skip-permissions", "--max-turns", "3")
		}})
	t.Logf("Claude Code %s: %v", claudeVersion, time.Since(start).Round(time.Millisecond))
}
