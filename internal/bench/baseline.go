package bench

import (
	"archive/tar"
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// BaselineRev is the release admit bench measures beside: the last one
// before the round that added the protected paths, the person's rules
// and the confinement of code (docs/architecture.md).
const BaselineRev = "cd5debf"

// Tree is one build of admit: its binary and the test binaries of the
// packages whose benchmarks admit bench reads, built from one source
// tree.
type Tree struct {
	Name string
	Src  string
	Bin  string
	// Tests are the test binaries by figure: "command" (Evaluate,
	// EvaluateWrite), "gate" (the gate alone), "tape" (appends).
	Tests map[string]string
}

// benchPackage is the first of places (packages, newest first) that
// holds a bench_test.go in src: the gate's benchmark moved from rpc to
// rpc/gate to gate, and the tape's from policy/tape to tape, so a
// baseline's tree has them where its release kept them.
func benchPackage(src string, places ...string) string {
	for _, p := range places {
		if _, err := os.Stat(filepath.Join(src, filepath.FromSlash(p), "bench_test.go")); err == nil {
			return "./" + p
		}
	}
	return "./" + places[0]
}

// BuildTree builds admit and its benchmarks' test binaries from src into
// out.
func BuildTree(name, src, out string) (*Tree, error) {
	t := &Tree{Name: name, Src: src, Bin: filepath.Join(out, "admit"), Tests: map[string]string{}}
	if err := goCmd(src, "build", "-o", t.Bin, "."); err != nil {
		return nil, fmt.Errorf("%s: build admit: %w", name, err)
	}
	for fig, pkg := range map[string]string{
		"command": "./policy/command",
		"gate":    benchPackage(src, "gate", "rpc/gate", "rpc"),
		"tape":    benchPackage(src, "tape", "policy/tape"),
	} {
		bin := filepath.Join(out, fig+".test")
		if err := goCmd(src, "test", "-c", "-o", bin, pkg); err != nil {
			return nil, fmt.Errorf("%s: build the tests of %s: %w", name, pkg, err)
		}
		t.Tests[fig] = bin
	}
	return t, nil
}

func goCmd(dir string, args ...string) error {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go %s: %v: %s", strings.Join(args, " "), err, bytes.TrimSpace(stderr.Bytes()))
	}
	return nil
}

// ErrNoHistory says why a baseline cannot be built here: no git, no
// checkout of admit, or a history without the commit. admit bench then
// prints its own figures and says so.
var ErrNoHistory = errors.New("no git history of admit here")

// Checkout finds the checkout of admit that dir is in and writes the tree
// of rev into out (git archive, no work tree of git's). It returns the
// checkout's top folder.
func Checkout(dir, rev, out string) (top string, err error) {
	if _, err := exec.LookPath("git"); err != nil {
		return "", fmt.Errorf("%w: git is not installed", ErrNoHistory)
	}
	if _, err := exec.LookPath("go"); err != nil {
		return "", fmt.Errorf("%w: go is not installed, so nothing can be built", ErrNoHistory)
	}
	cmd := exec.Command("git", "rev-parse", "--show-toplevel")
	cmd.Dir = dir
	b, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%w: %s is not in a git checkout", ErrNoHistory, dir)
	}
	top = strings.TrimSpace(string(b))
	if mod, err := os.ReadFile(filepath.Join(top, "go.mod")); err != nil || !bytes.HasPrefix(mod, []byte("module admit\n")) {
		return "", fmt.Errorf("%w: %s is not a checkout of admit", ErrNoHistory, top)
	}
	archive := exec.Command("git", "archive", "--format=tar", rev+"^{commit}")
	archive.Dir = top
	var stderr bytes.Buffer
	archive.Stderr = &stderr
	pipe, err := archive.StdoutPipe()
	if err != nil {
		return "", err
	}
	if err := archive.Start(); err != nil {
		return "", err
	}
	xerr := untar(pipe, out)
	_, _ = io.Copy(io.Discard, pipe)
	if err := archive.Wait(); err != nil {
		return "", fmt.Errorf("%w: commit %s: %s", ErrNoHistory, rev, bytes.TrimSpace(stderr.Bytes()))
	}
	return top, xerr
}

// untar writes the regular files and folders of a git archive under out.
func untar(r io.Reader, out string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Join(out, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(name, filepath.Clean(out)+string(filepath.Separator)) {
			return fmt.Errorf("archive entry %q leads outside %s", h.Name, out)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(name, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode)&0o755|0o600)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
	}
}

// Bench is one Go benchmark's figures, as `go test -bench` prints them.
type Bench struct {
	NsPerOp     float64
	AllocsPerOp float64
	Metrics     map[string]float64 // the others, by unit ("lines/s")
}

// RunBench runs the benchmark named by pattern (anchored) in a test
// binary for d and returns the figures of its first result line.
func RunBench(bin, pattern, benchtime string) (Bench, error) {
	cmd := exec.Command(bin, "-test.run", "^$", "-test.bench", pattern, "-test.benchtime", benchtime, "-test.benchmem")
	cmd.Dir = filepath.Dir(bin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return Bench{}, fmt.Errorf("%s -test.bench %s: %v: %s", filepath.Base(bin), pattern, err, lastLines(out, 5))
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		b := Bench{Metrics: map[string]float64{}}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			switch f[i+1] {
			case "ns/op":
				b.NsPerOp = v
			case "allocs/op":
				b.AllocsPerOp = v
			default:
				b.Metrics[f[i+1]] = v
			}
		}
		return b, nil
	}
	return Bench{}, fmt.Errorf("%s -test.bench %s printed no result: %s", filepath.Base(bin), pattern, lastLines(out, 5))
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
