package run

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestUndoKeepsAcrossFileSystems: where admit's state folder is on
// another file system than the workspace (a rename cannot move there),
// what the run's end takes out of the workspace is copied there, links
// as links (never followed), and removed from the workspace; what is
// larger than undoKeptBytes is removed and not kept.
func TestUndoKeepsAcrossFileSystems(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make here")
	}
	lc := layouts[1]
	requireConfinement(t, lc)
	e := newEnv(t)
	state, err := os.MkdirTemp("/dev/shm", "admit-state-")
	if err != nil {
		t.Skip("no /dev/shm here")
	}
	t.Cleanup(func() { os.RemoveAll(state) })
	var a, b unix.Stat_t
	if unix.Stat(state, &a) != nil || unix.Stat(e.root, &b) != nil || a.Dev == b.Dev {
		t.Skip("/dev/shm is the workspace's file system here")
	}
	e.state = state
	if err := os.Mkdir(filepath.Join(e.root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.file(t, "Makefile", "plant:\n\techo x > .envrc\n\tln -s /etc/passwd .mcp.json\n\tmkdir -p sub/.admit && echo y > sub/.admit/policy.json\n")
	r := Run(context.Background(), e.confined(lc, "make plant"))
	if r.ExitCode != 0 {
		t.Fatalf("make plant: %+v", r)
	}
	undone := []string{filepath.Join(e.root, ".envrc"), filepath.Join(e.root, ".mcp.json"), filepath.Join(e.root, "sub", ".admit")}
	if !slices.Equal(r.Undone, undone) || !within(r.UndoneTo, []string{state}) {
		t.Fatalf("undone %v to %q", r.Undone, r.UndoneTo)
	}
	for _, p := range undone {
		if exists(p) {
			t.Errorf("%s is there after the run", p)
		}
	}
	if data, err := os.ReadFile(filepath.Join(r.UndoneTo, "0-.envrc")); err != nil || string(data) != "x\n" {
		t.Errorf("kept .envrc: %q %v", data, err)
	}
	if target, err := os.Readlink(filepath.Join(r.UndoneTo, "1-.mcp.json")); err != nil || target != "/etc/passwd" {
		t.Errorf("kept .mcp.json: %q %v", target, err)
	}
	if data, err := os.ReadFile(filepath.Join(r.UndoneTo, "2-.admit", "policy.json")); err != nil || string(data) != "y\n" {
		t.Errorf("kept sub/.admit: %q %v", data, err)
	}

	// Past the bound the copy fails (takeOut then removes it, and the
	// path all the same).
	big := filepath.Join(e.root, "big")
	if err := os.Mkdir(big, 0o755); err != nil {
		t.Fatal(err)
	}
	e.file(t, "big/a", "12345")
	e.file(t, "big/b", "67890")
	budget := int64(7)
	dest := filepath.Join(state, "big")
	if err := copyTree(big, dest, &budget); err == nil {
		t.Errorf("a copy past its bound was made")
	}
}

// TestStateInsideTheWorkspaceUnused: a state folder inside the workspace
// (a person whose workspace is their home) is the run's to write, so it
// holds no record of empties and nothing undone: what the run made at a
// protected path is removed, and nothing is made there.
func TestStateInsideTheWorkspaceUnused(t *testing.T) {
	lc := layouts[1]
	requireConfinement(t, lc)
	e := newEnv(t)
	e.state = filepath.Join(e.root, "state", "admit")
	if err := os.Mkdir(filepath.Join(e.root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := Run(context.Background(), e.confined(lc, helperName+" write .envrc"))
	envrc := filepath.Join(e.root, ".envrc")
	if r.ExitCode != 0 || !slices.Equal(r.Undone, []string{envrc}) || r.UndoneTo != "" {
		t.Fatalf("undone %v to %q: %+v", r.Undone, r.UndoneTo, r)
	}
	if exists(envrc) || exists(filepath.Join(e.root, "state")) {
		t.Errorf("the root holds %v", names(t, e.root))
	}
}

// TestUndoNeverThroughALink: between the walk after the run and taking a
// path out, another run going on in the same workspace puts a link in
// place of the folder above it (sub -> a project of the person's outside);
// what the link names is not taken, and nothing is.
func TestUndoNeverThroughALink(t *testing.T) {
	e := newEnv(t)
	other := filepath.Join(e.outside, "project")
	for _, d := range []string{filepath.Join(other, ".admit"), filepath.Join(e.root, "sub", ".admit")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(other, ".admit", "policy.json"), []byte(`{"deny":["*"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	made := filepath.Join(e.root, "sub", ".admit")
	// The swap.
	if err := os.RemoveAll(filepath.Join(e.root, "sub")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, filepath.Join(e.root, "sub")); err != nil {
		t.Fatal(err)
	}
	u := undo{roots: []string{e.root}}
	for _, dir := range []string{"", filepath.Join(e.state, "undone")} {
		if err := os.MkdirAll(e.state, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := u.takeOut(made, dir, 0); err == nil {
			t.Errorf("taken out through the link (kept in %q)", dir)
		}
		if data, err := os.ReadFile(filepath.Join(other, ".admit", "policy.json")); err != nil || string(data) != `{"deny":["*"]}` {
			t.Fatalf("the person's other project: %q %v", data, err)
		}
	}
}

// TestUndoLeavesThePersonsCheckout: while a run of code goes on, the
// person checks out a branch that has a .gitattributes and a
// sub/.admit/policy.json: their git wrote the index (the run cannot), and
// those paths are what it holds, so they stay; the .envrc the run made is
// undone. A tracked file the run puts back, byte for byte, while the index
// stays as it was, is undone all the same.
func TestUndoLeavesThePersonsCheckout(t *testing.T) {
	for _, tool := range []string{"make", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip("no " + tool + " here")
		}
	}
	lc := layouts[1]
	requireConfinement(t, lc)
	e := newEnv(t)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", e.root, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	e.file(t, "Makefile", "plant:\n\ttouch sub/ready\n\twhile ! test -e sub/go; do sleep 0.01; done\n\techo x > .envrc\nback:\n\tprintf '* text\\n' > .gitattributes\n")
	e.file(t, "sub/keep", "")
	git("add", ".")
	git("commit", "-qm", "main")
	git("checkout", "-q", "-b", "other")
	e.file(t, ".gitattributes", "* text\n")
	e.file(t, "sub/.admit/policy.json", `{"deny":["*"]}`)
	git("add", ".")
	git("commit", "-qm", "other")
	git("checkout", "-q", "main")
	if exists(filepath.Join(e.root, ".gitattributes")) {
		t.Fatal("main has .gitattributes")
	}

	done := make(chan Result, 1)
	go func() { done <- Run(context.Background(), e.confined(lc, "make plant")) }()
	waitFor(t, "the run", 20*time.Second, func() bool { return exists(filepath.Join(e.root, "sub", "ready")) })
	git("checkout", "-q", "other")
	if err := os.WriteFile(filepath.Join(e.root, "sub", "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.ExitCode != 0 {
		t.Fatalf("make plant: %+v", r)
	}
	if want := []string{filepath.Join(e.root, ".envrc")}; !slices.Equal(r.Undone, want) {
		t.Errorf("undone %v, want %v", r.Undone, want)
	}
	for _, p := range []string{".gitattributes", "sub/.admit/policy.json"} {
		if !exists(filepath.Join(e.root, p)) {
			t.Errorf("the person's checkout lost %s", p)
		}
	}

	// The person removes .gitattributes (not staged); the run puts it back
	// as the index holds it: the index did not change, so it is undone.
	if err := os.Remove(filepath.Join(e.root, ".gitattributes")); err != nil {
		t.Fatal(err)
	}
	r = Run(context.Background(), e.confined(lc, "make back"))
	if want := []string{filepath.Join(e.root, ".gitattributes")}; r.ExitCode != 0 || !slices.Equal(r.Undone, want) {
		t.Errorf("make back: exit %d, undone %v, want %v", r.ExitCode, r.Undone, want)
	}
}
