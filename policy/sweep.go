package policy

import (
	"fmt"
	"path"
	"strings"
	"sync"
)

// A set of patterns can grant every tool together where no one of them
// does: "[a-z]*", "[A-Z]*" and "_*", or "*a*", "*e*", "*o*". Sweeping
// judges the set by what it grants: it is matched against sample tool
// names of every shape agents' tools have (snake_case, PascalCase,
// camelCase, kebab-case, dotted, MCP's mcp__server__tool), built from
// words of every kind of action, and a set that grants a quarter of them
// or more grants tools nobody named. A prefix pattern of one family
// ("mcp__github__*", "read_*", "mcp__*") grants far fewer.

// sweepQuarters is the share of the sample names, in quarters, from which a
// set of patterns is refused.
const sweepQuarters = 1

// sweepWords are the words the sample names are made of: actions that read,
// write, run, reach out and administer, and the things they act on.
var sweepWords = []string{
	"read", "write", "edit", "delete", "remove", "deploy", "exec", "run", "list", "get",
	"create", "update", "send", "fetch", "push", "pull", "admin", "secret", "shell", "query",
	"search", "upload", "download", "install", "kill", "format", "drop", "grant", "login", "token",
	"file", "repo", "issue", "user", "db", "table", "message", "channel", "page", "config",
}

// sweepProbes are the sample names, built on first use and never changed.
var sweepProbes = sync.OnceValue(func() []string {
	title := func(w string) string { return strings.ToUpper(w[:1]) + w[1:] }
	var out []string
	n := len(sweepWords)
	for i, a := range sweepWords {
		for _, k := range []int{1, 5, 11, 17, 23} {
			b := sweepWords[(i+k)%n]
			server := sweepWords[(i*3+k)%n]
			out = append(out, a+"_"+b, title(a)+title(b), a+title(b), a+"-"+b, a+"."+b, "mcp__"+server+"__"+a+"_"+b)
		}
	}
	return out
})

// Sweeping reports whether the patterns of an allow list (its names that
// hold '*', '?' or '['), together, match a quarter or more of the sample
// names, with how many of them out of how many. Exact names never count:
// a list of them grants what it names.
func Sweeping(list []string) (sweeps bool, matched, of int) {
	type pattern struct{ p, prefix, suffix string }
	var pats []pattern
	for _, p := range list {
		if p = strings.TrimSpace(p); isPattern(p) {
			// The literal ends a name must have, checked before the
			// match itself: most patterns rule most names out by them.
			first := strings.IndexAny(p, "*?[\\")
			last := strings.LastIndexAny(p, "*?]\\")
			pats = append(pats, pattern{p, p[:first], p[last+1:]})
		}
	}
	probes := sweepProbes()
	if len(pats) == 0 {
		return false, 0, len(probes)
	}
	for _, name := range probes {
		for _, p := range pats {
			if !strings.HasPrefix(name, p.prefix) || !strings.HasSuffix(name, p.suffix) {
				continue
			}
			if ok, _ := path.Match(p.p, name); ok {
				matched++
				break
			}
		}
	}
	return matched*4 >= len(probes)*sweepQuarters, matched, len(probes)
}

// checkSweeping refuses an allow list whose patterns together grant
// (nearly) every tool, as a bare "*" is refused.
func checkSweeping(field string, list []string) error {
	if sweeps, matched, of := Sweeping(list); sweeps {
		return fmt.Errorf("%s: the patterns together match %d of %d sample tool names: %w", field, matched, of, ErrUniversal)
	}
	return nil
}
