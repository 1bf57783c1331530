// Package cases is admit's one case corpus: a workspace and the calls
// judged in it, kept as txtar archives under testdata and walked at every
// level that decides: the command policy (policy/command), the gate
// (gate) and the admit check command (internal/cli). A case added to
// an archive is checked at all three, the way mvdan/sh walks one table in
// its parser, printer and fuzz tests.
//
// testdata/workspace.txtar describes the workspace: each section is a
// file ("-- ws/a.txt --"), an empty folder ("-- ws/emptydir/ --"), a
// symbolic link ("-- ws/link-out -> @B/outside/secret.txt --"), a hard
// link to a file made before it ("-- ws/f => @B/outside/f --"), a FIFO
// ("-- ws/pipe (fifo) --") or an executable file ("-- ws/hook
// (executable) --"); its comment names the
// roots and the home folder. Every other archive is a theme of cases, one
// section each:
//
//	-- sibling named like the root --
//	line: head -n 1 ../ws-evil/secret.txt
//	want: refused outside-workspace
//
// The section's name is the case's name and note (the subtest is
// TestCases/THEME/NAME). The fields are:
//
//	line:         a command line (a value starting with " is Go-quoted,
//	              for lines with newlines or edge spaces)
//	argv:         literal words, as a JSON array (instead of line)
//	tool:, args:  a structured tool call, args as JSON (instead of line)
//	cwd:          the working folder, relative to the main root
//	effects:      read-only (the default) or workspace-write
//	observed:     files the agent has read, relative to cwd
//	observed-dir: folders the agent has listed, relative to cwd
//	stale:        files read, then changed by someone else
//	shell:        the shell profile: analyze (the default), refuse, or
//	              the shell a host types the line into (bash-interactive,
//	              zsh, fish, portable)
//	rules:        the person's rules, as the JSON of their rules file
//	              ({"allow": ["npm test *"], "deny": [...]}), matched
//	              with the repository's rules of the theme's policy
//	path:         the PATH the command runs with (@W and @B expanded);
//	              absent: not known, and names are the table's programs
//	terminal:     yes: the line is typed into a terminal that keeps its
//	              folder (a cd whose effect is not certain is refused)
//	runner:       admit: admit runs the line itself (tool admit.run),
//	              judging each command again once its words are known;
//	              host (the default): the host's shell runs it
//	want:         allowed, allowed rule-allows (by the case's rules),
//	              refused RULE or asked RULE
//	hidden:       the files (relative to the main root) admit hides
//	              from the run it makes of the line (Decision.Hidden),
//	              checked where the level can tell; absent: not checked
//	note:         more about the case (repeatable)
//
// In line, argv and args, @W is the main root and @B the folder holding
// the workspace. A theme's comment may set "roots:" (relative to @B) and
// "policy:" (the body of the main root's .admit/policy.json) for its cases.
package cases

import (
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"admit/policy/rules"
	"admit/policy/shell"
)

//go:embed testdata/*.txtar
var corpus embed.FS

// Outcome is what becomes of a call.
type Outcome string

const (
	Allowed Outcome = "allowed"
	Refused Outcome = "refused" // by a rule, nobody asked
	Asked   Outcome = "asked"   // a rule asks a person (refused where nobody can answer)
)

// Want is a case's expected decision.
type Want struct {
	Outcome Outcome
	Rule    string // "allowed" for an allowed call
}

func (w Want) String() string {
	if w.Outcome == Allowed && w.Rule == "allowed" {
		return string(Allowed)
	}
	return string(w.Outcome) + " " + w.Rule
}

// Case is one call and the decision it must get.
type Case struct {
	Theme string
	Name  string // the section's name: the subtest's name and the case's note
	Notes []string
	Pos   string // archive:line, for messages

	Line    string // a command line (LineSet: given, possibly empty)
	LineSet bool
	Argv    []string
	Tool    string
	Args    string // raw JSON

	Cwd         string // relative to the main root; "" is the root
	Effects     string // "read-only" or "workspace-write"
	Observed    []string
	ObservedDir []string
	Stale       []string
	Shell       string   // a shell profile's name (shell.Profiles)
	Rules       string   // the person's rules file, as JSON; "" for none
	Path        *string  // the PATH the command runs with, or nil
	Terminal    bool     // the line runs in a terminal that keeps its folder
	AdmitRuns   bool     // admit runs the line itself (runner: admit)
	Hidden      []string // the files the run hides, relative to the main root (nil: not checked)
	Want        Want
}

// Write reports whether the case runs with workspace-write effects.
func (c *Case) Write() bool { return c.Effects == "workspace-write" }

// Theme is one archive of cases.
type Theme struct {
	Name   string
	Doc    string   // the archive's comment, less its settings
	Roots  []string // relative to the workspace's base; nil: the workspace's roots
	Policy string   // the main root's .admit/policy.json; "": the workspace's
	Cases  []Case
}

// Themes reads every theme of the corpus, sorted by name.
func Themes() ([]Theme, error) {
	names, err := corpus.ReadDir("testdata")
	if err != nil {
		return nil, err
	}
	var themes []Theme
	for _, e := range names {
		name := strings.TrimSuffix(e.Name(), ".txtar")
		if name == "workspace" {
			continue
		}
		data, err := corpus.ReadFile(path.Join("testdata", e.Name()))
		if err != nil {
			return nil, err
		}
		th, err := parseTheme(name, data)
		if err != nil {
			return nil, err
		}
		themes = append(themes, th)
	}
	return themes, nil
}

// All is every case of every theme, in order.
func All() ([]Case, error) {
	themes, err := Themes()
	if err != nil {
		return nil, err
	}
	var all []Case
	for _, th := range themes {
		all = append(all, th.Cases...)
	}
	return all, nil
}

func parseTheme(name string, data []byte) (Theme, error) {
	a := parseArchive(data)
	th := Theme{Name: name}
	var doc []string
	for _, line := range strings.Split(strings.TrimRight(a.comment, "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "roots:"):
			th.Roots = strings.Fields(strings.TrimPrefix(line, "roots:"))
		case strings.HasPrefix(line, "policy:"):
			th.Policy = strings.TrimSpace(strings.TrimPrefix(line, "policy:"))
			if !json.Valid([]byte(th.Policy)) {
				return th, fmt.Errorf("%s.txtar: policy: not valid JSON: %s", name, th.Policy)
			}
		default:
			doc = append(doc, line)
		}
	}
	th.Doc = strings.TrimSpace(strings.Join(doc, "\n"))
	seen := map[string]int{}
	for _, s := range a.sections {
		pos := fmt.Sprintf("%s.txtar:%d", name, s.line)
		if prev, dup := seen[s.name]; dup {
			return th, fmt.Errorf("%s: a second case named %q (the first is at line %d)", pos, s.name, prev)
		}
		seen[s.name] = s.line
		c, err := parseCase(s)
		if err != nil {
			return th, fmt.Errorf("%s: case %q: %w", pos, s.name, err)
		}
		c.Theme, c.Pos = name, pos
		th.Cases = append(th.Cases, c)
	}
	if len(th.Cases) == 0 {
		return th, fmt.Errorf("%s.txtar: no cases", name)
	}
	return th, nil
}

// parseCase reads the "key: value" lines of one section.
func parseCase(s section) (Case, error) {
	c := Case{Name: s.name, Effects: "read-only", Shell: "analyze"}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSuffix(s.data, "\n"), "\n") {
		if line == "" {
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			return c, fmt.Errorf("%q: want key: value", line)
		}
		val = strings.TrimPrefix(val, " ")
		if seen[key] && key != "note" {
			return c, fmt.Errorf("%s: given twice", key)
		}
		seen[key] = true
		var err error
		switch key {
		case "line":
			c.Line, err = unquote(val)
			c.LineSet = true
		case "argv":
			err = json.Unmarshal([]byte(val), &c.Argv)
			if err == nil && c.Argv == nil {
				c.Argv = []string{}
			}
		case "tool":
			c.Tool = val
		case "args":
			c.Args = val
			if !json.Valid([]byte(val)) {
				err = fmt.Errorf("not valid JSON: %s", val)
			}
		case "cwd":
			c.Cwd = val
		case "effects":
			c.Effects = val
			if val != "read-only" && val != "workspace-write" {
				err = fmt.Errorf("%q: want read-only or workspace-write", val)
			}
		case "observed":
			c.Observed = strings.Fields(val)
		case "observed-dir":
			c.ObservedDir = strings.Fields(val)
		case "stale":
			c.Stale = strings.Fields(val)
		case "shell":
			c.Shell = val
			if _, perr := shell.ParseProfile(val); perr != nil || val == "" {
				err = fmt.Errorf("%q: want a shell profile (%s)", val, profileNames())
			}
		case "path":
			c.Path = &val
		case "terminal":
			c.Terminal = val == "yes"
			if val != "yes" && val != "no" {
				err = fmt.Errorf("%q: want yes or no", val)
			}
		case "runner":
			c.AdmitRuns = val == "admit"
			if val != "admit" && val != "host" {
				err = fmt.Errorf("%q: want admit or host", val)
			}
		case "rules":
			c.Rules = val
			if !json.Valid([]byte(val)) {
				err = fmt.Errorf("not valid JSON: %s", val)
			} else if _, lerr := rules.Load([]byte(val), "user", true); lerr != nil {
				err = lerr
			}
		case "want":
			c.Want, err = parseWant(val)
		case "hidden":
			c.Hidden = strings.Fields(val)
			if len(c.Hidden) == 0 {
				err = fmt.Errorf("want the paths of the files hidden")
			}
		case "note":
			c.Notes = append(c.Notes, val)
		default:
			err = fmt.Errorf("unknown field")
		}
		if err != nil {
			return c, fmt.Errorf("%s: %w", key, err)
		}
	}
	calls := 0
	for _, given := range []bool{c.LineSet, c.Argv != nil, c.Tool != ""} {
		if given {
			calls++
		}
	}
	switch {
	case calls != 1:
		return c, fmt.Errorf("give exactly one of line, argv, or tool and args")
	case c.Tool != "" && c.Args == "":
		return c, fmt.Errorf("tool needs args")
	case c.Args != "" && c.Tool == "":
		return c, fmt.Errorf("args needs tool")
	case c.AdmitRuns && !c.LineSet:
		return c, fmt.Errorf("runner: admit needs a line")
	case c.Want.Outcome == "":
		return c, fmt.Errorf("no want")
	}
	return c, nil
}

func parseWant(s string) (Want, error) {
	f := strings.Fields(s)
	switch {
	case len(f) == 1 && f[0] == string(Allowed):
		return Want{Allowed, "allowed"}, nil
	case len(f) == 2 && f[0] == string(Allowed) && f[1] == "rule-allows":
		// Allowed by an allow rule of the person's (the case's rules).
		return Want{Allowed, f[1]}, nil
	case len(f) == 2 && slices.Contains([]string{string(Refused), string(Asked)}, f[0]) && f[1] != "allowed":
		return Want{Outcome(f[0]), f[1]}, nil
	}
	return Want{}, fmt.Errorf("%q: want allowed, allowed rule-allows, refused RULE or asked RULE", s)
}

// unquote reads a value that may be Go-quoted.
func unquote(s string) (string, error) {
	if strings.HasPrefix(s, `"`) {
		return strconv.Unquote(s)
	}
	return s, nil
}

// RuleSet is what the command policy matches for c: the person's rules of
// the case and the repository's of the theme's policy file, merged as the
// gate merges them.
func (w *Workspace) RuleSet(c *Case) (*rules.Set, error) {
	var sets []*rules.Set
	if c.Rules != "" {
		s, err := rules.Load([]byte(c.Rules), "user", true)
		if err != nil {
			return nil, err
		}
		sets = append(sets, s)
	}
	if w.Policy != "" {
		var f struct {
			Rules *rules.File `json:"rules"`
		}
		if err := json.Unmarshal([]byte(w.Policy), &f); err != nil {
			return nil, err
		}
		if f.Rules != nil {
			s, err := f.Rules.Set("repository", false)
			if err != nil {
				return nil, err
			}
			sets = append(sets, s)
		}
	}
	if len(sets) == 0 {
		return nil, nil
	}
	return rules.Merge(sets...), nil
}

// WriteRules keeps c's person's rules where a rule store over dir reads
// the person's own (dir/rules.json); nothing when the case has none.
func (c *Case) WriteRules(dir string) error {
	if c.Rules == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "rules.json"), []byte(c.Rules+"\n"), 0o600)
}

// profileNames lists the shell profiles a case may name.
func profileNames() string {
	var names []string
	for _, p := range shell.Profiles() {
		names = append(names, string(p))
	}
	return strings.Join(names, ", ")
}
