package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// cliWorkspace is the workspace the CLI cases run in:
//
//	base/ws              the root: a git repository with one commit, source
//	                     folders, .vscode/, .admit/, .github/workflows/, .envrc,
//	                     symlinks inside, to outside and dangling ones
//	base/ws/fsmon        a nested repository whose .git/config sets core.fsmonitor
//	base/ws/tconv        a nested repository with a diff textconv assigned by .gitattributes
//	base/ws/increpo      a nested repository whose config includes one that sets core.pager
//	base/ws/aliasrepo    a nested repository with an alias
//	base/ws/bare         a folder that looks like a bare repository with core.fsmonitor
//	base/ws-evil         a sibling whose name starts with the root's
//	base/outside         files outside the root
//	base/home            the home directory ($HOME)
type cliWorkspace struct {
	base, ws, home string
}

func newCLIWorkspace(t *testing.T) *cliWorkspace {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &cliWorkspace{base: base, ws: filepath.Join(base, "ws"), home: filepath.Join(base, "home")}
	files := map[string]string{
		"ws/README.md": "# readme\nTODO: write\n", "ws/a.txt": "a\nb\na\n", "ws/b.txt": "b\n", "ws/notes.md": "notes\n",
		"ws/src/a.go": "package a\n\n// TODO fix\nfunc main() {}\n", "ws/src/b.go": "package a\n", "ws/src/sub/c.go": "package sub\n",
		"ws/src/a_test.go": "package a\n", "ws/docs/guide.md": "guide\n", "ws/vendor/lib.go": "package lib\n",
		"ws/build/x.o": "obj", "ws/node_modules/pkg/index.js": "x", "ws/deep/a/b/c/f.txt": "f\n", "ws/empty/.keep": "",
		"ws/data.csv": "id,name\n2,b\n1,a\n", "ws/go.mod": "module x\n", "ws/Makefile": "all:\n",
		"ws/.vscode/settings.json": "{}", "ws/.admit/policy.json": `{"label": "cli-cases", "allow": ["bash"]}`,
		"ws/.github/workflows/ci.yml": "on: push\n", "ws/.envrc": "", "ws/.gitattributes": "*.bin binary\n",
		"ws/sums.txt": "", "ws/names.txt": "a.txt\n",
		"ws-evil/secret.txt": "s", "outside/secret.txt": "s", "outside/dir/x": "x",
		"home/.bashrc": "", "home/.ssh/id_rsa": "k", "home/.gitconfig": "",
	}
	for name, body := range files {
		p := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"ws/emptydir", "ws/src/sub/empty"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "HOME="+w.home,
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git(w.ws, "init", "-q", "-b", "main")
	git(w.ws, "add", "-A")
	git(w.ws, "commit", "-q", "-m", "init")
	git(w.ws, "commit", "-q", "--allow-empty", "-m", "second")
	// Nested repositories whose configuration makes git run programs.
	for name, cfg := range map[string]string{
		"fsmon":     "[core]\n\tfsmonitor = ./watch.sh\n",
		"tconv":     "[diff \"hex\"]\n\ttextconv = ./conv.sh\n",
		"increpo":   "[include]\n\tpath = extra.cfg\n",
		"aliasrepo": "[alias]\n\tlg = !sh -c id\n",
		"sigrepo":   "[log]\n\tshowSignature = true\n",
		"wtrepo":    "[core]\n\tworktree = /etc\n",
		"hookrepo":  "",
	} {
		dir := filepath.Join(w.ws, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		git(dir, "init", "-q")
		f, err := os.OpenFile(filepath.Join(dir, ".git/config"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(cfg)
		f.Close()
		os.WriteFile(filepath.Join(dir, "x.txt"), []byte("x\n"), 0o644)
	}
	os.WriteFile(filepath.Join(w.ws, "tconv/.gitattributes"), []byte("*.txt diff=hex\n"), 0o644)
	os.WriteFile(filepath.Join(w.ws, "hookrepo/.git/hooks/post-index-change"), []byte("#!/bin/sh\nid\n"), 0o755)
	os.WriteFile(filepath.Join(w.ws, "increpo/.git/extra.cfg"), []byte("[core]\n\tpager = sh -c id\n"), 0o644)
	// A folder git takes for a bare repository.
	for _, d := range []string{"bare/objects", "bare/refs"} {
		os.MkdirAll(filepath.Join(w.ws, d), 0o755)
	}
	os.WriteFile(filepath.Join(w.ws, "bare/HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	os.WriteFile(filepath.Join(w.ws, "bare/config"), []byte("[core]\n\tfsmonitor = ./x\n"), 0o644)
	links := map[string]string{
		"ws/link-out":        filepath.Join(base, "outside/secret.txt"),
		"ws/dirlink-out":     filepath.Join(base, "outside"),
		"ws/dangling":        filepath.Join(base, "outside/nothere"),
		"ws/dangling-in":     "new-target.txt",
		"ws/link-in":         "src/a.go",
		"ws/linkdir-in":      "src",
		"ws/link-admit":      ".admit/policy.json",
		"ws/link-git":        ".git",
		"ws/link-vscode":     ".vscode",
		"ws/relup":           "../outside/secret.txt",
		"ws/deep/up":         "../..",
		"ws/docs/to-vendor":  "../vendor",
		"ws/vendor/out":      "../../outside",
		"ws/homelink":        filepath.Join(base, "home"),
		"ws/evil-sibling":    "../ws-evil",
		"ws/src/sub/escape":  "../../../outside/dir",
		"ws/link-etc":        "/etc",
		"ws/link-proc":       "/proc/self",
		"ws/link-devtcp":     "/dev/tcp/127.0.0.1/80",
		"ws/loop1":           "loop2",
		"ws/loop2":           "loop1",
		"ws/link-slash":      "/",
		"ws/deep/a/to-admit": "../../.admit",
	}
	for name, target := range links {
		p := filepath.Join(base, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// cliCase is one `admit check` call in base/ws.
type cliCase struct {
	note string
	line string
	w    bool   // --effects workspace-write
	obs  string // "f:PATH" is --observed PATH, "d:DIR" is --observed-dir DIR (relative to ws)
	cwd  string // --cwd, relative to ws
	want string // the rule; "allowed" for exit 0, anything else exit 77
}

const (
	cAllowed = "allowed"
	cSyn     = "shell-syntax"
	cDyn     = "dynamic-word"
	cUnsup   = "unsupported-program"
	cRO      = "read-only-effects"
	cFlag    = "forbidden-flag"
	cGitSub  = "git-subcommand"
	cOut     = "outside-workspace"
	cNoTgt   = "no-target"
	cUnobs   = "unobserved-target"
	cProt    = "protected-path"
	cGitExec = "git-config-exec"
	cEmpty   = "empty-command"
	cW       = true
	cR       = false
)

// cliAttacks must all be refused (exit 77) with the rule named.
var cliAttacks = []cliCase{
	// Reads outside the root.
	{"absolute path outside", "cat /etc/passwd", cR, "", "", cOut},
	{"shadow", "head -1 /etc/shadow", cR, "", "", cOut},
	{"dot-dot out", "cat ../outside/secret.txt", cR, "", "", cOut},
	{"dot-dot after a folder", "cat src/../../outside/secret.txt", cR, "", "", cOut},
	{"many dot-dots", "cat ../../../../../../etc/passwd", cR, "", "", cOut},
	{"symlink to a file outside", "cat link-out", cR, "", "", cOut},
	{"symlink to a folder outside", "cat dirlink-out/secret.txt", cR, "", "", cOut},
	{"relative symlink out", "tail relup", cR, "", "", cOut},
	{"link inside a folder leads out", "cat src/sub/escape/x", cR, "", "", cOut},
	{"link up two folders", "cat deep/up/outside/secret.txt", cR, "", "", cOut},
	{"link to /etc", "cat link-etc/passwd", cR, "", "", cOut},
	{"link to /", "ls link-slash", cR, "", "", cOut},
	{"link to proc self", "cat link-proc/environ", cR, "", "", cOut},
	{"through an inside link then out", "cat docs/to-vendor/out/secret.txt", cR, "", "", cOut},
	{"sibling named like the root", "cat ../ws-evil/secret.txt", cR, "", "", cOut},
	{"link to the sibling", "cat evil-sibling/secret.txt", cR, "", "", cOut},
	{"home via tilde", "cat ~/.bashrc", cR, "", "", cOut},
	{"ssh key via tilde", "cat ~/.ssh/id_rsa", cR, "", "", cOut},
	{"home via a link", "cat homelink/.ssh/id_rsa", cR, "", "", cOut},
	{"ls home", "ls ~", cR, "", "", cOut},
	{"ls home with slash", "ls -la ~/", cR, "", "", cOut},
	{"ls root", "ls /", cR, "", "", cOut},
	{"stat root", "stat /", cR, "", "", cOut},
	{"stat etc", "stat /etc/shadow", cR, "", "", cOut},
	{"test probes outside", "test -f /etc/shadow", cR, "", "", cOut},
	{"[ probes outside", "[ -e /root/.ssh ]", cR, "", "", cOut},
	{"test -d probes home", "test -d ~/.ssh && echo yes", cR, "", "", cOut},
	{"test -nt probes outside", "test a.txt -nt /etc/passwd", cR, "", "", cOut},
	{"realpath up", "realpath ../..", cR, "", "", cOut},
	{"realpath of a link out", "realpath link-out", cR, "", "", cOut},
	{"readlink -f of a link out", "readlink -f dirlink-out", cR, "", "", cOut},
	{"readlink -e", "readlink -e link-etc", cR, "", "", cOut},
	{"realpath --relative-to outside", "realpath --relative-to=/etc a.txt", cR, "", "", cOut},
	{"stat -L follows a link out", "stat -L link-out", cR, "", "", cOut},
	{"file -L follows a link out", "file -L link-out", cR, "", "", cOut},
	{"ls through a link out", "ls dirlink-out/", cR, "", "", cOut},
	{"ls -l of a link out follows it", "ls -l link-out", cR, "", "", cOut},
	{"du a link out", "du -sh dirlink-out", cR, "", "", cOut},
	{"wc outside", "wc -l /etc/passwd", cR, "", "", cOut},
	{"sort outside", "sort /etc/passwd", cR, "", "", cOut},
	{"uniq outside", "uniq /etc/group", cR, "", "", cOut},
	{"diff against outside", "diff a.txt /etc/hosts", cR, "", "", cOut},
	{"cmp against outside", "cmp a.txt ../outside/secret.txt", cR, "", "", cOut},
	{"md5sum outside", "md5sum /etc/passwd", cR, "", "", cOut},
	{"sha256sum via link", "sha256sum link-out", cR, "", "", cOut},
	{"head outside", "head -c 100 /dev/urandom", cR, "", "", cOut},
	{"proc environ", "cat /proc/self/environ", cR, "", "", cOut},
	{"proc cmdline", "cat /proc/1/cmdline", cR, "", "", cOut},
	{"proc fd", "cat /dev/fd/3", cR, "", "", cOut},
	{"diff --from-file outside", "diff --from-file=/etc/passwd a.txt", cR, "", "", cOut},
	{"diff --to-file prefix outside", "diff --to-f=/etc/passwd a.txt", cR, "", "", cOut},
	{"touch -r outside (read-only)", "touch -r /etc/passwd a.txt", cR, "", "", cRO},
	{"sort --random-source outside", "sort --random-source=/etc/passwd a.txt", cR, "", "", cOut},
	{"grep -e then a path outside", "grep -e root /etc/passwd", cR, "", "", cOut},
	{"grep --regexp= then a path outside", "grep --regexp=root /etc/passwd", cR, "", "", cOut},
	{"grep -r of /etc", "grep -r root /etc", cR, "", "", cOut},
	{"grep -rn with a link to outside folder", "grep -rn x dirlink-out", cR, "", "", cOut},
	{"cat a dangling link out", "cat dangling", cR, "", "", cOut},
	{"unicode fullwidth solidus is no slash, but dot-dot is", "cat ../outside／secret.txt", cR, "", "", cOut},
	{"link loop", "cat loop1", cR, "", "", cOut},
	{"tree -o outside (read-only)", "tree -o /tmp/x", cR, "", "", cRO},
	{"tree --gitfile outside", "tree --gitfile /etc/passwd", cR, "", "", cOut},
	{"cd out then read", "cd .. && cat outside/secret.txt", cR, "", "", cOut},
	{"cd / then read", "cd / && cat etc/passwd", cR, "", "", cOut},
	{"cd home", "cd ~ && ls", cR, "", "", cOut},
	{"cd with no folder goes home", "cd && ls", cR, "", "", cOut},
	{"cd through a link out", "cd dirlink-out && cat secret.txt", cR, "", "", cOut},
	{"cd - is run time", "cd - && ls", cR, "", "", cDyn},
	{"cd up twice after a failed cd", "cd src; cd ../..; ls", cR, "", "", cOut},
	{"cd in a subshell is judged too", "(cd ..; ls)", cR, "", "", cOut},
	{"cd after || may run", "cd nosuch || cd ..; ls", cR, "", "", cOut},
	{"cd link then dot-dot", "cd deep/up/.. && ls", cR, "", "", cOut},
	{"cwd outside", "ls", cR, "", "../outside", cOut},

	// Symlink-following walks.
	{"grep -R follows a link out", "grep -R foo vendor", cR, "", "", cFlag},
	{"grep -R reaches a link out through an inside link", "grep -R foo docs", cR, "", "", cFlag},
	{"grep -R on the root", "grep -R foo .", cR, "", "", cFlag},
	{"grep --dereference-recursive prefix", "grep --derefer foo docs", cR, "", "", cFlag},
	{"grep -rR cluster", "grep -rRn foo docs", cR, "", "", cFlag},
	{"find -L", "find -L docs -name x", cR, "", "", cFlag},
	{"find -follow", "find docs -follow", cR, "", "", cFlag},
	{"du -L", "du -L docs", cR, "", "", cFlag},
	{"du --dereference", "du --dereference -s .", cR, "", "", cFlag},
	{"tree -l", "tree -l docs", cR, "", "", cFlag},
	{"ls -RL", "ls -RL docs", cR, "", "", cFlag},
	{"diff -r follows links", "diff -r docs src", cR, "", "", cFlag},
	{"cp -rL copies through a link out", "cp -rL docs d2", cW, "d:.", "", cFlag},

	// Options that read lists of names or patterns from files, or run programs.
	{"grep -f", "grep -f /etc/passwd a.txt", cR, "", "", cFlag},
	{"grep --file prefix", "grep --fil=a.txt b.txt", cR, "", "", cFlag},
	{"grep -f in a cluster", "grep -rf list .", cR, "", "", cFlag},
	{"grep --exclude-from", "grep --exclude-from=x foo .", cR, "", "", cFlag},
	{"wc --files0-from", "wc --files0-from=names.txt", cR, "", "", cFlag},
	{"wc --files0 prefix", "wc --files0=names.txt", cR, "", "", cFlag},
	{"du --files0-from", "du --files0-from=names.txt", cR, "", "", cFlag},
	{"sort --files0-from", "sort --files0-from names.txt", cR, "", "", cFlag},
	{"md5sum -c", "md5sum -c sums.txt", cR, "", "", cFlag},
	{"md5sum --check", "md5sum --check sums.txt", cR, "", "", cFlag},
	{"sha256sum -c", "sha256sum -c sums.txt", cR, "", "", cFlag},
	{"sha256sum --chec prefix", "sha256sum --chec sums.txt", cR, "", "", cFlag},
	{"sort --compress-program", "sort --compress-program=sh a.txt", cR, "", "", cFlag},
	{"sort --compress prefix", "sort --compress=sh a.txt", cR, "", "", cFlag},
	{"sort -T", "sort -T /tmp a.txt", cR, "", "", cFlag},
	{"file -f", "file -f names.txt", cR, "", "", cFlag},
	{"file -m", "file -m /etc/magic a.txt", cR, "", "", cFlag},
	{"file -z runs decompressors", "file -z a.txt", cR, "", "", cFlag},
	{"diff -l runs pr", "diff -l a.txt b.txt", cR, "", "", cFlag},
	{"tail -f waits", "tail -f a.txt", cR, "", "", cFlag},
	{"tail -F waits", "tail -F a.txt", cR, "", "", cFlag},
	{"tail --follow=name", "tail --follow=name a.txt", cR, "", "", cFlag},
	{"tail -nf cluster", "tail -n5 -f a.txt", cR, "", "", cFlag},
	{"tail --retry", "tail --retry a.txt", cR, "", "", cFlag},
	{"tree -R writes index files", "tree -R", cR, "", "", cFlag},
	{"tree --fromfile", "tree --fromfile names.txt", cR, "", "", cFlag},
	{"tree value attached", "tree -o/tmp/x", cR, "", "", cFlag},
	{"printf -v assigns", "printf -v x %s y", cR, "", "", cFlag},
	{"unknown option", "cat --evil a.txt", cR, "", "", cFlag},
	{"ambiguous prefix", "sort --s a.txt", cR, "", "", cFlag},
	{"head count mixed with options", "head -5c a.txt", cR, "", "", cFlag},
	{"rm --no-preserve-root", "rm -rf --no-preserve-root x", cW, "d:.", "", cFlag},
	{"rmdir -p", "rmdir -p deep/a/b/c", cW, "d:deep/a/b", "", cFlag},
	{"rmdir --parents", "rmdir --parents emptydir", cW, "d:.", "", cFlag},
	{"cp -s makes symlinks", "cp -s a.txt s.txt", cW, "d:.", "", cFlag},
	{"cp --symbolic-link", "cp --symbolic-link /etc/passwd p", cW, "d:.", "", cFlag},
	{"cp -l makes hard links", "cp -l a.txt h.txt", cW, "d:.", "", cFlag},
	{"cp --link prefix", "cp --lin a.txt h.txt", cW, "d:.", "", cFlag},
	{"cp --parents climbs", "cp --parents ../outside/secret.txt .", cW, "d:.", "", cFlag},

	// find.
	{"find -exec", "find . -exec cat {} \\;", cR, "", "", cFlag},
	{"find -exec +", "find . -name '*.go' -exec rm {} +", cR, "", "", cFlag},
	{"find -execdir", "find . -execdir sh -c id \\;", cR, "", "", cFlag},
	{"find -ok", "find . -ok rm {} \\;", cR, "", "", cFlag},
	{"find -delete", "find . -name '*.o' -delete", cW, "d:.", "", cFlag},
	{"find -fprint", "find . -fprint /tmp/x", cR, "", "", cFlag},
	{"find -fprintf", "find . -fprintf out.txt %p", cR, "", "", cFlag},
	{"find -fls", "find . -fls out.txt", cR, "", "", cFlag},
	{"find -files0-from", "find -files0-from names.txt", cR, "", "", cFlag},
	{"find from /", "find / -name passwd", cR, "", "", cOut},
	{"find from ..", "find .. -name x", cR, "", "", cOut},
	{"find the sibling", "find ../ws-evil", cR, "", "", cOut},
	{"find -newer outside", "find . -newer /etc/passwd", cR, "", "", cOut},
	{"find -samefile outside", "find . -samefile ~/.bashrc", cR, "", "", cOut},
	{"find through a link out", "find dirlink-out/", cR, "", "", cOut},
	{"find unknown primary", "find . -evil", cR, "", "", cFlag},

	// Writes in read-only mode.
	{"rm read-only", "rm a.txt", cR, "", "", cRO},
	{"rm -rf / read-only", "rm -rf /", cR, "", "", cRO},
	{"touch read-only", "touch x", cR, "", "", cRO},
	{"mkdir read-only", "mkdir x", cR, "", "", cRO},
	{"cp read-only", "cp a.txt x", cR, "", "", cRO},
	{"mv read-only", "mv a.txt x", cR, "", "", cRO},
	{"redirect read-only", "echo x > a.txt", cR, "", "", cRO},
	{"append read-only", "echo x >> notes.md", cR, "", "", cRO},
	{"sort -o read-only", "sort -o a.txt a.txt", cR, "", "", cRO},
	{"sort -uo cluster writes", "sort -uo /tmp/x a.txt", cR, "", "", cRO},
	{"sort --output= prefix writes", "sort --outp=/tmp/x a.txt", cR, "", "", cRO},
	{"uniq second operand writes", "uniq a.txt b.txt", cR, "", "", cRO},
	{"tree -o writes", "tree -o out.txt", cR, "", "", cRO},
	{"git log redirected", "git log > log.txt", cR, "", "", cRO},

	// Writes outside, through links, to protected paths.
	{"rm -rf /", "rm -rf /", cW, "d:.", "", cOut},
	{"rm -rf . is the root", "rm -rf .", cW, "d:.", "", cNoTgt},
	{"rm -rf ./", "rm -rf ./", cW, "d:.", "", cNoTgt},
	{"rm -rf ..", "rm -rf ..", cW, "d:.", "", cOut},
	{"rm -rf src/.. is the root", "rm -rf src/..", cW, "d:. d:src", "", cNoTgt},
	{"rm -r the working folder", "rm -r ../src", cW, "d:src", "src", cNoTgt},
	{"rm -rf a glob", "rm -rf *", cW, "d:.", "", cDyn},
	{"rm home", "rm ~/.bashrc", cW, "d:.", "", cOut},
	{"rm through a trailing-slash link", "rm -rf dirlink-out/", cW, "d:.", "", cOut},
	{"rm through an absolute path", "rm -f /etc/passwd", cW, "d:.", "", cOut},
	{"mv to outside", "mv a.txt /tmp/", cW, "d:.", "", cOut},
	{"mv to parent", "mv a.txt ../", cW, "d:.", "", cOut},
	{"mv into a link out", "mv a.txt dirlink-out", cW, "d:.", "", cOut},
	{"mv -t outside", "mv -t .. a.txt", cW, "d:.", "", cOut},
	{"mv --target-directory= outside", "mv --target-directory=/tmp a.txt", cW, "d:.", "", cOut},
	{"mv from outside", "mv ../outside/secret.txt .", cW, "d:.", "", cOut},
	{"cp to a link to a file outside", "cp a.txt link-out", cW, "d:.", "", cOut},
	{"cp to a dangling link out", "cp a.txt dangling", cW, "d:.", "", cOut},
	{"cp into a folder link out", "cp a.txt dirlink-out/", cW, "d:.", "", cOut},
	{"cp -t outside", "cp -t /tmp a.txt", cW, "d:.", "", cOut},
	{"cp --target prefix outside", "cp --target=/tmp a.txt", cW, "d:.", "", cOut},
	{"cp from outside", "cp /etc/passwd p.txt", cW, "d:.", "", cOut},
	{"cp -r a link out", "cp -r dirlink-out x", cW, "d:.", "", cOut},
	{"touch a dangling link out", "touch dangling", cW, "d:.", "", cOut},
	{"touch outside", "touch /tmp/x", cW, "d:.", "", cOut},
	{"touch home", "touch ~/x", cW, "d:.", "", cOut},
	{"mkdir outside", "mkdir /tmp/x", cW, "d:.", "", cOut},
	{"mkdir -p climbs out of a new folder", "mkdir -p new/../../x", cW, "d:.", "", cOut},
	{"mkdir through a link out", "mkdir dirlink-out/x", cW, "d:.", "", cOut},
	{"redirect outside", "echo x > /tmp/x", cW, "d:.", "", cOut},
	{"append outside", "echo x >> ../outside/y", cW, "d:.", "", cOut},
	{"&> outside", "echo x &> /tmp/y", cW, "d:.", "", cOut},
	{">& file outside", "echo x >& /tmp/y", cW, "d:.", "", cOut},
	{"2> outside", "ls 2> /tmp/err", cW, "d:.", "", cOut},
	{"fd 3 outside", "ls 3> /tmp/x", cW, "d:.", "", cOut},
	{">| outside", "echo x >| /tmp/x", cW, "d:.", "", cOut},
	{"<> outside", "cat 0<> /etc/passwd", cW, "d:.", "", cOut},
	{"redirect through a link out", "echo x > link-out", cW, "d:.", "", cOut},
	{"redirect to a dangling link out", "echo x > dangling", cW, "d:.", "", cOut},
	{"redirect into a folder link out", "echo x > dirlink-out/new", cW, "d:.", "", cOut},
	{"redirect to /dev/tcp", "echo x > /dev/tcp/1.2.3.4/80", cW, "d:.", "", cOut},
	{"read from /dev/tcp", "cat < /dev/tcp/1.2.3.4/80", cR, "", "", cOut},
	{"redirect through a link to /dev/tcp", "echo x > link-devtcp", cW, "d:.", "", cOut},
	{"redirect to proc", "echo x > /proc/self/mem", cW, "d:.", "", cOut},
	{"redirect to a device", "echo x > /dev/sda", cW, "d:.", "", cOut},
	{"sort -o outside", "sort -o /tmp/x a.txt", cW, "d:.", "", cOut},
	{"uniq output outside", "uniq a.txt /tmp/out", cW, "d:.", "", cOut},
	{"tree -o outside", "tree -o /tmp/x", cW, "d:.", "", cOut},
	{"write to .admit", "echo {} > .admit/policy.json", cW, "d:. d:.admit f:.admit/policy.json", "", cProt},
	{"write to .admit through a link", "echo {} > link-admit", cW, "d:. f:.admit/policy.json", "", cProt},
	{"write to .admit through a folder link", "touch deep/a/to-admit/x", cW, "d:. d:.admit", "", cProt},
	{"cp into .admit", "cp a.txt .admit/", cW, "d:. d:.admit", "", cProt},
	{"mv into .admit", "mv a.txt .admit/policy.json", cW, "d:. d:.admit", "", cProt},
	{"rm .admit", "rm -rf .admit", cW, "d:. d:.admit", "", cProt},
	{"mkdir in .admit", "mkdir .admit/x", cW, "d:.admit", "", cProt},
	{"write .git/config asks", "echo x > .git/config", cW, "d:.git f:.git/config", "", cProt},
	{"write a hook asks", "cp a.txt .git/hooks/pre-commit", cW, "d:. d:.git/hooks", "", cProt},
	{"write .git through a link asks", "touch link-git/x", cW, "d:.git", "", cProt},
	{"write .vscode settings asks", "echo {} > .vscode/settings.json", cW, "d:.vscode", "", cProt},
	{"write .vscode tasks asks", "cp a.txt .vscode/tasks.json", cW, "d:.vscode", "", cProt},
	{"write .vscode through a link asks", "echo {} > link-vscode/launch.json", cW, "d:.vscode", "", cProt},
	{"write .envrc asks", "echo x >> .envrc", cW, "d:.", "", cProt},
	{"write a workflow asks", "echo x > .github/workflows/ci.yml", cW, "d:.github/workflows", "", cProt},
	{"new workflow asks", "touch .github/workflows/evil.yml", cW, "d:.github/workflows", "", cProt},
	{"write .gitattributes asks", "echo '* diff=x' > .gitattributes", cW, "d:.", "", cProt},
	{"write .gitmodules asks", "touch .gitmodules", cW, "d:.", "", cProt},
	{"write a nested .git file asks", "echo 'gitdir: /tmp' > src/.git", cW, "d:src", "", cProt},
	{"write an unobserved file", "echo x > a.txt", cW, "", "", cUnobs},
	{"rm unobserved", "rm b.txt", cW, "d:src", "", cUnobs},
	{"rm -r an unlisted folder", "rm -r src", cW, "d:.", "", cUnobs},
	{"new file in an unlisted folder", "touch src/new.go", cW, "d:.", "", cUnobs},
	{"write with no target", "touch", cW, "d:.", "", cNoTgt},
	{"mkdir with no target", "mkdir -p", cW, "d:.", "", cNoTgt},
	{"touch the working folder", "touch .", cW, "d:.", "", cNoTgt},

	// A link or folder moved or copied earlier in the same line.
	{"mv a link out to a new name, then read", "mv dirlink-out x && cat x/secret.txt", cW, "d:.", "", cDyn},
	{"mv a file link, then read", "mv link-out x; cat x", cW, "d:.", "", cDyn},
	{"cp -r a folder with a link out, then read", "cp -r vendor v2 && cat v2/out/secret.txt", cW, "d:.", "", cDyn},
	{"cp -r, then write through the copied link", "cp -r vendor v2 && echo x > v2/out/pwn", cW, "d:.", "", cDyn},
	{"the reader runs beside the copy in a pipeline", "cat v2/out/secret.txt | cp -r vendor v2", cW, "d:.", "", cDyn},
	{"cp -P a link, then cd into the copy", "cp -P linkdir-in d2 && cd d2", cW, "d:.", "", cDyn},

	// Wrappers and programs that run programs.
	{"env", "env cat /etc/passwd", cR, "", "", cUnsup},
	{"env alone prints the environment", "env", cR, "", "", cUnsup},
	{"printenv", "printenv", cR, "", "", cUnsup},
	{"xargs", "git ls-files | xargs cat", cR, "", "", cUnsup},
	{"timeout", "timeout 5 cat a.txt", cR, "", "", cUnsup},
	{"nice", "nice -n 10 ls", cR, "", "", cUnsup},
	{"nohup", "nohup ls", cR, "", "", cUnsup},
	{"sudo", "sudo cat a.txt", cR, "", "", cUnsup},
	{"su", "su -c id", cR, "", "", cUnsup},
	{"sh -c", "sh -c 'cat /etc/passwd'", cR, "", "", cUnsup},
	{"bash -c", "bash -c ls", cR, "", "", cUnsup},
	{"pipe into sh", "cat a.txt | sh", cR, "", "", cUnsup},
	{"busybox", "busybox cat a.txt", cR, "", "", cUnsup},
	{"command", "command cat a.txt", cR, "", "", cUnsup},
	{"builtin", "builtin cd /", cR, "", "", cUnsup},
	{"exec", "exec cat a.txt", cR, "", "", cUnsup},
	{"eval", "eval 'cat a.txt'", cR, "", "", cUnsup},
	{"source", "source .envrc", cR, "", "", cUnsup},
	{"dot", ". ./.envrc", cR, "", "", cUnsup},
	{"stdbuf", "stdbuf -o0 cat a.txt", cR, "", "", cUnsup},
	{"setsid", "setsid ls", cR, "", "", cUnsup},
	{"chroot", "chroot / cat a.txt", cR, "", "", cUnsup},
	{"unshare", "unshare -r ls", cR, "", "", cUnsup},
	{"flock", "flock x cat a.txt", cR, "", "", cUnsup},
	{"strace", "strace ls", cR, "", "", cUnsup},
	{"awk system", "awk 'BEGIN{system(\"id\")}'", cR, "", "", cUnsup},
	{"sed e", "sed -n 1p a.txt", cR, "", "", cUnsup},
	{"tee writes", "echo x | tee a.txt", cW, "d:.", "", cUnsup},
	{"python", "python3 -c 'print(1)'", cR, "", "", cUnsup},
	{"curl", "curl http://example.com", cR, "", "", cUnsup},
	{"ln -s", "ln -s /etc e", cW, "d:.", "", cUnsup},
	{"ln hard", "ln /etc/passwd p", cW, "d:.", "", cUnsup},
	{"chmod", "chmod +x a.txt", cW, "d:.", "", cUnsup},
	{"chown", "chown root a.txt", cW, "d:.", "", cUnsup},
	{"dd", "dd if=/etc/passwd of=x", cW, "d:.", "", cUnsup},
	{"program as a path", "/bin/cat a.txt", cR, "", "", cUnsup},
	{"program relative", "./a.txt", cR, "", "", cUnsup},
	{"program through dot-dot", "../bin/ls", cR, "", "", cUnsup},
	{"alias", "alias ls='rm -rf /'", cR, "", "", cUnsup},
	{"set", "set -x", cR, "", "", cUnsup},
	{"trap", "trap 'rm a.txt' EXIT", cR, "", "", cUnsup},
	{"kill", "kill -9 1", cR, "", "", cUnsup},

	// Shell syntax and run-time values.
	{"command substitution", "cat $(echo /etc/passwd)", cR, "", "", cDyn},
	{"backquotes", "cat `echo /etc/passwd`", cR, "", "", cDyn},
	{"substitution in double quotes", "echo \"$(id)\"", cR, "", "", cDyn},
	{"process substitution in", "diff <(cat /etc/passwd) a.txt", cR, "", "", cDyn},
	{"process substitution out", "ls > >(cat)", cW, "d:.", "", cDyn},
	{"parameter expansion", "cat $HOME/.bashrc", cR, "", "", cDyn},
	{"braced parameter", "cat ${HOME}/.bashrc", cR, "", "", cDyn},
	{"parameter default", "cat ${X:-/etc/passwd}", cR, "", "", cDyn},
	{"special parameter", "echo $0", cR, "", "", cDyn},
	{"arithmetic", "echo $((1+2))", cR, "", "", cDyn},
	{"glob star", "cat /etc/pass*", cR, "", "", cDyn},
	{"glob question", "cat /etc/passw?", cR, "", "", cDyn},
	{"glob class", "cat /etc/[p]asswd", cR, "", "", cDyn},
	{"glob in a redirect", "echo x > *.txt", cW, "d:.", "", cDyn},
	{"extended glob", "cat !(a.txt)", cR, "", "", cDyn},
	{"ANSI-C escape hides a path", "cat $'\\x2fetc/passwd'", cR, "", "", cDyn},
	{"ANSI-C escape hides a program", "$'\\x72m' -rf x", cW, "d:.", "", cDyn},
	{"locale string", "cat $\"a.txt\"", cR, "", "", cDyn},
	{"tilde user", "cat ~root/.bashrc", cR, "", "", cDyn},
	{"tilde plus", "cat ~+/a.txt", cR, "", "", cDyn},
	{"tilde minus", "ls ~-", cR, "", "", cDyn},
	{"brace expansion reaching out", "cat {a.txt,/etc/passwd}", cR, "", "", cOut},
	{"brace expansion with dot-dot", "cat a{.txt,/../../outside/secret.txt}", cR, "", "", cOut},
	{"brace sequence outside", "cat ../outside/{secret.txt,dir/x}", cR, "", "", cOut},
	{"huge brace expansion", "echo {1..100000}", cR, "", "", cSyn},
	{"ANSI-C string without escapes is literal", "cat $'/etc/passwd'", cR, "", "", cOut},
	{"quoted path is still outside", "cat '/etc/passwd'", cR, "", "", cOut},
	{"escaped slash", "cat \\/etc\\/passwd", cR, "", "", cOut},
	{"assignment prefix", "IFS=/ cat a.txt", cR, "", "", cSyn},
	{"env prefix", "GIT_DIR=/tmp git log", cR, "", "", cSyn},
	{"PATH prefix", "PATH=. ls", cR, "", "", cSyn},
	{"bare assignment", "X=1", cR, "", "", cSyn},
	{"export", "export PATH=.", cR, "", "", cSyn},
	{"declare", "declare -x A=1", cR, "", "", cSyn},
	{"local", "local x=1", cR, "", "", cSyn},
	{"background", "cat a.txt & rm a.txt", cW, "d:.", "", cSyn},
	{"for loop", "for f in a.txt; do cat $f; done", cR, "", "", cSyn},
	{"while loop", "while true; do ls; done", cR, "", "", cSyn},
	{"if", "if true; then cat /etc/passwd; fi", cR, "", "", cSyn},
	{"case", "case x in x) ls;; esac", cR, "", "", cSyn},
	{"function", "f() { cat /etc/passwd; }; f", cR, "", "", cSyn},
	{"test clause", "[[ -f /etc/shadow ]]", cR, "", "", cSyn},
	{"arithmetic command", "(( x = 1 ))", cR, "", "", cSyn},
	{"let", "let x=1", cR, "", "", cSyn},
	{"time", "time ls", cR, "", "", cSyn},
	{"coproc", "coproc ls", cR, "", "", cSyn},
	{"here-doc with a substitution", "cat <<EOF\n$(cat /etc/passwd)\nEOF", cR, "", "", cDyn},
	{"here-doc with a parameter", "cat <<EOF\n$HOME\nEOF", cR, "", "", cDyn},
	{"here-doc written outside", "cat > /tmp/x <<'EOF'\nx\nEOF", cW, "d:.", "", cOut},
	{"here-string with a substitution", "cat <<< $(id)", cR, "", "", cDyn},
	{"unclosed here-doc", "cat <<EOF", cR, "", "", cSyn},
	{"NUL byte", "cat a.txt\x00/etc/passwd", cR, "", "", cSyn},
	{"carriage return", "cat a.txt\r", cR, "", "", cSyn},
	{"CR hides a second command", "ls\rrm -rf /", cR, "", "", cSyn},
	{"second command after ;", "ls; cat /etc/passwd", cR, "", "", cOut},
	{"second command after a newline", "ls\ncat /etc/passwd", cR, "", "", cOut},
	{"second command after &&", "ls && rm -rf /", cW, "d:.", "", cOut},
	{"second command after ||", "false || cat ~/.ssh/id_rsa", cR, "", "", cOut},
	{"in a pipeline", "cat /etc/passwd | head", cR, "", "", cOut},
	{"in a subshell", "(cat /etc/passwd)", cR, "", "", cOut},
	{"in a group", "{ cat /etc/passwd; }", cR, "", "", cOut},
	{"group redirect outside", "{ ls; } > /tmp/x", cW, "d:.", "", cOut},
	{"negated", "! cat /etc/passwd", cR, "", "", cOut},
	{"redirect without command", "> /tmp/x", cW, "d:.", "", cSyn},
	{"dynamic fd", "ls {fd}> x", cW, "d:.", "", cDyn},
	{"input duplication from a file", "cat <& a.txt", cR, "", "", cSyn},
	{"empty program", "'' a.txt", cR, "", "", cEmpty},
	{"empty line", "   ", cR, "", "", cEmpty},
	{"comment only", "# hi", cR, "", "", cEmpty},
	{"parse error", "cat a.txt |", cR, "", "", cSyn},
	{"redirection to an empty name", "echo x > ''", cW, "d:.", "", cSyn},
	{"after a failed cd src, cd .. runs from the root", strings.Repeat("cd src; cd ..; ", 12) + "ls", cR, "", "", cOut},
	{"too many possible working folders", "cd src; cd sub; cd empty; cd docs; cd deep; cd a; cd b; cd c; cd build; cd vendor; ls", cR, "", "", cSyn},
	{"history expansion is literal but the path is outside", "cat /etc/!$", cR, "", "", cOut},

	// git: options, subcommands, configuration that runs programs.
	{"git -c", "git -c core.pager=sh log", cR, "", "", cFlag},
	{"git -c attached", "git -ccore.fsmonitor=sh status", cR, "", "", cFlag},
	{"git -C", "git -C /etc log", cR, "", "", cFlag},
	{"git -C inside is refused too", "git -C src log", cR, "", "", cFlag},
	{"git --git-dir", "git --git-dir=/tmp/x log", cR, "", "", cFlag},
	{"git --work-tree", "git --work-tree=/ status", cR, "", "", cFlag},
	{"git --exec-path", "git --exec-path=/tmp log", cR, "", "", cFlag},
	{"git --config-env", "git --config-env=core.pager=X log", cR, "", "", cFlag},
	{"git -p pager", "git -p log", cR, "", "", cFlag},
	{"git --paginate", "git --paginate diff", cR, "", "", cFlag},
	{"git --namespace", "git --namespace=x log", cR, "", "", cFlag},
	{"git --bare", "git --bare log", cR, "", "", cFlag},
	{"git log --output", "git log --output=/tmp/x", cR, "", "", cFlag},
	{"git diff --output", "git diff --output=x.diff", cW, "d:.", "", cFlag},
	{"git log --outpu prefix is not git's", "git log --outpu=/tmp/x", cR, "", "", cFlag},
	{"git diff --ext-diff", "git diff --ext-diff", cR, "", "", cFlag},
	{"git log --ext-diff", "git log -p --ext-diff", cR, "", "", cFlag},
	{"git diff --textconv", "git diff --textconv", cR, "", "", cFlag},
	{"git show --textconv", "git show --textconv HEAD", cR, "", "", cFlag},
	{"git cat-file --textconv", "git cat-file --textconv HEAD:a.txt", cR, "", "", cFlag},
	{"git cat-file --filters", "git cat-file --filters HEAD:a.txt", cR, "", "", cFlag},
	{"git cat-file --batch", "git cat-file --batch", cR, "", "", cFlag},
	{"git diff -O outside", "git diff -O/etc/passwd", cR, "", "", cOut},
	{"git diff -O outside, separate", "git diff -O ../outside/secret.txt", cR, "", "", cOut},
	{"git log --show-signature", "git log --show-signature", cR, "", "", cFlag},
	{"git grep --open-files-in-pager", "git grep --open-files-in-pager=vim foo", cR, "", "", cFlag},
	{"git grep -O", "git grep -Ovim foo", cR, "", "", cFlag},
	{"git grep -f", "git grep -f /etc/passwd", cR, "", "", cFlag},
	{"git grep --textconv", "git grep --textconv foo", cR, "", "", cFlag},
	{"git grep --no-index outside", "git grep --no-index root /etc/passwd", cR, "", "", cOut},
	{"git diff --no-index outside", "git diff --no-index /etc/passwd a.txt", cR, "", "", cOut},
	{"git diff --no-index through a link", "git diff --no-index a.txt link-out", cR, "", "", cOut},
	{"git diff path outside", "git diff HEAD -- /etc/passwd", cR, "", "", cOut},
	{"git log path outside", "git log -- ../outside", cR, "", "", cOut},
	{"git log path outside without --", "git log ../outside", cR, "", "", cOut},
	{"git blame --contents outside", "git blame --contents /etc/passwd src/a.go", cR, "", "", cOut},
	{"git blame --ignore-revs-file outside", "git blame --ignore-revs-file=/etc/passwd src/a.go", cR, "", "", cOut},
	{"git ls-files -X", "git ls-files -X /etc/x", cR, "", "", cFlag},
	{"git config --file", "git config --file=/etc/x -l", cR, "", "", cFlag},
	{"git log --upload-pack", "git log --upload-pack=x", cR, "", "", cFlag},
	{"git fetch --upload-pack", "git fetch --upload-pack='sh -c id' origin", cR, "", "", cGitSub},
	{"git commit", "git commit -m x", cW, "d:.", "", cGitSub},
	{"git add", "git add .", cW, "d:.", "", cGitSub},
	{"git push", "git push", cR, "", "", cGitSub},
	{"git checkout", "git checkout -- a.txt", cW, "d:.", "", cGitSub},
	{"git reset --hard", "git reset --hard", cW, "d:.", "", cGitSub},
	{"git clean", "git clean -fdx", cW, "d:.", "", cGitSub},
	{"git rm", "git rm a.txt", cW, "d:.", "", cGitSub},
	{"git apply", "git apply x.patch", cW, "d:.", "", cGitSub},
	{"git am", "git am x", cW, "d:.", "", cGitSub},
	{"git format-patch", "git format-patch -1 -o /tmp", cR, "", "", cGitSub},
	{"git archive", "git archive -o /tmp/x HEAD", cR, "", "", cGitSub},
	{"git bundle", "git bundle create /tmp/x HEAD", cR, "", "", cGitSub},
	{"git difftool", "git difftool", cR, "", "", cGitSub},
	{"git submodule", "git submodule update --init", cR, "", "", cGitSub},
	{"git help opens a browser or man", "git help log", cR, "", "", cGitSub},
	{"git upload-pack", "git upload-pack .", cR, "", "", cGitSub},
	{"git filter-branch", "git filter-branch", cR, "", "", cGitSub},
	{"git alias", "git lg", cR, "", "", cGitSub},
	{"git no subcommand", "git", cR, "", "", cGitSub},
	{"git branch create", "git branch newbranch", cR, "", "", cGitSub},
	{"git branch -D", "git branch -D main", cR, "", "", cFlag},
	{"git branch -m", "git branch -m x", cR, "", "", cFlag},
	{"git branch --edit-description", "git branch --edit-description", cR, "", "", cFlag},
	{"git tag create", "git tag v1", cR, "", "", cGitSub},
	{"git tag -d", "git tag -d v1", cR, "", "", cFlag},
	{"git config set", "git config core.pager less", cR, "", "", cGitSub},
	{"git config set (new syntax)", "git config set core.pager less", cR, "", "", cGitSub},
	{"git config --add", "git config --add alias.x '!sh'", cR, "", "", cFlag},
	{"git config --unset", "git config --unset user.name", cR, "", "", cFlag},
	{"git config -e opens an editor", "git config -e", cR, "", "", cFlag},
	{"git stash", "git stash", cW, "d:.", "", cGitSub},
	{"git stash pop", "git stash pop", cW, "d:.", "", cGitSub},
	{"git reflog expire", "git reflog expire --all", cR, "", "", cGitSub},
	{"git worktree add", "git worktree add ../x", cR, "", "", cGitSub},
	{"git remote add", "git remote add o http://x", cR, "", "", cGitSub},
	{"git config --global reads ~/.gitconfig", "git config --global --list", cR, "", "", cFlag},
	{"git config --system reads /etc/gitconfig", "git config --system -l", cR, "", "", cFlag},
	{"git config --global one key", "git config --global user.email", cR, "", "", cFlag},
	{"log.showSignature runs gpg", "git log -1", cR, "", "sigrepo", cGitExec},
	{"core.worktree outside the root", "git status", cR, "", "wtrepo", cGitExec},
	{"post-index-change hook runs on status", "git status", cR, "", "hookrepo", cGitExec},
	{"case-folded .ADMIT is .admit on a case-insensitive disk", "echo {} > .ADMIT/policy.json", cW, "d:.", "", cProt},
	{"case-folded .Git asks", "touch .Git/x", cW, "d:.", "", cProt},
	{"case-folded .VSCode asks", "echo {} > .VSCode/tasks.json", cW, "d:.", "", cProt},
	{"a bare repository made in the same line, then git there", "mkdir -p r/objects r/refs && touch r/HEAD && cat > r/config <<'EOF'\n[core]\n\tbare = false\n\tworktree = ..\n\tfsmonitor = sh -c id\nEOF\ncd r && git status", cW, "d:.", "", cDyn},
	{"a config written in a pipeline beside git", "git status | cat > config", cW, "d:.", "", cDyn},
	{"a hook copied in before git", "cp a.txt fsmon/.git/hooks/post-index-change; git status", cW, "d:fsmon/.git/hooks", "", cDyn},
	{"core.fsmonitor runs a program", "git status", cR, "", "fsmon", cGitExec},
	{"textconv assigned by .gitattributes", "git diff", cR, "", "tconv", cGitExec},
	{"included config sets a pager", "git log", cR, "", "increpo", cGitExec},
	{"alias in config", "git log", cR, "", "aliasrepo", cGitExec},
	{"a folder that looks like a bare repository", "git log", cR, "", "bare", cGitExec},
	{"cd into a repository with fsmonitor", "cd fsmon && git status", cR, "", "", cGitExec},
	{"writing redirect does not bypass git config", "git diff > d.txt", cW, "d:.", "tconv", cGitExec},
}

// cliOrdinary must all be allowed (exit 0).
var cliOrdinary = []cliCase{
	// git reads.
	{"status", "git status", cR, "", "", cAllowed},
	{"short status", "git status -s", cR, "", "", cAllowed},
	{"status -sb", "git status -sb", cR, "", "", cAllowed},
	{"porcelain status", "git status --porcelain", cR, "", "", cAllowed},
	{"status no untracked", "git status --short --untracked-files=no", cR, "", "", cAllowed},
	{"status of a path", "git status src", cR, "", "", cAllowed},
	{"diff", "git diff", cR, "", "", cAllowed},
	{"diff cached", "git diff --cached", cR, "", "", cAllowed},
	{"diff staged", "git diff --staged", cR, "", "", cAllowed},
	{"diff HEAD~1 of a file", "git diff HEAD~1 -- src/a.go", cR, "", "", cAllowed},
	{"diff range", "git diff HEAD~1..HEAD", cR, "", "", cAllowed},
	{"diff three dots", "git diff main...HEAD", cR, "", "", cAllowed},
	{"diff stat", "git diff --stat", cR, "", "", cAllowed},
	{"diff name-only", "git diff --name-only HEAD~1", cR, "", "", cAllowed},
	{"diff name-status", "git diff --name-status", cR, "", "", cAllowed},
	{"diff word-diff", "git diff --word-diff", cR, "", "", cAllowed},
	{"diff no color", "git diff --color=never", cR, "", "", cAllowed},
	{"diff -U", "git diff -U10 src/a.go", cR, "", "", cAllowed},
	{"diff ignoring whitespace", "git diff -w --ignore-blank-lines", cR, "", "", cAllowed},
	{"diff check", "git diff --check", cR, "", "", cAllowed},
	{"diff of two files", "git diff --no-index a.txt b.txt", cR, "", "", cAllowed},
	{"diff stat of a folder", "git diff --stat HEAD~1 HEAD -- src", cR, "", "", cAllowed},
	{"diff no ext-diff", "git diff --no-ext-diff --no-textconv", cR, "", "", cAllowed},
	{"log oneline", "git log --oneline", cR, "", "", cAllowed},
	{"log -5", "git log --oneline -5", cR, "", "", cAllowed},
	{"log -n", "git log -n 3", cR, "", "", cAllowed},
	{"log graph", "git log --graph --oneline --all", cR, "", "", cAllowed},
	{"log decorate", "git log --oneline --decorate -20", cR, "", "", cAllowed},
	{"log format", "git log --pretty=format:'%h %an %s' -n 10", cR, "", "", cAllowed},
	{"log format short", "git log -1 --format=%cd", cR, "", "", cAllowed},
	{"log since", "git log --since=2.weeks --author=bob", cR, "", "", cAllowed},
	{"log pickaxe", "git log -S foo --oneline", cR, "", "", cAllowed},
	{"log grep", "git log --grep=fix -i", cR, "", "", cAllowed},
	{"log of a folder", "git log -- src/", cR, "", "", cAllowed},
	{"log follow", "git log --follow -- src/a.go", cR, "", "", cAllowed},
	{"log patch", "git log -p -1", cR, "", "", cAllowed},
	{"log stat", "git log --stat -3", cR, "", "", cAllowed},
	{"log range", "git log --oneline main..HEAD", cR, "", "", cAllowed},
	{"log no merges", "git log --no-merges --oneline", cR, "", "", cAllowed},
	{"log reverse", "git log --reverse --format=%H", cR, "", "", cAllowed},
	{"log of a file without --", "git log src/a.go", cR, "", "", cAllowed},
	{"log -L", "git log -L 1,3:src/a.go", cR, "", "", cAllowed},
	{"show HEAD", "git show HEAD", cR, "", "", cAllowed},
	{"show stat", "git show HEAD --stat", cR, "", "", cAllowed},
	{"show a file at a revision", "git show HEAD:src/a.go", cR, "", "", cAllowed},
	{"show previous revision", "git show HEAD~1:src/a.go", cR, "", "", cAllowed},
	{"show name-status", "git show --name-status HEAD", cR, "", "", cAllowed},
	{"show -s", "git show -s --format=%H", cR, "", "", cAllowed},
	{"branch", "git branch", cR, "", "", cAllowed},
	{"branch -a", "git branch -a", cR, "", "", cAllowed},
	{"branch -vv", "git branch -vv", cR, "", "", cAllowed},
	{"branch -r", "git branch -r", cR, "", "", cAllowed},
	{"branch show-current", "git branch --show-current", cR, "", "", cAllowed},
	{"branch --list", "git branch --list 'feat*'", cR, "", "", cAllowed},
	{"branch contains", "git branch --contains HEAD", cR, "", "", cAllowed},
	{"tag", "git tag", cR, "", "", cAllowed},
	{"tag -l", "git tag -l 'v*'", cR, "", "", cAllowed},
	{"remote -v", "git remote -v", cR, "", "", cAllowed},
	{"stash list", "git stash list", cR, "", "", cAllowed},
	{"describe", "git describe --tags --always", cR, "", "", cAllowed},
	{"rev-parse HEAD", "git rev-parse HEAD", cR, "", "", cAllowed},
	{"rev-parse short", "git rev-parse --short HEAD", cR, "", "", cAllowed},
	{"rev-parse abbrev-ref", "git rev-parse --abbrev-ref HEAD", cR, "", "", cAllowed},
	{"rev-parse toplevel", "git rev-parse --show-toplevel", cR, "", "", cAllowed},
	{"rev-parse git-dir", "git rev-parse --git-dir", cR, "", "", cAllowed},
	{"rev-parse inside work tree", "git rev-parse --is-inside-work-tree", cR, "", "", cAllowed},
	{"rev-list count", "git rev-list --count HEAD", cR, "", "", cAllowed},
	{"blame", "git blame src/a.go", cR, "", "", cAllowed},
	{"blame -L", "git blame -L 1,3 src/a.go", cR, "", "", cAllowed},
	{"blame porcelain", "git blame --porcelain src/a.go", cR, "", "", cAllowed},
	{"grep", "git grep -n TODO", cR, "", "", cAllowed},
	{"grep with pathspec", "git grep -l foo -- '*.go'", cR, "", "", cAllowed},
	{"grep -e", "git grep -n -e 'func main'", cR, "", "", cAllowed},
	{"grep -i word", "git grep -iw todo", cR, "", "", cAllowed},
	{"grep -c", "git grep -c package src", cR, "", "", cAllowed},
	{"ls-files", "git ls-files", cR, "", "", cAllowed},
	{"ls-files modified", "git ls-files -m", cR, "", "", cAllowed},
	{"ls-files others", "git ls-files --others --exclude-standard", cR, "", "", cAllowed},
	{"ls-files of a folder", "git ls-files src", cR, "", "", cAllowed},
	{"ls-files pathspec glob quoted", "git ls-files '*.go'", cR, "", "", cAllowed},
	{"ls-tree", "git ls-tree -r HEAD --name-only", cR, "", "", cAllowed},
	{"shortlog", "git shortlog -sn", cR, "", "", cAllowed},
	{"config read", "git config user.name", cR, "", "", cAllowed},
	{"config --get", "git config --get remote.origin.url", cR, "", "", cAllowed},
	{"config --list", "git config --list", cR, "", "", cAllowed},
	{"cat-file -p", "git cat-file -p HEAD", cR, "", "", cAllowed},
	{"cat-file -t", "git cat-file -t HEAD", cR, "", "", cAllowed},
	{"reflog", "git reflog -5", cR, "", "", cAllowed},
	{"merge-base", "git merge-base HEAD main", cR, "", "", cAllowed},
	{"count-objects", "git count-objects -vH", cR, "", "", cAllowed},
	{"show-ref", "git show-ref --heads", cR, "", "", cAllowed},
	{"for-each-ref", "git for-each-ref --format='%(refname)' refs/heads", cR, "", "", cAllowed},
	{"worktree list", "git worktree list", cR, "", "", cAllowed},
	{"check-ignore", "git check-ignore -v build/x.o", cR, "", "", cAllowed},
	{"no pager", "git --no-pager log -3", cR, "", "", cAllowed},
	{"-P", "git -P diff", cR, "", "", cAllowed},
	{"version", "git --version", cR, "", "", cAllowed},
	{"git in a subfolder", "git log --oneline -3", cR, "", "src", cAllowed},
	{"cd then git", "cd src && git diff", cR, "", "", cAllowed},

	// git pipelines and redirections.
	{"log into head", "git log --oneline -5 | head -3", cR, "", "", cAllowed},
	{"log into head, plain", "git log | head", cR, "", "", cAllowed},
	{"authors count", "git log --format='%an' | sort | uniq -c | sort -rn", cR, "", "", cAllowed},
	{"diff into wc", "git diff --stat | tail -1", cR, "", "", cAllowed},
	{"status to /dev/null", "git status --porcelain 2>/dev/null", cR, "", "", cAllowed},
	{"diff saved to a file", "git diff > patch.diff", cW, "d:.", "", cAllowed},
	{"log saved with stderr", "git log --oneline > log.txt 2>&1", cW, "d:.", "", cAllowed},
	{"ls-files counted", "git ls-files | wc -l", cR, "", "", cAllowed},
	{"ls-files filtered", "git ls-files | grep '\\.go$'", cR, "", "", cAllowed},

	// grep.
	{"grep -rn", "grep -rn TODO src", cR, "", "", cAllowed},
	{"grep -rn the root", "grep -rn TODO .", cR, "", "", cAllowed},
	{"grep -rnw", "grep -rnw foo src", cR, "", "", cAllowed},
	{"grep -E", "grep -rE 'a|b' src", cR, "", "", cAllowed},
	{"grep -i", "grep -ri todo .", cR, "", "", cAllowed},
	{"grep --include", "grep -rn TODO --include='*.go' .", cR, "", "", cAllowed},
	{"grep --include=\"\"", "grep -rn --include=\"*.go\" TODO src", cR, "", "", cAllowed},
	{"grep --exclude-dir", "grep -rn --exclude-dir=node_modules TODO .", cR, "", "", cAllowed},
	{"grep -l", "grep -rl TODO src", cR, "", "", cAllowed},
	{"grep -L", "grep -rL TODO src", cR, "", "", cAllowed},
	{"grep -c", "grep -c TODO src/a.go", cR, "", "", cAllowed},
	{"grep -A -B", "grep -A 3 -B 2 TODO src/a.go", cR, "", "", cAllowed},
	{"grep -C", "grep -C2 TODO src/a.go", cR, "", "", cAllowed},
	{"grep -3", "grep -3 TODO src/a.go", cR, "", "", cAllowed},
	{"grep -o", "grep -o 'pack[a-z]*' src/a.go", cR, "", "", cAllowed},
	{"grep -m", "grep -m 1 package src/a.go", cR, "", "", cAllowed},
	{"grep -q and echo", "grep -q package src/a.go && echo yes", cR, "", "", cAllowed},
	{"grep -v", "grep -v '^#' a.txt", cR, "", "", cAllowed},
	{"grep -e -e", "grep -n -e foo -e bar a.txt", cR, "", "", cAllowed},
	{"grep -h into sort", "grep -rh package src | sort | uniq -c", cR, "", "", cAllowed},
	{"grep -s", "grep -s foo nofile", cR, "", "", cAllowed},
	{"grep color", "grep --color=never foo a.txt", cR, "", "", cAllowed},
	{"grep -P", "grep -P '\\d+' data.csv", cR, "", "", cAllowed},
	{"grep -Fx", "grep -Fx a a.txt", cR, "", "", cAllowed},
	{"grep -w -i", "grep -wi todo README.md", cR, "", "", cAllowed},
	{"grep -R where no link leads out", "grep -R package src/sub/empty", cR, "", "", cAllowed},
	{"grep -n with -- and a dash pattern", "grep -n -- '-x' a.txt", cR, "", "", cAllowed},
	{"grep into head", "grep -rn 'func ' src | head -20", cR, "", "", cAllowed},
	{"grep into wc", "grep x a.txt | wc -l", cR, "", "", cAllowed},
	{"grep from stdin", "cat a.txt | grep a", cR, "", "", cAllowed},
	{"grep -Z -l", "grep -rlZ TODO src", cR, "", "", cAllowed},
	{"grep --binary-files", "grep --binary-files=without-match -rn x .", cR, "", "", cAllowed},
	{"grep -I", "grep -rnI TODO .", cR, "", "", cAllowed},

	// find.
	{"find by name", "find . -name '*.go'", cR, "", "", cAllowed},
	{"find -type f", "find . -type f -name '*.go'", cR, "", "", cAllowed},
	{"find maxdepth", "find . -maxdepth 2 -type d", cR, "", "", cAllowed},
	{"find -newer", "find src -name '*.go' -newer README.md", cR, "", "", cAllowed},
	{"find prune", "find . -path ./node_modules -prune -o -name '*.go' -print", cR, "", "", cAllowed},
	{"find -not -path", "find . -not -path '*/node_modules/*' -name '*.md'", cR, "", "", cAllowed},
	{"find size", "find . -size +1k", cR, "", "", cAllowed},
	{"find mtime", "find . -mtime -1", cR, "", "", cAllowed},
	{"find print0", "find . -type f -print0", cR, "", "", cAllowed},
	{"find counted", "find . -name '*.go' | wc -l", cR, "", "", cAllowed},
	{"find iname quoted", "find . -iname 'readme*'", cR, "", "", cAllowed},
	{"find empty", "find . -type f -empty", cR, "", "", cAllowed},
	{"find -o", "find . -name '*.go' -o -name '*.md'", cR, "", "", cAllowed},
	{"find parens", "find . \\( -name a -o -name b \\) -print", cR, "", "", cAllowed},
	{"find links", "find . -type l", cR, "", "", cAllowed},
	{"find hidden", "find . -maxdepth 1 -name '.*'", cR, "", "", cAllowed},
	{"find sorted", "find . -mindepth 1 -maxdepth 1 -type d | sort", cR, "", "", cAllowed},
	{"find -ls", "find src -ls", cR, "", "", cAllowed},
	{"find -printf", "find src -type f -printf '%p %s\\n'", cR, "", "", cAllowed},
	{"find no start", "find -name '*.md'", cR, "", "", cAllowed},
	{"find two starts", "find src docs -type f", cR, "", "", cAllowed},
	{"find -regex", "find . -regex '.*\\.go$'", cR, "", "", cAllowed},
	{"find -perm", "find . -perm -u+x -type f", cR, "", "", cAllowed},
	{"find with stderr dropped", "find . -name x 2>/dev/null", cR, "", "", cAllowed},

	// ls, tree, du, stat, file.
	{"ls", "ls", cR, "", "", cAllowed},
	{"ls -la", "ls -la", cR, "", "", cAllowed},
	{"ls -lh src", "ls -lh src", cR, "", "", cAllowed},
	{"ls -R", "ls -R src", cR, "", "", cAllowed},
	{"ls -1", "ls -1", cR, "", "", cAllowed},
	{"ls -lt", "ls -lt", cR, "", "", cAllowed},
	{"ls -ltr into head", "ls -ltr | head", cR, "", "", cAllowed},
	{"ls -a .vscode", "ls -a .vscode", cR, "", "", cAllowed},
	{"ls .git", "ls -la .git", cR, "", "", cAllowed},
	{"ls -S", "ls -lS", cR, "", "", cAllowed},
	{"ls color", "ls --color=auto", cR, "", "", cAllowed},
	{"ls -d of a folder", "ls -ld src", cR, "", "", cAllowed},
	{"ls a link itself with -d", "ls -ld linkdir-in", cR, "", "", cAllowed},
	{"ls several", "ls src docs", cR, "", "", cAllowed},
	{"ls a file", "ls -l a.txt", cR, "", "", cAllowed},
	{"ls a missing path", "ls nothere 2>/dev/null", cR, "", "", cAllowed},
	{"ls piped to grep", "ls -la | grep go", cR, "", "", cAllowed},
	{"tree", "tree", cR, "", "", cAllowed},
	{"tree -L -I", "tree -L 2 -I node_modules", cR, "", "", cAllowed},
	{"tree src", "tree src", cR, "", "", cAllowed},
	{"tree -a -d", "tree -a -d -L 1", cR, "", "", cAllowed},
	{"du -sh", "du -sh .", cR, "", "", cAllowed},
	{"du -sh src", "du -sh src", cR, "", "", cAllowed},
	{"du max-depth", "du -h --max-depth=1 .", cR, "", "", cAllowed},
	{"du -d", "du -d 1 -h src", cR, "", "", cAllowed},
	{"stat", "stat a.txt", cR, "", "", cAllowed},
	{"stat -c", "stat -c %s a.txt", cR, "", "", cAllowed},
	{"stat a link itself", "stat link-out", cR, "", "", cAllowed},
	{"file", "file a.txt", cR, "", "", cAllowed},
	{"file several", "file src/a.go src/b.go", cR, "", "", cAllowed},
	{"file --mime-type", "file --mime-type -b README.md", cR, "", "", cAllowed},

	// cat, head, tail, wc, sort, uniq, diff, cmp, sums.
	{"cat", "cat README.md", cR, "", "", cAllowed},
	{"cat -n", "cat -n src/a.go", cR, "", "", cAllowed},
	{"cat two files", "cat a.txt b.txt", cR, "", "", cAllowed},
	{"cat a link inside", "cat link-in", cR, "", "", cAllowed},
	{"cat through a folder link inside", "cat linkdir-in/a.go", cR, "", "", cAllowed},
	{"cat a dotfile", "cat .gitattributes", cR, "", "", cAllowed},
	{"cat the policy file (reading is fine)", "cat .admit/policy.json", cR, "", "", cAllowed},
	{"cat git config", "cat .git/config", cR, "", "", cAllowed},
	{"cat vscode settings", "cat .vscode/settings.json", cR, "", "", cAllowed},
	{"cat absolute inside", "cat @W/a.txt", cR, "", "", cAllowed},
	{"cat from stdin", "cat < a.txt", cR, "", "", cAllowed},
	{"cat -A", "cat -A a.txt", cR, "", "", cAllowed},
	{"head -n", "head -n 20 src/a.go", cR, "", "", cAllowed},
	{"head -20", "head -20 src/a.go", cR, "", "", cAllowed},
	{"head -c", "head -c 100 a.txt", cR, "", "", cAllowed},
	{"head --lines=", "head --lines=5 a.txt", cR, "", "", cAllowed},
	{"head several", "head -n 3 a.txt b.txt", cR, "", "", cAllowed},
	{"tail -n", "tail -n 50 a.txt", cR, "", "", cAllowed},
	{"tail -5", "tail -5 a.txt", cR, "", "", cAllowed},
	{"tail -n +2", "tail -n +2 data.csv", cR, "", "", cAllowed},
	{"tail -c", "tail -c 10 a.txt", cR, "", "", cAllowed},
	{"wc -l", "wc -l src/a.go", cR, "", "", cAllowed},
	{"wc several", "wc -l a.txt b.txt", cR, "", "", cAllowed},
	{"wc cluster", "wc -lwc a.txt", cR, "", "", cAllowed},
	{"wc from stdin", "wc -l < a.txt", cR, "", "", cAllowed},
	{"sort", "sort a.txt", cR, "", "", cAllowed},
	{"sort -u", "sort -u a.txt", cR, "", "", cAllowed},
	{"sort -rn", "sort -rn a.txt", cR, "", "", cAllowed},
	{"sort -k -t", "sort -t, -k2 data.csv", cR, "", "", cAllowed},
	{"sort -k numeric", "sort -t: -k3 -n a.txt", cR, "", "", cAllowed},
	{"sort -V", "sort -V a.txt", cR, "", "", cAllowed},
	{"sort -h", "sort -h a.txt", cR, "", "", cAllowed},
	{"uniq", "uniq a.txt", cR, "", "", cAllowed},
	{"uniq -c", "uniq -c a.txt", cR, "", "", cAllowed},
	{"uniq -d", "sort a.txt | uniq -d", cR, "", "", cAllowed},
	{"diff", "diff a.txt b.txt", cR, "", "", cAllowed},
	{"diff -u", "diff -u a.txt b.txt", cR, "", "", cAllowed},
	{"diff -q", "diff -q a.txt b.txt", cR, "", "", cAllowed},
	{"diff -r where no link leads out", "diff -r src/sub/empty emptydir", cR, "", "", cAllowed},
	{"diff stdin", "git show HEAD:a.txt | diff - a.txt", cR, "", "", cAllowed},
	{"diff -y -W", "diff -y -W 80 a.txt b.txt", cR, "", "", cAllowed},
	{"cmp", "cmp a.txt b.txt", cR, "", "", cAllowed},
	{"cmp -s or echo", "cmp -s a.txt b.txt || echo differ", cR, "", "", cAllowed},
	{"sha256sum", "sha256sum a.txt", cR, "", "", cAllowed},
	{"md5sum two", "md5sum a.txt b.txt", cR, "", "", cAllowed},
	{"sha256sum from stdin", "cat a.txt | sha256sum", cR, "", "", cAllowed},

	// Small shell words and lists.
	{"echo", "echo hello", cR, "", "", cAllowed},
	{"echo -n", "echo -n hi", cR, "", "", cAllowed},
	{"printf", "printf '%s\\n' a b", cR, "", "", cAllowed},
	{"true", "true", cR, "", "", cAllowed},
	{"false or true", "false || true", cR, "", "", cAllowed},
	{"colon", ":", cR, "", "", cAllowed},
	{"test -d and echo", "test -d src && echo yes", cR, "", "", cAllowed},
	{"[ -f ] and echo", "[ -f a.txt ] && echo exists", cR, "", "", cAllowed},
	{"test -z of a string", "test -z ''", cR, "", "", cAllowed},
	{"[ string compare ]", "[ abc = abc ]", cR, "", "", cAllowed},
	{"test -e a missing file", "test -e missing.txt || echo no", cR, "", "", cAllowed},
	{"basename", "basename src/a.go .go", cR, "", "", cAllowed},
	{"dirname", "dirname src/a.go", cR, "", "", cAllowed},
	{"basename of an outside path names no file", "basename /etc/passwd", cR, "", "", cAllowed},
	{"realpath inside", "realpath src", cR, "", "", cAllowed},
	{"realpath a file", "realpath a.txt", cR, "", "", cAllowed},
	{"readlink -f an inside link", "readlink -f linkdir-in", cR, "", "", cAllowed},
	{"readlink a link's text", "readlink link-out", cR, "", "", cAllowed},
	{"pwd", "pwd", cR, "", "", cAllowed},
	{"cd and ls", "cd src && ls", cR, "", "", cAllowed},
	{"cd deeper and cat", "cd src/sub && cat c.go", cR, "", "", cAllowed},
	{"cd and back", "cd src && ls && cd .. && ls", cR, "", "", cAllowed},
	{"cd through an inside link", "cd linkdir-in && ls", cR, "", "", cAllowed},
	{"subshell cd", "(cd src && ls) && ls docs", cR, "", "", cAllowed},
	{"&& echo done", "ls && echo done", cR, "", "", cAllowed},
	{"|| true", "grep foo a.txt || true", cR, "", "", cAllowed},
	{"; list", "head -n 5 a.txt; tail -n 5 a.txt", cR, "", "", cAllowed},
	{"newline list", "ls src\nls docs", cR, "", "", cAllowed},
	{"comment after", "ls # list", cR, "", "", cAllowed},
	{"cat sort uniq sort head", "cat a.txt | sort | uniq -c | sort -rn | head", cR, "", "", cAllowed},
	{"stderr to stdout", "ls nothere 2>&1 | head", cR, "", "", cAllowed},
	{"|& pipe", "ls nothere |& head", cR, "", "", cAllowed},
	{"output to /dev/null", "cat a.txt b.txt > /dev/null", cR, "", "", cAllowed},
	{"&> /dev/null", "grep -q x a.txt &> /dev/null", cR, "", "", cAllowed},
	{"brace expansion inside", "cat {a,b}.txt", cR, "", "", cAllowed},
	{"brace sequence inside", "ls src docs/{guide.md,to-vendor}", cR, "", "", cAllowed},
	{"quoted glob is literal", "echo '*'", cR, "", "", cAllowed},
	{"quoted dollar is literal", "echo '$HOME'", cR, "", "", cAllowed},
	{"here-doc with a quoted delimiter", "cat <<'EOF'\n$HOME is literal\nEOF", cR, "", "", cAllowed},
	{"here-doc literal", "cat <<EOF\nhello\nEOF", cR, "", "", cAllowed},
	{"here-string", "grep a <<< 'abc'", cR, "", "", cAllowed},
	{"negation", "! grep -q x a.txt", cR, "", "", cAllowed},
	{"group", "{ ls; ls src; }", cR, "", "", cAllowed},
	{"exit-status-free list", "ls src; ls docs; echo ok", cR, "", "", cAllowed},

	// Writes with workspace-write and observations.
	{"mkdir -p", "mkdir -p a/b/c", cW, "d:.", "", cAllowed},
	{"mkdir in a listed folder", "mkdir build/out", cW, "d:build", "", cAllowed},
	{"touch new", "touch new.txt", cW, "d:.", "", cAllowed},
	{"touch an observed file", "touch a.txt", cW, "f:a.txt", "", cAllowed},
	{"touch an inside dangling link", "touch dangling-in", cW, "d:.", "", cAllowed},
	{"cp", "cp a.txt b.txt", cW, "d:.", "", cAllowed},
	{"cp to a backup", "cp a.txt a.txt.bak", cW, "d:.", "", cAllowed},
	{"cp brace backup", "cp a.txt{,.bak}", cW, "d:.", "", cAllowed},
	{"cp into a folder", "cp a.txt src/", cW, "f:a.txt d:src", "", cAllowed},
	{"cp -r", "cp -r src src-copy", cW, "d:.", "", cAllowed},
	{"cp -a", "cp -a src backup", cW, "d:.", "", cAllowed},
	{"cp -v", "cp -v a.txt docs/", cW, "d:. d:docs", "", cAllowed},
	{"mv", "mv a.txt c.txt", cW, "d:.", "", cAllowed},
	{"mv into a folder", "mv a.txt src/", cW, "d:. d:src", "", cAllowed},
	{"mv -f", "mv -f src/a.go src/b.go", cW, "d:src", "", cAllowed},
	{"mv a link itself", "mv link-out link-out2", cW, "d:.", "", cAllowed},
	{"rm", "rm b.txt", cW, "d:.", "", cAllowed},
	{"rm -f", "rm -f b.txt", cW, "f:b.txt", "", cAllowed},
	{"rm a link itself", "rm link-out", cW, "d:.", "", cAllowed},
	{"rm -r a listed folder", "rm -r src/sub", cW, "d:src/sub", "", cAllowed},
	{"rm -rf a listed folder", "rm -rf build", cW, "d:build", "", cAllowed},
	{"rmdir", "rmdir emptydir", cW, "d:.", "", cAllowed},
	{"echo to an observed file", "echo x > a.txt", cW, "f:a.txt", "", cAllowed},
	{"echo to a new file", "echo x > observed.txt", cW, "d:.", "", cAllowed},
	{"append", "cat a.txt >> b.txt", cW, "f:b.txt", "", cAllowed},
	{"append to a new file", "echo hi >> notes.txt", cW, "d:.", "", cAllowed},
	{"printf to a file", "printf 'a\\n' > out.txt", cW, "d:.", "", cAllowed},
	{"sort into a file", "sort a.txt > sorted.txt", cW, "d:.", "", cAllowed},
	{"sort -o in place", "sort -o a.txt a.txt", cW, "f:a.txt", "", cAllowed},
	{"uniq to a file", "uniq a.txt u.txt", cW, "d:.", "", cAllowed},
	{"tree -o", "tree -o tree.txt", cW, "d:.", "", cAllowed},
	{"mkdir and cp", "mkdir -p out && cp a.txt out/", cW, "d:.", "", cAllowed},
	{"mkdir and write", "mkdir -p tmp && echo x > tmp/f.txt", cW, "d:.", "", cAllowed},
	{"grep saved", "grep -rn TODO src > todos.txt", cW, "d:.", "", cAllowed},
	{"ls saved", "ls -la > listing.txt", cW, "d:.", "", cAllowed},
	{"find saved", "find . -name '*.go' > files.txt", cW, "d:.", "", cAllowed},
	{"json file", "echo '{}' > config.json", cW, "d:.", "", cAllowed},
	{"here-doc into a file", "cat > new.md <<'EOF'\n# title\nEOF", cW, "d:.", "", cAllowed},
	{"here-doc into a file, unquoted", "cat <<EOF > new.md\nhello\nEOF", cW, "d:.", "", cAllowed},
	{"mv a file then read it", "mv a.txt c.txt && cat c.txt", cW, "d:.", "", cAllowed},
	{"cp a file then diff", "cp a.txt a.bak && diff a.txt a.bak", cW, "d:.", "", cAllowed},
	{"touch two", "touch x.txt y.txt", cW, "d:.", "", cAllowed},
	{"write in a subfolder cwd (observations are relative to it)", "echo x > new.go", cW, "d:.", "src", cAllowed},
	{"tee-free append with stderr", "ls >> list.txt 2>&1", cW, "d:.", "", cAllowed},
	{"rm in a cd", "cd src && rm b.go", cW, "d:src", "", cAllowed},
	{"two git commands saved to files", "git log --oneline > log.txt; git diff > diff.txt", cW, "d:.", "", cAllowed},
	{"mkdir, then git output saved there", "mkdir -p out && git log > out/log.txt", cW, "d:.", "", cAllowed},
	{"git, then a write after it", "git status && echo done > status.txt", cW, "d:.", "", cAllowed},
}

// TestCLICases runs every case through `admit check` (the package-main
// function, the same code path as the server) in one rich workspace.
func TestCLICases(t *testing.T) {
	w := newCLIWorkspace(t)
	t.Setenv("HOME", w.home)
	for _, v := range []string{"ADMIT_EFFECTS", "ADMIT_MAX_STEPS", "ADMIT_MAX_RETRIES", "ADMIT_MAX_REQUEST_CHARS", "ADMIT_TIMEOUT_MS"} {
		t.Setenv(v, "")
	}
	if len(cliAttacks) < 250 || len(cliOrdinary) < 200 {
		t.Errorf("%d attacks and %d ordinary cases; want at least 250 and 200", len(cliAttacks), len(cliOrdinary))
	}
	run := func(c cliCase) {
		t.Helper()
		args := []string{"--root", w.ws}
		if c.w {
			args = append(args, "--effects", "workspace-write")
		} else {
			args = append(args, "--effects", "read-only")
		}
		for _, tok := range strings.Fields(c.obs) {
			kind, rel, _ := strings.Cut(tok, ":")
			flag := "--observed"
			if kind == "d" {
				flag = "--observed-dir"
			}
			args = append(args, flag, rel)
		}
		if c.cwd != "" {
			args = append(args, "--cwd", c.cwd)
		}
		line := strings.ReplaceAll(c.line, "@W", w.ws)
		args = append(args, "-c", line)
		var stdout, stderr bytes.Buffer
		code := check(args, &stdout, &stderr)
		var v struct {
			Allowed bool   `json:"allowed"`
			Rule    string `json:"rule"`
			Reason  string `json:"reason"`
		}
		if err := json.Unmarshal(stdout.Bytes(), &v); err != nil && code != 78 && code != 64 {
			t.Errorf("%s: %q: stdout is not a verdict: %v: %s %s", c.note, c.line, err, stdout.String(), stderr.String())
			return
		}
		wantCode := exitRefused
		if c.want == cAllowed {
			wantCode = exitOK
		}
		if code != wantCode || v.Rule != c.want {
			t.Errorf("%s: %q (obs %q, cwd %q): exit %d rule %s (%s %s), want exit %d rule %s",
				c.note, c.line, c.obs, c.cwd, code, v.Rule, v.Reason, strings.TrimSpace(stderr.String()), wantCode, c.want)
		}
	}
	for _, c := range cliAttacks {
		run(c)
	}
	for _, c := range cliOrdinary {
		run(c)
	}
	t.Logf("%d attacks, %d ordinary commands", len(cliAttacks), len(cliOrdinary))
}
