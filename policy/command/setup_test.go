package command

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// workspace is a real temporary workspace for the tests:
//
//	base/ws            the main root: files, folders, .git, .vscode, .admit,
//	                   symlinks inside and to outside, a dangling link
//	base/ws-evil       a sibling whose name starts with the root's
//	base/outside       files outside every root
//	base/pager         a root whose .git/config sets core.pager
//	base/tconv         a root whose .git/config sets diff.bin.textconv
//	base/inc           a root whose .git/config includes a file that sets core.fsmonitor
//	base/home          the home directory
type workspace struct {
	base, ws string
	roots    []string
	fs       *testFS
}

func newWorkspace(t testing.TB) *workspace {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &workspace{base: base, ws: filepath.Join(base, "ws")}
	files := map[string]string{
		"ws/README.md": "# readme\n", "ws/a.txt": "a\n", "ws/b.txt": "b\n", "ws/a": "a\n", "ws/b": "b\n", "ws/c": "c\n",
		"ws/notes.md": "notes\n", "ws/src/a.go": "package a\n", "ws/src/b.go": "package a\n", "ws/src/sub/c.go": "package sub\n",
		"ws/docs/guide.md": "guide\n", "ws/deep/sub/f": "", "ws/build/x.o": "obj", "ws/vendor/lib.go": "package lib\n", "ws/empty/.keep": "",
		"ws/-n": "dash\n", "ws/sums.txt": "", "ws/list": "",
		"ws/.git/config": "[core]\n\tbare = false\n", "ws/.git/HEAD": "ref: refs/heads/main\n",
		"ws/.vscode/settings.json": "{}", "ws/.admit/policy.json": "{}", "ws/.github/workflows/ci.yml": "on: push\n",
		"ws/.gitattributes": "*.bin binary\n", "ws/.envrc": "",
		"ws-evil/secret.txt": "s", "outside/secret.txt": "s", "outside/dir/x": "x",
		"pager/.git/config": "[core]\n\tpager = less -R\n", "pager/x.txt": "x",
		"tconv/.git/config": "[diff \"bin\"]\n\ttextconv = hexdump -C\n", "tconv/x.txt": "x",
		"inc/.git/config": "[include]\n\tpath = extra.cfg\n", "inc/.git/extra.cfg": "[core]\n\tfsmonitor = ./watch\n", "inc/x.txt": "x",
		"home/.bashrc": "",
	}
	for name, body := range files {
		p := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"ws/link-out":       filepath.Join(base, "outside/secret.txt"),
		"ws/dirlink-out":    filepath.Join(base, "outside"),
		"ws/dangling":       filepath.Join(base, "outside/nothere"),
		"ws/dangling-in":    "new.txt",
		"ws/link-in":        "src/a.go",
		"ws/linkdir-in":     "src",
		"ws/vendor/out":     "../../outside",
		"ws/link-admit":     ".admit/policy.json",
		"ws/link-gitcfg":    ".git/config",
		"ws/.git/evil":      "../.admit/policy.json",
		"ws/relup":          "../outside/secret.txt",
		"ws/deep/sub/upper": "../..",
		"ws/deep/tosrc":     "../src/sub",
		"ws/docs/to-vendor": "../vendor",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(base, name)); err != nil {
			t.Fatal(err)
		}
	}
	w.roots = []string{w.ws, filepath.Join(base, "pager"), filepath.Join(base, "tconv"), filepath.Join(base, "inc")}
	w.fs = newTestFS(w.roots...)
	return w
}

// obs builds observations from "d:dir f:file s:file" (relative to base/ws,
// or to base with a leading "/").
func (w *workspace) obs(spec string) *testObs {
	o := &testObs{files: map[string]ObsState{}, dirs: map[string]bool{}}
	for _, tok := range strings.Fields(spec) {
		kind, rel, _ := strings.Cut(tok, ":")
		p := filepath.Join(w.ws, rel)
		if strings.HasPrefix(rel, "/") {
			p = filepath.Join(w.base, rel)
		}
		switch kind {
		case "d":
			o.dirs[p] = true
		case "f":
			o.files[p] = Observed
		case "s":
			o.files[p] = Stale
		}
	}
	return o
}

func (w *workspace) expand(s string) string {
	return strings.NewReplacer("@W", w.ws, "@B", w.base).Replace(s)
}

func (w *workspace) context(write bool, spec string) *Context {
	c := &Context{Roots: w.roots, Effects: ReadOnly, Home: filepath.Join(w.base, "home"), FS: w.fs, Obs: w.obs(spec)}
	if write {
		c.Effects = WorkspaceWrite
	}
	return c
}
