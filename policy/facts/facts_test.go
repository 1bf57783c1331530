package facts

import (
	"encoding/json"
	"errors"
	"io/fs"
	"reflect"
	"syscall"
	"testing"

	"admit/policy/command"
)

// fakeFS answers from maps, and counts questions.
type fakeFS struct {
	res   map[string]command.Resolved
	dirs  map[string][]string
	asked int
}

func (f *fakeFS) Resolve(p string) (command.Resolved, error) {
	f.asked++
	if r, ok := f.res[p]; ok {
		return r, nil
	}
	return command.Resolved{}, errors.New("no such thing")
}
func (f *fakeFS) LinksOutside(dir string) []string   { return []string{dir + "/out"} }
func (f *fakeFS) SplitNames(string) []string         { return nil }
func (f *fakeFS) OptionNames(string) []string        { return nil }
func (f *fakeFS) GitExec(string) string              { return "core.fsmonitor" }
func (f *fakeFS) CargoExec(string) string            { return "build.rustc-wrapper" }
func (f *fakeFS) GitConfigFiles(dir string) []string { return []string{dir + "/.git/config"} }
func (f *fakeFS) ReadDir(dir string) ([]fs.DirEntry, error) {
	names, ok := f.dirs[dir]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: syscall.ENOENT}
	}
	out := make([]fs.DirEntry, len(names))
	for i, n := range names {
		out[i] = dirEntry{name: n}
	}
	return out, nil
}

type gitFS struct{ *fakeFS }

func (gitFS) GitRemotes(string) ([]string, bool)     { return []string{"origin"}, true }
func (gitFS) GitWriteExec(string, []string) string   { return "" }
func (gitFS) GitCredentials(string) ([]string, bool) { return nil, true }
func (f gitFS) ResolveIn(dir, name string) (command.Resolved, error) {
	return f.Resolve(dir + "/" + name)
}

type fakeObs map[string]command.ObsState

func (o fakeObs) File(p string) command.ObsState { return o[p] }
func (o fakeObs) Dir(p string) bool              { return o[p] == command.Observed }

// TestRoundTrip: every answer the recorder kept is the replay's answer,
// through the tape's JSON, and only unasked questions are missing.
func TestRoundTrip(t *testing.T) {
	live := &fakeFS{res: map[string]command.Resolved{"/w/a": {Path: "/w/a", Exists: true, Mode: 0o644, Links: 1}},
		dirs: map[string][]string{"/w": {"a", "b"}}}
	r := NewRecorder(gitFS{live}, fakeObs{"/w/a": command.Stale})
	fsys, obs := r.FS(), r.Obs()
	if _, ok := fsys.(command.GitWrites); !ok {
		t.Fatal("the recording FS hides GitWrites")
	}
	a, _ := fsys.Resolve("/w/a")
	_, errB := fsys.Resolve("/w/b")
	in, _ := fsys.(resolverIn).ResolveIn("/w", "a")
	ents, _ := fsys.ReadDir("/w")
	_, errNone := fsys.ReadDir("/none")
	links := fsys.LinksOutside("/w")
	git := fsys.GitExec("/w")
	remotes, ok := fsys.(command.GitWrites).GitRemotes("/w")
	st := obs.File("/w/a")

	b, err := json.Marshal(r.Facts(Facts{Roots: []string{"/w"}}))
	if err != nil {
		t.Fatal(err)
	}
	var f Facts
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	rp := NewReplay(&f)
	rfs, robs := rp.FS(), rp.Obs()
	if got, _ := rfs.Resolve("/w/a"); got != a || got != in {
		t.Errorf("resolve: %+v, want %+v", got, a)
	}
	if _, err := rfs.Resolve("/w/b"); err == nil || err.Error() != errB.Error() {
		t.Errorf("resolve error: %v, want %v", err, errB)
	}
	got, _ := rfs.ReadDir("/w")
	if len(got) != len(ents) || got[1].Name() != "b" {
		t.Errorf("listing: %v", got)
	}
	if _, err := rfs.ReadDir("/none"); !errors.Is(err, fs.ErrNotExist) || !errors.Is(errNone, fs.ErrNotExist) {
		t.Errorf("a listing that does not exist replays as %v", err)
	}
	if !reflect.DeepEqual(rfs.LinksOutside("/w"), links) || rfs.GitExec("/w") != git {
		t.Error("links or git configuration differ")
	}
	if rr, rok := rfs.(command.GitWrites).GitRemotes("/w"); !rok || !ok || !reflect.DeepEqual(rr, remotes) {
		t.Errorf("remotes: %v %v", rr, rok)
	}
	if robs.File("/w/a") != st {
		t.Error("observation differs")
	}
	if m := rp.Missing(); len(m) != 0 {
		t.Errorf("missing after asking only what was recorded: %q", m)
	}
	// What was never asked fails closed and is named.
	if _, err := rfs.Resolve("/w/c"); err == nil {
		t.Error("an unrecorded path resolves")
	}
	if l := rfs.LinksOutside("/w/sub"); len(l) == 0 {
		t.Error("an unrecorded walk reports no links outside")
	}
	if rfs.GitExec("/w/sub") == "" {
		t.Error("an unrecorded repository runs nothing")
	}
	if robs.File("/w/z") != command.Unobserved || robs.Dir("/w") {
		t.Error("an unrecorded observation counts")
	}
	if m := rp.Missing(); len(m) != 5 {
		t.Errorf("missing: %q", m)
	}
}

// TestRecorderNoGit: a live FS without GitWrites is recorded as one
// without, so git's writes ask as they would.
func TestRecorderNoGit(t *testing.T) {
	r := NewRecorder(&fakeFS{}, nil)
	if _, ok := r.FS().(command.GitWrites); ok {
		t.Error("the recording FS claims GitWrites the live one lacks")
	}
	if r.Obs() != nil {
		t.Error("no observations recorded as some")
	}
}
