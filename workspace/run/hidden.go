package run

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"admit/internal/sysfile"
)

// Spec.Hidden are secret files of the workspace (a .env beside a walk
// such as grep -rn TODO .) that the run must not read: each that is a
// regular file when the run starts reads as an empty file inside it, and
// cannot be written. On Linux the confiner binds an empty read-only file
// over each (confiner_linux.go, hideFile); on macOS the profile denies
// reading and writing each (seatbelt.go). A redirection of the run's own
// reads one as empty too. Nothing is guessed: a hidden path that is a
// link, a folder or another kind of file fails the run closed, as does a
// hidden file with more than one link (another name would show it), and
// a run that cannot hide what exists (unconfined, no namespaces,
// Windows) is refused. A path that does not exist has nothing to hide.

// hiddenFile is a file hidden from the run, as it was when the run
// started.
type hiddenFile struct {
	path string // resolved, its final name not followed
	id   sysfile.Info
}

// HiddenError says why a secret file could not be hidden from the run:
// nothing ran. It matches ErrRefused.
type HiddenError struct {
	Path   string
	Reason string
}

func (e *HiddenError) Error() string {
	return fmt.Sprintf("refused: the secret file %s could not be hidden from the run: %s", e.Path, e.Reason)
}

func (e *HiddenError) Is(target error) bool { return target == ErrRefused }

// hiddenFiles checks Spec.Hidden: each path absolute; those that exist
// regular files with one link, not written by the run. The folder above
// each is resolved, the final name is not: a link there is refused, not
// followed.
func hiddenFiles(paths, writes []string) ([]hiddenFile, error) {
	var out []hiddenFile
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("%w: hidden path %q is not absolute", ErrSetup, p)
		}
		real := filepath.Join(resolve(filepath.Dir(filepath.Clean(p))), filepath.Base(p))
		id, err := sysfile.Lstat(real)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue // nothing to hide
		case err != nil:
			return nil, &HiddenError{Path: p, Reason: err.Error()}
		case id.Mode&fs.ModeSymlink != 0:
			return nil, &HiddenError{Path: p, Reason: "it is a symbolic link (what it names is not guessed)"}
		case id.Mode.IsDir():
			return nil, &HiddenError{Path: p, Reason: "it is a folder, not a file"}
		case !id.Mode.IsRegular():
			return nil, &HiddenError{Path: p, Reason: "it is not a regular file"}
		case id.Links > 1:
			return nil, &HiddenError{Path: p, Reason: fmt.Sprintf("it is hard-linked (%d links): another name would show it", id.Links)}
		}
		for _, w := range writes {
			if w == real {
				return nil, &HiddenError{Path: p, Reason: "it is also a path the run may write"}
			}
		}
		if !containsHidden(out, real) {
			out = append(out, hiddenFile{path: real, id: id})
		}
	}
	return out, nil
}

func containsHidden(hs []hiddenFile, p string) bool {
	for _, h := range hs {
		if h.path == p {
			return true
		}
	}
	return false
}

// hiddenPaths are the paths of hs.
func hiddenPaths(hs []hiddenFile) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.path
	}
	return out
}

// isHidden reports whether the file open as f is one hidden from the run.
func (x *executor) isHidden(f *os.File) bool {
	if len(x.hidden) == 0 {
		return false
	}
	info, err := sysfile.FileStat(f)
	if err != nil {
		return true // unknown: taken as hidden, read as empty
	}
	for _, h := range x.hidden {
		if h.id.Same(info) {
			return true
		}
	}
	return false
}

// notHidden is the refusal of a run that has secret files to hide and no
// way to hide them here.
func notHidden(hs []hiddenFile, why string) error {
	return &HiddenError{Path: strings.Join(hiddenPaths(hs), ", "), Reason: why}
}
