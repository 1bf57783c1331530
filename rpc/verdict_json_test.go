package rpc

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"admit/gate"
	"admit/policy/rule"

	"go.lsp.dev/protocol"
)

// The hand-written encoder of a Verdict says exactly what the protocol's
// reflection-based encoder says, for random verdicts with hostile strings:
// quotes, control bytes, HTML, invalid UTF-8, long text, empty fields.
func TestVerdictJSONMatchesTheEncoder(t *testing.T) {
	pieces := []string{"", "a", "rm -rf /", `"quoted"`, `back\slash`, "new\nline", "\t\r\x00\x1f\x7f", "<script>&amp;",
		"\u2028\u2029", "ünïcødé", "\xff\xfe bad", "\xe2\x82", "😀", "/ws/a b/c.go", "toolError {\"error\":1}"}
	rng := rand.New(rand.NewPCG(1, 2))
	str := func() string {
		var b []byte
		for range rng.IntN(4) {
			b = append(b, pieces[rng.IntN(len(pieces))]...)
		}
		return string(b)
	}
	for i := range 5000 {
		v := gate.Verdict{ID: str(), Verdict: rule.Verdict(str()), Allowed: rng.IntN(2) == 0, Mode: rule.Mode(str()), Rule: rule.Rule(str()), Reason: str(), Kind: str(),
			ToolError: str(), DecidedBy: rule.DecidedBy(str()), Session: str(), Agent: str(), Tool: str(), Summary: str(), PolicyTrust: str(),
			Outcome: rule.Outcome(str()), Remedy: str(), Handle: str(), Question: str(), WouldAsk: rng.IntN(2) == 0}
		for range rng.IntN(3) {
			v.Targets = append(v.Targets, str())
		}
		if i%7 == 0 {
			v.Targets = []string{} // empty, not nil: left out too
		}
		want, err := protocol.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendVerdict(nil, &v); !bytes.Equal(got, want) {
			t.Fatalf("verdict %+v:\n got %s\nwant %s", v, got, want)
		}
	}
}
