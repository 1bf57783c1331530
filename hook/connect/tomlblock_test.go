package connect

import (
	"strings"
	"testing"
)

// TestTOMLBlock: admit's block in a shared TOML file is added after the
// person's settings, found again, brought up to date in place, and
// removed leaving the file's bytes as they were; a file that sets the
// events another way (which TOML forbids extending) is refused, naming
// why.
func TestTOMLBlock(t *testing.T) {
	h, _ := Lookup("codex")
	m := h.Managed("linux", "/sys-root")
	if m == nil {
		t.Fatal("codex has no managed place on linux")
	}
	f := m.files[0]
	if got := f.path("", nil); got != "/sys-root/etc/codex/requirements.toml" {
		t.Fatalf("path %s", got)
	}
	tg := target{bin: `/opt/admit "x"/admit`, goos: "linux"}
	for _, src := range []string{"", "a = 1", "a = 1\n", "# only a comment\n\n[features]\nhooks = true\n\n"} {
		out, err := f.connect("codex", []byte(src), tg)
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		if !strings.HasPrefix(string(out), src) {
			t.Errorf("%q: the person's part changed:\n%s", src, out)
		}
		found, err := f.inspect("codex", out)
		if err != nil || len(found["PreToolUse"]) != 1 || len(found["PermissionRequest"]) != 1 || found["PreToolUse"][0].program != tg.bin {
			t.Errorf("%q: inspect %+v %v\n%s", src, found, err, out)
		}
		again, err := f.connect("codex", out, target{bin: "/usr/bin/admit", goos: "linux"})
		if err != nil || strings.Count(string(again), tomlBegin) != 1 || !strings.Contains(string(again), `command = "'/usr/bin/admit' hook codex`) {
			t.Errorf("%q: connect again: %v\n%s", src, err, again)
		}
		back, empty, err := f.disconnect("codex", again)
		want := src
		if src != "" && !strings.HasSuffix(src, "\n") {
			want += "\n" // a file admit wrote ends its last line
		}
		if err != nil || string(back) != want || empty != (strings.TrimSpace(src) == "") {
			t.Errorf("%q: disconnect gave %q (empty %v, %v)", src, back, empty, err)
		}
	}
	for _, src := range []string{"hooks = {}\n", "[hooks]\nPreToolUse = []\n", "hooks.PermissionRequest = []\n"} {
		if _, err := f.connect("codex", []byte(src), tg); err == nil || !strings.Contains(err.Error(), "as a value") {
			t.Errorf("%q: %v", src, err)
		}
	}
	if _, err := f.connect("codex", []byte(tomlBegin+"\n[[hooks.PreToolUse]]\n"), tg); err == nil || !strings.Contains(err.Error(), "does not end") {
		t.Errorf("a block that does not end: %v", err)
	}
}
