package rpc_test

import (
	"os"
	"path/filepath"
	"testing"
)

// workspaceDir makes a workspace folder with a few files.
func workspaceDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(dir, "ws")
	for _, p := range []string{"src/a.go", "README.md", "notes.txt"} {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(ws, p)), 0o755))
		must(t, os.WriteFile(filepath.Join(ws, p), []byte("hello "+p+"\n"), 0o644))
	}
	return ws
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
