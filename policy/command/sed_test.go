package command

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// Every script sedScript admits, GNU sed also runs in its sandbox mode,
// where e, r and w (commands and flags) are errors: random scripts from
// pieces that sit on the edges (delimiters in brackets, a/i/c text that
// spells commands, labels, blocks, escapes).
func TestSedScriptAgainstSandbox(t *testing.T) {
	sed, err := exec.LookPath("sed")
	if err != nil {
		t.Skip("no sed")
	}
	if out, _ := exec.Command(sed, "--version").Output(); !bytes.Contains(out, []byte("GNU sed")) {
		t.Skip("not GNU sed")
	}
	if testing.Short() {
		t.Skip("runs sed hundreds of times")
	}
	pieces := []string{"p", "w x", "s/a/b/", "e", "e id", "r f", "R f", "W f", "{", "}", ";", "\n", "a\\", "a t", "i\\", "c x",
		"/re/", "/[/]/", "[", "]", "\\", "!", "1,2", "$", "y/a/b/", ":l", "bl", "#c", "s/x/y/w z", "s|a|b|e", "s/a/b/gpw f",
		"q", " ", "N", "/w/", "s/[/]/x/", "s/a\\/w/b/", "\\%w%p", "0~2", "2,+1", "l 5", "=", "I", "M", "g", "F", "z", "v", "T", "x",
		"\\;x;p", "s;a;b;w f", "y;a;b;", "a\\\nw f", "i t\\\nw f", "{w f}", "s/a/\\\nw f/", "\t", "#n\n", "s/a/b/ ; e", "b ;w f"}
	sandboxOracle{
		bin: sed, args: func(script string) []string { return []string{"--sandbox", "-n", "-e", script} },
		input: "a\nw\n", marker: "sandbox mode", check: sedScript, pieces: pieces, seed: 5, tries: 3000,
	}.run(t)
}

func FuzzSedScript(f *testing.F) {
	for _, s := range []string{"1,20p", "s/a/b/g", ":a;N;$!ba;s/\\n/ /g", "/x/{p;q}", "1i\\\nhi", "y/ab/xy/", "w x", "s/[/]/x/w f", "$a w"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := sedScript(s)
		// The one property checked without sed: an admitted script has no
		// top-level e, r or w command at its start.
		if err == nil && len(s) > 0 && strings.IndexByte("erwRW", s[0]) >= 0 {
			t.Fatalf("admitted %q", s)
		}
	})
}
