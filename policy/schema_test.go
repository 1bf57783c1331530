package policy_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"admit/policy"
)

func TestSchemaPathArgs(t *testing.T) {
	for _, c := range []struct {
		note, schema string
		want         []string
	}{
		{"a name admit does not know, by its last word", `{"type":"object","properties":{"repo_path":{"type":"string"},"count":{"type":"integer"}}}`, []string{"repopath"}},
		{"camelCase last words", `{"properties":{"outputFile":{"type":"string"},"workingDirectory":{"type":"string"},"profile":{"type":"string"}}}`, []string{"outputfile", "workingdirectory"}},
		{"a known path key", `{"properties":{"file_path":{"type":"string"}}}`, []string{"filepath"}},
		{"by format", `{"properties":{"location":{"type":"string","format":"uri"},"ref":{"type":"string","format":"uri-reference"},"where":{"type":"string","format":"path"}}}`, []string{"location", "ref", "where"}},
		{"by a description that starts by naming a path", `{"properties":{"location":{"type":"string","description":"Absolute path to the notes folder"},"into":{"type":"string","description":"The directory to write into"},"src":{"type":"string"}}}`, []string{"into", "location", "src"}},
		{"a description that only mentions a path", `{"properties":{"value":{"type":"string","description":"Value to write at the given path"},"q":{"type":"string","description":"Text to search for in files"}}}`, nil},
		{"a content key described as a file's", `{"properties":{"content":{"type":"string","description":"File contents"}}}`, nil},
		{"not a string", `{"properties":{"recursive_dir":{"type":"boolean"},"max_path":{"type":"integer"}}}`, nil},
		{"a list of paths", `{"properties":{"targets_list":{"type":"array","items":{"type":"string","format":"path"}},"include_dirs":{"type":"array","items":{"type":"string"}}}}`, []string{"includedirs", "targetslist"}},
		{"nested objects and lists", `{"properties":{"opts":{"type":"object","properties":{"repo_path":{"type":"string"}}},"edits":{"type":"array","items":{"type":"object","properties":{"notebook":{"type":["string","null"],"format":"path"}}}}}}`, []string{"notebook", "repopath"}},
		{"anyOf with a string", `{"properties":{"base_dir":{"anyOf":[{"type":"string"},{"type":"null"}]}}}`, []string{"basedir"}},
		{"no type at all", `{"properties":{"some_folder":{"description":"where"}}}`, []string{"somefolder"}},
		{"not JSON", `{"properties":`, nil},
		{"not an object", `["path"]`, nil},
	} {
		t.Run(c.note, func(t *testing.T) {
			var got []string
			for k := range policy.SchemaPathArgs(json.RawMessage(c.schema)) {
				got = append(got, k)
			}
			slices.Sort(got)
			if !slices.Equal(got, c.want) {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestPathsUnderAnyName: a path argument under a name admit does not know
// is judged: by the tool's schema, by its name's last word, and, for a
// tool admit does not know, by its value's form.
func TestPathsUnderAnyName(t *testing.T) {
	w := newToolWorld(t)
	must(t, w.obs.RecordFile(filepath.Join(w.root, "src/a.go")))
	w.obs.RecordDir(filepath.Join(w.root, "docs"))
	schema := func(name, props string, readOnly bool) json.RawMessage {
		return json.RawMessage(`{"name":"` + name + `","inputSchema":{"type":"object","properties":` + props + `},"annotations":{"readOnlyHint":` + map[bool]string{true: "true", false: "false"}[readOnly] + `}}`)
	}
	caps, err := policy.NewCaps(policy.CapsSpec{
		Label: "mcp",
		Tools: []json.RawMessage{
			schema("git_status", `{"repo_path":{"type":"string"}}`, true),
			schema("open_notes", `{"location":{"type":"string","description":"Path to the notes folder"}}`, true),
			schema("fetch_page", `{"target_uri":{"type":"string","format":"uri"}}`, true),
			schema("git_commit", `{"repo_path":{"type":"string"},"message":{"type":"string"}}`, false),
			schema("set_config", `{"path":{"type":"string"},"value":{"type":"string","description":"Value to write at the given path"}}`, false),
			schema("search", `{"q":{"type":"string"},"body":{"type":"string"},"args":{"type":"array"}}`, true),
		},
		Allow:      []string{"mcp_github_*", "Grep", "read_file"},
		WriteRoots: []string{w.root},
	}, func(p string) (string, error) { return filepath.EvalSymlinks(p) })
	must(t, err)
	env := *w.env
	env.Caps = caps
	for _, c := range []struct{ note, tool, args, want string }{
		// the schema's names
		{"repo_path outside", "git_status", `{"repo_path":"/etc"}`, "outside-workspace"},
		{"repo_path through a symlink out", "git_status", `{"repo_path":"out-link"}`, "outside-workspace"},
		{"repo_path inside", "git_status", `{"repo_path":"src"}`, "allowed"},
		{"a path named by its description, through a link", "open_notes", `{"location":"out-link/secret"}`, "outside-workspace"},
		{"a uri property with a web address", "fetch_page", `{"target_uri":"https://example.com/a/../b"}`, "allowed"},
		{"a uri property with a file outside", "fetch_page", `{"target_uri":"file:///etc/passwd"}`, "outside-workspace"},
		{"a mutator's unknown path name is a write target", "git_commit", `{"repo_path":"/tmp/x","message":"m"}`, "outside-write-root"},
		{"a value that only mentions a path is no target", "set_config", `{"path":"docs/new.md","value":"hello"}`, "allowed"},
		// values that read as paths, whatever their name
		{"absolute", "search", `{"q":"/etc/passwd"}`, "outside-workspace"},
		{"home", "search", `{"q":"~/.ssh/id_rsa"}`, "outside-workspace"},
		{"climbing", "search", `{"q":"../outside/secret"}`, "outside-workspace"},
		{"climbing inside", "search", `{"q":"src/../docs"}`, "allowed"},
		{"a file URI", "search", `{"q":"FILE:///etc/passwd"}`, "outside-workspace"},
		{"padded", "search", `{"q":"  /etc/passwd\n"}`, "outside-workspace"},
		{"in a list", "search", `{"args":["-n","/etc/passwd"]}`, "outside-workspace"},
		{"in a list in a list", "search", `{"args":[["x",["/etc/passwd"]]]}`, "outside-workspace"},
		{"nested", "search", `{"opts":{"where":{"deep":"/etc"}}}`, "outside-workspace"},
		{"a web address is no path", "search", `{"q":"https://example.com/../x"}`, "allowed"},
		{"words are no path", "search", `{"q":"hello world"}`, "allowed"},
		{"several lines are content", "search", `{"q":"see\n/etc/passwd"}`, "allowed"},
		{"a content key is content", "search", `{"body":"/build"}`, "allowed"},
		// granted by a pattern, no schema: a writer (PatternOnly)
		{"a granted tool with no schema, absolute", "mcp_github_search", `{"query_string":"/etc/shadow"}`, "outside-write-root"},
		{"a granted tool with no schema, words", "mcp_github_search", `{"query_string":"open issues"}`, "no-target"},
		// tools admit knows keep their own keys
		{"a known tool's regex is not a path", "Grep", `{"pattern":"/etc/passwd","path":"src"}`, "allowed"},
		{"a known tool's argument named as a path", "read_file", `{"path":"src/a.go","output_file":"/etc/x"}`, "outside-workspace"},
	} {
		t.Run(c.note, func(t *testing.T) {
			d := policy.Decide(policy.Call{Tool: c.tool, Args: json.RawMessage(c.args), Cwd: w.root}, &env)
			if string(d.Rule) != c.want {
				t.Fatalf("got %s (%s), want %s", d.Rule, d.Reason, c.want)
			}
		})
	}
}

// FuzzReadsAsPath: an unknown tool's string argument that starts at the
// file system's root, outside the workspace, is never allowed, whatever
// else it holds; and no argument object makes Decide panic.
func FuzzReadsAsPath(f *testing.F) {
	for _, s := range []string{"/etc/passwd", "hello", "../x", "~/.ssh", "file:///etc", "a\n/b", " /etc ", "https://x/../y"} {
		f.Add(s)
	}
	w := newToolWorld(f)
	caps, err := policy.NewCaps(policy.CapsSpec{Label: "fuzz", Allow: []string{"tool_x"}}, func(p string) (string, error) { return p, nil })
	if err != nil {
		f.Fatal(err)
	}
	env := *w.env
	env.Caps = caps
	f.Fuzz(func(t *testing.T, s string) {
		args, _ := json.Marshal(map[string]any{"q": s, "list": []string{s}})
		d := policy.Decide(policy.Call{Tool: "tool_x", Args: args, Cwd: w.root}, &env)
		if strings.HasPrefix(strings.TrimSpace(s), "/etc/") && !strings.ContainsAny(s, "\r\n") && len(s) < 4000 && d.Allowed {
			t.Fatalf("%q was allowed: %s", s, d.Reason)
		}
	})
}

// FuzzSchemaPathArgs: any schema is read without a panic, and every key
// it yields is normalized.
func FuzzSchemaPathArgs(f *testing.F) {
	for _, s := range []string{`{"properties":{"repo_path":{"type":"string"}}}`, `{"items":{"items":{}}}`, `{"anyOf":[{"properties":{"x_dir":{}}}]}`, `[]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for k := range policy.SchemaPathArgs(json.RawMessage(s)) {
			if strings.ContainsAny(k, "_-ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
				t.Fatalf("key %q is not normalized", k)
			}
		}
	})
}

// TestArgvIsTheCommandThatRuns: a command given as an argv is admitted as
// that one argv, so a run can hold what starts to what was judged.
func TestArgvIsTheCommandThatRuns(t *testing.T) {
	w := newToolWorld(t)
	argv := []string{"grep", "-rnI", "-e", "x", "--", "src"}
	d := policy.Decide(policy.Call{Tool: "bash", Argv: argv, Cwd: w.root}, w.env)
	if !d.Allowed || len(d.Argv) != 1 || !slices.Equal(d.Argv[0], argv) {
		t.Fatalf("got %s %q, want %q admitted", d.Rule, d.Argv, argv)
	}
}
