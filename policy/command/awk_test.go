package command

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Every program awkProgram admits, gawk also runs in its sandbox mode,
// where system(), redirections and getline from files or commands are
// fatal: random programs from pieces at the lexer's edges (regex or
// division, strings, comments, numbers glued to names, print statements
// and their parentheses).
func TestAwkProgramAgainstSandbox(t *testing.T) {
	gawk, err := exec.LookPath("gawk")
	if err != nil {
		t.Skip("no gawk (scripts/test installs it)")
	}
	if testing.Short() {
		t.Skip("runs gawk hundreds of times")
	}
	pieces := []string{"{", "}", "print", "printf", " ", "$1", ">", ">>", "|", "\"f\"", "/", "/re/", "(", ")", ";", "\n",
		"system", "(\"id\")", "getline", "x", "1", "2", "1e", "0x", "close", "#c\n", "!", "~", "&&", "||", ",", "=",
		"a", "b", "[", "]", "\\", "\"a\\\"b\"", "/[/]/", "NR", "$", "++", "--", "?", ":", "if", "else", "BEGIN", "END", "<", "|&", "**",
		",\n", ",", "\n\n", "print a,\n", "&&\n", "||\n", "\\\n", "{print $1,\n\"y\" > \"f\"}"}
	rng := rand.New(rand.NewPCG(7, 8))
	admitted := 0
	for range 4000 {
		var b strings.Builder
		for range 1 + rng.IntN(8) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		prog := b.String()
		if awkProgram(prog) != nil {
			continue
		}
		admitted++
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		cmd := exec.CommandContext(ctx, gawk, "--sandbox", "--", prog)
		cmd.Stdin = strings.NewReader("1 2\n3 4\n")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		_ = cmd.Run()
		cancel()
		if strings.Contains(stderr.String(), "not allowed in sandbox mode") {
			t.Errorf("admitted %q, which gawk's sandbox refuses: %s", prog, stderr.String())
		}
	}
	t.Logf("%d random programs admitted and checked against gawk --sandbox", admitted)
	if admitted < 100 {
		t.Errorf("only %d programs admitted; the pieces no longer exercise the lexer", admitted)
	}
}

func FuzzAwkProgram(f *testing.F) {
	for _, s := range []string{"{print $1}", "NR>1", "{s+=$1} END{print s}", "/a|b/", `{print > "f"}`, `BEGIN{system("id")}`, "{x=1close(y)}"} {
		f.Add(s)
	}
	// Semantics are held to gawk by the test above; here nothing may
	// panic or loop, and a program that is a denied name alone is refused.
	f.Fuzz(func(t *testing.T, s string) {
		_ = awkProgram(s)
		for name := range awkDenied {
			if awkProgram(name) == nil {
				t.Fatalf("admitted %q", name)
			}
		}
	})
}
