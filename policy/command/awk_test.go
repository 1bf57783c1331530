package command

import (
	"os/exec"
	"testing"
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
	sandboxOracle{
		bin: gawk, args: func(prog string) []string { return []string{"--sandbox", "--", prog} },
		input: "1 2\n3 4\n", marker: "not allowed in sandbox mode", check: awkProgram, pieces: pieces, seed: 7, tries: 4000,
	}.run(t)
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
