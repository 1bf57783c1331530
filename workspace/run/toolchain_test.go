//go:build linux

package run

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"admit/policy/command"
)

// Real toolchains run confined as a program that runs code: they pass,
// their caches are used, and a test of theirs that reaches the network or
// writes outside fails inside the run.

// toolchainEnv is a workspace with a git folder (so the root holds
// protected paths, as a real checkout does) and a fake home folder.
func toolchainEnv(t *testing.T, tool string) (*env, string) {
	t.Helper()
	bin, err := exec.LookPath(tool)
	if err != nil {
		t.Skipf("no %s here", tool)
	}
	lc := layouts[1]
	requireConfinement(t, lc)
	e := newEnv(t)
	if git, err := exec.LookPath("git"); err == nil {
		cmd := exec.Command(git, "init", "-q", e.root)
		cmd.Env = []string{"HOME=" + e.outside, "GIT_CONFIG_NOSYSTEM=1"}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git init: %v %s", err, out)
		}
	} else {
		e.file(t, ".git/config", "[core]\n\trepositoryformatversion = 0\n")
		e.file(t, ".git/HEAD", "ref: refs/heads/main\n")
	}
	os.MkdirAll(filepath.Join(e.root, ".git/hooks"), 0o755)
	real, _ := filepath.EvalSymlinks(bin)
	e.path = filepath.Dir(bin) + ":" + filepath.Dir(real) + ":" + e.path
	return e, real
}

func (e *env) toolchainSpec(line string, extraEnv ...string) Spec {
	s := e.spec(line)
	s.Confine, s.Code = true, true
	s.Protected = protect(s.Roots)
	s.RootFolders, s.RootFiles = command.RootNames()
	s.Timeout = 5 * time.Minute
	s.Env = append(s.Env, extraEnv...)
	return s
}

func TestGoConfined(t *testing.T) {
	e, _ := toolchainEnv(t, "go")
	// The person's build cache: the package tests of this repository
	// already write it, and a cold one would compile the standard library.
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	// A copy of it (hard links, in a folder of the test's own), so that
	// what changes in it is the run's, not another build's on this
	// machine.
	gocache := filepath.Join(t.TempDir(), "go-build")
	if out, err := exec.Command("cp", "-al", strings.TrimSpace(string(out)), gocache).CombinedOutput(); err != nil {
		t.Skipf("no copy of the build cache: %v %s", err, out)
	}
	before := treeState(t, gocache)
	gomodcache := t.TempDir() // no module is downloaded: it stays empty
	tcp := streamListener(t, "tcp", "tcp", "127.0.0.1:0")
	outside := filepath.Join(e.outside, "written-by-test")
	e.file(t, "go.mod", "module example.com/m\n\ngo 1.21\n")
	e.file(t, "main.go", "package main\n\nfunc main() { println(add(1, 2)) }\n\nfunc add(a, b int) int { return a + b }\n")
	e.file(t, "main_test.go", `package main

import (
	"net"
	"os"
	"testing"
	"time"
)

func TestAdd(t *testing.T) {
	if add(2, 3) != 5 {
		t.Fatal("add")
	}
	if err := os.WriteFile(t.TempDir()+"/scratch", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDial(t *testing.T) {
	c, err := net.DialTimeout("tcp", "`+tcp.addr+`", 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("leak"))
	c.Close()
}

func TestWriteOutside(t *testing.T) {
	if err := os.WriteFile("`+outside+`", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
}
`)
	goEnv := []string{"GOCACHE=" + gocache, "GOMODCACHE=" + gomodcache, "GOTOOLCHAIN=local"}
	run := func(line string) Result {
		t.Helper()
		r := Run(context.Background(), e.toolchainSpec(line, goEnv...))
		if r.Err != nil {
			t.Fatalf("%s: %v", line, r.Err)
		}
		return r
	}

	// go build writes its binary in the root, beside the protected .git.
	if r := run("go build -o app ."); r.ExitCode != 0 || !exists(filepath.Join(e.root, "app")) {
		t.Fatalf("go build: %+v", r)
	}
	if r := run("go vet ./..."); r.ExitCode != 0 {
		t.Fatalf("go vet: %+v", r)
	}
	r := run("go test -count=1 -run TestAdd ./...")
	if r.ExitCode != 0 || !strings.Contains(r.Stdout, "ok") {
		t.Fatalf("go test: %+v", r)
	}
	// The person's cache is read (admit's cache program answers from it),
	// never written: the run's own cache is private and goes with the
	// run. Within one run, the second go test is answered from it.
	if r := run("go test -run TestAdd ./... && go test -run TestAdd ./..."); !strings.Contains(r.Stdout, "(cached)") {
		t.Fatalf("go test did not use its cache: %+v", r)
	}
	if r := run("go test -run TestAdd ./..."); strings.Contains(r.Stdout, "(cached)") {
		t.Fatalf("a later run was answered from an earlier run's cache: %+v", r)
	}
	// Not even a line that points GOCACHE back at it can write it.
	run("GOCACHE=" + gocache + " GOCACHEPROG= go test -count=1 -run TestAdd ./...")
	if after := treeState(t, gocache); after != before {
		t.Fatalf("the person's build cache changed: %s", firstDiff(before, after))
	}
	// Tests that reach the network or write outside fail inside the run.
	r = run("go test -count=1 -run TestDial ./...")
	if r.ExitCode == 0 || len(tcp.leaked(t)) > 0 {
		t.Fatalf("go test dialled out: %+v", r)
	}
	r = run("go test -count=1 -run TestWriteOutside ./...")
	if r.ExitCode == 0 || exists(outside) {
		t.Fatalf("go test wrote outside: %+v", r)
	}
	// Control: the same tests pass without confinement.
	s := e.toolchainSpec("go test -count=1 -run TestDial|TestWriteOutside ./...", goEnv...)
	s.Argv, s.Line = []string{"go", "test", "-count=1", "-run", "TestDial|TestWriteOutside", "./..."}, ""
	s.Confine = false
	if r := Run(context.Background(), s); r.ExitCode != 0 || !exists(outside) {
		t.Fatalf("control: %+v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(e.root, ".git/config")); !strings.Contains(string(b), "repositoryformatversion") {
		t.Fatal(".git/config changed")
	}
}

func TestNpmConfined(t *testing.T) {
	e, _ := toolchainEnv(t, "npm")
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node here")
	}
	cache := t.TempDir()
	tcp := streamListener(t, "tcp", "tcp", "127.0.0.1:0")
	outside := filepath.Join(e.outside, "written-by-npm-test")
	host, port, _ := strings.Cut(tcp.addr, ":")
	e.file(t, "package.json", `{
  "name": "tiny",
  "version": "1.0.0",
  "private": true,
  "scripts": {
    "test": "node test.js",
    "test:net": "node net.js",
    "test:write": "node write.js"
  }
}
`)
	e.file(t, "test.js", `const assert = require("assert");
const fs = require("fs"), os = require("os"), path = require("path");
assert.strictEqual(1 + 2, 3);
fs.writeFileSync(path.join(os.tmpdir(), "scratch"), "x");
fs.mkdirSync("coverage", { recursive: true });
fs.writeFileSync("coverage/out.txt", "covered");
console.log("tiny ok");
`)
	e.file(t, "net.js", `const net = require("net");
const c = net.connect(`+port+`, "`+host+`", () => { c.write("leak"); c.end(); console.log("connected"); });
c.on("error", (err) => { console.error("error", err.code); process.exit(1); });
`)
	e.file(t, "write.js", `require("fs").writeFileSync("`+outside+`", "x"); console.log("wrote");
`)
	npmEnv := []string{"npm_config_cache=" + cache}
	r := Run(context.Background(), e.toolchainSpec("npm test", npmEnv...))
	if r.Err != nil || r.ExitCode != 0 || !strings.Contains(r.Stdout, "tiny ok") {
		t.Fatalf("npm test: %+v", r)
	}
	t.Logf("npm test: %s\n%s", r.Stdout, r.Stderr)
	if !exists(filepath.Join(e.root, "coverage/out.txt")) {
		t.Fatal("the test's output in the workspace is missing")
	}
	// npm wrote its log in the run's private cache, not the person's,
	// even when the line points npm back at it.
	r = Run(context.Background(), e.toolchainSpec("npm_config_cache="+cache+" npm test", npmEnv...))
	if r.ExitCode != 0 {
		t.Fatalf("npm test with the cache named: %+v", r)
	}
	if entries, _ := os.ReadDir(cache); len(entries) != 0 {
		t.Errorf("npm wrote the person's cache %s: %v", cache, entries)
	}
	r = Run(context.Background(), e.toolchainSpec("npm run test:net", npmEnv...))
	if r.ExitCode == 0 || len(tcp.leaked(t)) > 0 {
		t.Fatalf("npm test dialled out: %+v", r)
	}
	r = Run(context.Background(), e.toolchainSpec("npm run test:write", npmEnv...))
	if r.ExitCode == 0 || exists(outside) {
		t.Fatalf("npm test wrote outside: %+v", r)
	}
	// Control: without confinement both reach what they aimed at.
	for _, script := range []string{"test:net", "test:write"} {
		s := e.toolchainSpec("npm run "+script, npmEnv...)
		s.Confine = false
		if r := Run(context.Background(), s); r.ExitCode != 0 {
			t.Fatalf("control %s: %+v", script, r)
		}
	}
	if !exists(outside) || len(tcp.leaked(t)) != 1 {
		t.Fatal("control runs did not reach outside")
	}
}

// TestCargoConfined: a confined cargo build, with the empty protected
// folders in the root (.cargo among them) and the person's CARGO_HOME
// read only, compiles into the workspace's target folder (the
// workspace's, as any file the agent writes) and leaves CARGO_HOME as it
// was.
func TestCargoConfined(t *testing.T) {
	e, _ := toolchainEnv(t, "cargo")
	rustup := os.Getenv("RUSTUP_HOME")
	if rustup == "" {
		home, _ := os.UserHomeDir()
		rustup = filepath.Join(home, ".rustup")
	}
	// A rustup proxy with no toolchain in RUSTUP_HOME (another person's
	// ~/.cargo/bin on PATH) fails outside the sandbox too: nothing to test.
	probe := exec.Command("cargo", "--version")
	probe.Env = append(os.Environ(), "RUSTUP_HOME="+rustup)
	if out, err := probe.CombinedOutput(); err != nil {
		t.Skipf("cargo does not run here, unconfined: %v %.200s", err, out)
	}
	cargoHome := filepath.Join(e.outside, "cargo-home")
	for _, d := range []string{"registry/index", "registry/cache", "git"} {
		os.MkdirAll(filepath.Join(cargoHome, d), 0o755)
	}
	e.file(t, "Cargo.toml", "[package]\nname = \"tiny\"\nversion = \"0.1.0\"\nedition = \"2021\"\n")
	e.file(t, "src/main.rs", "fn main() { println!(\"tiny ok\"); }\n")
	before := treeState(t, cargoHome)
	cargoEnv := []string{"CARGO_HOME=" + cargoHome, "RUSTUP_HOME=" + rustup}
	r := Run(context.Background(), e.toolchainSpec("cargo run --offline", cargoEnv...))
	if r.Err != nil || r.ExitCode != 0 || !strings.Contains(r.Stdout, "tiny ok") {
		t.Fatalf("cargo run: %+v", r)
	}
	if !exists(filepath.Join(e.root, "target", "debug", "tiny")) {
		t.Error("the build's output is not in the workspace's target folder")
	}
	if after := treeState(t, cargoHome); after != before {
		t.Errorf("cargo wrote the person's CARGO_HOME: %s", firstDiff(before, after))
	}
}

// treeState is the names and sizes of everything under dir, and the
// modification times of its folders (a file's time is its inode's, which
// a hard-linked copy shares with builds elsewhere on the machine).
func treeState(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() {
			fmt.Fprintf(&b, "%s/ %d\n", p, info.ModTime().UnixNano())
		} else {
			fmt.Fprintf(&b, "%s %d\n", p, info.Size())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return al[i] + " became " + bl[i]
		}
	}
	return fmt.Sprintf("%d lines became %d", len(al), len(bl))
}
