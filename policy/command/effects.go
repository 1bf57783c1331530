package command

import (
	"path"
	"slices"
	"strings"

	"admit/policy/rule"
	"admit/policy/rules"
)

// callEffects are the kinds of effect of one command that asks because
// admit cannot judge what it runs (r: runs-code, network, ...), for the
// person's allow rules to be matched against (rules.Set.Answer) and for
// the rule "always allow" offers (rules.Offer): the files its words name,
// by kind (the workspace's, a secret, outside), where the code it runs
// comes from, the hosts it reaches and what it sends. argv is as written,
// wrappers seen through.
func (j *judge) callEffects(r rule.Rule, argv []string) rules.Effects {
	s := rules.ScanArgv(argv)
	eff := rules.Effects{Code: s.Code, Hosts: s.Hosts, Sends: s.Sends}
	if r == rule.RunsCode {
		eff.Code = rules.Add(eff.Code, rules.CodeWorkspace)
	}
	if s.Package != "" && !slices.Contains(eff.Code, rules.CodeRegistry) {
		// A runner runs the workspace's copy when it has one, else what it
		// fetches.
		if j.workspaceBin(s.Package) {
			eff.Code = rules.Add(eff.Code, rules.CodeWorkspace)
		} else {
			eff.Code = rules.Add(eff.Code, rules.CodeRegistry)
		}
	}
	files := slices.Clone(s.Files)
	for _, w := range argv[1:] {
		if scanned[path.Base(argv[0])] {
			break // its own reading of its words named the files (rules.ScanArgv)
		}
		cand := w
		if i := strings.IndexByte(w, '='); i > 0 && !strings.Contains(w[:i], "/") {
			cand = w[i+1:]
		} else if strings.HasPrefix(w, "-") {
			continue
		}
		if pathLike(cand) {
			files = append(files, cand)
		}
	}
	if netPrograms[path.Base(argv[0])] {
		switch src, _ := j.stdinOf(); src {
		case "pipe":
			eff.Sends = rules.Add(eff.Sends, rules.SendStdin)
		case "heredoc":
			eff.Sends = rules.Add(eff.Sends, rules.SendData)
		case "file":
			eff.Sends = rules.Add(eff.Sends, rules.SendFile)
			for _, rd := range j.redirs {
				if rd.Fd == 0 && (rd.Op == "<" || rd.Op == "<>") {
					files = append(files, rd.Target)
				}
			}
		}
	}
	for _, f := range files {
		if f == "" || f == "-" || f == runtimeName {
			continue
		}
		if k := j.readKind(f); k != "" {
			eff.Reads = rules.Add(eff.Reads, k)
		}
	}
	return eff.Sorted()
}

// scanned are the programs whose words rules.ScanArgv reads for the
// files they read and send (an output file is not one).
var scanned = map[string]bool{"curl": true, "wget": true, "http": true, "https": true, "xh": true, "xhs": true, "scp": true, "rsync": true}

// readKind classes a file a command's word names: a secret (by where it
// lands or as named), outside the workspace, or the workspace's; "" for
// the system's own folders and devices.
func (j *judge) readKind(word string) string {
	abs := j.cleanAbs(word)
	r, ok := j.quietResolve(word)
	if !ok {
		r = Resolved{Path: abs}
	}
	s := j.c.secrets()
	for _, p := range []string{r.Path, abs} {
		if root := j.rootOf(p); root != "" && s.Secret(strings.TrimPrefix(p, root)) != "" {
			return rules.ReadSecret
		}
	}
	if s.Secret(path.Base(abs)) != "" {
		return rules.ReadSecret // a secret's name outside the roots too
	}
	if !inside(r.Path, j.c.Roots) || !inside(abs, j.c.Roots) {
		if systemPlace(abs) && systemPlace(r.Path) {
			return "" // the system's own files and devices (/dev/null) say nothing of the call
		}
		return rules.ReadOutside
	}
	return rules.ReadWorkspace
}

// workspaceBin reports whether a root holds the package's program in
// node_modules/.bin: npx and its kin run that one, not a fetched one.
func (j *judge) workspaceBin(pkg string) bool {
	if j.c.FS == nil || strings.ContainsAny(pkg, "/@") && !strings.HasPrefix(pkg, "@") {
		return false
	}
	name := pkg
	if strings.HasPrefix(pkg, "@") { // @scope/name@version: the program is name
		if i := strings.IndexByte(pkg, '/'); i >= 0 {
			name = pkg[i+1:]
		}
	}
	if i := strings.IndexByte(name, '@'); i > 0 {
		name = name[:i]
	}
	for _, root := range j.c.Roots {
		if r, err := j.resolvePath(root + "/node_modules/.bin/" + name); err == nil && r.Exists && inside(r.Path, j.c.Roots) {
			return true
		}
	}
	return false
}
