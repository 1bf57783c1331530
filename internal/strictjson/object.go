package strictjson

import (
	"bytes"
	"io"
	"sync"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Object is Decode of one JSON object into a map, the same map and the
// same errors, faster for the flat objects tool arguments mostly are
// (`{"file_path":"README.md"}` in a fifth of the time): members whose
// values are strings, booleans or null are read from the tokens; any
// other value is decoded by Decode's own decoder; and any error sends the
// whole document to Decode for its error.
func Object(data []byte) (map[string]any, error) {
	if m, ok := flatObject(data); ok {
		return m, nil
	}
	var m map[string]any
	if err := Decode(data, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// objectReader is a decoder and its reader, kept between calls: a new
// jsontext.Decoder is most of the cost of a small object.
type objectReader struct {
	r bytes.Reader
	d jsontext.Decoder
}

var objectReaders = sync.Pool{New: func() any { return new(objectReader) }}

// flatObject reads data as one object, false for anything it cannot read
// exactly as Decode does (the caller then asks Decode). The decoder's
// defaults are Decode's: a name given twice and invalid UTF-8 are errors.
func flatObject(data []byte) (map[string]any, bool) {
	or := objectReaders.Get().(*objectReader)
	defer objectReaders.Put(or)
	or.r.Reset(data)
	or.d.Reset(&or.r)
	d := &or.d
	if t, err := d.ReadToken(); err != nil || t.Kind() != '{' {
		return nil, false
	}
	m := map[string]any{}
	for d.PeekKind() == '"' {
		name, err := d.ReadToken()
		if err != nil {
			return nil, false
		}
		k := name.String()
		switch d.PeekKind() {
		case '"':
			t, err := d.ReadToken()
			if err != nil {
				return nil, false
			}
			m[k] = t.String()
		case 't', 'f':
			t, err := d.ReadToken()
			if err != nil {
				return nil, false
			}
			m[k] = t.Bool()
		case 'n':
			if _, err := d.ReadToken(); err != nil {
				return nil, false
			}
			m[k] = nil
		default:
			v, err := d.ReadValue()
			if err != nil {
				return nil, false
			}
			var x any
			if err := jsonv2.Unmarshal(v, &x); err != nil {
				return nil, false
			}
			m[k] = x
		}
	}
	if t, err := d.ReadToken(); err != nil || t.Kind() != '}' {
		return nil, false
	}
	// Nothing may follow the object (whitespace aside).
	if _, err := d.ReadToken(); err != io.EOF {
		return nil, false
	}
	return m, true
}
