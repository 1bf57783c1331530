// Package jsonquote writes a string's body as JSON quotes it, without
// reflection or an allocation: the tape's lines and a decision's facts
// are encoded by hand on every decision, each in its own style.
package jsonquote

import "unicode/utf8"

// Style is which ASCII bytes a string keeps as they are, and whether
// \b and \f are written by name.
type Style struct {
	plain [utf8.RuneSelf]bool
	named bool
}

var (
	// Marshal is encoding/json's: <, > and & escaped (safe inside HTML),
	// \b and \f by name.
	Marshal = newStyle(`"\<>&`, true)
	// Minimal escapes only what JSON requires: what people and tools read
	// (the tape), not browsers.
	Minimal = newStyle(`"\`, false)
)

func newStyle(escaped string, named bool) *Style {
	st := &Style{named: named}
	for c := 0x20; c < utf8.RuneSelf; c++ {
		st.plain[c] = true
	}
	for i := 0; i < len(escaped); i++ {
		st.plain[escaped[i]] = false
	}
	return st
}

const hexDigits = "0123456789abcdef"

// AppendBody appends s as the inside of a JSON string (no quotes around
// it): controls and the style's bytes escaped, invalid UTF-8 replaced by
// U+FFFD, and U+2028 and U+2029 escaped, as encoding/json does.
func AppendBody(b []byte, s string, st *Style) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if st.plain[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c == '\b' && st.named:
				b = append(b, '\\', 'b')
			case c == '\f' && st.named:
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(b, s[start:]...)
}
