package run

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"admit/policy/command"
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
	made, bind, err := makePlaceholders([]string{e.root}, []string{".vscode", ".github"}, nil, nil)
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
// removed; one the person wrote into stays; one removed and made again
// is not admit's (it is told apart by its birth time, though its inode
// number may be the same) and is left for the undo to judge; what
// existed before is never one.
func TestPlaceholdersLeaveThePersons(t *testing.T) {
	e := newEnv(t)
	if err := os.Mkdir(filepath.Join(e.root, ".idea"), 0o755); err != nil {
		t.Fatal(err)
	}
	existing := []string{filepath.Join(e.root, ".idea")}
	made, _, err := makePlaceholders([]string{e.root}, []string{".vscode", ".github", ".zed", ".idea"}, existing, nil)
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
	// The file system's clock moves in ticks (a few ms): a folder made
	// again within the tick its first was born in, with the same inode
	// number, cannot be told apart, so it is made again until its tick
	// is a later one.
	zed := filepath.Join(e.root, ".zed")
	for deadline := time.Now().Add(2 * time.Second); ; {
		if err := os.Remove(zed); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(zed, 0o755); err != nil {
			t.Fatal(err)
		}
		if id := folderIDOf(t, zed); id != made[2].id || noBirthTime(t, e.root) || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	kept, replaced := removePlaceholders(made)
	if want := []string{filepath.Join(e.root, ".vscode")}; !slices.Equal(kept, want) {
		t.Errorf("kept %v, want %v", kept, want)
	}
	if want := []string{zed}; !slices.Equal(replaced, want) && !(noBirthTime(t, e.root) && len(replaced) == 0) {
		t.Errorf("replaced %v, want %v", replaced, want)
	}
	if got := names(t, e.root); !slices.Equal(got, []string{".idea", ".vscode", ".zed"}) && !noBirthTime(t, e.root) {
		t.Errorf("the root holds %v", got)
	}
}

// folderIDOf is the identity removePlaceholders compares, of path.
func folderIDOf(t *testing.T, path string) folderID {
	t.Helper()
	id, err := idAt(unix.AT_FDCWD, path)
	if err != nil {
		t.Fatal(err)
	}
	return id
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

// TestPlaceholderRemovedFromOutside: the person removes an empty while
// the run goes on (git clean -fd), which detaches it inside the run too;
// what the run then makes in its place is undone when it ends.
func TestPlaceholderRemovedFromOutside(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make here")
	}
	lc := layouts[1]
	requireConfinement(t, lc)
	e := newEnv(t)
	e.file(t, "Makefile", "plant:\n\ttouch ready\n\twhile ! test -e go; do sleep 0.01; done\n\tmkdir .zed && touch .zed/settings.json\n")
	zed := filepath.Join(e.root, ".zed")
	done := make(chan Result, 1)
	go func() { done <- Run(context.Background(), e.confined(lc, "make plant")) }()
	for !exists(filepath.Join(e.root, "ready")) {
		select {
		case r := <-done:
			t.Fatalf("the run ended first: %+v", r)
		case <-time.After(10 * time.Millisecond):
		}
	}
	if err := os.Remove(zed); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.root, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.ExitCode != 0 {
		t.Fatalf("make plant: %+v", r)
	}
	if exists(zed) || !slices.Equal(r.Undone, []string{zed}) {
		t.Errorf("what the run made at .zed: there %v, undone %v", exists(zed), r.Undone)
	}
}

// noBirthTime: the file system under dir keeps no birth time, so a
// folder made again with the same inode number cannot be told apart.
func noBirthTime(t *testing.T, dir string) bool {
	t.Helper()
	var st unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, dir, 0, unix.STATX_BTIME, &st); err != nil {
		t.Fatal(err)
	}
	return st.Mask&unix.STATX_BTIME == 0
}

// BenchmarkPlaceholders is what the empties cost a run of code on the
// file system of TMPDIR: every protected folder a root can have, made
// and removed (a root without any of them).
func BenchmarkPlaceholders(b *testing.B) {
	root := b.TempDir()
	folders, _ := command.RootNames()
	for b.Loop() {
		made, _, err := makePlaceholders([]string{root}, folders, nil, nil)
		if err != nil || len(made) != len(folders) {
			b.Fatalf("%v: %d made", err, len(made))
		}
		removePlaceholders(made)
	}
}

// TestProtectedLinksKept: a protected name at a root that is a link is
// kept as it is, not followed. One that points nowhere (.vscode ->
// /nonexistent) does not keep a run of code from starting; one the run
// removes to put a folder in its place cannot be removed (busy), and
// what it points to stays as it was; what a dangling one names inside
// the workspace, made through it by the run, is undone.
func TestProtectedLinksKept(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make here")
	}
	for _, lc := range layouts[1:] {
		t.Run(lc.name, func(t *testing.T) {
			requireConfinement(t, lc)
			lc.use(t)
			e := newEnv(t)
			for _, d := range []string{"vs", "sub"} {
				if err := os.Mkdir(filepath.Join(e.root, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for link, target := range map[string]string{".vscode": "/nonexistent", ".github": "vs", ".zed": "sub/x"} {
				if err := os.Symlink(target, filepath.Join(e.root, link)); err != nil {
					t.Fatal(err)
				}
			}
			e.file(t, "Makefile", "replace:\n\trm -f .github; mkdir -p .github/workflows; touch .github/workflows/x.yml .github/workflows/y.yml\n"+
				"through:\n\tmkdir -p sub/x && echo '{}' > .zed/settings.json\n")
			run := func(line string) Result { return Run(context.Background(), e.confined(lc, line)) }
			if r := run(helperName + " write sub/out.bin"); r.ExitCode != 0 || !exists(filepath.Join(e.root, "sub", "out.bin")) {
				t.Fatalf("a run beside a dangling protected link: %+v", r)
			}
			r := run("make replace")
			if lc.confiner && r.ExitCode == 0 {
				t.Errorf("make replace ran: %+v", r)
			}
			if target, err := os.Readlink(filepath.Join(e.root, ".github")); err != nil || target != "vs" {
				t.Errorf(".github after the run: %q %v (undone %v)", target, err, r.Undone)
			}
			if got := names(t, filepath.Join(e.root, "vs")); len(got) != 0 {
				t.Errorf("what .github points to holds %v", got)
			}
			r = run("make through")
			if r.ExitCode != 0 {
				t.Fatalf("make through: %+v", r)
			}
			x := filepath.Join(e.root, "sub", "x")
			if exists(x) || !slices.Equal(r.Undone, []string{x}) {
				t.Errorf("what .zed names: there %v, undone %v", exists(x), r.Undone)
			}
			if target, err := os.Readlink(filepath.Join(e.root, ".zed")); err != nil || target != "sub/x" {
				t.Errorf(".zed after the run: %q %v", target, err)
			}
		})
	}
}

// TestKilledAdmitsEmptiesRemoved: an admit killed (SIGKILL) during a run
// of code leaves its empties in the root; the next run removes them from
// the record it left outside the workspace, but not one the person wrote
// into, nor one the person made again in its place, and never a folder
// that was there before.
func TestKilledAdmitsEmptiesRemoved(t *testing.T) {
	lc := layouts[1]
	requireConfinement(t, lc)
	e := newEnv(t)
	for _, d := range []string{"sub", ".idea"} {
		if err := os.Mkdir(filepath.Join(e.root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ready := filepath.Join(e.root, "sub", "ready")
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledAdmitRun$")
	cmd.Env = append(os.Environ(), "ADMIT_TEST_KILLED_ROOT="+e.root, "ADMIT_TEST_KILLED_STATE="+e.state, "ADMIT_TEST_KILLED_PATH="+e.path,
		// The killed process cannot remove its own temporary folders: it
		// gets this test's.
		"ADMIT_TEST_KILLED_OUTSIDE="+t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the killed admit's run", 20*time.Second, func() bool { return exists(ready) })
	cmd.Process.Kill()
	cmd.Wait()
	left := names(t, e.root)
	if !slices.Contains(left, ".vscode") || !slices.Contains(left, ".zed") {
		t.Fatalf("the killed admit left %v", left)
	}
	// The person writes into one and makes another again, in a later
	// tick of the file system's clock.
	if err := os.WriteFile(filepath.Join(e.root, ".github", "CODEOWNERS"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	zed := filepath.Join(e.root, ".zed")
	if err := os.Remove(zed); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	if err := os.Mkdir(zed, 0o755); err != nil {
		t.Fatal(err)
	}
	if r := Run(context.Background(), e.confined(lc, helperName+" write sub/out")); r.ExitCode != 0 {
		t.Fatalf("the next run: %+v", r)
	}
	want := []string{".github", ".idea", ".zed", "sub"}
	if got := names(t, e.root); !slices.Equal(got, want) && !noBirthTime(t, e.root) {
		t.Errorf("after the next run the root holds %v, want %v", got, want)
	}
	if _, err := os.Lstat(filepath.Join(e.state, "placeholders")); !os.IsNotExist(err) {
		t.Errorf("the records' folder is left (%v): %v", err, names(t, filepath.Join(e.state, "placeholders")))
	}
}

// TestKilledAdmitRun is the admit TestKilledAdmitsEmptiesRemoved kills:
// a run of code that waits.
func TestKilledAdmitRun(t *testing.T) {
	root := os.Getenv("ADMIT_TEST_KILLED_ROOT")
	if root == "" {
		t.Skip("run by TestKilledAdmitsEmptiesRemoved")
	}
	e := &env{root: root, state: os.Getenv("ADMIT_TEST_KILLED_STATE"), path: os.Getenv("ADMIT_TEST_KILLED_PATH"), outside: os.Getenv("ADMIT_TEST_KILLED_OUTSIDE")}
	r := Run(context.Background(), e.confined(layouts[1], helperName+" sleep sub/ready"))
	t.Fatalf("the run ended: %+v", r)
}

// TestLedgerOfALivingRunKept: a record another run holds (this process
// or another) is not swept: its empties stay until it removes them; a
// record that names a folder born before it (nothing admit made) leaves
// that folder, empty as it is.
func TestLedgerOfALivingRunKept(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join(e.state, "placeholders")
	old := filepath.Join(e.root, ".idea")
	if err := os.Mkdir(old, 0o755); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	living, err := openLedger(dir)
	if err != nil {
		t.Fatal(err)
	}
	made, _, err := makePlaceholders([]string{e.root}, []string{".vscode"}, nil, living)
	if err != nil || len(made) != 1 {
		t.Fatalf("made %v: %v", made, err)
	}
	dead, err := openLedger(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := dead.write([]placeholder{{root: e.root, name: ".idea"}}); err != nil {
		t.Fatal(err)
	}
	dead.f.Close() // as a killed admit's: nobody holds it
	next, err := openLedger(dir)
	if err != nil {
		t.Fatal(err)
	}
	next.close()
	if !exists(filepath.Join(e.root, ".vscode")) || !exists(old) {
		t.Errorf("the sweep removed what it must not: the root holds %v", names(t, e.root))
	}
	if got := names(t, dir); len(got) != 1 {
		t.Errorf("records %v, want the living one", got)
	}
	removePlaceholders(made)
	living.close()
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Errorf("the records' folder is left with the last record closed: %v", err)
	}
}

// TestConcurrentRunsEmpties: two runs of code in one workspace (an agent
// runs tool calls side by side). The second finds the first's empties and
// keeps them read-only; when the first ends and removes them, they are
// gone from the second's view too, and what the second then makes in
// their place is undone when it ends, though its walk found the name.
func TestConcurrentRunsEmpties(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make here")
	}
	lc := layouts[1]
	requireConfinement(t, lc)
	e := newEnv(t)
	if err := os.Mkdir(filepath.Join(e.root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.file(t, "Makefile", "plant:\n\ttouch sub/ready-b\n\twhile ! test -e sub/go; do sleep 0.01; done\n\tmkdir -p .vscode && echo x > .vscode/tasks.json\n")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := make(chan Result, 1)
	go func() { first <- Run(ctx, e.confined(lc, helperName+" sleep sub/ready-a")) }()
	waitFor(t, "the first run", 20*time.Second, func() bool { return exists(filepath.Join(e.root, "sub", "ready-a")) })
	second := make(chan Result, 1)
	go func() { second <- Run(context.Background(), e.confined(lc, "make plant")) }()
	waitFor(t, "the second run", 20*time.Second, func() bool { return exists(filepath.Join(e.root, "sub", "ready-b")) })
	cancel()
	<-first
	if err := os.WriteFile(filepath.Join(e.root, "sub", "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := <-second
	vscode := filepath.Join(e.root, ".vscode")
	if exists(filepath.Join(vscode, "tasks.json")) {
		t.Errorf("the second run left .vscode/tasks.json (exit %d, undone %v, stderr %s)", r.ExitCode, r.Undone, r.Stderr)
	}
	if r.ExitCode == 0 && !slices.Contains(r.Undone, vscode) {
		t.Errorf("undone %v", r.Undone)
	}
}

// BenchmarkCodeRun5k is a run of code (true, in the confiner) on a
// workspace of 5,000 files, with the empties and without: the empties
// are made while the workspace is walked.
func BenchmarkCodeRun5k(b *testing.B) {
	lc := layouts[1]
	requireConfinement(b, lc)
	e := newEnv(b)
	for d := range 50 {
		for f := range 100 {
			e.file(b, fmt.Sprintf("pkg%02d/f%03d.js", d, f), "x")
		}
	}
	for _, empties := range []bool{true, false} {
		b.Run(fmt.Sprintf("empties=%v", empties), func(b *testing.B) {
			s := e.confined(lc, "")
			if !empties {
				s.RootFolders = nil
			}
			s.Argv = []string{helperName, "env"}
			for b.Loop() {
				if r := Run(context.Background(), s); r.ExitCode != 0 {
					b.Fatalf("%+v", r)
				}
			}
		})
	}
}

// TestNestedRoots: the nested checkouts that get empties are the folders
// holding a .git below a root, never one inside another protected path
// or a hard-linked folder, nearest first, at most maxNestedRoots.
func TestNestedRoots(t *testing.T) {
	sv := survey{
		protected: []string{"/w/.git", "/w/a/b/.git", "/w/lib/.git", "/w/.github", "/w/.github/x/.git",
			"/w/lib/.vscode", "/w/pnpm/p/.git", "/elsewhere/.git"},
		linkBinds: []string{"/w/pnpm/p"},
	}
	got := nestedRoots([]string{"/w"}, sv)
	if want := []string{"/w/lib", "/w/a/b"}; !slices.Equal(got, want) {
		t.Errorf("nested roots %v, want %v", got, want)
	}
	sv = survey{}
	for i := range maxNestedRoots + 3 {
		sv.protected = append(sv.protected, fmt.Sprintf("/w/v/%02d/.git", i))
	}
	if got := nestedRoots([]string{"/w"}, sv); len(got) != maxNestedRoots || got[0] != "/w/v/00" {
		t.Errorf("capped: %v", got)
	}
}

// TestNestedEmptiesRecorded: a nested checkout's empties are recorded in
// the run's ledger beside the root's, so a killed admit's are swept too;
// a nested folder reached through a link is skipped, never written into.
func TestNestedEmptiesRecorded(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join(e.state, "placeholders")
	for _, d := range []string{"repo/.git", "real/.git"} {
		if err := os.MkdirAll(filepath.Join(e.root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(e.root, "real"), filepath.Join(e.root, "link")); err != nil {
		t.Fatal(err)
	}
	rec, err := openLedger(dir)
	if err != nil {
		t.Fatal(err)
	}
	prior, _, err := makePlaceholders([]string{e.root}, []string{".vscode"}, nil, rec)
	if err != nil || len(prior) != 1 {
		t.Fatalf("made %v: %v", prior, err)
	}
	nested := []string{filepath.Join(e.root, "repo"), filepath.Join(e.root, "link")}
	made, bind, err := makeNestedPlaceholders([]string{e.root}, nested, []string{".vscode", ".git"}, []string{filepath.Join(e.root, "repo/.git")}, rec, prior)
	if err != nil || len(made) != 1 || made[0].path() != filepath.Join(e.root, "repo/.vscode") || len(bind) != 1 {
		t.Fatalf("made %v, bind %v: %v", made, bind, err)
	}
	if exists(filepath.Join(e.root, "real/.vscode")) {
		t.Error("an empty was made through a link")
	}
	rec.f.Close() // as a killed admit's: nobody holds it
	next, err := openLedger(dir)
	if err != nil {
		t.Fatal(err)
	}
	next.close()
	for _, p := range []string{".vscode", "repo/.vscode"} {
		if exists(filepath.Join(e.root, p)) {
			t.Errorf("the sweep left the killed run's %s", p)
		}
	}
}
