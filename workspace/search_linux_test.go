package workspace

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"

	"admit/policy/command"
)

// walkSearch is what the policy asks without SearchPath: the folder
// resolved, then the name in it.
func walkSearch(r *Resolver, dir, name string) (string, command.Resolved, error) {
	rd, err := r.Resolve(dir)
	if err != nil {
		return "", command.Resolved{}, err
	}
	res, err := r.ResolveIn(rd.Path, name)
	return rd.Path, res, err
}

// TestSearchPathMatchesWalk: for every kind of PATH folder (plain, a
// symlink to a folder, under a symlinked folder, inside the workspace,
// missing, under a missing folder, under a file, a file itself) and every
// kind of name (a program, a link to one, a dangling link, a folder,
// absent), SearchPath either declines or gives the walk's answers; it
// declines exactly where a symlink is on the way to the folder.
func TestSearchPathMatchesWalk(t *testing.T) {
	tmp := tempRoot(t)
	ws := filepath.Join(tmp, "ws")
	for _, d := range []string{"bin", "ws/.venv/bin", "real/bin", "other"} {
		mkdirAll(t, filepath.Join(tmp, d))
	}
	for _, f := range []string{"bin/cat", "ws/.venv/bin/cat", "real/bin/cat", "file"} {
		if err := os.WriteFile(filepath.Join(tmp, f), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"linkbin":          "real/bin",      // a PATH folder that is a link
		"linkreal":         "real",          // a link above the folder
		"ws/outbin":        "../real/bin",   // a workspace folder leading out
		"bin/py":           "cat",           // a program that is a link
		"bin/dangling":     "nowhere",       // a link to nothing
		"ws/.venv/bin/esc": "/etc/passwd",   // a workspace program leading out
		"real/bin/loop":    "loop",          // a link to itself
		"bin/absolute":     "/bin/sh",       // an absolute link
		"ws/tobin":         "../bin/../bin", // through ".."
	} {
		if err := os.Symlink(target, filepath.Join(tmp, link)); err != nil {
			t.Fatal(err)
		}
	}
	r := NewResolver(mustRoots(t, ws))
	dirs := []string{"bin", "ws/.venv/bin", "linkbin", "linkreal/bin", "ws/outbin", "ws/tobin", "missing", "missing/bin",
		"file", "file/bin", "other", "ws", "real/bin"}
	names := []string{"cat", "py", "dangling", "esc", "loop", "absolute", "bin", "absent", ".venv"}
	links := map[string]bool{"linkbin": true, "linkreal/bin": true, "ws/outbin": true, "ws/tobin": true}
	for _, d := range dirs {
		for _, n := range names {
			dir := filepath.Join(tmp, d)
			canon, got, ok := r.SearchPath(dir, n)
			wantCanon, want, err := walkSearch(r, dir, n)
			if links[d] {
				if ok {
					t.Errorf("SearchPath(%s, %s) answered %q %+v through a symlinked folder; want it to decline", d, n, canon, got)
				}
				continue
			}
			if !ok {
				if n == "loop" && err != nil {
					continue // the walk's error is the policy's to report
				}
				t.Errorf("SearchPath(%s, %s) declined; the walk says %q %+v %v", d, n, wantCanon, want, err)
				continue
			}
			if err != nil || canon != wantCanon || !reflect.DeepEqual(got, want) {
				t.Errorf("SearchPath(%s, %s) = %q %+v; the walk: %q %+v %v", d, n, canon, got, wantCanon, want, err)
			}
		}
	}
}

// TestSearchPathRandomTrees: on random trees of folders, files and
// symlinks, every answer SearchPath gives is the walk's.
func TestSearchPathRandomTrees(t *testing.T) {
	answered := 0
	for seed := uint64(1); seed <= 10; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			root := tempRoot(t)
			r := NewResolver(mustRoots(t, root))
			names := []string{"a", "b", "c", "l1", "l2"}
			dirs := []string{root}
			pick := func(list []string) string { return list[rng.IntN(len(list))] }
			for range 40 {
				n := pick(dirs) + "/" + pick(names)
				if _, err := os.Lstat(n); err == nil {
					continue
				}
				switch rng.IntN(4) {
				case 0:
					if os.Mkdir(n, 0o755) == nil {
						dirs = append(dirs, n)
					}
				case 1:
					_ = os.WriteFile(n, []byte("x"), os.FileMode(0o644|rng.IntN(2)*0o111))
				case 2:
					_ = os.Symlink(pick(names), n)
				case 3:
					_ = os.Symlink(pick(dirs)+"/../"+pick(names), n)
				}
			}
			for range 300 {
				dir := root
				for range 1 + rng.IntN(3) {
					dir += "/" + pick(names)
				}
				name := pick(names)
				canon, got, ok := r.SearchPath(dir, name)
				if !ok {
					continue
				}
				answered++
				wantCanon, want, err := walkSearch(r, dir, name)
				if err != nil || canon != wantCanon || !reflect.DeepEqual(got, want) {
					t.Errorf("SearchPath(%s, %s) = %q %+v; the walk: %q %+v %v", dir, name, canon, got, wantCanon, want, err)
				}
			}
		})
	}
	if answered < 100 {
		t.Errorf("SearchPath answered %d of 3000 searches", answered)
	}
}

// TestSearchPathWithoutOpenat2: where openat2 fails as a kernel without
// it or a seccomp filter makes it fail, SearchPath declines, and keeps
// declining without trying again; the walk answers instead.
func TestSearchPathWithoutOpenat2(t *testing.T) {
	tmp := tempRoot(t)
	mkdirAll(t, filepath.Join(tmp, "bin"))
	for _, e := range []syscall.Errno{syscall.ENOSYS, syscall.EPERM} {
		r := NewResolver(mustRoots(t, tmp))
		calls := 0
		open := func(string) (int, error) { calls++; return -1, e }
		for range 3 {
			if _, _, ok := r.searchWith(open, filepath.Join(tmp, "bin"), "cat"); ok {
				t.Fatalf("%v: SearchPath answered", e)
			}
		}
		if calls != 1 {
			t.Errorf("%v: openat2 tried %d times, want once", e, calls)
		}
		if _, _, ok := r.SearchPath(filepath.Join(tmp, "bin"), "cat"); ok {
			t.Errorf("%v: SearchPath answered after openat2 proved unavailable", e)
		}
	}
	// Another error (EACCES on the way) declines this once only.
	r := NewResolver(mustRoots(t, tmp))
	if _, _, ok := r.searchWith(func(string) (int, error) { return -1, syscall.EACCES }, filepath.Join(tmp, "bin"), "cat"); ok {
		t.Fatal("EACCES: SearchPath answered")
	}
	if _, _, ok := r.SearchPath(filepath.Join(tmp, "bin"), "cat"); !ok && openat2Works() {
		t.Error("after EACCES, SearchPath declines for good")
	}
}

// openat2Works reports whether this kernel lets the process use openat2.
func openat2Works() bool {
	fd, err := openNoLinks("/")
	if err != nil {
		return false
	}
	_ = syscall.Close(fd)
	return true
}

// seenAll is observations that saw every file and folder, so that the
// lines' writes reach the PATH checks.
type seenAll struct{}

func (seenAll) File(string) command.ObsState { return command.Observed }
func (seenAll) Dir(string) bool              { return true }

// walkOnly is the Resolver without SearchPath (the field hides the
// method), as on a platform without openat2.
type walkOnly struct {
	*Resolver
	SearchPath struct{}
}

// TestSearchPathSameDecisions: the policy decides every line the same
// with the one-call search as with the walk alone, for PATHs through a
// symlinked folder (inside the workspace and out of it), a workspace
// folder, missing folders and a folder PATH names twice.
func TestSearchPathSameDecisions(t *testing.T) {
	tmp := tempRoot(t)
	ws := filepath.Join(tmp, "ws")
	for _, d := range []string{"bin", "ws/.venv/bin", "real/bin"} {
		mkdirAll(t, filepath.Join(tmp, d))
	}
	for _, f := range []string{"bin/cat", "bin/grep", "ws/.venv/bin/cat", "real/bin/cat", "real/bin/ls"} {
		if err := os.WriteFile(filepath.Join(tmp, f), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"linkbin": "real/bin", "ws/venvlink": ".venv/bin", "bin/ls": "../real/bin/ls"} {
		if err := os.Symlink(target, filepath.Join(tmp, link)); err != nil {
			t.Fatal(err)
		}
	}
	at := func(ds ...string) []string {
		out := make([]string, len(ds))
		for i, d := range ds {
			out[i] = filepath.Join(tmp, d)
		}
		return out
	}
	paths := [][]string{
		at("bin"),
		at("missing", "missing/bin", "bin"),
		at("ws/.venv/bin", "bin"),
		at("ws/venvlink", "bin"),
		at("linkbin", "bin"),
		at("bin", "bin", "real/bin"),
		at("missing"),
		at("ws/newbin", "bin"),
		append(at("bin"), "relative"),
	}
	lines := []string{"cat a.txt", "cat a.txt | grep x", "ls", "echo x > .venv/bin/cat && cat a.txt", "nosuch a.txt",
		"mkdir newbin && echo x > newbin/cat && cat a.txt", "echo x > out.txt && cat a.txt && cat a.txt"}
	p := command.New(nil)
	r := NewResolver(mustRoots(t, ws))
	for _, path := range paths {
		for _, line := range lines {
			c := &command.Context{Roots: []string{ws}, Effects: command.WorkspaceWrite, FS: r, Obs: seenAll{}, Path: path}
			got := p.Evaluate(line, ws, c)
			c.FS = walkOnly{Resolver: r}
			want := p.Evaluate(line, ws, c)
			if got.Allowed != want.Allowed || got.Ask != want.Ask || got.Rule != want.Rule || got.Reason != want.Reason {
				t.Errorf("PATH %v, %q: with the search %v %s %s; with the walk %v %s %s", path, line, got.Allowed, got.Rule, got.Reason, want.Allowed, want.Rule, want.Reason)
			}
		}
	}
}
