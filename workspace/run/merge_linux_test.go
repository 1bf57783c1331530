//go:build linux

package run

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// TestMergeRules: a rule is dropped only where a kept rule grants at
// least its rights on its folder or above; every kept rule is one of the
// input's, unchanged, so the merge never widens a grant.
func TestMergeRules(t *testing.T) {
	rx := uint64(llRead | llExec)
	usr := pathRule{Path: "/usr", Access: rx, Real: "/usr"}
	cases := []struct {
		name string
		in   []pathRule
		kept []string // the paths left, in order
	}{
		{"a folder beneath", []pathRule{usr, {Path: "/usr/bin", Access: rx, Real: "/usr/bin"}}, []string{"/usr"}},
		{"a link into the folder", []pathRule{usr, {Path: "/bin", Access: rx, Real: "/usr/bin"}}, []string{"/usr"}},
		{"a program's file", []pathRule{usr, {Path: "/usr/bin/cat", Access: rx, Real: "/usr/bin/cat"}}, []string{"/usr"}},
		{"more rights than the folder", []pathRule{{Path: "/usr", Access: llRead, Real: "/usr"}, {Path: "/usr/bin", Access: rx, Real: "/usr/bin"}}, []string{"/usr", "/usr/bin"}},
		{"a sibling that shares a prefix", []pathRule{usr, {Path: "/usr2/bin", Access: rx, Real: "/usr2/bin"}}, []string{"/usr", "/usr2/bin"}},
		{"not resolved", []pathRule{usr, {Path: "/usr/lib/x", Access: rx}}, []string{"/usr", "/usr/lib/x"}},
		{"a coverer not resolved", []pathRule{{Path: "/usr", Access: rx}, {Path: "/usr/bin", Access: rx, Real: "/usr/bin"}}, []string{"/usr", "/usr/bin"}},
		{"the workspace's rules", []pathRule{{Path: "/w", Access: llAll, Real: "/w", NoFollow: true}, {Path: "/w/a", Access: llRead, Real: "/w/a", NoFollow: true}}, []string{"/w", "/w/a"}},
		{"a workspace rule never covers", []pathRule{{Path: "/w", Access: llAll, Real: "/w", NoFollow: true}, {Path: "/w/bin", Access: rx, Real: "/w/bin"}}, []string{"/w", "/w/bin"}},
		{"the same rule twice", []pathRule{usr, usr}, []string{"/usr"}},
		{"the /etc pieces stay exact", []pathRule{{Path: "/etc/passwd", Access: llRead}, {Path: "/etc/hosts", Access: llRead}}, []string{"/etc/passwd", "/etc/hosts"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := mergeRules(c.in)
			var paths []string
			for _, r := range out {
				if !slices.Contains(c.in, r) {
					t.Errorf("kept rule %+v is not one of the input's", r)
				}
				paths = append(paths, r.Path)
			}
			if !slices.Equal(paths, c.kept) {
				t.Errorf("kept %v, want %v", paths, c.kept)
			}
			for _, r := range c.in {
				if !slices.Contains(out, r) && !coveredBy(out, r) {
					t.Errorf("dropped %+v, which no kept rule covers", r)
				}
			}
		})
	}
}

// TestMergedSystemRules: on this machine's own rules, the PATH folders
// and system links into /usr are covered by /usr, and what is left holds
// no rule another covers.
func TestMergedSystemRules(t *testing.T) {
	rules := baseRules([]string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/nonexistent"}, []string{t.TempDir()})
	out := mergeRules(rules)
	if len(out) >= len(rules) {
		real, _ := filepath.EvalSymlinks("/usr/bin")
		if real == "/usr/bin" {
			t.Errorf("nothing merged of %d rules, /usr/bin among them", len(rules))
		}
	}
	for i, p := range out {
		for j, f := range out {
			if i != j && covers(f, p) {
				t.Errorf("kept %s, which %s covers", p.Path, f.Path)
			}
		}
		if strings.HasPrefix(p.Path, "/etc/") && p.Real != "" {
			t.Errorf("/etc piece %s took part in the merge", p.Path)
		}
	}
}

func TestStartsNoProgram(t *testing.T) {
	for line, want := range map[string]bool{
		"true":                       true,
		"echo hi > out && pwd":       true,
		"cd sub && test -f x; exit":  true,
		"X=1 true":                   true,
		"cat README.md":              false,
		"true && ls":                 false,
		"echo $(git rev-parse HEAD)": false,
		"$PROG":                      false,
		"t'rue'":                     false,
		"tr\\ue":                     false,
		"echo hi | wc -l":            false,
	} {
		f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if got := startsNoProgram(f); got != want {
			t.Errorf("startsNoProgram(%q) = %v, want %v", line, got, want)
		}
	}
}

// TestBuiltinLineBuildsNoRuleset: a confined line of builtins builds no
// ruleset or filter before it runs; one that starts a program builds
// both before it runs, and still runs confined.
func TestBuiltinLineBuildsNoRuleset(t *testing.T) {
	lc := layoutCase{name: "judged"}
	requireConfinement(t, lc)
	if l := layoutFor(false, false); l.confiner {
		t.Skip("judged runs start in the confiner here")
	}
	e := newEnv(t)
	for line, built := range map[string]bool{"true": false, "echo hi && pwd": false, "cat README.md": true} {
		x, _, err := prepare(e.confined(lc, line))
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if got := x.restrict.ruleset != nil && x.restrict.filter != nil; got != built {
			t.Errorf("%q: ruleset and filter built before the run: %v, want %v", line, got, built)
		}
		if got := x.temp != ""; got != built {
			t.Errorf("%q: temporary folder made before the run: %v, want %v", line, got, built)
		}
		// What a program of the line waits for: the restriction, the
		// temporary folder with it, made once.
		if err := x.restriction(); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if x.restrict.ruleset == nil || x.restrict.filter == nil || x.temp == "" || envValue(x.env, "TMPDIR") != x.tmpdir {
			t.Errorf("%q: after the restriction was built: ruleset %v, filter %v, temp %q, TMPDIR %q", line,
				x.restrict.ruleset != nil, x.restrict.filter != nil, x.temp, envValue(x.env, "TMPDIR"))
		}
		temp := x.temp
		x.cleanup()
		if _, err := os.Stat(temp); err == nil {
			t.Errorf("%q: %s left after the run", line, temp)
		}
	}
	if err := os.WriteFile(filepath.Join(e.root, "README.md"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(e.outside, "secret")
	if err := os.WriteFile(outside, []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := Run(context.Background(), e.confined(lc, "cat README.md"))
	if r.Err != nil || r.ExitCode != 0 || r.Stdout != "hello\n" {
		t.Fatalf("cat README.md: exit %d, err %v, out %q, stderr %q", r.ExitCode, r.Err, r.Stdout, r.Stderr)
	}
	r = Run(context.Background(), e.confined(lc, "cat "+outside))
	if r.ExitCode == 0 || strings.Contains(r.Stdout, "secret") {
		t.Fatalf("a confined cat read %s outside the workspace: exit %d, out %q", outside, r.ExitCode, r.Stdout)
	}
}

// BenchmarkRunTrueConfined is a confined line of builtins (what `admit
// run -c true` runs): no program, so no ruleset or filter to build.
func BenchmarkRunTrueConfined(b *testing.B) {
	if kind, _ := Confinement(); kind != "landlock" {
		b.Skip("no landlock")
	}
	benchRun(b, "true", func(s *Spec) { s.MaxMemoryMB = 1024; s.Confine = true })
}
