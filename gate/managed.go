package gate

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"admit/internal/otelexport"

	"admit/managed"
	"admit/policy"
	"admit/policy/command"
	"admit/policy/rule"
	"admit/policy/rules"
)

// ManagedState is what the organisation's managed layer pins, for the
// editor to show "managed by your organisation" on (State.Managed).
type ManagedState struct {
	Paths          []string `json:"paths"`
	Mode           string   `json:"mode,omitempty"`
	Effects        string   `json:"effects,omitempty"` // the ceiling
	Shell          string   `json:"shell,omitempty"`
	ConfinedRuns   string   `json:"confinedRuns,omitempty"`
	SecretPatterns []string `json:"secretPatterns,omitempty"`
	Rules          []string `json:"rules,omitempty"` // "deny npm publish *"
	Hooks          []string `json:"hooks,omitempty"`
	Export         string   `json:"export,omitempty"` // the collector's endpoint
	// Error: the managed file cannot be used, and every call is refused
	// (managed-invalid).
	Error string `json:"error,omitempty"`
}

// applyManaged pins o's starting settings to the managed layer: the
// person's choices give way to the organisation's, and the state says so.
func applyManaged(o *Options, l *managed.Layer, lerr error) error {
	if lerr != nil {
		o.Mode = string(rule.Enforce) // the gate refuses every call; off would decide nothing
		return nil
	}
	if l == nil {
		return nil
	}
	if l.Mode != "" {
		o.Mode = string(l.Mode)
	}
	if l.Effects == string(command.ReadOnly) {
		o.Effects = l.Effects
	}
	if l.Shell != "" {
		o.Shell = l.Shell
	}
	if l.ConfinedRuns == "ask" {
		o.ConfinedRuns = "ask"
	}
	return checkManagedSecrets(l, o.SecretPatterns)
}

// checkManagedSecrets refuses a person's exemption while the managed
// layer sets secret patterns: the organisation's secrets are not the
// person's to exempt.
func checkManagedSecrets(l *managed.Layer, person []string) error {
	if l == nil || len(l.SecretPatterns) == 0 {
		return nil
	}
	for _, p := range person {
		if strings.HasPrefix(p, "!") {
			return &ParamError{"secretPatterns", fmt.Sprintf("%q exempts a file, and your organisation's managed policy (%s) sets the secret patterns: exemptions are not allowed", p, l.Where())}
		}
	}
	return nil
}

// secretPatterns are the built-in patterns, the managed layer's and the
// person's, or nil for the built-in ones alone.
func secretPatterns(l *managed.Layer, person []string) []string {
	var extra []string
	if l != nil {
		extra = l.SecretPatterns
	}
	if len(extra)+len(person) == 0 {
		return nil
	}
	return append(append(command.DefaultSecretPatterns(), extra...), person...)
}

// checkManaged refuses settings the managed layer pins otherwise.
func (g *Gate) checkManaged(mode, effects, shell, confinedRuns string) error {
	if err := g.cfg.Managed.CheckSettings(mode, effects, shell, confinedRuns); err != nil {
		pe, _ := err.(*managed.PinError)
		field := "mode"
		if pe != nil {
			field = pe.Field
		}
		return &ParamError{field, err.Error()}
	}
	return nil
}

// managedForbids refuses a person's allow rule the managed layer denies
// or asks, with the reason.
func (g *Gate) managedForbids(r rules.Rule) error {
	if m, ok := g.cfg.Managed.Forbids(r); ok {
		return &ParamError{"match", fmt.Sprintf("%q would allow what your organisation's managed policy (%s) makes %s (%q)", r.Match, g.cfg.Managed.Where(), outcomeVerb(m.Decision), m.Match)}
	}
	return nil
}

func outcomeVerb(o rule.Outcome) string {
	if o == rule.OutcomeAsk {
		return "ask a person"
	}
	return "refuse"
}

// withManagedRules adds the managed layer's rules to set, merged once
// per set (sets are never changed once made).
func (g *Gate) withManagedRules(set *rules.Set) *rules.Set {
	l := g.cfg.Managed
	if l == nil || l.Rules.Len() == 0 {
		return set
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.managedMerge.in == set && g.managedMerge.out != nil {
		return g.managedMerge.out
	}
	out := rules.Merge(set, l.Rules)
	g.managedMerge.in, g.managedMerge.out = set, out
	return out
}

// managedState is the State's view of the layer, or nil without one.
func (g *Gate) managedState() *ManagedState {
	l, err := g.cfg.Managed, g.cfg.ManagedErr
	if err != nil {
		return &ManagedState{Paths: []string{}, Error: err.Error()}
	}
	if l == nil {
		return nil
	}
	st := &ManagedState{Paths: l.Paths, Mode: string(l.Mode), Effects: l.Effects, Shell: l.Shell, ConfinedRuns: l.ConfinedRuns,
		SecretPatterns: l.SecretPatterns, Hooks: l.Hooks}
	for _, r := range l.Rules.Rules() {
		st.Rules = append(st.Rules, string(r.Decision)+" "+r.Match)
	}
	if l.Export != nil {
		st.Export = l.Export.Endpoint
	}
	return st
}

// managedRefusal is the decision while the managed layer cannot be used.
func managedRefusal(err error, tool string) policy.Decision {
	return policy.Decision{Rule: rule.ManagedInvalid, Kind: "read", Summary: tool,
		Reason: "your organisation's managed policy cannot be used, so the gate stays closed: " + err.Error()}
}

// openExport starts the export the managed layer, else the person, asks
// for; nil when neither does. It is built only then: a gate that exports
// nothing pays nothing for it.
func openExport(l *managed.Layer, person *managed.Export, log *slog.Logger) (*otelexport.Exporter, error) {
	x := person
	if l != nil && l.Export != nil {
		x = l.Export
	}
	if x == nil {
		return nil, nil
	}
	return otelexport.New(otelexport.Config{Endpoint: x.Endpoint, Headers: x.Headers, Metrics: x.Metrics == nil || *x.Metrics, Logger: log})
}

// closeExport sends what the export still holds, waiting at most d.
func (g *Gate) closeExport(d time.Duration) error {
	c, ok := g.cfg.Exporter.(interface{ Close(context.Context) error })
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return c.Close(ctx)
}

// exportStats are the export's counts, or nil without one.
func (g *Gate) exportStats() *otelexport.Stats {
	s, ok := g.cfg.Exporter.(interface{ Stats() otelexport.Stats })
	if !ok {
		return nil
	}
	st := s.Stats()
	return &st
}
