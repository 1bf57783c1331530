package run

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"golang.org/x/sys/unix"
)

// A protected folder that does not exist at a root yet (.vscode, .github,
// .admit, .devcontainer: Spec.RootFolders) is kept from being made by a
// run of code, not only undone after it: before the run admit makes it,
// empty, in the root (mkdirat on the root's descriptor: a name the
// workspace made a symlink meanwhile is never followed), and the confiner
// binds it read-only like every protected path, so inside the run it is
// an empty folder that cannot gain an entry, be removed, or be replaced
// (a rename onto a mount point is refused). When the run has ended, each
// is removed if it is still the folder admit made and still empty; one
// the person (or their editor) wrote into meanwhile is theirs and stays
// (docs/confinement.md, "Protected paths a run cannot make").

// placeholder is an empty folder admit made at a root for one run.
type placeholder struct {
	root, name string
	// dev, ino and ctime tell it from a folder the person made again in
	// its place (an inode number is soon given again; the change time
	// with it is not, and nothing the run can do changes it).
	dev, ino uint64
	ctime    unix.Timespec
}

func (p placeholder) path() string { return filepath.Join(p.root, p.name) }

// makePlaceholders makes every name of names that is not under a root
// yet, as an empty folder, skipping the paths in existing (the survey's
// protected paths, already kept). It returns the placeholders it made
// and what the confiner must bind read-only: those, and any of the names
// that appeared since the survey. A root admit itself cannot make
// entries in (read-only, not the person's) cannot gain one in the run
// either, and is left as it is.
func makePlaceholders(roots, names, existing []string) (made []placeholder, bind []string, err error) {
	for _, root := range roots {
		fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			removePlaceholders(made)
			return nil, nil, fmt.Errorf("open the root %s: %w", root, err)
		}
		for _, name := range names {
			p := filepath.Join(root, name)
			if slices.Contains(existing, p) {
				continue
			}
			switch err := unix.Mkdirat(fd, name, 0o777); {
			case err == nil:
				var st unix.Stat_t
				if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
					unix.Close(fd)
					removePlaceholders(made)
					return nil, nil, fmt.Errorf("stat the placeholder %s: %w", p, err)
				}
				made = append(made, placeholder{root: root, name: name, dev: st.Dev, ino: st.Ino, ctime: st.Ctim})
				bind = append(bind, p)
			case errors.Is(err, unix.EEXIST):
				bind = append(bind, p) // made since the survey: protected all the same
			case errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM), errors.Is(err, unix.EROFS):
			default:
				unix.Close(fd)
				removePlaceholders(made)
				return nil, nil, fmt.Errorf("make the placeholder %s: %w", p, err)
			}
		}
		unix.Close(fd)
	}
	return made, bind, nil
}

// removePlaceholders removes each placeholder that is still the folder
// admit made and still empty (rmdir refuses one that is not); it returns
// the paths it left, which the person wrote into or replaced.
func removePlaceholders(made []placeholder) (left []string) {
	fds := map[string]int{}
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	for _, p := range made {
		fd, ok := fds[p.root]
		if !ok {
			var err error
			if fd, err = unix.Open(p.root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err != nil {
				left = append(left, p.path())
				continue
			}
			fds[p.root] = fd
		}
		var st unix.Stat_t
		if err := unix.Fstatat(fd, p.name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil ||
			st.Dev != p.dev || st.Ino != p.ino || st.Ctim != p.ctime || st.Mode&unix.S_IFMT != unix.S_IFDIR {
			if err == nil {
				left = append(left, p.path())
			}
			continue
		}
		if unix.Unlinkat(fd, p.name, unix.AT_REMOVEDIR) != nil {
			left = append(left, p.path())
		}
	}
	return left
}
