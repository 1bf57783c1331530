package workspace

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRun runs git in dir with no configuration but the repository's.
func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH"),
		"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b"}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// nestedRepo makes a repository with a nested one committed inside it
// (a gitlink in the index) whose own configuration sets core.fsmonitor.
func nestedRepo(t *testing.T, initArgs ...string) (root, marker string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root = tempRoot(t)
	marker = filepath.Join(tempRoot(t), "RAN")
	gitRun(t, root, append([]string{"init", "-q"}, initArgs...)...)
	evil := filepath.Join(root, "vendor", "evil")
	mkdirAll(t, evil)
	gitRun(t, evil, append([]string{"init", "-q"}, initArgs...)...)
	gitRun(t, evil, "commit", "-q", "--allow-empty", "-m", "x")
	gitRun(t, root, "add", "vendor/evil")
	gitRun(t, evil, "config", "core.fsmonitor", "touch '"+marker+"'; false")
	return root, marker
}

// A nested repository tracked as a gitlink is looked into by git status
// in the outer one, which runs git there with the nested configuration:
// its core.fsmonitor runs. GitExec reports it.
func TestGitExecNestedRepository(t *testing.T) {
	root, marker := nestedRepo(t)
	r := NewResolver(mustRoots(t, root))
	got := r.GitExec(root)
	if !strings.Contains(got, "vendor/evil") || !strings.Contains(got, "core.fsmonitor") {
		t.Errorf("GitExec = %q", got)
	}
	if files := r.GitConfigFiles(root); !contains(files, filepath.Join(root, "vendor/evil/.git/config")) {
		t.Errorf("GitConfigFiles = %q", files)
	}
	// The premise: git status in the outer repository runs it.
	cmd := exec.Command("git", "status")
	cmd.Dir, cmd.Env = root, []string{"HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH")}
	_ = cmd.Run()
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("the premise failed: git status did not run the nested repository's fsmonitor")
	}
}

// The index is read in every format git writes: version 4 (compressed
// paths) and SHA-256 object names.
func TestGitExecNestedRepositoryIndexFormats(t *testing.T) {
	t.Run("index version 4", func(t *testing.T) {
		root, _ := nestedRepo(t)
		writeFile(t, filepath.Join(root, "a/long/path/one.txt"), "x")
		writeFile(t, filepath.Join(root, "a/long/path/two.txt"), "x")
		gitRun(t, root, "add", "a")
		gitRun(t, root, "update-index", "--index-version", "4")
		if got := NewResolver(mustRoots(t, root)).GitExec(root); !strings.Contains(got, "vendor/evil") {
			t.Errorf("GitExec = %q", got)
		}
	})
	t.Run("sha256", func(t *testing.T) {
		if out, err := exec.Command("git", "init", "-q", "--object-format=sha256", t.TempDir()).CombinedOutput(); err != nil {
			t.Skipf("this git has no SHA-256 repositories: %s", out)
		}
		root, _ := nestedRepo(t, "--object-format=sha256")
		if got := NewResolver(mustRoots(t, root)).GitExec(root); !strings.Contains(got, "vendor/evil") {
			t.Errorf("GitExec = %q", got)
		}
	})
}

func TestGitExecNestedRepositoryEdges(t *testing.T) {
	t.Run("a gitlink not checked out is not looked into", func(t *testing.T) {
		root, _ := nestedRepo(t)
		if err := os.RemoveAll(filepath.Join(root, "vendor/evil/.git")); err != nil {
			t.Fatal(err)
		}
		if got := NewResolver(mustRoots(t, root)).GitExec(root); got != "" {
			t.Errorf("GitExec = %q", got)
		}
	})
	t.Run("a clean nested repository", func(t *testing.T) {
		root, _ := nestedRepo(t)
		gitRun(t, filepath.Join(root, "vendor/evil"), "config", "--unset", "core.fsmonitor")
		if got := NewResolver(mustRoots(t, root)).GitExec(root); got != "" {
			t.Errorf("GitExec = %q", got)
		}
	})
	t.Run("an index that cannot be read fails closed", func(t *testing.T) {
		root, _ := nestedRepo(t)
		if err := os.WriteFile(filepath.Join(root, ".git/index"), []byte("DIRC\x00\x00\x00\x09garbage"), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := NewResolver(mustRoots(t, root)).GitExec(root); !strings.Contains(got, "index") {
			t.Errorf("GitExec = %q", got)
		}
	})
	t.Run("a truncated index fails closed", func(t *testing.T) {
		root, _ := nestedRepo(t)
		data, err := os.ReadFile(filepath.Join(root, ".git/index"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, ".git/index"), data[:30], 0o644); err != nil {
			t.Fatal(err)
		}
		if got := NewResolver(mustRoots(t, root)).GitExec(root); !strings.Contains(got, "index") {
			t.Errorf("GitExec = %q", got)
		}
	})
	t.Run("a nested repository's include is a config file of the outer one", func(t *testing.T) {
		root, _ := nestedRepo(t)
		evil := filepath.Join(root, "vendor/evil")
		gitRun(t, evil, "config", "--unset", "core.fsmonitor")
		gitRun(t, evil, "config", "include.path", "../../../shared.cfg")
		if files := NewResolver(mustRoots(t, root)).GitConfigFiles(root); !contains(files, filepath.Join(root, "shared.cfg")) {
			t.Errorf("GitConfigFiles = %q", files)
		}
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// FuzzReadGitlinks reads whatever an index file holds: no panic, and
// every gitlink path it returns is relative and climbs nowhere.
func FuzzReadGitlinks(f *testing.F) {
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x00"))
	f.Add([]byte("DIRC\x00\x00\x00\x04\x00\x00\x00\x01" + strings.Repeat("\x00", 62) + "\x00a\x00"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "index")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, hl := range []int{20, 32} {
			links, _ := readGitlinks(p, hl)
			for _, l := range links {
				if strings.HasPrefix(l, "/") || strings.Contains(l, "..") {
					t.Fatalf("gitlink %q", l)
				}
			}
		}
	})
}
