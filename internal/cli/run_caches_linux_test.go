package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"admit/gate"
)

// TestRunCachesArePrivate: through admit run, a program that runs code
// (make, allowed by the person's rule) builds with go, caches a package
// with npm, writes pip's cache and builds with cargo. Each writes a cache,
// and each cache it writes is the run's own, under its private TMPDIR,
// gone with it: the person's Go build cache, ~/.npm, ~/.cache/pip
// (PIP_CACHE_DIR) and CARGO_HOME's registry, in a home of the test's own,
// are as they were, though the line also writes at them by name and
// points go back at the person's cache. A tool that is not installed
// leaves its part out, said in the log; pip's part writes to the folder
// PIP_CACHE_DIR names from the shell either way.
func TestRunCachesArePrivate(t *testing.T) {
	needPrograms(t, "make", "go")
	needConfiner(t)
	ws := testWorkspace(t)
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, content string) {
		t.Helper()
		must(os.MkdirAll(filepath.Dir(p), 0o755))
		must(os.WriteFile(p, []byte(content), 0o644))
	}
	gocache := filepath.Join(home, ".cache", "go-build")
	npmCache := filepath.Join(home, ".npm")
	pipCache := filepath.Join(home, ".cache", "pip")
	cargoHome := filepath.Join(home, ".cargo")
	// The person's Go build cache: a copy of this machine's (hard links),
	// so that a confined go build does not compile the standard library
	// again, and what changes in it is the run's alone.
	must(os.MkdirAll(filepath.Dir(gocache), 0o755))
	if out, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
		if out, err := exec.Command("cp", "-al", strings.TrimSpace(string(out)), gocache).CombinedOutput(); err != nil {
			t.Logf("no copy of the build cache (%v %s): the build starts cold", err, out)
		}
	}
	must(os.MkdirAll(gocache, 0o755))
	write(filepath.Join(npmCache, "_cacache", "index-v5", "mine"), "the person's\n")
	write(filepath.Join(pipCache, "http", "mine"), "the person's\n")
	write(filepath.Join(cargoHome, "registry", "index", "mine"), "the person's\n")
	must(os.MkdirAll(filepath.Join(cargoHome, "registry", "cache"), 0o755))
	must(os.MkdirAll(filepath.Join(cargoHome, "git"), 0o755))

	env := []string{"HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "GOCACHE=" + gocache,
		"npm_config_cache=" + npmCache, "NPM_CONFIG_CACHE=" + npmCache, "npm_config_update_notifier=false",
		"PIP_CACHE_DIR=" + pipCache, "CARGO_HOME=" + cargoHome, "GOTOOLCHAIN=local"}

	// A checkout, as a workspace mostly is: in a root without one, the
	// run's empty .git makes go build stamp VCS data, and fail.
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		t.Skipf("git init: %v %s", err, out)
	}
	write(filepath.Join(ws, "go.mod"), "module example.com/m\n\ngo 1.21\n")
	write(filepath.Join(ws, "src", "main.go"), "package main\n\nfunc main() { println(\"built\") }\n")
	recipe := []string{
		"caches:",
		"go build -o app ./src && echo go-built",
		`test -n "$$(find "$$GOCACHE" -type f | head -1)" && echo "gocache=$$GOCACHE"`,
		// Pointed back at the person's cache, go still builds, through
		// admit's cache program, which puts only into the private one.
		"-GOCACHE=" + gocache + " go build -o app2 ./src",
		`mkdir -p "$$PIP_CACHE_DIR/http" && echo x > "$$PIP_CACHE_DIR/http/planted" && echo "pipcache=$$PIP_CACHE_DIR"`,
	}
	var left []string
	if npmRuns(t, env) {
		write(filepath.Join(ws, "pkg", "package.json"), `{"name":"tinypkg","version":"1.0.0"}`)
		recipe = append(recipe,
			"cd pkg && npm pack --silent >/dev/null",
			`npm cache add ./pkg/tinypkg-1.0.0.tgz --offline && test -d "$$npm_config_cache/_cacache/content-v2" && echo "npmcache=$$npm_config_cache"`,
			"-npm cache add ./pkg/tinypkg-1.0.0.tgz --offline --cache "+npmCache+" && echo npm-into-person")
	} else {
		left = append(left, "npm")
	}
	py := pipPython(t, env)
	if py != "" {
		// pip's own view of its cache.
		recipe = append(recipe, py+` -m pip cache dir | sed 's/^/pipdir=/'`)
	} else {
		left = append(left, "pip (the shell writes PIP_CACHE_DIR's folder)")
	}
	rustup := os.Getenv("RUSTUP_HOME")
	if rustup == "" {
		rustup = filepath.Join(os.Getenv("HOME"), ".rustup")
	}
	if cargoRuns(t, append(env, "RUSTUP_HOME="+rustup)) {
		env = append(env, "RUSTUP_HOME="+rustup)
		write(filepath.Join(ws, "Cargo.toml"), "[package]\nname = \"tiny\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[[bin]]\nname = \"tiny\"\npath = \"src/main.rs\"\n")
		write(filepath.Join(ws, "src", "main.rs"), "fn main() { println!(\"tiny ok\"); }\n")
		recipe = append(recipe, "cargo build --offline -q && echo cargo-built")
	} else {
		left = append(left, "cargo")
	}
	// Straight at the person's caches, by name: the walls refuse each.
	for _, p := range []string{gocache, filepath.Join(npmCache, "_cacache"), pipCache, filepath.Join(cargoHome, "registry")} {
		recipe = append(recipe, fmt.Sprintf("-echo x > %s/planted && echo planted-%s", p, filepath.Base(p)))
	}
	if len(left) > 0 {
		t.Logf("not installed or not running here, left out: %s", strings.Join(left, ", "))
	}
	write(filepath.Join(ws, "Makefile"), strings.Join(recipe, "\n\t")+"\n")

	before := homeState(t, home)
	cfg := t.TempDir()
	write(filepath.Join(cfg, "admit", "rules.json"), `{"allow":["make *"]}`)
	cmd := admitCmd(t, append(env, "XDG_CONFIG_HOME="+cfg, "XDG_STATE_HOME="+t.TempDir(), "ADMIT_EFFECTS=workspace-write"),
		"run", "--root", ws, "-c", "make -s caches")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	var res gate.RunResult
	if jerr := json.Unmarshal(out.Bytes(), &res); jerr != nil {
		t.Fatalf("admit run: %v %v\n%s\n%s", err, jerr, out.String(), errb.String())
	}
	t.Logf("stdout:\n%s\nstderr:\n%s", res.Stdout, res.Stderr)
	if !res.Ran || res.ExitCode != 0 {
		t.Fatalf("make caches: %+v", res)
	}
	vals := map[string]string{}
	for _, l := range strings.Split(res.Stdout, "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			vals[k] = v
		}
	}
	if !strings.Contains(res.Stdout, "go-built") {
		t.Error("go build did not run")
	}
	// Each cache the run wrote is the run's: under its TMPDIR, not the
	// person's home.
	want := []string{"gocache", "pipcache"}
	if !slices.Contains(left, "npm") {
		want = append(want, "npmcache")
	}
	if py != "" {
		want = append(want, "pipdir")
	}
	for _, k := range want {
		v := vals[k]
		if v == "" || strings.HasPrefix(v, home) || !strings.Contains(v, "/admit-") {
			t.Errorf("%s is %q: not the run's private cache", k, v)
		}
	}
	if vals["pipdir"] != "" && vals["pipdir"] != vals["pipcache"] {
		t.Errorf("pip's cache is %s, PIP_CACHE_DIR %s", vals["pipdir"], vals["pipcache"])
	}
	if !slices.Contains(left, "cargo") && !strings.Contains(res.Stdout, "cargo-built") {
		t.Error("cargo build did not run")
	}
	for _, m := range []string{"planted-", "npm-into-person"} {
		if strings.Contains(res.Stdout, m) {
			t.Errorf("the run wrote the person's cache (%s)", m)
		}
	}
	if after := homeState(t, home); after != before {
		t.Errorf("the person's caches changed: %s", firstChange(before, after))
	}
	// Control: the same line, not confined, writes every one of them.
	ctl := exec.Command("make", "-s", "caches")
	ctl.Dir, ctl.Env = ws, append(os.Environ(), env...)
	b, _ := ctl.CombinedOutput()
	for _, p := range []string{"go-build", "_cacache", "pip", "registry"} {
		if !strings.Contains(string(b), "planted-"+p) {
			t.Errorf("control: the unconfined line did not write the person's %s: %s", p, b)
		}
	}
	if homeState(t, home) == before {
		t.Error("control: the person's caches did not change")
	}
}

// npmRuns, pipPython and cargoRuns: whether each tool runs here,
// unconfined, in the test's home.
func npmRuns(t *testing.T, env []string) bool {
	return runsHere(env, "npm", "--version")
}

func pipPython(t *testing.T, env []string) string {
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if p, err := exec.LookPath(py); err == nil && runsHere(env, p, "-m", "pip", "--version") {
			return p
		}
	}
	return ""
}

func cargoRuns(t *testing.T, env []string) bool {
	return runsHere(env, "cargo", "--version")
}

func runsHere(env []string, name string, args ...string) bool {
	if _, err := exec.LookPath(name); err != nil {
		return false
	}
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	return cmd.Run() == nil
}

// homeState is the names, kinds and sizes of everything under dir, and
// its folders' modification times (a file's is its inode's, which the
// hard-linked build cache shares with builds elsewhere on the machine).
func homeState(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		l := fmt.Sprintf("%s %v %d", p, info.Mode(), info.Size())
		if d.IsDir() {
			l += " " + info.ModTime().String()
		}
		lines = append(lines, l)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func firstChange(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return al[i] + " -> " + bl[i]
		}
	}
	return fmt.Sprintf("%d entries -> %d", len(al), len(bl))
}
