package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"admit/policy/command"
)

// The workspace's policy file is written by whoever wrote the repository,
// and an agent may have written it too. So it only tightens the built-in
// policy, until the person trusts that exact file (by its path and content
// hash): its lists of shell tools, mutators and tools that need a person
// always add to the defaults, and what it would widen (a tool granted
// beyond the defaults, a program redefined or added, a bound raised) takes
// effect only once trusted.

// Universal reports whether a tool-name pattern matches every name (or
// every name but a handful): one made only of wildcards and bracket
// expressions, such as "*", "?*", "**", "*?*" or "[!x]*". Such a pattern
// grants everything, so it is refused wherever patterns are accepted.
func Universal(p string) bool {
	p = strings.TrimSpace(p)
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '*', '?':
		case '[':
			end := strings.IndexByte(p[i+1:], ']')
			if end < 0 {
				return false // not a bracket expression: a literal '['
			}
			i += end + 1
		case '\\':
			return false // an escaped character is a literal one
		default:
			return false
		}
	}
	return p != ""
}

// ErrUniversal is why a pattern that matches every tool name is refused.
var ErrUniversal = fmt.Errorf("policy: a pattern that matches every tool name (such as \"*\", \"?*\" or \"**\") grants everything; name the tools, or use a prefix pattern like \"mcp_github_*\"")

// checkPatterns refuses empty names and universal or malformed patterns in
// a list of tool names.
func checkPatterns(field string, list []string) error {
	for i, p := range list {
		switch {
		case strings.TrimSpace(p) == "":
			return fmt.Errorf("%s[%d]: an empty tool name grants nothing", field, i)
		case strings.TrimSpace(p) == "*":
			return fmt.Errorf("%s[%d]: %w", field, i, ErrBareStar)
		case Universal(p):
			return fmt.Errorf("%s[%d] %q: %w", field, i, p, ErrUniversal)
		}
	}
	return nil
}

// Trust is what the person has said about a policy file.
type Trust string

const (
	// BuiltIn: there is no policy file; the built-in policy decides.
	BuiltIn Trust = "built-in"
	// Tightening: the file only tightens the built-in policy, so it takes
	// effect whole without the person's trust.
	Tightening Trust = "tightening"
	// Trusted: the person trusted this exact file; it takes effect whole.
	Trusted Trust = "trusted"
	// Untrusted: the file would widen the gate and the person has not
	// trusted this content; only its tightening parts take effect.
	Untrusted Trust = "untrusted"
)

// Sum is the identity trust is recorded under: the SHA-256 of the file's
// absolute path, a newline and its content (as direnv keys its approvals),
// so the same content elsewhere, or other content here, is not trusted.
func Sum(path string, content []byte) string {
	h := sha256.New()
	h.Write([]byte(path))
	h.Write([]byte{'\n'})
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

// Widens lists, in words a person can check, what the file would widen
// beyond the built-in policy def: tools granted beyond def's, programs
// redefined or added, bounds raised above base. None means the file only
// tightens.
func (f *File) Widens(def *File, base Bounds) []string {
	var out []string
	for _, t := range f.Allow {
		if !slices.Contains(def.Allow, t) {
			out = append(out, fmt.Sprintf("grants the tool %q, which the built-in policy does not", t))
		}
	}
	for _, name := range f.programNames() {
		raw := strings.TrimSpace(string(f.programEntries()[name]))
		if raw == "null" || raw == "false" {
			continue // a removal tightens
		}
		if _, builtin := command.DefaultTable().Programs[name]; builtin {
			out = append(out, fmt.Sprintf("redefines the program %q", name))
		} else {
			out = append(out, fmt.Sprintf("adds the program %q", name))
		}
	}
	if raised := raisedBounds(f.Bounds, base); len(raised) > 0 {
		out = append(out, raised...)
	}
	return out
}

// programEntries are the file's programs section by name (nil when it has
// none or it does not parse; ParseFile and ParseTable report that).
func (f *File) programEntries() map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if len(f.Programs) > 0 {
		_ = json.Unmarshal(f.Programs, &m)
	}
	return m
}

func (f *File) programNames() []string {
	names := make([]string, 0, len(f.programEntries()))
	for n := range f.programEntries() {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// raisedBounds describes each bound the file sets above base.
func raisedBounds(set map[string]int64, base Bounds) []string {
	var out []string
	for _, s := range BoundSpecs() {
		if v, ok := set[s.Key]; ok && v > *s.field(&base) {
			out = append(out, fmt.Sprintf("raises the bound %s from %d to %d", s.Key, *s.field(&base), v))
		}
	}
	return out
}

// Effective is the file as it takes effect under trust: the lists of shell
// tools, mutators and tools that need a person always add to def's; an
// untrusted file grants only tools def grants too and keeps only the
// bounds it lowers. (Its programs are judged by the gate: see
// Env.Baseline.)
func (f *File) Effective(def *File, base Bounds, trusted bool) *File {
	out := *f
	out.ShellTools = union(def.ShellTools, f.ShellTools)
	out.Mutators = union(def.Mutators, f.Mutators)
	out.NeedsHuman = union(def.NeedsHuman, f.NeedsHuman)
	if !trusted {
		out.Allow = nil
		for _, t := range f.Allow {
			if slices.Contains(def.Allow, t) {
				out.Allow = append(out.Allow, t)
			}
		}
		out.Bounds = map[string]int64{}
		for _, s := range BoundSpecs() {
			if v, ok := f.Bounds[s.Key]; ok && v <= *s.field(&base) {
				out.Bounds[s.Key] = v
			}
		}
	}
	return &out
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, x := range b {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// identifier reports what a label must look like to reach a model as
// written: a letter or digit, then up to 39 of them or ".", "_", ":", "-".
func identifier(label string) bool {
	if label == "" || len(label) > 40 {
		return false
	}
	for i := 0; i < len(label); i++ {
		c := label[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || !strings.ContainsRune("._:-", rune(c))) {
			return false
		}
	}
	return true
}

// Identifier is label as a model may read it: the label itself when it is
// a short identifier, else a name derived from its hash. A label is free
// text from a repository or a client, and a refusal quoted to a model must
// not carry instructions.
func Identifier(label string) string {
	if identifier(label) {
		return label
	}
	sum := sha256.Sum256([]byte(label))
	return "set-" + hex.EncodeToString(sum[:4])
}
