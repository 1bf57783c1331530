package command_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"admit/policy/command"
	"admit/policy/rule"
	"admit/workspace"
)

// fluxTree is a workspace with a git repository whose config includes
// ../.gitconfig, a virtualenv folder on PATH, and an observer that has
// seen everything.
func fluxTree(t *testing.T) (string, *command.Context) {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"docs/notes.txt": "n\n", "docs/guide.md": "g\n", ".git/HEAD": "ref: refs/heads/main\n",
		".git/config": "[include]\n\tpath = ../.gitconfig\n", ".venv/bin/.keep": "", "src/a.go": "package a\n"} {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{".git/objects", ".git/refs"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	roots, err := workspace.NewRoots(ws)
	if err != nil {
		t.Fatal(err)
	}
	return ws, &command.Context{Roots: roots.List(), Effects: command.WorkspaceWrite, FS: workspace.NewResolver(roots), Obs: everything{}}
}

// everything is an observer that has seen every file and folder.
type everything struct{}

func (everything) File(string) command.ObsState { return command.Observed }
func (everything) Dir(string) bool              { return true }

// Paths a background command of the session may still change refuse
// what depends on them, and only that.
func TestInFlux(t *testing.T) {
	ws, c := fluxTree(t)
	c.InFlux = []string{filepath.Join(ws, "docs/notes.txt"), filepath.Join(ws, ".gitconfig"), filepath.Join(ws, ".venv/bin/ls")}
	c.Path = []string{filepath.Join(ws, ".venv/bin"), "/usr/bin", "/bin"}
	p := command.New(nil)
	for _, line := range []string{
		"cat docs/notes.txt", "head -n 1 < docs/notes.txt", "echo x > docs/notes.txt", "rm docs/notes.txt",
		"grep -r x docs", "grep -r x .", "cat docs/*", "ls docs/n*", "cd docs && cat notes.txt",
		"git status", // the background command may write the file .git/config includes
		"ls src",     // ls is looked up in .venv/bin first, where ls may appear
	} {
		if d := p.Evaluate(line, ws, c); d.Allowed || d.Ask || d.Rule != rule.PathInFlux && d.Rule != rule.DynamicWord {
			t.Errorf("%s with docs/notes.txt, .gitconfig and .venv/bin/ls in flux: %s %s", line, d.Rule, d.Reason)
		}
	}
	c.Path = nil
	for _, line := range []string{"cat docs/guide.md", "ls docs", "stat src/a.go", "cat src/*.go"} {
		if d := p.Evaluate(line, ws, c); !d.Allowed {
			t.Errorf("%s does not depend on what is in flux: %s %s", line, d.Rule, d.Reason)
		}
	}
}

// A background line reports what it may write while it runs; a line
// that is not in the background reports nothing.
func TestBackgroundWrites(t *testing.T) {
	ws, c := fluxTree(t)
	p := command.New(nil)
	d := p.Evaluate("mv -f docs/guide.md docs/notes.txt", ws, c)
	if !d.Allowed || d.Background || d.BackgroundWrites != nil {
		t.Fatalf("in the foreground: %+v", d)
	}
	c.Background = true
	d = p.Evaluate("mv -f docs/guide.md docs/notes.txt", ws, c)
	want := []string{filepath.Join(ws, "docs/guide.md"), filepath.Join(ws, "docs/notes.txt")}
	slices.Sort(d.BackgroundWrites)
	if !d.Allowed || !d.Background || !slices.Equal(d.BackgroundWrites, want) {
		t.Fatalf("in the background: %v %q", d.Background, d.BackgroundWrites)
	}
	// A workspace program may write anywhere: the roots are in flux.
	if err := os.WriteFile(filepath.Join(ws, ".venv/bin/ls"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	c.Path = []string{filepath.Join(ws, ".venv/bin"), "/usr/bin"}
	d = p.Evaluate("ls", ws, c)
	if !d.Ask || !slices.Equal(d.BackgroundWrites, c.Roots) {
		t.Fatalf("a workspace program in the background: ask %v, %q", d.Ask, d.BackgroundWrites)
	}
}

// A wrapper that detaches its command (setsid without --wait, nohup)
// makes the line a background one, whatever the host does.
func TestDetachingWrappers(t *testing.T) {
	ws, c := fluxTree(t)
	tab, err := command.ParseTable([]byte(`{"setsid": {"wrapper": true, "options": {"-w --wait -f --fork": ""}}, "nohup": {"wrapper": true}}`))
	if err != nil {
		t.Fatal(err)
	}
	p := command.New(tab)
	for line, bg := range map[string]bool{"setsid touch docs/notes.txt": true, "nohup touch docs/notes.txt": true, "setsid -w touch docs/notes.txt": false, "touch docs/notes.txt": false} {
		d := p.Evaluate(line, ws, c)
		if !d.Allowed || d.Background != bg || bg && !slices.Equal(d.BackgroundWrites, []string{filepath.Join(ws, "docs/notes.txt")}) {
			t.Errorf("%s: allowed %v, background %v %q (%s)", line, d.Allowed, d.Background, d.BackgroundWrites, d.Reason)
		}
	}
}

// A wrapper that sets PATH for its command changes which program runs.
func TestWrapperSetsPath(t *testing.T) {
	ws, c := fluxTree(t)
	tab, err := command.ParseTable([]byte(`{"env": {"wrapper": true, "assignments": true}}`))
	if err != nil {
		t.Fatal(err)
	}
	p := command.New(tab)
	if d := p.Evaluate("env LC_ALL=C ls src", ws, c); !d.Allowed {
		t.Errorf("env LC_ALL=C ls: %s %s", d.Rule, d.Reason)
	}
	if d := p.Evaluate("env PATH=.venv/bin ls src", ws, c); d.Allowed || d.Rule != rule.HiddenCommand {
		t.Errorf("env PATH=.venv/bin ls: %s %s", d.Rule, d.Reason)
	}
}

// Code that runs in the background holds only the writes its line
// names; the gate widens that when admit itself runs the code.
func TestBackgroundCodeHoldsWhatItNames(t *testing.T) {
	ws, c := fluxTree(t)
	c.Background = true
	d := command.New(nil).Evaluate("go test ./... > test.log", ws, c)
	if !d.Ask || len(d.RunsCode) != 1 || len(d.BackgroundWrites) != 1 || d.BackgroundWrites[0] != ws+"/test.log" {
		t.Fatalf("go test in the background: ask %v (%s), runs code %q, writes %q", d.Ask, d.Rule, d.RunsCode, d.BackgroundWrites)
	}
}
