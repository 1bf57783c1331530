package policy

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"admit/internal/strictjson"
	"admit/policy/command"
	"admit/policy/rule"
	"admit/policy/rules"
	"admit/policy/shell"
)

// Call is one tool call as the gate receives it.
type Call struct {
	Tool    string
	Args    json.RawMessage // a JSON object, or empty
	Command string          // the command line of a shell tool, if given beside args
	Argv    []string        // or the command as literal words, judged without a shell
	Cwd     string          // resolved absolute working directory
	// Path is the PATH the command runs with, split at ":" (nil: not
	// known); see command.Context.Path.
	Path []string
	// SecretValues name the variables of the command's environment whose
	// values are credentials (command.Context.SecretValues).
	SecretValues []string
	// Background: the host runs the command in the background (also
	// read from a shell tool's args: run_in_background, isBackground).
	Background bool
	// Terminal: the line is typed into a terminal that keeps its folder
	// (command.Context.Terminal).
	Terminal bool
	// AdmitRuns: admit itself runs the line (admit run, admit/run, a
	// rewritten hook call), and judges each command again once its words
	// are known, so a command substitution of a command that prints names
	// is accepted (command.Context.Substitutions; see Decision.Rejudged).
	AdmitRuns bool
}

// Env is everything a decision depends on besides the call itself.
type Env struct {
	Caps *Caps
	// Now is the clock that bounds a pattern walk's time (see
	// command.Context.Now); nil: no time bound.
	Now        func() time.Time
	Roots      []string // resolved workspace roots
	Effects    command.Effects
	Profile    shell.Profile
	Home       string
	Personal   *command.Personal // the person's own places; nil: those under Home
	ShellTools []string          // tool names whose call carries a command line
	Commands   *command.Policy
	// Baseline, when set, is a second command policy a command line must
	// also pass: the built-in one, while an untrusted policy file
	// redefines programs. The stricter answer stands (deny over ask over
	// allow), and on a tie the baseline's reading, which is the vetted one.
	Baseline *command.Policy
	FS       command.FS
	Obs      command.Observations
	// Rules are the person's rules (the user's and the workspace's) with
	// the repository's ask and deny rules, merged (rules.Merge); nil is
	// none. See command.Context.Rules.
	Rules *rules.Set
	// RulesInvalid, when set, says why the person's rules cannot be used:
	// every command line is then refused (rules-invalid), since a deny
	// rule of theirs could not be applied.
	RulesInvalid string
	// Secrets are the files whose reading asks a person (secret-read), for
	// command lines and for the path arguments of other tools; nil:
	// command.DefaultSecrets.
	Secrets *command.Secrets
	// InFlux are the paths a background command of the session may still
	// change (resolved): a call that depends on one is refused
	// (path-in-flux).
	InFlux []string

	MaxRequestChars int64  // bound on a command line; args get maxArgsFactor times as much
	Budget          string // non-empty: why the session's bounds are spent
}

// maxArgsFactor lets tool arguments (a file's new content, say) be larger
// than a command line, while still bounded.
const maxArgsFactor = 256

// maxArgsDepth bounds how deep Decide looks for path arguments; a deeper
// call cannot be judged and is refused.
const maxArgsDepth = 16

// DefaultShellTools are the tool names whose calls carry a command line.
func DefaultShellTools() []string {
	return []string{"bash", "Bash", "shell", "run_in_terminal", "execute_command", "run_command", "run_shell_command"}
}

// Decide judges one call in the README's decision order: no-tool, request-too-large,
// not-in-allow-list, budget-exhausted, the command policy for shell tools,
// the mutator checks, then needs-human. Mode, approvals and the tape are the
// caller's: Decide only says allow, deny, or ask.
func Decide(c Call, e *Env) Decision {
	if e.FS == nil {
		// The zero Env is safe: with no file system to look at, every path
		// is unknown, and an unknown path is refused, never guessed.
		blind := *e
		blind.FS = noFiles{}
		e = &blind
	}
	tool := strings.TrimSpace(c.Tool)
	caps := e.Caps
	if caps == nil {
		caps = &Caps{Label: "nothing"}
	}
	args, argsErr := decodeArgs(c.Args)
	schemaKeys, described := caps.PathArgs[tool]
	pa := pathArgs(args, tool, argRules{schema: schemaKeys, sweep: described || !knownTools()[tool]})
	paths, complete := pa.paths, pa.complete
	d := Decision{Kind: "read", Summary: summarize(tool, c, paths), ArgsJSON: argsErr == nil}
	if tool == "" {
		return refuse(d, rule.NoTool, "the call names no tool", "")
	}
	if lim := e.MaxRequestChars; lim > 0 && (int64(len(c.Command)+len(strings.Join(c.Argv, " "))) > lim || int64(len(c.Args)) > lim*maxArgsFactor) {
		return refuse(d, rule.RequestTooLarge, fmt.Sprintf("the call is over the size bound (command %d of %d characters, arguments %d of %d bytes)", len(c.Command), lim, len(c.Args), lim*maxArgsFactor), "Split the work into smaller calls.")
	}
	if !caps.Grants(tool) {
		return refuse(d, rule.NotInAllowList, fmt.Sprintf("%q is not in the capability set %q for this task. Granted: %s", tool, Identifier(caps.Label), listOrNone(caps.Allow)), "")
	}
	if e.Budget != "" {
		return refuse(d, rule.BudgetExhausted, e.Budget, "Stop and report what is done and what is left.")
	}
	if argsErr != nil {
		return refuse(d, rule.BadArguments, argsErr.Error(), "Pass the arguments as a JSON object.")
	}
	if slices.Contains(e.ShellTools, tool) {
		d = decideCommand(d, c, args, e)
	} else if !complete {
		return refuse(d, rule.RequestTooLarge, fmt.Sprintf("the arguments of %q nest deeper than %d levels", tool, maxArgsDepth), "")
	} else if pa.bad != "" {
		return refuse(d, rule.BadArguments, pa.bad, "Pass each path argument as one string.")
	} else {
		d = decidePaths(d, tool, paths, c.Cwd, e)
		if d.Allowed || d.Ask {
			d = decideGlobs(d, pa.globs, c.Cwd, e)
		}
		if (d.Allowed || d.Ask) && readsMatches[tool] {
			d = decideGlobReads(d, tool, pa.globs, c.Cwd, e)
		}
		if d.Allowed && !readsMatches[tool] && !globTools[tool] {
			d = decideSecretFilters(d, tool, pa.globs, e)
		}
	}
	if !d.Allowed && !d.Ask {
		return d
	}
	if caps.AsksHuman(tool) && !d.Ask {
		d.Allowed, d.Ask = false, true
		d.Rule = rule.NeedsHuman
		d.Reason = fmt.Sprintf("%q always requires a person to approve it", tool)
	}
	if d.Ask && d.Grant == "" {
		d.Grant = toolGrant(tool, args)
	}
	return d
}

func refuse(d Decision, r rule.Rule, reason, hint string) Decision {
	d.Allowed, d.Ask = false, false
	d.Rule, d.Reason, d.Hint = r, reason, hint
	return d
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "nothing"
	}
	return strings.Join(s, ", ")
}

func decodeArgs(raw json.RawMessage) (map[string]any, error) {
	if len(strings.TrimSpace(string(raw))) == 0 || string(raw) == "null" {
		return nil, nil
	}
	// Strictly (strictjson): a repeated key and invalid UTF-8 are refused
	// in the same pass as the decode, since parsers differ on which of two
	// equal keys wins, and the gate and the tool could read different paths.
	m, err := strictjson.Object(raw)
	if err != nil {
		return nil, fmt.Errorf("args must be one JSON object, each key once: %v", err)
	}
	return m, nil
}

// decideCommand runs the command policy on a shell tool's command line,
// taken from the call's command or from args.command.
func decideCommand(d Decision, c Call, args map[string]any, e *Env) Decision {
	line := c.Command
	if len(c.Argv) > 0 {
		line = strings.Join(c.Argv, " ")
	} else if line == "" {
		if s, ok := args["command"].(string); ok {
			line = s
		} else if v, ok := args["command"]; ok {
			return refuse(d, rule.EmptyCommand, fmt.Sprintf("args.command must be a string, got %T", v), "")
		}
	}
	d.Summary = truncate(oneLine(line), 200)
	cwd := c.Cwd
	if s, ok := args["cwd"].(string); ok && s != "" {
		p, err := absolute(s, c.Cwd, e.Home)
		if err != nil {
			return refuse(d, rule.OutsideWorkspace, err.Error(), "")
		}
		r, err := e.FS.Resolve(p)
		if err != nil || !inside(r.Path, e.Roots) {
			return refuse(d, rule.OutsideWorkspace, fmt.Sprintf("the working directory %q is outside the workspace roots %s", s, listOrNone(e.Roots)), "")
		}
		cwd = r.Path
	}
	if e.Commands == nil {
		return refuse(d, rule.UnsupportedProgram, "this gate has no command policy", "")
	}
	if e.RulesInvalid != "" {
		return refuse(d, rule.RulesInvalid, "the person's rules cannot be used, so no command line runs until they are fixed: "+e.RulesInvalid, "Ask the person to fix their rules file (admit: Rules in the editor).")
	}
	cctx := &command.Context{Roots: e.Roots, Effects: e.Effects, Profile: e.Profile, Home: e.Home, FS: e.FS, Now: e.Now, Obs: e.Obs, Personal: e.Personal,
		Rules: e.Rules, Secrets: e.Secrets, Path: c.Path, SecretValues: c.SecretValues, InFlux: e.InFlux, Background: c.Background || backgroundArg(args), Terminal: c.Terminal,
		Substitutions: c.AdmitRuns && len(c.Argv) == 0, AdmitRuns: c.AdmitRuns}
	cd := evaluate(e.Commands, c.Argv, line, cwd, cctx)
	if e.Baseline != nil {
		if b := evaluate(e.Baseline, c.Argv, line, cwd, cctx); strictness(b) >= strictness(cd) {
			cd = b
		}
	}
	d.Allowed, d.Ask = cd.Allowed, cd.Ask
	d.Rule, d.Reason, d.Hint = cd.Rule, cd.Reason, cd.Hint
	if cd.Kind != "" {
		d.Kind = cd.Kind
	}
	d.Reads, d.Writes, d.Listed = cd.Reads, cd.Writes, cd.Listed
	d.Intents = cd.Intents
	d.Asks, d.AskEffects, d.Answerable, d.AllowedBy, d.RunsCode, d.Hidden = cd.Asks, cd.AskEffects, cd.Answerable, cd.AllowedBy, cd.RunsCode, cd.Hidden
	d.Background, d.BackgroundWrites = cd.Background, cd.BackgroundWrites
	d.ShellOnly = cd.ShellOnly
	d.FinalCwd, d.FinalCwdKnown = cd.FinalCwd, cd.FinalCwdKnown
	if len(c.Argv) > 0 {
		d.Argv = [][]string{c.Argv} // what a run may start: this argv, once
	}
	if cd.Script != nil {
		var inner [][]string
		for _, sc := range cd.Script.Commands {
			if len(sc.Substitutions) == 0 && (len(sc.Params) == 0 || !c.AdmitRuns) {
				d.Argv = append(d.Argv, sc.Argv)
				continue
			}
			// Its words are known only when it runs: no argv of it is
			// admitted as written (nil keeps Argv in step with the
			// script's commands, which Intents index), the run judges it
			// again (Rejudged); what runs inside $(...) is admitted.
			shape := Shape{Cmd: len(d.Argv), Argv: sc.Argv}
			d.Argv = append(d.Argv, nil)
			for _, s := range sc.Substitutions {
				shape.Substituted = append(shape.Substituted, s.Index)
				inner = append(inner, s.Argv)
			}
			// echo "$HOME": the variable's value, known when it runs.
			shape.Substituted = append(shape.Substituted, sc.Params...)
			d.Rejudged = append(d.Rejudged, shape)
		}
		d.Argv = append(d.Argv, inner...)
		d.Grant = commandGrant(c.Tool, cd.Script)
	} else if len(c.Argv) > 0 {
		// An argv is judged without a shell: it is the one command that
		// runs, word for word (admit run's recheck holds it to this).
		d.Argv = [][]string{slices.Clone(c.Argv)}
	}
	return d
}

// backgroundArg reports a shell tool's own run-in-background flag:
// Claude Code's Bash run_in_background, VS Code's run_in_terminal
// isBackground. A flag that is not a boolean counts as set.
func backgroundArg(args map[string]any) bool {
	for _, k := range []string{"run_in_background", "isBackground", "is_background", "background"} {
		if v, ok := args[k]; ok && v != nil && v != false {
			return true
		}
	}
	return false
}

// evaluate judges a command line, or an argv when one is given, with p.
func evaluate(p *command.Policy, argv []string, line, cwd string, c *command.Context) command.Decision {
	if len(argv) > 0 {
		return p.EvaluateArgv(argv, cwd, c)
	}
	return p.Evaluate(line, cwd, c)
}

// strictness orders command decisions: an allow, an ask, a refusal.
func strictness(d command.Decision) int {
	switch {
	case d.Allowed:
		return 0
	case d.Ask:
		return 1
	}
	return 2
}

// decidePaths judges a structured tool call by its path arguments: a
// mutator's targets must be inside the write roots, unprotected, and
// observed; any other tool's paths are reads inside the workspace.
func decidePaths(d Decision, tool string, raw []string, cwd string, e *Env) Decision {
	mutator := e.Caps != nil && e.Caps.Mutates(tool)
	if mutator {
		d.Kind = "write"
		if len(e.Caps.WriteRoots) == 0 {
			return refuse(d, rule.NoWriteRoot, fmt.Sprintf("%q writes to the workspace but the capability set %q grants no write root", tool, Identifier(e.Caps.Label)), "")
		}
		if len(raw) == 0 {
			if pat := e.Caps.PatternOnly(tool); pat != "" && !e.Caps.NamedMutator(tool) {
				return refuse(d, rule.NoTarget, fmt.Sprintf("%q is granted only by the pattern %q, so nothing says it only reads: it is judged as a tool that writes, and it names no path argument (path, file_path, ...) the gate can check", tool, pat),
					"Ask the person to name the tool in the policy's allow list (a named tool that is not a mutator is judged by its paths as a reader), or use a tool that is named.")
			}
			return refuse(d, rule.NoTarget, fmt.Sprintf("%q writes to the workspace but names no path argument (path, file_path, ...) the gate can check", tool), "Pass the target file as a path argument.")
		}
	}
	var asks, secrets []string
	personal := e.Personal
	switch {
	case personal != nil:
	case e.Commands != nil:
		personal = e.Commands.Personal(e.Home)
	default:
		personal = command.ScanPersonal(command.PersonalPlaces(e.Home, nil))
	}
	for _, p := range raw {
		abs, err := absolute(p, cwd, e.Home)
		if err != nil {
			return refuse(d, rule.OutsideWorkspace, err.Error(), "")
		}
		r, err := e.FS.Resolve(abs)
		if err != nil {
			return refuse(d, rule.OutsideWorkspace, fmt.Sprintf("%q cannot be resolved: %v", p, err), "")
		}
		// A folder a tool searches (Grep's path) is read below; one it
		// lists only names what is there.
		walks := r.Dir && !listingTools[tool]
		if f := command.InFlux(r.Path, e.InFlux, walks); f != "" || len(e.InFlux) > 0 && command.InFlux(abs, e.InFlux, walks) != "" {
			if f == "" {
				f = command.InFlux(abs, e.InFlux, walks)
			}
			return refuse(d, rule.PathInFlux, fmt.Sprintf("%q: a background command of this session may still change %s, so what is there now is not what the tool would find", p, f), "Wait until the background command has ended, or work on other paths meanwhile.")
		}
		if !mutator {
			if !inside(r.Path, e.Roots) {
				return refuse(d, rule.OutsideWorkspace, fmt.Sprintf("%q resolves to %q, outside the workspace roots %s. Symlinks are resolved before this check.", p, r.Path, listOrNone(e.Roots)), "Read files inside the workspace.")
			}
			if why := command.NotAFile(r); why != "" {
				return refuse(d, rule.OutsideWorkspace, fmt.Sprintf("%q is %s; only regular files of the workspace are read", p, why), "Read a regular file instead.")
			}
			if r.Dir {
				d.Listed = append(d.Listed, r.Path)
			} else {
				d.Reads, d.Seen = append(d.Reads, r.Path), append(d.Seen, r)
				if pat := secretOf(e, r.Path, abs); pat != "" {
					secrets = append(secrets, fmt.Sprintf("%q (%s)", p, pat))
				} else if why := command.GitConfigCredential(e.FS, r.Path); why != "" {
					secrets = append(secrets, fmt.Sprintf("%q (%s)", p, why))
				}
			}
			continue
		}
		if !inside(r.Path, e.Caps.WriteRoots) {
			return refuse(d, rule.OutsideWriteRoot, fmt.Sprintf("%q resolves to %q, outside the write roots %s. Symlinks are resolved before this check.", p, r.Path, listOrNone(e.Caps.WriteRoots)), "")
		}
		why := command.NotAFile(r)
		if why == "" {
			why = command.SharesInode(r)
		}
		if why != "" {
			return refuse(d, rule.OutsideWorkspace, fmt.Sprintf("%q is not written: %s", p, why), "Write a new file instead.")
		}
		// Both the path as written and where it lands, as the command
		// policy does: a refusal of either wins over an ask.
		prot := command.ProtectFor(r.Path, e.Roots, personal)
		if lit := command.ProtectFor(abs, e.Roots, personal); lit.Protected && (!lit.Ask || !prot.Protected) {
			prot = lit
		}
		if prot.Protected && !prot.Ask {
			return refuse(d, rule.ProtectedPath, fmt.Sprintf("%q is protected: %s", p, prot.Why), "")
		}
		if e.Effects != command.WorkspaceWrite {
			return refuse(d, rule.ReadOnlyEffects, fmt.Sprintf("%q changes %q; the effect mode is read-only", tool, p), "Ask the person to switch the effect mode to workspace-write.")
		}
		if ru, why := observedForWrite(r, e.Obs, e.FS); ru != "" {
			return refuse(d, ru, fmt.Sprintf("%q: %s", p, why), "Read the file (or list its folder, for a new file) first, then retry the change.")
		}
		if prot.Protected {
			asks = append(asks, fmt.Sprintf("%q: %s", p, prot.Why))
		}
		d.Writes = append(d.Writes, r.Path)
	}
	if len(asks) > 0 {
		d.Ask, d.Rule, d.Reason = true, rule.ProtectedPath, "a person must approve writes to protected paths: "+strings.Join(asks, "; ")
		return d
	}
	if len(secrets) > 0 {
		d.Ask, d.Rule = true, rule.SecretRead
		d.Reason = "reading " + strings.Join(secrets, ", ") + " would show the model secrets, so the person decides"
		return d
	}
	d.Allowed, d.Rule = true, rule.Allowed
	return d
}

// decideSecretFilters asks when a search tool's file filter (Grep's
// glob, search_files' file_pattern, grep_search's includePattern) selects
// the files a secrets pattern names: the search then shows the model
// their lines, as grep -r --include=.env does.
func decideSecretFilters(d Decision, tool string, globs []string, e *Env) Decision {
	for _, g := range globs {
		if pat := e.Secrets.Glob(g); pat != "" {
			d.Allowed, d.Ask, d.Rule = false, true, rule.SecretRead
			d.Reason = fmt.Sprintf("%s searches the files its filter %q selects, which the secrets pattern %q names, so the person decides whether the model sees them", tool, g, pat)
			return d
		}
	}
	return d
}

// secretOf is the secrets pattern a file matches, by its resolved path
// or as it was named, relative to its root, or "".
func secretOf(e *Env, resolved, named string) string {
	s := e.Secrets
	if s == nil {
		s = command.DefaultSecrets()
	}
	for i, p := range [2]string{resolved, named} {
		if i == 1 && p == resolved {
			break // no link on the way: the name is the resolved path
		}
		for _, r := range e.Roots {
			if rel, ok := beneath(p, r); ok {
				if pat := s.Secret(rel); pat != "" {
					return pat
				}
			}
		}
	}
	return ""
}

// beneath is p relative to the folder root when p starts with root and a
// slash; root may end in "/". No string is built for it.
func beneath(p, root string) (string, bool) {
	root = strings.TrimSuffix(root, "/")
	if len(p) < len(root)+1 || p[len(root)] != '/' || !strings.HasPrefix(p, root) {
		return "", false
	}
	return p[len(root)+1:], true
}

// observedForWrite says why a write target is not known well enough to change.
func observedForWrite(r command.Resolved, obs command.Observations, fs command.FS) (rule.Rule, string) {
	if obs == nil {
		return rule.UnobservedTarget, "nothing was observed in this session before the change"
	}
	if r.Exists {
		switch obs.File(r.Path) {
		case command.Observed:
			return "", ""
		case command.Stale:
			return rule.StaleObservation, "the file changed since it was read"
		}
		if !r.Dir && obs.Dir(filepath.Dir(r.Path)) {
			return "", ""
		}
		return rule.UnobservedTarget, "the file was not read before the change"
	}
	// A new file in new folders (mkdir -p by the tool) needs the nearest
	// folder that exists listed, as the command policy asks of mkdir -p.
	if obs.Dir(nearestExisting(filepath.Dir(r.Path), fs)) {
		return "", ""
	}
	return rule.UnobservedTarget, "a new file needs its folder (or the nearest folder that exists) listed before the change"
}

// nearestExisting walks up from dir to the first folder that exists.
func nearestExisting(dir string, fs command.FS) string {
	for {
		if r, err := fs.Resolve(dir); err == nil && r.Exists {
			return r.Path
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return dir
		}
		dir = parent
	}
}

// pathKeys are the argument names that name a file or folder, compared
// lower-cased with '_' and '-' removed, so file_path, filePath and
// file-path are one name.
var pathKeys = map[string]bool{
	"path": true, "file": true, "filename": true, "filepath": true, "target": true,
	"targetfile": true, "targetpath": true, "dest": true, "destination": true,
	"dir": true, "directory": true, "dirpath": true, "targetdirectory": true,
	"src": true, "source": true, "sourcepath": true, "notebookpath": true,
	"relativeworkspacepath": true, "oldpath": true, "newpath": true,
	"absolutepath": true, "uri": true,
}

// pathListKeys name lists of paths.
var pathListKeys = map[string]bool{"paths": true, "files": true, "filepaths": true, "targets": true, "sources": true, "uris": true,
	"targetdirectories": true, "directories": true, "dirs": true}

// globKeys name glob patterns that widen what a tool reads (Gemini CLI's
// read_many_files include, Cline's file_pattern, Copilot's
// includePattern, Grep's glob); "pattern" is one for the glob tools.
var globKeys = map[string]bool{"include": true, "includes": true, "includepattern": true, "filepattern": true, "glob": true}

// readsMatches are the tools that read every file their patterns match
// (Gemini CLI's read_many_files, whose "paths" are patterns too, and
// Qwen Code's, which keeps its name): each such file is judged as a read.
// A search tool's pattern (Grep's glob) only narrows the search of its
// folder, which is judged as the folder.
var readsMatches = map[string]bool{"read_many_files": true}

// patternLists are, per tool, the path lists whose strings are patterns
// as well: each is judged both as the path it names and as a pattern.
var patternLists = map[string]string{"read_many_files": "paths"}

// listingTools list a folder's names without reading the files in it.
var listingTools = map[string]bool{"LS": true, "list_dir": true, "list_directory": true}

// globTools are the tools whose "pattern" is a file glob, not a regex.
var globTools = map[string]bool{"Glob": true, "glob": true, "find_files": true}

// argPaths is what pathArgs found in a call's arguments.
type argPaths struct {
	paths    []string
	globs    []string // glob patterns naming files to read
	complete bool     // false past maxArgsDepth
	bad      string   // a path argument that is not a string, or ""
}

// argRules say which arguments of a tool beyond the path keys are paths.
type argRules struct {
	schema map[string]bool // normalized names its input schema marks as paths
	// sweep: the tool is one admit does not know (or learnt from a
	// schema), so any string of it that reads as a path is judged as one.
	sweep bool
}

// pathArgs finds path arguments by name, also inside nested objects and
// arrays (an edits list). A path key whose value is not a string (a list
// key: not a list of strings) is reported in bad: a tool might take the
// first element, or the string form, and the gate cannot say which.
// Names that only may be paths (r.schema's, a last word such as
// repo_path's) count their strings, except URIs of another scheme than
// file:; with r.sweep, any other string that reads as a path counts too.
func pathArgs(args map[string]any, tool string, r argRules) argPaths {
	out := argPaths{complete: true}
	seen := map[string]bool{}
	addPath := func(k, s string) {
		if strings.TrimSpace(s) == "" || seen[s] {
			return
		}
		seen[s] = true
		if t := strings.TrimSpace(s); t != s {
			// A tool that trims would use this one: judge both.
			out.paths = append(out.paths, t)
		}
		out.paths = append(out.paths, s)
	}
	// maybePath judges a string under a name that is not a path key.
	maybePath := func(k, n, s string) {
		switch {
		case r.schema[n] || wordPathKey(k):
			if !foreignURI(s) {
				addPath(k, s)
			}
		case r.sweep && !contentKeys[n] && readsAsPath(s):
			addPath(k, s)
		}
	}
	// listPaths judges the strings of a list (and of lists in it) under
	// a name that is not a path key.
	var listPaths func(k, n string, list []any, depth int)
	listPaths = func(k, n string, list []any, depth int) {
		if depth > maxArgsDepth {
			out.complete = false
			return
		}
		for _, x := range list {
			switch x := x.(type) {
			case string:
				maybePath(k, n, x)
			case []any:
				listPaths(k, n, x, depth+1)
			}
		}
	}
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if depth > maxArgsDepth {
			out.complete = false
			return
		}
		switch t := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(t))
			for k := range t {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				n := normKey(k)
				isGlob := globKeys[n] || (n == "pattern" && globTools[tool])
				switch val := t[k].(type) {
				case string:
					if pathKeys[n] {
						addPath(k, val)
					} else if isGlob && strings.TrimSpace(val) != "" {
						out.globs = append(out.globs, val)
					} else if !isGlob {
						maybePath(k, n, val)
					}
				case []any:
					if pathListKeys[n] || pathKeys[n] || isGlob {
						for _, x := range val {
							s, ok := x.(string)
							switch {
							case !ok && x != nil && out.bad == "":
								out.bad = fmt.Sprintf("argument %q holds a %s where a path was expected", k, jsonKind(x))
							case ok && isGlob:
								if strings.TrimSpace(s) != "" {
									out.globs = append(out.globs, s)
								}
							case ok:
								addPath(k, s)
								if patternLists[tool] == n && strings.TrimSpace(s) != "" {
									out.globs = append(out.globs, s)
								}
							}
						}
					} else {
						listPaths(k, n, val, depth+1)
					}
					walk(val, depth+1)
				case nil, map[string]any:
					walk(val, depth+1) // an object: its own keys say what is a path
				default:
					if (pathKeys[n] || pathListKeys[n] || isGlob) && out.bad == "" {
						out.bad = fmt.Sprintf("argument %q is a %s, not a path", k, jsonKind(val))
					}
					walk(val, depth+1)
				}
			}
		case []any:
			for _, x := range t {
				walk(x, depth+1)
			}
		}
	}
	walk(args, 0)
	return out
}

func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "JSON object"
	case []any:
		return "JSON list"
	case float64:
		return "number"
	case bool:
		return "boolean"
	}
	return fmt.Sprintf("%T", v)
}

// decideGlobs judges glob patterns that name files to read: one that
// climbs ("..", "~") or whose fixed leading folders lead outside the
// workspace is refused, and so is one whose walk through the workspace
// (globs.go) reaches outside through a symlink; brace alternatives are
// judged one by one. Relative patterns are walked from the call's folder
// and from each folder its path arguments name (d.Listed).
func decideGlobs(d Decision, globs []string, cwd string, e *Env) Decision {
	w := &globWalk{e: e}
	for _, g := range globs {
		for _, alt := range braceAlternatives(g, 0) {
			if why := globOutside(alt, cwd, e); why != "" {
				return refuse(d, rule.OutsideWorkspace, fmt.Sprintf("glob pattern %q %s", g, why), "Use a pattern relative to the workspace, without \"..\".")
			}
			bases, pat := globBases(cwd, d.Listed), alt
			if strings.HasPrefix(alt, "/") {
				start, rest, err := globStart(alt, e)
				if err != nil {
					return refuse(d, rule.OutsideWorkspace, fmt.Sprintf("glob pattern %q cannot be walked: %v", g, err), "")
				}
				bases, pat = []string{start}, rest
			}
			for _, base := range bases {
				if why := w.reach(pat, base); why != "" {
					if w.flux {
						return refuse(d, rule.PathInFlux, fmt.Sprintf("glob pattern %q %s", g, why), "Wait until the background command has ended, or work on other paths meanwhile.")
					}
					return refuse(d, rule.OutsideWorkspace, fmt.Sprintf("glob pattern %q %s", g, why), "Use a pattern that matches files inside the workspace, or give the tool a folder without links leading out.")
				}
			}
		}
	}
	return d
}

// decideGlobReads judges, for a tool that reads every file its patterns
// match (readsMatches), each file they match as a read of it (decidePaths:
// inside the workspace, a regular file, a secret asks), after decideGlobs
// refused the patterns that climb or lead out. Patterns are walked from
// the call's folder, the folders its paths name and every root (the tool
// walks each workspace folder); one that names a folder reads every file
// under it, and one that names a file (no pattern characters) reads it.
// Exclusions ("exclude") only narrow what the tool reads, so the gate
// judges the files without them: more, never fewer.
func decideGlobReads(d Decision, tool string, globs []string, cwd string, e *Env) Decision {
	w := &globWalk{e: e}
	found := map[string]bool{}
	for _, g := range globs {
		for _, alt := range braceAlternatives(g, 0) {
			alt = strings.ReplaceAll(alt, "\\", "/")
			bases, pat := append(globBases(cwd, d.Listed), e.Roots...), alt
			if strings.HasPrefix(alt, "/") {
				start, rest, err := globStart(alt, e)
				if err != nil {
					return refuse(d, rule.OutsideWorkspace, fmt.Sprintf("glob pattern %q cannot be walked: %v", g, err), "")
				}
				bases, pat = []string{start}, rest
			}
			for _, base := range slices.Compact(bases) {
				p := pat
				if r, err := e.FS.Resolve(filepath.Join(base, pat)); err == nil && r.Exists {
					if !r.Dir {
						found[filepath.Join(base, pat)] = true // the pattern names this file (or matches its own name)
						continue
					}
					p = pat + "/**"
				}
				if why := w.files(strings.Split(p, "/"), base, found); why != "" {
					if w.flux {
						return refuse(d, rule.PathInFlux, fmt.Sprintf("glob pattern %q %s", g, why), "Wait until the background command has ended, or work on other paths meanwhile.")
					}
					return refuse(d, rule.OutsideWorkspace, fmt.Sprintf("glob pattern %q %s", g, why), "Use a pattern that matches files inside the workspace, or narrow it to a folder.")
				}
			}
		}
	}
	files := make([]string, 0, len(found))
	for f := range found {
		files = append(files, f)
	}
	slices.Sort(files)
	fd := decidePaths(Decision{Kind: d.Kind, Summary: d.Summary}, tool, files, cwd, e)
	switch {
	case !fd.Allowed && !fd.Ask:
		fd.Reason = "a file its patterns match: " + fd.Reason
		return fd
	case fd.Ask && !d.Ask:
		fd.Reason = "a file its patterns match: " + fd.Reason
		fd.Reads, fd.Listed = append(d.Reads, fd.Reads...), d.Listed
		return fd
	}
	d.Reads = append(d.Reads, fd.Reads...)
	return d
}

// braceAlternatives expands {a,b} alternatives (bounded), as fast-glob
// and ripgrep do.
func braceAlternatives(g string, depth int) []string {
	i := strings.IndexByte(g, '{')
	if i < 0 || depth > 8 {
		return []string{g}
	}
	level := 0
	var parts []string
	start := i + 1
	for j := i; j < len(g); j++ {
		switch g[j] {
		case '{':
			level++
		case '}':
			level--
			if level == 0 {
				parts = append(parts, g[start:j])
				var out []string
				for _, p := range parts {
					out = append(out, braceAlternatives(g[:i]+p+g[j+1:], depth+1)...)
					if len(out) > 64 {
						return out
					}
				}
				return out
			}
		case ',':
			if level == 1 {
				parts = append(parts, g[start:j])
				start = j + 1
			}
		}
	}
	return []string{g} // unbalanced: literal
}

// globOutside says why one brace-free glob pattern reaches outside, or "".
func globOutside(g, cwd string, e *Env) string {
	p := strings.ReplaceAll(g, "\\", "/")
	if strings.HasPrefix(p, "~") {
		return "starts at a home folder"
	}
	for _, c := range strings.Split(p, "/") {
		if c == ".." {
			return "climbs with \"..\""
		}
	}
	if !strings.HasPrefix(p, "/") {
		return ""
	}
	// The fixed folders before the first component with a glob character.
	var fixed []string
	for _, c := range strings.Split(p, "/") {
		if strings.ContainsAny(c, "*?[]{}!()+@") {
			break
		}
		fixed = append(fixed, c)
	}
	prefix := strings.Join(fixed, "/")
	if prefix == "" {
		prefix = "/"
	}
	abs, err := absolute(prefix, cwd, e.Home)
	if err != nil {
		return err.Error()
	}
	r, err := e.FS.Resolve(abs)
	if err != nil || !inside(r.Path, e.Roots) {
		return fmt.Sprintf("starts at %q, outside the workspace roots %s", prefix, listOrNone(e.Roots))
	}
	return ""
}

func normKey(k string) string {
	b := make([]byte, 0, len(k))
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c == '_' || c == '-':
		case 'A' <= c && c <= 'Z':
			b = append(b, c+'a'-'A')
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

// absolute makes a path argument absolute: a file:// URI becomes its path,
// a leading ~ is the home directory, a relative path joins cwd.
func absolute(p, cwd, home string) (string, error) {
	if scheme, ok := uriScheme(p); ok {
		// file:/x, file:///x, FILE://localhost/x are all /x to a URI
		// parser; any other scheme is not a file of this machine.
		if !strings.EqualFold(scheme, "file") {
			return "", fmt.Errorf("%q is a %s: URI, not a file path", p, scheme)
		}
		u, err := url.Parse(p)
		if err != nil || u.Opaque != "" || (u.Host != "" && !strings.EqualFold(u.Host, "localhost")) || u.Path == "" {
			return "", fmt.Errorf("%q is not a file URI of this machine", p)
		}
		p = u.Path
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home == "" {
			return "", fmt.Errorf("%q names the home directory, which is not known", p)
		}
		p = filepath.Join(home, p[1:])
	} else if strings.HasPrefix(p, "~") {
		return "", fmt.Errorf("%q names another user's home directory", p)
	}
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("%q contains a NUL byte", p)
	}
	if !filepath.IsAbs(p) {
		if cwd == "" {
			return "", fmt.Errorf("%q is relative and the session has no working directory", p)
		}
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p), nil
}

// uriScheme reports a leading URI scheme: "file:" (any case, any number
// of slashes after it), or NAME:// for any other name. A plain relative
// name with a colon ("a:b") is no URI.
func uriScheme(p string) (string, bool) {
	i := strings.IndexByte(p, ':')
	if i < 1 {
		return "", false
	}
	name := p[:i]
	for k := 0; k < len(name); k++ {
		c := name[k]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || k > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return "", false
		}
	}
	if strings.EqualFold(name, "file") || strings.HasPrefix(p[i+1:], "//") {
		return name, true
	}
	return "", false
}

// inside reports whether p is one of roots or under one; "<root>-evil" is
// not under "<root>".
func inside(p string, roots []string) bool {
	for _, r := range roots {
		if p == r || (strings.HasPrefix(p, r) && (strings.HasSuffix(r, "/") || p[len(r)] == '/')) {
			return true
		}
	}
	return false
}

func summarize(tool string, c Call, paths []string) string {
	if len(paths) > 0 {
		return truncate(tool+" "+strings.Join(paths, ", "), 200)
	}
	if len(c.Args) > 0 {
		return truncate(tool+" "+oneLine(string(c.Args)), 200)
	}
	return tool
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// toolGrant is the key of an allow-session grant for a structured call: the
// same tool with the same arguments.
func toolGrant(tool string, args map[string]any) string {
	if args == nil {
		return "tool:" + tool
	}
	canon, _ := json.Marshal(args) // map keys are sorted, so equal args give equal keys
	return "tool:" + tool + ":" + string(canon)
}

// commandGrant is the key of an allow-session grant for a command: the same
// programs with the same subcommands and option sets, whatever the operands.
func commandGrant(tool string, s *shell.Script) string {
	var parts []string
	for _, c := range s.Commands {
		if len(c.Argv) == 0 {
			continue
		}
		// The program and its subcommand or script, as the person's
		// "always allow" names it (npm test, npm run build, python3
		// x.py): a grant for npm test is none for npm run evil.
		words := []string{c.Argv[0]}
		rest := c.Argv[1:]
		for len(rest) > 0 && len(words) < 3 && !strings.HasPrefix(rest[0], "-") && (len(words) == 1 || words[1] == "run") {
			words = append(words, rest[0])
			rest = rest[1:]
		}
		var opts []string
		for _, w := range rest {
			if w == "--" {
				break
			}
			if strings.HasPrefix(w, "-") && w != "-" {
				opts = append(opts, w)
			}
		}
		slices.Sort(opts)
		parts = append(parts, strings.Join(append(words, slices.Compact(opts)...), " "))
	}
	return "cmd:" + tool + ":" + strings.Join(parts, " | ")
}
