package connect

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"admit/internal/sysfile"
)

// System is what the package reads of the machine: files, folders, the
// environment. OS is the real one; the package itself does no I/O but
// through a System (and a Writer, to write).
type System interface {
	ReadFile(name string) ([]byte, error)
	Stat(name string) (fs.FileInfo, error)
	Lstat(name string) (fs.FileInfo, error)
	ReadDir(name string) ([]fs.DirEntry, error)
	EvalSymlinks(path string) (string, error)
	Getenv(key string) string
}

// Writer changes files. WriteFile replaces a file whole and atomically (a
// reader sees the old content or the new, never a part), with perm.
type Writer interface {
	WriteFile(name string, data []byte, perm fs.FileMode) error
	Remove(name string) error
	MkdirAll(path string, perm fs.FileMode) error
}

// OS is the machine: the os package. Env, when set, replaces the process
// environment (tests, and a server that reads its client's).
type OS struct {
	Env func(string) string
}

func (OS) ReadFile(name string) ([]byte, error)       { return os.ReadFile(name) }
func (OS) Stat(name string) (fs.FileInfo, error)      { return os.Stat(name) }
func (OS) Lstat(name string) (fs.FileInfo, error)     { return os.Lstat(name) }
func (OS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }
func (OS) EvalSymlinks(path string) (string, error)   { return filepath.EvalSymlinks(path) }
func (OS) Remove(name string) error                   { return os.Remove(name) }
func (OS) MkdirAll(path string, perm fs.FileMode) error {
	return os.MkdirAll(path, perm)
}

// Getenv reads the environment.
func (o OS) Getenv(key string) string {
	if o.Env != nil {
		return o.Env(key)
	}
	return os.Getenv(key)
}

// WriteFile replaces name with data durably (sysfile.WriteAtomic).
func (OS) WriteFile(name string, data []byte, perm fs.FileMode) error {
	return sysfile.WriteAtomic(name, data, perm)
}

// lookPath finds program in the folders of $PATH, as a shell would: a
// regular file with an execute bit.
func lookPath(sys System, program string) string {
	for _, dir := range filepath.SplitList(sys.Getenv("PATH")) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, program)
		if fi, err := sys.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// BinaryError says why a binary may not be written into a hook
// configuration.
type BinaryError struct {
	Path   string
	Reason string
}

func (e *BinaryError) Error() string {
	return fmt.Sprintf("the admit binary %q cannot be named in a hook configuration: %s", e.Path, e.Reason)
}

// Place is where a binary must not be: the workspaces a repository's
// agent works in, and folders whose files do not last.
type Place struct {
	// Workspaces are folders an agent works in (the editor's workspace
	// folders, the working folder's repository): a binary inside one is
	// one the agent can replace.
	Workspaces []string
	// Temp are temporary folders (go run and test builds live there and
	// vanish, leaving the hook pointing at nothing).
	Temp []string
}

// CheckBinary says whether bin may be the admit binary that hook
// configurations name: an absolute, clean path to an executable regular
// file that the person alone can change, outside every workspace and
// repository and temporary folder, by its own path and by the file a
// symlink leads to. home is the person's home folder (a home folder kept
// in git is not a repository for this purpose: everything of the
// person's would be inside it).
func CheckBinary(sys System, bin, home string, p Place) error {
	fail := func(format string, args ...any) error {
		return &BinaryError{Path: bin, Reason: fmt.Sprintf(format, args...)}
	}
	switch {
	case bin == "":
		return fail("no path given")
	case !filepath.IsAbs(bin):
		return fail("the path is relative; a hook must name the binary by its absolute path, never a name looked up on PATH")
	case strings.ContainsFunc(bin, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return fail("the path holds a control character, which a hook's command line cannot carry safely")
	case filepath.Clean(bin) != bin:
		return fail("the path is not clean (%q): name the file itself", filepath.Clean(bin))
	case !(invocation{program: bin, literal: true, args: []string{"hook", "x"}}).admitFor("x"):
		// Entries are known for admit's by the program's name: one
		// named otherwise would not be found again (to report, update or
		// undo), and each connect would add another.
		return fail("its name is %q, not admit: install it (or link it) as admit", filepath.Base(bin))
	}
	real, err := sys.EvalSymlinks(bin)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fail("no such file")
		}
		return fail("%v", err)
	}
	fi, err := sys.Stat(real)
	if err != nil {
		return fail("%v", err)
	}
	switch {
	case !fi.Mode().IsRegular():
		return fail("it is not a regular file")
	case fi.Mode().Perm()&0o111 == 0 && !strings.EqualFold(filepath.Ext(real), ".exe"):
		return fail("it is not executable")
	}
	for _, path := range uniq(bin, real) {
		dir := filepath.Dir(path)
		for _, f := range []string{path, dir} {
			if fi, err := sys.Stat(f); err == nil && fi.Mode().Perm()&0o002 != 0 {
				return fail("%s is writable by every user, so anyone could replace the gate", f)
			}
		}
		for _, ws := range p.Workspaces {
			if within(sys, path, ws) {
				return fail("it is inside the workspace %s, where an agent can replace it: install admit outside (%s)", ws, installElsewhere(bin))
			}
		}
		for _, t := range p.Temp {
			if within(sys, path, t) {
				return fail("it is inside the temporary folder %s, whose files do not last (a go run or test build): install admit, then connect from the installed binary (%s)", t, installElsewhere(bin))
			}
		}
		if repo := repository(sys, dir, home, append([]string{"/tmp", "/var/tmp"}, p.Temp...)); repo != "" {
			return fail("it is inside the repository %s, where an agent can replace it: install admit outside any repository (%s)", repo, installElsewhere(bin))
		}
	}
	return nil
}

func uniq(a, b string) []string {
	if a == b {
		return []string{a}
	}
	return []string{a, b}
}

// within says whether path is folder or inside it, comparing both as
// given and with symlinks resolved.
func within(sys System, path, folder string) bool {
	if folder == "" {
		return false
	}
	in := func(p, f string) bool {
		rel, err := filepath.Rel(f, p)
		return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
	}
	if in(path, filepath.Clean(folder)) {
		return true
	}
	rf, err1 := sys.EvalSymlinks(folder)
	rp, err2 := sys.EvalSymlinks(path)
	return err1 == nil && err2 == nil && in(rp, rf)
}

// installElsewhere says how to put bin where a hook may name it.
func installElsewhere(bin string) string {
	return "for example: install -D -m 0755 " + shellQuote(bin) + " ~/.local/bin/admit && ~/.local/bin/admit connect; or go install, which puts it in ~/go/bin"
}

// repository is the nearest folder from dir up that holds .git, other
// than home itself, the file system's root and the temporary folders
// temp (anyone may make a .git there, and nobody keeps a repository
// there), or "".
func repository(sys System, dir, home string, temp []string) string {
	home = filepath.Clean(home)
	for d := dir; ; d = filepath.Dir(d) {
		stray := filepath.Dir(d) == d
		for _, t := range temp {
			if t != "" && d == filepath.Clean(t) {
				stray = true
			}
		}
		if d != home && !stray {
			if _, err := sys.Lstat(filepath.Join(d, ".git")); err == nil {
				return d
			}
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}
