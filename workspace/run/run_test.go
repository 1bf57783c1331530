//go:build linux

package run

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"admit/workspace/effects"
)

// TestWriteProgramsEffects: the readback of these runs, and of runs
// whose write did not take, is in workspace/effects (readback_test.go).
func TestWriteProgramsEffects(t *testing.T) {
	for _, confine := range []bool{false, true} {
		t.Run("confine="+strconv.FormatBool(confine), func(t *testing.T) {
			if kind, _ := Confinement(); confine && kind != "landlock" {
				t.Skip("no landlock")
			}
			for _, tc := range []struct {
				name    string
				setup   []string // files to create (trailing / = folder)
				line    string
				writes  []string // relative; "." is the root folder
				added   []string
				removed []string
			}{
				{"mkdir", nil, "mkdir -p new/sub", []string{"."}, []string{"new", "new/sub"}, nil},
				{"touch", nil, "touch made.txt", []string{"."}, []string{"made.txt"}, nil},
				{"cp", []string{"a.txt"}, "cp a.txt b.txt", []string{"."}, []string{"b.txt"}, nil},
				{"cp into dir", []string{"a.txt", "dir/"}, "cp -- a.txt dir", []string{"dir"}, []string{"dir/a.txt"}, nil},
				{"mv", []string{"a.txt", "dir/"}, "mv -f a.txt dir/", []string{".", "dir"}, []string{"dir/a.txt"}, []string{"a.txt"}},
				{"rm", []string{"a.txt"}, "rm -f a.txt", []string{"."}, nil, []string{"a.txt"}},
				{"rmdir", []string{"d/"}, "rmdir d", []string{"."}, nil, []string{"d"}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					e := newEnv(t)
					for _, s := range tc.setup {
						if strings.HasSuffix(s, "/") {
							os.MkdirAll(filepath.Join(e.root, s), 0o755)
						} else {
							e.file(t, s, "content of "+s)
						}
					}
					s := e.spec(tc.line)
					s.Confine = confine
					for _, w := range tc.writes {
						s.Writes = append(s.Writes, filepath.Join(e.root, w))
					}
					var seen [][]string
					s.Recheck = func(argv []string, dir string) error {
						seen = append(seen, argv)
						return nil
					}
					before := effects.Take(e.root, 1000)
					r := Run(context.Background(), s)
					after := effects.Take(e.root, 1000)
					if r.Err != nil || r.ExitCode != 0 {
						t.Fatalf("run: %+v", r)
					}
					if confine && r.Confinement != "landlock" {
						t.Fatalf("confinement %q", r.Confinement)
					}
					d := effects.Compare(before, after)
					for _, a := range tc.added {
						if !slices.Contains(d.Added, a) {
							t.Errorf("added %v lacks %s", d.Added, a)
						}
					}
					for _, a := range tc.removed {
						if !slices.Contains(d.Removed, a) {
							t.Errorf("removed %v lacks %s", d.Removed, a)
						}
					}
					if len(seen) != 1 || strings.Join(seen[0], " ") != tc.line {
						t.Errorf("recheck saw %v", seen)
					}
				})
			}
		})
	}
}

func TestRecheckEverySimpleCommand(t *testing.T) {
	e := newEnv(t)
	e.file(t, "f.txt", "hello\n")
	s := e.spec("true && cat f.txt | wc -l; echo done")
	var mu sync.Mutex // Recheck runs concurrently for the parts of a pipeline
	var seen []string
	s.Recheck = func(argv []string, dir string) error {
		if dir != e.root {
			t.Errorf("dir %s", dir)
		}
		mu.Lock()
		seen = append(seen, strings.Join(argv, " "))
		mu.Unlock()
		return nil
	}
	r := Run(context.Background(), s)
	if r.Err != nil || strings.TrimSpace(r.Stdout) != "1\ndone" {
		t.Fatalf("%+v", r)
	}
	slices.Sort(seen)
	if want := []string{"cat f.txt", "echo done", "true", "wc -l"}; !slices.Equal(seen, want) {
		t.Fatalf("recheck saw %v, want %v", seen, want)
	}

	// A refusal stops the run before the command starts.
	marker := filepath.Join(e.root, "m")
	s = e.spec("touch " + marker + " && touch second")
	s.Writes = []string{e.root}
	s.Recheck = func(argv []string, dir string) error {
		if argv[1] == marker {
			return errors.New("not admitted")
		}
		return nil
	}
	r = Run(context.Background(), s)
	if !errors.Is(r.Err, ErrRefused) || stopped(r) != stopRefused || exists(marker) || exists(filepath.Join(e.root, "second")) {
		t.Fatalf("refused run: %+v", r)
	}
}

// TestSubstitutionRechecked: $(one simple command) runs, and the recheck
// sees the command inside first, then the one around it with the words
// the output split into.
func TestSubstitutionRechecked(t *testing.T) {
	e := newEnv(t)
	s := e.spec("echo $(echo a 'b  c') d")
	var mu sync.Mutex
	var seen [][]string
	s.Recheck = func(argv []string, dir string) error {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, argv)
		return nil
	}
	r := Run(context.Background(), s)
	if r.Err != nil || r.Stdout != "a b c d\n" {
		t.Fatalf("run: %+v", r)
	}
	want := [][]string{{"echo", "a", "b  c"}, {"echo", "a", "b", "c", "d"}}
	if !slices.EqualFunc(seen, want, slices.Equal) {
		t.Fatalf("rechecked %q, want %q", seen, want)
	}
	// The recheck refuses the command around it: nothing of it runs.
	s = e.spec("printf x $(echo y)")
	s.Recheck = func(argv []string, dir string) error {
		if argv[0] == "printf" {
			return errors.New("not admitted")
		}
		return nil
	}
	r = Run(context.Background(), s)
	if !errors.Is(r.Err, ErrRefused) || r.Stdout != "" {
		t.Fatalf("refused run: %+v", r)
	}
}

func TestRefusedByExecHandlerAndBuiltins(t *testing.T) {
	e := newEnv(t)
	for _, line := range []string{
		"sh -c true",
		"/bin/sh -c true",
		"bash -c true",
		"dash",
		"./prog",
		"/usr/bin/true",
		"eval true",
		"exec true",
		"source f",
		". f",
		"command true",
		"builtin true",
		"cd /",
		"cd ..",
		"cd",
		"kill -9 1",
		"trap 'true' EXIT",
		"git -c core.pager=less log",
		"git diff --ext-diff",
		"no-such-program-xyz",
		"nice /bin/sh",
		"f() { true; }; f",
		"echo $(true | true)",
		"echo $(echo $(true))",
		"echo `true`",
		"echo $(true > x)",
		"echo $(true; true)",
		"echo $(<f)",
		"cat <(true)",
		"true &",
		"if true; then true; fi",
		"(true)",
		"export A=1",
		"echo ${A:-x}",
	} {
		t.Run(line, func(t *testing.T) {
			r := Run(context.Background(), e.spec(line))
			if !errors.Is(r.Err, ErrRefused) || stopped(r) != stopRefused {
				t.Fatalf("not refused: %+v", r)
			}
		})
	}
	// A program written in the workspace never runs, even when on PATH.
	prog := e.file(t, "bin/tool", "#!/bin/true\n")
	os.Chmod(prog, 0o755)
	s := e.spec("tool")
	s.Env = []string{"PATH=" + filepath.Join(e.root, "bin") + ":/usr/bin"}
	if r := Run(context.Background(), s); !errors.Is(r.Err, ErrRefused) {
		t.Fatalf("workspace program ran: %+v", r)
	}
	// cd inside the roots is fine.
	os.Mkdir(filepath.Join(e.root, "sub"), 0o755)
	if r := Run(context.Background(), e.spec("cd sub && pwd")); r.Err != nil || strings.TrimSpace(r.Stdout) != filepath.Join(e.root, "sub") {
		t.Fatalf("cd inside: %+v", r)
	}
}

func TestRedirections(t *testing.T) {
	e := newEnv(t)
	e.file(t, "in.txt", "input\n")
	secret := e.file(t, filepath.Join(e.outside, "secret"), "secret\n")
	outsideFile := filepath.Join(e.outside, "x")
	admitted := filepath.Join(e.root, "out.txt")
	for _, tc := range []struct {
		line string
		ok   bool
	}{
		{"echo hi > out.txt", true},
		{"cat < in.txt >> out.txt", true},
		{"echo hi > /dev/null 2>&1", true},
		{"echo hi > /dev/stderr", true},
		{"echo hi > " + outsideFile, false},
		{"echo hi > other.txt", false},
		{"cat < " + secret, false},
		{"echo hi > ../x", false},
		{"echo hi >> /etc/passwd", false},
	} {
		t.Run(tc.line, func(t *testing.T) {
			s := e.spec(tc.line)
			s.Writes = []string{admitted}
			r := Run(context.Background(), s)
			if tc.ok != (r.Err == nil && r.ExitCode == 0) {
				t.Fatalf("ok=%v: %+v", tc.ok, r)
			}
			if !tc.ok && !errors.Is(r.Err, ErrRefused) {
				t.Fatalf("not a refusal: %v", r.Err)
			}
		})
	}
	if exists(outsideFile) || exists(filepath.Join(e.root, "other.txt")) {
		t.Fatal("refused redirection created a file")
	}
	if b, _ := os.ReadFile(admitted); string(b) != "hi\ninput\n" {
		t.Fatalf("admitted file %q", b)
	}
	// A symlink in the workspace pointing outside is resolved, then refused.
	os.Symlink(outsideFile, filepath.Join(e.root, "link"))
	s := e.spec("echo hi > link")
	s.Writes = []string{e.root}
	if r := Run(context.Background(), s); !errors.Is(r.Err, ErrRefused) || exists(outsideFile) {
		t.Fatalf("write through link: %+v", r)
	}
	// A write path that resolves outside the roots grants nothing, nor does
	// /dev (the folder of /dev/null a caller may pass).
	s.Writes = []string{filepath.Join(e.root, "link"), "/dev"}
	if r := Run(context.Background(), s); !errors.Is(r.Err, ErrRefused) || exists(outsideFile) {
		t.Fatalf("write through link: %+v", r)
	}
}

// TestSecondWallLandlock bypasses the static check (Recheck admits all)
// and shows the kernel refusing writes outside Writes and TCP connects.
func TestSecondWallLandlock(t *testing.T) {
	kind, abi := Confinement()
	if kind != "landlock" {
		t.Skip("no landlock on this kernel")
	}
	e := newEnv(t)
	e.file(t, "a.txt", "a")
	before := effects.Take(e.outside, 100)
	for _, line := range []string{
		"touch " + filepath.Join(e.outside, "x"),
		"cp a.txt " + e.outside + "/",
		"mkdir " + filepath.Join(e.outside, "d"),
		"rm -f " + filepath.Join(e.root, "a.txt"), // the root itself is not admitted here
		helperName + " write " + filepath.Join(e.outside, "y"),
	} {
		t.Run(line, func(t *testing.T) {
			s := e.spec(line)
			s.Confine = true
			s.Recheck = func([]string, string) error { return nil }
			s.Writes = []string{filepath.Join(e.root, "only-this")}
			r := Run(context.Background(), s)
			if r.Confinement != "landlock" || r.LandlockABI != abi {
				t.Fatalf("confinement %q %d", r.Confinement, r.LandlockABI)
			}
			if r.ExitCode == 0 || !strings.Contains(strings.ToLower(r.Stderr), "permission denied") {
				t.Fatalf("write outside not denied: %+v", r)
			}
		})
	}
	if d := effects.Compare(before, effects.Take(e.outside, 100)); !d.Empty() {
		t.Fatalf("outside changed: %+v", d)
	}
	if !exists(filepath.Join(e.root, "a.txt")) {
		t.Fatal("rm removed a file outside Writes")
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	line := helperName + " connect " + ln.Addr().String()
	s := e.spec(line)
	if r := Run(context.Background(), s); r.ExitCode != 0 || !strings.Contains(r.Stdout, "connected") {
		t.Fatalf("control connect without landlock failed: %+v", r)
	}
	s.Confine = true
	r := Run(context.Background(), s)
	if abi >= 4 {
		if r.ExitCode == 0 || !strings.Contains(strings.ToLower(r.Stderr), "permission denied") {
			t.Fatalf("connect under landlock: %+v", r)
		}
	} else {
		t.Logf("ABI %d < 4: TCP not restricted (%+v)", abi, r)
	}
}

func TestTimeoutKillsProcessGroup(t *testing.T) {
	e := newEnv(t)
	s := e.spec(helperName + " fork-sleep")
	s.Timeout = 500 * time.Millisecond
	start := time.Now()
	r := Run(context.Background(), s)
	if !r.TimedOut || r.ExitCode != 124 || stopped(r) != stopTimeout || r.Signal != "SIGKILL" {
		t.Fatalf("%+v", r)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Fatalf("took %v", el)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(r.Stdout))
	if err != nil {
		t.Fatalf("grandchild pid: %q", r.Stdout)
	}
	waitFor(t, "grandchild gone", 5*time.Second, func() bool { return gone(pid) })
}

func TestCancellation(t *testing.T) {
	e := newEnv(t)
	ready := filepath.Join(e.outside, "ready")
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan Result)
	go func() { done <- Run(ctx, e.spec(helperName+" sleep "+ready)) }()
	waitFor(t, "helper ready", 10*time.Second, func() bool { return exists(ready) })
	cancel(CancelSignal{Signal: syscall.SIGINT})
	select {
	case r := <-done:
		if !r.Cancelled || r.ExitCode != 130 || stopped(r) != stopExited || r.Signal != "SIGINT" {
			t.Fatalf("%+v", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not end after cancel")
	}
	// Plain cancellation: 128+SIGKILL.
	ready2 := filepath.Join(e.outside, "ready2")
	ctx2, cancel2 := context.WithCancel(context.Background())
	go func() { done <- Run(ctx2, e.spec(helperName+" sleep "+ready2)) }()
	waitFor(t, "helper ready", 10*time.Second, func() bool { return exists(ready2) })
	cancel2()
	if r := <-done; r.ExitCode != 137 || !r.Cancelled {
		t.Fatalf("%+v", r)
	}
}

func TestOutputTruncationExactBound(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct{ n, max int }{{100, 100}, {101, 100}, {200000, 4096}, {10, 1}} {
		s := e.spec(helperName + " print " + strconv.Itoa(tc.n))
		s.MaxOutputBytes = tc.max
		r := Run(context.Background(), s)
		want := strings.Repeat("x", min(tc.n, tc.max))
		if r.Stdout != want || r.Stderr != want || r.Truncated != (tc.n > tc.max) {
			t.Fatalf("n=%d max=%d: stdout %d stderr %d truncated %v", tc.n, tc.max, len(r.Stdout), len(r.Stderr), r.Truncated)
		}
	}
	// Builtins are capped by the same writer.
	s := e.spec("echo 0123456789")
	s.MaxOutputBytes = 4
	if r := Run(context.Background(), s); r.Stdout != "0123" || !r.Truncated {
		t.Fatalf("%+v", r)
	}
}

func TestMemoryLimit(t *testing.T) {
	e := newEnv(t)
	// The helper is a cgo binary: glibc reserves 64 MiB arenas per thread,
	// so its address space needs room beyond what it allocates.
	s := e.spec(helperName + " alloc 64")
	s.MaxMemoryMB = 4096
	if r := Run(context.Background(), s); r.ExitCode != 0 {
		t.Fatalf("within limit: %+v", r)
	}
	s = e.spec(helperName + " alloc 2048")
	s.MaxMemoryMB = 512
	r := Run(context.Background(), s)
	if r.ExitCode == 0 || strings.Contains(r.Stdout, "allocated") {
		t.Fatalf("over limit succeeded: %+v", r)
	}
	t.Logf("over limit: exit %d signal %q stderr %.80q", r.ExitCode, r.Signal, r.Stderr)

	// A limit below what the Go helper itself holds must still let a small
	// program start: the helper may not allocate once the limit is set.
	e.file(t, "small.txt", "small\n")
	for _, confine := range []bool{false, true} {
		s = e.spec("cat small.txt")
		s.MaxMemoryMB = 16
		s.Confine = confine
		if r := Run(context.Background(), s); r.Err != nil || r.ExitCode != 0 || r.Stdout != "small\n" {
			t.Fatalf("small program under a small limit (confine=%v): %+v", confine, r)
		}
	}
}

func TestEnvScrubbed(t *testing.T) {
	e := newEnv(t)
	s := e.spec("LD_PRELOAD=/x GIT_DIR=/y LANG=C.UTF-8 " + helperName + " env")
	s.Env = append(s.Env, "LD_LIBRARY_PATH=/l", "GIT_EXTERNAL_DIFF=/e", "PAGER=less", "EDITOR=vi",
		"BASH_ENV=/b", "PYTHONPATH=/p", "NODE_OPTIONS=--x", "IFS=x", "SECRET_TOKEN=t", "LC_ALL=C", "TERM=xterm")
	r := Run(context.Background(), s)
	if r.ExitCode != 0 {
		t.Fatalf("%+v", r)
	}
	lines := envLines(r.Stdout)
	for _, bad := range []string{"LD_", "GIT_DIR=", "GIT_EXTERNAL_DIFF=", "PAGER=less", "EDITOR=", "BASH_ENV=", "PYTHON", "NODE_OPTIONS=", "IFS=", "SECRET_TOKEN=", "TERM=xterm"} {
		for _, l := range lines {
			if strings.HasPrefix(l, bad) {
				t.Errorf("kept %s", l)
			}
		}
	}
	for _, want := range []string{"TERM=dumb", "LC_ALL=C", "LANG=C.UTF-8", "HOME=" + e.outside, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "GIT_OPTIONAL_LOCKS=0", "GIT_CONFIG_KEY_0=core.fsmonitor"} {
		if !slices.Contains(lines, want) {
			t.Errorf("missing %s in %v", want, lines)
		}
	}
	if got := ScrubEnv([]string{"PATH=.:bin:"}); !slices.Contains(got, "PATH=/usr/local/bin:/usr/bin:/bin") {
		t.Errorf("relative PATH kept: %v", got)
	}
}

func TestArgvLiteral(t *testing.T) {
	e := newEnv(t)
	s := e.spec("")
	s.Argv = []string{"echo", "$HOME", "a b", "*", ";", "`x`"}
	r := Run(context.Background(), s)
	if r.Err != nil || r.Stdout != "$HOME a b * ; `x`\n" {
		t.Fatalf("%+v", r)
	}
	s.Line = "echo x"
	if r := Run(context.Background(), s); !errors.Is(r.Err, ErrSetup) || stopped(r) != stopSetup {
		t.Fatalf("Line and Argv: %+v", r)
	}
}

func TestSetupErrors(t *testing.T) {
	e := newEnv(t)
	for name, s := range map[string]Spec{
		"dir outside": func() Spec { s := e.spec("true"); s.Dir = e.outside; return s }(),
		"no roots":    func() Spec { s := e.spec("true"); s.Roots = nil; return s }(),
		"empty":       e.spec("  "),
		"parse":       e.spec("echo 'unterminated"),
	} {
		if r := Run(context.Background(), s); !errors.Is(r.Err, ErrSetup) || stopped(r) != stopSetup {
			t.Errorf("%s: %+v", name, r)
		}
	}
}

// TestHowRunsEnd: a run's own exit status, and how the runner says it
// stopped one (internal/cli turns these into admit run's exit status).
func TestHowRunsEnd(t *testing.T) {
	e := newEnv(t)
	if r := Run(context.Background(), e.spec(helperName+" exit 3")); r.ExitCode != 3 || stopped(r) != stopExited {
		t.Fatalf("%+v", r)
	}
	if r := Run(context.Background(), e.spec("true")); r.ExitCode != 0 || stopped(r) != stopExited {
		t.Fatalf("%+v", r)
	}
}
