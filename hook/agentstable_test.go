package hook

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"admit/policy/shell"
)

// agentsTableRows names, for each row of docs/agents.md's "Which shell runs
// the line" table, the adapter and admit's tool name it describes.
var agentsTableRows = map[string]struct{ adapter, tool string }{
	"Claude Code (`Bash`)":                      {"claude-code", "Bash"},
	"Gemini CLI (`run_shell_command`)":          {"gemini-cli", "run_shell_command"},
	"VS Code Local harness (`run_in_terminal`)": {"copilot", "run_in_terminal"},
	"Copilot CLI (`bash`)":                      {"copilot", "Bash"},
	"Codex (`Bash`)":                            {"codex", "Bash"},
	"Cursor (`Shell`)":                          {"cursor", "shell"},
	"Windsurf (`run_command`)":                  {"windsurf", "run_command"},
	"Kiro (`execute_bash`)":                     {"kiro", "bash"},
	"Cline (`execute_command`)":                 {"cline", "execute_command"},
	"opencode (`bash`)":                         {"opencode", "Bash"},
}

// TestAgentsTableIsTheCode holds docs/agents.md's table of how each host
// runs a line to hook/shell.go and the adapters: whether the host is sent
// a rewrite (and honours it in every release), whether its shell is
// interactive, the profiles the gate judges with for every $SHELL, and
// what is known of the folder. Every declared shell tool has a row.
func TestAgentsTableIsTheCode(t *testing.T) {
	doc, err := os.ReadFile("../docs/agents.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(doc), "| host | rewrites | the shell that runs the line | profile the gate judges with | folder |\n")
	if !ok {
		t.Fatal("docs/agents.md has no table of the shell that runs the line")
	}
	profileName := regexp.MustCompile("`([a-z-]+)`")
	seen := map[string]bool{}
	for _, line := range strings.Split(table, "\n")[1:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if len(cells) != 5 {
			t.Fatalf("a row of %d cells: %q", len(cells), line)
		}
		host, rewrites, runs, profiles, folder := strings.TrimSpace(cells[0]), cells[1], cells[2], cells[3], cells[4]
		row, ok := agentsTableRows[host]
		if !ok {
			t.Errorf("row %q names no adapter here", host)
			continue
		}
		seen[row.adapter+" "+row.tool] = true
		a, ok := Lookup(row.adapter)
		if !ok {
			t.Fatalf("no adapter %s", row.adapter)
		}
		r, ok := a.ShellRun(row.tool)
		if !ok {
			t.Errorf("%s: %s declares no ShellRun for %s", host, row.adapter, row.tool)
			continue
		}

		rewritten := false
		for _, fx := range fixtures(t, row.adapter) {
			ev := mustParse(t, a, fx)
			calls, err := a.Map(ev)
			if err == nil && len(calls) > 0 && calls[0].Tool == row.tool && a.CanRewrite(ev) {
				rewritten = true
			}
		}
		wantRewrites := "no"
		switch {
		case rewritten && r.RewriteHonoured:
			wantRewrites = "yes"
		case rewritten:
			wantRewrites = "yes (" // with the releases or inputs that drop it
		}
		if rewrites != wantRewrites && !(wantRewrites == "yes (" && strings.HasPrefix(rewrites, wantRewrites)) {
			t.Errorf("%s: rewrites %q, the code says %q (a recorded event rewritten %v, honoured %v)", host, rewrites, wantRewrites, rewritten, r.RewriteHonoured)
		}
		if strings.Contains(runs, "interactive") != r.Interactive {
			t.Errorf("%s: the shell %q, the code says interactive %v", host, runs, r.Interactive)
		}

		want := []string{}
		for _, personShell := range []string{"/bin/bash", "/usr/bin/zsh", "/usr/bin/fish", "/bin/sh", ""} {
			want = append(want, string(r.Profile(personShell)))
		}
		if rewritten && r.RewriteHonoured {
			want = append(want, string(shell.Analyze)) // admit runs the rewritten line
		}
		var named []string
		for _, m := range profileName.FindAllStringSubmatch(profiles, -1) {
			if _, err := shell.ParseProfile(m[1]); err == nil {
				named = append(named, m[1])
			}
		}
		slices.Sort(want)
		slices.Sort(named)
		if want, named = slices.Compact(want), slices.Compact(named); !slices.Equal(want, named) {
			t.Errorf("%s: the table names the profiles %v, the code judges with %v", host, named, want)
		}

		wantFolder := map[Folder]string{FolderReported: "reported", FolderTracked: "tracked", FolderPinned: "pinned"}[r.Folder]
		if !strings.HasPrefix(folder, wantFolder) {
			t.Errorf("%s: the folder %q, the code says %s", host, folder, wantFolder)
		}
	}
	for adapter, tools := range hostShells {
		for tool := range tools {
			if !seen[adapter+" "+tool] {
				t.Errorf("docs/agents.md's table has no row for %s's %s", adapter, tool)
			}
		}
	}
}
