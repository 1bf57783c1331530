package run

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestRootFoldersCannotBeMade: a run of code cannot make a protected
// folder the root does not have, cannot remove or replace the empty one
// it sees there, and still makes entries of its own in the root; after
// each run the root holds none of the empties. Without namespaces there
// are no empties: what the run makes is undone when it ends.
func TestRootFoldersCannotBeMade(t *testing.T) {
	for _, lc := range layouts[1:] {
		t.Run(lc.name, func(t *testing.T) {
			requireConfinement(t, lc)
			lc.use(t)
			e := newEnv(t)
			if err := os.Mkdir(filepath.Join(e.root, "src"), 0o755); err != nil {
				t.Fatal(err)
			}
			run := func(line string) Result { return Run(context.Background(), e.confined(lc, line)) }
			for _, line := range []string{
				"mkdir -p .vscode/x",
				"mkdir -p .github/workflows",
				"mkdir .admit/x",
				"rmdir .devcontainer",
				"mv -T src .claude",
			} {
				if !lc.confiner && line != "mkdir -p .vscode/x" {
					continue // what Landlock alone lets the run make is undone, below
				}
				r := run(line)
				switch {
				case lc.confiner && r.ExitCode == 0:
					t.Errorf("%s ran: %+v", line, r)
				case !lc.confiner && line == "mkdir -p .vscode/x" && !slices.Equal(r.Undone, []string{filepath.Join(e.root, ".vscode")}):
					t.Errorf("%s without namespaces: undone %v", line, r.Undone)
				}
				if entries := names(t, e.root); !slices.Equal(entries, []string{"src"}) {
					t.Fatalf("after %s the root holds %v", line, entries)
				}
			}
			if r := run("touch out.bin"); r.ExitCode != 0 || !exists(filepath.Join(e.root, "out.bin")) {
				t.Errorf("a new entry in the root (confiner %v): %+v", lc.confiner, r)
			}
		})
	}
}

// TestPlaceholdersNeverFollowLinks: a name the workspace made a link
// (to a folder that does not exist, outside) is not made through the
// link, and is kept read-only like any protected path that appeared.
func TestPlaceholdersNeverFollowLinks(t *testing.T) {
	e := newEnv(t)
	target := filepath.Join(e.outside, "target")
	if err := os.Symlink(target, filepath.Join(e.root, ".vscode")); err != nil {
		t.Fatal(err)
	}
	made, bind, err := makePlaceholders([]string{e.root}, []string{".vscode", ".github"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer removePlaceholders(made)
	if exists(target) {
		t.Fatal("the placeholder was made through the link")
	}
	if len(made) != 1 || made[0].name != ".github" {
		t.Errorf("made %+v", made)
	}
	if want := []string{filepath.Join(e.root, ".vscode"), filepath.Join(e.root, ".github")}; !slices.Equal(bind, want) {
		t.Errorf("bind %v, want %v", bind, want)
	}
}

// TestPlaceholdersLeaveThePersons: after the run an empty admit made is
// removed; one the person wrote into, or removed and made again as their
// own, stays; what existed before is never one.
func TestPlaceholdersLeaveThePersons(t *testing.T) {
	e := newEnv(t)
	if err := os.Mkdir(filepath.Join(e.root, ".idea"), 0o755); err != nil {
		t.Fatal(err)
	}
	existing := []string{filepath.Join(e.root, ".idea")}
	made, _, err := makePlaceholders([]string{e.root}, []string{".vscode", ".github", ".zed", ".idea"}, existing)
	if err != nil {
		t.Fatal(err)
	}
	if len(made) != 3 {
		t.Fatalf("made %+v", made)
	}
	// The person saves a setting into .vscode, and makes .zed again.
	if err := os.WriteFile(filepath.Join(e.root, ".vscode", "settings.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	zed := filepath.Join(e.root, ".zed")
	if err := os.Remove(zed); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(zed, 0o755); err != nil {
		t.Fatal(err)
	}
	left := removePlaceholders(made)
	if want := []string{filepath.Join(e.root, ".vscode"), zed}; !slices.Equal(left, want) {
		t.Errorf("left %v, want %v", left, want)
	}
	if got := names(t, e.root); !slices.Equal(got, []string{".idea", ".vscode", ".zed"}) {
		t.Errorf("the root holds %v", got)
	}
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}
