package command

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Protection outcomes in the tables.
const (
	refused = "refused"
	asked   = "ask"
	free    = ""
)

func protection(pr Protection) string {
	switch {
	case !pr.Protected:
		return free
	case pr.Ask:
		return asked
	}
	return refused
}

func checkProtect(t *testing.T, p string, roots []string, personal *Personal, want string) {
	t.Helper()
	pr := ProtectFor(p, roots, personal)
	if got := protection(pr); got != want {
		t.Errorf("ProtectFor(%q) = %q (%s), want %q", p, got, pr.Why, want)
	}
	if pr.Protected && pr.Why == "" {
		t.Errorf("ProtectFor(%q): protected without a reason", p)
	}
}

// Every class the protected list names, at the root and deeper.
func TestProtectClasses(t *testing.T) {
	roots := []string{"/w"}
	cases := map[string][]string{
		refused: {
			"/w", "/w/.admit", "/w/.admit/policy.json", "/w/.admit/x/y",
			"/w/sub/.admit/policy.json", "/w/a/b/c/d/.admit", "/w/node_modules/x/.admit/policy.json",
		},
		asked: {
			// git and what it reads from the work tree
			"/w/.git/config", "/w/.git/hooks/pre-commit", "/w/sub/.git/config", "/w/vendor/x/.git", "/w/.gitattributes",
			"/w/src/.gitattributes", "/w/.gitmodules", "/w/.lfsconfig",
			// hook managers, all spellings, -local overrides, script folders
			"/w/.husky/pre-commit", "/w/.githooks/pre-commit", "/w/.git-hooks/pre_commit/x.rb", "/w/lefthook.yml",
			"/w/.lefthook.yml", "/w/lefthook.yaml", "/w/lefthook.toml", "/w/.lefthook.json", "/w/lefthook.jsonc",
			"/w/lefthook-local.yml", "/w/.lefthook-local.yaml", "/w/lefthook-local.toml", "/w/.config/lefthook.yml",
			"/w/.config/lefthook-local.json", "/w/.lefthook/pre-commit/lint.sh", "/w/.lefthook-local/pre-push/x",
			"/w/.pre-commit-config.yaml", "/w/.pre-commit-config.yml", "/w/.pre-commit-hooks.yaml",
			"/w/.simple-git-hooks.json", "/w/.simple-git-hooks.cjs", "/w/simple-git-hooks.js", "/w/simple-git-hooks.mjs",
			"/w/.overcommit.yml", "/w/.rusty-hook.toml", "/w/.cargo-husky/hooks/pre-commit", "/w/hk.pkl", "/w/captainhook.json",
			"/w/packages/app/lefthook.yml",
			// CI
			"/w/.github/workflows/ci.yml", "/w/.github/actions/setup/action.yml", "/w/sub/.github/workflows/x.yml",
			"/w/.gitlab-ci.yml", "/w/.circleci/config.yml", "/w/.travis.yml", "/w/azure-pipelines.yml", "/w/.buildkite/pipeline.yml",
			"/w/Jenkinsfile", "/w/bitbucket-pipelines.yml", "/w/.drone.yml", "/w/.woodpecker.yml", "/w/.woodpecker/ci.yml",
			"/w/.forgejo/workflows/x.yml", "/w/.gitea/workflows/x.yml",
			// editors, containers, the folder's environment
			"/w/.vscode/settings.json", "/w/.vscode/tasks.json", "/w/.vscode/mcp.json", "/w/app.code-workspace", "/w/.idea/workspace.xml",
			"/w/.zed/settings.json", "/w/.zed/tasks.json", "/w/.devcontainer.json", "/w/.devcontainer/devcontainer.json",
			"/w/.devcontainer/py/devcontainer.json", "/w/.envrc", "/w/sub/.envrc", "/w/.nvim.lua", "/w/.exrc",
			// every agent's hook and MCP files
			"/w/.claude/settings.json", "/w/.claude/settings.local.json", "/w/.mcp.json", "/w/sub/.mcp.json",
			"/w/.codex/config.toml", "/w/.codex/hooks.json", "/w/.gemini/settings.json",
			"/w/.cursor/mcp.json", "/w/.cursor/hooks.json", "/w/.windsurf/hooks.json",
			"/w/.clinerules/hooks/PreToolUse", "/w/.cline/hooks/PreToolUse", "/w/.cline/plugins/x.ts",
			"/w/.kiro/settings/mcp.json", "/w/.kiro/hooks/lint.kiro.hook", "/w/.kiro/agents/x.json",
			"/w/.amazonq/mcp.json", "/w/.amazonq/agents/default.json", "/w/.amazonq/cli-agents/dev.json",
			"/w/.roo/mcp.json", "/w/.roomodes", "/w/.continue/mcpServers/x.yaml", "/w/.continue/config.yaml",
			"/w/opencode.json", "/w/opencode.jsonc", "/w/.opencode/plugins/x.ts", "/w/.opencode/opencode.jsonc",
			"/w/.github/hooks/admit.json", "/w/.github/copilot/settings.json", "/w/.github/copilot/settings.local.json",
			"/w/.github/agents/reviewer.agent.md", "/w/.github/mcp.json", "/w/.aider.conf.yml",
			// package managers and toolchains that run or fetch code
			"/w/.npmrc", "/w/packages/a/.npmrc", "/w/.yarnrc", "/w/.yarnrc.yml", "/w/.pnpmfile.cjs", "/w/bunfig.toml",
			"/w/.cargo/config.toml", "/w/crates/x/.cargo/config", "/w/rust-toolchain.toml", "/w/rust-toolchain",
			"/w/mise.toml", "/w/.mise.toml", "/w/mise.local.toml", "/w/.mise.local.toml", "/w/mise.dev.toml",
			"/w/mise.dev.local.toml", "/w/.config/mise.toml", "/w/.config/mise/config.toml", "/w/.config/mise/conf.d/x.toml",
			"/w/.mise/config.toml", "/w/mise/config.toml", "/w/.tool-versions", "/w/sub/.tool-versions",
			"/w/pip.conf", "/w/.venv/pip.conf", "/w/uv.toml", "/w/gradle/wrapper/gradle-wrapper.properties",
			"/w/.mvn/extensions.xml", "/w/.mvn/wrapper/maven-wrapper.properties",
			// Python start-up files in a virtual environment, either layout
			"/w/.venv/lib/python3.12/site-packages/evil.pth", "/w/venv/Lib/site-packages/x.pth",
			"/w/env/lib/python3/dist-packages/y.pth", "/w/.venv/lib/python3.12/site-packages/sitecustomize.py",
			"/w/.venv/lib/python3.12/site-packages/usercustomize.py", "/w/.venv/pyvenv.cfg",
			// folders that hold a protected place
			"/w/.github", "/w/.kiro", "/w/.amazonq", "/w/.clinerules", "/w/gradle", "/w/.venv/lib/python3.12/site-packages",
		},
		free: {
			"/w-evil/.admit/x", "/elsewhere/.git/config", "/w/src/admit.go", "/w/docs/.admitted", "/w/.admitrc", "/w/admit/x",
			"/w/Admit/x", "/w/package.json", "/w/package-lock.json", "/w/go.mod", "/w/Cargo.toml", "/w/pyproject.toml",
			"/w/README.md", "/w/.gitignore", "/w/src/.gitignore", "/w/gitconfig", "/w/.github/CODEOWNERS",
			"/w/.github/ISSUE_TEMPLATE/bug.md", "/w/.github/dependabot.yml", "/w/.github/copilot-instructions.md",
			"/w/.kiro/specs/login/design.md", "/w/.kiro/steering/product.md", "/w/.amazonq/rules/style.md",
			"/w/.clinerules/style.md", "/w/.roo/rules/x.md", "/w/CLAUDE.md", "/w/AGENTS.md", "/w/.cursorrules",
			"/w/.venv/lib/python3.12/site-packages/foo/__init__.py", "/w/lib/x.pth", "/w/src/site.pth.txt",
			"/w/gradle/libs.versions.toml", "/w/.config/nvim/init.lua", "/w/.config/other.toml", "/w/mise-tasks/build",
			"/w/docs/mise.md", "/w/notes.txt~", "/w/file~1.txt", "/w/.env", "/w/src/.npmrc.md", "/w/.npmrc.d/x",
			"/w/lefthook", "/w/src/lefthook.go", "/w/config.toml", "/w/.cargo/registry/x", "/w/node_modules/x/index.js",
		},
	}
	n := 0
	for want, paths := range cases {
		for _, p := range paths {
			checkProtect(t, p, roots, nil, want)
			n++
		}
	}
	if n < 180 {
		t.Errorf("only %d cases", n)
	}
	// The refusal of .admit wins over an ask around it.
	if pr := Protect("/w/.git/x/.admit/policy.json", roots); pr.Ask || !pr.Protected {
		t.Errorf(".admit inside .git: %+v, want refused", pr)
	}
	// Several roots, and a root at /.
	checkProtect(t, "/b/.admit/x", []string{"/a", "/b"}, nil, refused)
	checkProtect(t, "/x/.git/config", []string{"/"}, nil, asked)
}

// Spellings an attacker uses for the same file: case, the names Windows
// and macOS take for equal, short names, and path noise.
func TestProtectSpellings(t *testing.T) {
	roots := []string{"/w"}
	for want, paths := range map[string][]string{
		refused: {
			"/w/.ADMIT/policy.json", "/w/.Admit/x", "/w/sub/.aDmIt/policy.json", "/w/.admit./policy.json",
			"/w/.admit /policy.json", "/w/.admit. . /policy.json", "/w/.admit::$INDEX_ALLOCATION/policy.json",
			"/w/.admit:stream", "/w/.ad\u200cmit/policy.json", "/w/.\ufeffadmit/x", "/w/ADMIT~1/policy.json",
			"/w/admit~2/x", "/w/AD3F2C~1/policy.json", "/w/./.admit/policy.json", "/w//.admit//policy.json",
			"/w/src/../.admit/x", "/w/.admit/", "/w/src/./../sub/.ADMIT./p", "w/.admit/policy.json", "",
		},
		asked: {
			"/w/.GIT/config", "/w/.Git/hooks/pre-commit", "/w/.git./hooks/pre-commit", "/w/.git::$INDEX_ALLOCATION/config",
			"/w/.g\u200dit/config", "/w/GIT~1/config", "/w/.VSCode/settings.json", "/w/.vſcode/tasks.json",
			"/w/.ENVRC", "/w/.GitHub/Workflows/ci.yml", "/w/GITHUB~1/WORKFL~1/ci.yml", "/w/DEVCON~1.JSO",
			"/w/LEFTHOOK.YML", "/w/.Lefthook-Local.Yml", "/w/.NPMRC", "/w/.npmrc.", "/w/.Cargo/Config.toml",
			"/w/.venv/Lib/Site-Packages/EVIL.PTH", "/w/MISE.TOML", "/w/.Tool-Versions", "/w/.Claude/Settings.json",
			"/w/.KIRO/hooks/x", "/w/OpenCode.json", "/w/JENKINSFILE", "/w//.github//hooks//admit.json",
		},
	} {
		for _, p := range paths {
			checkProtect(t, p, roots, nil, want)
		}
	}
}

func TestPersonalPlaces(t *testing.T) {
	env := map[string]string{"XDG_CONFIG_HOME": "/cfg", "XDG_STATE_HOME": "relative/ignored", "XDG_RUNTIME_DIR": "/run/user/1"}
	ps := PersonalPlaces("/home/u", func(k string) string { return env[k] })
	has := map[string]bool{}
	for _, p := range ps {
		has[p.Path] = true
		if p.What == "" || !filepath.IsAbs(p.Path) {
			t.Errorf("place %+v", p)
		}
	}
	for _, want := range []string{"/cfg/admit", "/home/u/.local/state/admit", "/home/u/.local/share/admit", "/run/user/1/admit",
		"/cfg/Code/User", "/home/u/.vscode/extensions", "/home/u/.claude", "/cfg/opencode", "/home/u/.aws/amazonq"} {
		if !has[want] {
			t.Errorf("PersonalPlaces lacks %s", want)
		}
	}
	if has["/home/u/.config/admit"] {
		t.Error("XDG_CONFIG_HOME was not honoured")
	}

	// The person works in their home folder: their own places are refused,
	// not asked, even where the workspace rule would ask (.claude).
	def := NewPersonal(PersonalPlaces("/home/u", nil))
	roots := []string{"/home/u"}
	for want, paths := range map[string][]string{
		refused: {
			"/home/u/.config/admit/rules.json", "/home/u/.config/admit", "/home/u/.local/state/admit/tape.jsonl.head",
			"/home/u/.local/share/admit/tape-seal/key", "/home/u/.config/Code/User/settings.json",
			"/home/u/.config/Code/User/globalStorage/x/mcp.json", "/home/u/.vscode/extensions/admit-0.1/out/extension.js",
			"/home/u/.vscode-server/data/Machine/settings.json", "/home/u/.claude/settings.json", "/home/u/.claude.json",
			"/home/u/.copilot/hooks/admit.json", "/home/u/.codex/hooks.json", "/home/u/.gemini/settings.json",
			"/home/u/.codeium/windsurf/hooks.json", "/home/u/Documents/Cline/Hooks/PreToolUse",
			// folders that hold them, and other spellings
			"/home/u/.config", "/home/u/.local", "/home/u/.local/state", "/home/u/.CONFIG/admit/x", "/home/u/.config/ADMIT./x",
			"/home/u/Library/Application Support/Code/User/settings.json",
		},
		asked: {"/home/u/src/.git/config", "/home/u/proj/.vscode/settings.json"},
		free:  {"/home/u/src/a.go", "/home/u/.config/other/x", "/home/u/.local/share/other", "/home/u/.bashrc", "/home/u/Documents/notes.md"},
	} {
		for _, p := range paths {
			checkProtect(t, p, roots, def, want)
		}
	}
	// Outside every root too (a write root beyond the workspace).
	checkProtect(t, "/home/u/.config/admit/rules.json", []string{"/w"}, def, refused)
	checkProtect(t, "/home/u/.config/admit/rules.json", []string{"/w"}, nil, free)
	if len(PersonalPlaces("", nil)) != 0 || len(PersonalPlaces("relative", nil)) != 0 {
		t.Error("a home that is not absolute adds no home places")
	}
}

// Through the door: command lines an agent sends, judged against a real
// workspace, end refused or asked; ordinary writes stay allowed.
func TestProtectThroughCommands(t *testing.T) {
	w := newWorkspace(t)
	for name, target := range map[string]string{"ws/gh-link": ".github", "ws/pth-dir": ".venv/lib/python3.12/site-packages"} {
		must(t, os.Symlink(target, filepath.Join(w.base, name)))
	}
	for _, f := range []string{"ws/.venv/lib/python3.12/site-packages/ok.py", "ws/sub/x.txt", "ws/node_modules/x/index.js", "ws/package.json"} {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(w.base, f)), 0o755))
		must(t, os.WriteFile(filepath.Join(w.base, f), []byte("x\n"), 0o644))
	}
	p := New(nil)
	const all = "d:. d:sub d:node_modules d:node_modules/x d:.venv d:.venv/lib d:.venv/lib/python3.12 d:.venv/lib/python3.12/site-packages d:.github d:.github/workflows d:.git d:src d:docs f:package.json"
	cases := []cmdCase{
		{"a nested policy", "mkdir -p sub/.admit", W, all, prot},
		{"a nested policy file", "echo '{}' > sub/.admit/policy.json", W, all, prot},
		{"a package's policy", "mkdir node_modules/x/.admit", W, all, prot},
		{"upper case", "echo x > .ADMIT/policy.json", W, all, prot},
		{"a trailing dot", "echo x > .admit./policy.json", W, all, prot},
		{"a trailing space", "echo x > '.admit /policy.json'", W, all, prot},
		{"path noise", "echo x > ./.admit//policy.json", W, all, prot},
		{"a stream name", "echo x > '.admit::$INDEX_ALLOCATION'", W, all, prot},
		{"a short name", "mkdir ADMIT~1", W, all, prot},
		{"a file named .aDmIt", "touch .aDmIt", W, all, prot},
		{"a copy of a folder as .admit", "cp -r docs .admit", W, all, prot},
		{"mv a folder onto .Admit", "mv docs .Admit", W, all, prot},
		{"cp into a nested .admit", "cp a.txt sub/.AdMiT/policy.json", W, all, prot},
		{"a link into .admit", "echo x > link-admit", W, all, prot},
		{"git hooks in another case", "cp a.txt .Git/hooks/pre-commit", W, all, askP},
		{"a lefthook local override", "echo x > lefthook-local.yml", W, all, askP},
		{"a .pth file", "echo 'import os' > .venv/lib/python3.12/site-packages/evil.pth", W, all, askP},
		{"a .pth file through a link", "echo 'import os' > pth-dir/evil.pth", W, all, askP},
		{"a workflow through a link to .github", "echo x > gh-link/workflows/ci.yml", W, all, askP},
		{"an npmrc in a package", "echo x > sub/.npmrc", W, all, askP},
		{"an MCP file of an agent", "echo '{}' > .roo/mcp.json", W, all, askP},
		{"Copilot's hooks", "mkdir -p .github/hooks", W, all, askP},
		{"an ordinary file", "echo x > src/admit.go", W, all, ok},
		{"a name like .admit", "echo x > docs/.admitted", W, all, ok},
		{"package.json", "echo '{}' > package.json", W, all, ok},
		{"a module file in the venv", "echo x > .venv/lib/python3.12/site-packages/new.py", W, all, ok},
		{"a file in a package", "echo x > node_modules/x/new.js", W, all, ok},
	}
	for _, c := range cases {
		d := p.Evaluate(w.expand(c.line), w.ws, w.context(c.write, c.obs))
		checkDecision(t, w, c, d)
	}

	// The person's own places, with the home folder as the workspace.
	home := filepath.Join(w.base, "home")
	for _, f := range []string{".config/admit/rules.json", ".vscode/extensions/a/x.js", "src/a.go"} {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(home, f)), 0o755))
		must(t, os.WriteFile(filepath.Join(home, f), []byte("x\n"), 0o644))
	}
	ctx := &Context{Roots: []string{home}, Effects: WorkspaceWrite, Home: home, FS: newTestFS(home),
		Obs: (&workspace{ws: home}).obs("d:. d:.config d:.config/admit d:.vscode d:.vscode/extensions d:.vscode/extensions/a d:src")}
	for _, c := range []cmdCase{
		{"the person's rules", "echo x > .config/admit/rules.json", W, "", prot},
		{"the person's rules, by tilde", "echo x > ~/.config/admit/rules.json", W, "", prot},
		{"the gate's extension", "echo x > .vscode/extensions/a/x.js", W, "", prot},
		{"removing the config folder", "rm -r .config", W, "", prot},
		{"an ordinary file at home", "echo x > src/a.go", W, "", ok},
	} {
		d := p.Evaluate(c.line, home, ctx)
		got := string(d.Rule)
		if d.Ask {
			got = "ask:" + got
		}
		if got != c.want {
			t.Errorf("%s: %q: got %s (%s), want %s", c.note, c.line, got, d.Reason, c.want)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func BenchmarkProtect(b *testing.B) {
	roots := []string{"/home/u/src/project"}
	personal := NewPersonal(PersonalPlaces("/home/u", nil))
	paths := []string{"/home/u/src/project/src/pkg/file.go", "/home/u/src/project/.github/workflows/ci.yml", "/home/u/src/project/node_modules/a/b/c/index.js"}
	for b.Loop() {
		for _, p := range paths {
			ProtectFor(p, roots, personal)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(paths)), "ns/path")
}

func TestProtectReasonsNameThePlace(t *testing.T) {
	for p, want := range map[string]string{
		"/w/sub/.admit/policy.json":                  ".admit/: it holds the gate's own policy",
		"/w/.github":                                 ".github/ holds .github/workflows",
		"/w/a/.venv/lib/python3/site-packages/x.pth": "site-packages/x.pth: Python runs it",
		"/w/.Kiro/Hooks/x":                           ".Kiro/Hooks/: a coding agent's own settings",
	} {
		if pr := Protect(p, []string{"/w"}); !strings.Contains(pr.Why, want) {
			t.Errorf("Protect(%q).Why = %q, want it to say %q", p, pr.Why, want)
		}
	}
}

// BenchmarkEvaluateWritePersonal is BenchmarkEvaluateWrite with the
// person's places made ready once, as the gate does.
func BenchmarkEvaluateWritePersonal(b *testing.B) {
	w := newWorkspace(b)
	p := New(nil)
	c := w.context(true, "d:. d:build")
	c.Personal = NewPersonal(PersonalPlaces(c.Home, nil))
	lines := []string{"mkdir -p build/out", "echo hi > out.txt", "rm -f build/x.o", "cp a.txt a.bak"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		p.Evaluate(lines[i%len(lines)], w.ws, c)
	}
}

// FuzzProtect checks properties of Protect over any path below a root:
// it never panics, path noise and case never change the outcome, and a
// path with a folder spelled as .admit is refused.
func FuzzProtect(f *testing.F) {
	for _, s := range []string{".admit/policy.json", "sub/.ADMIT./x", ".git/hooks/pre-commit", "src/a.go", "ADMIT~1/x",
		".venv/lib/python3.12/site-packages/x.pth", "a//b/./c", ".admit::$DATA", "lefthook-local.yml", "x/../.admit"} {
		f.Add(s)
	}
	roots := []string{"/w"}
	f.Fuzz(func(t *testing.T, rel string) {
		if strings.ContainsRune(rel, 0) {
			return
		}
		p := "/w/" + rel
		got := Protect(p, roots)
		if noisy := Protect("/w/./"+strings.ReplaceAll(rel, "/", "//"), roots); protection(noisy) != protection(got) {
			t.Fatalf("%q is %q but with ./ and // %q", p, protection(got), protection(noisy))
		}
		if up := strings.ToUpper(rel); isASCII(rel) && protection(Protect("/w/"+up, roots)) != protection(got) {
			t.Fatalf("%q is %q but %q is %q", p, protection(got), up, protection(Protect("/w/"+up, roots)))
		}
		clean := strings.TrimPrefix(filepath.Clean(p), "/w/")
		if strings.HasPrefix(filepath.Clean(p), "/w/") {
			for _, n := range strings.Split(clean, "/") {
				if canonicalName(n) == ".admit" && protection(got) != refused {
					t.Fatalf("%q holds .admit but is %q", p, protection(got))
				}
			}
		}
	})
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// TestRootNames: every name RootNames gives is protected at a root, none
// is a pattern, and the folders whose empty presence means something
// are left out.
func TestRootNames(t *testing.T) {
	roots := []string{"/w"}
	folders, files := RootNames()
	for _, n := range []string{".vscode", ".git", ".admit", ".github", ".devcontainer", ".cargo"} {
		if !slices.Contains(folders, n) {
			t.Errorf("folder %s missing: %v", n, folders)
		}
	}
	for _, n := range []string{".envrc", ".npmrc", ".mcp.json"} {
		if !slices.Contains(files, n) {
			t.Errorf("file %s missing: %v", n, files)
		}
	}
	for _, n := range append(slices.Clone(folders), files...) {
		if strings.ContainsAny(n, "*/") || !Protect("/w/"+n, roots).Protected {
			t.Errorf("%q: not a protected name", n)
		}
	}
	// A protected folder's children are protected; a folder that holds
	// a protected place is kept whole when it exists, and so is made.
	for _, p := range []string{".vscode/tasks.json", ".git/hooks/pre-commit", ".github/workflows", ".admit/policy.json"} {
		if n, _, _ := strings.Cut(p, "/"); !slices.Contains(folders, n) || !Protect("/w/"+p, roots).Protected {
			t.Errorf("%s: not kept by the folder %s", p, n)
		}
	}
	for _, n := range []string{".mvn", "site-packages", "dist-packages"} {
		if slices.Contains(folders, n) {
			t.Errorf("%s: an empty one means something, or nothing at a root", n)
		}
	}
}

// FuzzCanonicalPath: the whole-path shortcut of canonicalPath spells every
// path as canonicalName does name by name.
func FuzzCanonicalPath(f *testing.F) {
	for _, s := range []string{"/Home/U/.SSH/id_rsa", "/w/.admit. /x", "/w/a:b/C", "/w/.Git\u200c/config", "/a/b.", "/a/ b /c", "/", "/../A", "/W/x.", "/x/\u212a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if !strings.HasPrefix(p, "/") {
			return
		}
		names := strings.Split(path.Clean(p), "/")
		for i, n := range names {
			names[i] = canonicalName(n)
		}
		if want, got := strings.Join(names, "/"), canonicalPath(p); got != want {
			t.Fatalf("canonicalPath(%q) = %q, name by name %q", p, got, want)
		}
	})
}

// FuzzCleanPath: cleanPath is path.Clean, parentOf path.Dir.
func FuzzCleanPath(f *testing.F) {
	for _, s := range []string{"", "/", "//", "/a", "/a/", "a", ".", "..", "../a", "a/..", "/a/./b", "/a//b", "/a/b/..", "/.a/..b/c.", "./a", "/..", "a/b/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if got, want := cleanPath(p), path.Clean(p); got != want {
			t.Fatalf("cleanPath(%q) = %q, path.Clean %q", p, got, want)
		}
		if got, want := parentOf(p), path.Dir(p); got != want {
			t.Fatalf("parentOf(%q) = %q, path.Dir %q", p, got, want)
		}
	})
}

// FuzzAppendCanonical: appendCanonical of a clean path appends canonicalPath.
func FuzzAppendCanonical(f *testing.F) {
	for _, s := range []string{"/Home/U/.SSH/id_rsa", "/w/.admit. /x", "/w/a:b/C", "/", "/a/../B", "/x/\u212a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if got, want := string(appendCanonical([]byte("x"), path.Clean(p))), "x"+canonicalPath(p); got != want {
			t.Fatalf("appendCanonical(%q) = %q, canonicalPath %q", p, got, want)
		}
	})
}
