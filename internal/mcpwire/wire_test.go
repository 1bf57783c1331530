package mcpwire

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		note, line string
		dup        string // the pointer of the object with a repeated key, "" when none
		inParams   bool
		bad        bool // refused for another reason
	}{
		{"a request", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"path":"x"}}}`, "", false, false},
		{"a repeated key in the arguments", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"path":"x","path":"/etc/passwd"}}}`, "/params/arguments", true, false},
		{"a repeated key under another case", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","Name":"erase"}}`, "/params", true, false},
		{"a Kelvin sign folds to k", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{\"kind\":1,\"\u212aind\":2}}", "/params", true, false},
		{"deep in a list", `{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":[{"b":[{"c":1,"c":2}]}]}}`, "/params/a/0/b/0", true, false},
		{"the method twice", `{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/call"}`, "", false, false},
		{"a look-alike method key alone", `{"jsonrpc":"2.0","id":1,"Method":"tools/call"}`, "", false, false},
		{"equal values under different keys", `{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":"k","b":"k"}}`, "", false, false},
		{"not JSON", `{"jsonrpc":"2.0",`, "", false, true},
		{"two values", `{"jsonrpc":"2.0"} {}`, "", false, true},
		{"not an object", `[1]`, "", false, true},
		{"a method that is not a string", `{"jsonrpc":"2.0","id":1,"method":5}`, "", false, true},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{\"a\":\"\xff\"}}", "", false, true},
	} {
		t.Run(c.note, func(t *testing.T) {
			m, err := Parse([]byte(c.line))
			var dup *DuplicateError
			switch {
			case c.bad:
				if err == nil || errors.As(err, &dup) {
					t.Fatalf("got %v, want a refusal that is not a repeated key", err)
				}
			case c.note == "the method twice" || c.note == "a look-alike method key alone":
				if !errors.As(err, &dup) || dup.InParams() {
					t.Fatalf("got %v, want a repeated top-level key", err)
				}
			case c.dup != "":
				if !errors.As(err, &dup) || dup.Pointer != c.dup || dup.InParams() != c.inParams {
					t.Fatalf("got %v (%#v), want a repeated key in %s", err, dup, c.dup)
				}
			default:
				if err != nil || m == nil {
					t.Fatalf("got %v", err)
				}
			}
		})
	}
}

func TestNegotiate(t *testing.T) {
	for req, want := range map[string]string{"2025-06-18": "2025-06-18", "2025-03-26": "2025-03-26", "2024-11-05": "2024-11-05", "2099-01-01": "2025-06-18", "": "2025-06-18"} {
		if got := Negotiate(req); got != want {
			t.Errorf("Negotiate(%q) = %q, want %q", req, got, want)
		}
	}
}

// FuzzParse: no line makes Parse panic, and a line it accepts has no key
// repeated under any case in any object.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"a","params":{"x":[{"y":1}]}}`, `{"a":1,"A":2}`, `{"a":{"b":{"b":1}}}`, `[]`, `"x"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if _, err := Parse(line); err != nil {
			return
		}
		var v any
		if err := json.Unmarshal(line, &v); err != nil {
			t.Fatalf("accepted what encoding/json refuses: %v", err)
		}
		var walk func(v any)
		walk = func(v any) {
			switch v := v.(type) {
			case map[string]any:
				var keys []string
				for k, x := range v {
					for _, o := range keys {
						if strings.EqualFold(o, k) {
							t.Fatalf("accepted keys %q and %q in one object", o, k)
						}
					}
					keys = append(keys, k)
					walk(x)
				}
			case []any:
				for _, x := range v {
					walk(x)
				}
			}
		}
		walk(v)
	})
}
