package cases

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Workspace is the corpus's workspace, built in a temporary folder.
type Workspace struct {
	Base  string   // the folder holding everything, symlinks resolved (@B)
	Root  string   // the main root, Roots[0] (@W): cwd and observations are relative to it
	Roots []string // the roots the cases are judged under, absolute; Root first
	Home  string   // the home folder, outside every root
	// Policy is the theme's policy file (the main root's
	// .admit/policy.json), or "".
	Policy string
}

// Build makes the workspace of testdata/workspace.txtar in t.TempDir(),
// with th's roots and policy file when th is not nil.
func Build(t TB, th *Theme) *Workspace {
	t.Helper()
	w, err := build(t.TempDir(), th)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func build(dir string, th *Theme) (*Workspace, error) {
	base, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	data, err := corpus.ReadFile("testdata/workspace.txtar")
	if err != nil {
		return nil, err
	}
	a := parseArchive(data)
	w := &Workspace{Base: base}
	var roots []string
	for _, line := range strings.Split(a.comment, "\n") {
		switch {
		case strings.HasPrefix(line, "roots:"):
			roots = strings.Fields(strings.TrimPrefix(line, "roots:"))
		case strings.HasPrefix(line, "home:"):
			w.Home = filepath.Join(base, strings.TrimSpace(strings.TrimPrefix(line, "home:")))
		}
	}
	if len(roots) == 0 || w.Home == "" {
		return nil, fmt.Errorf("workspace.txtar: the comment must name the roots: and the home:")
	}
	for _, s := range a.sections {
		if err := w.make(s); err != nil {
			return nil, fmt.Errorf("workspace.txtar:%d: %s: %w", s.line, s.name, err)
		}
	}
	if th != nil && th.Roots != nil {
		roots = th.Roots
	}
	for _, r := range roots {
		w.Roots = append(w.Roots, filepath.Join(base, r))
	}
	w.Root = w.Roots[0]
	if th != nil && th.Policy != "" {
		w.Policy = th.Policy
		p := filepath.Join(w.Root, ".admit", "policy.json")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, []byte(th.Policy+"\n"), 0o644); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// make creates what one section of workspace.txtar describes.
func (w *Workspace) make(s section) error {
	name, target, isLink := strings.Cut(s.name, " -> ")
	name, hardTarget, isHard := strings.Cut(name, " => ")
	name, exec := strings.CutSuffix(name, " (executable)")
	name, fifo := strings.CutSuffix(name, " (fifo)")
	p := filepath.Join(w.Base, filepath.FromSlash(strings.TrimSuffix(name, "/")))
	if !strings.HasPrefix(p, w.Base+string(filepath.Separator)) {
		return fmt.Errorf("outside the workspace's base")
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	switch {
	case isLink:
		if s.data != "" {
			return fmt.Errorf("a link has no content")
		}
		return os.Symlink(strings.ReplaceAll(target, "@B", w.Base), p)
	case isHard:
		if s.data != "" {
			return fmt.Errorf("a hard link has no content of its own")
		}
		return os.Link(strings.ReplaceAll(hardTarget, "@B", w.Base), p)
	case fifo:
		if s.data != "" {
			return fmt.Errorf("a FIFO has no content")
		}
		return mkfifo(p)
	case strings.HasSuffix(name, "/"):
		if s.data != "" {
			return fmt.Errorf("a folder has no content")
		}
		return os.MkdirAll(p, 0o755)
	}
	mode := os.FileMode(0o644)
	if exec {
		mode = 0o755
	}
	if err := os.WriteFile(p, []byte(s.data), mode); err != nil {
		return err
	}
	return os.Chmod(p, mode) // past the umask
}

// Expand replaces @W with the main root and @B with the base.
func (w *Workspace) Expand(s string) string {
	return strings.NewReplacer("@W", w.Root, "@B", w.Base).Replace(s)
}

// Cwd is the case's working folder, absolute.
func (w *Workspace) Cwd(c *Case) string { return filepath.Join(w.Root, c.Cwd) }

// Abs is a path of the case (an observation) made absolute from its cwd.
func (w *Workspace) Abs(c *Case, rel string) string {
	if filepath.IsAbs(rel) {
		return filepath.Clean(rel)
	}
	return filepath.Join(w.Cwd(c), rel)
}

// PathList is the case's PATH with @W and @B expanded, split into its
// folders, or nil when the case gives none.
func (w *Workspace) PathList(c *Case) []string {
	if c.Path == nil {
		return nil
	}
	return strings.Split(w.Expand(*c.Path), ":")
}
