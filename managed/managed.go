// Package managed reads the organisation's policy: a file an
// administrator installs on the machine (managed.json in a system folder,
// Dir), which every gate reads first (gate.Open). It can pin the mode,
// cap the effect mode, pin the shell profile and the confined-runs
// answer, add secret patterns and deny and ask rules, ask for the hosts'
// hooks in their own managed places, and say where decisions are
// exported. The person's settings and rules and a workspace's policy can
// only tighten it further.
//
// A file the person could write is no organisation's: Load refuses a
// file, or a folder above it, that is not owned by an administrator or
// that others may write, and the gate then refuses every call
// (managed-invalid). See docs/teams.md.
package managed

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"admit/internal/strictjson"
	"admit/policy/rule"
	"admit/policy/rules"
)

// FileName is the managed file's name in its folder.
const FileName = "managed.json"

// EnvDir names a second folder to read a managed file from, beside the
// system one: for tests, and for an organisation that keeps it elsewhere.
// It can only add a layer, never replace the system's, and its file must
// pass the same ownership checks, so an agent that sets it cannot loosen
// anything.
const EnvDir = "ADMIT_MANAGED_DIR"

// SystemDir is where an administrator installs the managed file on this
// operating system.
func SystemDir() string {
	switch runtime.GOOS {
	case "darwin":
		return "/Library/Application Support/admit"
	case "windows":
		base := os.Getenv("ProgramData")
		if base == "" {
			base = `C:\ProgramData`
		}
		return filepath.Join(base, "admit")
	}
	return "/etc/admit"
}

// File is managed.json. Every field is optional; an unknown one is an
// error (a misspelt pin must not pass as no pin).
type File struct {
	// Mode pins the gate's mode: the person cannot change it.
	Mode string `json:"mode,omitempty"`
	// Effects is the effect mode's ceiling: read-only keeps every gate
	// read-only; workspace-write lets the person choose.
	Effects string `json:"effects,omitempty"`
	// Shell pins the shell profile (analyze or refuse).
	Shell string `json:"shell,omitempty"`
	// ConfinedRuns pins the answer to programs that run code when admit
	// runs them confined: "ask" keeps asking whatever the person says.
	ConfinedRuns string `json:"confinedRuns,omitempty"`
	// SecretPatterns are added to the built-in ones; while set, the
	// person may not exempt a file ("!PATTERN").
	SecretPatterns []string `json:"secretPatterns,omitempty"`
	// Rules are the organisation's deny and ask rules (the person's
	// rules file's format; allow is refused: the layer only tightens).
	Rules *rules.File `json:"rules,omitempty"`
	// Hooks names the hosts whose hook admit connect writes into the
	// host's own managed place ("claude-code", "codex", ...; "*" is
	// every host that has one).
	Hooks []string `json:"hooks,omitempty"`
	// Export is where decisions are exported (internal/otelexport).
	Export *Export `json:"export,omitempty"`
}

// Export is the OpenTelemetry export of decisions.
type Export struct {
	// Endpoint is the collector's OTLP/HTTP base URL
	// (http://127.0.0.1:4318); "" leaves it to OTEL_EXPORTER_OTLP_ENDPOINT.
	Endpoint string            `json:"endpoint,omitempty"`
	Headers  map[string]string `json:"headers,omitempty"`
	// Metrics: also export the counts of decisions (default true).
	Metrics *bool `json:"metrics,omitempty"`
}

// Layer is the managed policy in force: the files read, merged.
type Layer struct {
	Paths          []string // the files it was read from
	Mode           rule.Mode
	Effects        string
	Shell          string
	ConfinedRuns   string
	SecretPatterns []string
	Rules          *rules.Set
	Hooks          []string
	Export         *Export
}

// Load reads the managed file from the system folder and from the folder
// EnvDir names (getenv; nil reads none), and merges them, the stricter
// pin winning. No file is a nil Layer and no error. A file that cannot be
// used, or that the person could have written, is an error naming it.
func Load(getenv func(string) string) (*Layer, error) {
	dirs := []string{SystemDir()}
	if getenv != nil {
		if d := getenv(EnvDir); d != "" {
			if !filepath.IsAbs(d) {
				return nil, fmt.Errorf("%s=%q: not an absolute folder", EnvDir, d)
			}
			dirs = append(dirs, d)
		}
	}
	return LoadDirs(dirs...)
}

// LoadDirs is Load from the given folders.
func LoadDirs(dirs ...string) (*Layer, error) {
	var l *Layer
	for _, d := range dirs {
		p := filepath.Join(d, FileName)
		data, err := readAdminFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		f, err := Parse(p, data)
		if err != nil {
			return nil, err
		}
		if l, err = l.with(p, f); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// Parse reads a managed file's content; path names it in errors.
func Parse(path string, data []byte) (*File, error) {
	var f File
	if err := strictjson.Decode(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if f.Mode != "" {
		if _, err := rule.ParseMode(f.Mode); err != nil {
			return nil, fmt.Errorf("%s: mode: %w", path, err)
		}
	}
	switch f.Effects {
	case "", "read-only", "workspace-write":
	default:
		return nil, fmt.Errorf("%s: effects: must be read-only or workspace-write, got %q", path, f.Effects)
	}
	switch f.Shell {
	case "", "analyze", "refuse":
	default:
		return nil, fmt.Errorf("%s: shell: must be analyze or refuse, got %q", path, f.Shell)
	}
	switch f.ConfinedRuns {
	case "", "ask", "allow":
	default:
		return nil, fmt.Errorf("%s: confinedRuns: must be ask or allow, got %q", path, f.ConfinedRuns)
	}
	for i, p := range f.SecretPatterns {
		if strings.HasPrefix(p, "!") {
			return nil, fmt.Errorf("%s: secretPatterns[%d]: %q exempts a file; the managed layer only adds secrets", path, i, p)
		}
	}
	if f.Rules != nil {
		if _, err := f.Rules.Set("managed", false); err != nil {
			return nil, fmt.Errorf("%s: rules: %w (the managed layer may deny and ask, never allow)", path, err)
		}
	}
	if err := f.Export.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &f, nil
}

// Check says what is wrong with an export's settings, naming the field;
// nil is no export, which is fine.
func (x *Export) Check() error {
	if x == nil {
		return nil
	}
	if x.Endpoint != "" && !strings.HasPrefix(x.Endpoint, "http://") && !strings.HasPrefix(x.Endpoint, "https://") {
		return fmt.Errorf("export.endpoint: must be an http:// or https:// URL, got %q", x.Endpoint)
	}
	for k := range x.Headers {
		if k == "" || strings.ContainsAny(k, " \t\r\n:") {
			return fmt.Errorf("export.headers: %q is no header name", k)
		}
	}
	return nil
}

// with is l with f (read from path) merged in: the stricter of each pin.
func (l *Layer) with(path string, f *File) (*Layer, error) {
	out := &Layer{}
	if l != nil {
		c := *l
		out = &c
	}
	out.Paths = append(slices.Clone(out.Paths), path)
	if f.Mode != "" && (out.Mode == "" || modeRank(rule.Mode(f.Mode)) > modeRank(out.Mode)) {
		out.Mode = rule.Mode(f.Mode)
	}
	if f.Effects != "" && out.Effects != "read-only" {
		out.Effects = f.Effects
	}
	if f.Shell != "" && out.Shell != "refuse" {
		out.Shell = f.Shell
	}
	if f.ConfinedRuns != "" && out.ConfinedRuns != "ask" {
		out.ConfinedRuns = f.ConfinedRuns
	}
	out.SecretPatterns = append(slices.Clone(out.SecretPatterns), f.SecretPatterns...)
	if f.Rules != nil {
		set, err := f.Rules.Set("managed", false)
		if err != nil {
			return nil, fmt.Errorf("%s: rules: %w", path, err)
		}
		out.Rules = rules.Merge(out.Rules, set)
	}
	for _, h := range f.Hooks {
		if !slices.Contains(out.Hooks, h) {
			out.Hooks = append(out.Hooks, h)
		}
	}
	if f.Export != nil && out.Export == nil {
		out.Export = f.Export // the system's file is read first and wins
	}
	return out, nil
}

func modeRank(m rule.Mode) int {
	switch m {
	case rule.Enforce:
		return 2
	case rule.Warn:
		return 1
	}
	return 0
}

// Where names the layer's files, for a message.
func (l *Layer) Where() string {
	if l == nil {
		return ""
	}
	return strings.Join(l.Paths, ", ")
}

// CheckSettings refuses settings the layer pins otherwise: a mode other
// than the pinned one, an effect mode over the ceiling, another shell
// profile, another confined-runs answer. Empty values are not checked.
func (l *Layer) CheckSettings(mode, effects, shell, confinedRuns string) error {
	if l == nil {
		return nil
	}
	switch {
	case mode != "" && l.Mode != "" && mode != string(l.Mode):
		return &PinError{"mode", mode, string(l.Mode), l.Where()}
	case effects == "workspace-write" && l.Effects == "read-only":
		return &PinError{"effects", effects, l.Effects, l.Where()}
	case shell != "" && l.Shell != "" && shell != l.Shell:
		return &PinError{"shell", shell, l.Shell, l.Where()}
	case confinedRuns == "allow" && l.ConfinedRuns == "ask":
		return &PinError{"confinedRuns", confinedRuns, l.ConfinedRuns, l.Where()}
	}
	return nil
}

// Forbids returns the managed rule that denies or asks the command a
// person's allow rule r would allow, or false: such an allow is refused.
func (l *Layer) Forbids(r rules.Rule) (rules.Rule, bool) {
	if l == nil || l.Rules.Len() == 0 || r.Decision != rule.OutcomeAllow {
		return rules.Rule{}, false
	}
	// The rule's own words (its literal prefix), and every example it
	// gives, are commands it would allow.
	var cands [][]string
	if w := r.Literal(); len(w) > 0 {
		cands = append(cands, w)
	}
	for _, ex := range r.Examples {
		if argv, err := rules.Argv(ex); err == nil {
			cands = append(cands, argv)
		}
	}
	for _, argv := range cands {
		if m, ok := l.Rules.Match(argv); ok && m.Decision != rule.OutcomeAllow {
			return m, true
		}
	}
	// A managed rule whose own words the allow would match.
	for _, m := range l.Rules.Rules() {
		if w := m.Literal(); len(w) > 0 && m.Decision != rule.OutcomeAllow && r.Matches(w) {
			return m, true
		}
	}
	return rules.Rule{}, false
}

// PinError is a setting the managed layer pins otherwise.
type PinError struct {
	Field, Got, Pinned, Where string
}

func (e *PinError) Error() string {
	return fmt.Sprintf("%s %q is not allowed: your organisation's managed policy (%s) pins it to %q", e.Field, e.Got, e.Where, e.Pinned)
}

// maxFile bounds the managed file: a policy, not a data set.
const maxFile = 1 << 20

// readBounded reads the managed file opened from path, refusing one over
// maxFile.
func readBounded(f io.Reader, path string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxFile {
		return nil, fmt.Errorf("%s: over %d bytes", path, maxFile)
	}
	return data, nil
}
