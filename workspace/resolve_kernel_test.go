package workspace

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResolveMatchesKernel builds random trees of folders, files and
// symlinks (relative, absolute, with "..", dangling, looping) and checks
// Resolve against the kernel: for every random path the kernel can open,
// /proc/self/fd names the file it opened, and Resolve must name the same
// one; for every path the kernel cannot find, Resolve must say it does not
// exist (or ErrLoop for ELOOP), except where ".." climbs out of a missing
// folder (see Resolve).
func TestResolveMatchesKernel(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd")
	}
	for seed := uint64(1); seed <= 20; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 42))
			root := tempRoot(t)
			names := []string{"a", "b", "c", "d", "l1", "l2", "l3"}
			var dirs = []string{root}
			pick := func(list []string) string { return list[rng.IntN(len(list))] }
			randRel := func(n int) string {
				parts := make([]string, 0, n)
				for range n {
					switch rng.IntN(6) {
					case 0:
						parts = append(parts, "..")
					case 1:
						parts = append(parts, ".")
					default:
						parts = append(parts, pick(names))
					}
				}
				return strings.Join(parts, "/")
			}
			for range 40 {
				d := pick(dirs)
				n := d + "/" + pick(names)
				if _, err := os.Lstat(n); err == nil {
					continue
				}
				switch rng.IntN(4) {
				case 0:
					if os.Mkdir(n, 0o755) == nil {
						dirs = append(dirs, n)
					}
				case 1:
					_ = os.WriteFile(n, []byte("x"), 0o644)
				case 2:
					_ = os.Symlink(randRel(1+rng.IntN(3)), n)
				case 3:
					_ = os.Symlink(pick(dirs)+"/"+randRel(1+rng.IntN(2)), n)
				}
			}
			for range 300 {
				p := root + "/" + randRel(1+rng.IntN(5))
				if rng.IntN(5) == 0 {
					p += "/"
				}
				// The walk starts where the Resolver starts it: at the
				// canonical folder holding the root.
				got, climbed, err := resolveClimb(p, filepath.Dir(root))
				f, kerr := os.Open(p)
				switch {
				case kerr == nil:
					kpath, _ := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
					f.Close()
					if err != nil || got.Path != kpath || !got.Exists {
						t.Errorf("Resolve(%q) = %+v, %v; kernel opened %q", p, got, err, kpath)
					}
				case errors.Is(kerr, os.ErrNotExist):
					// Deliberate difference: "missing/../x" climbs back
					// into the existing part and resolves x, as mkdir -p
					// would reach it; the kernel fails at "missing".
					if err == nil && got.Exists && !climbed {
						t.Errorf("Resolve(%q) = %+v; kernel: %v", p, got, kerr)
					}
				case strings.Contains(kerr.Error(), "too many levels"):
					if !errors.Is(err, ErrLoop) {
						t.Errorf("Resolve(%q) = %+v, %v; kernel: %v", p, got, err, kerr)
					}
				}
			}
		})
	}
}
