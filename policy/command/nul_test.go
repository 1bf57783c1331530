package command

import (
	"strings"
	"testing"
)

// TestHasNUL checks the eight-bytes-at-once look against the byte by
// byte one: a NUL at every place of words of every length, and the bytes
// next to zero (0x01, 0x80, 0xff) that a borrow trick could mistake.
func TestHasNUL(t *testing.T) {
	for _, fill := range []byte{'a', 0x01, 0x80, 0xff, 0x7f} {
		for n := 0; n <= 24; n++ {
			w := strings.Repeat(string([]byte{fill}), n)
			if hasNUL([]string{"x", w}) {
				t.Errorf("%q: a NUL found where there is none", w)
			}
			for i := 0; i < n; i++ {
				b := []byte(w)
				b[i] = 0
				if !hasNUL([]string{"x", string(b), "y"}) {
					t.Errorf("%q: the NUL at %d is missed", b, i)
				}
			}
		}
	}
	if !hasNUL([]string{"ls", "0123456789abcdef", "a\x00"}) {
		t.Error("a NUL in a later word is missed")
	}
}
