package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// cliAttacks2 and cliOrdinary2 are the second red-team pass: classes the
// first pass (cli_cases_test.go) did not cover. They run in the same
// workspace (newCLIWorkspace) through the same `admit check` entry.
var cliAttacks2 = []cliCase{
	// Backups: cp and mv rename an existing destination to DEST+SUFFIX.
	{"cp backup suffix renames DEST to .envrc", "cp -b -S rc a.txt .env", cW, "d:.", "", cProt},
	{"mv --suffix (implies -b) makes .gitmodules", "mv --suffix=ules a.txt .gitmod", cW, "d:.", "", cProt},
	{"abbreviated --suf", "cp --suf=rc a.txt .env", cW, "d:.", "", cProt},
	{"backup into .vscode settings", "cp --backup=simple -S .json a.txt .vscode/settings", cW, "d:. d:.vscode", "", cProt},
	{"backup suffix into .admit", "cp -bS /x a.txt .admit/p", cW, "d:. d:.admit", "", cProt},
}

var cliOrdinary2 = []cliCase{
	{"cp with a plain backup", "cp -b a.txt b.txt", cW, "d:.", "", cAllowed},
	{"mv with a numbered backup", "mv --backup=numbered a.txt b.txt", cW, "d:.", "", cAllowed},
	{"--backup=none makes none", "cp --backup=none -S rc a.txt .env", cW, "d:.", "", cAllowed},
}

// runCLICase runs one case through check() and reports a mismatch.
func runCLICase(t *testing.T, w *cliWorkspace, c cliCase) {
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
	line = strings.ReplaceAll(line, "@B", w.base)
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

func TestCLICases2(t *testing.T) {
	w := newCLIWorkspace(t)
	t.Setenv("HOME", w.home)
	for _, v := range []string{"ADMIT_EFFECTS", "ADMIT_MAX_STEPS", "ADMIT_MAX_RETRIES", "ADMIT_MAX_REQUEST_CHARS", "ADMIT_TIMEOUT_MS"} {
		t.Setenv(v, "")
	}
	for _, c := range cliAttacks2 {
		if c.want == cAllowed {
			t.Errorf("%s: an attack case must name the rule that refuses it", c.note)
		}
		runCLICase(t, w, c)
	}
	for _, c := range cliOrdinary2 {
		runCLICase(t, w, c)
	}
	t.Logf("%d attacks, %d ordinary commands", len(cliAttacks2), len(cliOrdinary2))
}
