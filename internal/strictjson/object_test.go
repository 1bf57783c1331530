package strictjson

import (
	"reflect"
	"testing"
)

// objectSeeds are documents Object must read exactly as Decode does:
// flat and nested objects, every kind of value, and what Decode refuses
// (a name twice at any depth, invalid UTF-8, a lone surrogate, trailing
// data, not an object).
var objectSeeds = []string{
	`{"file_path":"README.md"}`,
	`{}`, ` { } `, `{"a":true,"b":false,"c":null}`,
	`{"offset":10,"limit":2.5e3,"n":-0}`,
	`{"edits":[{"old_string":"a","new_string":"b"}],"path":"x"}`,
	`{"a":{"b":{"c":[1,"2",null]}}}`,
	`{"a":"\u00e9\n\"q\"","\u0062":"x"}`,
	`{"a":1,"a":2}`, `{"a":"x","\u0061":"y"}`, `{"o":{"k":1,"k":2}}`,
	"{\"a\":\"\xff\"}", `{"a":"\ud800"}`, `{"a":"x"} {}`, `{"a":"x"}x`, `{"a":"x"`,
	`[]`, `"s"`, `null`, `1`, ``, ` `, `{"a":}`, `{"a" "b"}`, `{,}`, `{"a":"b",}`,
	`{"n":1e400}`, `{"a":tru}`, `{"a":nul}`,
}

func TestObjectIsDecode(t *testing.T) {
	for _, s := range objectSeeds {
		checkObject(t, []byte(s))
	}
}

func FuzzObject(f *testing.F) {
	for _, s := range objectSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkObject)
}

func checkObject(t *testing.T, data []byte) {
	t.Helper()
	got, gotErr := Object(data)
	var want map[string]any
	wantErr := Decode(data, &want)
	switch {
	case (gotErr == nil) != (wantErr == nil):
		t.Fatalf("Object(%q): error %v, Decode: %v", data, gotErr, wantErr)
	case gotErr != nil && gotErr.Error() != wantErr.Error():
		t.Fatalf("Object(%q): error %q, Decode's %q", data, gotErr, wantErr)
	case gotErr == nil && !reflect.DeepEqual(got, want):
		t.Fatalf("Object(%q) = %#v, Decode %#v", data, got, want)
	}
}

func BenchmarkObject(b *testing.B) {
	data := []byte(`{"file_path":"README.md"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Object(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeObject(b *testing.B) {
	data := []byte(`{"file_path":"README.md"}`)
	b.ReportAllocs()
	for b.Loop() {
		var m map[string]any
		if err := Decode(data, &m); err != nil {
			b.Fatal(err)
		}
	}
}
