package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"admit/gate"
	"admit/policy"
	policycmd "admit/policy/command"
	"admit/policy/rules"
	"admit/tape"
)

// replayCmd is `admit tape replay --policy NEW [--rules FILE] [--json]
// [TAPE...]`: every decision of the tapes judged again under a proposed
// policy file and rules, from the facts the gate taped with it, and what
// would change. See docs/teams.md.
func replayCmd(args []string, std Stdio) int {
	fs := flag.NewFlagSet("admit tape replay", flag.ContinueOnError)
	fs.SetOutput(std.Err)
	policyPath := fs.String("policy", "", "the proposed policy file (.admit/policy.json's format), or built-in")
	rulesPath := fs.String("rules", "", "the proposed rules of the person (rules.json's format); default: the person's own")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	untrusted := fs.Bool("untrusted", false, "judge the policy as it takes effect before the person trusts it (what it tightens alone)")
	examples := fs.Int("examples", 3, "calls listed for each change")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if *policyPath == "" {
		return usageError(std, errors.New("--policy is required: a policy file, or built-in"))
	}
	o := gate.ReplayOptions{Bounds: policy.DefaultBounds(), Examples: *examples, Places: personalPlaces}
	if *untrusted {
		o.Trust = policy.Untrusted
	}
	if *policyPath != "built-in" {
		data, err := os.ReadFile(*policyPath)
		if err != nil {
			return failed(std, configError{err})
		}
		f, err := policy.ParseFile(*policyPath, data)
		if err != nil {
			return failed(std, configError{err})
		}
		o.Policy = f
	}
	if *rulesPath != "" {
		data, err := os.ReadFile(*rulesPath)
		if err != nil {
			return failed(std, configError{err})
		}
		set, err := rules.Load(data, *rulesPath, true)
		if err != nil {
			return failed(std, configError{fmt.Errorf("%s: %w", *rulesPath, err)})
		}
		o.Rules = func([]string) (*rules.Set, error) { return set, nil }
	} else if dir, err := gate.DefaultRulesDir(); err == nil {
		o.Rules = func(roots []string) (*rules.Set, error) {
			first := ""
			if len(roots) > 0 {
				first = roots[0]
			}
			return gate.NewRuleStore(dir, first).Set()
		}
	}
	paths := fs.Args()
	if len(paths) == 0 {
		p, err := defaultTape("")
		if err != nil {
			return failed(std, configError{err})
		}
		paths = []string{p}
	}
	var recs []tape.Record
	for _, p := range paths {
		r, err := tape.Query(p, tape.Filter{})
		if err != nil {
			return failed(std, err)
		}
		recs = append(recs, r...)
	}
	rep, err := gate.Replay(recs, o)
	if err != nil {
		return failed(std, configError{err})
	}
	if *asJSON {
		enc := json.NewEncoder(std.Out)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
		return exitOK
	}
	writeReplay(std.Out, rep, *policyPath)
	return exitOK
}

// personalPlaces are the person's own places for home, as a gate of this
// machine names them (gate.New): the XDG folders, the trust records and
// the rules.
func personalPlaces(home string) []policycmd.Place {
	places := policycmd.PersonalPlaces(home, os.Getenv)
	if dir, err := gate.DefaultTrustDir(); err == nil {
		places = append(places, policycmd.Place{Path: dir, What: "the person's trust records of policy files"})
	}
	if dir, err := gate.DefaultRulesDir(); err == nil {
		places = append(places, policycmd.Place{Path: dir, What: "the person's rules"})
	}
	return places
}

// outcomeWords says an outcome as the report reads.
var outcomeWords = map[string]string{"allow": "allowed", "ask": "asked", "deny": "refused"}

func writeReplay(w io.Writer, rep *gate.ReplayReport, policyName string) {
	fmt.Fprintf(w, "%d calls of %d records judged again under %s: %d would change, %d unchanged\n",
		rep.Replayed, rep.Records, policyName, rep.Changed, rep.Unchanged)
	if rep.NoFacts > 0 {
		fmt.Fprintf(w, "%d calls not judged: the tape has no facts for them (taped before admit kept them)\n", rep.NoFacts)
	}
	if rep.MissingFacts > 0 {
		fmt.Fprintf(w, "%d calls judged with a fact missing (answered as unknown, which fails closed)\n", rep.MissingFacts)
	}
	for _, ch := range rep.Changes {
		fmt.Fprintf(w, "\n%s -> %s: %d (%s -> %s)\n", outcomeWords[string(ch.From)], outcomeWords[string(ch.To)], ch.Count, ch.FromRule, ch.ToRule)
		for _, ex := range ch.Examples {
			what := ex.Command
			if what == "" {
				what = ex.Tool
			}
			fmt.Fprintf(w, "  %s %s  %s\n", ex.Time.Format("2006-01-02 15:04"), ex.ID, oneLine(what))
			if ex.Reason != "" {
				fmt.Fprintf(w, "      %s\n", oneLine(ex.Reason))
			}
		}
	}
	if len(rep.Missing) > 0 {
		fmt.Fprintln(w, "\nfacts missing, for example:")
		for _, ex := range rep.Missing {
			fmt.Fprintf(w, "  %s  %s: %s\n", ex.ID, oneLine(ex.Command), strings.Join(ex.Missing, "; "))
		}
	}
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", "⏎")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}
