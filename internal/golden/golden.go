// Package golden compares test output with golden files under testdata,
// rewritten by go test -update and then reviewed in the diff.
package golden

import (
	"bytes"
	"os"
	"testing"
)

// Check compares got with the golden file at path, or rewrites the file
// when update is set (go test -update), for the diff to be reviewed.
func Check(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
