// Package golden compares test output with golden files under testdata,
// rewritten by go test -update and then reviewed in the diff.
package golden

import (
	"bytes"
	"fmt"
	"os"
	"strings"
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
		t.Errorf("%s differs (go test -update rewrites it):\n%s", path, lineDiff(got, want))
	}
}

// lineDiff names the first lines where got and want differ, each side in
// full, so that a long golden file's difference is read where it is
// rather than found in two dumps (a CI log keeps only part of them).
func lineDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(g), len(w)) && shown < 3; i++ {
		gl, wl := line(g, i), line(w, i)
		if gl == wl {
			continue
		}
		fmt.Fprintf(&b, "line %d:\n--- got\n%s\n--- want\n%s\n", i+1, gl, wl)
		shown++
	}
	fmt.Fprintf(&b, "(%d lines got, %d lines want)", len(g), len(w))
	return b.String()
}

func line(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(no line)"
}
