package gate

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"sort"
	"strings"

	"admit/approvals"
	"admit/internal/sysfile"
	"admit/policy"
	"admit/policy/rule"
	"admit/policy/rules"
)

// offer is the rule "always allow" offers for a question (rules.Offer:
// what runs and the kinds of effect the call had), or why no rule of
// the person's can answer it. Only a question the person's allow rules
// answer gets one: the line's one command that asks because admit
// cannot judge what it runs, with nothing else asking.
func offer(d policy.Decision) (*rules.Rule, string) {
	if !d.Answerable {
		return nil, noRuleWhy(d)
	}
	switch {
	case len(d.Asks) == 0:
		return nil, "nothing of the call asks because of what it runs, so no rule answers it"
	case len(d.Asks) > 1:
		names := make([]string, len(d.Asks))
		for i, a := range d.Asks {
			names[i] = rules.Quote(a)
		}
		return nil, fmt.Sprintf("several commands of the line ask (%s): one rule answers one of them; allow them once, or run them one at a time to keep a rule for each", strings.Join(names, ", "))
	case len(d.AskEffects) != len(d.Asks):
		return nil, "the command's effects are not known, so no rule can be limited to them"
	}
	r, why := rules.Offer(d.Asks[0], d.AskEffects[0])
	if why != "" {
		return nil, why
	}
	return &r, ""
}

// noRuleWhy says why a question that no allow rule answers stands.
func noRuleWhy(d policy.Decision) string {
	switch d.Rule {
	case rule.ProtectedPath:
		return "it changes a protected path, a file that makes the editor, git or CI run code: each change is asked, whatever rule allows the program"
	case rule.SecretRead:
		return "it reads a file the secret patterns name: whether the model sees it is asked each time"
	case rule.GitConfigExec:
		return "git's configuration or hooks in this repository name programs git would run: that is the repository's question, asked each time"
	case rule.RuleAsks:
		return "a rule (yours or the repository's) asks about it; remove or change that rule in the rules view"
	case rule.NeedsHuman:
		return "the session's capability set asks a person about this tool every time"
	case "unexpected-effect":
		return "an earlier run changed files it was not admitted to change; the session's writes are asked until a person has looked"
	}
	if d.Kind == "write" {
		return "it writes a file the gate asks about; a rule answers only what a command runs, not what a file becomes"
	}
	return fmt.Sprintf("it asks for %s, which no rule of the person's answers", d.Rule)
}

// maxShown bounds the content and the diff a question carries: the
// prompt shows the start, and a person who needs more opens the file.
const maxShown = 64 << 10

// shown fills what the prompt shows of a call besides its summary: a
// write's content, an edit's diff, what a protected file can do, and a
// structured call's arguments as readable fields.
func shown(q *approvals.Question, p CheckParams, d policy.Decision) {
	if len(p.Args) == 0 || p.Args[0] != '{' {
		for _, t := range d.Writes {
			if can := canDo(t); can != "" {
				q.Protects = can
				break
			}
		}
		return
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(p.Args, &args) != nil {
		return
	}
	str := func(names ...string) (string, bool) {
		for _, n := range names {
			if raw, ok := args[n]; ok {
				var s string
				if json.Unmarshal(raw, &s) == nil {
					return s, true
				}
			}
		}
		return "", false
	}
	target, _ := str("file_path", "filePath", "path", "notebook_path")
	var edits []textEdit
	if content, ok := str("content", "contents", "text", "new_source"); ok && d.Kind == "write" {
		q.Content = clip(content)
		if len(content) <= maxProposed {
			q.Proposed, q.ProposedFor = content, target
		}
	}
	if oldText, ok := str("old_string", "oldText", "old_str"); ok {
		newText, _ := str("new_string", "newText", "new_str")
		var all, allToo bool
		_ = json.Unmarshal(args["replace_all"], &all) // absent: false
		_ = json.Unmarshal(args["replaceAll"], &allToo)
		all = all || allToo
		edits = []textEdit{{Old: oldText, New: newText, All: all}}
	}
	if raw, ok := args["edits"]; ok { // MultiEdit: every edit, in turn
		if json.Unmarshal(raw, &edits) != nil {
			edits = nil
		}
	}
	if len(edits) > 0 {
		var b strings.Builder
		for _, e := range edits {
			b.WriteString(unifiedDiff(target, e.Old, e.New))
		}
		q.Diff = clip(b.String())
		if len(d.Writes) == 1 {
			if after, ok := applyEdits(d.Writes[0], edits); ok {
				q.Proposed, q.ProposedFor = after, target
			}
		}
	}
	for _, t := range append([]string{target}, d.Writes...) {
		if can := canDo(t); t != "" && can != "" {
			q.Protects = can
			break
		}
	}
	if q.Content == "" && q.Diff == "" && !slices.Contains([]string{"bash", "Bash", "shell", "run_in_terminal"}, p.Tool) {
		q.Fields = fields(args)
	}
}

// maxProposed bounds the whole file a question carries for the editor's
// diff view: a larger one is shown only as the inline start and diff.
const maxProposed = 1 << 20

// textEdit is one replacement of an edit tool (Edit, MultiEdit's edits).
type textEdit struct {
	Old string `json:"old_string"`
	New string `json:"new_string"`
	All bool   `json:"replace_all"`
}

// applyEdits is the file at path as the edits would leave it, done as
// the edit tools do them (each old text must be there, once unless it
// replaces all), or false when the file is no regular file of at most
// maxProposed bytes or an edit would fail: the person then sees the
// inline diff only, never a guess.
func applyEdits(path string, edits []textEdit) (string, bool) {
	f, err := sysfile.OpenNoFollow(path, os.O_RDONLY|sysfile.NonBlock, 0) // a FIFO never holds the question up
	if err != nil {
		return "", false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() || st.Size() > maxProposed {
		return "", false
	}
	data, err := io.ReadAll(io.LimitReader(f, maxProposed+1))
	if err != nil || len(data) > maxProposed {
		return "", false
	}
	text := string(data)
	for _, e := range edits {
		n := strings.Count(text, e.Old)
		if e.Old == "" || n == 0 || n > 1 && !e.All {
			return "", false
		}
		if e.All {
			text = strings.ReplaceAll(text, e.Old, e.New)
		} else {
			text = strings.Replace(text, e.Old, e.New, 1)
		}
		if len(text) > maxProposed {
			return "", false
		}
	}
	return text, true
}

// fields are a structured call's arguments, one a line: a string as it
// is, anything else as compact JSON, in name order.
func fields(args map[string]json.RawMessage) []approvals.Field {
	names := make([]string, 0, len(args))
	for n := range args {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]approvals.Field, 0, len(names))
	for _, n := range names {
		raw := args[n]
		var s string
		if json.Unmarshal(raw, &s) != nil {
			s = string(raw)
		}
		out = append(out, approvals.Field{Name: n, Value: clip(s)})
	}
	return out
}

func clip(s string) string {
	if len(s) <= maxShown {
		return s
	}
	return s[:maxShown] + "\n… (" + fmt.Sprint(len(s)-maxShown) + " more bytes)"
}

// unifiedDiff is the change of an edit as a unified diff of the replaced
// text: every old line removed, every new line added (the edit names
// its text, not where it is).
func unifiedDiff(name, oldText, newText string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", name, name)
	oldLines, newLines := splitLines(oldText), splitLines(newText)
	// Keep the lines both sides start and end with as context.
	pre := 0
	for pre < len(oldLines) && pre < len(newLines) && oldLines[pre] == newLines[pre] {
		pre++
	}
	post := 0
	for post < len(oldLines)-pre && post < len(newLines)-pre && oldLines[len(oldLines)-1-post] == newLines[len(newLines)-1-post] {
		post++
	}
	fmt.Fprintf(&b, "@@ -1,%d +1,%d @@\n", len(oldLines), len(newLines))
	for _, l := range oldLines[:pre] {
		b.WriteString(" " + l + "\n")
	}
	for _, l := range oldLines[pre : len(oldLines)-post] {
		b.WriteString("-" + l + "\n")
	}
	for _, l := range newLines[pre : len(newLines)-post] {
		b.WriteString("+" + l + "\n")
	}
	for _, l := range oldLines[len(oldLines)-post:] {
		b.WriteString(" " + l + "\n")
	}
	return b.String()
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// canDo says what a protected file can do once written, for the person
// deciding: "" for a file that is none of these.
func canDo(p string) string {
	p = path.Clean(strings.ReplaceAll(p, `\`, "/"))
	base := path.Base(p)
	parent := path.Base(path.Dir(p))
	has := func(dir string) bool { return strings.Contains("/"+p+"/", "/"+dir+"/") }
	switch {
	case parent == ".vscode" && base == "tasks.json":
		return "VS Code tasks run shell commands; a task with \"runOptions\": {\"runOn\": \"folderOpen\"} runs as soon as the folder is opened"
	case parent == ".vscode" && base == "settings.json":
		return "workspace settings can name programs the editor and its extensions start (terminal profiles, formatters, linters, interpreter paths)"
	case parent == ".vscode" && base == "launch.json":
		return "a launch configuration runs a program, and its preLaunchTask a task, when debugging starts"
	case parent == ".vscode" && base == "extensions.json":
		return "it recommends extensions the editor offers to install"
	case has(".github/workflows"):
		return "a GitHub Actions workflow runs on the code host on push or pull request, with the repository's secrets"
	case has(".gitlab-ci.yml") || base == ".gitlab-ci.yml":
		return "a GitLab CI pipeline runs on push, with the project's CI variables"
	case has(".git/hooks") || has(".husky"):
		return "a git hook runs on commit, checkout, merge or push"
	case parent == ".git" && base == "config":
		return "git's configuration can name programs git runs (core.fsmonitor, core.hooksPath, pagers, filters)"
	case base == ".envrc":
		return "direnv runs it as a shell script when the folder is entered"
	case has(".devcontainer"):
		return "it defines the container the editor builds and the commands it runs in it (postCreateCommand, postStartCommand)"
	case base == ".gitattributes":
		return "it names filters and diff drivers git runs on checkout and diff"
	case base == ".npmrc" || base == ".yarnrc" || base == ".yarnrc.yml" || base == "pip.conf":
		return "package-manager configuration: the registries installs fetch from and the programs they run"
	case base == ".mcp.json" || has(".claude") || has(".cursor"):
		return "a coding agent's settings: the hooks and MCP servers it starts, and what it may do"
	case strings.HasSuffix(base, ".pth"):
		return "Python runs it at every start of the environment's interpreter"
	}
	return ""
}
