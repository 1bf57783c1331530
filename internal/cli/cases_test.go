package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"admit/internal/cases"
	"admit/policy/rule"
)

// TestCases runs every case of the corpus (internal/cases) through
// `admit check`, flags and all, as an agent's hook would: the verdict on
// stdout, exit 0 for an allowed call and 77 for any other. The command
// policy (policy/command) and the gate (gate) walk the same cases.
func TestCases(t *testing.T) {
	for _, v := range []string{"ADMIT_EFFECTS", "ADMIT_MAX_STEPS", "ADMIT_MAX_RETRIES", "ADMIT_MAX_REQUEST_CHARS", "ADMIT_TIMEOUT_MS"} {
		t.Setenv(v, "")
	}
	cases.Walk(t, func(t *testing.T, w *cases.Workspace, c *cases.Case) {
		args, why := checkArgs(w, c)
		if why != "" {
			t.Skip(why)
		}
		t.Setenv("HOME", w.Home)
		config := t.TempDir()
		t.Setenv("XDG_CONFIG_HOME", config)
		if err := c.WriteRules(filepath.Join(config, "admit")); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		code := check(args, Stdio{Out: &stdout, Err: &stderr})
		var v struct {
			Allowed bool   `json:"allowed"`
			Rule    string `json:"rule"`
			Reason  string `json:"reason"`
			Outcome string `json:"outcome"`
		}
		if err := json.Unmarshal(stdout.Bytes(), &v); err != nil {
			t.Fatalf("%s: %s: exit %d, stdout is not a verdict: %v: %s %s", c.Pos, c, code, err, stdout.String(), stderr.String())
		}
		got := cases.Got{Outcome: cases.Refused, Rule: v.Rule, Reason: v.Reason}
		switch {
		case v.Allowed:
			got.Outcome = cases.Allowed
		case v.Outcome == string(rule.OutcomeAsk):
			got.Outcome = cases.Asked
		}
		if c.Terminal && c.Want.Outcome != cases.Refused && v.Rule == string(rule.DynamicWord) && strings.Contains(v.Reason, "admit decides alone here") {
			// admit check decides one line, and the terminal's next line
			// is another admit check, which could not know where this one
			// left it: a line that may leave the terminal's folder is
			// refused here (TestCheckTerminalCdItCannotFollow), where the
			// editor's server, which the corpus is written for, follows it.
			if code != exitRefused {
				t.Errorf("%s: %s: refused with exit %d", c.Pos, c, code)
			}
			return
		}
		c.Check(t, got)
		want := map[bool]int{true: exitOK, false: exitRefused}[v.Allowed]
		if v.Rule == string(rule.PolicyInvalid) {
			want = exitConfig // a policy file the gate cannot use is a configuration error
		}
		if code != want {
			t.Errorf("%s: %s: exit %d with allowed=%v, want %d (%s)", c.Pos, c, code, v.Allowed, want, strings.TrimSpace(stderr.String()))
		}
	})
}

// checkArgs are the flags of admit check for c, or why the command line
// cannot put it.
func checkArgs(w *cases.Workspace, c *cases.Case) ([]string, string) {
	switch {
	case len(c.Stale) > 0:
		return nil, "admit check observes files as they are now: it cannot say that one changed since it was read"
	case c.Argv != nil && len(c.Argv) == 0:
		return nil, "admit check -- with no words is a usage error (TestCheckUsage), not a call"
	}
	var args []string
	for _, r := range w.Roots {
		args = append(args, "--root", r)
	}
	// --cwd is absolute: the gate sorts its roots, so a relative one (and
	// none) would be taken from the root first by name, not from @W.
	args = append(args, "--effects", c.Effects, "--shell", c.Shell, "--cwd", w.Cwd(c))
	if c.Path != nil {
		args = append(args, "--env-path", w.Expand(*c.Path))
	} else {
		args = append(args, "--no-env-path") // the case says nothing of a PATH: not this test process's
	}
	if c.Terminal {
		args = append(args, "--terminal", "t1")
	}
	for _, p := range c.Observed {
		args = append(args, "--observed", p)
	}
	for _, p := range c.ObservedDir {
		args = append(args, "--observed-dir", p)
	}
	switch {
	case c.Tool != "":
		args = append(args, "--tool", c.Tool, "--args", w.Expand(c.Args))
	case c.Argv != nil:
		args = append(args, "--")
		for _, a := range c.Argv {
			args = append(args, w.Expand(a))
		}
	default:
		if c.AdmitRuns {
			args = append(args, "--tool", "admit.run")
		}
		args = append(args, "-c", w.Expand(c.Line))
	}
	return args, ""
}
