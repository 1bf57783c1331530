package rpc_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"admit/gate"
	"admit/rpc/rpctest"
)

// TestAlwaysAllowWritesTheRule: a question about one command offers the
// rule "always allow" would write; the answer keeps it in the workspace's
// rules, outside the workspace, and admit/rules lists it. A question no
// rule can answer (a tool that always needs a person) offers none, and
// says why.
func TestAlwaysAllowWritesTheRule(t *testing.T) {
	ws := workspaceDir(t)
	rulesDir := filepath.Join(t.TempDir(), "rules")
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Approve: true, RulesDir: rulesDir, Answer: rpctest.Always("allow-always"),
		Init: map[string]any{"mode": "enforce", "policy": map[string]any{"allow": []string{"Bash", "Read"}, "needsHuman": []string{"Read"}}}})
	v := e.Check(map[string]any{"tool": "Bash", "command": "npm run build -- --prod", "context": map[string]any{"agent": "claude-code"}})
	q := rpctest.Within(t, e.Asked, "the question")
	if q.Rule == nil || q.Rule.Match != "npm run build" || q.Rule.Scope != "workspace" || q.Command != "npm run build -- --prod" || q.Agent != "claude-code" ||
		q.Rule.Effects == nil || !strings.Contains(q.Rule.Covers, "the workspace's code") {
		t.Fatalf("question: %+v", q)
	}
	if !v.Allowed || v.Rule != "human-approved" {
		t.Fatalf("verdict: %+v", v)
	}
	var list gate.RulesList
	e.Call("admit/rules", map[string]any{}, &list)
	if len(list.Rules) != 1 || list.Rules[0].Match != "npm run build" || list.Rules[0].Decision != "allow" || list.Rules[0].Source != "workspace" || list.Rules[0].Effects == nil {
		t.Fatalf("rules: %+v", list)
	}
	if !strings.HasPrefix(list.Files.Workspace, rulesDir) || strings.HasPrefix(list.Files.Workspace, ws) {
		t.Fatalf("the workspace's rules are kept at %q", list.Files.Workspace)
	}
	if _, err := os.Stat(list.Files.Workspace); err != nil {
		t.Fatal(err)
	}
	e.Check(map[string]any{"tool": "Read", "args": map[string]any{"file_path": filepath.Join(ws, "README.md")}})
	q = rpctest.Within(t, e.Asked, "the question about Read")
	if q.Rule != nil || !strings.Contains(q.NoRule, "capability set") || len(q.Fields) != 1 || q.Fields[0].Name != "file_path" {
		t.Fatalf("a tool that always asks: %+v", q)
	}
}

// TestRulesThroughTheEditor: the person adds and removes rules; a rule
// whose examples fail, or that is no rule, is refused naming the problem.
func TestRulesThroughTheEditor(t *testing.T) {
	ws := workspaceDir(t)
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Approve: true})
	var list gate.RulesList
	e.Call("admit/addRule", map[string]any{"match": "npm test *", "decision": "allow", "scope": "user", "examples": []string{"npm test"}, "notExamples": []string{"npm publish"}}, &list)
	if len(list.Rules) != 1 || list.Rules[0].Source != "user" {
		t.Fatalf("after add: %+v", list)
	}
	for _, bad := range []map[string]any{
		{"match": "npm test", "decision": "allow", "scope": "user", "examples": []string{"npm run build"}},
		{"match": "*", "decision": "allow", "scope": "user"},
		{"match": "npm test; curl x | sh", "decision": "allow", "scope": "user"},
		{"match": "npm test", "decision": "sometimes", "scope": "user"},
		{"match": "npm test", "decision": "allow", "scope": "everywhere"},
	} {
		err := e.Try("admit/addRule", bad, nil)
		if rpctest.ErrCode(err) != jsonrpc2.InvalidParams {
			t.Errorf("%v: %v", bad, err)
		}
	}
	e.Call("admit/removeRule", map[string]any{"match": "npm test *", "decision": "allow", "scope": "user"}, &list)
	if len(list.Rules) != 0 {
		t.Fatalf("after remove: %+v", list)
	}
	if err := e.Try("admit/removeRule", map[string]any{"match": "npm test *", "decision": "allow", "scope": "user"}, nil); rpctest.ErrCode(err) != jsonrpc2.InvalidParams {
		t.Errorf("removing a rule that is not there: %v", err)
	}
}

// TestSuggestRules: the questions on the tape become rules that load.
func TestSuggestRules(t *testing.T) {
	ws := workspaceDir(t)
	e := rpctest.Start(t, rpctest.Options{Roots: []string{ws}, Approve: true, Answer: rpctest.Always("allow-once"),
		Init: map[string]any{"mode": "enforce", "effects": "workspace-write"}})
	for _, line := range []string{"npm test", "npm test -- --ci", "curl -s http://localhost:3000/health", "curl -X POST -d @README.md http://localhost:3000/", "cat README.md"} {
		e.Check(map[string]any{"tool": "Bash", "command": line})
	}
	var res struct {
		Suggestions []gate.Suggestion `json:"suggestions"`
	}
	e.Call("admit/suggestRules", map[string]any{}, &res)
	if len(res.Suggestions) != 3 || res.Suggestions[0].Match != "npm test" || res.Suggestions[0].Count != 2 || res.Suggestions[0].Effects == nil {
		t.Fatalf("suggestions: %+v", res.Suggestions)
	}
	var health *gate.Suggestion
	for i, s := range res.Suggestions {
		if s.Match == "curl" && len(s.Effects.Sends) == 0 {
			health = &res.Suggestions[i]
		}
	}
	// The rule for the health check names its host and sends nothing: the
	// upload is among the nearest lines it would not answer, never among
	// its examples.
	if health == nil || !slices.Equal(health.Effects.Hosts, []string{"localhost:3000"}) || len(health.Examples) != 1 ||
		!slices.Equal(health.NotCovered, []string{"curl -X POST -d @README.md http://localhost:3000/"}) {
		t.Fatalf("the health check's suggestion: %+v", health)
	}
}
