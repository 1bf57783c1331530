package command

// nameFilter tells, for most names outside a small set, that they are
// outside it without a map lookup: one bit per (length, first byte,
// last byte), set for each member. Every command is asked whether it is
// a fixed word, a sender, a toolchain or a gzip script, and every path
// whether its name or extension is a secret's; a lookup hashes the
// whole name (about a hundred instructions), the filter a few. A set
// bit only means "look in the map".
type nameFilter [16]uint64

func nameBit(s string) uint {
	if s == "" {
		return 0
	}
	return (uint(len(s))*131 + uint(s[0])*31 + uint(s[len(s)-1])) & 1023
}

func (f *nameFilter) add(s string) {
	b := nameBit(s)
	f[b>>6] |= 1 << (b & 63)
}

// mayHave reports whether s may be in the set: false only when it is not.
func (f *nameFilter) mayHave(s string) bool {
	b := nameBit(s)
	return f[b>>6]&(1<<(b&63)) != 0
}

// filterOf is the filter of m's keys.
func filterOf[V any](m map[string]V) *nameFilter {
	f := new(nameFilter)
	for k := range m {
		f.add(k)
	}
	return f
}
