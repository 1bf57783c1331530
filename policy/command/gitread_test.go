package command

import "testing"

func TestGitHarmlessConfig(t *testing.T) {
	for kv, want := range map[string]bool{
		"color.ui=never": true, "color.diff.meta=blue": true, "Color.UI=always": true, "core.quotepath=off": true,
		"core.quotePath": true, "user.name=A B": true, "log.date=iso": true, "diff.renames=copies": true,
		"commit.gpgsign=false": true, "commit.gpgSign=no": true, "pager.log=false": true, "advice.detachedHead=false": true,
		"commit.gpgsign=true": false, "commit.gpgsign": false, "log.showSignature": false, "log.showsignature=1": false,
		"pager.log=less": false, "pager.log": false, "core.pager=cat": false, "core.pager=sh": false,
		"core.fsmonitor=x": false, "core.sshCommand=x": false, "core.hooksPath=x": false, "diff.external=x": false,
		"diff.bin.textconv=x": false, "alias.st=!sh": false, "credential.helper=x": false, "gpg.program=x": false,
		"include.path=/x": false, "includeIf.gitdir:/.path=/x": false, "protocol.ext.allow=always": false,
		"safe.directory=*": false, "blame.ignoreRevsFile=x": false, "color": false, "color.": false, ".ui=x": false,
		"log.commit.gpgsign=false": false, "pager.x.log=false": false, "core.editor=vi": false, "core.x.quotepath=off": false,
	} {
		if got := gitHarmlessConfig(kv); got != want {
			t.Errorf("gitHarmlessConfig(%q) = %v, want %v", kv, got, want)
		}
	}
}

func TestGitReadsHere(t *testing.T) {
	for _, tc := range []struct {
		sub  string
		args []string
		want bool
	}{
		{"submodule", nil, true}, {"submodule", []string{"status"}, true}, {"submodule", []string{"--quiet", "status"}, true},
		{"submodule", []string{"update", "--init"}, false}, {"submodule", []string{"foreach", "ls"}, false},
		{"apply", []string{"--check", "p"}, true}, {"apply", []string{"p", "--numstat"}, true}, {"apply", []string{"p"}, false},
		{"apply", []string{"--stat", "--apply", "p"}, false}, {"apply", []string{"--check", "--reject", "p"}, false},
		{"apply", []string{"--check", "--", "--stat"}, false}, {"log", nil, true},
	} {
		if got := gitReadsHere(tc.sub, tc.args); got != tc.want {
			t.Errorf("gitReadsHere(%s %q) = %v, want %v", tc.sub, tc.args, got, tc.want)
		}
	}
}

func TestClusterCode(t *testing.T) {
	perl := toolchainTable()
	var in *interpreter
	for _, tc := range perl {
		if tc.names == "perl" {
			in = tc.interp
		}
	}
	if in == nil {
		t.Fatal("no perl in the toolchain table")
	}
	for s, want := range map[string]int{
		"ne": -1, "lane": -1, "pe": -1, "e": -1, "E": -1, "lE": -1, "eprint": 1, "ne'print'": 1,
		"pie": 0, "i.bak": 0, "Mstrict": 0, "n": 0, "l0ne": -1, "00ne": -1, "F:": 0, "Fe": 0, "w": 0,
	} {
		if got := clusterCode(in, s); got != want {
			t.Errorf("clusterCode(perl, %q) = %d, want %d", s, got, want)
		}
	}
}
