package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepoAt makes a minimal repository (HEAD, objects, refs) with config.
func gitRepoAt(t *testing.T, worktree, config string) string {
	t.Helper()
	gd := worktree + "/.git"
	writeFile(t, gd+"/HEAD", "ref: refs/heads/main\n")
	mkdirAll(t, gd+"/objects")
	mkdirAll(t, gd+"/refs/heads")
	writeFile(t, gd+"/config", config)
	return gd
}

const baseConfig = "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tlogallrefupdates = true\n"

func TestGitExecKeys(t *testing.T) {
	cases := []struct {
		name, config string
		want         string // substring of the finding; "" for none
	}{
		{"clean", baseConfig + "[remote \"origin\"]\n\turl = https://example.com/x.git\n[branch \"main\"]\n\tremote = origin\n", ""},
		{"core.pager", baseConfig + "\tpager = \"less; touch /tmp/x\"\n", `core.pager = "less; touch /tmp/x" in .git/config`},
		{"unquoted semicolon starts a comment", baseConfig + "\tpager = less; touch /tmp/x\n", `core.pager = "less" in .git/config`},
		{"core.pager cat is no pager", baseConfig + "\tpager = cat\n", ""},
		{"fsmonitor program", "[core]\n\tfsmonitor = .git/hooks/x\n", `core.fsmonitor = ".git/hooks/x"`},
		{"fsmonitor false", "[core]\n\tfsmonitor = false\n", ""},
		{"fsmonitor bare key is true", "[core]\n\tfsmonitor\n", `core.fsmonitor = "true"`},
		{"case-insensitive section and key", "[CoRe]\n\tPaGeR = evil\n", `core.pager = "evil"`},
		{"pager.log program", "[pager]\n\tlog = sh -c evil\n", `pager.log = "sh -c evil"`},
		{"pager.log false is a switch", "[pager]\n\tlog = false\n\tbranch = true\n", ""},
		{"diff textconv", "[diff \"bin\"]\n\ttextconv = hexdump -C\n", `diff.bin.textconv = "hexdump -C"`},
		{"diff command", "[diff \"x\"]\n\tcommand = ./run.sh\n", `diff.x.command = "./run.sh"`},
		{"subsection keeps case", "[diff \"MyDrv\"]\n\tTextConv = x\n", `diff.MyDrv.textconv = "x"`},
		{"deprecated subsection syntax", "[diff.Bin]\n\ttextconv = x\n", `diff.bin.textconv = "x"`},
		{"diff external", "[diff]\n\texternal = /usr/bin/evil\n", `diff.external = "/usr/bin/evil"`},
		{"filter clean", "[filter \"lfs\"]\n\tclean = git-lfs clean -- %f\n", `filter.lfs.clean = "git-lfs clean -- %f"`},
		{"filter smudge", "[filter \"f\"]\n\tsmudge = x\n", `filter.f.smudge = "x"`},
		{"filter process", "[filter \"f\"]\n\tprocess = x\n", `filter.f.process = "x"`},
		{"sshCommand", "[core]\n\tsshCommand = ssh -oProxyCommand=evil\n", `core.sshcommand = "ssh -oProxyCommand=evil"`},
		{"gpg.program", "[gpg]\n\tprogram = ./fake-gpg\n", `gpg.program = "./fake-gpg"`},
		{"gpg.ssh.program", "[gpg \"ssh\"]\n\tprogram = ./fake\n", `gpg.ssh.program = "./fake"`},
		{"hooksPath", "[core]\n\thooksPath = .hooks\n", `core.hookspath = ".hooks"`},
		{"alias", "[alias]\n\tst = !sh -c evil\n", `alias.st = "!sh -c evil"`},
		{"editor is not run by reads", "[core]\n\teditor = vim\n[sequence]\n\teditor = vim\n", ""},
		{"quoted value with escapes", "[core]\n\tpager = \"less \\\"-R\\\"\" ; comment\n", `core.pager = "less \"-R\""`},
		{"key on header line", "[core] pager = evil\n", `core.pager = "evil"`},
		{"continuation", "[core]\n\tpager = le\\\nss\n", `core.pager = "less"`},
		{"comment only", "# [core]\n; pager = x\n[core]\n", ""},
		{"syntax error fails closed", "[core\n\tpager = x\n", "cannot be parsed"},
		{"key outside any section names nothing", "pager = x\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := tempRoot(t)
			gitRepoAt(t, root, c.config)
			mkdirAll(t, root+"/src/pkg")
			r := NewResolver(mustRoots(t, root))
			got := r.GitExec(root + "/src/pkg")
			if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
				t.Errorf("GitExec = %q, want %q", got, c.want)
			}
		})
	}
}

func TestGitExecIncludes(t *testing.T) {
	t.Run("include relative to the config's folder", func(t *testing.T) {
		root := tempRoot(t)
		gitRepoAt(t, root, baseConfig+"[include]\n\tpath = extra.inc\n")
		writeFile(t, root+"/.git/extra.inc", "[core]\n\tpager = from-include\n")
		r := NewResolver(mustRoots(t, root))
		got := r.GitExec(root)
		if !strings.Contains(got, `core.pager = "from-include" in .git/extra.inc`) {
			t.Errorf("GitExec = %q", got)
		}
	})
	t.Run("includeIf whatever its condition, nested", func(t *testing.T) {
		root := tempRoot(t)
		gitRepoAt(t, root, "[includeIf \"gitdir:/nowhere/\"]\n\tpath = ../conf/a\n")
		writeFile(t, root+"/conf/a", "[include]\n\tpath = b\n")
		writeFile(t, root+"/conf/b", "[diff \"z\"]\n\ttextconv = evil\n")
		r := NewResolver(mustRoots(t, root))
		if got := r.GitExec(root); !strings.Contains(got, `diff.z.textconv = "evil" in conf/b`) {
			t.Errorf("GitExec = %q", got)
		}
	})
	t.Run("include from home", func(t *testing.T) {
		root := tempRoot(t)
		home := tempRoot(t)
		t.Setenv("HOME", home)
		writeFile(t, home+"/inc.cfg", "[core]\n\tfsmonitor = x\n")
		gitRepoAt(t, root, "[include]\n\tpath = ~/inc.cfg\n")
		r := NewResolver(mustRoots(t, root))
		if got := r.GitExec(root); !strings.Contains(got, "core.fsmonitor") || !strings.Contains(got, home+"/inc.cfg") {
			t.Errorf("GitExec = %q", got)
		}
	})
	t.Run("missing include is skipped as git does", func(t *testing.T) {
		root := tempRoot(t)
		gitRepoAt(t, root, "[include]\n\tpath = nothere\n")
		r := NewResolver(mustRoots(t, root))
		if got := r.GitExec(root); got != "" {
			t.Errorf("GitExec = %q", got)
		}
	})
	t.Run("unreadable include inside the roots fails closed", func(t *testing.T) {
		root := tempRoot(t)
		gitRepoAt(t, root, "[include]\n\tpath = incdir\n")
		mkdirAll(t, root+"/.git/incdir") // a folder cannot be read as a file
		r := NewResolver(mustRoots(t, root))
		if got := r.GitExec(root); !strings.Contains(got, "cannot be read") {
			t.Errorf("GitExec = %q", got)
		}
	})
	t.Run("include loop is depth-limited", func(t *testing.T) {
		root := tempRoot(t)
		gitRepoAt(t, root, "[include]\n\tpath = config\n")
		r := NewResolver(mustRoots(t, root))
		if got := r.GitExec(root); !strings.Contains(got, "nested deeper than 10") {
			t.Errorf("GitExec = %q", got)
		}
	})
}

func TestGitExecAttributesAndLayouts(t *testing.T) {
	t.Run("gitattributes assigns a defined driver", func(t *testing.T) {
		root := tempRoot(t)
		gitRepoAt(t, root, "[diff \"pdf\"]\n\ttextconv = pdftotext\n")
		writeFile(t, root+"/.gitattributes", "# docs\n*.pdf diff=pdf\n")
		r := NewResolver(mustRoots(t, root))
		got := r.GitExec(root)
		if !strings.Contains(got, `diff.pdf.textconv = "pdftotext" in .git/config (assigned by .gitattributes: "*.pdf diff=pdf")`) {
			t.Errorf("GitExec = %q", got)
		}
	})
	t.Run("info/attributes assigns a filter", func(t *testing.T) {
		root := tempRoot(t)
		gitRepoAt(t, root, "[filter \"f\"]\n\tclean = evil\n")
		writeFile(t, root+"/.git/info/attributes", "* filter=f\n")
		r := NewResolver(mustRoots(t, root))
		if got := r.GitExec(root); !strings.Contains(got, "assigned by .git/info/attributes") {
			t.Errorf("GitExec = %q", got)
		}
	})
	t.Run("attributes without a driver run nothing", func(t *testing.T) {
		root := tempRoot(t)
		gitRepoAt(t, root, baseConfig)
		writeFile(t, root+"/.gitattributes", "* diff=nothing filter=none\n")
		r := NewResolver(mustRoots(t, root))
		if got := r.GitExec(root); got != "" {
			t.Errorf("GitExec = %q", got)
		}
	})
	t.Run("gitdir file inside the roots", func(t *testing.T) {
		root := tempRoot(t)
		gd := gitRepoAt(t, root+"/store", "[core]\n\tpager = evil\n")
		mkdirAll(t, root+"/wt/sub")
		writeFile(t, root+"/wt/.git", "gitdir: ../store/.git\n")
		_ = gd
		r := NewResolver(mustRoots(t, root))
		if got := r.GitExec(root + "/wt/sub"); !strings.Contains(got, `core.pager = "evil"`) {
			t.Errorf("GitExec = %q", got)
		}
	})
	t.Run("gitdir file pointing outside the roots", func(t *testing.T) {
		root := tempRoot(t)
		out := tempRoot(t)
		gitRepoAt(t, out, baseConfig)
		writeFile(t, root+"/.git", "gitdir: "+out+"/.git\n")
		r := NewResolver(mustRoots(t, root))
		if got := r.GitExec(root); !strings.Contains(got, "outside the workspace roots") {
			t.Errorf("GitExec = %q", got)
		}
	})
	t.Run(".git symlink leading outside the roots", func(t *testing.T) {
		root := tempRoot(t)
		out := tempRoot(t)
		gitRepoAt(t, out, baseConfig)
		symlink(t, out+"/.git", root+"/.git")
		r := NewResolver(mustRoots(t, root))
		if got := r.GitExec(root); !strings.Contains(got, "leads outside the workspace roots") {
			t.Errorf("GitExec = %q", got)
		}
	})
	t.Run("linked worktree reads the common config", func(t *testing.T) {
		root := tempRoot(t)
		gitRepoAt(t, root+"/main", "[alias]\n\tx = !evil\n")
		wtgd := root + "/main/.git/worktrees/wt"
		writeFile(t, wtgd+"/HEAD", "ref: refs/heads/x\n")
		writeFile(t, wtgd+"/commondir", "../..\n")
		writeFile(t, root+"/wt/.git", "gitdir: "+wtgd+"\n")
		r := NewResolver(mustRoots(t, root))
		if got := r.GitExec(root + "/wt"); !strings.Contains(got, `alias.x = "!evil"`) {
			t.Errorf("GitExec = %q", got)
		}
	})
	t.Run("embedded bare repository", func(t *testing.T) {
		root := tempRoot(t)
		gitRepoAt(t, root, baseConfig)
		bare := root + "/evil.git"
		writeFile(t, bare+"/HEAD", "ref: refs/heads/main\n")
		mkdirAll(t, bare+"/objects")
		mkdirAll(t, bare+"/refs")
		writeFile(t, bare+"/config", "[core]\n\tfsmonitor = touch /tmp/pwned\n")
		r := NewResolver(mustRoots(t, root))
		if got := r.GitExec(bare); !strings.Contains(got, "core.fsmonitor") {
			t.Errorf("GitExec(bare) = %q", got)
		}
		if got := r.GitExec(root); got != "" {
			t.Errorf("GitExec(outer) = %q", got)
		}
	})
	t.Run("submodule config", func(t *testing.T) {
		root := tempRoot(t)
		gitRepoAt(t, root, baseConfig)
		m := root + "/.git/modules/lib"
		writeFile(t, m+"/HEAD", "x\n")
		mkdirAll(t, m+"/objects")
		mkdirAll(t, m+"/refs")
		writeFile(t, m+"/config", "[core]\n\tpager = evil\n")
		r := NewResolver(mustRoots(t, root))
		if got := r.GitExec(root); !strings.Contains(got, ".git/modules/lib/config") {
			t.Errorf("GitExec = %q", got)
		}
	})
	t.Run("no repository", func(t *testing.T) {
		root := tempRoot(t)
		r := NewResolver(mustRoots(t, root))
		// Whatever lies above the temporary folder decides the answer: no
		// repository there, no finding; one there, a finding that names it.
		above := repositoryAbove(filepath.Dir(root))
		got := r.GitExec(root)
		if above == "" && got != "" || above != "" && !strings.Contains(got, above) {
			t.Errorf("GitExec = %q, the nearest repository above is %q", got, above)
		}
	})
	t.Run("ordinary config", func(t *testing.T) {
		root := tempRoot(t)
		gitRepoAt(t, root, baseConfig+"\tfilemode = true\n[user]\n\tname = A\n\temail = a@example.com\n")
		r := NewResolver(mustRoots(t, root))
		if got := r.GitExec(root); got != "" {
			t.Errorf("GitExec = %q", got)
		}
	})
}

func TestGitExecMoreKeys(t *testing.T) {
	for name, tc := range map[string]struct {
		config string
		hook   bool
		want   string
	}{
		"log.showSignature":          {config: "[log]\n\tshowSignature = true\n", want: "log.showsignature"},
		"log.showSignature false":    {config: "[log]\n\tshowSignature = false\n"},
		"pretty with %GS":            {config: "[pretty]\n\tsig = format:%h %GS\n", want: "pretty.sig"},
		"pretty without signatures":  {config: "[pretty]\n\tshort = format:%h %an\n"},
		"format.pretty with %G?":     {config: "[format]\n\tpretty = %G?\n", want: "format.pretty"},
		"shortlog.group format: %GK": {config: "[shortlog]\n\tgroup = format:%GK\n", want: "shortlog.group"},
		"shortlog.group author":      {config: "[shortlog]\n\tgroup = author\n"},
		"core.alternateRefsCommand":  {config: "[core]\n\talternateRefsCommand = ./x\n", want: "core.alternaterefscommand"},
		"core.worktree outside":      {config: "[core]\n\tworktree = /etc\n", want: "core.worktree"},
		"core.worktree inside":       {config: "[core]\n\tworktree = ..\n"},
		"post-index-change hook":     {hook: true, want: "post-index-change"},
		"man.viewer":                 {config: "[man]\n\tviewer = evil\n", want: "man.viewer"},
		"man.evil.cmd":               {config: "[man \"evil\"]\n\tcmd = ./x\n", want: "man.evil.cmd"},
		"help.format web":            {config: "[help]\n\tformat = web\n", want: "help.format"},
		"help.format man":            {config: "[help]\n\tformat = man\n"},
		"tar.tgz.command":            {config: "[tar \"tgz\"]\n\tcommand = ./x\n", want: "tar.tgz.command"},
	} {
		t.Run(name, func(t *testing.T) {
			root := tempRoot(t)
			writeFile(t, root+"/.git/config", tc.config)
			writeFile(t, root+"/.git/HEAD", "ref: refs/heads/main\n")
			if tc.hook {
				writeFile(t, root+"/.git/hooks/post-index-change", "#!/bin/sh\n")
				if err := os.Chmod(root+"/.git/hooks/post-index-change", 0o755); err != nil {
					t.Fatal(err)
				}
			}
			writeFile(t, root+"/.git/hooks/pre-commit.sample", "#!/bin/sh\n")
			r := NewResolver(mustRoots(t, root))
			got := r.GitExec(root)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("GitExec = %q, want %q", got, tc.want)
			}
		})
	}
}

// repositoryAbove is the nearest folder at or above dir that holds a .git,
// or "" when there is none up to the file system's root.
func repositoryAbove(dir string) string {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
