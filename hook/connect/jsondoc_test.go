package connect

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// tree is a parsed value as encoding/json decodes it (numbers as
// json.Number), to compare the two parsers.
func tree(n *node) any {
	switch n.kind {
	case '{':
		m := map[string]any{}
		for _, mem := range n.members {
			m[mem.key] = tree(mem.val)
		}
		return m
	case '[':
		a := []any{}
		for _, e := range n.elems {
			a = append(a, tree(e))
		}
		return a
	case '"':
		return n.str
	case '0':
		return json.Number(n.num)
	case 't':
		return true
	case 'f':
		return false
	}
	return nil
}

// knownDifference says why parseDoc may refuse what encoding/json takes:
// the reasons it refuses on purpose.
func knownDifference(err error) bool {
	for _, s := range []string{"given twice", "nested more than", "invalid UTF-8", "lone UTF-16 surrogate", "byte order mark"} {
		if strings.Contains(err.Error(), s) {
			return true
		}
	}
	return false
}

// FuzzParseDoc: parseDoc (without comments) accepts what encoding/json
// accepts, but for the refusals it makes on purpose, and reads the same
// values; with comments allowed, a document without comments reads the
// same.
func FuzzParseDoc(f *testing.F) {
	for _, s := range []string{`{}`, `{"a": [1, 2.5e-3, "x\u00e9\ud83d\ude00", true, false, null]}`, `{"a":1,"a":2}`, `[{"b": {}}]`, "{\n // c\n \"a\": 1 /* d */\n}", `"\ud800"`, `-0.0e+1`, `{"a":"\t"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := parseDoc(data, false)
		valid := json.Valid(data)
		if err == nil && !valid {
			t.Fatalf("parseDoc accepts what encoding/json refuses: %q", data)
		}
		if err != nil {
			if valid && !knownDifference(err) {
				t.Fatalf("parseDoc refuses valid JSON %q: %v", data, err)
			}
		} else {
			d := json.NewDecoder(bytes.NewReader(data))
			d.UseNumber()
			var want any
			if err := d.Decode(&want); err != nil {
				t.Fatal(err)
			}
			if got := tree(n); !reflect.DeepEqual(got, want) {
				t.Fatalf("%q: read %#v, encoding/json %#v", data, got, want)
			}
			if len(bytes.TrimSpace(data[:n.start])) > 0 || len(bytes.TrimSpace(data[n.end:])) > 0 {
				t.Fatalf("the root's span %d-%d of %q leaves more than white space out", n.start, n.end, data)
			}
		}
		nc, errc := parseDoc(data, true)
		if err == nil && (errc != nil || !reflect.DeepEqual(tree(nc), tree(n))) {
			t.Fatalf("%q reads differently with comments allowed: %v", data, errc)
		}
	})
}

// FuzzConnectDisconnect: for any object, connecting gives a document that
// parses and holds admit's entry for every event, connecting again changes
// nothing, and disconnecting leaves none of admit's entries; when the file
// held no empty hooks container (which admit's undo cannot tell from its
// own), disconnecting gives back the original bytes.
func FuzzConnectDisconnect(f *testing.F) {
	for _, s := range []string{
		`{}`, "{\n  \"model\": \"x\"\n}\n", `{"hooks":{"PostToolUse":[{"matcher":"*","hooks":[]}]}}`,
		"{\n\t\"version\": 1,\n\t\"hooks\": {\n\t\t\"preToolUse\": [{\"command\": \"x\"}]\n\t}\n}",
		`{"hooks": {"PreToolUse": [{"hooks": [{"command": "admit hook claude-code"}]}]}}`,
		`{"version": "v1", "hooks": [{"name": "x", "trigger": "PreToolUse", "action": {"command": "y"}}]}`,
		"{ // c\n \"a\": [1,\n 2] /* e */ }",
	} {
		for _, spec := range []byte{0, 1, 2, 3} {
			f.Add([]byte(s), spec)
		}
	}
	specs := []struct {
		host string
		file int
	}{{"claude-code", 0}, {"cursor", 0}, {"kiro", 0}, {"gemini-cli", 0}}
	f.Fuzz(func(t *testing.T, data []byte, which byte) {
		sp := specs[int(which)%len(specs)]
		h, _ := Lookup(sp.host)
		fs := h.files[sp.file]
		tg := target{"/opt/admit/bin/admit", "linux"}
		before, err := fs.inspect(h.Name, data)
		if err != nil {
			return
		}
		out, err := fs.connect(h.Name, data, tg)
		if err != nil {
			return // a hooks member of another kind: refused, and nothing written
		}
		found, err := fs.inspect(h.Name, out)
		if err != nil {
			t.Fatalf("connect made a document that does not parse: %v\n%s", err, out)
		}
		for _, ev := range fs.events {
			if len(found[ev]) != 1 || found[ev][0].program != tg.bin {
				t.Fatalf("after connect, %s has %+v\n%s", ev, found[ev], out)
			}
		}
		if again, err := fs.connect(h.Name, out, tg); err != nil || !bytes.Equal(again, out) {
			t.Fatalf("connecting again changed it (%v):\n%s\n->\n%s", err, out, again)
		}
		back, _, err := fs.disconnect(h.Name, out)
		if err != nil {
			t.Fatalf("disconnect: %v\n%s", err, out)
		}
		if left, err := fs.inspect(h.Name, back); err != nil || len(left) != 0 {
			t.Fatalf("after disconnect: %v %+v\n%s", err, left, back)
		}
		if len(before) == 0 && !hasEmptyContainer(data, fs) && len(bytes.TrimSpace(data)) > 0 && !bytes.Equal(back, data) {
			t.Fatalf("connect then disconnect is not the original:\n%q\n->\n%q\n->\n%q", data, out, back)
		}
	})
}

// hasEmptyContainer says whether data's root, hooks member or one of the
// events admit writes is an empty object or list.
func hasEmptyContainer(data []byte, f *fileSpec) bool {
	root, err := parseDoc(data, f.comments)
	if err != nil || root.kind != '{' || root.len() == 0 {
		return true
	}
	hooks := root.get("hooks")
	if hooks == nil {
		return false
	}
	if hooks.len() == 0 {
		return true
	}
	for _, ev := range f.events {
		if a := hooks.get(ev); a != nil && a.len() == 0 {
			return true
		}
	}
	return false
}

func TestParseDocPositions(t *testing.T) {
	src := []byte("{\n  \"a\": [1, {\"b\": \"c\"}],\n  \"d\": true\n}")
	n, err := parseDoc(src, false)
	if err != nil {
		t.Fatal(err)
	}
	a := n.get("a")
	if got := string(src[a.start:a.end]); got != `[1, {"b": "c"}]` {
		t.Fatalf("a spans %q", got)
	}
	if got := string(src[n.members[1].keyStart:n.members[1].val.end]); got != `"d": true` {
		t.Fatalf("d spans %q", got)
	}
}

func TestParseCommand(t *testing.T) {
	for _, c := range []struct {
		line    string
		program string
		literal bool
		args    []string
	}{
		{`'/opt/a b/admit' hook claude-code --host-timeout 600s || exit 2`, "/opt/a b/admit", true, []string{"hook", "claude-code", "--host-timeout", "600s"}},
		{`admit hook cursor`, "admit", true, []string{"hook", "cursor"}},
		{`exec '/x/admit' hook cline`, "/x/admit", true, []string{"hook", "cline"}},
		{`"$HOME/.local/bin/admit" hook gemini-cli`, "$HOME/.local/bin/admit", false, []string{"hook", "gemini-cli"}},
		{`/it\'s/admit hook codex && true`, "/it's/admit", true, []string{"hook", "codex"}},
		{`& 'C:\Users\me\admit.exe' hook copilot`, `C:\Users\me\admit.exe`, true, []string{"hook", "copilot"}},
		{`'/o'\''k/admit' hook kiro`, "/o'k/admit", true, []string{"hook", "kiro"}},
	} {
		inv, ok := parseCommand(c.line)
		if !ok || inv.program != c.program || inv.literal != c.literal || !reflect.DeepEqual(inv.args, c.args) {
			t.Errorf("%s: %+v %v", c.line, inv, ok)
		}
	}
	if inv, ok := parseCommand("(("); ok {
		t.Errorf("a line that does not parse: %+v", inv)
	}
	if got := shellQuote("/o'k/admit"); got != `'/o'\''k/admit'` {
		t.Errorf("quote %s", got)
	}
}

func TestRenderKeepsStyle(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"{\n    \"a\": 1\n}\n", "{\n    \"a\": 1,\n    \"hooks\": {\n        \"X\": [\"y\", \"z\"]\n    }\n}\n"},
		{"{\"a\":1}", "{\"a\":1,\"hooks\":{\"X\":[\"y\",\"z\"]}}"},
		{"{\r\n\t\"a\": 1\r\n}\r\n", "{\r\n\t\"a\": 1,\r\n\t\"hooks\": {\r\n\t\t\"X\": [\"y\", \"z\"]\r\n\t}\r\n}\r\n"},
		{"{}", "{\n  \"hooks\": {\n    \"X\": [\"y\", \"z\"]\n  }\n}"},
	} {
		d, err := newDoc([]byte(c.src), false)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.insert(d.root, "hooks", obj{{"X", []any{"y", "z"}}}); err != nil {
			t.Fatal(err)
		}
		if string(d.src) != c.want {
			t.Errorf("%q:\n%q\nwant\n%q", c.src, d.src, c.want)
		}
	}
}
