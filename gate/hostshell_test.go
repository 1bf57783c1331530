package gate_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"admit/gate"
	"admit/policy"
)

// hostWorld is a workspace with a git repository and a link to a folder
// outside holding a secret, and a gate over it whose person's shell is
// personShell.
func hostWorld(t *testing.T, personShell string) (*gate.Gate, string) {
	t.Helper()
	base, _ := filepath.EvalSymlinks(t.TempDir())
	ws := filepath.Join(base, "ws")
	for _, d := range []string{filepath.Join(ws, ".git"), filepath.Join(ws, "src"), filepath.Join(base, "outside", "deep")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, content := range map[string]string{filepath.Join(ws, "a.go"): "package a\n", filepath.Join(base, "outside", "deep", "secret.txt"): "s3cret\n"} {
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(base, "outside"), filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	g, err := gate.Open(gate.Options{Dirs: []string{ws}, Settings: gate.Settings{Mode: "enforce", Effects: "workspace-write"}, Home: filepath.Join(base, "home"),
		Bounds: policy.DefaultBounds(), Headless: true, Trust: gate.NewTrustStore(filepath.Join(base, "trust")), PersonShell: personShell})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	if _, err := g.Observe(gate.ObserveParams{Dirs: []string{ws, filepath.Join(ws, ".git"), filepath.Join(ws, "src")}}); err != nil {
		t.Fatal(err)
	}
	return g, ws
}

// TestTerminalToolProfile: VS Code's run_in_terminal, checked without a
// shell field, is judged as the person's terminal reads the line, or
// portable when their shell is not one admit models, never as bash -c.
func TestTerminalToolProfile(t *testing.T) {
	for _, c := range []struct {
		personShell, line string
		allowed           bool
	}{
		{"/bin/bash", "echo -O\"touch M\"; git grep !#:1 hi", false}, // history expansion
		{"/bin/bash", "echo harmless \x15touch M", false},            // ^U erases what came before
		{"/bin/bash", "ls *.go", true},
		{"/usr/bin/zsh", "cat ***/secret.txt", false}, // zsh follows the link out
		{"/usr/bin/zsh", "ls *.go", true},
		{"/usr/bin/fish", "ls *.go", true},  // a * alone: fish's order is judged too
		{"/usr/bin/fish", "ls ?.go", false}, // fish 4 reads ? as itself
		{"", "cat ***/secret.txt", false},   // unknown: portable
		{"", "ls src/[ab].go", false},       // fish has no classes
		{"", "git status", true},
		{"/usr/bin/nu", "echo hi # c", false},
	} {
		g, _ := hostWorld(t, c.personShell)
		v := check(t, g, gate.CheckParams{Tool: "run_in_terminal", Command: c.line})
		if v.Allowed != c.allowed {
			t.Errorf("SHELL=%q run_in_terminal %q: allowed %v (%s %s), want %v", c.personShell, c.line, v.Allowed, v.Rule, v.Reason, c.allowed)
		}
		// The same line as bash -c is judged as bash -c: only the
		// terminal's tool takes the terminal's profile.
		if strings.Contains(c.line, "***") {
			if v := check(t, g, gate.CheckParams{Tool: "bash", Command: "ls *.go"}); !v.Allowed {
				t.Errorf("bash ls *.go refused: %s", v.Reason)
			}
		}
	}
}

// TestHostShellJudgesAsks: a rewritten call (Handle) is judged as admit's
// runner reads it; where the host would run it itself (an ask it puts to
// its own prompt), as the host's shell reads it too.
func TestHostShellJudgesAsks(t *testing.T) {
	g, _ := hostWorld(t, "")
	// python3 runs code: asked. zsh replaces =python3 with the program's
	// path (its EQUALS option, on in zsh -c too).
	asked := gate.CheckParams{Tool: "Bash", Command: "python3 =python3", Handle: true}
	if v := check(t, g, asked); v.Outcome != "ask" {
		t.Fatalf("without a host shell: %s %s %s, want an ask", v.Outcome, v.Rule, v.Reason)
	}
	asked.HostShell = "zsh"
	v := check(t, g, asked)
	if v.Outcome != "deny" || v.Rule != "shell-syntax" || !strings.Contains(v.Reason, "its own shell") {
		t.Fatalf("with zsh as the host's shell: %s %s %s, want shell-syntax", v.Outcome, v.Rule, v.Reason)
	}
	// An allowed line with its handle runs in admit: zsh's reading does
	// not count.
	if v := check(t, g, gate.CheckParams{Tool: "Bash", Command: "echo hi # note", Handle: true, HostShell: "zsh"}); !v.Allowed || v.Handle == "" {
		t.Fatalf("an allowed, rewritten line: %+v", v)
	}
	if _, err := g.Check(t.Context(), gate.CheckParams{Tool: "Bash", Command: "ls", Handle: true, HostShell: "tcsh"}); err == nil || !strings.Contains(err.Error(), "hostShell") {
		t.Fatalf("an unknown host shell: %v", err)
	}
}

// TestStayInFolder: a shell the host may keep from call to call, or put
// back, may not be left in another folder by a line; a cd in a subshell,
// and lines that come back, are judged as ever.
func TestStayInFolder(t *testing.T) {
	g, _ := hostWorld(t, "/bin/bash")
	for line, want := range map[string]bool{
		"cd .git":                   false,
		"cd src; touch M; cd ..":    true, // the write is judged in src, where it lands
		"cd src && ls":              false,
		"cd src && cd ..":           true,
		"(cd src && ls)":            true,
		"ls src":                    true,
		"cd nowhere; ls":            false,
		"cd src || cd .git; ls":     false,
		"git status && cd src; pwd": false,
	} {
		v := check(t, g, gate.CheckParams{Tool: "execute_command", Command: line, StayInFolder: true, Shell: "bash-interactive"})
		if want {
			// Allowed, or asked for what the line does, never for where it leaves the shell.
			if !v.Allowed && strings.Contains(v.Reason, "another folder") {
				t.Errorf("%q: %s %s", line, v.Rule, v.Reason)
			}
			continue
		}
		if v.Allowed {
			t.Errorf("%q: allowed, but it leaves the shell elsewhere", line)
		}
	}
}

// TestHostMayIgnoreRewrite: where the host may run the line as it is
// though answered with a handle, nothing is allowed only because admit's
// runner would run it: a command substitution admit judges again once
// its words are known is refused where the host's shell would split its
// names, and code the person lets run confined
// without asking is asked.
func TestHostMayIgnoreRewrite(t *testing.T) {
	g, ws := hostWorld(t, "")
	if err := os.Remove(filepath.Join(ws, "link")); err != nil { // a walk would find it
		t.Fatal(err)
	}
	// A name the host's shell would split: the list is judged there as
	// git ls-files | xargs wc -l, and refused; admit's runner judges the
	// words it gets.
	if err := os.WriteFile(filepath.Join(ws, "a b.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	sub := gate.CheckParams{Tool: "Bash", Command: "wc -l $(git ls-files)", Handle: true}
	if v := check(t, g, sub); !v.Allowed || v.Handle == "" {
		t.Fatalf("the substitution is not admitted for admit's runner: %s %s", v.Rule, v.Reason)
	}
	sub.HostMayIgnore = true
	if v := check(t, g, sub); v.Allowed {
		t.Fatalf("a host that may ignore the rewrite would run the substitution unjudged: %+v", v)
	}
}
