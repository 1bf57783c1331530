package connect

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"admit/hook"
	"admit/internal/golden"
)

// TestConnectGolden keeps the change connecting the fake home would make,
// per host, in testdata/connect.golden: the diff the person is shown.
func TestConnectGolden(t *testing.T) {
	home := fakeHome(t)
	bin := fakeBinary(t)
	var out strings.Builder
	for _, st := range Survey(quiet, Options{Home: home, Binary: bin, GOOS: "linux"}) {
		fmt.Fprintf(&out, "== %s (%s): %s, installed %v\n", st.Host, st.Agent, st.State, st.Installed)
		if st.Change == nil {
			t.Errorf("%s: no change proposed", st.Host)
			continue
		}
		out.WriteString(st.Change.Diff)
	}
	got := strings.NewReplacer(home, "$HOME", bin, "$ADMIT").Replace(out.String())
	golden.Check(t, filepath.Join("testdata", "connect.golden"), []byte(got), *update)
}

// TestConnectThenDisconnect connects every host in the fake home, checks
// that every byte of the person's own was kept and the backup holds the
// file as it was, connects again (nothing to do), then disconnects and
// gets the original bytes back, with the files admit created gone.
func TestConnectThenDisconnect(t *testing.T) {
	for _, h := range Hosts() {
		t.Run(h.Name, func(t *testing.T) {
			home := fakeHome(t)
			bin := fakeBinary(t)
			o := Options{Home: home, Binary: bin, GOOS: "linux"}
			before := snapshot(t, home)
			st := Inspect(quiet, o, h)
			if st.State != StateNotConnected || st.Change == nil || st.Undo != nil {
				t.Fatalf("before: %s, change %v, undo %v (%s)", st.State, st.Change != nil, st.Undo != nil, st.Problem)
			}
			r, err := Connect(quiet, OS{}, o, h, st.Change.Sum)
			if err != nil {
				t.Fatal(err)
			}
			if !r.Status.Connected || r.Status.Binary != bin || !r.Status.BinaryExists || r.Status.Change != nil || r.Status.Undo == nil {
				t.Fatalf("after connect: %+v", r.Status)
			}
			if len(r.Written) != len(st.Change.Files) {
				t.Fatalf("written %v, change %d files", r.Written, len(st.Change.Files))
			}
			for _, fc := range st.Change.Files {
				data, err := os.ReadFile(fc.Path)
				if err != nil || string(data) != fc.After {
					t.Fatalf("%s: %v\n%s\nwant\n%s", fc.Path, err, data, fc.After)
				}
				if fc.Created {
					continue
				}
				// The person's file was backed up as it was.
				if b, err := os.ReadFile(fc.Path + ".admit-backup"); err != nil || string(b) != fc.Before {
					t.Fatalf("backup of %s: %v %q", fc.Path, err, b)
				}
			}
			// Connecting again writes nothing.
			r2, err := Connect(quiet, OS{}, o, h, "")
			if err != nil || len(r2.Written) != 0 || !r2.Status.Connected {
				t.Fatalf("again: %v %+v", err, r2)
			}
			r3, err := Disconnect(quiet, OS{}, o, h, r.Status.Undo.Sum)
			if err != nil {
				t.Fatal(err)
			}
			if r3.Status.State != StateNotConnected || r3.Status.Undo != nil {
				t.Fatalf("after disconnect: %+v", r3.Status)
			}
			after := without(snapshot(t, home), ".admit-backup")
			if !maps.Equal(after, before) {
				t.Fatalf("after disconnect the home differs:\n%v\nwant\n%v", after, before)
			}
		})
	}
}

// TestConnectFromNothing connects each host in an empty home: the files
// are created, and disconnecting removes them.
func TestConnectFromNothing(t *testing.T) {
	for _, h := range Hosts() {
		t.Run(h.Name, func(t *testing.T) {
			home := t.TempDir()
			o := Options{Home: home, Binary: fakeBinary(t), GOOS: "linux"}
			r, err := Connect(quiet, OS{}, o, h, "")
			if err != nil || !r.Status.Connected {
				t.Fatalf("%v %+v", err, r.Status)
			}
			if len(r.Backups) != 0 {
				t.Fatalf("backups of files that did not exist: %v", r.Backups)
			}
			if h.Name == "cline" {
				fi, err := os.Stat(r.Status.Config)
				if err != nil || fi.Mode().Perm() != 0o755 {
					t.Fatalf("Cline's hook is not executable: %v %v", err, fi.Mode())
				}
			}
			if _, err := Disconnect(quiet, OS{}, o, h, ""); err != nil {
				t.Fatal(err)
			}
			if left := snapshot(t, home); len(left) != 0 {
				t.Fatalf("left behind: %v", left)
			}
		})
	}
}

// TestSumPinsTheChange: a file edited after the change was shown is not
// written with a change the person did not see.
func TestSumPinsTheChange(t *testing.T) {
	home := fakeHome(t)
	h, _ := Lookup("cursor")
	o := Options{Home: home, Binary: fakeBinary(t), GOOS: "linux"}
	st := Inspect(quiet, o, h)
	path := filepath.Join(home, ".cursor", "hooks.json")
	edited := strings.Replace(st.Change.Files[0].Before, `"timeout": 5`, `"timeout": 6`, 1)
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Connect(quiet, OS{}, o, h, st.Change.Sum); !errors.Is(err, ErrChanged) {
		t.Fatalf("err %v, want ErrChanged", err)
	}
	if data, _ := os.ReadFile(path); string(data) != edited {
		t.Fatal("the file was written")
	}
	if _, err := os.Stat(path + ".admit-backup"); err == nil {
		t.Fatal("a backup was written")
	}
}

// TestMalformedRefused: a configuration that does not parse is reported
// with its file, line and column, and left untouched.
func TestMalformedRefused(t *testing.T) {
	for _, c := range []struct {
		host, rel, content, want string
	}{
		{"claude-code", ".claude/settings.json", "{\n  \"model\": \"opus\",\n}\n", "line 3, column 1: unexpected '}', expected a key"},
		{"claude-code", ".claude/settings.json", "{\n  // a comment\n  \"model\": \"opus\"\n}\n", "line 2, column 3"},
		{"claude-code", ".claude/settings.json", "{\"hooks\": {}, \"hooks\": {}}", `the key "hooks" is given twice`},
		{"claude-code", ".claude/settings.json", "{\"hooks\": []}", "hooks is a list, not an object"},
		{"claude-code", ".claude/settings.json", "{\"hooks\": {\"PreToolUse\": {}}}", "hooks.PreToolUse is an object, not a list"},
		{"claude-code", ".claude/settings.json", "[1, 2]", "the file holds a list, not an object"},
		{"claude-code", ".claude/settings.json", "\xef\xbb\xbf{}", "byte order mark"},
		{"gemini-cli", ".gemini/settings.json", "{\n  /* never closed\n}\n", "a comment that never ends"},
		{"gemini-cli", ".gemini/settings.json", "{\"ui\": {\"theme\": \"a\xffb\"}}", "invalid UTF-8"},
		{"codex", ".codex/hooks.json", `{"hooks":{"PreToolUse":[{"hooks":[{"command":"x\u00"}]}]}}`, `\u escape needs four hex digits`},
		{"cursor", ".cursor/hooks.json", "{\"version\": 1, \"hooks\": {\"preToolUse\": [{\"command\": \"\\ud800\"}]}}", "lone UTF-16 surrogate"},
		{"copilot", ".copilot/hooks/admit.json", "{\"version\": 1,", "unexpected end of file"},
		{"kiro", ".kiro/hooks/admit.json", "{\"version\": \"v1\", \"hooks\": {}}", "hooks is an object, not a list"},
		{"cline", "Documents/Cline/Hooks/PreToolUse", "#!/bin/sh\necho '{\"cancel\": false}'\n", "another hook, not admit's"},
	} {
		t.Run(c.host+" "+c.want, func(t *testing.T) {
			home := t.TempDir()
			path := filepath.Join(home, c.rel)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			h, _ := Lookup(c.host)
			o := Options{Home: home, Binary: fakeBinary(t), GOOS: "linux"}
			st := Inspect(quiet, o, h)
			if st.Change != nil || !strings.Contains(st.Problem, path) || !strings.Contains(st.Problem, c.want) {
				t.Fatalf("state %s, change %v, problem %q; want %q naming %s", st.State, st.Change != nil, st.Problem, c.want, path)
			}
			if _, err := Connect(quiet, OS{}, o, h, ""); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("connect: %v", err)
			}
			if data, _ := os.ReadFile(path); string(data) != c.content {
				t.Fatal("the file was changed")
			}
			if _, err := Disconnect(quiet, OS{}, o, h, ""); c.host != "cline" && err == nil {
				t.Fatal("disconnect wrote a file it cannot read")
			}
			if data, _ := os.ReadFile(path); string(data) != c.content {
				t.Fatal("the file was changed")
			}
			if left := snapshot(t, home); len(left) != 1 {
				t.Fatalf("files written: %v", slices.Sorted(maps.Keys(left)))
			}
		})
	}
}

// TestStaleBinary: entries that name a binary no longer there are
// reported stale, with the path, and connecting points them at the new
// one.
func TestStaleBinary(t *testing.T) {
	for _, h := range Hosts() {
		t.Run(h.Name, func(t *testing.T) {
			home := fakeHome(t)
			old := fakeBinary(t)
			o := Options{Home: home, Binary: old, GOOS: "linux"}
			if _, err := Connect(quiet, OS{}, o, h, ""); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(old); err != nil {
				t.Fatal(err)
			}
			o.Binary = fakeBinary(t)
			st := Inspect(quiet, o, h)
			if st.State != StateStale || st.Binary != old || st.BinaryExists || !strings.Contains(st.Problem, old) || st.Change == nil {
				t.Fatalf("%+v", st)
			}
			if !strings.Contains(st.Change.Diff, o.Binary) {
				t.Fatalf("the change does not name the new binary:\n%s", st.Change.Diff)
			}
			r, err := Connect(quiet, OS{}, o, h, st.Change.Sum)
			if err != nil || !r.Status.Connected || r.Status.Binary != o.Binary {
				t.Fatalf("%v %+v", err, r.Status)
			}
		})
	}
}

// TestManualEntriesBroughtUpToDate: the entries people wrote by hand
// before (a bare admit looked up on PATH, the exec form of the old docs,
// admit twice) are outdated, and connecting fixes admit's entry where it
// is, keeping the person's matcher and their other handlers.
func TestManualEntriesBroughtUpToDate(t *testing.T) {
	bin := fakeBinary(t)
	for _, c := range []struct {
		note, host, rel, content string
		want                     []string // in the result
		gone                     []string // not in it
	}{
		{"a bare name on PATH, in the person's own group", "claude-code", ".claude/settings.json",
			`{"hooks": {"PreToolUse": [{"matcher": "Bash|Edit", "hooks": [{"type": "command", "command": "echo first"}, {"type": "command", "command": "admit hook claude-code"}]}]}}`,
			[]string{`"matcher": "Bash|Edit"`, `"command": "echo first"`, `"'` + bin + `' hook claude-code --host-timeout 600s || exit 2"`, `"PermissionRequest"`},
			[]string{`"admit hook claude-code"`}},
		{"the exec form of the old docs", "claude-code", ".claude/settings.json",
			`{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "/old/admit", "args": ["hook", "claude-code"], "async": true}]}]}}`,
			[]string{`"timeout": 600`},
			[]string{`"args"`, `"async"`, `/old/admit`}},
		{"admit twice", "cursor", ".cursor/hooks.json",
			`{"version": 1, "hooks": {"preToolUse": [{"command": "admit hook cursor"}, {"command": "echo mine"}, {"command": "$HOME/bin/admit hook cursor", "failClosed": false}]}}`,
			[]string{`"command": "echo mine"`, `"failClosed": true`},
			[]string{`$HOME/bin/admit`, `"failClosed": false`, `"admit hook cursor"`}},
		{"a variable for the path", "gemini-cli", ".gemini/settings.json",
			`{"hooks": {"BeforeTool": [{"matcher": ".*", "hooks": [{"type": "command", "command": "\"$HOME/.local/bin/admit\" hook gemini-cli", "name": "admit"}]}]}}`,
			[]string{`"timeout": 60000`},
			[]string{`$HOME/.local/bin/admit`}},
	} {
		t.Run(c.note, func(t *testing.T) {
			home := t.TempDir()
			path := filepath.Join(home, c.rel)
			_ = os.MkdirAll(filepath.Dir(path), 0o755)
			if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			h, _ := Lookup(c.host)
			o := Options{Home: home, Binary: bin, GOOS: "linux"}
			st := Inspect(quiet, o, h)
			if st.State != StateOutdated && st.State != StateStale || st.Change == nil {
				t.Fatalf("%+v", st)
			}
			r, err := Connect(quiet, OS{}, o, h, st.Change.Sum)
			if err != nil || !r.Status.Connected {
				t.Fatalf("%v %+v", err, r.Status)
			}
			data, _ := os.ReadFile(path)
			for _, w := range c.want {
				if !strings.Contains(string(data), w) {
					t.Errorf("missing %s in\n%s", w, data)
				}
			}
			for _, g := range c.gone {
				if strings.Contains(string(data), g) {
					t.Errorf("still %s in\n%s", g, data)
				}
			}
			if n := strings.Count(string(data), " hook "+c.host); n != len(h.Events()) {
				t.Errorf("%d entries of admit, want one per event (%d):\n%s", n, len(h.Events()), data)
			}
			if b, _ := os.ReadFile(path + ".admit-backup"); string(b) != c.content {
				t.Errorf("backup %q", b)
			}
		})
	}
}

// TestTimeoutsAgree: every entry that sets the host's timeout passes the
// same value to admit hook as --host-timeout, and admit answers before it
// (hook.Adapter.Budget).
func TestTimeoutsAgree(t *testing.T) {
	bin := "/opt/admit/bin/admit"
	flag := regexp.MustCompile(`--host-timeout (\d+)s`)
	for _, h := range Hosts() {
		for _, f := range h.files {
			for _, ev := range f.events {
				var line string
				var written time.Duration
				switch f.shape {
				case shapeScript:
					line = f.script(target{bin, "linux"})
				default:
					e := f.entry(ev, target{bin, "linux"})
					for _, k := range []string{"command", "bash"} {
						if v, ok := e.get(k); ok {
							line = v.(string)
						}
					}
					if a, ok := e.get("action"); ok {
						v, _ := a.(obj).get("command")
						line = v.(string)
					}
					for _, k := range []string{"timeout", "timeoutSec"} {
						if v, ok := e.get(k); ok {
							written = time.Duration(v.(int)) * time.Second
							if h.Name == "gemini-cli" {
								written = time.Duration(v.(int)) * time.Millisecond
							}
						}
					}
				}
				m := flag.FindStringSubmatch(line)
				switch {
				case written == 0 && m != nil:
					t.Errorf("%s %s: --host-timeout without a timeout in the entry: %s", h.Name, ev, line)
				case written == 0:
					if h.Timeout() != 0 {
						t.Errorf("%s: Timeout() %v, but the entry sets none", h.Name, h.Timeout())
					}
				case m == nil || m[1] != fmt.Sprint(int(written/time.Second)):
					t.Errorf("%s %s: the entry's timeout is %v, the command says %v", h.Name, ev, written, m)
				case h.adapter.Budget(written) >= written:
					t.Errorf("%s: admit's budget %v is not below the host's %v", h.Name, h.adapter.Budget(written), written)
				case written != h.Timeout():
					t.Errorf("%s: Timeout() %v, the entry %v", h.Name, h.Timeout(), written)
				}
				if !slices.Contains(h.adapter.Events, ev) {
					t.Errorf("%s: admit hook does not answer %s", h.Name, ev)
				}
				inv, ok := parseCommand(line)
				if f.shape == shapeScript {
					inv, ok = f.parseScript([]byte(line), h.Name)
				}
				if !ok || !inv.admitFor(h.Name) || !inv.absolute() || inv.program != bin {
					t.Errorf("%s %s: %q does not read back as admit hook %s at %s: %+v", h.Name, ev, line, h.Name, bin, inv)
				}
			}
		}
	}
}

// TestEveryAdapterHasAHost: connect knows every host admit hook answers.
func TestEveryAdapterHasAHost(t *testing.T) {
	var names []string
	for _, h := range Hosts() {
		names = append(names, h.Name)
	}
	slices.Sort(names)
	if got, want := strings.Join(names, " "), strings.Join(hook.Names(), " "); got != want {
		t.Fatalf("hosts %s, adapters %s", got, want)
	}
}

// TestDetection: a host is installed when its folder is there, its program
// is on PATH or its VS Code extension is installed.
func TestDetection(t *testing.T) {
	home := t.TempDir()
	bin := t.TempDir()
	for _, p := range []string{".codex", ".vscode/extensions/github.copilot-chat-0.31.0", ".vscode-server/extensions/saoudrizwan.claude-dev-3.20.0"} {
		if err := os.MkdirAll(filepath.Join(home, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(bin, "gemini"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "cursor"), []byte("not executable"), 0o644); err != nil {
		t.Fatal(err)
	}
	sys := OS{Env: func(k string) string {
		if k == "PATH" {
			return "relative/dir:" + bin
		}
		return ""
	}}
	got := map[string]bool{}
	for _, st := range Survey(sys, Options{Home: home}) {
		got[st.Host] = st.Installed
		if st.Change != nil {
			t.Errorf("%s: a change without a binary", st.Host)
		}
	}
	want := map[string]bool{"codex": true, "copilot": true, "cline": true, "gemini-cli": true}
	for _, h := range Hosts() {
		if got[h.Name] != want[h.Name] {
			t.Errorf("%s installed %v, want %v", h.Name, got[h.Name], want[h.Name])
		}
	}
}

// TestEnvironmentMovesFolders: CLAUDE_CONFIG_DIR, CODEX_HOME and
// COPILOT_HOME move those hosts' configurations, as the hosts do.
func TestEnvironmentMovesFolders(t *testing.T) {
	env := OS{Env: func(k string) string {
		return map[string]string{"CLAUDE_CONFIG_DIR": "/cfg/claude", "CODEX_HOME": "/cfg/codex", "COPILOT_HOME": "relative"}[k]
	}}
	for host, want := range map[string]string{"claude-code": "/cfg/claude/settings.json", "codex": "/cfg/codex/hooks.json", "copilot": "/home/me/.copilot/hooks/admit.json"} {
		h, _ := Lookup(host)
		if got := h.Paths("/home/me", env.Getenv)[0]; got != want {
			t.Errorf("%s: %s, want %s", host, got, want)
		}
	}
}

// TestSymlinkedConfiguration: a configuration kept elsewhere and linked
// into place (dotfiles) is edited where it is; the link stays.
func TestSymlinkedConfiguration(t *testing.T) {
	home := fakeHome(t)
	dotfiles := t.TempDir()
	link := filepath.Join(home, ".claude", "settings.json")
	real := filepath.Join(dotfiles, "claude.json")
	orig, _ := os.ReadFile(link)
	if err := os.WriteFile(real, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	_ = os.Remove(link)
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	h, _ := Lookup("claude-code")
	o := Options{Home: home, Binary: fakeBinary(t), GOOS: "linux"}
	if _, err := Connect(quiet, OS{}, o, h, ""); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v", err)
	}
	if fi, _ := os.Stat(real); fi.Mode().Perm() != 0o600 {
		t.Fatalf("the file's mode changed: %v", fi.Mode())
	}
	if data, _ := os.ReadFile(real); !strings.Contains(string(data), "hook claude-code") {
		t.Fatal("the linked file was not edited")
	}
	if b, _ := os.ReadFile(real + ".admit-backup"); string(b) != string(orig) {
		t.Fatal("no backup beside the linked file")
	}
	if _, err := Disconnect(quiet, OS{}, o, h, ""); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(real); string(data) != string(orig) {
		t.Fatal("not undone")
	}
	// A link to nothing is refused, not replaced by a file.
	_ = os.Remove(real)
	if st := Inspect(quiet, o, h); st.State != StateUnreadable || !strings.Contains(st.Problem, "symlink to nothing") {
		t.Fatalf("%+v", st)
	}
}

// TestWindows: on Windows admit writes Copilot's PowerShell entry, and
// refuses the hosts whose shell it cannot be sure of.
func TestWindows(t *testing.T) {
	home := t.TempDir()
	o := Options{Home: home, Binary: fakeBinary(t), GOOS: "windows"}
	for _, st := range Survey(quiet, o) {
		switch st.Host {
		case "copilot":
			if st.Change == nil || !strings.Contains(st.Change.Diff, `"powershell": "& '`+o.Binary+`' hook copilot --host-timeout 30s"`) || strings.Contains(st.Change.Diff, `"bash"`) {
				t.Errorf("copilot on windows:\n%+v", st.Change)
			}
		default:
			if st.State != StateUnsupported || st.Change != nil {
				t.Errorf("%s on windows: %s", st.Host, st.State)
			}
			h, _ := Lookup(st.Host)
			if _, err := Connect(quiet, OS{}, o, h, ""); err == nil {
				t.Errorf("%s: connected on windows", st.Host)
			}
		}
	}
}

// TestForeignAdmitLikeEntriesKept: entries that are not admit hook HOST
// (another program named like a hook, admit for another host, a
// different subcommand) are the person's and stay.
func TestForeignEntriesKept(t *testing.T) {
	content := `{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
  {"type": "command", "command": "recollect hook claude-code"},
  {"type": "command", "command": "/usr/bin/admit hook codex"},
  {"type": "command", "command": "/usr/bin/admit check -c ls"},
  {"type": "command", "command": "/usr/bin/admitted hook claude-code"}
]}]}}
`
	home := t.TempDir()
	path := filepath.Join(home, ".claude", "settings.json")
	_ = os.MkdirAll(filepath.Dir(path), 0o755)
	_ = os.WriteFile(path, []byte(content), 0o644)
	h, _ := Lookup("claude-code")
	o := Options{Home: home, Binary: fakeBinary(t), GOOS: "linux"}
	if st := Inspect(quiet, o, h); st.State != StateNotConnected {
		t.Fatalf("%+v", st)
	}
	if _, err := Connect(quiet, OS{}, o, h, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := Disconnect(quiet, OS{}, o, h, ""); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != content {
		t.Fatalf("got\n%s", data)
	}
}

// TestCheckBinary: what may be named in a hook configuration.
func TestCheckBinary(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	mk := func(rel string, mode os.FileMode) string {
		p := filepath.Join(root, rel)
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := mk("home/.local/bin/admit", 0o755)
	repoBin := mk("home/src/admit/admit", 0o755)
	_ = os.Mkdir(filepath.Join(root, "home/src/admit/.git"), 0o755)
	_ = os.Mkdir(filepath.Join(home, ".git"), 0o755) // a home kept in git is not a repository here
	wsBin := mk("ws/bin/admit", 0o755)
	tmpBin := mk("tmp/go-build1/exe/admit", 0o755)
	plain := mk("home/bin/plain/admit", 0o644)
	named := mk("home/bin/admit-linux-amd64", 0o755)
	dirNamed := filepath.Join(home, "dir", "admit")
	_ = os.MkdirAll(dirNamed, 0o755)
	openDir := filepath.Join(root, "open")
	_ = os.MkdirAll(openDir, 0o755)
	_ = os.Chmod(openDir, 0o777)
	openBin := mk("open/admit", 0o755)
	link := filepath.Join(home, ".local/lib/admit")
	_ = os.MkdirAll(filepath.Dir(link), 0o755)
	_ = os.Symlink(repoBin, link)
	place := Place{Workspaces: []string{filepath.Join(root, "ws")}, Temp: []string{filepath.Join(root, "tmp")}}
	for _, c := range []struct {
		path, want string
	}{
		{good, ""},
		{"admit", "relative"},
		{"bin/admit", "relative"},
		{home + "/new\nline/admit", "control character"},
		{home + "/.local/bin/../bin/admit", "not clean"},
		{filepath.Join(home, "missing", "admit"), "no such file"},
		{dirNamed, "not a regular file"},
		{named, `its name is "admit-linux-amd64", not admit`},
		{plain, "not executable"},
		{repoBin, "inside the repository " + filepath.Join(root, "home/src/admit")},
		{link, "inside the repository"},
		{wsBin, "inside the workspace"},
		{tmpBin, "inside the temporary folder"},
		{openBin, "writable by every user"},
	} {
		err := CheckBinary(OS{}, c.path, home, place)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.path, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.path, err, c.want)
		}
	}
}

// TestHooksSwitchedOff: the person's own settings that switch a host's
// hooks off are reported, since admit's entries would not run.
func TestHooksSwitchedOff(t *testing.T) {
	home := t.TempDir()
	for rel, content := range map[string]string{
		".claude/settings.json":  `{"disableAllHooks": true}`,
		".gemini/settings.json":  "{\n  // off for now\n  \"hooksConfig\": {\"enabled\": false}\n}",
		".copilot/settings.json": `{"disableAllHooks": true}`,
		".cursor/hooks.json":     `{"version": 1, "disableAllHooks": true}`,
	} {
		p := filepath.Join(home, rel)
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, st := range Survey(quiet, Options{Home: home}) {
		want := map[string]string{"claude-code": "disableAllHooks is true", "gemini-cli": "hooksConfig.enabled is false", "copilot": "disableAllHooks is true in " + filepath.Join(home, ".copilot", "settings.json")}[st.Host]
		if want == "" && st.HooksOff != "" || !strings.Contains(st.HooksOff, want) {
			t.Errorf("%s: hooksOff %q, want %q", st.Host, st.HooksOff, want)
		}
	}
}

// TestConfigurationInsideWorkspaceRefused: a configuration that leads
// into a workspace (a symlink into the repository) is not written: the
// agent there could edit the hook.
func TestConfigurationInsideWorkspaceRefused(t *testing.T) {
	home := t.TempDir()
	ws := t.TempDir()
	inside := filepath.Join(ws, "claude-settings.json")
	if err := os.WriteFile(inside, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(home, ".claude", "settings.json")
	_ = os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(inside, link); err != nil {
		t.Fatal(err)
	}
	h, _ := Lookup("claude-code")
	o := Options{Home: home, Binary: fakeBinary(t), GOOS: "linux", Place: Place{Workspaces: []string{ws}}}
	if st := Inspect(quiet, o, h); st.Change != nil || !strings.Contains(st.Problem, "inside the workspace") {
		t.Fatalf("%+v", st)
	}
	if _, err := Connect(quiet, OS{}, o, h, ""); err == nil || !strings.Contains(err.Error(), "inside the workspace") {
		t.Fatalf("%v", err)
	}
	if data, _ := os.ReadFile(inside); string(data) != "{}\n" {
		t.Fatal("written")
	}
}
