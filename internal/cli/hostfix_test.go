package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"admit/hook/connect"
)

// TestConnectCodexTrust: connected, Codex's hooks are inert until the
// person trusts them in Codex (a trust record in config.toml whose hash
// is the entry's); connect says so, --list says "connected, not
// trusted: inert", and an entry changed since it was trusted is inert
// again.
func TestConnectCodexTrust(t *testing.T) {
	w := newConnectWorld(t)
	code, out, stderr := w.admit(t, w.bin, "connect", "--yes", "codex")
	if code != 0 || !strings.Contains(out, "Codex: connected, not trusted: inert") || !strings.Contains(out, "Open /hooks in Codex") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	list := func() string {
		_, out, _ := w.admit(t, w.bin, "connect", "--list")
		return out
	}
	if out := list(); !strings.Contains(out, "connected, not trusted: inert") || !strings.Contains(out, ":pre_tool_use:") {
		t.Fatalf("not reported inert:\n%s", out)
	}
	hooksPath := filepath.Join(w.home, ".codex", "hooks.json")
	data, err := os.ReadFile(hooksPath)
	if err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(w.home, ".codex", "config.toml")
	original, _ := os.ReadFile(cfgPath)
	write := func(s string) {
		if err := os.WriteFile(cfgPath, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pre := connect.CodexTrustRecord(hooksPath, data, "PreToolUse")
	perm := connect.CodexTrustRecord(hooksPath, data, "PermissionRequest")
	if !strings.Contains(pre, ":pre_tool_use:") || !strings.Contains(pre, `trusted_hash = "sha256:`) || perm == "" {
		t.Fatalf("trust records:\n%s\n%s", pre, perm)
	}
	// One trusted, the other not: still inert, naming the one left.
	write(string(original) + "\n" + pre)
	if out := list(); !strings.Contains(out, "connected, not trusted: inert") || strings.Contains(out, "PreToolUse is not trusted") || !strings.Contains(out, "PermissionRequest is not trusted") {
		t.Fatalf("half trusted:\n%s", out)
	}
	write(string(original) + "\n" + pre + perm)
	if out := list(); strings.Contains(out, "inert") || !regexpLine(out, "codex", "yes", "connected") {
		t.Fatalf("trusted, yet:\n%s", out)
	}
	// Switched off in Codex's screen: inert, and says so.
	write(string(original) + "\n" + pre + "enabled = false\n" + perm)
	if out := list(); !strings.Contains(out, "turned off in Codex's /hooks") {
		t.Fatalf("disabled, yet:\n%s", out)
	}
	// A hash of another entry (the person trusted an older one): inert.
	write(string(original) + "\n" + strings.Replace(pre, "sha256:", "sha256:00", 1) + perm)
	if out := list(); !strings.Contains(out, "changed since it was trusted") {
		t.Fatalf("a stale trust, yet:\n%s", out)
	}
	// The same records as Codex may also write them: inline tables.
	inline := "[hooks.state]\n"
	for _, rec := range []string{pre, perm} {
		lines := strings.Split(strings.TrimSpace(rec), "\n")
		key := strings.TrimSuffix(strings.TrimPrefix(lines[0], "[hooks.state."), "]")
		inline += key + " = { " + lines[1] + " }\n"
	}
	write(string(original) + "\n" + inline)
	if out := list(); strings.Contains(out, "inert") {
		t.Fatalf("inline records not read:\n%s\n%s", inline, out)
	}
}
