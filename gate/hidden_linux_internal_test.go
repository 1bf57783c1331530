//go:build linux

package gate

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"admit/policy"
	"admit/workspace/run"
)

// TestRunHidesTheDecisionsSecrets: a decision with Hidden (given here by
// Decide's amend, as the command policy will), run through the gate's run
// path, directly and by a handle, hides the file from the run (its
// secret is not in the output, the file is unchanged), and the run's
// result and its tape record say what was hidden.
func TestRunHidesTheDecisionsSecrets(t *testing.T) {
	g, ws := hidingGate(t, map[string]string{"docs/config.txt": "SECRET=x\n", "docs/notes.txt": "the SECRET is elsewhere\n"})
	secret := filepath.Join(ws, "docs", "config.txt")
	ctx := context.Background()
	hide := func(d *policy.Decision) { d.Hidden = []string{secret} }
	line := "grep -r SECRET docs"

	control, err := g.run(ctx, RunParams{Command: line, Cwd: ws}, RunOptions{Env: []string{"PATH=/usr/bin:/bin"}}, nil)
	if err != nil || !control.Ran || !strings.Contains(control.Stdout, "SECRET=x") {
		t.Fatalf("control: the secret is not read without Hidden: %+v, %v", control, err)
	}
	check := func(name string, r RunResult, err error) {
		t.Helper()
		if err != nil || !r.Ran || r.Err != nil || strings.Contains(r.Stdout, "SECRET=x") || !strings.Contains(r.Stdout, "the SECRET is elsewhere") {
			t.Fatalf("%s: %+v, %v", name, r, err)
		}
		if !slices.Equal(r.Hidden, []string{secret}) {
			t.Errorf("%s: the result says hidden %v", name, r.Hidden)
		}
	}
	r, err := g.run(ctx, RunParams{Command: line, Cwd: ws}, RunOptions{Env: []string{"PATH=/usr/bin:/bin"}}, hide)
	check("admit/run", r, err)

	v, err := g.Check(ctx, CheckParams{Tool: "Bash", Command: line, Cwd: ws, Handle: true})
	if err != nil || !v.Allowed || v.Handle == "" {
		t.Fatalf("no handle: %+v, %v", v, err)
	}
	r, err = g.run(ctx, RunParams{Handle: v.Handle}, RunOptions{Env: []string{"PATH=/usr/bin:/bin"}}, hide)
	check("admit run --handle", r, err)

	if b, err := os.ReadFile(secret); err != nil || string(b) != "SECRET=x\n" {
		t.Errorf("the hidden file changed: %q, %v", b, err)
	}
	recs, err := g.Tape(TapeParams{})
	if err != nil {
		t.Fatal(err)
	}
	var results, decisions int
	for _, rec := range recs {
		if rec.Command != line || !slices.Equal(rec.Hidden, []string{secret}) {
			continue
		}
		if rec.Rule == "run-result" {
			results++
		} else {
			decisions++
		}
	}
	if results != 2 || decisions < 2 {
		t.Errorf("the tape keeps hidden on %d run results and %d decisions, want 2 and 2 or more: %+v", results, decisions, recs)
	}
}

// TestWalkBesideASecret: the command policy's own decision, through the
// door a hook comes in by. A walk beside a .env is allowed with the .env
// hidden where the host lets admit run it (a handle), and the run that
// redeems the handle prints none of it; where admit cannot take the line
// (what only a shell runs, so no handle) or the host may ignore the
// rewrite, the host's shell would read it: asked, as cat .env is.
func TestWalkBesideASecret(t *testing.T) {
	g, ws := hidingGate(t, map[string]string{".env": "API_KEY=sk_live_hidden\n", "notes.txt": "API_KEY goes in .env\n"})
	ctx := context.Background()
	line := "grep -rn API_KEY ."

	v, err := g.Check(ctx, CheckParams{Tool: "Bash", Command: line, Cwd: ws, Handle: true})
	if err != nil || !v.Allowed || v.Handle == "" {
		t.Fatalf("a walk beside .env with a handle: %+v, %v", v, err)
	}
	r, err := g.Run(ctx, RunParams{Handle: v.Handle}, RunOptions{Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil || !r.Ran || strings.Contains(r.Stdout, "sk_live_hidden") || !strings.Contains(r.Stdout, "goes in .env") {
		t.Fatalf("the run of the handle: %+v, %v", r, err)
	}
	if !slices.Equal(r.Hidden, []string{filepath.Join(ws, ".env")}) {
		t.Errorf("the run hid %v", r.Hidden)
	}
	for _, p := range []CheckParams{
		{Tool: "Bash", Command: line, Cwd: ws},                                              // the host runs it
		{Tool: "Bash", Command: line, Cwd: ws, Handle: true, HostMayIgnore: true},           // the host may run it as it is
		{Tool: "Bash", Command: "for d in .; do " + line + "; done", Cwd: ws, Handle: true}, // only a shell runs the loop
	} {
		v, err := g.Check(ctx, p)
		if err != nil || v.Allowed || v.Rule != "secret-read" || v.Handle != "" {
			t.Errorf("%q (handle %v, host may ignore %v): allowed %v rule %s handle %q (%s), %v; want asked secret-read", p.Command, p.Handle, p.HostMayIgnore, v.Allowed, v.Rule, v.Handle, v.Reason, err)
		}
	}
}

// hidingGate is an enforcing gate over a workspace of files, with
// handles, on a machine whose runs can hide a file (else the test is
// skipped).
func hidingGate(t *testing.T, files map[string]string) (*Gate, string) {
	t.Helper()
	m := run.Probe()
	if m.LandlockABI < 1 || !m.Seccomp || !m.Namespaces {
		t.Skipf("no confinement with namespaces here (%s; %s)", m.Summary(), m.NamespacesNote)
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_STATE_HOME", filepath.Join(base, "state"))
	ws := filepath.Join(base, "ws")
	for name, content := range files {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g, err := Open(Options{Dirs: []string{ws}, Settings: Settings{Mode: "enforce", Effects: "workspace-write"}, Home: filepath.Join(base, "home"),
		Bounds: policy.DefaultBounds(), Headless: true, Trust: NewTrustStore(filepath.Join(base, "trust")),
		Rules: NewRuleStore(filepath.Join(base, "rules"), ws), Handles: NewHandleStore(filepath.Join(base, "handles")), TapePath: filepath.Join(base, "tape.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g, ws
}
