package workspace

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestURLCredential: a password, or a user that is a token, is a
// credential; a user name alone, scp-like and ssh addresses are not.
func TestURLCredential(t *testing.T) {
	for v, want := range map[string]bool{
		"https://dev:ghp_x@github.com/o/r.git":                           true,
		"https://ghp_0123456789abcdefghijklmnopqrstuvwxyzAB@github.com/": true,
		"https://x-access-token:abc@github.com/o/r":                      true,
		"https://oauth2:glpat-abc@gitlab.com/o/r":                        true,
		"https://glpat-abcdef@gitlab.com/o/r":                            true,
		"http://proxyuser:p%40ss@proxy:3128":                             true,
		"https://0123456789abcdef0123456789abcdef@host/r":                true,
		"https://octocat@github.com/o/r.git":                             false,
		"https://user:@github.com/o/r.git":                               false,
		"ssh://git@github.com/o/r.git":                                   false,
		"git@github.com:o/r.git":                                         false,
		"https://github.com/o/r.git":                                     false,
		"https://github.com/o/r@v1":                                      false,
		"":                                                               false,
	} {
		if got := urlCredential(v); got != want {
			t.Errorf("urlCredential(%q) = %v, want %v", v, got, want)
		}
	}
}

// TestGitCredentials: credentials are found in the repository's config,
// in a file it includes, through a .git file's gitdir and a linked
// worktree's common folder, and named without the credential; a
// configuration without any lists none; the person's URL rewrite counts
// where it applies to one of the repository's remotes.
func TestGitCredentials(t *testing.T) {
	root := tempRoot(t)
	writeFile(t, filepath.Join(root, "a/.git/HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(root, "a/.git/config"), "[remote \"origin\"]\n\turl = https://github.com/o/r.git\n[include]\n\tpath = more.cfg\n")
	writeFile(t, filepath.Join(root, "a/.git/more.cfg"), "[url \"https://ghp_0123456789abcdefghijklmnopqrstuvwxyzAB@github.com/\"]\n\tinsteadOf = https://github.com/\n[http]\n\textraHeader = Authorization: Bearer x\n[sendemail]\n\tsmtpPass = hunter2\n")
	writeFile(t, filepath.Join(root, "a/.git/worktrees/w/HEAD"), "ref: refs/heads/w\n")
	writeFile(t, filepath.Join(root, "a/.git/worktrees/w/commondir"), "../..\n")
	writeFile(t, filepath.Join(root, "w/.git"), "gitdir: ../a/.git/worktrees/w\n")
	writeFile(t, filepath.Join(root, "plain/.git/HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(root, "plain/.git/config"), "[remote \"origin\"]\n\turl = git@github.com:o/r.git\n")
	writeFile(t, filepath.Join(root, "bad/.git/HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(root, "bad/.git/config"), "[remote \"origin\"\n")
	mkdirAll(t, filepath.Join(root, "none"))
	r := NewResolver(mustRoots(t, root))
	want := []string{"url.*.insteadof", "http.extraheader", "sendemail.smtppass"}
	for _, dir := range []string{"a", "w"} {
		got, ok := r.GitCredentials(filepath.Join(root, dir))
		if !ok || !slices.Equal(got, want) {
			t.Errorf("%s: %q %v, want %q", dir, got, ok, want)
		}
	}
	if got, ok := r.GitCredentials(filepath.Join(root, "plain")); !ok || len(got) != 0 {
		t.Errorf("plain: %q %v, want none", got, ok)
	}
	if _, ok := r.GitCredentials(filepath.Join(root, "bad")); ok {
		t.Error("bad: a configuration that cannot be parsed was read")
	}

	// The person's rewrite counts where it applies to a remote.
	home := tempRoot(t)
	writeFile(t, filepath.Join(home, ".gitconfig"), "[url \"https://x-access-token:ghs_abc@github.com/\"]\n\tinsteadOf = git@github.com:\n[url \"https://bot:pw@other.example/\"]\n\tinsteadOf = https://other.example/\n")
	r.SetHome(home)
	if got, ok := r.GitCredentials(filepath.Join(root, "plain")); !ok || !slices.Equal(got, []string{"url.*.insteadof"}) {
		t.Errorf("plain with the person's rewrite: %q %v", got, ok)
	}
	writeFile(t, filepath.Join(root, "other/.git/HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(root, "other/.git/config"), "[remote \"origin\"]\n\turl = https://gitlab.com/o/r.git\n")
	if got, ok := r.GitCredentials(filepath.Join(root, "other")); !ok || len(got) != 0 {
		t.Errorf("a remote no rewrite applies to: %q %v", got, ok)
	}
}
