package run

import (
	"fmt"
	"os"
	"slices"
)

// A program that runs code may write the workspace minus its protected
// paths, and a protected path that exists is kept read-only. At a root,
// the protected folders that do not exist yet are read-only empties in
// the run (placeholders_linux.go; on macOS the profile denies every
// protected name at a root). The rest cannot be kept from being made:
// Landlock grants a folder with everything beneath it, so the right to
// make entries in a folder (go build -o app) is the right to make
// .envrc there, or sub/.admit/ in any folder, and a read-only mount needs
// a place on the person's disk to mount on. So the run's end undoes it:
// the workspace is walked again, and every protected path that was not
// there when the run started is removed (with all beneath it) before the
// result is returned, and named in Result.Undone (docs/confinement.md,
// "Protected paths a run cannot make").

// undoProtected removes the protected paths under roots that are not in
// before, except those keep says the gate itself may have made meanwhile
// (its tape's rotated files); it returns what it removed and what it
// could not.
func undoProtected(roots []string, protected func(string) bool, keep func(string) bool, before []string) (undone, left []string, err error) {
	sv, err := surveyWorkspace(roots, protected)
	if err != nil {
		return nil, nil, fmt.Errorf("survey of the workspace after the run: %w", err)
	}
	for _, p := range sv.protected {
		if slices.Contains(before, p) || keep != nil && keep(p) {
			continue
		}
		// RemoveAll removes a symlink, never what it points to, and
		// descends without following links.
		if err := os.RemoveAll(p); err != nil {
			left = append(left, p)
			continue
		}
		undone = append(undone, p)
	}
	return undone, left, nil
}
