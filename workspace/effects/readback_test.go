package effects

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"admit/policy"
	"admit/policy/command"
	"admit/workspace"
	"admit/workspace/run"
)

// rbWorkspace is a real workspace in a temporary folder, judged by the
// policy as the gate judges a shell tool's call (policy.Decide), with
// workspace-write and everything observed.
type rbWorkspace struct {
	t    *testing.T
	root string
	env  *policy.Env
}

// seenAll has observed every file and listed every folder: the readback
// tests are about what runs, not about observations.
type seenAll struct{}

func (seenAll) File(string) command.ObsState { return command.Observed }
func (seenAll) Dir(string) bool              { return true }

// newRB makes a workspace holding files ("x" holds "content of x"), folders
// (a trailing "/") and symlinks ("name->target").
func newRB(t *testing.T, setup ...string) *rbWorkspace {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &rbWorkspace{t: t, root: root}
	for _, s := range setup {
		w.make(s)
	}
	roots, err := workspace.NewRoots(root)
	if err != nil {
		t.Fatal(err)
	}
	w.env = &policy.Env{
		Caps: &policy.Caps{Label: "test", Allow: []string{"bash"}}, Roots: []string{root},
		Effects: command.WorkspaceWrite, ShellTools: []string{"bash"}, Home: filepath.Join(root, "home"),
		Commands: command.New(nil), FS: workspace.NewResolver(roots), Obs: seenAll{},
	}
	return w
}

func (w *rbWorkspace) make(s string) {
	w.t.Helper()
	p := filepath.Join(w.root, s)
	var err error
	switch name, target, link := strings.Cut(s, "->"); {
	case link:
		err = os.Symlink(target, filepath.Join(w.root, name))
	case strings.HasSuffix(s, "/"):
		err = os.MkdirAll(p, 0o755)
	default:
		if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
			err = os.WriteFile(p, []byte("content of "+s+"\n"), 0o644)
		}
	}
	if err != nil {
		w.t.Fatal(err)
	}
}

// decide judges line through the policy; it must be admitted.
func (w *rbWorkspace) decide(line string) policy.Decision {
	w.t.Helper()
	d := policy.Decide(policy.Call{Tool: "bash", Command: line, Cwd: w.root}, w.env)
	if !d.Allowed {
		w.t.Fatalf("%q: %s: %s", line, d.Rule, d.Reason)
	}
	return d
}

// run runs line for real, confined to the workspace, noting each command
// it starts with exp.
func (w *rbWorkspace) run(line string, exp *Expectation) run.Result {
	w.t.Helper()
	if kind, _ := run.Confinement(); kind != "landlock" {
		w.t.Skip("the kernel has no Landlock, so a run cannot be confined")
	}
	r := run.Run(context.Background(), run.Spec{
		Line: line, Dir: w.root, Roots: []string{w.root}, Writes: []string{w.root},
		Recheck: exp.Recheck(nil), Confine: true, Timeout: 30 * time.Second,
		Env: []string{"PATH=/usr/bin:/bin", "HOME=" + w.root},
	})
	if r.Err != nil || r.Confinement != "landlock" {
		w.t.Fatalf("run %q: %v (confinement %s)", line, r.Err, r.Confinement)
	}
	return r
}

func (w *rbWorkspace) read(rel string) string {
	b, _ := os.ReadFile(filepath.Join(w.root, rel))
	return string(b)
}

// TestReadbackFollowsTheAdmittedReading runs every write program in every
// option spelling the policy accepts, for real, and reads it back from
// the policy's own reading: verified, and the detail says what the
// admitted reading meant.
func TestReadbackFollowsTheAdmittedReading(t *testing.T) {
	for _, c := range []struct {
		line  string
		setup []string
		want  []string // in the detail
	}{
		// The case of the review: --target is a prefix of --target-directory.
		{"cp --target dir a.txt", []string{"a.txt", "dir/"}, []string{"cp copied a.txt to dir/a.txt"}},
		{"cp --target-directory dir a.txt", []string{"a.txt", "dir/"}, []string{"cp copied a.txt to dir/a.txt"}},
		{"cp --target-directory=dir a.txt", []string{"a.txt", "dir/"}, []string{"cp copied a.txt to dir/a.txt"}},
		{"cp --targ=dir a.txt", []string{"a.txt", "dir/"}, []string{"cp copied a.txt to dir/a.txt"}},
		{"cp -t dir a.txt", []string{"a.txt", "dir/"}, []string{"cp copied a.txt to dir/a.txt"}},
		{"cp -tdir a.txt", []string{"a.txt", "dir/"}, []string{"cp copied a.txt to dir/a.txt"}},
		{"cp -rt dir a.txt b.txt", []string{"a.txt", "b.txt", "dir/"}, []string{"cp copied a.txt to dir/a.txt", "cp copied b.txt to dir/b.txt"}},
		{"cp -pt dir -- a.txt", []string{"a.txt", "dir/"}, []string{"cp copied a.txt to dir/a.txt"}},
		{"cp a.txt -t dir", []string{"a.txt", "dir/"}, []string{"cp copied a.txt to dir/a.txt"}},
		{"cp -- a.txt dir", []string{"a.txt", "dir/"}, []string{"cp copied a.txt to dir/a.txt"}},
		{"cp -t dir -- -x", []string{"-x", "dir/"}, []string{"cp copied -x to dir/-x"}},
		{"cp a.txt b.txt dir", []string{"a.txt", "b.txt", "dir/"}, []string{"cp copied a.txt to dir/a.txt", "cp copied b.txt to dir/b.txt"}},
		{"cp a.txt new.txt", []string{"a.txt"}, []string{"cp copied a.txt to new.txt"}},
		{"cp a.txt b.txt", []string{"a.txt", "b.txt"}, []string{"cp copied a.txt to b.txt"}},
		{"cp -T a.txt new.txt", []string{"a.txt"}, []string{"cp copied a.txt to new.txt"}},
		{"cp --no-target-directory a.txt new.txt", []string{"a.txt"}, []string{"cp copied a.txt to new.txt"}},
		{"cp -r src new", []string{"src/x", "src/y"}, []string{"cp copied src to new"}},
		{"cp -r src dir", []string{"src/x", "dir/"}, []string{"cp copied src to dir/src"}},
		{"cp -rT src dir", []string{"src/x", "dir/old"}, []string{"cp copied src to dir"}},
		{"cp -a src new", []string{"src/x"}, []string{"cp copied src to new"}},
		{"cp -n a.txt b.txt", []string{"a.txt", "b.txt"}, []string{"cp left b.txt as it was"}},
		{"cp -n a.txt new.txt", []string{"a.txt"}, []string{"cp copied a.txt to new.txt"}},
		{"cp --no-clobber a.txt dir", []string{"a.txt", "dir/"}, []string{"cp copied a.txt to dir/a.txt"}},
		{"cp --attributes-only a.txt n.txt", []string{"a.txt"}, []string{"cp created n.txt"}},
		{"cp -b a.txt b.txt", []string{"a.txt", "b.txt"}, []string{"cp copied a.txt to b.txt"}},
		{"cp --suffix=.orig a.txt b.txt", []string{"a.txt", "b.txt"}, []string{"cp copied a.txt to b.txt"}},
		{"cp link.txt dir", []string{"a.txt", "link.txt->a.txt", "dir/"}, []string{"cp copied link.txt to dir/link.txt"}},
		{"cp -P link.txt dir", []string{"a.txt", "link.txt->a.txt", "dir/"}, []string{"cp copied link.txt to dir/link.txt"}},
		{"mv a.txt dir", []string{"a.txt", "dir/"}, []string{"mv moved a.txt to dir/a.txt"}},
		{"mv -t dir a.txt", []string{"a.txt", "dir/"}, []string{"mv moved a.txt to dir/a.txt"}},
		{"mv -tdir a.txt", []string{"a.txt", "dir/"}, []string{"mv moved a.txt to dir/a.txt"}},
		{"mv --target=dir a.txt", []string{"a.txt", "dir/"}, []string{"mv moved a.txt to dir/a.txt"}},
		{"mv --target-directory dir a.txt", []string{"a.txt", "dir/"}, []string{"mv moved a.txt to dir/a.txt"}},
		{"mv --target-directory=dir a.txt", []string{"a.txt", "dir/"}, []string{"mv moved a.txt to dir/a.txt"}},
		{"mv -ft dir a.txt b.txt", []string{"a.txt", "b.txt", "dir/"}, []string{"mv moved a.txt to dir/a.txt", "mv moved b.txt to dir/b.txt"}},
		{"mv -f a.txt dir/", []string{"a.txt", "dir/"}, []string{"mv moved a.txt to dir/a.txt"}},
		{"mv -T a.txt moved.txt", []string{"a.txt"}, []string{"mv moved a.txt to moved.txt"}},
		{"mv -f -- -x dir", []string{"-x", "dir/"}, []string{"mv moved -x to dir/-x"}},
		{"mv a.txt b.txt", []string{"a.txt", "b.txt"}, []string{"mv moved a.txt to b.txt"}},
		{"mv src new", []string{"src/x"}, []string{"mv moved src to new"}},
		{"mv link.txt dir", []string{"a.txt", "link.txt->a.txt", "dir/"}, []string{"mv moved link.txt to dir/link.txt"}},
		{"rm a.txt", []string{"a.txt"}, []string{"rm removed a.txt"}},
		{"rm -f -- a.txt", []string{"a.txt"}, []string{"rm removed a.txt"}},
		{"rm -f gone.txt", nil, []string{"rm removed gone.txt"}},
		{"rm -r src", []string{"src/x"}, []string{"rm removed src"}},
		{"rm -rf src", []string{"src/x"}, []string{"rm removed src"}},
		{"rm --recursive --force src", []string{"src/x"}, []string{"rm removed src"}},
		{"rm --rec src", []string{"src/x"}, []string{"rm removed src"}},
		{"rm -- -x", []string{"-x"}, []string{"rm removed -x"}},
		{"rm link.txt", []string{"a.txt", "link.txt->a.txt"}, []string{"rm removed link.txt"}},
		{"rmdir empty", []string{"empty/"}, []string{"rmdir removed empty"}},
		{"rmdir -v empty", []string{"empty/"}, []string{"rmdir removed empty"}},
		{"mkdir new", nil, []string{"mkdir made the folder new"}},
		{"mkdir -p new/sub", nil, []string{"mkdir made the folder new/sub"}},
		{"mkdir --parents new/sub", nil, []string{"mkdir made the folder new/sub"}},
		{"mkdir --par new/sub", nil, []string{"mkdir made the folder new/sub"}},
		{"mkdir -m 700 new", nil, []string{"mkdir made the folder new"}},
		{"mkdir -pm700 new/sub", nil, []string{"mkdir made the folder new/sub"}},
		{"mkdir --mode=700 new", nil, []string{"mkdir made the folder new"}},
		{"mkdir -p dir", []string{"dir/"}, []string{"mkdir made the folder dir"}},
		{"touch new.txt", nil, []string{"touch created new.txt"}},
		{"touch a.txt", []string{"a.txt"}, []string{"touch created a.txt"}},
		{"touch -c a.txt", []string{"a.txt"}, []string{"touch touched a.txt"}},
		{"touch -c absent.txt", nil, []string{"touch left absent.txt absent"}},
		{"touch --no-create a.txt", []string{"a.txt"}, []string{"touch touched a.txt"}},
		{"touch --no-c absent.txt", nil, []string{"touch left absent.txt absent"}},
		{"touch -r b.txt a.txt", []string{"a.txt", "b.txt"}, []string{"touch created a.txt"}},
		{"touch -d 2020-01-01 new.txt", nil, []string{"touch created new.txt"}},
		{"touch -- -y", nil, []string{"touch created -y"}},
		{"touch dangling", []string{"dangling->new.txt"}, []string{"touch created new.txt"}},
		{"echo hi | tee out.txt", nil, []string{"tee wrote out.txt"}},
		{"echo hi | tee -a a.txt b.txt", []string{"a.txt"}, []string{"tee wrote a.txt", "tee wrote b.txt"}},
		{"echo hi | tee --append -- a.txt", []string{"a.txt"}, []string{"tee wrote a.txt"}},
		{"chmod a+x a.txt", []string{"a.txt"}, []string{"chmod wrote a.txt"}},
		{"chmod -v 644 a.txt", []string{"a.txt"}, []string{"chmod wrote a.txt"}},
		{"chmod -- a-x a.txt", []string{"a.txt"}, []string{"chmod wrote a.txt"}},
		{"sed -i s/content/text/ a.txt", []string{"a.txt"}, []string{"sed wrote a.txt"}},
		{"sed --in-place -e s/content/text/ a.txt b.txt", []string{"a.txt", "b.txt"}, []string{"sed wrote a.txt", "sed wrote b.txt"}},
		{"sed --in-pl s/content/text/ a.txt", []string{"a.txt"}, []string{"sed wrote a.txt"}},
		{"sed -i -- s/content/text/ a.txt", []string{"a.txt"}, []string{"sed wrote a.txt"}},
		{"sed -ni p a.txt", []string{"a.txt"}, []string{"sed wrote a.txt"}},
		{"uniq a.txt out.txt", []string{"a.txt"}, []string{"uniq wrote out.txt"}},
		{"uniq -c -- a.txt out.txt", []string{"a.txt"}, []string{"uniq wrote out.txt"}},
		{"sort -o out.txt a.txt", []string{"a.txt"}, []string{"sort wrote out.txt"}},
		{"sort --output=out.txt a.txt", []string{"a.txt"}, []string{"sort wrote out.txt"}},
		{"sort -uoout.txt a.txt", []string{"a.txt"}, []string{"sort wrote out.txt"}},
		{"echo hi > out.txt", nil, []string{"redirection > wrote out.txt"}},
		{"echo hi >> a.txt", []string{"a.txt"}, []string{"redirection >> wrote a.txt"}},
		{"cat a.txt > out.txt 2> err.txt", []string{"a.txt"}, []string{"redirection > wrote out.txt", "redirection 2> wrote err.txt"}},
		{"cat a.txt > /dev/null", []string{"a.txt"}, []string{"nothing to read back"}},
		{"cat a.txt", []string{"a.txt"}, []string{"nothing to read back"}},
		// A line: each command in the folder it ran in, each source as it
		// was when its command started.
		{"mkdir -p d && touch d/x", nil, []string{"mkdir made the folder d", "touch created d/x"}},
		{"cd dir && touch n.txt", []string{"dir/"}, []string{"touch created n.txt"}},
		{"cd dir; touch n.txt", []string{"dir/"}, []string{"touch created n.txt (in "}},
		{"echo more >> a.txt; cp a.txt b.txt", []string{"a.txt"}, []string{"cp copied a.txt to b.txt"}},
		{"echo more >> a.txt && mv a.txt b.txt", []string{"a.txt"}, []string{"redirection >> on a.txt not read back: mv, later in the line, changes it", "mv moved a.txt to b.txt"}},
		{"mkdir d && cp a.txt d", []string{"a.txt"}, []string{"mkdir made the folder d", "cp copied a.txt to d/a.txt"}},
		{"mkdir -p out/x; mv a.txt b.txt out/x", []string{"a.txt", "b.txt"}, []string{"mv moved a.txt to out/x/a.txt", "mv moved b.txt to out/x/b.txt"}},
		{"touch d/x && rm -r d", []string{"d/"}, []string{"touch on d/x not read back: rm, later in the line, changes it", "rm removed d"}},
		{"cp a.txt b.txt && cp c.txt b.txt", []string{"a.txt", "c.txt"}, []string{"cp on b.txt not read back", "cp copied c.txt to b.txt"}},
		{"touch n.txt && cp n.txt m.txt", nil, []string{"cp copied n.txt to m.txt"}},
		{"true || touch n.txt", nil, []string{"did not run: touch n.txt"}},
	} {
		t.Run(c.line, func(t *testing.T) {
			w := newRB(t, c.setup...)
			d := w.decide(c.line)
			exp := Expect(d.Intents, d.Argv)
			if r := w.run(c.line, exp); r.ExitCode != 0 {
				t.Fatalf("exit %d: %s", r.ExitCode, r.Stderr)
			}
			v := exp.Verify()
			if !v.Verified {
				t.Fatalf("not verified: %s", v.Detail)
			}
			for _, want := range c.want {
				if !strings.Contains(v.Detail, want) {
					t.Errorf("detail %q lacks %q", v.Detail, want)
				}
			}
		})
	}
}

// TestReadbackRefusesOtherReadings: the admitted command is judged, but
// what happens is another reading of it, or nothing; the readback says
// so and names what the admitted reading meant.
func TestReadbackRefusesOtherReadings(t *testing.T) {
	for _, c := range []struct {
		admitted, happens string
		setup             []string
		want              string
	}{
		{"cp --target dir a.txt", "true", []string{"a.txt", "dir/"}, "dir/a.txt is missing (cp was to copy a.txt there)"},
		// The second parser's reading of the review's case: "cp dir a.txt".
		{"cp --target dir a.txt", "cp -rT dir a", []string{"a.txt", "dir/x"}, "dir/a.txt is missing"},
		{"cp -t dir a.txt", "cp b.txt dir/a.txt", []string{"a.txt", "b.txt", "dir/"}, "dir/a.txt does not hold what a.txt held"},
		{"cp a.txt b.txt", "cp b.txt a.txt", []string{"a.txt", "b.txt"}, "b.txt does not hold what a.txt held"},
		{"cp -T a.txt dir", "cp a.txt dir", []string{"a.txt", "dir/"}, "dir does not hold what a.txt held"},
		{"cp -r src new", "mkdir new", []string{"src/x"}, "new does not hold what src held"},
		{"cp -n a.txt b.txt", "cp c.txt b.txt", []string{"a.txt", "b.txt", "c.txt"}, "b.txt does not hold what a.txt held"},
		{"mv -t dir a.txt", "cp a.txt dir", []string{"a.txt", "dir/"}, "a.txt is still present (mv was to move it to dir/a.txt)"},
		{"mv --target-directory=dir a.txt", "mv a.txt dir/other.txt", []string{"a.txt", "dir/"}, "dir/a.txt is missing (mv was to move a.txt there)"},
		{"mv a.txt b.txt", "rm a.txt", []string{"a.txt", "b.txt"}, "b.txt does not hold what a.txt held"},
		{"mv -n a.txt dir", "true", []string{"a.txt", "dir/a.txt"}, "a.txt is still present"},
		{"rm -f a.txt", "true", []string{"a.txt"}, "a.txt is still present (rm was to remove it)"},
		{"rm -r src", "rm src/x", []string{"src/x"}, "src is still present"},
		{"rmdir empty", "true", []string{"empty/"}, "empty is still present (rmdir was to remove it)"},
		{"mkdir new", "touch new", nil, "new is not a folder (mkdir was to make it)"},
		{"mkdir -p f", "true", []string{"f"}, "f is not a folder"},
		{"touch new.txt", "true", nil, "new.txt is missing (touch was to create it)"},
		{"touch -c absent.txt", "touch absent.txt", nil, "absent.txt appeared (touch -c creates nothing)"},
		{"touch -c a.txt", "rm a.txt", []string{"a.txt"}, "a.txt is gone"},
		{"echo hi | tee out.txt", "true", nil, "out.txt is missing (tee was to write it)"},
		{"sed -i s/content/text/ a.txt", "rm a.txt", []string{"a.txt"}, "a.txt is missing (sed was to write it)"},
		{"echo hi > out.txt", "true", nil, "out.txt is missing (redirection > was to write it)"},
		{"sort -o out.txt a.txt", "sort a.txt", []string{"a.txt"}, "out.txt is missing (sort was to write it)"},
	} {
		t.Run(c.admitted+" / "+c.happens, func(t *testing.T) {
			w := newRB(t, c.setup...)
			d := w.decide(c.admitted)
			exp := Expect(d.Intents, nil) // what happens is not the admitted argv
			w.run(c.happens, exp)
			v := exp.Verify()
			if v.Verified || !strings.Contains(v.Detail, c.want) {
				t.Fatalf("%+v, want unverified with %q", v, c.want)
			}
		})
	}
}

// TestReadbackWhatRan: only the commands that started are read back, in
// the folder they started in.
func TestReadbackWhatRan(t *testing.T) {
	w := newRB(t, "dir/")
	d := w.decide("cd dir && touch n.txt")
	exp := Expect(d.Intents, d.Argv)
	// Not wired to the run: nothing was seen to start.
	if v := exp.Verify(); v.Verified || !strings.Contains(v.Detail, "no command of the line was seen to start") {
		t.Errorf("nothing noted: %+v", v)
	}
	// touch started in the root, where it was not judged.
	w.make("n.txt")
	exp.Ran([]string{"cd", "dir"}, w.root)
	exp.Ran([]string{"touch", "n.txt"}, w.root)
	if v := exp.Verify(); v.Verified || !strings.Contains(v.Detail, "a folder it was not judged in") {
		t.Errorf("wrong folder: %+v", v)
	}
	// Through a link to the folder it was judged in: the same folder.
	w.make("dir/n.txt")
	w.make("alias->dir")
	exp = Expect(d.Intents, d.Argv)
	exp.Ran([]string{"touch", "n.txt"}, filepath.Join(w.root, "alias"))
	if v := exp.Verify(); !v.Verified || !strings.Contains(v.Detail, "touch created n.txt") {
		t.Errorf("through a link: %+v", v)
	}
	// A command that failed while the line still exited 0.
	w = newRB(t, "a.txt")
	d = w.decide("cp gone.txt b.txt; true")
	exp = Expect(d.Intents, d.Argv)
	if r := w.run("cp gone.txt b.txt; true", exp); r.ExitCode != 0 {
		t.Fatalf("exit %d", r.ExitCode)
	}
	if v := exp.Verify(); v.Verified || !strings.Contains(v.Detail, "b.txt is missing (cp was to copy gone.txt there)") {
		t.Errorf("masked failure: %+v", v)
	}
}

// TestReadbackRejudged: a command whose words are known only when it runs
// (echo "$X" > f, judged again by the run) is read back once its words,
// whatever they are, start it; one that never started is not.
func TestReadbackRejudged(t *testing.T) {
	w := newRB(t, "a.txt")
	d := policy.Decide(policy.Call{Tool: "bash", Command: `true && echo "$USER" > n.txt`, Cwd: w.root, AdmitRuns: true}, w.env)
	if !d.Allowed || len(d.Rejudged) != 1 || d.Argv[1] != nil {
		t.Fatalf("%s %s: rejudged %+v, argv %q", d.Rule, d.Reason, d.Rejudged, d.Argv)
	}
	expect := func() *Expectation {
		exp := Expect(d.Intents, d.Argv)
		for _, s := range d.Rejudged {
			exp.Rejudged(s.Cmd, s.Argv, s.Fits)
		}
		return exp
	}
	exp := expect()
	exp.Ran([]string{"true"}, w.root)
	if v := exp.Verify(); !v.Verified || !strings.Contains(v.Detail, `did not run: echo $USER`) {
		t.Errorf("echo never started: %+v", v)
	}
	exp = expect()
	exp.Ran([]string{"true"}, w.root)
	exp.Ran([]string{"echo", "someone"}, w.root)
	w.make("n.txt")
	if v := exp.Verify(); !v.Verified || !strings.Contains(v.Detail, "redirection > wrote n.txt") {
		t.Errorf("echo started: %+v", v)
	}
	if d.Argv[1] != nil {
		t.Errorf("Expect changed the decision's argv: %q", d.Argv[1])
	}
}

// TestReadbackArgv: an argv (literal words, no shell) is read back the
// same way, and its run is the argv the policy admitted.
func TestReadbackArgv(t *testing.T) {
	w := newRB(t, "a b.txt", "dir/")
	argv := []string{"cp", "--target", "dir", "a b.txt"}
	d := policy.Decide(policy.Call{Tool: "bash", Argv: argv, Cwd: w.root}, w.env)
	if !d.Allowed || len(d.Argv) != 1 {
		t.Fatalf("%s: %s (argv %q)", d.Rule, d.Reason, d.Argv)
	}
	if kind, _ := run.Confinement(); kind != "landlock" {
		t.Skip("the kernel has no Landlock, so a run cannot be confined")
	}
	exp := Expect(d.Intents, d.Argv)
	r := run.Run(context.Background(), run.Spec{
		Argv: argv, Dir: w.root, Roots: []string{w.root}, Writes: []string{w.root},
		Recheck: exp.Recheck(nil), Confine: true, Timeout: 30 * time.Second, Env: []string{"PATH=/usr/bin:/bin"},
	})
	if r.Err != nil || r.ExitCode != 0 {
		t.Fatalf("run: %v, exit %d: %s", r.Err, r.ExitCode, r.Stderr)
	}
	if v := exp.Verify(); !v.Verified || !strings.Contains(v.Detail, "cp copied a b.txt to dir/a b.txt") {
		t.Fatalf("%+v", v)
	}
}

// TestReadbackExchange: mv --exchange (coreutils 9.5) swaps the two
// files; the swap is made here by hand, as the installed mv may not know
// the option.
func TestReadbackExchange(t *testing.T) {
	w := newRB(t, "a.txt", "b.txt")
	d := w.decide("mv --exchange a.txt b.txt")
	if v := Expect(d.Intents, nil).Verify(); v.Verified {
		t.Fatalf("nothing exchanged, verified: %+v", v)
	}
	exp := Expect(d.Intents, nil)
	a, b := filepath.Join(w.root, "a.txt"), filepath.Join(w.root, "b.txt")
	tmp := filepath.Join(w.root, "swap")
	for _, mv := range [][2]string{{a, tmp}, {b, a}, {tmp, b}} {
		if err := os.Rename(mv[0], mv[1]); err != nil {
			t.Fatal(err)
		}
	}
	if w.read("a.txt") != "content of b.txt\n" {
		t.Fatal("swap failed")
	}
	if v := exp.Verify(); !v.Verified || !strings.Contains(v.Detail, "mv exchanged a.txt and b.txt") {
		t.Fatalf("exchanged: %+v", v)
	}
}

// TestReadbackAbsolute: an absolute path in another root is read back where
// it is, not joined to the working folder.
func TestReadbackAbsolute(t *testing.T) {
	w := newRB(t)
	other, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	roots, err := workspace.NewRoots(w.root, other)
	if err != nil {
		t.Fatal(err)
	}
	w.env.Roots, w.env.FS = roots.List(), workspace.NewResolver(roots)
	line := "mkdir " + filepath.Join(other, "d")
	d := w.decide(line)
	exp := Expect(d.Intents, nil)
	if err := os.Mkdir(filepath.Join(other, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if v := exp.Verify(); !v.Verified || !strings.Contains(v.Detail, filepath.Join(other, "d")) {
		t.Fatalf("%+v", v)
	}
}
