package jsonquote

import (
	"encoding/json"
	"testing"
)

// FuzzMarshal: the Marshal style is encoding/json's, byte for byte, and
// the Minimal style reads back as the same string (invalid UTF-8 as
// U+FFFD, as json.Marshal gives it).
func FuzzMarshal(f *testing.F) {
	for _, s := range []string{"", "plain", "<a href='x'>&amp;</a>", "\b\f\n\r\t\x00\x1f\x7f", "\xff\xfe", "\u2028\u2029", "é€𝄞", `"\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(append(AppendBody([]byte{'"'}, s, Marshal), '"')); got != string(want) {
			t.Fatalf("Marshal style of %q: %s, want %s", s, got, want)
		}
		var back, wantBack string
		if err := json.Unmarshal(append(AppendBody([]byte{'"'}, s, Minimal), '"'), &back); err != nil {
			t.Fatalf("Minimal style of %q is no JSON string: %v", s, err)
		}
		if err := json.Unmarshal(want, &wantBack); err != nil {
			t.Fatal(err)
		}
		if back != wantBack {
			t.Fatalf("Minimal style of %q reads back as %q, want %q", s, back, wantBack)
		}
	})
}
