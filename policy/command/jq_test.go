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

// jqCanary is a value only the environment of the jq runs below holds:
// a filter that prints it read the environment.
const jqCanary = "zq7canary"

// Every filter jqFilterReads admits, jq runs without printing a value of
// the environment: random filters from pieces at the lexer's edges
// (strings and their interpolations, fields named like the builtins,
// comments, definitions), run by jq -n with the canary in its
// environment.
func TestJqFilterAgainstJq(t *testing.T) {
	jq, err := exec.LookPath("jq")
	if err != nil {
		t.Skip("no jq (scripts/test installs it)")
	}
	if testing.Short() {
		t.Skip("runs jq hundreds of times")
	}
	pieces := []string{"env", "$ENV", ".", ".env", `"`, `\(`, ")", "(", "|", "#", "\n", "a", "{", "}", ":", "$x",
		"input_filename", "def f: 1;", "f", ".ADMIT_CANARY", "[", "]", ",", `"\""`, `\\`, "$__loc__", "?", "..", " ",
		"@text", "@sh", "env.ADMIT_CANARY", "$ENV.ADMIT_CANARY", "tostring", "keys", `"\(env)"`, `"\("x")"`, `"env"`,
		"{env}", "{$ENV}", ".a.env", "as $x", "reduce", "1", "+", "$", "ENV", "e", "nv", "#\\", "\"#\""}
	rng := rand.New(rand.NewPCG(11, 12))
	admitted, refused := 0, 0
	for range 1500 {
		var b strings.Builder
		for range 1 + rng.IntN(7) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		filter := b.String()
		if name, _ := jqFilterReads(filter); name != "" {
			refused++
			continue
		}
		admitted++
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		cmd := exec.CommandContext(ctx, jq, "-n", filter)
		cmd.Env = []string{"ADMIT_CANARY=" + jqCanary}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		_ = cmd.Run()
		cancel()
		if strings.Contains(out.String(), jqCanary) {
			t.Errorf("admitted %q, which prints the environment: %s", filter, out.String())
		}
	}
	t.Logf("%d random filters admitted and run by jq, %d refused", admitted, refused)
	if admitted < 200 || refused < 200 {
		t.Errorf("admitted %d, refused %d: the pieces no longer exercise the lexer", admitted, refused)
	}
}

func FuzzJqFilter(f *testing.F) {
	for _, s := range []string{".a", "$ENV.HOME", `"\(env.HOME)"`, ".env", "# env\n.", `"a\"b" | env`, "{env}", `"\("\(env)")"`} {
		f.Add(s)
	}
	// Semantics are held to jq by the test above; here nothing may panic
	// or loop, and a filter that names env or $ENV bare is refused
	// whatever follows a comment-free, string-free prefix.
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = jqFilterReads(s)
		if !strings.ContainsAny(s, "\"#") {
			for _, bare := range []string{"env | ", "$ENV | "} {
				if name, _ := jqFilterReads(bare + s); name == "" {
					t.Fatalf("admitted %q", bare+s)
				}
			}
		}
	})
}
