package shell

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"
)

// bashArgv runs line in a real bash whose PATH holds nothing, so the
// command is not found and command_not_found_handle prints the argv bash
// built, NUL-separated. ok is false when bash is missing or printed
// nothing (a syntax error, say).
func bashArgv(t *testing.T, bash, dir, line string) ([]string, bool) {
	t.Helper()
	// printf stays a builtin: the handler must not be "not found" itself,
	// or it would call itself without end.
	prelude := "enable -n echo cd pwd test [ kill\n" +
		"command_not_found_handle() { builtin printf '%s\\0' \"$@\"; }\n"
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "--norc", "--noprofile", "-c", prelude+line)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + home, "PATH=" + dir + "/none"}
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	_ = cmd.Run() // the status is the handler's; only the output matters
	if stdout.Len() == 0 {
		return nil, false
	}
	return strings.Split(strings.TrimSuffix(stdout.String(), "\x00"), "\x00"), true
}

// TestAgainstBashRandom builds lines from quotes, backslashes, braces,
// tildes and assignment-like words, and checks that every line analyze
// accepts as one plain command gets the same argv from bash.
func TestAgainstBashRandom(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	if testing.Short() {
		t.Skip("spawns hundreds of shells")
	}
	pieces := []string{"a", "b", "/", ".", "-", "=", ":", "~", "{", "}", ",", "..", "1", "3",
		"'", `"`, `\`, " ", "x=", "'q r'", `"s\"t"`, `\ `, "{a,b}", "{1..3}", "~/", "#", "$'u'", "%", "@", "+", "^", "{,}", "''", "{a,}", "{01..2}", "{a..c..2}"}
	rng := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	p := NewParser(home)
	checked := 0
	for range 1500 {
		var b strings.Builder
		b.WriteString("cmd ")
		for range 1 + rng.IntN(8) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		line := b.String()
		script, prob := p.Parse(line, Analyze)
		if prob != nil || len(script.Commands) != 1 || len(script.Commands[0].Redirects) != 0 {
			continue
		}
		got, ok := bashArgv(t, bash, dir, line)
		if !ok {
			t.Errorf("%q: bash ran nothing, Parse built %q", line, script.Commands[0].Argv)
			continue
		}
		if !reflect.DeepEqual(got, script.Commands[0].Argv) {
			t.Errorf("%q: bash built %q, Parse built %q", line, got, script.Commands[0].Argv)
		}
		checked++
	}
	t.Logf("%d random lines checked against bash", checked)
}
