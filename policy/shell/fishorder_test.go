package shell

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestFishOrderIsFish holds fishCompare to the real fish: the names a
// pattern matches, expanded as a command fish may run is, are in the
// order fish itself passes them, for names chosen to differ (case,
// digits, leading zeros, punctuation) and for random ones.
func TestFishOrderIsFish(t *testing.T) {
	needShell(t, Fish)
	names := strings.Fields("a_b ab aB aC a-b aZ a.b a1 a10 a9 a01 a001 B b A_ a~ a@ a^ f1 f9 f10 f1x f1_y x9y x10y x09y README.md notes.md CHANGELOG.md main.go main_test.go a-z.txt a.txt a0.txt")
	rng := rand.New(rand.NewPCG(7, 11))
	const alphabet = "aAbBzZ019_-.~@"
	for range 150 {
		b := make([]byte, 1+rng.IntN(6))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		if b[0] != '.' && b[0] != '-' && b[0] != '~' {
			names = append(names, string(b))
		}
	}
	dir := t.TempDir()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, pat := range []string{"*", "a*", "f*", "*.txt", "x*y"} {
		fish := exec.Command("fish", "--no-config", "-c", "printf '%s\\n' "+pat)
		fish.Dir = dir
		out, err := fish.Output()
		if err != nil {
			t.Fatalf("fish: %v", err)
		}
		want := strings.Fields(string(out))
		c := Command{Argv: []string{"rec", pat}, Patterns: []Pattern{{Index: 1, Word: pat}}, SortedByFish: true}
		if err := ExpandPatterns(&c, dir, &Walk{ReadDir: os.ReadDir}); err != nil {
			t.Fatalf("%s: %v", pat, err)
		}
		got := c.Argv[1:]
		if c.FishArgv != nil {
			got = c.FishArgv[1:]
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: fish's order as the gate has it:\n%q\nfish's own:\n%q", pat, got, want)
		}
	}
}

// TestFishOrderUnknown: a name whose place in fish's order is not known
// here refuses the expansion.
func TestFishOrderUnknown(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"é.txt", "a.txt"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := Command{Argv: []string{"rec", "*.txt"}, Patterns: []Pattern{{Index: 1, Word: "*.txt"}}, SortedByFish: true}
	if err := ExpandPatterns(&c, dir, &Walk{ReadDir: os.ReadDir}); err == nil {
		t.Fatalf("expanded to %q, want ErrFishOrder", c.Argv)
	}
	c = Command{Argv: []string{"rec", "*.txt"}, Patterns: []Pattern{{Index: 1, Word: "*.txt"}}}
	if err := ExpandPatterns(&c, dir, &Walk{ReadDir: os.ReadDir}); err != nil {
		t.Fatalf("without fish: %v", err)
	}
}

// FuzzFishCompare: fish's order as fishCompare has it is a total order
// (fishOrder's neighbour test needs it): antisymmetric, equal only for
// the same name, and transitive.
func FuzzFishCompare(f *testing.F) {
	for _, s := range [][3]string{{"a1", "a01", "A1"}, {"f9", "f10", "f010"}, {"README.md", "notes.md", "Notes.md"}, {"a_b", "aB", "a-b"}} {
		f.Add(s[0], s[1], s[2])
	}
	sign := func(c int) int { return min(max(c, -1), 1) }
	f.Fuzz(func(t *testing.T, a, b, c string) {
		if !fishComparable(a) || !fishComparable(b) || !fishComparable(c) {
			return
		}
		ab, ba := sign(fishCompare(a, b)), sign(fishCompare(b, a))
		if ab != -ba || (ab == 0) != (a == b) {
			t.Fatalf("fishCompare(%q, %q) = %d, reversed %d", a, b, ab, ba)
		}
		if bc := sign(fishCompare(b, c)); ab <= 0 && bc <= 0 && sign(fishCompare(a, c)) > 0 {
			t.Fatalf("%q <= %q <= %q, but %q > %q", a, b, c, a, c)
		}
	})
}
