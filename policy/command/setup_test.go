package command

import (
	"path/filepath"
	"strings"
	"testing"

	"admit/internal/cases"
	"admit/policy/shell"
)

// workspace is the corpus's workspace (internal/cases,
// testdata/workspace.txtar) for the tests inside the package, over the
// test FS:
//
//	base/ws            the main root: files, folders, .git, .vscode, .admit,
//	                   symlinks inside and to outside, a dangling link
//	base/ws-evil       a sibling whose name starts with the root's
//	base/outside       files outside every root
//	base/pager         a root whose .git/config sets core.pager
//	base/tconv         a root whose .git/config sets diff.bin.textconv
//	base/inc           a root whose .git/config includes a file that sets core.fsmonitor
//	base/home          the home directory
//
// The corpus's own cases run in TestCases (cases_test.go), over the
// workspace's real resolver.
type workspace struct {
	base, ws, home string
	roots          []string
	fs             *testFS
}

func newWorkspace(t testing.TB) *workspace {
	t.Helper()
	cw := cases.Build(t, nil)
	return &workspace{base: cw.Base, ws: cw.Root, home: cw.Home, roots: cw.Roots, fs: newTestFS(cw.Roots...)}
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
	c := &Context{Roots: w.roots, Effects: ReadOnly, Home: w.home, FS: w.fs, Obs: w.obs(spec)}
	if write {
		c.Effects = WorkspaceWrite
	}
	return c
}

// lineCases are the corpus's command-line cases judged in the main root's
// workspace (themes with roots of their own left out).
func lineCases(t testing.TB) []cases.Case {
	t.Helper()
	themes, err := cases.Themes()
	if err != nil {
		t.Fatal(err)
	}
	var out []cases.Case
	for _, th := range themes {
		if th.Roots != nil {
			continue
		}
		for _, c := range th.Cases {
			if c.LineSet {
				out = append(out, c)
			}
		}
	}
	return out
}

// caseContext is the context of a corpus case over the test FS, with its
// observations, and the folder it runs in.
func (w *workspace) caseContext(c *cases.Case) (*Context, string) {
	cwd := filepath.Join(w.ws, c.Cwd)
	o := &testObs{files: map[string]ObsState{}, dirs: map[string]bool{}}
	resolve := func(rel string) string {
		r, err := w.fs.Resolve(filepath.Join(cwd, rel))
		if err != nil {
			return filepath.Join(cwd, rel)
		}
		return r.Path
	}
	for _, p := range c.Observed {
		o.files[resolve(p)] = Observed
	}
	for _, p := range c.Stale {
		o.files[resolve(p)] = Stale
	}
	for _, p := range c.ObservedDir {
		o.dirs[resolve(p)] = true
	}
	ctx := &Context{Roots: w.roots, Effects: Effects(c.Effects), Profile: shell.Profile(c.Shell), Home: w.home, FS: w.fs, Obs: o,
		Substitutions: c.AdmitRuns, AdmitRuns: c.AdmitRuns}
	return ctx, cwd
}
