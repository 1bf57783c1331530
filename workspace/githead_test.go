package workspace

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"admit/policy/command"
)

// realRepo makes a repository with git itself: one commit on main, a
// folder src.
func realRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mkdirAll(t, filepath.Join(root, "src"))
	writeFile(t, filepath.Join(root, "src", "a.txt"), "a\n")
	runGit(t, root, "init", "-q", "-b", "main", ".")
	runGit(t, root, "add", ".")
	runGit(t, root, "-c", "user.name=a", "-c", "user.email=a@example.com", "commit", "-q", "-m", "first")
	return root
}

func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSuffix(string(out), "\n")
}

// TestGitHeadMatchesGit checks the values read from the files against
// what git prints, on a branch, on a branch with a slash after its refs
// were packed, and detached.
func TestGitHeadMatchesGit(t *testing.T) {
	root := realRepo(t)
	r := NewResolver(mustRoots(t, root))
	check := func(state string) {
		t.Helper()
		for _, dir := range []string{root, filepath.Join(root, "src")} {
			h := r.GitHead(dir)
			if want := runGit(t, dir, "rev-parse", "--show-toplevel"); h.Top != want {
				t.Errorf("%s: Top = %q, git says %q", state, h.Top, want)
			}
			if want := runGit(t, dir, "branch", "--show-current"); h.Branch != want || h.OnBranch != (want != "") {
				t.Errorf("%s: Branch = %q (on a branch %v), git says %q", state, h.Branch, h.OnBranch, want)
			}
			if want := runGit(t, dir, "rev-parse", "HEAD"); h.Commit != want {
				t.Errorf("%s: Commit = %q, git says %q", state, h.Commit, want)
			}
		}
	}
	check("main")
	runGit(t, root, "checkout", "-q", "-b", "feature/x-1")
	runGit(t, root, "pack-refs", "--all")
	if _, err := os.Lstat(filepath.Join(root, ".git", "refs", "heads", "feature", "x-1")); err == nil {
		t.Fatal("pack-refs left the loose ref")
	}
	check("packed feature/x-1")
	runGit(t, root, "checkout", "-q", "--detach")
	check("detached")
}

// TestKnownOutputsMatchBash judges lines with the policy over a real
// repository and checks each word it took from a known output against what
// bash prints for the same command there.
func TestKnownOutputsMatchBash(t *testing.T) {
	root := realRepo(t)
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	r := NewResolver(mustRoots(t, root))
	p := command.New(nil)
	dir := filepath.Join(root, "src")
	for _, inner := range []string{
		"pwd", "git rev-parse --show-toplevel", "git branch --show-current", "git rev-parse --abbrev-ref HEAD",
		"git rev-parse HEAD", "git rev-parse --verify HEAD", "git rev-parse --short HEAD", "nproc", "id -u", "id -g",
		"uname -s", "uname -m", "date +%F", "date -u +%Y%m%d", "date +v%Y.%m",
	} {
		// cat, not echo: a printed "$(LIST)" is judged as LIST itself,
		// an operand takes the known output as its word.
		line := `cat "$(` + inner + `)"`
		d := p.Evaluate(line, dir, &command.Context{Roots: []string{root}, FS: r})
		if !d.Allowed || d.Script == nil {
			t.Errorf("%s: %s (%s)", line, d.Rule, d.Reason)
			continue
		}
		cmd := exec.Command("bash", "-c", inner)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "PWD="+dir)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("bash -c %q: %v", inner, err)
		}
		if got, want := d.Script.Commands[0].Argv[1], strings.TrimRight(string(out), "\n"); got != want {
			t.Errorf("$(%s): judged as %q, bash prints %q", inner, got, want)
		}
	}
}

// TestGitHeadHostile: whatever a repository's files could make lie is
// left unknown.
func TestGitHeadHostile(t *testing.T) {
	const commit = "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, root, outside string)
		want  command.GitHead
	}{
		{"plain", func(t *testing.T, root, _ string) {}, command.GitHead{Top: "ROOT", Branch: "main", OnBranch: true, Commit: commit}},
		{"branch like an option", func(t *testing.T, root, _ string) {
			writeFile(t, root+"/.git/HEAD", "ref: refs/heads/--output=x\n")
		}, command.GitHead{Top: "ROOT"}},
		{"branch with a blank", func(t *testing.T, root, _ string) {
			writeFile(t, root+"/.git/HEAD", "ref: refs/heads/a b\n")
		}, command.GitHead{Top: "ROOT"}},
		{"branch with a substitution", func(t *testing.T, root, _ string) {
			writeFile(t, root+"/.git/HEAD", "ref: refs/heads/$(touch M)\n")
		}, command.GitHead{Top: "ROOT"}},
		{"branch with a dotted part", func(t *testing.T, root, _ string) {
			writeFile(t, root+"/.git/HEAD", "ref: refs/heads/a/../b\n")
		}, command.GitHead{Top: "ROOT"}},
		{"two lines", func(t *testing.T, root, _ string) {
			writeFile(t, root+"/.git/HEAD", "ref: refs/heads/main\nref: refs/heads/x\n")
		}, command.GitHead{}},
		{"no newline", func(t *testing.T, root, _ string) {
			writeFile(t, root+"/.git/HEAD", "ref: refs/heads/main")
		}, command.GitHead{}},
		{"garbage, which git takes for no repository", func(t *testing.T, root, _ string) {
			writeFile(t, root+"/.git/HEAD", "hello\n")
		}, command.GitHead{}},
		{"HEAD a link", func(t *testing.T, root, outside string) {
			writeFile(t, outside+"/HEAD", "ref: refs/heads/main\n")
			os.Remove(root + "/.git/HEAD")
			symlink(t, outside+"/HEAD", root+"/.git/HEAD")
		}, command.GitHead{}},
		{".git a link", func(t *testing.T, root, outside string) {
			os.Rename(root+"/.git", outside+"/repo.git")
			symlink(t, outside+"/repo.git", root+"/.git")
		}, command.GitHead{}},
		{".git a file", func(t *testing.T, root, outside string) {
			os.Rename(root+"/.git", outside+"/repo.git")
			writeFile(t, root+"/.git", "gitdir: "+outside+"/repo.git\n")
		}, command.GitHead{}},
		{"a linked worktree's commondir", func(t *testing.T, root, outside string) {
			writeFile(t, root+"/.git/commondir", outside+"\n")
		}, command.GitHead{}},
		{"no objects folder", func(t *testing.T, root, _ string) {
			os.Remove(root + "/.git/objects")
		}, command.GitHead{}},
		{"the ref a link", func(t *testing.T, root, outside string) {
			writeFile(t, outside+"/main", commit+"\n")
			os.Remove(root + "/.git/refs/heads/main")
			symlink(t, outside+"/main", root+"/.git/refs/heads/main")
		}, command.GitHead{Top: "ROOT", Branch: "main", OnBranch: true}},
		{"refs/heads a link", func(t *testing.T, root, outside string) {
			writeFile(t, outside+"/heads/main", commit+"\n")
			os.RemoveAll(root + "/.git/refs/heads")
			symlink(t, outside+"/heads", root+"/.git/refs/heads")
		}, command.GitHead{Top: "ROOT", Branch: "main", OnBranch: true}},
		{"the ref not hex", func(t *testing.T, root, _ string) {
			writeFile(t, root+"/.git/refs/heads/main", "--output=x\n")
		}, command.GitHead{Top: "ROOT", Branch: "main", OnBranch: true}},
		{"packed-refs a link", func(t *testing.T, root, outside string) {
			os.Remove(root + "/.git/refs/heads/main")
			writeFile(t, outside+"/packed-refs", commit+" refs/heads/main\n")
			symlink(t, outside+"/packed-refs", root+"/.git/packed-refs")
		}, command.GitHead{Top: "ROOT", Branch: "main", OnBranch: true}},
		{"packed-refs", func(t *testing.T, root, _ string) {
			os.Remove(root + "/.git/refs/heads/main")
			writeFile(t, root+"/.git/packed-refs", "# pack-refs with: peeled fully-peeled sorted\n"+commit+" refs/heads/main\n")
		}, command.GitHead{Top: "ROOT", Branch: "main", OnBranch: true, Commit: commit}},
		{"detached", func(t *testing.T, root, _ string) {
			writeFile(t, root+"/.git/HEAD", commit+"\n")
		}, command.GitHead{Top: "ROOT", Commit: commit, Detached: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			root, outside := base+"/ws", base+"/outside"
			mkdirAll(t, root+"/src")
			mkdirAll(t, outside)
			gitRepoAt(t, root, baseConfig)
			writeFile(t, root+"/.git/refs/heads/main", commit+"\n")
			tc.setup(t, root, outside)
			want := tc.want
			if want.Top == "ROOT" {
				want.Top = root
			}
			r := NewResolver(mustRoots(t, root))
			if got := r.GitHead(root + "/src"); got != want {
				t.Errorf("GitHead = %+v, want %+v", got, want)
			}
		})
	}
	t.Run("outside the roots", func(t *testing.T) {
		base, _ := filepath.EvalSymlinks(t.TempDir())
		gitRepoAt(t, base+"/repo", baseConfig)
		mkdirAll(t, base+"/repo/ws")
		r := NewResolver(mustRoots(t, base+"/repo/ws"))
		if got := r.GitHead(base + "/repo/ws"); got != (command.GitHead{}) {
			t.Errorf("a repository above the roots: GitHead = %+v, want nothing known", got)
		}
	})
}
