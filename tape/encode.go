package tape

// Encode is r as a line of the tape holds it, bounds applied, without
// the chain's prev: what an export sends is what the tape keeps.
func Encode(r *Record) ([]byte, error) {
	return appendBody(nil, r), nil
}

// AppendEncoded appends r encoded as Encode encodes it to b: a caller
// that encodes many records keeps one buffer.
func AppendEncoded(b []byte, r *Record) []byte {
	return appendBody(b, r)
}
