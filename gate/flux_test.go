package gate_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"admit/gate"
	"admit/policy"
	"admit/policy/rule"
	"admit/policy/rules"
)

// fluxWorld is a workspace with a file the agent read, a link to a file
// outside (which a background mv puts in the file's place), and a gate
// on a settable clock.
func fluxWorld(t *testing.T) (*gate.Gate, *clock, string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(base, "ws")
	for name, content := range map[string]string{"docs/notes.txt": "notes\n", "docs/guide.md": "guide\n", "../outside/secret": "secret\n", "src/a.go": "package a\n"} {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(base, "outside", "secret"), filepath.Join(ws, "evil")); err != nil {
		t.Fatal(err)
	}
	clk := &clock{now: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)}
	g, err := gate.Open(gate.Options{Dirs: []string{ws}, Settings: gate.Settings{Mode: "enforce", Effects: "workspace-write"}, Home: filepath.Join(base, "home"),
		Bounds: policy.DefaultBounds(), Headless: true, Trust: gate.NewTrustStore(filepath.Join(base, "trust")), Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	if _, err := g.Observe(gate.ObserveParams{Dirs: []string{ws, filepath.Join(ws, "docs")}}); err != nil {
		t.Fatal(err)
	}
	return g, clk, ws
}

// A background mv -f evil docs/notes.txt, then cat docs/notes.txt: the
// second is judged while the first may still run, so it is refused for
// as long as the background command may (its timeout), and allowed once
// that is over.
func TestBackgroundPathsInFlux(t *testing.T) {
	g, clk, ws := fluxWorld(t)
	bg := check(t, g, gate.CheckParams{Tool: "bash", Command: "mv -f evil docs/notes.txt", Background: true, TimeoutMs: 60_000})
	if !bg.Allowed {
		t.Fatalf("the background mv: %+v", bg)
	}
	refused := []gate.CheckParams{
		{Tool: "bash", Command: "cat docs/notes.txt"},
		{Tool: "bash", Command: "wc -l < docs/notes.txt"},
		{Tool: "bash", Command: "rm evil"},
		{Tool: "bash", Command: "grep -r x docs"},
		{Tool: "bash", Command: "cat docs/*"},
		{Tool: "bash", Command: "echo x >> docs/notes.txt"},
		{Tool: "Read", Args: json.RawMessage(`{"file_path":"docs/notes.txt"}`)},
		{Tool: "Grep", Args: json.RawMessage(`{"pattern":"x","path":"docs"}`)},
		{Tool: "Glob", Args: json.RawMessage(`{"pattern":"docs/*"}`)},
	}
	for _, p := range refused {
		if v := check(t, g, p); v.Allowed || v.Rule != "path-in-flux" {
			t.Errorf("%s %s%s during the background mv: %s %s", p.Tool, p.Command, p.Args, v.Rule, v.Reason)
		}
	}
	for _, line := range []string{"cat docs/guide.md", "ls docs", "cat src/a.go"} {
		if v := check(t, g, gate.CheckParams{Tool: "bash", Command: line}); !v.Allowed {
			t.Errorf("%s, which the background mv does not touch: %s %s", line, v.Rule, v.Reason)
		}
	}
	// Another session's calls are not its to wait for.
	other, err := g.OpenSession(context.Background(), gate.OpenSessionParams{CapsSpec: policy.CapsSpec{Label: "other", Allow: []string{"bash"}}})
	if err != nil {
		t.Fatal(err)
	}
	if v := check(t, g, gate.CheckParams{Session: other, Tool: "bash", Command: "cat docs/notes.txt"}); !v.Allowed {
		t.Errorf("another session: %s %s", v.Rule, v.Reason)
	}
	clk.add(61 * time.Second)
	if v := check(t, g, gate.CheckParams{Tool: "bash", Command: "cat docs/notes.txt"}); !v.Allowed {
		t.Errorf("after the background command's timeout: %s %s", v.Rule, v.Reason)
	}
	_ = ws
}

// The host's own flag in the tool's arguments counts (Claude Code's Bash
// run_in_background), a call without a timeout is held for the default,
// and the host can end the hold when it sees the command exit.
func TestBackgroundFlagAndEnd(t *testing.T) {
	g, clk, _ := fluxWorld(t)
	bg := check(t, g, gate.CheckParams{Tool: "Bash", Args: json.RawMessage(`{"command":"mv -f evil docs/notes.txt","run_in_background":true}`)})
	if !bg.Allowed {
		t.Fatalf("the background mv: %+v", bg)
	}
	clk.add(gate.DefaultBackgroundTimeout - time.Second)
	if v := check(t, g, gate.CheckParams{Tool: "bash", Command: "cat docs/notes.txt"}); v.Rule != "path-in-flux" {
		t.Errorf("within the default hold: %s %s", v.Rule, v.Reason)
	}
	if err := g.Ended("", bg.ID); err != nil {
		t.Fatal(err)
	}
	if v := check(t, g, gate.CheckParams{Tool: "bash", Command: "cat docs/notes.txt"}); !v.Allowed {
		t.Errorf("after the host reported the end: %s %s", v.Rule, v.Reason)
	}
	// A refused background call holds nothing.
	if v := check(t, g, gate.CheckParams{Tool: "bash", Command: "mv -f /etc/passwd docs/notes.txt", Background: true}); v.Allowed {
		t.Fatalf("a refused background mv: %+v", v)
	}
	if v := check(t, g, gate.CheckParams{Tool: "bash", Command: "cat docs/notes.txt"}); !v.Allowed {
		t.Errorf("after a refused background call: %s %s", v.Rule, v.Reason)
	}
	// A call that is not in the background holds nothing either.
	if v := check(t, g, gate.CheckParams{Tool: "bash", Command: "touch docs/guide.md"}); !v.Allowed {
		t.Fatalf("a foreground touch: %+v", v)
	}
	if v := check(t, g, gate.CheckParams{Tool: "bash", Command: "cat docs/guide.md"}); !v.Allowed {
		t.Errorf("after a foreground write: %s %s", v.Rule, v.Reason)
	}
}

// A dry run changes nothing the gate keeps: it holds no paths in flux,
// and it neither starts nor loses a terminal's folder.
func TestDryRunKeepsNothing(t *testing.T) {
	g, _, ws := fluxWorld(t)
	if v := check(t, g, gate.CheckParams{Tool: "bash", Command: "mv -f evil docs/notes.txt", Background: true, DryRun: true}); !v.Allowed {
		t.Fatalf("a dry run of the background mv: %+v", v)
	}
	if v := check(t, g, gate.CheckParams{Tool: "bash", Command: "cat docs/notes.txt"}); !v.Allowed {
		t.Errorf("after a dry run of a background mv: %s %s", v.Rule, v.Reason)
	}
	if v := check(t, g, gate.CheckParams{Tool: "bash", Command: "cd docs", Terminal: "t", Cwd: ws}); !v.Allowed {
		t.Fatalf("cd docs: %+v", v)
	}
	if v := check(t, g, gate.CheckParams{Tool: "bash", Command: "ls", Terminal: "t", Cwd: ws, DryRun: true}); v.Allowed {
		t.Errorf("a dry run from another folder than the tracked one: %+v", v)
	}
	if v := check(t, g, gate.CheckParams{Tool: "bash", Command: "cat notes.txt", Terminal: "t"}); !v.Allowed {
		t.Errorf("the terminal after a dry run: %s %s", v.Rule, v.Reason)
	}
}

// Code that runs in the background: when the host runs it unconfined (a
// person's rule let it), it holds only the files its line names, and the
// agent goes on working beside a dev server; when admit runs it
// confined, a symlink it leaves could lead a later read out, so the whole
// workspace is in flux until it ends.
func TestBackgroundCodeHold(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(base, "ws")
	if err := os.MkdirAll(filepath.Join(ws, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"Makefile", "docs/notes.txt"} {
		if err := os.WriteFile(filepath.Join(ws, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	store := gate.NewRuleStore(filepath.Join(base, "rules"), ws)
	if err := store.Add("user", rules.Rule{Match: "make serve", Decision: rule.OutcomeAllow}); err != nil {
		t.Fatal(err)
	}
	clk := &clock{now: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)}
	g, err := gate.Open(gate.Options{Dirs: []string{ws}, Settings: gate.Settings{Mode: "enforce", Effects: "workspace-write", ConfinedRuns: "allow"}, Home: filepath.Join(base, "home"),
		Bounds: policy.DefaultBounds(), Headless: true, Trust: gate.NewTrustStore(filepath.Join(base, "trust")), Rules: store, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	if _, err := g.Observe(gate.ObserveParams{Dirs: []string{ws, filepath.Join(ws, "docs")}}); err != nil {
		t.Fatal(err)
	}
	read := gate.CheckParams{Tool: "Read", Args: json.RawMessage(`{"file_path":"docs/notes.txt"}`)}

	bg := check(t, g, gate.CheckParams{Tool: "bash", Command: "make serve > serve.log", Background: true})
	if !bg.Allowed {
		t.Fatalf("make serve in the background, by the person's rule: %+v", bg)
	}
	if v := check(t, g, read); !v.Allowed {
		t.Errorf("a read beside the host's background make: %s %s", v.Rule, v.Reason)
	}
	if v := check(t, g, gate.CheckParams{Tool: "bash", Command: "tail serve.log"}); v.Allowed || v.Rule != "path-in-flux" {
		t.Errorf("the log the background make writes: %s %s", v.Rule, v.Reason)
	}

	confined := check(t, g, gate.CheckParams{Tool: "admit.run", Command: "make serve", Background: true})
	if !confined.Allowed {
		t.Fatalf("make serve run confined in the background: %+v", confined)
	}
	if v := check(t, g, read); v.Allowed || v.Rule != "path-in-flux" {
		t.Errorf("a read while confined code runs in the background: %s %s", v.Rule, v.Reason)
	}
	if err := g.Ended("", confined.ID); err != nil {
		t.Fatal(err)
	}
	if err := g.Ended("", bg.ID); err != nil {
		t.Fatal(err)
	}
	if v := check(t, g, read); !v.Allowed {
		t.Errorf("a read once the confined run ended: %s %s", v.Rule, v.Reason)
	}
}
