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
)

// geminiVersion is the Gemini CLI release scripts/realclients/setup.sh
// installs.
const geminiVersion = "0.61.0"

// generateContent answers the Gemini API (generateContent and
// streamGenerateContent) as a model would: the scripted functionCall when
// the request offers tools and holds no functionResponse yet, else a
// final text.
func generateContent(m *fakeModel, mux *http.ServeMux) {
	mux.HandleFunc("/", func(rw http.ResponseWriter, r *http.Request) {
		body := m.readBody(r)
		if !strings.Contains(r.URL.Path, "enerateContent") {
			rw.Header().Set("Content-Type", "application/json")
			fmt.Fprint(rw, `{"totalTokens": 10}`)
			return
		}
		var req struct {
			Tools []json.RawMessage `json:"tools"`
		}
		_ = json.Unmarshal(body, &req)
		answered := strings.Contains(string(body), `"functionResponse"`)
		tool, args := m.scripted()
		part := map[string]any{"text": "done"}
		if len(req.Tools) > 0 && !answered && tool != "" {
			part = map[string]any{"functionCall": map[string]any{"name": tool, "args": args}}
		}
		resp, _ := json.Marshal(map[string]any{
			"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0}},
			"usageMetadata": map[string]int{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
			"modelVersion":  "gemini-2.5-pro",
		})
		if strings.Contains(r.URL.Path, "streamGenerateContent") {
			rw.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(rw, "data: %s\r\n\r\n", resp)
			return
		}
		rw.Header().Set("Content-Type", "application/json")
		_, _ = rw.Write(resp)
	})
}

// TestGemini: the real Gemini CLI, its own confirmations switched off
// (--approval-mode yolo), with admit connected. Gemini CLI runs no hook
// in a folder it does not trust: first the suite shows connect --list
// saying so, then trusts the workspace as Gemini CLI records it.
func TestGemini(t *testing.T) {
	dir := cache(t)
	t.Parallel()
	start := time.Now()
	gemini := filepath.Join(dir, "gemini-"+geminiVersion, "node_modules", ".bin", "gemini")
	m := startModel(t, generateContent)
	w := newWorld(t, m)
	w.connect("gemini-cli")
	settings := filepath.Join(w.home, ".gemini", "settings.json")
	data, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("%s: %v", settings, err)
	}
	s["security"] = map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}}
	s["general"] = map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true}
	s["privacy"] = map[string]any{"usageStatisticsEnabled": false}
	out, _ := json.MarshalIndent(s, "", "  ")
	write(t, settings, string(out))
	w.env = append(w.env, "GOOGLE_GEMINI_BASE_URL=http://"+m.addr, "GEMINI_API_KEY=admit-test-key", "GEMINI_CLI_NO_RELAUNCH=true", "NO_BROWSER=1")

	if list := w.admit("connect", "--list"); !strings.Contains(list, "folder not trusted yet") {
		t.Errorf("connect --list in an untrusted folder: want \"folder not trusted yet\" for Gemini CLI:\n%s", list)
	}
	trust, _ := json.Marshal(map[string]string{w.ws: "TRUST_FOLDER"})
	write(t, filepath.Join(w.home, ".gemini", "trustedFolders.json"), string(trust))
	if list := w.admit("connect", "--list"); strings.Contains(list, "trusted yet") {
		t.Errorf("connect --list in a trusted folder still says it is not trusted:\n%s", list)
	}

	playAll(t, w, client{name: "Gemini CLI", shell: "run_shell_command", key: "command", write: "write_file", rewrites: true, modelReads: true,
		writeArgs:   func(path string) map[string]any { return map[string]any{"file_path": path, "content": "planted\n"} },
		missingSign: []string{w.bin},
		ownRefusal:  map[string]string{"write outside with the file tool": "Path not in workspace"},
		// Gemini CLI lets its file tools write its project temporary
		// folder, outside the workspace: admit must refuse that.
		extra: []scenario{{name: "write Gemini's temporary folder", tool: "write_file", mark: "planted.txt",
			args: map[string]any{"file_path": "{{HOME}}/.gemini/tmp/ws/planted.txt", "content": "planted\n"},
			check: func(w *world, _ *fakeModel) string {
				if exists(filepath.Join(w.home, ".gemini", "tmp", "ws", "planted.txt")) {
					return "planted.txt was written in Gemini's temporary folder, outside the workspace"
				}
				return ""
			}}},
		do: func() string {
			return run(t, w, 90*time.Second, gemini, "-p", "do the scripted task", "--approval-mode", "yolo", "-o", "stream-json", "-m", "gemini-2.5-pro")
		}})
	t.Logf("Gemini CLI %s: %v", geminiVersion, time.Since(start).Round(time.Millisecond))
}
