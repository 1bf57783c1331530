package bench

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"admit/internal/cases"
	"admit/policy/command"
	"admit/workspace"
)

// GeminiVersion is the Gemini CLI whose policy engine admit bench
// measures beside: the one scripts/realclients/setup.sh installs.
const GeminiVersion = "0.61.0"

// geminiPolicyScript times Gemini CLI's PolicyEngine.check on lines; admit
// bench writes it out and runs it with node.
//
//go:embed gemini-policy.mjs
var geminiPolicyScript []byte

// ErrNoGemini says why Gemini CLI's policy engine cannot be measured here:
// no node, or no Gemini CLI installed where setup.sh puts it.
var ErrNoGemini = errors.New("Gemini CLI's policy engine is not measured")

// GeminiCLI is an installed Gemini CLI and the node that runs it.
type GeminiCLI struct {
	Node    string // the node executable
	Package string // the folder of @google/gemini-cli, holding package.json and bundle/
}

// FindGemini finds node on the PATH and Gemini CLI GeminiVersion in the
// real clients' cache: $ADMIT_REAL_CLIENTS_CACHE when set, else the first
// of /opt/admit-realclients and $HOME/.cache/admit-realclients that holds
// it. setup.sh installs into the first when /opt is writable and into the
// second otherwise, so looking in both finds what it installed without
// asking whether /opt is writable. The error, wrapping ErrNoGemini, says
// what is missing and how to get it.
func FindGemini(getenv func(string) string) (GeminiCLI, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return GeminiCLI{}, fmt.Errorf("%w: node is not on the PATH (install Node.js 20 or later, then bash scripts/realclients/setup.sh)", ErrNoGemini)
	}
	caches := []string{getenv("ADMIT_REAL_CLIENTS_CACHE")}
	if caches[0] == "" {
		caches = []string{"/opt/admit-realclients"}
		if home := getenv("HOME"); home != "" {
			caches = append(caches, filepath.Join(home, ".cache", "admit-realclients"))
		}
	}
	for _, c := range caches {
		dir := filepath.Join(c, "gemini-"+GeminiVersion)
		if _, err := os.Stat(filepath.Join(dir, ".admit-installed")); err == nil {
			return GeminiCLI{Node: node, Package: filepath.Join(dir, "node_modules", "@google", "gemini-cli")}, nil
		}
	}
	return GeminiCLI{}, fmt.Errorf("%w: Gemini CLI %s is not installed in %s (bash scripts/realclients/setup.sh installs it)", ErrNoGemini, GeminiVersion, strings.Join(caches, " or "))
}

// GeminiResult is what gemini-policy.mjs prints: the engine, the lines it
// checked, the mean time of a check and the first pass's decisions.
type GeminiResult struct {
	Engine    string         `json:"engine"`
	Version   string         `json:"version"`
	Node      string         `json:"node"`
	Lines     int            `json:"lines"`
	Checks    int            `json:"checks"`    // timed checks, whole passes over the lines
	NsPerLine float64        `json:"nsPerLine"` // mean time of one check
	Decisions map[string]int `json:"decisions"` // allow, ask_user, deny: the counts of PerLine
	PerLine   []string       `json:"perLine"`   // each line's decision, in order
}

// geminiDecisions are PolicyDecision's values in Gemini CLI.
var geminiDecisions = []string{"allow", "ask_user", "deny"}

// ParseGeminiResult reads the script's output for lines lines and checks
// it is whole: an error names the field and its value.
func ParseGeminiResult(out []byte, lines int) (GeminiResult, error) {
	var r GeminiResult
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return GeminiResult{}, fmt.Errorf("gemini-policy.mjs printed no result: %v: %q", err, lastLines(out, 3))
	}
	counts := map[string]int{}
	for i, d := range r.PerLine {
		if !slices.Contains(geminiDecisions, d) {
			return GeminiResult{}, fmt.Errorf("gemini-policy.mjs: perLine[%d] %q: want one of %s", i, d, strings.Join(geminiDecisions, ", "))
		}
		counts[d]++
	}
	switch {
	case r.Engine != "@google/gemini-cli":
		return GeminiResult{}, fmt.Errorf("gemini-policy.mjs: engine %q: want @google/gemini-cli", r.Engine)
	case r.Version == "":
		return GeminiResult{}, fmt.Errorf("gemini-policy.mjs: version %q: want the package's version", r.Version)
	case !strings.HasPrefix(r.Node, "v"):
		return GeminiResult{}, fmt.Errorf("gemini-policy.mjs: node %q: want node's version, such as v20.1.0", r.Node)
	case r.Lines != lines:
		return GeminiResult{}, fmt.Errorf("gemini-policy.mjs: lines %d: want the %d lines given", r.Lines, lines)
	case len(r.PerLine) != lines:
		return GeminiResult{}, fmt.Errorf("gemini-policy.mjs: perLine has %d decisions: want one for each of the %d lines", len(r.PerLine), lines)
	case r.Checks < lines || r.Checks%lines != 0:
		return GeminiResult{}, fmt.Errorf("gemini-policy.mjs: checks %d: want whole passes over the %d lines", r.Checks, lines)
	case !(r.NsPerLine > 0) || math.IsInf(r.NsPerLine, 0):
		return GeminiResult{}, fmt.Errorf("gemini-policy.mjs: nsPerLine %v: want a positive number", r.NsPerLine)
	}
	for _, d := range geminiDecisions {
		if r.Decisions[d] != counts[d] {
			return GeminiResult{}, fmt.Errorf("gemini-policy.mjs: decisions.%s %d: perLine has %d", d, r.Decisions[d], counts[d])
		}
	}
	if len(r.Decisions) != len(geminiDecisions) {
		return GeminiResult{}, fmt.Errorf("gemini-policy.mjs: decisions %v: want exactly %s", r.Decisions, strings.Join(geminiDecisions, ", "))
	}
	return r, nil
}

// RunPolicy runs gemini-policy.mjs (written into dir) on lines, in the
// folder ws (the engine's workspace) with an empty home of its own in dir,
// so that no person's Gemini policies take part: it warms the engine up
// for warmup, then times whole passes for d.
func (g GeminiCLI) RunPolicy(dir, ws string, lines []string, warmup, d time.Duration) (GeminiResult, error) {
	script := filepath.Join(dir, "gemini-policy.mjs")
	if err := os.WriteFile(script, geminiPolicyScript, 0o644); err != nil {
		return GeminiResult{}, err
	}
	home := filepath.Join(dir, "gemini-home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return GeminiResult{}, err
	}
	in, err := json.Marshal(map[string]any{"lines": lines, "warmupMs": warmup.Milliseconds(), "ms": d.Milliseconds()})
	if err != nil {
		return GeminiResult{}, err
	}
	cmd := exec.Command(g.Node, script, g.Package)
	cmd.Dir, cmd.Stdin = ws, bytes.NewReader(in)
	cmd.Env = append(os.Environ(), "HOME="+home, "GEMINI_CLI_HOME="+home)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return GeminiResult{}, fmt.Errorf("node gemini-policy.mjs %s: %v: %s", g.Package, err, lastLines(stderr.Bytes(), 5))
	}
	return ParseGeminiResult(out, len(lines))
}

// ShellLines are the command lines admit bench gives both policies: the
// case corpus's ordinary lines (internal/cases/testdata/ordinary.txtar,
// the lines agents write every day, each beside the sibling that must
// stay refused) that are judged as they stand, with no rules, folder,
// observation or PATH of their own.
func ShellLines() ([]string, error) {
	themes, err := cases.Themes()
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, th := range themes {
		if th.Name != "ordinary" {
			continue
		}
		for _, c := range th.Cases {
			if c.LineSet && c.Line != "" && c.Rules == "" && c.Cwd == "" && !c.Write() && c.Shell == "analyze" && c.Path == nil &&
				!c.Terminal && !c.AdmitRuns && len(c.Observed)+len(c.ObservedDir)+len(c.Stale) == 0 {
				lines = append(lines, c.Line)
			}
		}
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("the case corpus has no ordinary lines")
	}
	return lines, nil
}

// ShellWorkspace makes, in dir, a workspace holding the files the
// ordinary lines name, and a home folder beside it; it returns both.
func ShellWorkspace(dir string) (ws, home string, err error) {
	ws, home = filepath.Join(dir, "ws-lines"), filepath.Join(dir, "home-lines")
	for _, f := range []string{"a.txt", "b.txt", "src/a.go", "src/b.go", "reproduce.py", "x.py"} {
		p := filepath.Join(ws, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", "", err
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			return "", "", err
		}
	}
	if err := os.MkdirAll(home, 0o755); err != nil {
		return "", "", err
	}
	ws, err = filepath.EvalSymlinks(ws)
	return ws, home, err
}

// AdmitLines is admit's command policy on lines in ws, read-only, as the
// gate asks it for a shell tool's line: its decisions' counts and the
// mean time of one Evaluate over whole passes for d.
type AdmitLines struct {
	NsPerLine               float64
	Checks                  int
	Allowed, Asked, Refused int
}

// EvaluateLines times command.Evaluate on lines for d, in whole passes,
// and counts the first pass's decisions.
func EvaluateLines(ws, home string, lines []string, d time.Duration) (AdmitLines, error) {
	roots, err := workspace.NewRoots(ws)
	if err != nil {
		return AdmitLines{}, err
	}
	p := command.New(nil)
	c := &command.Context{Roots: roots.List(), Effects: command.ReadOnly, Home: home, FS: workspace.NewResolver(roots), Now: time.Now}
	var r AdmitLines
	for _, line := range lines {
		switch dec := p.Evaluate(line, ws, c); {
		case dec.Allowed:
			r.Allowed++
		case dec.Ask:
			r.Asked++
		default:
			r.Refused++
		}
	}
	t0 := time.Now()
	for stop := t0.Add(d); r.Checks == 0 || time.Now().Before(stop); {
		for _, line := range lines {
			p.Evaluate(line, ws, c)
		}
		r.Checks += len(lines)
	}
	r.NsPerLine = float64(time.Since(t0).Nanoseconds()) / float64(r.Checks)
	return r, nil
}
