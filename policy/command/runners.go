package command

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"admit/policy/rule"
	"admit/policy/shell"
)

// Programs that start programs (docs/policy-programs.md, "Runners"). A
// runner's words name the command it runs: npx eslint ., uv run pytest,
// poetry run sh -c '...', npx -c 'LINE'. The runner is asked about as
// ever (it may download, sync an environment, run install scripts), and
// the command it runs is judged as a command of its own, through every
// level, the way a wrapper's is (judge.wrapper): its refusals stand
// whatever rule allows the runner, and its own question is answered by a
// rule over it, or over the runner's words as written (a person's "uv run
// *" means what uv runs). A line given as a string (npx -c, pnpm exec -c)
// is parsed and its commands judged on their own: no rule over the runner
// answers for them.
//
// Options that add code to what a program runs (npm --node-options,
// node --require, pytest -p, make's recipe variables) are code an option
// loads (codeExtension, rules.CodeOptions), which a prefix rule never
// covers: "npm test *" is the person's word about npm's test script, not
// about a module loaded before it.
// Options whose value is code nobody can read before it runs (make
// --eval, cargo --config with a key that names a program) are refused.

// runnerSpec is how one runner finds the command it runs.
type runnerSpec struct {
	sub    string // the subcommand that makes the program a runner ("exec x"); "" the program itself (npx)
	valued string // its options that take a value
	flags  string // its options that take none
	line   string // options whose value is a shell line (npx -c LINE)
	asLine string // options that make its other words one shell line (pnpm exec -c)
	module string // options whose value names a Python module run as the program (uv run -m)
	then   string // a second word the subcommand needs ("uv tool run"); "" none
	// joined: the runner joins its words into a shell line itself (yarn
	// exec), so a word with shell syntax changes what runs.
	joined bool
	// self: the subcommand is the program it runs, with the words after
	// it (yarn node ARGS runs node ARGS).
	self bool
	// envPrefix: the command's first word may name an environment before
	// a colon, after matrix selections (hatch run +py=3.12 test:sh ...).
	envPrefix bool
}

const (
	npxValued = "-p --package --registry --cache --userconfig --prefix -w --workspace --loglevel"
	npxFlags  = "-y --yes --no -q --quiet --silent -s --ignore-existing --no-install --prefer-offline --offline --prefer-online --legacy-peer-deps --ws --workspaces --include-workspace-root --no-workspaces"
	uvValued  = "--with --with-editable --with-requirements --python -p --package --env-file --directory --project --extra --group --only-group --no-group --index --default-index --index-url --extra-index-url --find-links -f --cache-dir --config-file --python-preference --color --refresh-package --reinstall-package --upgrade-package -P --exclude-newer --prerelease --resolution --index-strategy --keyring-provider --link-mode --config-setting -C --from"
	uvFlags   = "--no-project --isolated --frozen --locked --no-sync --all-extras --no-dev --dev --active --no-active --all-packages --exact --inexact --no-editable --offline -q --quiet -v --verbose --no-cache -n --native-tls --no-progress --no-env-file --upgrade -U --reinstall --refresh --no-build-isolation --no-config --no-python-downloads --compile-bytecode --no-build --no-binary --all-groups --no-default-groups --only-dev --script -s"
)

// runnerSpecs are the runners by program name.
var runnerSpecs = map[string][]runnerSpec{
	"npx":    {{valued: npxValued, flags: npxFlags, line: "-c --call"}},
	"pnpx":   {{valued: npxValued, flags: npxFlags, line: "-c --call"}},
	"npm":    {{sub: "exec x", valued: npxValued, flags: npxFlags, line: "-c --call"}},
	"pnpm":   {{sub: "exec", valued: "--filter -F --resume-from --workspace-concurrency -C --dir", flags: "-r --recursive --parallel --no-bail --report-summary --no-reporter-hide-prefix --workspace-root -w --silent -s", asLine: "-c --shell-mode"}, {sub: "dlx", valued: "--package", flags: "--silent -s", asLine: "-c --shell-mode"}},
	"yarn":   {{sub: "exec", joined: true}, {sub: "dlx", valued: "-p --package", flags: "-q --quiet"}, {sub: "node", self: true}},
	"bunx":   {{valued: "-p --package", flags: "--bun --no-install --verbose --silent"}},
	"bun":    {{sub: "x", valued: "-p --package", flags: "--bun --no-install --verbose --silent"}},
	"uv":     {{sub: "run", valued: uvValued, flags: uvFlags, module: "-m --module"}, {sub: "tool", then: "run", valued: uvValued, flags: uvFlags}},
	"uvx":    {{valued: uvValued, flags: uvFlags}},
	"pipx":   {{sub: "run", valued: "--spec --python --pip-args", flags: "--no-cache --verbose -v --quiet -q --system-site-packages"}},
	"poetry": {{sub: "run"}},
	"pipenv": {{sub: "run"}},
	"pdm":    {{sub: "run", valued: "-p --project", flags: "-l --list -s --site-packages --json --recreate"}},
	"hatch":  {{sub: "run", envPrefix: true}, {sub: "env", then: "run", valued: "-e --env -i --include -x --exclude -f --filter", flags: "--ignore-compat"}},
	"tox":    {{sub: "exec", valued: "-e --env -c --conf --root --workdir -x --override --runner --result-json --hashseed --discover", flags: "-r --recreate -n --notest --skip-pkg-install --no-recreate-pkg --skip-env -q -v --quiet --verbose --no-provision"}},
}

// runnerInner is what a runner's words say it runs: an argv, or a shell
// line (line != ""), from the word at index at of argv.
type runnerInner struct {
	argv   []string
	line   string
	at     int
	joined bool
	by     string // the runner as written, for reasons ("npx -c")
}

// runnerOf reads argv (a toolchain's command) as a runner: ok is false
// when it is none; a refusal (an option whose reach admit cannot tell)
// is made here.
func (j *judge) runnerOf(tc *toolchain, argv []string) (runnerInner, bool) {
	if argv[0] == "yarn" {
		if in, ok := j.yarnWorkspace(tc, argv); ok {
			return in, true
		}
	}
	if argv[0] == "cmake" && len(argv) > 3 && argv[1] == "-E" {
		// cmake -E env [VAR=value]... COMMAND runs COMMAND as env does;
		// -E time COMMAND runs it; -E chdir DIR COMMAND runs it elsewhere.
		switch argv[2] {
		case "env":
			return runnerInner{argv: append([]string{"env"}, argv[3:]...), at: 3, by: "cmake -E env"}, true
		case "time":
			return runnerInner{argv: argv[3:], at: 3, by: "cmake -E time"}, true
		case "chdir":
			j.refuse(rule.HiddenCommand, "cmake -E chdir runs a command in another folder, where the paths of its words lead elsewhere", "cd to the folder as a line of its own, then run the command")
			return runnerInner{}, true
		}
	}
	for _, sp := range runnerSpecs[argv[0]] {
		i := 1
		by := argv[0]
		asLine := false
		if sp.sub != "" {
			k := subIndex(tc, argv, sp.sub)
			if k < 0 {
				continue
			}
			// The runner's own options may come before the subcommand
			// (pnpm -c exec 'LINE').
			asLine = slices.ContainsFunc(argv[1:k], func(a string) bool { return hasField(sp.asLine, a) })
			i, by = k+1, argv[0]+" "+argv[k]
			if sp.then != "" {
				if i >= len(argv) || argv[i] != sp.then {
					continue
				}
				i, by = i+1, by+" "+sp.then
			}
			if sp.self {
				return runnerInner{argv: argv[k:], at: k, by: by}, true
			}
		}
		return j.runnerWords(sp, argv, i, by, asLine)
	}
	return runnerInner{}, false
}

// subIndex is the index in argv of a runner's subcommand, one of subs, or
// -1. The runner's options before it are skipped, and so is a word after
// an option the table does not know to take none (poetry -C DIR run, bun
// --cwd DIR x): such a word may be that option's value, and a runner
// missed would let the command it runs go unjudged, while one seen where
// there is none only judges words more.
func subIndex(tc *toolchain, argv []string, subs string) int {
	maybeValue := false
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "--":
			return -1
		case strings.HasPrefix(a, "-") && a != "-":
			if hasField(tc.valued, a) && i+1 < len(argv) {
				i++
				maybeValue = false
				continue
			}
			maybeValue = !strings.Contains(a, "=")
		case strings.HasPrefix(a, "+"): // cargo +nightly
			maybeValue = false
		case hasField(subs, a):
			return i
		case maybeValue:
			maybeValue = false
		default:
			return -1 // another subcommand
		}
	}
	return -1
}

// yarnWorkspace reads "yarn workspace NAME COMMAND..." and "yarn
// workspaces foreach [OPTIONS] COMMAND...", which run yarn COMMAND in
// other workspaces: a runner there (yarn workspace web exec 'LINE') is
// judged as one.
func (j *judge) yarnWorkspace(tc *toolchain, argv []string) (runnerInner, bool) {
	k := subIndex(tc, argv, "workspace workspaces")
	if k < 0 {
		return runnerInner{}, false
	}
	rest := k + 2 // after workspace NAME
	if argv[k] == "workspaces" {
		if k+1 >= len(argv) || argv[k+1] != "foreach" {
			return runnerInner{}, false
		}
		for rest = k + 2; rest < len(argv) && strings.HasPrefix(argv[rest], "-"); rest++ {
			a := argv[rest]
			name, _, attached := strings.Cut(a, "=")
			switch {
			case hasField("--include --exclude --from --since -j --jobs", name) && !attached:
				rest++
			case hasField("--include --exclude --from --since -j --jobs", name), hasField("-A --all -R --recursive -W --worktree -p --parallel -i --interlaced -v --verbose -t --topological --topological-dev -n --dry-run --no-private", a):
			default:
				j.refuse(rule.ForbiddenFlag, fmt.Sprintf("option %q of yarn workspaces foreach is not one admit knows, so it cannot tell where the command it runs starts", a), "leave the option out")
				return runnerInner{}, true
			}
		}
	}
	if rest >= len(argv) {
		return runnerInner{}, false
	}
	inner := append([]string{"yarn"}, argv[rest:]...)
	in, ok := j.runnerOf(tc, inner)
	if !ok || j.acc.refused {
		return in, ok
	}
	in.at += rest - 1 // inner[1] is argv[rest]
	in.by = strings.Join(argv[:rest], " ") + strings.TrimPrefix(in.by, "yarn")
	return in, true
}

// runnerWords reads a runner's options from argv[i:], up to the command
// it runs.
func (j *judge) runnerWords(sp runnerSpec, argv []string, i int, by string, asLine bool) (runnerInner, bool) {
	for ; i < len(argv); i++ {
		a := argv[i]
		name, value, attached := strings.Cut(a, "=")
		switch {
		case a == "--":
			i++
			return runnerInner{argv: argv[i:], at: i, by: by, joined: sp.joined || asLine}, true
		case sp.envPrefix && strings.HasPrefix(a, "+"):
			// hatch's matrix selection (+py=3.12): no command yet.
		case sp.envPrefix && strings.Contains(a, ":"):
			// ENV:COMMAND runs COMMAND in the environment ENV.
			_, cmd, _ := strings.Cut(a, ":")
			inner := append([]string{cmd}, argv[i+1:]...)
			if cmd == "" {
				inner = inner[1:]
			}
			return runnerInner{argv: inner, at: i, by: by, joined: sp.joined || asLine}, true
		case !strings.HasPrefix(a, "-") || a == "-":
			return runnerInner{argv: argv[i:], at: i, by: by, joined: sp.joined || asLine}, true
		case hasField(sp.line, name) || attachedOption(sp.line, a):
			switch {
			case attached:
			case len(name) == 2 && len(a) > 2 && !strings.HasPrefix(a, "--"):
				value = a[2:]
			case i+1 < len(argv):
				value = argv[i+1]
			default:
				j.refuse(rule.ForbiddenFlag, fmt.Sprintf("%s %s needs the line it runs", by, a), "")
				return runnerInner{}, true
			}
			return runnerInner{line: value, at: i, by: by + " " + name}, true
		case hasField(sp.asLine, a):
			asLine = true
		case hasField(sp.module, name):
			if !attached {
				if i+1 >= len(argv) {
					j.refuse(rule.ForbiddenFlag, fmt.Sprintf("%s %s needs a module", by, a), "")
					return runnerInner{}, true
				}
				i++
				value = argv[i]
			}
			// uv run -m MOD ARGS runs python -m MOD ARGS.
			inner := append([]string{"python", "-m", value}, argv[i+1:]...)
			return runnerInner{argv: inner, at: i + 1, by: by}, true
		case hasField(sp.valued, name):
			if !attached {
				i++
			}
		case hasField(sp.flags, a):
		case attached && strings.HasPrefix(a, "--"):
			// --name=value: a setting with its value in the word, whatever
			// it is, takes no other word.
		default:
			j.refuse(rule.ForbiddenFlag, fmt.Sprintf("option %q of %s is not one admit knows, so it cannot tell where the command %s runs starts", a, by, by),
				"put the command after \"--\", or leave the option out")
			return runnerInner{}, true
		}
	}
	return runnerInner{at: len(argv), by: by}, true
}

// viaRunner is a runner's argv as written and where the command it runs
// starts in it, for the person's rules over the runner.
type viaRunner struct {
	argv []string
	at   int
}

// runner judges the command a runner runs, at the next level. It
// reports whether argv is a runner (judged, or refused).
func (j *judge) runner(tc *toolchain, argv []string) bool {
	in, ok := j.runnerOf(tc, argv)
	if !ok || j.acc.refused {
		return ok
	}
	if j.depth+1 >= maxWrapperDepth {
		j.refuse(rule.HiddenCommand, fmt.Sprintf("%s runs programs that run programs too deep to follow", in.by), "run the inner command on its own")
		return true
	}
	redirs, depth := j.redirs, j.depth
	defer func() { j.redirs, j.depth = redirs, depth }()
	switch {
	case in.line != "":
		j.runnerLine(in)
	case len(in.argv) == 0:
	case in.joined && slices.ContainsFunc(in.argv, hasShellSyntax):
		j.refuse(rule.HiddenCommand, fmt.Sprintf("%s runs its words through a shell, and %s holds shell syntax, so what runs is not the words as written", in.by, showArgv(in.argv)),
			"pass plain words, or put the commands in a script of the workspace and run that")
	default:
		if folderBuiltin(in.argv[0]) {
			j.refuse(rule.HiddenCommand, fmt.Sprintf("%s cannot run %s, a shell builtin", in.by, in.argv[0]), "run "+in.argv[0]+" on its own")
			return true
		}
		inner := in.argv
		if strings.HasSuffix(inner[0], ".py") && !strings.Contains(inner[0], "/") && (argv[0] == "uv" || argv[0] == "poetry" || argv[0] == "pipenv" || argv[0] == "pdm" || argv[0] == "hatch") {
			inner = append([]string{"python"}, inner...) // uv run x.py runs python x.py
		}
		j.via = append(j.via, viaRunner{argv: withoutRuntimeNames(argv), at: in.at})
		j.program(inner, depth+1)
		j.via = j.via[:len(j.via)-1]
	}
	return true
}

// runnerLine judges the shell line a runner runs (npx -c LINE): each of
// its simple commands on its own, in the working folder. What a line of
// the gate's own could do that one command cannot follow (a pipe feeding
// a command, a pattern, a cd, a substitution) is refused here.
func (j *judge) runnerLine(in runnerInner) {
	hint := "send the line itself as the command line, not through " + in.by
	script, prob := j.p.parseInner(in.line, j.c.Home)
	if prob != nil {
		j.refuse(rule.HiddenCommand, fmt.Sprintf("%s runs a line the gate cannot judge: %s", in.by, prob.Reason), hint)
		return
	}
	if script == nil || len(script.Commands) == 0 {
		return
	}
	for k := range script.Commands {
		cmd := &script.Commands[k]
		switch {
		case cmd.Joiner == "|" || (k+1 < len(script.Commands) && script.Commands[k+1].Joiner == "|"):
			j.refuse(rule.HiddenCommand, fmt.Sprintf("%s runs a pipeline, which the gate judges only as a line of its own", in.by), hint)
		case len(cmd.Patterns) > 0 || len(cmd.GlobOptions) > 0:
			j.refuse(rule.DynamicWord, fmt.Sprintf("%s runs a line with a pattern, expanded when it runs", in.by), hint)
		case len(cmd.Substitutions) > 0:
			j.refuse(rule.DynamicWord, fmt.Sprintf("%s runs a line with a command substitution", in.by), hint)
		case cmd.Read != nil:
			j.refuse(rule.DynamicWord, fmt.Sprintf("%s runs a while read loop, whose lines are only known when it runs", in.by), hint)
		case folderBuiltin(cmd.Argv[0]):
			j.refuse(rule.HiddenCommand, fmt.Sprintf("%s runs %s, which changes the folder of the commands after it in a way the gate does not follow", in.by, cmd.Argv[0]), hint)
		case !j.printedParams(cmd.ParamNames):
		default:
			saved := j.globs
			j.globs = nil
			argv := cmd.Argv
			if bin := j.lineBin(in, argv[0]); bin != "" {
				argv = append([]string{bin}, argv[1:]...)
			}
			j.command(argv, cmd.Redirects, j.depth+1)
			j.globs = saved
		}
		if j.acc.refused {
			return
		}
	}
}

// lineBin is where the line of a node runner (npx -c, npm exec -c) finds
// a program before PATH: npm puts node_modules/.bin of the working folder
// and of each folder above it first, so `npm exec -c 'git status'` runs a
// node_modules/.bin/git the agent wrote, not the git PATH names. It is the
// program's path as written from the working folder, judged as the
// workspace's program it is, or "" where no folder of the workspace holds
// one (a folder above the roots is the person's).
func (j *judge) lineBin(in runnerInner, name string) string {
	if j.c.FS == nil || strings.Contains(name, "/") || bashBuiltins[name] || !nodeRunner(in.by) {
		return ""
	}
	for dir := j.cwd; inside(dir, j.c.Roots) && dir != "/"; dir = path.Dir(dir) {
		p := dir + "/node_modules/.bin/" + name
		if r, err := j.resolvePath(p); err == nil && r.Exists && !r.Dir {
			if rel, ok := strings.CutPrefix(p, j.cwd+"/"); ok {
				return rel
			}
			return p
		}
	}
	return ""
}

// nodeRunner reports whether a runner (as written, "npm exec -c") is one
// of npm's, which run a line with node_modules/.bin first on PATH.
func nodeRunner(by string) bool {
	first, _, _ := strings.Cut(by, " ")
	return first == "npx" || first == "pnpx" || first == "npm" || first == "pnpm" || first == "yarn"
}

// parseInner parses a line a runner runs through sh, with the strict
// profile of a host's bash -c.
func (p *Policy) parseInner(line, home string) (*shell.Script, *shell.Problem) {
	pp, _ := p.parsers.Get().(*pooled)
	if pp == nil || pp.home != home {
		pp = &pooled{home: home, p: shell.NewParser(home)}
	}
	pp.p.Substitutions = false
	script, prob := pp.p.Parse(line, shell.Analyze)
	p.parsers.Put(pp)
	return script, prob
}

// hasShellSyntax reports a word a shell would not pass on as one word.
func hasShellSyntax(w string) bool {
	return strings.ContainsAny(w, " \t\n;&|<>()$`\\\"'*?[]{}~#!")
}

// givenCode refuses a toolchain command whose options hand it code
// nobody can read before it runs: make --eval, and cargo --config with a
// key that names a program (a runner, a linker, a wrapper) or flags for
// the compiler.
func (j *judge) givenCode(argv []string) bool {
	switch argv[0] {
	case "make", "gmake":
		if w := makeEval(argv); w != "" {
			j.refuse(rule.HiddenCommand, fmt.Sprintf("%s: %q has make read the text that follows as part of the Makefile, whose recipes run as shell commands the gate does not judge", argv[0], w),
				"write the rule into the Makefile, then run make with its target")
			return true
		}
	case "cargo":
		if key, w := cargoConfig(argv); w != "" {
			j.refuse(rule.HiddenCommand, fmt.Sprintf("cargo %q sets %s, which can name a program cargo starts (a runner, a linker, a wrapper) or flags for the compiler", w, key),
				"put the setting in the workspace's .cargo/config.toml, or leave it out")
			return true
		}
	}
	return false
}

// makeEval is make's --eval (or a prefix of it) or -E word in argv, or
// a makefile read from standard input (-f -, --file=-), or "".
func makeEval(argv []string) string {
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		next := ""
		if i+1 < len(argv) {
			next = argv[i+1]
		}
		switch {
		case a == "--":
			return ""
		case strings.HasPrefix(a, "--"):
			n, v, attached := strings.Cut(a, "=")
			if len(n) >= 4 && strings.HasPrefix("--eval", n) {
				return a // getopt_long takes --ev and --eva for --eval
			}
			if len(n) >= 3 && (strings.HasPrefix("--file", n) || strings.HasPrefix("--makefile", n)) && (attached && v == "-" || !attached && next == "-") {
				return a + map[bool]string{true: "", false: " -"}[attached] // the makefile is what the line pipes in
			}
		case len(a) > 1 && a[0] == '-':
			for k := 1; k < len(a); k++ {
				if a[k] == 'E' {
					return a
				}
				if a[k] == 'f' && (a[k+1:] == "-" || k+1 == len(a) && next == "-") {
					return "-f -"
				}
				if strings.IndexByte("CfIjloW", a[k]) >= 0 {
					break // the rest of the word is that option's value
				}
			}
		}
	}
	return ""
}

// cargoSafeKeys are cargo's settings that name no program and pass no
// flags to the compiler.
var cargoSafeKeys = []string{"build.jobs", "build.incremental", "build.target-dir", "net.offline", "net.retry", "net.git-fetch-with-cli", "term.color", "term.verbose", "term.quiet", "term.progress.when", "cargo-new.vcs"}

// cargoConfig is the first --config KEY=VALUE of argv whose key is not
// one of cargoSafeKeys (nor a profile's plain setting), and the word.
func cargoConfig(argv []string) (key, word string) {
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if a == "--" {
			return "", ""
		}
		var v string
		switch {
		case a == "--config" && i+1 < len(argv):
			v, i = argv[i+1], i+1
		case strings.HasPrefix(a, "--config="):
			v = strings.TrimPrefix(a, "--config=")
		default:
			continue
		}
		k, _, isKV := strings.Cut(v, "=")
		if !isKV {
			continue // a file: its path is judged as an argument (argPaths)
		}
		k = strings.Trim(strings.TrimSpace(k), `"'`)
		if !cargoSafeKey(k) {
			return k, v
		}
	}
	return "", ""
}

func cargoSafeKey(k string) bool {
	if slices.Contains(cargoSafeKeys, k) {
		return true
	}
	// profile.NAME.(opt-level|debug|...): how the compiler optimises.
	if rest, ok := strings.CutPrefix(k, "profile."); ok {
		_, setting, ok := strings.Cut(rest, ".")
		return ok && slices.Contains([]string{"opt-level", "debug", "debug-assertions", "overflow-checks", "lto", "panic", "incremental", "codegen-units", "strip", "split-debuginfo"}, setting)
	}
	return false
}

// codeExtension is the index in argv of the first word that adds code to
// what the program runs, and why, or -1: the call then has the effect
// rules.CodeOptions (judge.asksCode).
func codeExtension(argv []string) (int, string) {
	name := argv[0]
	switch {
	case name == "npm" || name == "pnpm" || name == "yarn" || name == "npx" || name == "pnpx" || name == "bun" || name == "bunx":
		for i := 1; i < len(argv); i++ {
			a := argv[i]
			if a == "--" {
				break
			}
			n, v, attached := strings.Cut(a, "=")
			switch npmOption(n) {
			case "--node-options":
				at := i
				if !attached && i+1 < len(argv) {
					v, at = argv[i+1], i+1 // the rule must name the value too
				}
				if why := nodeLoads(v); why != "" {
					return at, "its --node-options " + why
				}
			case "--script-shell", "--shell":
				return i, "its " + n + " names the shell its scripts run in"
			case "--userconfig", "--globalconfig", "--init-module", "--onload-script":
				return i, "its " + n + " names a file npm reads its settings or code from (script-shell, node-options)"
			case "--require", "-r", "--import", "--preload":
				if name == "bun" || name == "bunx" {
					return i, fmt.Sprintf("%s loads a module before the program", n)
				}
			}
		}
	case name == "node" || name == "nodejs":
		for i := 1; i < len(argv); i++ {
			a := argv[i]
			n, _, _ := strings.Cut(a, "=")
			if !strings.HasPrefix(a, "-") || a == "--" {
				break
			}
			if nodeLoader(n) || strings.HasPrefix(a, "-r") && len(a) > 2 && a[1] == 'r' {
				return i, fmt.Sprintf("%s loads a module before the program", n)
			}
			if v, ok := strings.CutPrefix(a, "--test-reporter="); ok && !slices.Contains([]string{"spec", "tap", "dot", "junit", "lcov"}, v) {
				return i, fmt.Sprintf("--test-reporter=%s loads a module as the test reporter", v)
			}
			if a == "--test-reporter" && i+1 < len(argv) && !slices.Contains([]string{"spec", "tap", "dot", "junit", "lcov"}, argv[i+1]) {
				return i + 1, fmt.Sprintf("--test-reporter %s loads a module as the test reporter", argv[i+1])
			}
		}
	case name == "ts-node" || name == "tsx" || name == "mocha" || name == "nyc" || name == "c8":
		// Their -r and --require load a module first, as node's do.
		for i := 1; i < len(argv); i++ {
			a := argv[i]
			if a == "--" {
				break
			}
			n, _, _ := strings.Cut(a, "=")
			if n == "-r" || n == "--require" || n == "--import" || n == "--loader" || strings.HasPrefix(a, "-r") && len(a) > 2 && a[1] == 'r' {
				return i, fmt.Sprintf("%s loads a module before the program", n)
			}
		}
	case name == "go":
		return goToolOption(argv)
	case responseFilePrograms[name] || name == "cargo":
		if i := responseFile(argv); i >= 0 {
			return i, fmt.Sprintf("%s reads more of %s's options from the file %s, which the gate does not read", argv[i], name, argv[i][1:])
		}
	case name == "pytest" || name == "py.test":
		return pytestPlugin(argv, 1)
	case strings.HasPrefix(name, "python"):
		for i := 1; i < len(argv); i++ {
			a := argv[i]
			switch {
			case a == "-m" && i+1 < len(argv) && argv[i+1] == "pytest":
				return pytestPlugin(argv, i+2)
			case a == "-mpytest":
				return pytestPlugin(argv, i+1)
			case a == "-X" || a == "-W":
				i++ // their value, then more options
				continue
			}
			if !strings.HasPrefix(a, "-") || a == "-" || a == "--" || strings.HasPrefix(a, "-c") || strings.HasPrefix(a, "-m") {
				break
			}
		}
	case name == "make" || name == "gmake":
		for i := 1; i < len(argv); i++ {
			n, v, ok := strings.Cut(argv[i], "=")
			if argv[i] == "--" || !ok || strings.HasPrefix(argv[i], "-") {
				continue
			}
			n = strings.TrimRight(n, ":+?!")
			switch {
			case n == "SHELL" || n == ".SHELLFLAGS" || n == "MAKEFLAGS" || n == "MFLAGS" || n == "MAKEFILES" || n == "MAKE" || n == "GNUMAKEFLAGS":
				return i, fmt.Sprintf("%s sets make's %s, which changes what its recipes run", argv[i], n)
			case strings.ContainsAny(v, " \t\n;&|<>()$`\\\"'"):
				return i, fmt.Sprintf("%q sets a make variable to shell text, which a recipe may run", argv[i])
			}
		}
	}
	return -1, ""
}

// npmAbbreviated are npm's settings that name code or a shell, with the
// shortest prefix npm takes for each: npm reads an unambiguous prefix of a
// long option as the option (--node-opt=, --scr=).
var npmAbbreviated = []struct{ name, shortest string }{
	{"--node-options", "--node-o"}, {"--script-shell", "--scr"}, {"--userconfig", "--userc"},
	{"--globalconfig", "--globalc"}, {"--init-module", "--init-m"}, {"--onload-script", "--onl"},
}

// npmOption is the long option n of npm (pnpm, npx) stands for: the
// setting it abbreviates from npmAbbreviated, or n itself.
func npmOption(n string) string {
	if !strings.HasPrefix(n, "--") {
		return n
	}
	for _, o := range npmAbbreviated {
		if len(n) >= len(o.shortest) && strings.HasPrefix(o.name, n) {
			return o.name
		}
	}
	return n
}

// npmConfigVar says why an npm_config_ variable (any case: npm reads
// NPM_CONFIG_SCRIPT_SHELL too) names code or a shell, or "".
func npmConfigVar(name, value string) string {
	key, ok := strings.CutPrefix(strings.ToLower(name), "npm_config_")
	if !ok || value == "" {
		return ""
	}
	switch strings.ReplaceAll(key, "_", "-") {
	case "node-options":
		return nodeLoads(value)
	case "script-shell", "shell", "userconfig", "globalconfig", "init-module", "onload-script", "git", "editor", "browser", "viewer":
		return "is npm's " + key + " setting, which names code, a program or a file of settings npm reads"
	}
	return ""
}

// pytestPlugin finds pytest's -p NAME from argv[from:] (-p no:NAME turns
// a plugin off, and adds nothing).
func pytestPlugin(argv []string, from int) (int, string) {
	for i := from; i < len(argv); i++ {
		a := argv[i]
		if a == "--" {
			break
		}
		var v string
		switch {
		case a == "-p" && i+1 < len(argv):
			v = argv[i+1]
			i++ // the rule must name the value too
		case strings.HasPrefix(a, "-p") && len(a) > 2:
			v = strings.TrimPrefix(a[2:], "=")
		case strings.HasPrefix(a, "--pdbcls"):
			return i, fmt.Sprintf("%s imports a debugger class from a module the tests do not name", a)
		case a == "-o" || a == "--override-ini":
			if i+1 < len(argv) {
				i++
				if at, why := pytestIni(argv[i], i); at >= 0 {
					return at, why
				}
			}
			continue
		case strings.HasPrefix(a, "--override-ini="):
			if at, why := pytestIni(strings.TrimPrefix(a, "--override-ini="), i); at >= 0 {
				return at, why
			}
			continue
		case strings.HasPrefix(a, "-o") && len(a) > 2:
			if at, why := pytestIni(strings.TrimPrefix(a[2:], "="), i); at >= 0 {
				return at, why
			}
			continue
		default:
			continue
		}
		if !strings.HasPrefix(v, "no:") {
			return i, fmt.Sprintf("-p %s loads the plugin module %q, code the tests do not name", v, v)
		}
	}
	return -1, ""
}

// pytestIni judges one -o KEY=VALUE of pytest (the word at index at):
// addopts is more of pytest's options, read as if they were on the line.
func pytestIni(kv string, at int) (int, string) {
	key, value, _ := strings.Cut(kv, "=")
	if strings.TrimSpace(key) != "addopts" {
		return -1, ""
	}
	opts := append([]string{"pytest"}, strings.Fields(value)...)
	if k, why := pytestPlugin(opts, 1); k >= 0 {
		return at, fmt.Sprintf("-o %s: %s", kv, why)
	}
	return -1, ""
}

// nodeLoader reports node's options that load a module before the
// program: --require, --import, --loader and their kin.
func nodeLoader(n string) bool {
	switch n {
	case "-r", "--require", "--import", "--loader", "--experimental-loader", "--experimental-policy", "--env-file", "--env-file-if-exists", "--inspect", "--inspect-brk", "--inspect-wait", "--inspect-port", "--experimental-network-inspection", "--snapshot-blob", "--build-snapshot", "--openssl-config", "--redirect-warnings", "--report-dir", "--diagnostic-dir", "--cpu-prof-dir", "--heap-prof-dir", "--prof", "--test-reporter-destination", "--watch-path":
		return true
	}
	return false
}

// nodeLoads says what in a NODE_OPTIONS value (or npm's --node-options)
// makes node load code, open a port, or write or read a file the line
// does not name: "" when it only tunes the runtime
// (--max-old-space-size=4096, --enable-source-maps).
func nodeLoads(value string) string {
	for _, w := range strings.Fields(value) {
		n, _, _ := strings.Cut(w, "=")
		if nodeLoader(n) || strings.HasPrefix(w, "-r") && len(w) > 2 && w[1] == 'r' {
			return fmt.Sprintf("has node run %q first, code or a file the line does not show", w)
		}
	}
	return ""
}

// codeVar says why setting the environment variable name=value for a
// command makes it run code the line does not show, or "": node's,
// make's, pytest's, cargo's and the JVM's variables that load code or
// name a program.
func codeVar(name, value string) string {
	switch name {
	case "NODE_OPTIONS":
		if why := nodeLoads(value); why != "" {
			return "is read by every node the command starts, and " + why
		}
		return ""
	case "MAKEFLAGS", "MFLAGS", "GNUMAKEFLAGS":
		if makeFlagsSafe(value) {
			return ""
		}
		return "hands options or variables to every make the command starts (-f, --eval, SHELL=...)"
	case "MAKEFILES", "PYTEST_PLUGINS", "PYTEST_ADDOPTS", "PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "PYTHONUSERBASE", "PERL5OPT", "PERL5LIB", "RUBYOPT", "RUBYLIB",
		"NODE_PATH", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "MAVEN_OPTS", "GRADLE_OPTS", "RUSTC", "RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER", "RUSTDOC",
		"RUSTFLAGS", "RUSTDOCFLAGS", "CARGO_ENCODED_RUSTFLAGS", "CARGO_BUILD_RUSTC", "CARGO_BUILD_RUSTC_WRAPPER", "CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER", "CARGO_BUILD_RUSTDOC",
		"CARGO_BUILD_RUSTFLAGS", "CARGO_HOME", "RUSTUP_TOOLCHAIN", "RUSTUP_HOME", "GOFLAGS", "GOTOOLCHAIN", "CGO_CFLAGS", "CGO_LDFLAGS", "CC", "CXX", "LD", "npm_config_node_options",
		"npm_config_script_shell", "NPM_CONFIG_NODE_OPTIONS", "NPM_CONFIG_SCRIPT_SHELL", "npm_config_userconfig", "NPM_CONFIG_USERCONFIG", "PIP_CONFIG_FILE", "UV_CONFIG_FILE", "POETRY_CONFIG_DIR":
		if value == "" {
			return ""
		}
		return "makes the programs the command starts load code, or run a program, that the line does not show"
	}
	if strings.HasPrefix(name, "CARGO_TARGET_") && (strings.HasSuffix(name, "_RUNNER") || strings.HasSuffix(name, "_LINKER") || strings.HasSuffix(name, "_RUSTFLAGS")) {
		return "names a program cargo starts, or flags for its compiler"
	}
	if why := cargoVar(name); why != "" && value != "" {
		return why
	}
	if why := npmConfigVar(name, value); why != "" {
		return why
	}
	return ""
}

// cargoVar says why a CARGO_ variable, cargo's environment form of a
// --config key (CARGO_PROFILE_DEV_RUSTFLAGS is profile.dev.rustflags),
// changes what cargo runs or fetches, or "": the keys --config refuses
// that name a program, flags for the compiler, a cargo command an alias
// runs (cargo install behind another name) or where crates come from.
func cargoVar(name string) string {
	switch {
	case !strings.HasPrefix(name, "CARGO_"):
		return ""
	case strings.HasPrefix(name, "CARGO_PROFILE_") && strings.HasSuffix(name, "_RUSTFLAGS"):
		return "passes flags to rustc for a profile (-C linker= names a program)"
	case strings.HasPrefix(name, "CARGO_ALIAS_"):
		return "makes a cargo command an alias of another, which a rule over cargo's words then does not see"
	case strings.Contains(name, "CREDENTIAL_PROVIDER"):
		return "names a program cargo starts for credentials"
	case strings.HasPrefix(name, "CARGO_REGISTRIES_") && strings.HasSuffix(name, "_INDEX") || name == "CARGO_REGISTRY_INDEX":
		return "changes where cargo downloads crates from"
	case name == "CARGO_BUILD_RUSTC_WRAPPER" || name == "CARGO_BUILD_RUSTC" || name == "CARGO_BUILD_RUSTDOC" || name == "CARGO_BUILD_RUSTFLAGS" || name == "CARGO_BUILD_RUSTDOCFLAGS" || name == "CARGO_DOC_BROWSER":
		return "names a program cargo starts, or flags for its compiler"
	}
	return ""
}

// makeFlagsSafe reports a MAKEFLAGS value that only sets how make runs
// (jobs, silence, keep going), no file, text or variable.
func makeFlagsSafe(v string) bool {
	fields := strings.Fields(v)
	for k, w := range fields {
		switch {
		case w == "--no-print-directory" || w == "--print-directory" || w == "--silent" || w == "--quiet" || w == "--keep-going" || w == "--always-make" || strings.HasPrefix(w, "--jobs") && allDigits(strings.TrimPrefix(w, "--jobs=")) || w == "--jobs":
		case strings.HasPrefix(w, "-j") && (len(w) == 2 || allDigits(w[2:])):
		case strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") && strings.Trim(w[1:], "skwBnqj0123456789") == "":
		case k == 0 && !strings.HasPrefix(w, "-") && strings.Trim(w, "skwBnqj0123456789") == "":
		case allDigits(w) && k > 0 && strings.HasPrefix(fields[k-1], "-j"):
		default:
			return false
		}
	}
	return true
}

// goToolOption finds a go build flag that names a program go starts:
// -vettool, a linker named in -ldflags (-extld, -extldflags), and
// -gccgoflags that point gccgo at other programs (-B, -wrapper,
// -fplugin). (-exec and -toolexec are rules.CodeOptions already.)
func goToolOption(argv []string) (int, string) {
	for i := 2; i < len(argv); i++ {
		a := argv[i]
		if a == "--" || !strings.HasPrefix(a, "-") {
			continue
		}
		n, v, attached := strings.Cut(strings.TrimPrefix(a, "-"), "=")
		n = strings.TrimPrefix(n, "-") // go's flags take one dash or two
		at := i
		if !attached && (n == "vettool" || n == "ldflags" || n == "gccgoflags") && i+1 < len(argv) {
			v, at = argv[i+1], i+1 // the rule must name the value too
		}
		switch {
		case n == "vettool":
			return at, fmt.Sprintf("-vettool=%s is the program go vet runs on every package", v)
		case n == "ldflags" && (extLinker(v) || strings.Contains(v, "-extldflags") && compilerPicksPrograms(v)):
			return at, fmt.Sprintf("-ldflags=%q names the external linker go starts, or has it start other programs", v)
		case n == "gccgoflags" && compilerPicksPrograms(v):
			return at, fmt.Sprintf("-gccgoflags=%q point gccgo at programs or plugins of their own", v)
		}
	}
	return -1, ""
}

// extLinker reports go's linker flag -extld (the external linker's
// program) in an -ldflags value.
func extLinker(ldflags string) bool {
	for _, w := range strings.Fields(ldflags) {
		w = strings.Trim(w, `"'`)
		if w == "-extld" || w == "--extld" || strings.HasPrefix(w, "-extld=") || strings.HasPrefix(w, "--extld=") {
			return true
		}
	}
	return false
}

// compilerPicksPrograms reports C compiler flags that choose the programs
// or plugins it runs (-B DIR, -fuse-ld=, -wrapper, -fplugin=, -specs=);
// -static, -O2 or -L only tune the build.
func compilerPicksPrograms(flags string) bool {
	for _, k := range []string{"-B", "-fuse-ld", "-wrapper", "-fplugin", "-specs", "--ld-path", "-no-integrated-as"} {
		if strings.Contains(flags, k) {
			return true
		}
	}
	return false
}

// responseFilePrograms read a word @FILE as more of their options, one
// a line or blank-separated (compilers, linkers, the JVM's launchers,
// mypy's argparse): options the line does not show, from a file the
// gate judges as a read.
var responseFilePrograms = map[string]bool{
	"gcc": true, "g++": true, "cc": true, "c++": true, "clang": true, "clang++": true, "rustc": true, "javac": true, "java": true,
	"kotlinc": true, "dotnet": true, "mypy": true, "tsc": true, "ld": true, "ar": true,
}

// responseFile is the index of the first @FILE word of argv, or -1;
// cargo's are those after "--" (cargo rustc -- @FILE hands rustc the file).
func responseFile(argv []string) int {
	after := argv[0] != "cargo"
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if a == "--" {
			after = true
			continue
		}
		if after && len(a) > 1 && a[0] == '@' {
			return i
		}
	}
	return -1
}

// responseFiles judges each @FILE of a program that reads options from
// it as a read of FILE: outside the workspace refused. It reports a
// refusal.
func (j *judge) responseFiles(argv []string) bool {
	if !responseFilePrograms[argv[0]] && argv[0] != "cargo" {
		return false
	}
	for i := responseFile(argv); i >= 0 && i < len(argv); i++ {
		if a := argv[i]; len(a) > 1 && a[0] == '@' {
			j.argPaths([]string{argv[0], a[1:]}, 1)
			if j.acc.refused {
				return true
			}
		}
	}
	return false
}

// shellLinePrograms run words of theirs as shell lines: concurrently
// each operand, watch its operands joined, nodemon's --exec, chokidar's
// --command. valued are their options that take the next word; lineOpt
// the ones whose value is the line ("" for operands).
var shellLinePrograms = map[string]struct{ valued, lineOpt string }{
	"concurrently": {valued: "-n --names -c --prefix-colors -p --prefix -s --success -m --max-processes -t --timestamp-format -l --prefix-length --restart-tries --restart-after --default-input-target --names-separator --hide --pad-prefix -P --passthrough-arguments"},
	"watch":        {valued: "-n --interval -d --differences -q --equexit"},
	"nodemon":      {lineOpt: "-x --exec"},
	"chokidar":     {lineOpt: "-c --command"},
}

// shellLineOperands judges the lines a program of shellLinePrograms runs
// through a shell as lines of their own (runnerLine), whatever rule
// allows the program. It reports a refusal.
func (j *judge) shellLineOperands(argv []string) bool {
	sp, ok := shellLinePrograms[path.Base(argv[0])]
	if !ok {
		return false
	}
	var lines []string
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		name, value, attached := strings.Cut(a, "=")
		switch {
		case sp.lineOpt != "" && hasField(sp.lineOpt, name):
			if !attached && i+1 < len(argv) {
				i++
				value = argv[i]
			}
			lines = append(lines, value)
		case strings.HasPrefix(a, "-") && hasField(sp.valued, name) && !attached:
			i++
		case strings.HasPrefix(a, "-"):
		case sp.lineOpt == "" && path.Base(argv[0]) == "watch":
			lines = append(lines, strings.Join(argv[i:], " ")) // watch runs sh -c with its words joined
			i = len(argv)
		case sp.lineOpt == "":
			lines = append(lines, a)
		}
	}
	for _, l := range lines {
		if j.runnerLine(runnerInner{line: l, by: path.Base(argv[0])}); j.acc.refused {
			return true
		}
	}
	return false
}
