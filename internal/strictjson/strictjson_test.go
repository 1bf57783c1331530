package strictjson

import (
	"errors"
	"strings"
	"testing"
)

type doc struct {
	Mode  string   `json:"mode"`
	Steps int      `json:"steps"`
	On    bool     `json:"on"`
	Argv  []string `json:"argv"`
	Inner struct {
		X int `json:"x"`
	} `json:"inner"`
}

func TestDecodeErrorsNameFieldAndValue(t *testing.T) {
	for _, c := range []struct {
		in, field, msg string
	}{
		{`{"mode":7}`, "mode", "must be string, got JSON number 7"},
		{`{"on":"yes"}`, "on", `must be bool, got JSON string "yes"`},
		{`{"mode":true}`, "mode", "must be string, got JSON bool true"},
		{`{"steps":1.5}`, "steps", "must be int, got JSON number 1.5"},
		{`{"argv":"ls"}`, "argv", `must be []string, got JSON string "ls"`},
		{`{"argv":[1]}`, "argv.0", "must be string, got JSON number 1"},
		{`{"inner":[]}`, "inner", "must be an object, got JSON array"},
		{`[1]`, "", "must be an object, got JSON array"},
		{`{"mdoe":"warn"}`, "mdoe", "unknown field"},
		{`{"Mode":"warn"}`, "Mode", "unknown field"},
		{`{"inner":{"y":1}}`, "inner.y", "unknown field"},
		{`{"mode":"a","mode":"b"}`, "mode", "given twice"},
		{`{"inner":{"x":1,"x":2}}`, "inner.x", "given twice"},
		{"{\"mode\":\"\xff\"}", "mode", "invalid UTF-8"},
		{`{"mode":"\ud800"}`, "mode", "surrogate"},
		{`{"mode":"a"} {}`, "", "more after the JSON value"},
		{`{"mode":"a"} x`, "", "more after the JSON value"},
		{`{"mode":`, "mode", "truncated"},
		{``, "", "empty"},
		{" \n", "", "empty"},
		{`{"mode" "a"}`, "mode", "expecting ':'"},
	} {
		var d doc
		err := Decode([]byte(c.in), &d)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%q: %v, want an *Error", c.in, err)
			continue
		}
		if e.Field != c.field || !strings.Contains(e.Msg, c.msg) {
			t.Errorf("%q: field %q, msg %q; want field %q and %q", c.in, e.Field, e.Msg, c.field, c.msg)
		}
		if want := c.field + ": "; c.field != "" && !strings.HasPrefix(e.Error(), want) {
			t.Errorf("%q: %q does not start with %q", c.in, e.Error(), want)
		}
	}
}

func TestDecodeReadsWhatIsWritten(t *testing.T) {
	var d doc
	if err := Decode([]byte(` {"mode":"warn","steps":3,"on":true,"argv":["a"],"inner":{"x":2}}`+"\n"), &d); err != nil {
		t.Fatal(err)
	}
	if d.Mode != "warn" || d.Steps != 3 || !d.On || len(d.Argv) != 1 || d.Inner.X != 2 {
		t.Errorf("decoded %+v", d)
	}
	if err := Check([]byte(`[1, {"a": {"b": 2, "c": 3}}]`)); err != nil {
		t.Errorf("Check of a valid value: %v", err)
	}
	if err := Check([]byte(`[1, {"a": {"b": 2, "b": 3}}]`)); err == nil || !strings.Contains(err.Error(), "1.a.b: given twice") {
		t.Errorf("Check of a name given twice: %v", err)
	}
}

func TestWithin(t *testing.T) {
	var d doc
	err := Within("programs.yq", Decode([]byte(`{"optoins":{}}`), &d))
	if err.Error() != "programs.yq.optoins: unknown field" {
		t.Errorf("got %q", err)
	}
	if err := Within("programs.yq", Decode([]byte(`[]`), &d)); err.Error() != "programs.yq: must be an object, got JSON array" {
		t.Errorf("got %q", err)
	}
	if err := Within("caps", errors.New("boom")); err.Error() != "caps: boom" {
		t.Errorf("got %q", err)
	}
}

// FuzzDecode: any input either decodes or fails with an *Error that has a
// message; what Check accepts is exactly what decodes into a raw value.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"mode":"warn","steps":3}`, `{"argv":["a",1]}`, `{"a":1,"a":2}`, `[1,2`, "{\"mode\":\"\xff\"}", `{} {}`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var d doc
		if err := Decode(data, &d); err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Msg == "" {
				t.Fatalf("%q: %v is not an *Error with a message", data, err)
			}
		}
		var m map[string]any
		err := Check(data)
		if errm := Decode(data, &m); errm == nil && err != nil {
			t.Fatalf("%q decodes into a map but Check says %v", data, err)
		}
	})
}
