package command

import (
	"strings"
	"unicode"
)

// Protection says whether a change to a path is refused or needs a person.
type Protection struct {
	Protected bool   // the path is protected
	Ask       bool   // a person may approve the change; false means it is refused outright
	Why       string // what the path is and why it is protected
}

// askFiles are file names that make git or the editor run code, anywhere
// in the workspace: a change to them asks a person.
func askName(name string) string {
	switch name {
	case ".gitattributes":
		return "it selects the filter and diff programs git runs"
	case ".gitmodules":
		return "it names repositories and update commands git uses"
	case ".envrc":
		return "direnv runs it as a shell script when the folder is entered"
	case ".pre-commit-config.yaml", ".lefthook.yml", "lefthook.yml":
		return "it names programs git hooks run"
	case ".mcp.json":
		return "it names MCP server programs the coding agent starts"
	}
	if strings.HasSuffix(name, ".code-workspace") {
		return "it holds editor settings and tasks that run programs"
	}
	return ""
}

// askDir are folder names whose contents make git or the editor run code.
func askDir(name string) string {
	switch name {
	case ".git":
		return "git metadata: its config and hooks make git run programs"
	case ".vscode":
		return "editor settings, tasks and launch configurations can run programs"
	case ".husky":
		return "it holds git hooks"
	case ".devcontainer":
		return "it defines the container and commands the editor starts"
	case ".claude", ".cursor", ".gemini", ".codex":
		// Agent settings: hooks run shell commands on the agent's next
		// tool call, MCP entries start programs, permissions widen what
		// the agent may do, all outside this gate.
		return "the coding agent's own settings: its hooks and MCP servers run programs"
	}
	return ""
}

// Protect says whether path (absolute, cleaned, resolved) may be changed.
// Anything under <root>/.admit/ (the policy) is refused; files under
// .git/, .vscode/, .husky/, .devcontainer/, .github/workflows/, and
// .gitattributes, .gitmodules, .envrc and similar files that make git or
// the editor run code ask a person. A folder that holds a protected path
// (the root itself, .github) is protected as its contents are. Paths
// outside every root are not protected here: the caller refuses them.
func Protect(path string, roots []string) Protection {
	for _, root := range roots {
		var rel string
		switch {
		case path == root:
			return Protection{Protected: true, Why: "it is the workspace folder itself, which holds the policy in .admit/"}
		case root == "/":
			rel = strings.TrimPrefix(path, "/")
		case strings.HasPrefix(path, root) && len(path) > len(root) && path[len(root)] == '/':
			rel = path[len(root)+1:]
		default:
			continue
		}
		// Names are compared case-insensitively (Unicode simple folding):
		// on a case-insensitive file system (macOS, Windows, casefold
		// folders) ".ADMIT/policy.json" and ".Git/config" are the same
		// files as ".admit/policy.json" and ".git/config".
		parts := strings.Split(foldName(rel), "/")
		if parts[0] == ".admit" {
			return Protection{Protected: true, Why: "files under .admit/ hold the gate's own policy, which an agent never changes"}
		}
		if parts[0] == ".github" && (len(parts) == 1 || parts[1] == "workflows" || parts[1] == "actions") {
			return Protection{Protected: true, Ask: true, Why: ".github/workflows/ and .github/actions/ hold CI workflows and the local actions they run"}
		}
		for i, p := range parts {
			if why := askDir(p); why != "" {
				return Protection{Protected: true, Ask: true, Why: p + "/: " + why}
			}
			if i == len(parts)-1 {
				if why := askName(p); why != "" {
					return Protection{Protected: true, Ask: true, Why: p + ": " + why}
				}
			}
		}
		return Protection{}
	}
	return Protection{}
}

// foldName maps every letter of s to the lower case of its fold class,
// so that names a case-insensitive file system takes for ".git" (".GIT",
// ".Git", and with U+017F also ".vſcode") compare
// equal to the protected ones.
func foldName(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 || ('A' <= s[i] && s[i] <= 'Z') {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		b.WriteRune(simpleLower(r))
	}
	return b.String()
}

// simpleLower is the lower case of the smallest rune in r's simple
// case-folding orbit: "a" for "A", "s" for U+017F (long s), "k" for
// U+212A (Kelvin sign).
func simpleLower(r rune) rune {
	low := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		low = min(low, f)
	}
	return unicode.ToLower(low)
}
