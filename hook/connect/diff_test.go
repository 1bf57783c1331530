package connect

import (
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// applyDiff applies a unified diff of one file to before, reading only the
// hunks, as patch would; it fails the test on a hunk that does not fit.
func applyDiff(t *testing.T, before, diff string) string {
	t.Helper()
	old := splitLines(before)
	var out []string
	next := 0 // the next line of old not yet copied
	lines := strings.SplitAfter(diff, "\n")
	for i := 2; i < len(lines); i++ {
		l := lines[i]
		if !strings.HasPrefix(l, "@@ ") {
			continue
		}
		rng := strings.SplitN(strings.TrimPrefix(strings.Fields(l)[1], "-"), ",", 2)
		start, _ := strconv.Atoi(rng[0])
		if len(rng) == 2 && rng[1] == "0" {
			start++ // an empty old range names the line before it
		}
		for next < start-1 {
			out = append(out, old[next])
			next++
		}
		for i+1 < len(lines) && lines[i+1] != "" && !strings.HasPrefix(lines[i+1], "@@ ") {
			i++
			h := lines[i]
			text := h[1:]
			if i+1 < len(lines) && strings.HasPrefix(lines[i+1], `\ No newline`) {
				text = strings.TrimSuffix(text, "\n")
				i++
			}
			switch h[0] {
			case ' ':
				if old[next] != text {
					t.Fatalf("context %q does not match %q", text, old[next])
				}
				out = append(out, text)
				next++
			case '-':
				if old[next] != text {
					t.Fatalf("removed %q does not match %q", text, old[next])
				}
				next++
			case '+':
				out = append(out, text)
			default:
				t.Fatalf("a hunk line %q", h)
			}
		}
	}
	out = append(out, old[next:]...)
	return strings.Join(out, "")
}

// TestDiffApplies: the diff of random edits applies to the file before and
// gives the file after, and agrees with diff(1) on what changed.
func TestDiffApplies(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"{\n", "}\n", "  \"a\": 1,\n", "  \"b\": [\n", "  ]\n", "x\n", "y"}
	gnu, _ := exec.LookPath("diff")
	for range 150 {
		var a, b []string
		for range r.IntN(30) {
			w := words[r.IntN(len(words)-1)]
			a = append(a, w)
			switch r.IntN(5) {
			case 0: // dropped
			case 1:
				b = append(b, words[r.IntN(len(words)-1)], w)
			default:
				b = append(b, w)
			}
		}
		before, after := strings.Join(a, ""), strings.Join(b, "")
		if r.IntN(3) == 0 {
			after += "y" // no newline at the end
		}
		d := unifiedDiff("a", "b", []byte(before), []byte(after))
		if before == after {
			if d != "" {
				t.Fatalf("a diff of nothing: %q", d)
			}
			continue
		}
		if got := applyDiff(t, before, d); got != after {
			t.Fatalf("applying\n%s\nto %q gives %q, want %q", d, before, got, after)
		}
		if gnu != "" {
			// Both count the same lines as changed (an edit script of
			// the same length: both are shortest).
			if n, m := changed(d), gnuChanged(t, gnu, before, after); n != m {
				t.Fatalf("%d lines changed, diff(1) says %d:\n%s", n, m, d)
			}
		}
	}
}

func changed(d string) int {
	n := 0
	for _, l := range strings.Split(d, "\n")[2:] {
		if strings.HasPrefix(l, "+") || strings.HasPrefix(l, "-") {
			n++
		}
	}
	return n
}

func gnuChanged(t *testing.T, gnu, a, b string) int {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := dir + "/" + name
		if err := osWriteFile(p, s); err != nil {
			t.Fatal(err)
		}
		return p
	}
	out, _ := exec.Command(gnu, "-u", "--minimal", write("a", a), write("b", b)).Output()
	return changed(string(out))
}

func TestDiffExample(t *testing.T) {
	got := unifiedDiff("/dev/null", "new", nil, []byte("a\nb\n"))
	want := "--- /dev/null\n+++ new\n@@ -0,0 +1,2 @@\n+a\n+b\n"
	if got != want {
		t.Fatalf("%q", got)
	}
	got = unifiedDiff("old", "/dev/null", []byte("a"), nil)
	want = "--- old\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n\\ No newline at end of file\n"
	if got != want {
		t.Fatalf("%q", got)
	}
}
