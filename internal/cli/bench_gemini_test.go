package cli

import (
	"bytes"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"admit/internal/bench"
)

// TestBesideGeminiMissing: with no Gemini CLI in the cache, admit bench's
// section is one line saying why and how to get it, and not an error.
func TestBesideGeminiMissing(t *testing.T) {
	cache := t.TempDir()
	env := func(k string) string {
		if k == "ADMIT_REAL_CLIENTS_CACHE" {
			return cache
		}
		return os.Getenv(k)
	}
	var out bytes.Buffer
	if err := besideGemini(&out, t.TempDir(), time.Millisecond, env); err != nil {
		t.Fatal(err)
	}
	got := strings.TrimSpace(out.String())
	if strings.Count(got, "\n") != 0 || !strings.Contains(got, "not measured") || !strings.Contains(got, "bash scripts/realclients/setup.sh") {
		t.Errorf("printed %q: want one line saying why and how to get it", got)
	}
}

// TestBesideGemini: with the real install, the section names the engine's
// version, node's and the count of lines, both rows with the decisions of
// every line, and the ratio. Its figures are not checked: it is not timed.
func TestBesideGemini(t *testing.T) {
	if _, err := bench.FindGemini(os.Getenv); err != nil {
		t.Skip(err)
	}
	lines, err := bench.ShellLines()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := besideGemini(&out, t.TempDir(), 20*time.Millisecond, os.Getenv); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	head := regexp.MustCompile(`beside Gemini CLI ` + regexp.QuoteMeta(bench.GeminiVersion) + `'s policy engine \(the same (\d+) lines, node v[0-9.]+\):`).FindStringSubmatch(s)
	if head == nil || head[1] != strconv.Itoa(len(lines)) {
		t.Fatalf("no heading for %d lines in:\n%s", len(lines), s)
	}
	for _, name := range []string{"Gemini CLI PolicyEngine.check", "admit command policy (Evaluate)"} {
		m := regexp.MustCompile(regexp.QuoteMeta(name) + `\s+\S+\s+(\d+)\s+(\d+)\s+(\d+)\n`).FindStringSubmatch(s)
		if m == nil || sum(m[1:]) != len(lines) {
			t.Errorf("%s: no row deciding all %d lines in:\n%s", name, len(lines), s)
		}
	}
	if !regexp.MustCompile(`admit is [0-9.]+x faster`).MatchString(s) {
		t.Errorf("no ratio in:\n%s", s)
	}
}

func sum(counts []string) int {
	n := 0
	for _, c := range counts {
		v, _ := strconv.Atoi(c)
		n += v
	}
	return n
}
