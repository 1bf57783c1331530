package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Caps is what one session may do. The zero value grants nothing.
type Caps struct {
	Label      string
	Allow      []string // exact tool names and '*' patterns (path.Match, case-sensitive)
	NeedsHuman []string // tools that always stop for a person, even when allowed
	Mutators   []string // tools that write to the workspace
	WriteRoots []string // absolute, symlink-resolved folders a mutator may write under
	// PathArgs holds, for each tool whose schema the session was handed,
	// the argument names (normalized) its input schema marks as paths
	// (SchemaPathArgs). A tool listed here is one admit learnt from a
	// schema, so any other string argument of it that reads as a path is
	// judged as one too.
	PathArgs map[string]map[string]bool

	// ix answers for named tools with one lookup (Index); nil until then.
	ix *capIndex
}

// CapsSpec is a capability set as a client or a file states it.
type CapsSpec struct {
	Label      string            `json:"label,omitempty"`
	Tools      []json.RawMessage `json:"tools,omitempty"`
	Allow      []string          `json:"allow,omitempty"`
	NeedsHuman []string          `json:"needsHuman,omitempty"`
	Mutators   []string          `json:"mutators,omitempty"`
	WriteRoots []string          `json:"writeRoots,omitempty"`
}

// ErrBareStar is why a set granting every tool is refused.
var ErrBareStar = errors.New("policy: a capability set may not contain a bare \"*\"; name the tools, or use a prefix pattern like \"mcp_github_*\"")

// NewCaps builds a capability set. Tools (schemas) add to Allow, and every
// tool a schema does not mark read-only is a mutator. resolve turns each
// write root into its symlink-resolved form; a relative root is refused.
func NewCaps(s CapsSpec, resolve func(string) (string, error)) (*Caps, error) {
	c := &Caps{Label: s.Label}
	if c.Label == "" {
		c.Label = "unnamed"
	}
	if s.Tools != nil {
		// An empty list given is a client's mistake, not a grant of
		// nothing: it is refused rather than built into an empty set.
		names, mutators, err := ToolNames(s.Tools)
		if err != nil {
			return nil, err
		}
		c.Allow = append(c.Allow, names...)
		c.Mutators = append(c.Mutators, mutators...)
		c.PathArgs = schemaPathArgs(s.Tools)
	}
	c.Allow = append(c.Allow, s.Allow...)
	c.NeedsHuman = append(c.NeedsHuman, s.NeedsHuman...)
	c.Mutators = append(c.Mutators, s.Mutators...)
	for i, field := range [][]string{c.Allow, c.NeedsHuman, c.Mutators} {
		name := [...]string{"allow", "needsHuman", "mutators"}[i]
		if err := checkPatterns(name, field); err != nil {
			return nil, err
		}
		for _, p := range field {
			if _, err := path.Match(p, ""); err != nil {
				return nil, fmt.Errorf("policy: %s: bad pattern %q: %w", name, p, err)
			}
		}
	}
	// The schemas' names are exact; only the patterns given can sweep.
	if err := checkSweeping("allow", s.Allow); err != nil {
		return nil, err
	}
	for _, r := range s.WriteRoots {
		if !filepath.IsAbs(r) {
			return nil, fmt.Errorf("policy: writeRoots: %q is not an absolute path", r)
		}
		real, err := resolve(filepath.Clean(r))
		if err != nil {
			return nil, fmt.Errorf("policy: writeRoots: %q: %w", r, err)
		}
		c.WriteRoots = append(c.WriteRoots, real)
	}
	c.Allow = sortedUnique(c.Allow)
	c.NeedsHuman = sortedUnique(c.NeedsHuman)
	c.Mutators = sortedUnique(c.Mutators)
	return c.Index(), nil
}

// Grants reports whether the set allows the tool.
func (c *Caps) Grants(tool string) bool {
	if ix := c.index(); ix != nil {
		return ix.named[tool]&grants != 0 || matchPattern(ix.allowPatterns, tool) != ""
	}
	return matchAny(c.Allow, tool)
}

// AsksHuman reports whether the tool always needs a person.
func (c *Caps) AsksHuman(tool string) bool {
	if ix := c.index(); ix != nil {
		return ix.named[tool]&asks != 0 || matchPattern(ix.humanPatterns, tool) != ""
	}
	return matchAny(c.NeedsHuman, tool)
}

// Mutates reports whether the tool writes to the workspace: a mutator, or
// a tool granted only by a pattern (PatternOnly).
func (c *Caps) Mutates(tool string) bool {
	return c.NamedMutator(tool) || c.PatternOnly(tool) != ""
}

// NamedMutator reports whether the set's mutators list names or matches
// the tool.
func (c *Caps) NamedMutator(tool string) bool {
	if ix := c.index(); ix != nil {
		return ix.named[tool]&mutates != 0 || matchPattern(ix.mutatorPatterns, tool) != ""
	}
	return matchAny(c.Mutators, tool)
}

// PatternOnly is the pattern that grants tool when no name in the set
// does, or "". Such a tool is one nobody named and no schema described
// (a tool handed with its schema is named, and a writer unless its
// annotations say readOnlyHint), so nothing says it only reads: it is
// judged as a writer.
func (c *Caps) PatternOnly(tool string) string {
	if ix := c.index(); ix != nil {
		if ix.named[tool]&grants != 0 {
			return ""
		}
		return matchPattern(ix.allowPatterns, tool)
	}
	if slices.Contains(c.Allow, tool) {
		return ""
	}
	return matchPattern(c.Allow, tool)
}

func matchAny(patterns []string, tool string) bool {
	return slices.Contains(patterns, tool) || matchPattern(patterns, tool) != ""
}

// matchPattern is the first of patterns with a metacharacter that matches
// tool, or "".
func matchPattern(patterns []string, tool string) string {
	for _, p := range patterns {
		if isPattern(p) {
			if ok, _ := path.Match(p, tool); ok {
				return p
			}
		}
	}
	return ""
}

// isPattern reports whether p has a path.Match metacharacter.
func isPattern(p string) bool { return strings.ContainsAny(p, "*?[") }

// Tool-name bits of a capIndex.
type capBits uint8

const (
	grants capBits = 1 << iota
	asks
	mutates
)

// capIndex is a set's three lists as one map of names and the patterns
// of each: every decision asks about its tool several times, and the
// lists hold dozens of names. It is tied to the lists it was built from
// (by identity), so a copy of the set whose lists were replaced scans
// them instead of answering from another set's index.
type capIndex struct {
	allow, human, mutators                        []string
	named                                         map[string]capBits
	allowPatterns, humanPatterns, mutatorPatterns []string
}

// Index builds the set's index and returns the set; call it once the
// lists are final, before the set is shared.
func (c *Caps) Index() *Caps {
	ix := &capIndex{allow: c.Allow, human: c.NeedsHuman, mutators: c.Mutators,
		named: make(map[string]capBits, len(c.Allow)+len(c.NeedsHuman)+len(c.Mutators))}
	for _, l := range []struct {
		names    []string
		bit      capBits
		patterns *[]string
	}{{c.Allow, grants, &ix.allowPatterns}, {c.NeedsHuman, asks, &ix.humanPatterns}, {c.Mutators, mutates, &ix.mutatorPatterns}} {
		for _, n := range l.names {
			if isPattern(n) {
				*l.patterns = append(*l.patterns, n)
			}
			// A pattern is also its own literal name, as path.Match has it.
			ix.named[n] |= l.bit
		}
	}
	c.ix = ix
	return c
}

// index is the set's index when it was built from the lists the set has
// now, else nil.
func (c *Caps) index() *capIndex {
	if ix := c.ix; ix != nil && sameList(ix.allow, c.Allow) && sameList(ix.human, c.NeedsHuman) && sameList(ix.mutators, c.Mutators) {
		return ix
	}
	return nil
}

func sameList(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// ToolNames reads tool names off the schemas a session was handed: the
// OpenAI form {"type":"function","function":{"name":...}}, the bare
// {"name":...} form, and MCP tool definitions, whose annotations say which
// tools are read-only. A tool not marked read-only is a mutator, because a
// schema that does not say is not evidence that a tool only reads.
func ToolNames(schemas []json.RawMessage) (names, mutators []string, err error) {
	for i, raw := range schemas {
		var s struct {
			Type     string `json:"type"`
			Name     string `json:"name"`
			Function *struct {
				Name string `json:"name"`
			} `json:"function"`
			Annotations *struct {
				ReadOnlyHint    *bool `json:"readOnlyHint"`
				DestructiveHint *bool `json:"destructiveHint"`
			} `json:"annotations"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, nil, fmt.Errorf("policy: tools[%d]: not a tool schema: %w", i, err)
		}
		name := s.Name
		if s.Function != nil && s.Function.Name != "" {
			name = s.Function.Name
		}
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		names = append(names, name)
		readOnly := s.Annotations != nil && s.Annotations.ReadOnlyHint != nil && *s.Annotations.ReadOnlyHint
		if !readOnly {
			mutators = append(mutators, name)
		}
	}
	if len(names) == 0 {
		return nil, nil, errors.New("policy: tools: no tool names found in the schema list; refusing to build a capability set that would grant nothing by accident")
	}
	return names, mutators, nil
}

// schemaPathArgs maps each named schema's tool to the path arguments its
// input schema declares: MCP's inputSchema, or OpenAI's function
// parameters. Two schemas of one name add up.
func schemaPathArgs(schemas []json.RawMessage) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, raw := range schemas {
		var s struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
			Parameters  json.RawMessage `json:"parameters"`
			Function    *struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		}
		if json.Unmarshal(raw, &s) != nil {
			continue
		}
		name, schema := s.Name, s.InputSchema
		if len(schema) == 0 {
			schema = s.Parameters
		}
		if s.Function != nil && s.Function.Name != "" {
			name, schema = s.Function.Name, s.Function.Parameters
		}
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		keys := out[name]
		if keys == nil {
			keys = map[string]bool{}
			out[name] = keys
		}
		for k := range SchemaPathArgs(schema) {
			keys[k] = true
		}
	}
	return out
}

func sortedUnique(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return slices.Compact(out)
}
