package run

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// The overhead of Run over exec.Command of the same argv; the design's
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
