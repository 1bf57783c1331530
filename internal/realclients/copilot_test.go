package realclients

import (
	"path/filepath"
	"testing"
	"time"
)

// copilotVersion is the Copilot CLI release scripts/realclients/setup.sh
// installs.
const copilotVersion = "1.0.102"

// TestCopilotCLI: the real Copilot CLI with a model of one's own (BYOK,
// offline: no GitHub account), its own prompts switched off
// (--allow-all), with admit connected.
func TestCopilotCLI(t *testing.T) {
	dir := cache(t)
	t.Parallel()
	start := time.Now()
	copilot := filepath.Join(dir, "copilot-"+copilotVersion, "node_modules", ".bin", "copilot")
	m := startModel(t, responses)
	w := newWorld(t, m)
	w.connect("copilot")
	w.env = append(w.env, "COPILOT_PROVIDER_BASE_URL=http://"+m.addr+"/v1", "COPILOT_PROVIDER_API_KEY=sk-admit-test", "COPILOT_PROVIDER_WIRE_API=responses",
		"COPILOT_MODEL=gpt-5.5", "COPILOT_OFFLINE=true", "COPILOT_AUTO_UPDATE=false", "NO_COLOR=1")
	playAll(t, w, client{name: "Copilot CLI", shell: "bash", key: "command", write: "apply_patch", rewrites: true, modelReads: true,
		writeArgs: func(path string) map[string]any {
			return map[string]any{"input": "*** Begin Patch\n*** Add File: " + path + "\n+planted\n*** End Patch\n"}
		},
		missingSign: []string{"Denied by preToolUse hook: hook exited with code 2"},
		do: func() string {
			return run(t, w, 90*time.Second, copilot, "-p", "do the scripted task", "--allow-all", "--no-auto-update")
		}})
	t.Logf("Copilot CLI %s: %v", copilotVersion, time.Since(start).Round(time.Millisecond))
}
