package workspace

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestParseGitConfigMatchesGit parses tricky configuration files with
// parseGitConfig and with git itself (git config --list), and requires the
// same entries, or both refusing the file.
func TestParseGitConfigMatchesGit(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	cases := []string{
		"[core]\n\tpager = less\n",
		"[core]\n\tpager = \"less; touch x\"\n",
		"[core]\n\tpager = less; touch x\n",
		"[core]\n\tpager = less # comment\n",
		"[core]\n\tpager =   a   b  \n",
		"[core]\n\tpager = \"  a  \" b\n",
		"[core]\n\tpager = a\\\n b\n",
		"[core]\n\tpager = \"a\\tb\\n\\\\ \\\"q\\\"\"\n",
		"[core]\n\tfsmonitor\n",
		"[core]\n\tfsmonitor =\n",
		"[CORE]\n\tPager = x\n",
		"[diff \"MyDriver\"]\n\ttextconv = x\n",
		"[diff \"a\\\"b\\\\c\"]\n\tcommand = x\n",
		"[diff.Bin]\n\ttextconv = x\n",
		"[core] pager = x\n",
		"[core]\n[alias]\n\tst = !sh -c 'x'\n",
		"\ufeff[core]\n\tpager = bom\n",
		"[a-b.c]\n\tk-1 = v\n",
		"; c\n# c\n[core]\n\t; c\n\tpager = x ; c\n",
		"[core\n\tpager = x\n",
		"pager = x\n",
		"[core]\n\tpager = \"unterminated\n",
		"[core]\n\t1pager = x\n",
		"[core]\n\tpager = a\\qb\n",
		"[core]\r\n\tpager = crlf\r\n",
	}
	dir := t.TempDir()
	for i, text := range cases {
		f := filepath.Join(dir, "c"+string(rune('a'+i)))
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(git, "config", "--file", f, "--no-includes", "--list")
		cmd.Env = []string{"HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1", "PATH=/usr/bin:/bin"}
		out, gerr := cmd.Output()
		entries, perr := parseGitConfig([]byte(text))
		if (gerr != nil) != (perr != nil) {
			t.Errorf("%q: git error %v, parser error %v", text, gerr, perr)
			continue
		}
		if perr != nil {
			continue
		}
		var lines []string
		for _, e := range entries {
			if e.hasValue {
				lines = append(lines, e.name()+"="+e.value)
			} else {
				lines = append(lines, e.name())
			}
		}
		got := strings.Join(lines, "\n")
		want := strings.TrimSuffix(string(out), "\n")
		if got != want {
			t.Errorf("%q:\nparser: %q\ngit:    %q", text, got, want)
		}
	}
}

func FuzzParseGitConfig(f *testing.F) {
	f.Add([]byte("[core]\n\tpager = \"less\" ; c\n[diff \"x\"]\n\ttextconv = y\\\nz\n"))
	f.Add([]byte("[include]\npath = a\n[includeIf \"gitdir:x\"]\npath=b\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := parseGitConfig(data)
		if err != nil {
			return
		}
		for _, e := range entries {
			if e.key == "" || strings.ToLower(e.key) != e.key {
				t.Fatalf("bad entry %+v", e)
			}
		}
	})
}
