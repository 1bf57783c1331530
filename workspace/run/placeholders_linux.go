package run

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

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
// the person (or their editor) wrote into meanwhile is theirs and stays;
// where something else stands in its place, it is undone as made by the
// run (docs/confinement.md, "Protected paths a run cannot make").

// placeholder is an empty folder admit made at a root for one run.
type placeholder struct {
	root, name string
	id         folderID
}

// folderID tells a folder from one made again in its place: an inode
// number is soon given again, its birth time with it is not (where the
// file system keeps one), and neither changes as entries are made in it.
// The birth time moves in the file system's clock ticks (a few ms), so a
// folder removed and made again within one tick is taken as admit's: it
// is removed only if it is still empty, which loses nothing.
type folderID struct {
	devMajor, devMinor uint32
	ino                uint64
	birth              unix.StatxTimestamp // zero where the file system has none
	dir                bool
}

// idAt is the identity of name in the folder fd, not following a link.
func idAt(fd int, name string) (folderID, error) {
	var st unix.Statx_t
	if err := unix.Statx(fd, name, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_TYPE|unix.STATX_INO|unix.STATX_BTIME, &st); err != nil {
		return folderID{}, err
	}
	id := folderID{devMajor: st.Dev_major, devMinor: st.Dev_minor, ino: st.Ino, dir: st.Mode&unix.S_IFMT == unix.S_IFDIR}
	if st.Mask&unix.STATX_BTIME != 0 {
		id.birth = st.Btime
	}
	return id, nil
}

func (p placeholder) path() string { return filepath.Join(p.root, p.name) }

// makePlaceholders makes every name of names that is not under a root
// yet, as an empty folder, skipping the paths in existing (the survey's
// protected paths, already kept). It returns the placeholders it made
// and what the confiner must bind read-only: those, and any of the names
// that appeared since the survey. A root admit itself cannot make
// entries in (read-only, not the person's) cannot gain one in the run
// either, and is left as it is. With a ledger, what it is about to make
// is recorded there first, so that a killed admit's empties are found.
func makePlaceholders(roots, names, existing []string, rec *ledger) (made []placeholder, bind []string, err error) {
	return makeEmpties(nil, roots, names, existing, rec, nil)
}

// maxNestedRoots bounds the nested checkouts that get empties: each costs
// a metadata operation per missing name, before the run starts. Past it,
// what a run makes there is undone (undo.go).
const maxNestedRoots = 8

// nestedRoots are the folders of the survey's protected paths that hold a
// .git of their own (a submodule's or vendored clone's checkout, a
// worktree), below a root: an editor or git opened there reads their
// .vscode, .github/workflows, .husky as a root's, and a later admit may
// take one for a root. Not one inside another protected path (admit
// makes nothing in those) or a hard-linked folder, nearest the root
// first, at most maxNestedRoots.
func nestedRoots(roots []string, sv survey) []string {
	var out []string
	kept := slices.Concat(sv.protected, sv.linkBinds)
	for _, p := range sv.protected {
		if filepath.Base(p) != ".git" {
			continue
		}
		dir := filepath.Dir(p)
		if slices.Contains(roots, dir) || !within(dir, roots) || slices.Contains(out, dir) {
			continue
		}
		inner := false
		for _, q := range kept {
			if q != p && within(dir, []string{q}) {
				inner = true
				break
			}
		}
		if !inner {
			out = append(out, dir)
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		if d := strings.Count(a, "/") - strings.Count(b, "/"); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	if len(out) > maxNestedRoots {
		out = out[:maxNestedRoots]
	}
	return out
}

// makeNestedPlaceholders makes the empties of the nested checkouts
// (nestedRoots of roots), after the survey: prior are the roots' own,
// which the ledger keeps recording. A nested folder is opened from its
// root without following any link: one swapped for a link to a folder
// of the person's outside is never written into.
func makeNestedPlaceholders(roots, nested, names, existing []string, rec *ledger, prior []placeholder) (made []placeholder, bind []string, err error) {
	return makeEmpties(roots, nested, names, existing, rec, prior)
}

// openBeneath opens the folder dir of one of roots from that root's own
// descriptor, following no link on the way (RESOLVE_NO_SYMLINKS) and
// never leaving it (RESOLVE_BENEATH).
func openBeneath(roots []string, dir string) (int, error) {
	for _, root := range roots {
		rel, err := filepath.Rel(root, dir)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
			continue
		}
		rfd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return -1, err
		}
		defer unix.Close(rfd)
		return unix.Openat2(rfd, rel, &unix.OpenHow{
			Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC,
			Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_BENEATH,
		})
	}
	return -1, unix.ENOENT
}

// makeEmpties makes the empties of roots. With within, they are nested
// checkouts beneath those roots, opened from there (openBeneath), and one
// that cannot be opened so is skipped (moved or made a link meanwhile:
// what is made there is undone).
func makeEmpties(within, roots, names, existing []string, rec *ledger, prior []placeholder) (made []placeholder, bind []string, err error) {
	if rec != nil {
		planned := slices.Clone(prior)
		for _, root := range roots {
			for _, name := range names {
				if !slices.Contains(existing, filepath.Join(root, name)) {
					planned = append(planned, placeholder{root: root, name: name})
				}
			}
		}
		if err := rec.write(planned); err != nil {
			return nil, nil, err
		}
	}
	for _, root := range roots {
		var fd int
		var err error
		if within != nil {
			if fd, err = openBeneath(within, root); err != nil {
				continue
			}
		} else if fd, err = unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err != nil {
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
				id, err := idAt(fd, name)
				if err != nil {
					unix.Close(fd)
					removePlaceholders(made)
					return nil, nil, fmt.Errorf("stat the placeholder %s: %w", p, err)
				}
				made = append(made, placeholder{root: root, name: name, id: id})
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
	if rec != nil {
		if err := rec.write(append(slices.Clone(prior), made...)); err != nil {
			removePlaceholders(made)
			return nil, nil, err
		}
	}
	return made, bind, nil
}

// removePlaceholders removes each placeholder that is still the folder
// admit made and still empty (rmdir refuses one that is not). It returns
// those it kept, which the person wrote into (the run could not), and
// the paths where another file stands now: the placeholder was removed
// or moved from outside the run (git clean, by the person), which
// detaches it inside the run too, so what stands there may be the run's.
func removePlaceholders(made []placeholder) (kept, replaced []string) {
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
				kept = append(kept, p.path())
				continue
			}
			fds[p.root] = fd
		}
		switch id, err := idAt(fd, p.name); {
		case err != nil:
			// Gone: nothing stands there.
		case id != p.id:
			replaced = append(replaced, p.path())
		case unix.Unlinkat(fd, p.name, unix.AT_REMOVEDIR) != nil:
			kept = append(kept, p.path())
		}
	}
	return kept, replaced
}
