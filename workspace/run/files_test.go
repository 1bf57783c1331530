//go:build linux

package run

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hardLinked makes <root>/rel a hard link of a file outside the roots (a
// pnpm store's copy) and returns the outside path.
func hardLinked(t *testing.T, e *env, rel string) string {
	t.Helper()
	store := e.file(t, filepath.Join(e.outside, "store", rel), "original\n")
	link := filepath.Join(e.root, rel)
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Link(store, link); err != nil {
		t.Fatal(err)
	}
	return store
}

func TestHardLinkedWriteTargetRefused(t *testing.T) {
	e := newEnv(t)
	store := hardLinked(t, e, "node_modules/pkg/index.js")
	link := filepath.Join(e.root, "node_modules/pkg/index.js")
	for _, confine := range []bool{false, true} {
		// The target itself in Writes: refused before anything runs,
		// naming the path.
		s := e.spec("tee -a " + link)
		s.Confine = confine
		s.Writes = []string{link, filepath.Dir(link)}
		r := Run(context.Background(), s)
		var re *RefusedError
		if !errors.As(r.Err, &re) || re.Path != link || !strings.Contains(re.Reason, "hard-linked") || stopped(r) != stopRefused {
			t.Fatalf("confine=%v: %+v", confine, r)
		}
		// A redirection to it, with its folder admitted: the open is
		// checked too.
		s = e.spec("echo appended >> " + link)
		s.Confine = confine
		s.Writes = []string{filepath.Dir(link)}
		if r := Run(context.Background(), s); !errors.Is(r.Err, ErrRefused) {
			t.Fatalf("redirection confine=%v: %+v", confine, r)
		}
		s = e.spec("echo replaced > " + link)
		s.Confine = confine
		s.Writes = []string{filepath.Dir(link)}
		if r := Run(context.Background(), s); !errors.Is(r.Err, ErrRefused) {
			t.Fatalf("truncating redirection confine=%v: %+v", confine, r)
		}
	}
	if b, _ := os.ReadFile(store); string(b) != "original\n" {
		t.Fatalf("the store's copy changed: %q", b)
	}
	// Control: the same redirection to a file with one link works.
	e.file(t, "node_modules/pkg/own.js", "")
	s := e.spec("echo appended >> node_modules/pkg/own.js")
	s.Writes = []string{filepath.Join(e.root, "node_modules/pkg")}
	if r := Run(context.Background(), s); r.Err != nil {
		t.Fatalf("control: %+v", r)
	}
}

// TestHardLinkUnderCode: a program that runs code may write the
// workspace, but a hard-linked file in it is not written (Landlock grants
// around it), while its folder stays the program's: replacing the link
// with a file of its own, or adding files beside it, touches nothing
// outside.
func TestHardLinkUnderCode(t *testing.T) {
	for _, lc := range layouts[1:] {
		t.Run(lc.name, func(t *testing.T) {
			requireConfinement(t, lc)
			lc.use(t)
			e := newEnv(t)
			store := hardLinked(t, e, "node_modules/pkg/index.js")
			link := filepath.Join(e.root, "node_modules/pkg/index.js")
			e.file(t, "node_modules/pkg/own.js", "own\n")
			run := func(line string) Result { return Run(context.Background(), e.confined(lc, line)) }
			if r := run(helperName + " append " + link + " pwned"); r.ExitCode == 0 {
				t.Fatalf("appended through a hard link: %+v", r)
			}
			// Its metadata is the store's too: under the confiner it is
			// bound read-only (Landlock does not govern chmod).
			if r := run(helperName + " chmod " + link); lc.confiner && r.ExitCode == 0 {
				t.Fatalf("chmod through a hard link: %+v", r)
			}
			if b, _ := os.ReadFile(store); string(b) != "original\n" {
				t.Fatalf("the store's copy changed: %q", b)
			}
			if r := run(helperName + " append " + filepath.Join(e.root, "node_modules/pkg/own.js") + " more"); r.ExitCode != 0 {
				t.Fatalf("a file with one link beside it: %+v", r)
			}
			if info, _ := os.Stat(store); lc.confiner && info.Mode().Perm() != 0o644 {
				t.Fatalf("the store's mode changed: %v", info.Mode())
			}
			// A folder of nothing but hard links (a package pnpm linked
			// in) is bound whole; one with a file of its own, link by link.
			hardLinked(t, e, "node_modules/.pnpm/dep@1/node_modules/dep/a.js")
			hardLinked(t, e, "node_modules/.pnpm/dep@1/node_modules/dep/lib/b.js")
			sv, err := surveyWorkspace([]string{e.root}, protect([]string{e.root}))
			if err != nil {
				t.Fatal(err)
			}
			want := []string{filepath.Join(e.root, "node_modules/.pnpm"), link}
			slices.Sort(sv.linkBinds)
			if !slices.Equal(sv.linkBinds, want) || len(sv.special) != 3 {
				t.Fatalf("survey: binds %v, special %v; want binds %v", sv.linkBinds, sv.special, want)
			}
			// Landlock alone lets the workspace's link be removed (that
			// touches nothing outside); the confiner's read-only bind of it
			// does not (the mount is busy): the price of keeping its
			// metadata.
			if r := run("rm -f " + link); (r.ExitCode == 0) == lc.confiner {
				t.Fatalf("rm of a hard link (confiner %v): %+v", lc.confiner, r)
			}
			if b, _ := os.ReadFile(store); string(b) != "original\n" {
				t.Fatalf("the store's copy changed: %q", b)
			}
		})
	}
}

func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSpecialFilesRefused: a FIFO, a socket or a device named by a
// redirection or an operand is refused at once; nothing blocks.
func TestSpecialFilesRefused(t *testing.T) {
	e := newEnv(t)
	mkfifo(t, filepath.Join(e.root, "fifo"))
	os.Mkdir(filepath.Join(e.root, "d"), 0o755)
	mkfifo(t, filepath.Join(e.root, "d", "inner"))
	os.Symlink("fifo", filepath.Join(e.root, "link-to-fifo"))
	for _, tc := range []struct {
		line   string
		writes bool
	}{
		{"wc -l < fifo", false},
		{"wc -l fifo", false},
		{"wc -l link-to-fifo", false},
		{"cat < link-to-fifo", false},
		{"wc -l d/*", false}, // the pattern expands to the FIFO
		{"echo x > fifo", true},
		{"echo x >> fifo", true},
		{"cat /dev/sda", false},
		{"dd if=/dev/mem", false},
		{"cat < /dev/tty0", false},
		{"cat fifo/x", false},
	} {
		t.Run(tc.line, func(t *testing.T) {
			s := e.spec(tc.line)
			s.Timeout = 20 * time.Second
			if tc.writes {
				s.Writes = []string{e.root}
			}
			start := time.Now()
			r := Run(context.Background(), s)
			if el := time.Since(start); el > 5*time.Second {
				t.Fatalf("took %v", el)
			}
			if strings.HasSuffix(tc.line, "fifo/x") {
				if r.ExitCode == 0 {
					t.Fatalf("%+v", r)
				}
				return
			}
			if dev := devicePath(tc.line); dev != "" && !exists(dev) {
				t.Skipf("no %s here", dev)
			}
			if !errors.Is(r.Err, ErrRefused) {
				t.Fatalf("not refused: %+v", r)
			}
		})
	}
	// Looking at a FIFO, moving or removing it, is not reading it.
	for _, line := range []string{"ls -l fifo", "test -p fifo", "stat fifo", "mv d/inner d/moved", "rm -f d/moved"} {
		s := e.spec(line)
		s.Writes = []string{e.root, filepath.Join(e.root, "d")}
		if r := Run(context.Background(), s); r.Err != nil || r.ExitCode != 0 {
			t.Errorf("%s: %+v", line, r)
		}
	}
	// The allowed devices are fine.
	for _, line := range []string{"wc -c < /dev/null", "head -c 4 /dev/zero", "head -c 4 /dev/urandom", "cat /dev/null", "echo x > /dev/null"} {
		if r := Run(context.Background(), e.spec(line)); r.Err != nil || r.ExitCode != 0 {
			t.Errorf("%s: %+v", line, r)
		}
	}
}

// devicePath is the /dev path a test line names, or "".
func devicePath(line string) string {
	i := strings.Index(line, "/dev/")
	if i < 0 {
		return ""
	}
	return strings.Fields(line[i:])[0]
}

// TestProgramOpeningAFifoEndsAtTimeout: a program that opens a FIFO
// itself (the name is not an operand) blocks in the kernel; the timeout
// ends it like any other, confined or not.
func TestProgramOpeningAFifoEndsAtTimeout(t *testing.T) {
	for _, lc := range append([]layoutCase{{name: "unconfined"}}, layouts[:2]...) {
		t.Run(lc.name, func(t *testing.T) {
			e := newEnv(t)
			// The FIFO is d/fifo; the words are d and fifo, neither names it.
			os.Mkdir(filepath.Join(e.root, "d"), 0o755)
			mkfifo(t, filepath.Join(e.root, "d", "fifo"))
			line := helperName + " open-wait " + filepath.Join(e.root, "d") + " fifo"
			s := e.spec(line)
			if lc.name != "unconfined" {
				requireConfinement(t, lc)
				s = e.confined(lc, line)
			}
			s.Timeout = 300 * time.Millisecond
			start := time.Now()
			r := Run(context.Background(), s)
			el := time.Since(start)
			if !r.TimedOut || stopped(r) != stopTimeout || el > s.Timeout+killGrace+3*time.Second {
				t.Fatalf("after %v: %+v", el, r)
			}
		})
	}
}

// TestTimeoutEscalates: at the timeout a program gets SIGTERM; one that
// ignores it gets SIGKILL after the grace, and the result says so.
func TestTimeoutEscalates(t *testing.T) {
	for _, lc := range append([]layoutCase{{name: "unconfined"}}, layouts[:2]...) {
		t.Run(lc.name, func(t *testing.T) {
			e := newEnv(t)
			spec := func(line string) Spec {
				if lc.name == "unconfined" {
					return e.spec(line)
				}
				requireConfinement(t, lc)
				return e.confined(lc, line)
			}
			// Ends on SIGTERM. The timeout leaves a loaded machine time to
			// start the helper, so that SIGTERM finds it running.
			started := filepath.Join(e.root, "started")
			s := spec(helperName + " sleep " + started)
			s.Writes = []string{e.root}
			s.Timeout = 1500 * time.Millisecond
			start := time.Now()
			r := Run(context.Background(), s)
			if el := time.Since(start); !r.TimedOut || r.Signal != "SIGTERM" || el >= s.Timeout+killGrace || !exists(started) {
				t.Fatalf("after %v: %+v", el, r)
			}
			// Ignores SIGTERM: SIGKILL after the grace. The same room to
			// start: a helper not yet ignoring SIGTERM would end on it.
			ready := filepath.Join(e.root, "ready")
			s = spec(helperName + " ignore-term " + ready)
			s.Writes = []string{e.root}
			s.Timeout = 1500 * time.Millisecond
			start = time.Now()
			r = Run(context.Background(), s)
			el := time.Since(start)
			if !r.TimedOut || r.Signal != "SIGKILL" || stopped(r) != stopTimeout || el < killGrace || el > s.Timeout+killGrace+3*time.Second {
				t.Fatalf("after %v: %+v", el, r)
			}
			if !exists(ready) {
				t.Fatalf("the helper never started: %+v", r)
			}
		})
	}
}
