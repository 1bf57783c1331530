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

// sandboxOracle holds a parser of a program language to the real program
// in its sandbox mode: random programs are built from pieces, and every
// one check admits must run in the sandbox without the sandbox refusing
// it (refused, the stderr holds marker). args gives the program's argv
// for one program text; input is its standard input.
type sandboxOracle struct {
	bin    string
	args   func(prog string) []string
	input  string
	marker string
	check  func(prog string) error
	pieces []string
	seed   uint64
	tries  int
}

func (o sandboxOracle) run(t *testing.T) {
	t.Helper()
	rng := rand.New(rand.NewPCG(o.seed, o.seed+1))
	admitted := 0
	for range o.tries {
		var b strings.Builder
		for range 1 + rng.IntN(8) {
			b.WriteString(o.pieces[rng.IntN(len(o.pieces))])
		}
		prog := b.String()
		if o.check(prog) != nil {
			continue
		}
		admitted++
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		cmd := exec.CommandContext(ctx, o.bin, o.args(prog)...)
		cmd.Stdin = strings.NewReader(o.input)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		_ = cmd.Run()
		cancel()
		if strings.Contains(stderr.String(), o.marker) {
			t.Errorf("admitted %q, which %s's sandbox refuses: %s", prog, o.bin, stderr.String())
		}
	}
	t.Logf("%d random programs admitted and checked against %s's sandbox", admitted, o.bin)
	if admitted < 100 {
		t.Errorf("only %d programs admitted; the pieces no longer exercise the parser", admitted)
	}
}
