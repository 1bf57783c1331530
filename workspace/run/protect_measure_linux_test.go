package run

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestProtectedMadeDuringRun measures what a run of code that makes
// protected paths leaves on the host, during the run and after it. The
// program makes each path, then waits, in the run, until the test has
// looked at the host (a handshake through the workspace, not a timing
// guess), so a path the kernel let it make is seen while it exists.
//
// What it shows, and what remains (issue 18): with namespaces, a
// protected root folder (.vscode) is a read-only empty and no file
// appears in it; a protected root file (.envrc) and a protected name at
// any depth below a granted folder (sub/.admit/policy.json) CAN be made
// and exist on the host until the run ends, when they are undone and
// named in Result.Undone. Landlock grants a folder with all beneath it,
// so nothing closes that without a mount point on the person's disk.
func TestProtectedMadeDuringRun(t *testing.T) {
	for _, lc := range layouts[1:] {
		t.Run(lc.name, func(t *testing.T) {
			requireConfinement(t, lc)
			lc.use(t)
			e := newEnv(t)
			if err := os.Mkdir(filepath.Join(e.root, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			targets := []string{".vscode/tasks.json", "sub/.admit/policy.json", ".envrc"}
			line := helperName + " make-wait " + strings.Join(targets, " ")
			done := make(chan Result, 1)
			go func() { done <- Run(context.Background(), e.confined(lc, line)) }()
			var during []string
			looked := false
			for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && !looked; {
				select {
				case r := <-done:
					t.Fatalf("the run ended before it wrote: %+v", r)
				default:
				}
				if exists(filepath.Join(e.root, "written")) {
					for _, rel := range targets {
						if _, err := os.Lstat(filepath.Join(e.root, rel)); err == nil {
							during = append(during, rel)
						}
					}
					os.WriteFile(filepath.Join(e.root, "seen"), nil, 0o644)
					looked = true
				}
				time.Sleep(5 * time.Millisecond)
			}
			if !looked {
				t.Fatal("the run never wrote")
			}
			r := <-done
			t.Logf("%s: %s", lc.name, r.Stdout)
			t.Logf("%s: on the host during the run %v; undone %v; not undone %v", lc.name, during, r.Undone, r.NotUndone)
			if slices.Contains(during, ".vscode/tasks.json") && lc.confiner {
				t.Errorf("with namespaces .vscode/tasks.json was made on the host")
			}
			for _, rel := range targets {
				if exists(filepath.Join(e.root, rel)) {
					t.Errorf("%s is on the host after the run", rel)
				}
				if slices.Contains(during, rel) && !undoneCovers(r.Undone, filepath.Join(e.root, rel)) {
					t.Errorf("%s was made but the result does not name it undone: %v", rel, r.Undone)
				}
			}
		})
	}
}

// undoneCovers reports whether p or a folder above it is in undone.
func undoneCovers(undone []string, p string) bool {
	for ; p != "/" && p != "."; p = filepath.Dir(p) {
		if slices.Contains(undone, p) {
			return true
		}
	}
	return false
}

// TestNestedRepoMeasured measures what a run of code can do to a nested
// repository's (a submodule's checkout) hooks and config that exist,
// and to the git folder a .git file names elsewhere in the workspace.
func TestNestedRepoMeasured(t *testing.T) {
	lc := layouts[1]
	requireConfinement(t, lc)
	lc.use(t)
	e := newEnv(t)
	e.file(t, "sub/.git/config", "[core]\n")
	if err := os.MkdirAll(filepath.Join(e.root, "sub/.git/hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	// other: a checkout whose .git is a file naming its git folder
	// elsewhere in the workspace (a worktree or an absorbed submodule's).
	e.file(t, "other/.git", "gitdir: ../gitdirs/other\n")
	e.file(t, "gitdirs/other/HEAD", "ref: refs/heads/main\n")
	e.file(t, "gitdirs/other/config", "[core]\n")
	targets := []string{"sub/.git/hooks/pre-commit", "sub/.git/config", "new/.git/hooks/pre-commit", "new/.git/config", "gitdirs/other/config", "gitdirs/other/hooks/pre-commit"}
	r := Run(context.Background(), e.confined(lc, helperName+" make "+strings.Join(targets, " ")))
	t.Logf("%s; undone %v; not undone %v", r.Stdout, r.Undone, r.NotUndone)
	for _, rel := range targets {
		if b, err := os.ReadFile(filepath.Join(e.root, rel)); err == nil && string(b) == "{}" && !undoneCovers(r.Undone, filepath.Join(e.root, rel)) {
			t.Errorf("%s was written by the run", rel)
		}
	}
}
