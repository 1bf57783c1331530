package shell

import (
	"strings"
	"testing"
	"time"
)

// TestHostileSizes parses long lines built to trigger super-linear work.
// Each is 100-300 KB, far past any request bound; the limit is generous so
// the test only catches blow-ups (nested braces once took a minute), not
// a slow machine or the race detector.
func TestHostileSizes(t *testing.T) {
	p := NewParser(home)
	lines := []string{
		"l " + strings.Repeat("\x1a", 100000),
		strings.Repeat("{a,b}", 20),
		strings.Repeat("{", 5000) + strings.Repeat("a,b}", 5000),
		strings.Repeat("{1..256} ", 1000),
		strings.Repeat("$(", 2000),
		strings.Repeat("a ", 100000),
		strings.Repeat("'a'", 50000),
		strings.Repeat("(", 3000),
		strings.Repeat(`"$x"`, 20000),
		strings.Repeat("{1..2}", 40),
		strings.Repeat("~", 100000),
		"a=" + strings.Repeat(":~", 50000),
		strings.Repeat("[", 100000),
		strings.Repeat("$x ", 30000),
		strings.Repeat("a|", 10000) + "b",
		strings.Repeat("a;", 10000),
		"cat " + strings.Repeat("<<E ", 1000) + "\n" + strings.Repeat("E\n", 1000),
	}
	for _, line := range lines {
		for _, prof := range []Profile{Analyze, Refuse} {
			start := time.Now()
			script, prob := p.Parse(line, prof)
			checkResult(t, line[:10], prof, script, prob)
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("Parse(%q..., %s) took %v", line[:10], prof, d)
			}
		}
	}
}
