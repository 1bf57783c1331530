package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"admit/managed"
)

// TestConnectManagedPlaces: when the managed layer's hooks names the
// hosts, admit connect writes each hook into the host's own managed place
// (under a temporary folder standing for the system's root): Claude
// Code's managed-settings.json with allowManagedHooksOnly, Codex's
// requirements.toml (the organisation's settings there kept), Copilot's
// policy.d, Cursor's and Windsurf's system hooks files; the person's own
// files are left alone, a host with no managed place is named, and
// disconnect gives the managed files back as they were.
func TestConnectManagedPlaces(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a managed file must be root's; this test runs as root")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the managed places checked here are Linux's")
	}
	w := newConnectWorld(t)
	mdir := filepath.Join(t.TempDir(), "managed")
	if err := os.MkdirAll(mdir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mdir, managed.FileName), []byte(`{"hooks": ["claude-code", "codex", "copilot", "cursor", "windsurf", "gemini-cli"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	sys := func(p string) string { return filepath.Join(root, p) }
	requirements := "allowed_approval_policies = [\"untrusted\"]\n\n[features]\nhooks = true\n"
	if err := os.MkdirAll(sys("/etc/codex"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sys("/etc/codex/requirements.toml"), []byte(requirements), 0o644); err != nil {
		t.Fatal(err)
	}
	person := map[string][]byte{}
	filepath.WalkDir(w.home, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && !strings.Contains(p, "/.local/") {
			person[p], _ = os.ReadFile(p)
		}
		return nil
	})
	w.env = append(w.env, managed.EnvDir+"="+mdir, SystemRootEnv+"="+root)

	hosts := []string{"claude-code", "codex", "copilot", "cursor", "windsurf", "gemini-cli"}
	code, out, errOut := w.admit(t, w.bin, append([]string{"connect", "--yes"}, hosts...)...)
	if code != 0 {
		t.Fatalf("connect: exit %d\n%s\n%s", code, out, errOut)
	}
	line := "'" + w.bin + "' hook "
	hooksOf := func(path string) map[string][]struct {
		Command string
		Bash    string
		Hooks   []struct{ Command string }
	} {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var cfg struct {
			AllowManagedHooksOnly bool `json:"allowManagedHooksOnly"`
			Hooks                 map[string][]struct {
				Command string
				Bash    string
				Hooks   []struct{ Command string }
			}
		}
		if err := json.Unmarshal(data, &cfg); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if strings.HasSuffix(path, "managed-settings.json") && !cfg.AllowManagedHooksOnly {
			t.Errorf("%s: no allowManagedHooksOnly: %s", path, data)
		}
		return cfg.Hooks
	}
	if h := hooksOf(sys("/etc/claude-code/managed-settings.json")); len(h["PreToolUse"]) != 1 || !strings.HasPrefix(h["PreToolUse"][0].Hooks[0].Command, line+"claude-code ") {
		t.Errorf("Claude Code's managed settings: %+v", h)
	}
	if h := hooksOf(sys("/etc/github-copilot/policy.d/admit.json")); len(h["preToolUse"]) != 1 || !strings.HasPrefix(h["preToolUse"][0].Bash, line+"copilot ") {
		t.Errorf("Copilot's policy hook: %+v", h)
	}
	if h := hooksOf(sys("/etc/github-copilot/policy.d/admit-permission.json")); len(h["permissionRequest"]) != 1 {
		t.Errorf("Copilot's policy permission hook: %+v", h)
	}
	if h := hooksOf(sys("/etc/cursor/hooks.json")); len(h["beforeShellExecution"]) != 1 || !strings.HasPrefix(h["beforeShellExecution"][0].Command, line+"cursor ") {
		t.Errorf("Cursor's enterprise hooks: %+v", h)
	}
	if h := hooksOf(sys("/etc/windsurf/hooks.json")); len(h["pre_run_command"]) != 1 || !strings.HasPrefix(h["pre_run_command"][0].Command, line+"windsurf") {
		t.Errorf("Windsurf's system hooks: %+v", h)
	}
	req, _ := os.ReadFile(sys("/etc/codex/requirements.toml"))
	if !strings.HasPrefix(string(req), requirements) || !strings.Contains(string(req), "[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"'"+w.bin+"' hook codex ") ||
		!strings.Contains(string(req), "[[hooks.PermissionRequest]]") {
		t.Errorf("Codex's requirements.toml:\n%s", req)
	}
	if !strings.Contains(out, "Gemini CLI has none admit knows on linux") {
		t.Errorf("connect does not say Gemini CLI has no managed place:\n%s", out)
	}
	for p, data := range person {
		if got, _ := os.ReadFile(p); string(got) != string(data) && !strings.Contains(p, ".gemini") {
			t.Errorf("the person's %s changed", p)
		}
	}
	// Connected, connecting again changes nothing.
	if code, out, _ := w.admit(t, w.bin, "connect", "--dry-run", "codex", "claude-code"); code != 0 || strings.Contains(out, "@@") {
		t.Errorf("connect again: exit %d, a change:\n%s", code, out)
	}

	code, out, errOut = w.admit(t, w.bin, "disconnect", "--yes", "codex", "claude-code", "copilot")
	if code != 0 {
		t.Fatalf("disconnect: exit %d\n%s\n%s", code, out, errOut)
	}
	if got, _ := os.ReadFile(sys("/etc/codex/requirements.toml")); string(got) != requirements {
		t.Errorf("requirements.toml after disconnect:\n%s", got)
	}
	for _, p := range []string{"/etc/claude-code/managed-settings.json", "/etc/github-copilot/policy.d/admit.json"} {
		if _, err := os.Stat(sys(p)); err == nil {
			t.Errorf("%s, which admit made, is still there after disconnect", p)
		}
	}
}
