package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkHookAlone is one allowed Bash call through `admit hook
// claude-code` deciding alone, in this process: the hook's own work
// without the process start that a real call adds.
func BenchmarkHookAlone(b *testing.B) {
	dir := b.TempDir()
	root := filepath.Join(dir, "ws")
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "README.md"), []byte("hello\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, v := range []string{"XDG_RUNTIME_DIR", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "HOME"} {
		b.Setenv(v, filepath.Join(dir, v))
	}
	b.Setenv("ADMIT_SOCKET", filepath.Join(dir, "no-server.sock"))
	b.Chdir(root)
	event, _ := json.Marshal(map[string]any{"session_id": "bench", "transcript_path": "/dev/null", "cwd": root,
		"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": "cat README.md"}})
	args := []string{"hook", "claude-code", "--tape", filepath.Join(dir, "tape.jsonl")}
	var out, errs bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		out.Reset()
		if code := Main(args, Stdio{In: bytes.NewReader(event), Out: &out, Err: &errs}); code != 0 || !bytes.Contains(out.Bytes(), []byte(`"allow"`)) {
			b.Fatalf("exit %d: %s %s", code, out.Bytes(), errs.Bytes())
		}
	}
}
