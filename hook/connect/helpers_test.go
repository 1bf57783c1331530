package connect

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// fakeHome copies testdata/home (realistic configurations of Claude Code,
// Gemini CLI, Copilot, Cursor and Codex, each with the person's own hooks
// and settings) into a temporary folder, and returns it.
func fakeHome(t testing.TB) string {
	t.Helper()
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir("testdata/home", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("testdata/home", p)
		dst := filepath.Join(home, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return home
}

// fakeBinary is an executable named admit in a folder of its own.
func fakeBinary(t testing.TB) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin", "admit")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// quiet is the machine with an empty environment: no $PATH to find hosts
// on, no CLAUDE_CONFIG_DIR moving a folder.
var quiet = OS{Env: func(string) string { return "" }}

// snapshot reads every file under dir, by path relative to it.
func snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[rel] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// without drops the backups admit left from a snapshot.
func without(files map[string]string, suffix string) map[string]string {
	out := map[string]string{}
	for k, v := range files {
		if !strings.HasSuffix(k, suffix) {
			out[k] = v
		}
	}
	return out
}

func osWriteFile(p, s string) error { return os.WriteFile(p, []byte(s), 0o644) }
