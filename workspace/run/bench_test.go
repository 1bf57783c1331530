//go:build linux

package run

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// The overhead of Run over exec.Command of the same argv; the
// target is at most 2 ms (plus the fingerprint, measured in effects).

func BenchmarkExecCommandTrue(b *testing.B) {
	path, err := exec.LookPath("true")
	if err != nil {
		b.Skip("no true")
	}
	for b.Loop() {
		if err := exec.Command(path).Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func benchRun(b *testing.B, line string, tune func(*Spec)) {
	e := newEnv(b)
	e.file(b, "small.txt", "small file\n")
	s := e.spec(line)
	s.Writes = []string{filepath.Join(e.root, "small.txt")}
	s.Timeout = time.Minute
	if tune != nil {
		tune(&s)
	}
	for b.Loop() {
		r := Run(context.Background(), s)
		if r.Err != nil || r.ExitCode != 0 {
			b.Fatalf("%+v", r)
		}
	}
}

func BenchmarkRunTrue(b *testing.B) { benchRun(b, "true", nil) }

func BenchmarkExecCommandCat(b *testing.B) {
	e := newEnv(b)
	p := e.file(b, "small.txt", "small file\n")
	for b.Loop() {
		if out, err := exec.Command("cat", p).Output(); err != nil || len(out) == 0 {
			b.Fatal(err)
		}
	}
}

func BenchmarkRunCat(b *testing.B) { benchRun(b, "cat small.txt", nil) }

// The helper re-exec (the test binary here, the admit binary in use) is
// paid when a memory limit or Landlock applies.
func BenchmarkRunCatMemLimit(b *testing.B) {
	benchRun(b, "cat small.txt", func(s *Spec) { s.MaxMemoryMB = 1024 })
}

func BenchmarkRunCatConfined(b *testing.B) {
	if kind, _ := Confinement(); kind != "landlock" {
		b.Skip("no landlock")
	}
	benchRun(b, "cat small.txt", func(s *Spec) { s.MaxMemoryMB = 1024; s.Confine = true })
}

// BenchmarkConfinedOverhead runs the same program bare (exec.Command) and
// through Run confined, alternately, and reports both and the difference
// per run: the price of the walls. "judged" starts the program from
// admit's restricted thread (Landlock and seccomp); "code" starts it in
// the confiner (namespaces, read-only mounts, the workspace survey, the
// empty protected folders); "code-without-empties" the same without them.
func BenchmarkConfinedOverhead(b *testing.B) {
	goBin, _ := exec.LookPath("go")
	trueBin, _ := exec.LookPath("true")
	for _, prog := range []struct {
		name string
		bin  string
		args []string
	}{
		{"true", trueBin, nil},
		{"go-version", goBin, []string{"version"}},
	} {
		for _, lc := range []layoutCase{{name: "judged"}, {name: "code", code: true, confiner: true}, {name: "code-without-empties", code: true, confiner: true}, {name: "code-nested-checkout", code: true, confiner: true}} {
			b.Run(prog.name+"/"+lc.name, func(b *testing.B) {
				if prog.bin == "" {
					b.Skip("not installed")
				}
				requireConfinement(b, lc)
				e := newEnv(b)
				// A small checkout: a few files and a protected .git.
				for i := range 20 {
					e.file(b, fmt.Sprintf("src/f%d.go", i), "package src\n")
				}
				e.file(b, ".git/config", "[core]\n")
				if lc.name == "code-nested-checkout" {
					// A vendored clone: its protected folders are empties too.
					e.file(b, "vendor/lib/.git/config", "[core]\n")
				}
				// A name the interpreter has no builtin for, linked to the program.
				name := "prog-" + prog.name
				if err := os.Symlink(prog.bin, filepath.Join(e.bin, name)); err != nil {
					b.Fatal(err)
				}
				s := e.confined(lc, "")
				if lc.name == "code-without-empties" {
					// What the empty protected folders cost (placeholders_linux.go).
					s.RootFolders = nil
				}
				s.Argv = append([]string{name}, prog.args...)
				s.Timeout = time.Minute
				var bare, confined time.Duration
				for b.Loop() {
					t0 := time.Now()
					if err := exec.Command(prog.bin, prog.args...).Run(); err != nil {
						b.Fatal(err)
					}
					t1 := time.Now()
					if r := Run(context.Background(), s); r.Err != nil || r.ExitCode != 0 {
						b.Fatalf("%+v", r)
					}
					bare, confined = bare+t1.Sub(t0), confined+time.Since(t1)
				}
				n := float64(b.N)
				b.ReportMetric(float64(bare.Microseconds())/n/1000, "bare-ms/op")
				b.ReportMetric(float64(confined.Microseconds())/n/1000, "confined-ms/op")
				b.ReportMetric(float64((confined-bare).Microseconds())/n/1000, "overhead-ms/op")
			})
		}
	}
}

// BenchmarkSurvey50k is the walk a run of code makes before it starts, on
// a workspace of 50,000 files (a hundredth of them hard-linked).
func BenchmarkSurvey50k(b *testing.B) {
	root := b.TempDir()
	store := b.TempDir()
	for d := range 500 {
		dir := filepath.Join(root, fmt.Sprintf("pkg%03d", d))
		os.MkdirAll(dir, 0o755)
		for f := range 100 {
			p := filepath.Join(dir, fmt.Sprintf("f%03d.js", f))
			if f == 0 {
				s := filepath.Join(store, fmt.Sprintf("%d.js", d))
				os.WriteFile(s, []byte("x"), 0o644)
				if err := os.Link(s, p); err != nil {
					b.Fatal(err)
				}
				continue
			}
			os.WriteFile(p, []byte("x"), 0o644)
		}
	}
	prot := protect([]string{root})
	for b.Loop() {
		sv, err := surveyWorkspace([]string{root}, prot)
		if err != nil || len(sv.special) != 500 {
			b.Fatalf("%v %d", err, len(sv.special))
		}
		if _, err := workspaceRules(root, sv.special, nil); err != nil {
			b.Fatal(err)
		}
	}
}
