package rpc

import (
	"errors"
	"strings"
	"testing"

	"admit/gate"
)

// decode names the field in every error, and refuses what parsers could
// read differently.
func TestDecodeNamesTheField(t *testing.T) {
	cases := []struct {
		raw, field, msg string
	}{
		{`{"tool":7}`, "tool", "must be string, got JSON number"},
		{`{"tool":"Read","sesion":"x"}`, "sesion", "unknown field"},
		{`{"Tool":"Read"}`, "Tool", "unknown field"},
		{`{"tool":"Read","tool":"Bash"}`, "tool", "given twice"},
		{`{"tool":"Read","argv":"ls"}`, "argv", "must be []string, got JSON string"},
		{`{"tool":"Read","argv":[1]}`, "argv.0", "must be string, got JSON number"},
		{`{"tool":["Read"]}`, "tool", "must be string, got JSON array"},
		{`{"tool":true}`, "tool", "must be string, got JSON bool"},
		{`{"tool":"Read"} {}`, "params", "more after the JSON value"},
		{`{"tool":"Re` + "\xff" + `ad"}`, "tool", "invalid UTF-8"},
	}
	for _, c := range cases {
		var p gate.CheckParams
		err := decode([]byte(c.raw), &p)
		var pe *gate.ParamError
		if !errors.As(err, &pe) || pe.Field != c.field || !strings.Contains(pe.Msg, c.msg) {
			t.Errorf("decode(%s) = %v (%#v), want field %q and %q", c.raw, err, pe, c.field, c.msg)
		}
	}
	var o gate.OpenSessionParams
	if err := decode([]byte(`{"label":"x","allow":["Read"],"bounds":{"steps":3}}`), &o); err != nil || o.Label != "x" || len(o.Allow) != 1 || o.Bounds["steps"] != 3 {
		t.Errorf("embedded capability spec: %+v, %v", o, err)
	}
	err := decode([]byte(`{"label":"x","bounds":{"steps":"many"}}`), &o)
	if pe := (*gate.ParamError)(nil); !errors.As(err, &pe) || pe.Field != "bounds.steps" {
		t.Errorf("nested field: %v", err)
	}
	for _, raw := range []string{"", "null", "{}"} {
		if err := decode([]byte(raw), &gate.CheckParams{}); err != nil {
			t.Errorf("decode(%q) = %v", raw, err)
		}
	}
}
