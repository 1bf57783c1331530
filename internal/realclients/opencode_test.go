package realclients

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// opencodeVersion is the opencode release scripts/realclients/setup.sh
// installs.
const opencodeVersion = "1.18.33"

// TestOpencode: the real opencode, its tools allowed (its default), with
// admit connected (admit's plugin). One opencode server per world
// (opencode serve), each scenario a run attached to it: a cold start
// costs opencode about 20 s here.
func TestOpencode(t *testing.T) {
	dir := cache(t)
	t.Parallel()
	start := time.Now()
	opencode := filepath.Join(dir, "opencode-"+opencodeVersion, "node_modules", ".bin", "opencode")
	m := startModel(t, chatCompletions)
	w := newWorld(t, m)
	w.connect("opencode")
	config, _ := json.Marshal(map[string]any{
		"$schema": "https://opencode.ai/config.json", "model": "fake/gpt-4o", "autoupdate": false, "share": "disabled",
		"provider": map[string]any{"fake": map[string]any{"npm": "@ai-sdk/openai-compatible", "name": "fake",
			"options": map[string]any{"baseURL": "http://" + m.addr + "/v1", "apiKey": "sk-admit-test"},
			"models":  map[string]any{"gpt-4o": map[string]any{"name": "gpt-4o", "tool_call": true}}}},
	})
	write(t, filepath.Join(w.xdg, "config", "opencode", "opencode.json"), string(config))
	w.env = append(w.env, "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1")

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	ctx, stop := context.WithCancel(context.Background())
	serve := exec.CommandContext(ctx, opencode, "serve", "--port", fmt.Sprint(port), "--hostname", "127.0.0.1")
	serve.Env, serve.Dir = w.env, w.ws
	serve.WaitDelay = 5 * time.Second
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stop(); _ = serve.Wait() })
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	// A request waits while opencode installs its plugin's and the
	// provider's packages (from npm, the first time in a home).
	probe := &http.Client{Timeout: 10 * time.Second}
	for deadline := time.Now().Add(240 * time.Second); ; {
		if resp, err := probe.Get(url + "/config"); err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("opencode serve did not answer on %s", url)
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("opencode serve up: %v", time.Since(start).Round(time.Millisecond))

	playAll(t, w, client{name: "opencode", shell: "bash", key: "command", write: "write", rewrites: true, modelReads: true,
		writeArgs:   func(path string) map[string]any { return map[string]any{"filePath": path, "content": "planted\n"} },
		missingSign: []string{"admit could not run"},
		do: func() string {
			out := run(t, w, 120*time.Second, opencode, "run", "--attach", url, "--dir", w.ws, "-m", "fake/gpt-4o", "do the scripted task")
			return strings.TrimSpace(out)
		}})
	t.Logf("opencode %s: %v", opencodeVersion, time.Since(start).Round(time.Millisecond))
}
