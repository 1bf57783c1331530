package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	root := tempRoot(t)
	out := tempRoot(t)
	writeFile(t, root+"/a/b/file.txt", "x")
	writeFile(t, out+"/secret", "s")
	mkdirAll(t, out+"/odir")
	symlink(t, "b", root+"/a/relb")                                   // relative, same folder
	symlink(t, root+"/a/b", root+"/absb")                             // absolute
	symlink(t, "../a/b/file.txt", root+"/c/tofile")                   // relative with ..
	symlink(t, "relb", root+"/a/chain1")                              // chain: chain1 -> relb -> b
	symlink(t, "chain1", root+"/a/chain2")                            // chain of three
	symlink(t, out, root+"/escape")                                   // absolute, outside
	symlink(t, "../../"+filepath.Base(out)+"/odir", root+"/a/relout") // relative, outside (siblings under the same temp parent)
	symlink(t, "nowhere/deeper", root+"/a/dangling")                  // dangling, relative
	symlink(t, out+"/new/x", root+"/danglingout")                     // dangling, absolute outside
	symlink(t, "loop2", root+"/loop1")
	symlink(t, "loop1", root+"/loop2")
	symlink(t, "self", root+"/self")
	symlink(t, "a/b", root+"/deep") // link into a subfolder, for link/..
	symlink(t, ".", root+"/a/dot")  // link to its own folder

	sameParent := filepath.Dir(root) == filepath.Dir(out)

	cases := []struct {
		name, in, want string
		exists, dir    bool
		err            error
	}{
		{"plain file", root + "/a/b/file.txt", root + "/a/b/file.txt", true, false, nil},
		{"plain folder", root + "/a/b", root + "/a/b", true, true, nil},
		{"root itself", root, root, true, true, nil},
		{"slash", "/", "/", true, true, nil},
		{"dot components", root + "/./a/./b/.", root + "/a/b", true, true, nil},
		{"double slashes", root + "//a///b//file.txt", root + "/a/b/file.txt", true, false, nil},
		{"dotdot plain", root + "/a/b/../b/file.txt", root + "/a/b/file.txt", true, false, nil},
		{"dotdot above slash", "/../../" + root[1:], root, true, true, nil},
		{"relative link", root + "/a/relb/file.txt", root + "/a/b/file.txt", true, false, nil},
		{"absolute link", root + "/absb/file.txt", root + "/a/b/file.txt", true, false, nil},
		{"final link to file", root + "/c/tofile", root + "/a/b/file.txt", true, false, nil},
		{"chain of links", root + "/a/chain2/file.txt", root + "/a/b/file.txt", true, false, nil},
		{"link then dotdot is target's parent", root + "/deep/..", root + "/a", true, true, nil},
		{"link then dotdot then file", root + "/deep/../b/file.txt", root + "/a/b/file.txt", true, false, nil},
		{"trailing slash on link", root + "/absb/", root + "/a/b", true, true, nil},
		{"final link to folder", root + "/absb", root + "/a/b", true, true, nil},
		{"escape absolute", root + "/escape/secret", out + "/secret", true, false, nil},
		{"escape final", root + "/escape", out, true, true, nil},
		{"escape trailing slash", root + "/escape/", out, true, true, nil},
		{"dangling final link", root + "/a/dangling", root + "/a/nowhere/deeper", false, false, nil},
		{"dangling link outside", root + "/danglingout", out + "/new/x", false, false, nil},
		{"under dangling link", root + "/danglingout/y", out + "/new/x/y", false, false, nil},
		{"nonexistent tail", root + "/a/nope/x/y", root + "/a/nope/x/y", false, false, nil},
		{"nonexistent tail dotdot", root + "/a/nope/x/../y", root + "/a/nope/y", false, false, nil},
		{"dotdot back into existing follows links", root + "/nope/../escape/secret", out + "/secret", true, false, nil},
		{"under a file", root + "/a/b/file.txt/x", root + "/a/b/file.txt/x", false, false, nil},
		{"dot link", root + "/a/dot/dot/b", root + "/a/b", true, true, nil},
		{"loop", root + "/loop1", "", false, false, ErrLoop},
		{"self loop", root + "/self/x", "", false, false, ErrLoop},
		{"relative path", "a/b", "", false, false, ErrRelativePath},
		{"empty path", "", "", false, false, ErrRelativePath},
	}
	if sameParent {
		cases = append(cases, struct {
			name, in, want string
			exists, dir    bool
			err            error
		}{"relative link outside", root + "/a/relout", out + "/odir", true, true, nil})
	}
	r := NewResolver(mustRoots(t, root))
	for _, c := range cases {
		got, err := r.Resolve(c.in)
		if c.err != nil {
			if !errors.Is(err, c.err) {
				t.Errorf("%s: Resolve(%q) error = %v, want %v", c.name, c.in, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: Resolve(%q): %v", c.name, c.in, err)
			continue
		}
		if got.Path != c.want || got.Exists != c.exists || got.Dir != c.dir {
			t.Errorf("%s: Resolve(%q) = %+v, want {%s %v %v}", c.name, c.in, got, c.want, c.exists, c.dir)
		}
		// Where the path exists, the kernel's answer is the reference.
		if c.exists {
			if ev, err := filepath.EvalSymlinks(c.in); err == nil && ev != got.Path {
				t.Errorf("%s: EvalSymlinks(%q) = %q, Resolve = %q", c.name, c.in, ev, got.Path)
			}
		}
	}
}

func mustRoots(t testing.TB, dirs ...string) *Roots {
	t.Helper()
	r, err := NewRoots(dirs...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRootsContains(t *testing.T) {
	base := tempRoot(t)
	root := base + "/proj"
	mkdirAll(t, root+"/sub")
	mkdirAll(t, root+"-evil")
	symlink(t, root, base+"/link")
	r := mustRoots(t, base+"/link") // stored resolved
	if got := r.List(); !slices.Equal(got, []string{root}) {
		t.Fatalf("List = %v, want [%s]", got, root)
	}
	cases := []struct {
		p    string
		want bool
	}{
		{root, true},
		{root + "/sub", true},
		{root + "/sub/new", true},
		{root + "-evil", false},
		{root + "-evil/x", false},
		{root + "evil", false},
		{base, false},
		{"/", false},
		{root + "/", true},
	}
	for _, c := range cases {
		if got := r.Contains(c.p); got != c.want {
			t.Errorf("Contains(%q) = %v, want %v", c.p, got, c.want)
		}
	}
	if _, err := r.Add("rel/dir"); !errors.Is(err, ErrRelativeRoot) || !strings.Contains(err.Error(), "rel/dir") {
		t.Errorf("Add(relative) error = %v", err)
	}
	if _, err := NewRoots("x"); !errors.Is(err, ErrRelativeRoot) {
		t.Errorf("NewRoots(relative) error = %v", err)
	}
	// Nested roots: Which is the innermost.
	if _, err := r.Add(root + "/sub"); err != nil {
		t.Fatal(err)
	}
	if got := r.Which(root + "/sub/x"); got != root+"/sub" {
		t.Errorf("Which = %q", got)
	}
	if got := r.Which(root + "/x"); got != root {
		t.Errorf("Which = %q", got)
	}
	if got := r.Remove(base + "/link"); got != root {
		t.Errorf("Remove(link) = %q, want %q", got, root)
	}
	if r.Contains(root+"/x") || !r.Contains(root+"/sub/y") {
		t.Errorf("after Remove: %v", r.List())
	}
	if got := r.Remove("/nonexistent/root"); got != "" {
		t.Errorf("Remove(unknown) = %q", got)
	}
	all := mustRoots(t, "/")
	if !all.Contains("/etc") || !all.Contains("/") {
		t.Error("root / must contain everything")
	}
}

func TestLinksOutsideWalk(t *testing.T) {
	root := tempRoot(t)
	out := tempRoot(t)
	writeFile(t, root+"/src/a.go", "package a")
	symlink(t, out, root+"/src/deep/escape")
	symlink(t, "../a.go", root+"/src/deep/inside")
	symlink(t, "/nonexistent/x", root+"/src/dangling")
	symlink(t, "loop", root+"/src/loop")
	r := NewResolver(mustRoots(t, root))
	got := r.LinksOutside(root + "/src")
	want := []string{root + "/src/dangling", root + "/src/deep/escape", root + "/src/loop"}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("LinksOutside = %v, want %v", got, want)
	}
	if got := r.LinksOutside(root + "/src/deep/inside"); len(got) != 0 {
		t.Errorf("LinksOutside(inside link) = %v", got)
	}
	// Past the bound: a sentinel, so callers fail closed.
	r.walkBound = 2
	got = r.LinksOutside(root)
	if len(got) == 0 || !strings.Contains(got[len(got)-1], "more than 2 entries") {
		t.Errorf("bounded LinksOutside = %v, want a sentinel", got)
	}
}

func BenchmarkResolve(b *testing.B) {
	root := tempRoot(b)
	writeFile(b, root+"/src/pkg/file.go", "x")
	p := root + "/src/pkg/file.go"
	r := NewResolver(mustRoots(b, root))
	n := strings.Count(p, "/")
	b.Run("Resolve", func(b *testing.B) {
		b.ReportMetric(float64(n), "components")
		for b.Loop() {
			if _, err := r.Resolve(p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("EvalSymlinks", func(b *testing.B) {
		for b.Loop() {
			if _, err := filepath.EvalSymlinks(p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Resolve4", func(b *testing.B) {
		// A four-component path, the target's shape.
		q := "/usr/share/doc/."
		for b.Loop() {
			if _, err := r.Resolve(q); err != nil {
				b.Fatal(err)
			}
		}
	})
	symlink(b, root+"/src", root+"/link")
	b.Run("ResolveThroughLink", func(b *testing.B) {
		q := root + "/link/pkg/file.go"
		for b.Loop() {
			if _, err := r.Resolve(q); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func TestLinksOutsideThroughInsideLinks(t *testing.T) {
	root := tempRoot(t)
	out := tempRoot(t)
	writeFile(t, root+"/docs/guide.md", "x")
	writeFile(t, root+"/vendor/lib.go", "x")
	writeFile(t, root+"/a/b/c.txt", "x")
	symlink(t, "../vendor", root+"/docs/to-vendor")
	symlink(t, out, root+"/vendor/out")
	// A chain of inside links, and cycles between them.
	symlink(t, "../a", root+"/docs/to-a")
	symlink(t, "../../docs", root+"/a/b/back")
	symlink(t, ".", root+"/a/self")
	symlink(t, "../../x", root+"/a/b/to-x")
	writeFile(t, root+"/x/y/z", "x")
	symlink(t, "/etc", root+"/x/y/etc")
	r := NewResolver(mustRoots(t, root))
	got := r.LinksOutside(root + "/docs")
	slices.Sort(got)
	want := []string{root + "/vendor/out", root + "/x/y/etc"}
	if !slices.Equal(got, want) {
		t.Errorf("LinksOutside(docs) = %v, want %v", got, want)
	}
	// Nothing outside is reachable from a/b/c.txt's folder without the links.
	if got := r.LinksOutside(root + "/a/b/c.txt"); len(got) != 0 {
		t.Errorf("LinksOutside(file) = %v", got)
	}
	// Many folders reached through links: past the bound, a sentinel.
	many := tempRoot(t)
	for i := range maxFollowedDirs + 2 {
		writeFile(t, fmt.Sprintf("%s/d%d/f", many, i), "x")
		symlink(t, fmt.Sprintf("../d%d", i), fmt.Sprintf("%s/top/l%d", many, i))
	}
	r = NewResolver(mustRoots(t, many))
	got = r.LinksOutside(many + "/top")
	if len(got) == 0 || !strings.Contains(got[len(got)-1], "folders reached through symlinks") {
		t.Errorf("LinksOutside(many) = %v, want a sentinel", got)
	}
}

// The Resolver trusts the folder that holds a root, not the root: a root
// replaced by a link after it was added is followed like any other link.
func TestResolveRootReplacedByLink(t *testing.T) {
	parent := tempRoot(t)
	root := parent + "/ws"
	out := tempRoot(t)
	writeFile(t, root+"/file", "x")
	writeFile(t, out+"/file", "secret")
	roots, err := NewRoots(root)
	if err != nil {
		t.Fatal(err)
	}
	r := NewResolver(roots)
	if got, err := r.Resolve(root + "/file"); err != nil || got.Path != root+"/file" {
		t.Fatalf("Resolve before = %+v, %v", got, err)
	}
	if err := os.Rename(root, parent+"/moved"); err != nil {
		t.Fatal(err)
	}
	symlink(t, out, root)
	got, err := r.Resolve(root + "/file")
	if err != nil || got.Path != out+"/file" {
		t.Errorf("Resolve after the root became a link = %+v, %v; want %s", got, err, out+"/file")
	}
	// ".." after the link is the parent of its target, as the kernel has it.
	if got, err := r.Resolve(root + "/../moved/file"); err != nil || got.Path != filepath.Dir(out)+"/moved/file" || got.Exists {
		t.Errorf("Resolve through the link and .. = %+v, %v", got, err)
	}
}

// ResolveIn answers what Resolve does for a name in a resolved folder:
// a file, a link to a file, a link out, a missing name, "." and "..".
func TestResolveIn(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(base, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "tool"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"alias": "tool", "out": "/etc/passwd", "dangling": "nowhere", "up": ".."} {
		if err := os.Symlink(target, filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	r := NewResolver(mustRoots(t, base))
	for _, name := range []string{"tool", "alias", "out", "dangling", "up", "missing", ".", ".."} {
		want, werr := r.Resolve(bin + "/" + name)
		got, gerr := r.ResolveIn(bin, name)
		if (werr == nil) != (gerr == nil) || got != want {
			t.Errorf("%s: ResolveIn %+v (%v), Resolve %+v (%v)", name, got, gerr, want, werr)
		}
	}
	if _, err := r.ResolveIn(bin, "a/b"); err == nil {
		t.Error("a name with a slash was resolved")
	}
}

// TestSplitNames: the names xargs without -0 would not read whole, or a
// shell would expand in an unquoted $(...)'s output, under
// the folder and under the folders inside the roots its links lead to;
// the folder's own name is the caller's to judge.
func TestSplitNames(t *testing.T) {
	root := tempRoot(t)
	writeFile(t, root+"/my dir/plain.go", "x")
	writeFile(t, root+"/my dir/sub/a b.go", "x")
	writeFile(t, root+"/my dir/it's.go", "x")
	writeFile(t, root+"/other/back\\slash", "x")
	writeFile(t, root+"/other/new\nline", "x")
	writeFile(t, root+"/other/star*", "x")
	writeFile(t, root+"/other/=equals", "x")
	writeFile(t, root+"/clean/x.go", "x")
	writeFile(t, root+"/clean/x+y=z@w.go", "x")
	symlink(t, "../other", root+"/my dir/to-other")
	r := NewResolver(mustRoots(t, root))
	got := r.SplitNames(root + "/my dir")
	want := []string{root + "/my dir/it's.go", root + "/my dir/sub/a b.go", root + "/other/=equals", root + "/other/back\\slash", root + "/other/new\nline", root + "/other/star*"}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("SplitNames = %q, want %q", got, want)
	}
	if got := r.SplitNames(root + "/clean"); len(got) != 0 {
		t.Errorf("SplitNames(clean) = %q", got)
	}
	r.walkBound = 1
	if got := r.SplitNames(root + "/clean"); len(got) == 0 || !strings.Contains(got[len(got)-1], "more than 1 entries") {
		t.Errorf("bounded SplitNames = %q, want a sentinel", got)
	}
}

// TestOptionNames: the names starting with "-" under the folder and
// under the folders inside the roots its links lead to, which a program
// handed them whole reads as options.
func TestOptionNames(t *testing.T) {
	root := tempRoot(t)
	writeFile(t, root+"/w/plain.go", "x")
	writeFile(t, root+"/w/--compress-program=sh", "")
	writeFile(t, root+"/w/sub/-S1", "")
	writeFile(t, root+"/w/a-b", "")
	writeFile(t, root+"/other/-rf", "")
	writeFile(t, root+"/clean/x.go", "x")
	symlink(t, "../other", root+"/w/to-other")
	r := NewResolver(mustRoots(t, root))
	got := r.OptionNames(root + "/w")
	want := []string{root + "/other/-rf", root + "/w/--compress-program=sh", root + "/w/sub/-S1"}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("OptionNames = %q, want %q", got, want)
	}
	if got := r.OptionNames(root + "/clean"); len(got) != 0 {
		t.Errorf("OptionNames(clean) = %q", got)
	}
	r.walkBound = 1
	if got := r.OptionNames(root + "/clean"); len(got) == 0 || !strings.Contains(got[len(got)-1], "more than 1 entries") {
		t.Errorf("bounded OptionNames = %q, want a sentinel", got)
	}
}

// TestResolveForeign: a file or folder another user owns is reported
// Foreign, through a link too; the process's own and root's are not.
func TestResolveForeign(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("giving a folder to another user needs root")
	}
	dir := t.TempDir()
	theirs, mine := filepath.Join(dir, "theirs"), filepath.Join(dir, "mine")
	for _, p := range []string{theirs, mine} {
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chown(theirs, 4321, 4321); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(theirs, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{theirs: true, filepath.Join(dir, "link"): true, mine: false, filepath.Join(theirs, "missing"): false} {
		r, err := NewResolver(mustRoots(t, dir)).Resolve(p)
		if err != nil {
			t.Fatal(err)
		}
		if r.Foreign != want {
			t.Errorf("%s: Foreign %v, want %v", p, r.Foreign, want)
		}
	}
}
