package policy_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"admit/policy"
	"admit/policy/command"
	"admit/policy/rule"
	"admit/workspace"
)

// toolWorld is a temp workspace with files, a symlink out, a dangling
// link, protected folders, and a "<root>-evil" sibling.
type toolWorld struct {
	root, outside, home string
	env                 *policy.Env
	obs                 *workspace.Observations
}

func newToolWorld(t testing.TB) *toolWorld {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &toolWorld{root: filepath.Join(base, "ws"), outside: filepath.Join(base, "outside"), home: filepath.Join(base, "home")}
	for _, p := range []string{"ws/src/a.go", "ws/src/b.go", "ws/README.md", "ws/.git/config", "ws/.vscode/settings.json", "ws/.admit/policy.json", "ws/docs/guide.md", "outside/secret", "home/.ssh/id_rsa", "ws-evil/x"} {
		full := filepath.Join(base, p)
		must(t, os.MkdirAll(filepath.Dir(full), 0o755))
		must(t, os.WriteFile(full, []byte("x\n"), 0o644))
	}
	must(t, os.Symlink(w.outside, filepath.Join(w.root, "out-link")))
	must(t, os.Symlink(filepath.Join(w.outside, "secret"), filepath.Join(w.root, "secret-link")))
	must(t, os.Symlink(filepath.Join(w.outside, "nothing-yet"), filepath.Join(w.root, "dangling")))
	roots, err := workspace.NewRoots(w.root)
	must(t, err)
	w.obs = workspace.NewObservations(0)
	caps, err := policy.NewCaps(policy.CapsSpec{
		Label: "task", Allow: []string{"read_file", "write_file", "edit_file", "list_dir", "deploy", "mcp_github_*", "bash"},
		NeedsHuman: []string{"deploy"}, Mutators: []string{"write_file", "edit_file"}, WriteRoots: []string{w.root},
	}, func(p string) (string, error) { return filepath.EvalSymlinks(p) })
	must(t, err)
	w.env = &policy.Env{
		Caps: caps, Roots: roots.List(), Effects: command.WorkspaceWrite, Home: w.home,
		ShellTools: policy.DefaultShellTools(), Commands: command.New(nil), FS: workspace.NewResolver(roots), Obs: w.obs,
		MaxRequestChars: 4096,
	}
	return w
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestToolCalls(t *testing.T) {
	w := newToolWorld(t)
	must(t, w.obs.RecordFile(filepath.Join(w.root, "src/a.go")))
	w.obs.RecordDir(filepath.Join(w.root, "docs"))
	w.obs.RecordDir(filepath.Join(w.root, ".git"))
	must(t, w.obs.RecordFile(filepath.Join(w.root, ".vscode/settings.json")))
	must(t, w.obs.RecordFile(filepath.Join(w.root, ".admit/policy.json")))
	cases := []struct {
		note, tool, args string
		effects          command.Effects // "" keeps workspace-write
		want             string          // the rule; "ask:RULE" for a question
	}{
		// the allow list comes first, before any argument is read
		{"an empty tool name", "", `{}`, "", "no-tool"},
		{"a blank tool name", "  ", `{}`, "", "no-tool"},
		{"a hallucinated tool", "delete_repo", `{"path":"src"}`, "", "not-in-allow-list"},
		{"case matters", "Read_File", `{"path":"src/a.go"}`, "", "not-in-allow-list"},
		{"a pattern grants its prefix", "mcp_github_list", `{"path":"src/a.go"}`, "", "allowed"},
		// a tool granted only by a pattern is judged as a writer: nothing
		// says it only reads (policy/caps.go, PatternOnly)
		{"a pattern's tool writes: no path to check", "mcp_github_list", `{}`, "", "no-target"},
		{"a pattern's tool writes: an unobserved target", "mcp_github_put", `{"path":"src/b.go"}`, "", "unobserved-target"},
		{"a pattern's tool writes: read-only effects", "mcp_github_list", `{"path":"src/a.go"}`, command.ReadOnly, "read-only-effects"},
		{"a pattern's tool writes: a protected path", "mcp_github_put", `{"path":".vscode/settings.json"}`, "", "ask:protected-path"},
		{"a pattern is not a prefix of another", "mcp_gitlab_list", `{}`, "", "not-in-allow-list"},
		{"bad arguments of an ungranted tool are not read", "nope", `not json`, "", "not-in-allow-list"},
		{"arguments that are not an object", "read_file", `["src/a.go"]`, "", "bad-arguments"},
		{"arguments that are not JSON", "read_file", `{"path":`, "", "bad-arguments"},
		// reads
		{"a read inside", "read_file", `{"path":"src/a.go"}`, "", "allowed"},
		{"a read by absolute path", "read_file", `{"path":"ROOT/README.md"}`, "", "allowed"},
		{"a read of a missing file inside", "read_file", `{"path":"src/none.go"}`, "", "allowed"},
		{"a read through .. out", "read_file", `{"path":"../outside/secret"}`, "", "outside-workspace"},
		{"a read of /etc", "read_file", `{"path":"/etc/passwd"}`, "", "outside-workspace"},
		{"a read of ~", "read_file", `{"path":"~/.ssh/id_rsa"}`, "", "outside-workspace"},
		{"another user's home", "read_file", `{"path":"~root/.bashrc"}`, "", "outside-workspace"},
		{"a read through a symlinked folder", "read_file", `{"path":"out-link/secret"}`, "", "outside-workspace"},
		{"a read of a symlink to a file outside", "read_file", `{"path":"secret-link"}`, "", "outside-workspace"},
		{"a read of the evil sibling", "read_file", `{"path":"ROOT-evil/x"}`, "", "outside-workspace"},
		{"a file URI outside", "read_file", `{"uri":"file:///etc/passwd"}`, "", "outside-workspace"},
		{"a file URI inside", "read_file", `{"uri":"file://ROOT/README.md"}`, "", "allowed"},
		{"a path list with one outside", "read_file", `{"paths":["src/a.go","/etc/shadow"]}`, "", "outside-workspace"},
		{"a camelCase key", "read_file", `{"filePath":"/etc/passwd"}`, "", "outside-workspace"},
		{"an upper-case key", "read_file", `{"FILE_PATH":"/etc/passwd"}`, "", "outside-workspace"},
		{"a nested path", "read_file", `{"opts":{"target":{"path":"/etc/passwd"}}}`, "", "outside-workspace"},
		{"a NUL in a path", "read_file", `{"path":"src/a.go\u0000/etc/passwd"}`, "", "outside-workspace"},
		{"listing a folder", "list_dir", `{"directory":"src"}`, "", "allowed"},
		{"listing outside", "list_dir", `{"dir":"/"}`, "", "outside-workspace"},
		// writes
		{"a write after a read", "write_file", `{"path":"src/a.go","content":"x"}`, "", "allowed"},
		{"a write without a read", "write_file", `{"path":"src/b.go","content":"x"}`, "", "unobserved-target"},
		{"a new file in a listed folder", "write_file", `{"path":"docs/new.md"}`, "", "allowed"},
		{"a new file in an unlisted folder", "write_file", `{"path":"src/new.go"}`, "", "unobserved-target"},
		{"a new file in a new folder under a listed one", "write_file", `{"path":"docs/sub/new.md"}`, "", "allowed"},
		{"a new file in a new folder under an unlisted one", "write_file", `{"path":"src/sub/new.go"}`, "", "unobserved-target"},
		{"a write in read-only", "write_file", `{"path":"src/a.go"}`, command.ReadOnly, "read-only-effects"},
		{"a write outside", "write_file", `{"path":"/tmp/x"}`, "", "outside-write-root"},
		{"a write through ..", "write_file", `{"path":"src/../../outside/secret"}`, "", "outside-write-root"},
		{"a write to the evil sibling", "write_file", `{"path":"ROOT-evil/x"}`, "", "outside-write-root"},
		{"a write through a symlinked folder", "write_file", `{"path":"out-link/secret"}`, "", "outside-write-root"},
		{"a write to a link to a file outside", "write_file", `{"path":"secret-link"}`, "", "outside-write-root"},
		{"a write to a dangling link", "write_file", `{"path":"dangling"}`, "", "outside-write-root"},
		{"a write to ~", "write_file", `{"path":"~/.bashrc"}`, "", "outside-write-root"},
		{"a write to the gate's own policy", "write_file", `{"path":".admit/policy.json"}`, "", "protected-path"},
		{"a write under .admit, new file", "write_file", `{"path":".admit/x.json"}`, "", "protected-path"},
		{"a write to .git/config asks", "write_file", `{"path":".git/config"}`, "", "ask:protected-path"},
		{"a write to .vscode/settings.json asks", "write_file", `{"path":".vscode/settings.json"}`, "", "ask:protected-path"},
		{"a protected write in read-only is refused, not asked", "write_file", `{"path":".vscode/settings.json"}`, command.ReadOnly, "read-only-effects"},
		{"an edit list with one bad path", "edit_file", `{"edits":[{"path":"src/a.go"},{"path":"/etc/passwd"}]}`, "", "outside-write-root"},
		{"an edit list inside", "edit_file", `{"edits":[{"file_path":"src/a.go","old":"x","new":"y"}]}`, "", "allowed"},
		{"a mutator naming no path", "write_file", `{"content":"x"}`, "", "no-target"},
		{"a mutator with an empty path", "write_file", `{"path":"  "}`, "", "no-target"},
		{"a destination key", "edit_file", `{"source":"src/a.go","destination":"/tmp/a.go"}`, "", "outside-write-root"},
		{"a write to the root itself", "write_file", `{"path":"."}`, "", "protected-path"},
		{"too deep to judge", "write_file", strings.Repeat(`{"a":`, 20) + `1` + strings.Repeat(`}`, 20), "", "request-too-large"},
		{"too large", "write_file", `{"path":"src/a.go","content":"` + strings.Repeat("x", 4096*256) + `"}`, "", "request-too-large"},
		// people
		{"a tool that always asks", "deploy", `{"target":"prod"}`, "", "ask:needs-human"},
		{"a tool that asks, with a path outside, asks about neither", "deploy", `{"path":"/etc/passwd"}`, "", "outside-workspace"},
		// shell tools go to the command policy
		{"a shell tool, command in args", "bash", `{"command":"ls -la"}`, "", "allowed"},
		{"a shell tool reading outside", "bash", `{"command":"cat /etc/passwd"}`, "", "outside-workspace"},
		{"a shell tool whose command is not a string", "bash", `{"command":["ls"]}`, "", "empty-command"},
		{"a shell tool with a cwd outside", "bash", `{"command":"ls","cwd":"/etc"}`, "", "outside-workspace"},
		{"a shell tool with a cwd inside", "bash", `{"command":"ls","cwd":"src"}`, "", "allowed"},
		{"a shell tool with no command", "bash", `{}`, "", "empty-command"},
	}
	if len(cases) < 60 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.note, func(t *testing.T) {
			env := *w.env
			if c.effects != "" {
				env.Effects = c.effects
			}
			args := strings.ReplaceAll(c.args, "ROOT", w.root)
			d := policy.Decide(policy.Call{Tool: c.tool, Args: json.RawMessage(args), Cwd: w.root}, &env)
			got := string(d.Rule)
			if d.Ask {
				got = "ask:" + got
			}
			if _, ok := rule.Lookup(d.Rule); !ok {
				t.Errorf("rule %q is not in the catalogue", d.Rule)
			}
			if want, fixed := rule.OutcomeOf(d.Rule); fixed && d.Outcome() != want {
				t.Errorf("outcome %s with rule %s, whose class the catalogue fixes as %s", d.Outcome(), d.Rule, want)
			}
			if got != c.want {
				t.Fatalf("got %s (%s), want %s", got, d.Reason, c.want)
			}
			if d.Allowed && d.Ask {
				t.Fatal("allowed and ask at once")
			}
			if !d.Allowed && !d.Ask && d.Reason == "" {
				t.Fatal("a refusal without a reason")
			}
		})
	}
}

func TestNotInAllowListNamesLabelAndGrants(t *testing.T) {
	w := newToolWorld(t)
	d := policy.Decide(policy.Call{Tool: "rm_rf"}, w.env)
	for _, want := range []string{`"rm_rf"`, `"task"`, "read_file", "write_file"} {
		if !strings.Contains(d.Reason, want) {
			t.Errorf("reason %q does not name %s", d.Reason, want)
		}
	}
	body := policy.ToolError(d.Rule, d.Reason, d.Hint)
	var te map[string]string
	must(t, json.Unmarshal([]byte(body), &te))
	if !strings.Contains(te["error"], "NOTHING was executed") || te["rule"] != "not-in-allow-list" || !strings.Contains(te["hint"], "retrying the same call will be refused again") {
		t.Fatalf("tool error: %s", body)
	}
}

func TestStaleObservation(t *testing.T) {
	w := newToolWorld(t)
	p := filepath.Join(w.root, "src/b.go")
	must(t, w.obs.RecordFile(p))
	must(t, os.WriteFile(p, []byte("changed by someone else, longer\n"), 0o644))
	d := policy.Decide(policy.Call{Tool: "write_file", Args: json.RawMessage(`{"path":"src/b.go"}`), Cwd: w.root}, w.env)
	if d.Rule != "stale-observation" {
		t.Fatalf("got %s: %s", d.Rule, d.Reason)
	}
}

func TestCapsConstruction(t *testing.T) {
	id := func(p string) (string, error) { return p, nil }
	for _, c := range []struct {
		note string
		spec policy.CapsSpec
		err  string
	}{
		{"a bare star", policy.CapsSpec{Allow: []string{"*"}}, "bare"},
		{"a bare star with spaces", policy.CapsSpec{Allow: []string{" * "}}, "bare"},
		{"a bare star in needsHuman", policy.CapsSpec{NeedsHuman: []string{"*"}}, "bare"},
		{"a relative write root", policy.CapsSpec{Allow: []string{"a"}, WriteRoots: []string{"src"}}, "absolute"},
		{"an empty name", policy.CapsSpec{Allow: []string{""}}, "empty"},
		{"a bad pattern", policy.CapsSpec{Allow: []string{"a["}}, "pattern"},
		{"schemas with no names", policy.CapsSpec{Tools: []json.RawMessage{json.RawMessage(`{"type":"function"}`)}}, "no tool names"},
	} {
		if _, err := policy.NewCaps(c.spec, id); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: got %v, want an error with %q", c.note, err, c.err)
		}
	}
	caps, err := policy.NewCaps(policy.CapsSpec{Label: "mcp", Tools: []json.RawMessage{
		json.RawMessage(`{"type":"function","function":{"name":"open_ai_tool"}}`),
		json.RawMessage(`{"name":"bare_tool"}`),
		json.RawMessage(`{"name":"reader","annotations":{"readOnlyHint":true}}`),
		json.RawMessage(`{"name":"destroyer","annotations":{"readOnlyHint":false,"destructiveHint":true}}`),
	}}, id)
	must(t, err)
	for tool, mut := range map[string]bool{"open_ai_tool": true, "bare_tool": true, "reader": false, "destroyer": true} {
		if !caps.Grants(tool) || caps.Mutates(tool) != mut {
			t.Errorf("%s: grants %v, mutates %v", tool, caps.Grants(tool), caps.Mutates(tool))
		}
	}
}

func TestBounds(t *testing.T) {
	b, err := policy.ParseBounds(func(string) string { return "" })
	must(t, err)
	if b.MaxSteps != 8 || b.MaxRetries != 1 || b.MaxOutputBytes != 65536 || b.Effects != "read-only" {
		t.Fatalf("defaults: %+v", b)
	}
	env := map[string]string{"ADMIT_MAX_RETRIES": " 5 ", "ADMIT_EFFECTS": "workspace-write"}
	b, err = policy.ParseBounds(func(k string) string { return env[k] })
	if err != nil || b.MaxRetries != 5 || b.Effects != "workspace-write" {
		t.Fatalf("set: %+v %v", b, err)
	}
	for k, v := range map[string]string{"ADMIT_MAX_RETRIES": "6", "ADMIT_MAX_STEPS": "1e3", "ADMIT_TIMEOUT_MS": "0x10", "ADMIT_MAX_MEMORY_MB": "+5"} {
		_, err := policy.ParseBounds(func(key string) string {
			if key == k {
				return v
			}
			return ""
		})
		if err == nil || !strings.Contains(err.Error(), k) || !strings.Contains(err.Error(), `"`+v+`"`) {
			t.Errorf("%s=%s: %v", k, v, err)
		}
	}
}

func TestDecisionOutcome(t *testing.T) {
	for _, c := range []struct {
		d    policy.Decision
		want rule.Outcome
	}{
		{policy.Decision{Allowed: true, Rule: rule.Allowed}, rule.OutcomeAllow},
		{policy.Decision{Ask: true, Rule: rule.ProtectedPath}, rule.OutcomeAsk},
		{policy.Decision{Rule: rule.ProtectedPath}, rule.OutcomeDeny},
		{policy.Decision{Rule: rule.NotInAllowList}, rule.OutcomeDeny},
	} {
		if got := c.d.Outcome(); got != c.want {
			t.Errorf("%+v: Outcome() = %s, want %s", c.d, got, c.want)
		}
	}
}

// An Env that names no file system is safe: a call with a path is refused,
// never a panic, and a call without one is judged as usual.
func TestDecideWithoutFS(t *testing.T) {
	caps, err := policy.NewCaps(policy.CapsSpec{Label: "t", Allow: []string{"read_file", "bash"}}, func(p string) (string, error) { return p, nil })
	if err != nil {
		t.Fatal(err)
	}
	env := &policy.Env{Caps: caps, Roots: []string{"/w"}, ShellTools: policy.DefaultShellTools(), Commands: command.New(nil)}
	for _, c := range []policy.Call{
		{Tool: "read_file", Args: json.RawMessage(`{"path":"/w/a.txt"}`)},
		{Tool: "bash", Command: "cat /w/a.txt", Cwd: "/w"},
		{Tool: "bash", Command: "ls *.go", Cwd: "/w"},
		{Tool: "bash", Command: "git status", Cwd: "/w"},
	} {
		if d := policy.Decide(c, env); d.Allowed {
			t.Errorf("%s %s: allowed with no file system: %+v", c.Tool, c.Command+string(c.Args), d)
		}
	}
	if d := policy.Decide(policy.Call{Tool: "no_such_tool"}, env); d.Rule != rule.NotInAllowList {
		t.Errorf("no_such_tool: rule %s, want %s", d.Rule, rule.NotInAllowList)
	}
}
