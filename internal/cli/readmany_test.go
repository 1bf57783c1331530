package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// geminiAnswer runs admit hook gemini-cli on a BeforeTool event for tool
// with input, deciding alone in w, and returns Gemini's decision and
// reason.
func geminiAnswer(t *testing.T, w hookWorkspace, tool string, input map[string]any) (decision, reason string) {
	t.Helper()
	ev, err := json.Marshal(map[string]any{
		"session_id": "s-many", "transcript_path": "/dev/null", "cwd": w.root, "hook_event_name": "BeforeTool",
		"timestamp": "2026-12-02T08:00:00.000Z", "tool_name": tool, "tool_input": input,
	})
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	hookCmd([]string{"gemini-cli", "--socket", w.socket, "--tape", w.tape, "--timeout", "10s"}, Stdio{In: bytes.NewReader(ev), Out: &stdout, Err: &stderr})
	var v struct{ Decision, Reason string }
	if err := json.Unmarshal(stdout.Bytes(), &v); err != nil {
		t.Fatalf("the answer is not JSON: %q (%s)", stdout.String(), stderr.String())
	}
	return v.Decision, v.Reason
}

// TestHookGeminiReadManyFiles: Gemini CLI's read_many_files reads every
// file its "include" and "paths" patterns match, whole. Through admit
// hook gemini-cli, in a real workspace, each file they reach is judged
// as a read: a secret is asked, a pattern that climbs, starts outside, or
// reaches outside through a link (by name or by a "**" that follows
// links) is refused, and an exclusion does not hide what it excludes.
// Ordinary patterns are allowed.
func TestHookGeminiReadManyFiles(t *testing.T) {
	w := newHookWorkspace(t)
	t.Setenv("HOME", w.home)
	outside := t.TempDir()
	for name, content := range map[string]string{
		"config/app.env":    "DB_PASSWORD=hunter2\n",
		"config/app.toml":   "port = 8080\n",
		"docs/guide.md":     "# guide\n",
		"docs/deep/more.md": "# more\n",
		"vendor/lib/x.md":   "# x\n",
	} {
		p := filepath.Join(w.root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.md"), []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"vendor/lib/escape": outside, "out.md": filepath.Join(outside, "secret.md")} {
		if err := os.Symlink(target, filepath.Join(w.root, link)); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name  string
		input map[string]any
		want  string // allow, ask or deny
		says  string
	}{
		{"include matching a secret", map[string]any{"include": []string{"config/**/*.env"}}, "ask", "app.env"},
		{"paths pattern matching a secret", map[string]any{"paths": []string{"config/*"}}, "ask", "app.env"},
		{"paths naming the folder of a secret", map[string]any{"paths": []string{"config"}}, "ask", "app.env"},
		{"an exclusion does not hide a secret", map[string]any{"include": []string{"config/*"}, "exclude": []string{"**/*.env"}}, "ask", "app.env"},
		{"a pattern matching a link leading out", map[string]any{"include": []string{"*.md"}}, "deny", "out.md"},
		{"** following a link leading out", map[string]any{"paths": []string{"vendor/**/*.md"}}, "deny", "escape"},
		{"a pattern climbing", map[string]any{"include": []string{"docs/../../*"}}, "deny", ".."},
		{"an absolute pattern outside", map[string]any{"paths": []string{outside + "/*.md"}}, "deny", "outside"},
		{"a pattern from home", map[string]any{"include": []string{"~/.ssh/*"}}, "deny", "home"},
		{"ordinary patterns", map[string]any{"include": []string{"src/**/*.go", "docs/**/*.md"}, "paths": []string{"README.md"}}, "allow", ""},
		{"an ordinary folder", map[string]any{"paths": []string{"docs"}, "exclude": []string{"**/*.log"}}, "allow", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			decision, reason := geminiAnswer(t, w, "read_many_files", c.input)
			if decision != c.want || !strings.Contains(reason, c.says) {
				t.Errorf("%v: %s (%s), want %s saying %q", c.input, decision, reason, c.want, c.says)
			}
		})
	}
}
