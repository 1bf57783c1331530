package realclients

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// clineVersion is the Cline CLI release scripts/realclients/setup.sh
// installs.
const clineVersion = "3.0.65"

// chatCompletions answers OpenAI's Chat Completions API as a streaming
// model would: the scripted tool call when the request offers tools and
// holds no tool message yet, else a final text.
func chatCompletions(m *fakeModel, mux *http.ServeMux) {
	mux.HandleFunc("/v1/chat/completions", func(rw http.ResponseWriter, r *http.Request) {
		body := m.readBody(r)
		var req struct {
			Stream   bool              `json:"stream"`
			Tools    []json.RawMessage `json:"tools"`
			Messages []struct {
				Role string `json:"role"`
			} `json:"messages"`
		}
		_ = json.Unmarshal(body, &req)
		answered := false
		for _, msg := range req.Messages {
			answered = answered || msg.Role == "tool"
		}
		tool, args := m.scripted()
		delta := map[string]any{"role": "assistant", "content": "done"}
		finish := "stop"
		if len(req.Tools) > 0 && !answered && tool != "" {
			a, _ := json.Marshal(args)
			delta = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"index": 0, "id": "call_admit1", "type": "function",
				"function": map[string]any{"name": tool, "arguments": string(a)}}}}
			finish = "tool_calls"
		}
		usage := map[string]int{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
		if !req.Stream {
			msg := map[string]any{}
			for k, v := range delta {
				msg[k] = v
			}
			rw.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(rw).Encode(map[string]any{"id": "chatcmpl-admit", "object": "chat.completion", "created": time.Now().Unix(), "model": "gpt-4o",
				"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
			return
		}
		rw.Header().Set("Content-Type", "text/event-stream")
		chunk := func(choice map[string]any, u any) {
			b, _ := json.Marshal(map[string]any{"id": "chatcmpl-admit", "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": "gpt-4o",
				"choices": []any{choice}, "usage": u})
			fmt.Fprintf(rw, "data: %s\n\n", b)
		}
		chunk(map[string]any{"index": 0, "delta": delta, "finish_reason": nil}, nil)
		chunk(map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish}, usage)
		fmt.Fprint(rw, "data: [DONE]\n\n")
	})
	mux.HandleFunc("/", func(rw http.ResponseWriter, r *http.Request) {
		m.readBody(r)
		rw.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "/models") {
			fmt.Fprint(rw, `{"object":"list","data":[{"id":"gpt-4o","object":"model"}]}`)
			return
		}
		http.NotFound(rw, r)
	})
}

// TestCline: the real Cline CLI, its tools approved automatically (its
// default), with admit connected.
func TestCline(t *testing.T) {
	dir := cache(t)
	t.Parallel()
	start := time.Now()
	cline := filepath.Join(dir, "cline-"+clineVersion, "node_modules", ".bin", "cline")
	m := startModel(t, chatCompletions)
	w := newWorld(t, m)
	w.connect("cline")
	t.Cleanup(func() { endDaemons(t, "--cline-hub-daemon", w.ws) })
	run(t, w, 60*time.Second, cline, "auth", "-p", "openai", "-k", "sk-admit-test", "-m", "gpt-4o", "-b", "http://"+m.addr+"/v1")
	playAll(t, w, client{name: "Cline", shell: "run_commands", key: "commands", list: true, write: "apply_patch", rewrites: false, modelReads: false,
		writeArgs: func(path string) map[string]any {
			return map[string]any{"input": "*** Begin Patch\n*** Add File: " + path + "\n+planted\n*** End Patch\n"}
		},
		// Cline shows a hook's cancel only as the task's end (its
		// errorMessage is not in --json output): a hook that printed
		// nothing would have let the call run and the task complete.
		missingSign: []string{`"finishReason":"aborted"`},
		do: func() string {
			return run(t, w, 90*time.Second, cline, "--json", "-t", "60", "do the scripted task")
		}})
	t.Logf("Cline %s: %v", clineVersion, time.Since(start).Round(time.Millisecond))
}

// endDaemons ends, by process id, the client's background processes that
// this test's runs left: those whose command line holds flag and the
// test's own workspace.
func endDaemons(t *testing.T, flag, ws string) {
	t.Helper()
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		cmd, err := os.ReadFile(filepath.Join("/proc", p.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cmd, []byte(flag)) || !bytes.Contains(cmd, []byte(ws)) {
			continue
		}
		if proc, err := os.FindProcess(pid); err == nil && proc.Kill() == nil {
			t.Logf("ended the client's daemon %d", pid)
		}
	}
}
