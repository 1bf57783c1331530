//go:build linux

package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// hiddenLayouts are the layouts a run that hides a file takes: every one
// with namespaces (a judged command moves into the confiner for it).
var hiddenLayouts = []layoutCase{
	{name: "judged", confiner: true},
	{name: "code", code: true, confiner: true},
	{name: "code-userns", code: true, userNS: true, confiner: true},
}

// TestHiddenFileReadsEmpty: with .env hidden, neither a program (cat,
// grep -r), nor a redirection of the run's own, reads its secret; a
// write, a removal and a rename of it fail; the file is as it was after.
// A control run without Hidden does read it.
func TestHiddenFileReadsEmpty(t *testing.T) {
	for _, lc := range hiddenLayouts {
		t.Run(lc.name, func(t *testing.T) {
			requireConfinement(t, lc)
			lc.use(t)
			e := newEnv(t)
			secret := e.file(t, ".env", "SECRET=x\n")
			e.file(t, "notes.txt", "the SECRET is elsewhere\n")
			run := func(line string, hidden bool) Result {
				s := e.confined(lc, line)
				s.Writes = []string{e.root} // every write of the root granted: only the hiding stands
				if hidden {
					s.Hidden = []string{secret}
				}
				return Run(context.Background(), s)
			}
			if r := run("cat .env", false); !strings.Contains(r.Stdout, "SECRET=x") {
				t.Fatalf("control: the secret is not read without Hidden: %+v", r)
			}
			r := run("cat .env; grep -r SECRET . | cat .env -", true)
			if r.Err != nil || strings.Contains(r.Stdout, "SECRET=x") || !strings.Contains(r.Stdout, "the SECRET is elsewhere") {
				t.Fatalf("hidden: %+v", r)
			}
			if !slices.Equal(r.Hidden, []string{secret}) || !slices.ContainsFunc(r.Walls, func(w Wall) bool { return w.Name == WallHidden && w.InForce() }) {
				t.Errorf("the result does not say what was hidden: hidden %v, walls %v", r.Hidden, r.Walls)
			}
			if r := run("cat < .env", true); r.ExitCode != 0 || r.Stdout != "" {
				t.Errorf("a redirection read the hidden file: %+v", r)
			}
			if r := run("echo leaked > .env", true); r.ExitCode == 0 || !errors.Is(r.Err, ErrRefused) {
				t.Errorf("a redirection wrote the hidden file: %+v", r)
			}
			for _, line := range []string{
				"admit-helper write %s",
				"chmod 0666 %s",
				"ln %s linked",
				"mv %s moved",
				"rm -f %s",
			} {
				// The control, on a file not hidden, does it: only the
				// hiding stops it on .env.
				e.file(t, "ctl.env", "SECRET=x\n")
				if r := run(fmt.Sprintf(line, "ctl.env"), false); r.ExitCode != 0 {
					t.Fatalf("control %s: %+v", line, r)
				}
				os.Remove(filepath.Join(e.root, "linked"))
				os.Remove(filepath.Join(e.root, "moved"))
				if r := run(fmt.Sprintf(line, ".env"), true); r.ExitCode == 0 {
					t.Errorf("%s succeeded on the hidden file: %+v", line, r)
				}
			}
			if b, err := os.ReadFile(secret); err != nil || string(b) != "SECRET=x\n" {
				t.Errorf("the hidden file changed: %q, %v", b, err)
			}
			for _, p := range []string{"moved", "linked"} {
				if exists(filepath.Join(e.root, p)) {
					t.Errorf("%s exists", p)
				}
			}
		})
	}
}

// TestHiddenFailsClosed: a link or a folder at a hidden path, a
// hard-linked file, a hidden file the run may write, a run unconfined or
// on a machine without namespaces (the person accepting weaker walls
// included) are refused before anything runs; a path that does not
// exist has nothing to hide and runs.
func TestHiddenFailsClosed(t *testing.T) {
	lc := hiddenLayouts[0]
	requireConfinement(t, lc)
	lc.use(t)
	e := newEnv(t)
	outside := filepath.Join(e.outside, "secret")
	if err := os.WriteFile(outside, []byte("SECRET=x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.file(t, "real.env", "SECRET=x\n")
	if err := os.Symlink(outside, filepath.Join(e.root, "link.env")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.env", filepath.Join(e.root, "rel.env")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(e.root, "dir.env"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.file(t, "hard.env", "SECRET=x\n")
	if err := os.Link(filepath.Join(e.root, "hard.env"), filepath.Join(e.root, "hard2")); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(e.root, "ran")
	try := func(name string, hidden string, edit func(*Spec)) {
		t.Helper()
		s := e.confined(lc, "admit-helper write ran")
		s.Writes = []string{marker}
		s.Hidden = []string{filepath.Join(e.root, hidden)}
		if edit != nil {
			edit(&s)
		}
		r := Run(context.Background(), s)
		var he *HiddenError
		if !errors.As(r.Err, &he) || !errors.Is(r.Err, ErrRefused) || r.ExitCode != 126 || !strings.Contains(r.Err.Error(), hidden) {
			t.Errorf("%s: not refused: %+v", name, r)
		}
		if exists(marker) {
			t.Fatalf("%s: the run started", name)
		}
	}
	try("a link out", "link.env", nil)
	try("a link in", "rel.env", nil)
	try("a folder", "dir.env", nil)
	try("a hard-linked file", "hard.env", nil)
	try("a file the run writes", "real.env", func(s *Spec) { s.Writes = append(s.Writes, filepath.Join(e.root, "real.env")) })
	try("unconfined", "real.env", func(s *Spec) { s.Confine = false })
	t.Run("no-namespaces", func(t *testing.T) {
		withoutNamespaces = true
		defer func() { withoutNamespaces = false }()
		try("no namespaces, weaker accepted", "real.env", func(s *Spec) { s.AcceptWeaker = true })
	})

	s := e.confined(lc, "admit-helper write ran")
	s.Writes = []string{e.root}
	s.Hidden = []string{filepath.Join(e.root, "missing.env")}
	if r := Run(context.Background(), s); r.ExitCode != 0 || len(r.Hidden) != 0 {
		t.Errorf("a missing hidden path: %+v", r)
	}
}
