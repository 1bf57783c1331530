package gate_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"admit/gate"
	"admit/managed"
	"admit/policy"
	"admit/policy/rule"
)

// managedDir installs a managed file in a temporary "system" folder
// (root-owned, as the tests run as root) and points ADMIT_MANAGED_DIR at it.
func managedDir(t *testing.T, body string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a managed file must be root's; this test runs as root")
	}
	dir := filepath.Join(t.TempDir(), "system")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, managed.FileName), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(managed.EnvDir, dir)
	return dir
}

func managedGate(t *testing.T, o gate.Options) (*gate.Gate, string) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "ws")
	os.MkdirAll(root, 0o755)
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644)
	o.Dirs, o.Home, o.Bounds, o.Headless = []string{root}, t.TempDir(), policy.DefaultBounds(), true
	if o.Trust == nil {
		o.Trust = gate.NewTrustStore(t.TempDir())
	}
	if o.Rules == nil {
		o.Rules = gate.NewRuleStore(t.TempDir(), root)
	}
	g, err := gate.Open(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g, root
}

func checkLine(t *testing.T, g *gate.Gate, line string) gate.Verdict {
	t.Helper()
	v, err := g.Check(context.Background(), gate.CheckParams{Tool: "bash", Command: line})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestManagedPins: the managed layer pins the mode, the effect mode's
// ceiling and the shell profile at start, whatever the person chose, and
// refuses a change to them with the reason; the state says what it pins.
func TestManagedPins(t *testing.T) {
	managedDir(t, `{"mode": "enforce", "effects": "read-only", "shell": "refuse", "confinedRuns": "ask", "rules": {"deny": ["git push *"]}}`)
	g, _ := managedGate(t, gate.Options{Settings: gate.Settings{Mode: "warn", Effects: "workspace-write", Shell: "analyze", ConfinedRuns: "allow"}})
	st := g.State()
	if st.Mode != rule.Enforce || st.Effects != "read-only" || st.Shell != "refuse" {
		t.Fatalf("state: mode %s effects %s shell %s", st.Mode, st.Effects, st.Shell)
	}
	if st.Managed == nil || st.Managed.Mode != "enforce" || len(st.Managed.Rules) != 1 || st.Managed.Rules[0] != "deny git push *" {
		t.Fatalf("state.managed: %+v", st.Managed)
	}
	for _, c := range []struct{ mode, effects, shell, field string }{
		{"warn", "", "", "mode"}, {"off", "", "", "mode"}, {"", "workspace-write", "", "effects"}, {"", "", "analyze", "shell"},
	} {
		err := g.SetMode(c.mode, c.effects, c.shell)
		var pe *gate.ParamError
		if !errors.As(err, &pe) || pe.Field != c.field || !strings.Contains(err.Error(), "managed policy") {
			t.Errorf("SetMode(%q, %q, %q): %v, want a refusal naming %s", c.mode, c.effects, c.shell, err, c.field)
		}
	}
	if err := g.SetMode("enforce", "read-only", "refuse"); err != nil {
		t.Errorf("the pinned settings themselves: %v", err)
	}
	if err := g.SetSettings(gate.Settings{ConfinedRuns: "allow"}); err == nil {
		t.Error("confinedRuns allow taken over the managed ask")
	}
	if g.State().Mode != rule.Enforce {
		t.Error("the mode moved")
	}
	if v := checkLine(t, g, "ls"); !v.Allowed {
		t.Errorf("ls under refuse: %s %s", v.Rule, v.Reason)
	}
	if v := checkLine(t, g, "ls | head"); v.Allowed {
		t.Errorf("a pipeline under the pinned refuse profile: allowed")
	}
}

// TestManagedRules: the organisation's deny rule refuses whatever the
// person's rules and a trusted workspace policy say, and a person's
// allow rule it forbids is refused with the reason, as is an exemption
// of its secrets.
func TestManagedRules(t *testing.T) {
	managedDir(t, `{"rules": {"deny": ["npm publish *"], "ask": ["wc *"]}, "secretPatterns": ["*.corp-key"]}`)
	rulesDir := t.TempDir()
	os.WriteFile(filepath.Join(rulesDir, "rules.json"), []byte(`{"allow": ["npm *", "wc *"]}`), 0o600)
	trust := gate.NewTrustStore(t.TempDir())
	g, root := managedGate(t, gate.Options{Trust: trust, Rules: gate.NewRuleStore(rulesDir, "")})
	// A workspace policy, trusted by the person, that redefines npm as a
	// reading program and drops every rule.
	os.MkdirAll(filepath.Join(root, ".admit"), 0o755)
	pol := `{"allow": ["bash"], "programs": {"npm": {"operands": "text"}}}`
	os.WriteFile(filepath.Join(root, ".admit", "policy.json"), []byte(pol), 0o644)
	rev := g.ReviewPolicy()
	if err := g.TrustPolicy(rev.Path, rev.Sum); err != nil {
		t.Fatal(err)
	}
	if v := checkLine(t, g, "npm publish --tag x"); v.Allowed || v.Rule != rule.RuleDenies || !strings.Contains(v.Reason, "managed") {
		t.Errorf("npm publish: %s %s", v.Rule, v.Reason)
	}
	if v := checkLine(t, g, "wc -l a.txt"); v.Allowed || v.Outcome != rule.OutcomeAsk || v.Rule != rule.RuleAsks {
		t.Errorf("wc: %s %s", v.Rule, v.Reason)
	}
	for _, m := range []string{"npm publish *", "npm *", "Bash(npm:*)"} {
		err := g.AddRule(gate.RuleParams{Match: m, Decision: rule.OutcomeAllow, Scope: gate.ScopeUser})
		if err == nil || !strings.Contains(err.Error(), "managed policy") || !strings.Contains(err.Error(), "npm publish") {
			t.Errorf("allow %q: %v, want a refusal naming the managed rule", m, err)
		}
	}
	if err := g.AddRule(gate.RuleParams{Match: "npm test *", Decision: rule.OutcomeAllow, Scope: gate.ScopeUser}); err != nil {
		t.Errorf("an allow the managed layer does not forbid: %v", err)
	}
	if err := g.SetSettings(gate.Settings{SecretPatterns: []string{"!*.corp-key"}}); err == nil {
		t.Error("the person exempted a managed secret")
	}
	os.WriteFile(filepath.Join(root, "k.corp-key"), []byte("s\n"), 0o644)
	if v := checkLine(t, g, "cat k.corp-key"); v.Allowed || v.Rule != rule.SecretRead {
		t.Errorf("cat k.corp-key: %s %s", v.Rule, v.Reason)
	}
}

// TestManagedWritable: a managed file the person could have written
// (group- or world-writable, not root's, in a folder others may write, a
// file that does not parse) is no organisation's: every call is refused
// as managed-invalid, whatever the mode, and the state says why.
func TestManagedWritable(t *testing.T) {
	for _, c := range []struct {
		name string
		mess func(dir string) error
		want string
	}{
		{"world-writable file", func(d string) error { return os.Chmod(filepath.Join(d, managed.FileName), 0o666) }, "writable by its group or others"},
		{"group-writable file", func(d string) error { return os.Chmod(filepath.Join(d, managed.FileName), 0o664) }, "writable by its group or others"},
		{"the person's file", func(d string) error { return os.Chown(filepath.Join(d, managed.FileName), 1000, 1000) }, "not root"},
		{"the person's folder", func(d string) error { return os.Chown(d, 1000, 1000) }, "not root"},
		{"a writable folder above", func(d string) error { return os.Chmod(filepath.Dir(d), 0o777) }, "writable by its group or others"},
		{"unknown field", func(d string) error {
			return os.WriteFile(filepath.Join(d, managed.FileName), []byte(`{"mdoe": "enforce"}`), 0o644)
		}, "unknown field"},
		{"an allow rule", func(d string) error {
			return os.WriteFile(filepath.Join(d, managed.FileName), []byte(`{"rules": {"allow": ["curl *"]}}`), 0o644)
		}, "allow"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := managedDir(t, `{"mode": "warn"}`)
			if err := c.mess(dir); err != nil {
				t.Fatal(err)
			}
			g, _ := managedGate(t, gate.Options{Settings: gate.Settings{Mode: "off"}})
			v := checkLine(t, g, "ls")
			if v.Allowed || v.Rule != rule.ManagedInvalid || !strings.Contains(v.Reason, c.want) {
				t.Errorf("ls: allowed %v, %s: %s", v.Allowed, v.Rule, v.Reason)
			}
			if st := g.State(); st.Managed == nil || !strings.Contains(st.Managed.Error, c.want) || st.Mode != rule.Enforce {
				t.Errorf("state: mode %s, managed %+v", st.Mode, st.Managed)
			}
		})
	}
}

// TestManagedEnvOnlyAdds: ADMIT_MANAGED_DIR pointing at a folder with no
// managed file, or at a file that loosens, loosens nothing: it only adds
// a layer, and the stricter pin wins.
func TestManagedEnvOnlyAdds(t *testing.T) {
	a := filepath.Join(t.TempDir(), "a")
	b := filepath.Join(t.TempDir(), "b")
	for d, body := range map[string]string{a: `{"mode": "enforce", "effects": "read-only", "shell": "refuse"}`, b: `{"mode": "warn", "effects": "workspace-write", "shell": "analyze"}`} {
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, managed.FileName), []byte(body), 0o644)
	}
	for _, order := range [][]string{{a, b}, {b, a}} {
		l, err := managed.LoadDirs(order...)
		if err != nil {
			t.Fatal(err)
		}
		if l.Mode != rule.Enforce || l.Effects != "read-only" || l.Shell != "refuse" {
			t.Errorf("%v: %+v", order, l)
		}
	}
	if l, err := managed.LoadDirs(t.TempDir()); l != nil || err != nil {
		t.Errorf("an empty folder: %v %v", l, err)
	}
	t.Setenv(managed.EnvDir, "relative/dir")
	if _, err := managed.Load(os.Getenv); err == nil {
		t.Error("a relative ADMIT_MANAGED_DIR was taken")
	}
}
