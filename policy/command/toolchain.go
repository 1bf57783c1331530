package command

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"admit/policy/rule"
)

// The judge of the toolchain table (toolchains.go), of programs given as
// a path, of programs in no table, and of the shell words whose answer
// is fixed (eval, sudo, source). What they have in common: the policy
// cannot read the code they run, so beyond the refusals the table names,
// each is asked of a person (runs-code, network, unsupported-program),
// and an allow rule of the person's may answer the question. Their
// arguments are still looked at: a word that names a path outside the
// workspace refuses the command, one under .admit/ too, and one that
// names a protected path asks (argPaths).

// toolVerdict is what the table says about one command.
type toolVerdict struct {
	class toolClass
	why   string // "" says it by the class
	// code is the index in argv of an interpreter's inline code (the
	// word after -c or -e, or the -e word holding it), 0 for none: code,
	// not a path, so argPaths passes over it (a person is asked about it
	// as code that runs).
	code int
	// check is the subcommand's further judge (toolSub.check).
	check string
}

// probesOnly reports words that are all probes (npx --version).
func (tc *toolchain) probesOnly(args []string) bool {
	for _, a := range args {
		if !hasField(tc.probes, a) {
			return false
		}
	}
	return len(args) > 0
}

// classify reads a toolchain command's words: probes, subcommands (to two
// levels), and flags anywhere before "--".
func (tc *toolchain) classify(args []string) toolVerdict {
	var words, opts []string
	probeOnly := len(args) > 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			probeOnly = false
			break
		}
		if !hasField(tc.probes, a) {
			probeOnly = false
		}
		switch {
		case strings.HasPrefix(a, "-") && a != "-":
			opts = append(opts, a)
			if hasField(tc.valued, a) && !strings.Contains(a, "=") && i+1 < len(args) {
				i++
				opts = append(opts, args[i])
			}
		case strings.HasPrefix(a, "+"): // cargo +nightly
		default:
			words = append(words, a)
		}
	}
	if probeOnly {
		return toolVerdict{class: toolProbe}
	}
	v := toolVerdict{class: tc.bare}
	var flags [][]toolFlag
	flags = append(flags, tc.flags)
	judgeWord := func(k int) toolVerdict {
		sub := findSub(tc.subs, words[k])
		if sub == nil {
			return toolVerdict{class: tc.other}
		}
		flags = append(flags, sub.flags)
		out := toolVerdict{class: sub.class, why: sub.why, check: sub.check}
		if k+1 < len(words) && len(sub.subs) > 0 {
			if sub2 := findSub(sub.subs, words[k+1]); sub2 != nil {
				flags = append(flags, sub2.flags)
				return toolVerdict{class: sub2.class, why: sub2.why}
			}
		}
		if k+1 < len(words) && sub.other != 0 {
			out = toolVerdict{class: sub.other, why: sub.why}
		}
		return out
	}
	switch {
	case len(words) == 0:
	case tc.anyWord:
		v = toolVerdict{class: tc.other}
		for k := range words {
			if findSub(tc.subs, words[k]) == nil {
				continue
			}
			if w := judgeWord(k); w.class.severity() > v.class.severity() {
				v = w
			}
		}
	default:
		v = judgeWord(0)
	}
	for _, list := range flags {
		for _, f := range list {
			if f.class.severity() > v.class.severity() && flagGiven(f, args, words) {
				v = toolVerdict{class: f.class, why: f.why}
			}
		}
	}
	return v
}

// flagGiven reports whether the flag is among the words before "--"
// (with its value, when it names one: --method=DELETE, -XDELETE, -X
// DELETE).
func flagGiven(f toolFlag, args, words []string) bool {
	if i := slices.Index(args, "--"); i >= 0 {
		args = args[:i]
	}
	for _, n := range strings.Fields(f.names) {
		for i, o := range args {
			if !strings.HasPrefix(o, "-") {
				continue
			}
			switch {
			case f.value == "" && (wordIs(n, o) || strings.HasPrefix(o, n+"=")):
				return true
			case f.value != "" && (o == n+"="+f.value || (len(n) == 2 && o == n+f.value) || (o == n && i+1 < len(args) && args[i+1] == f.value)):
				return true
			}
		}
		if !strings.HasPrefix(n, "-") {
			for _, w := range words {
				if wordIs(n, w) {
					return true
				}
			}
		}
	}
	return false
}

// wordIs matches a spelling of the table against a word: exactly, or as a
// prefix ("delete-*") or a suffix ("*:delete").
func wordIs(name, word string) bool {
	switch {
	case len(name) > 1 && strings.HasSuffix(name, "*"):
		return strings.HasPrefix(word, name[:len(name)-1])
	case len(name) > 1 && strings.HasPrefix(name, "*"):
		return strings.HasSuffix(word, name[1:])
	}
	return name == word
}

// toolchain judges a command of the toolchain table. It reports false
// when the answer is a question and the program table (a policy file's
// entry of the same name) is to judge it instead; the table's refusals
// stand whatever the entry says.
func (j *judge) toolchain(tc *toolchain, argv []string) bool {
	v := tc.classify(argv[1:])
	switch {
	case v.check == "alone" && v.class == toolProbe && len(argv) > 2:
		// npm run SCRIPT, or options a script reads: it runs one.
		v = toolVerdict{class: toolRun}
	case v.check == "client-version" && v.class == toolNetwork && clientVersion(argv):
		v = toolVerdict{class: toolProbe}
	}
	if tc.interp != nil {
		v = j.interpret(tc, argv, v)
	}
	if j.acc.refused {
		return true
	}
	if j.refuseClass(v, argv) {
		return true
	}
	j.argPaths(withoutCode(argv, v.code), 1)
	if j.acc.refused || j.responseFiles(argv) || j.givenCode(argv) {
		return true
	}
	if !tc.probesOnly(argv[1:]) {
		// A probe given alone (npx --version) runs nothing: not read as a
		// runner's command.
		if j.runner(tc, argv); j.acc.refused {
			return true
		}
	}
	if v.check == "cargo-reads" && v.class == toolProbe {
		v = j.cargoReads(argv)
		if j.acc.refused {
			return true
		}
	}
	switch v.class {
	case toolProbe:
		return true
	case toolProtected:
		j.acc.asks(rule.ProtectedPath, fmt.Sprintf("%s %s, files that make git run code, so a person must approve it", showArgv(argv), v.why), "")
		return true
	}
	if j.installReadOnly(v, argv) || j.readOnlyLint(argv) {
		return true
	}
	if j.p.progs[argv[0]] != nil {
		return false // the policy file describes it: its entry judges what runs
	}
	j.askClass(v, tc.what, argv)
	return true
}

// clientVersion reports a version command that asks no server: helm's
// (helm 3 has none), or kubectl's and oc's with --client.
func clientVersion(argv []string) bool {
	if path.Base(argv[0]) == "helm" {
		return true
	}
	return slices.ContainsFunc(argv[2:], func(a string) bool { return a == "--client" || a == "--client=true" })
}

// installReadOnly refuses an install in the read-only effect mode: it
// writes the workspace (node_modules, a lock file, a virtual environment)
// whatever else its scripts do.
func (j *judge) installReadOnly(v toolVerdict, argv []string) bool {
	if v.class != toolInstall || j.c.Effects == WorkspaceWrite {
		return false
	}
	j.wrote()
	j.refuse(rule.ReadOnlyEffects, fmt.Sprintf("%s installs into the workspace, and the effect mode is read-only", showArgv(argv)), "ask the person for the workspace-write effect mode")
	return true
}

// refuseClass refuses a command the table refuses.
func (j *judge) refuseClass(v toolVerdict, argv []string) bool {
	if !v.class.refuses() {
		return false
	}
	refusal := toolRefusals[v.class]
	why := v.why
	if why == "" {
		why = refusal.why
	}
	if v.class == toolPublish {
		j.dangerRefuse(refusal.rule, argv, fmt.Sprintf("%s %s", showArgv(argv), why), refusal.hint)
		return true
	}
	j.refuse(refusal.rule, fmt.Sprintf("%s %s; this is refused whatever rule allows %s", showArgv(argv), why, argv[0]), refusal.hint)
	return true
}

// askClass asks about a command the table classes as code that runs, an
// install, or a network command.
func (j *judge) askClass(v toolVerdict, what string, argv []string) {
	cmd := showArgv(argv)
	why := v.why
	switch v.class {
	case toolNetwork:
		if why == "" {
			why = "talks to the network"
		}
		j.asksCode(rule.Network, argv, fmt.Sprintf("%s %s, so a person decides", cmd, why), "")
	case toolInstall:
		if why == "" {
			why = "installs packages and runs their install scripts"
		}
		j.asksCode(rule.RunsCode, argv, fmt.Sprintf("%s %s, which admit cannot judge before it runs, so a person decides", cmd, why), "")
	default:
		if why == "" {
			why = "runs " + what
		}
		j.asksCode(rule.RunsCode, argv, fmt.Sprintf("%s %s, which admit cannot judge before it runs, so a person decides", cmd, why), "")
	}
}

// interpret reads how an interpreter finds the code it runs: inline, a
// module, a script file, or standard input (refused when a pipe or a
// here-document feeds it: what runs is not on the line, or comes from the
// network).
func (j *judge) interpret(tc *toolchain, argv []string, v toolVerdict) toolVerdict {
	in := tc.interp
	args := argv[1:]
	script, stdin, code, module, codeAt := -1, false, false, "", 0
	var rest []string
scan:
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if i+1 < len(args) {
				script = i + 1
			}
			break scan
		case hasField(in.stdin, a):
			stdin = true
			break scan
		case hasField(in.code, a) || attachedOption(in.code, a):
			code, codeAt = true, i+1 // the word itself (argv holds the program first)
			if hasField(in.code, a) {
				codeAt = i + 2 // the next word
			}
			break scan
		case in.cluster != "" && len(a) > 1 && a[0] == '-' && a[1] != '-' && clusterCode(in, a[1:]) != 0:
			// perl -ne CODE, -lane CODE, -pe'CODE': the code follows the e,
			// in the same word or the next.
			code, codeAt = true, i+2
			if clusterCode(in, a[1:]) > 0 {
				codeAt = i + 1
			}
			break scan
		case in.shell && len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a[1:], 'c'):
			code = true
			break scan
		case in.module != "" && (a == in.module || strings.HasPrefix(a, in.module) && len(a) > len(in.module)):
			module = strings.TrimPrefix(a, in.module)
			if module == "" && i+1 < len(args) {
				module, i = args[i+1], i+1
			}
			rest = args[i+1:]
			break scan
		case strings.HasPrefix(a, "-") || (in.shell && strings.HasPrefix(a, "+")):
			if hasField(in.valued, a) && i+1 < len(args) {
				i++
			}
		default:
			script = i
			break scan
		}
	}
	switch {
	case code && in.shell:
		return toolVerdict{class: toolHidden}
	case code:
		if codeAt >= len(argv) {
			codeAt = 0
		}
		return toolVerdict{class: toolRun, why: "runs the code given on the line", code: codeAt}
	case module != "":
		return j.module(module, rest)
	case stdin || (script < 0 && v.class != toolProbe):
		return j.stdinScript(argv[0])
	case script >= 0:
		return j.scriptFile(argv, script+1)
	}
	return v
}

// clusterCode reads a cluster of switches (perl's and ruby's: "ne",
// "lane", "i.bak", "pe'CODE'") and reports where the code is: 1 when it
// is in the cluster after the code letter, -1 when it is the next word,
// 0 when the cluster runs no inline code. A letter of in.cluster takes
// the rest of the word as its value (-i.bak, -Mstrict, -F:), so an "e"
// after it is part of that value (-pie is -p -i with the suffix "e"); one
// of in.digits the digits after it (-l0ne is -l0 -n -e).
func clusterCode(in *interpreter, s string) int {
	for k := 0; k < len(s); k++ {
		c := s[k]
		switch {
		case strings.Contains(in.code, "-"+string(c)+" ") || strings.HasSuffix(in.code, "-"+string(c)):
			if k+1 < len(s) {
				return 1
			}
			return -1
		case strings.IndexByte(in.cluster, c) >= 0:
			return 0
		case strings.IndexByte(in.digits, c) >= 0:
			for k+1 < len(s) && (s[k+1] >= '0' && s[k+1] <= '9' || s[k+1] == 'x' && c == '0') {
				k++
			}
		}
	}
	return 0
}

// withoutCode is argv with its inline code word (index code) left out of
// what argPaths reads as paths.
func withoutCode(argv []string, code int) []string {
	if code <= 0 || code >= len(argv) {
		return argv
	}
	out := slices.Clone(argv)
	out[code] = ""
	return out
}

// attachedOption reports an option of list given with its value in the
// same word (--eval=CODE, -cCODE).
func attachedOption(list, a string) bool {
	for _, n := range strings.Fields(list) {
		if strings.HasPrefix(a, n+"=") || (len(n) == 2 && len(a) > 2 && strings.HasPrefix(a, n) && a[1] != '-') {
			return true
		}
	}
	return false
}

// module judges python -m MODULE: a module of the toolchain table is
// classed as that program (python -m pip install --user is a global
// install); whatever it is, python imports it from the working folder
// first, so it runs code.
func (j *judge) module(name string, rest []string) toolVerdict {
	run := toolVerdict{class: toolRun, why: fmt.Sprintf("runs the module %q, which Python looks for in the working folder first", name)}
	tc := j.p.toolchainOf(name)
	if tc == nil || tc.interp != nil {
		return run
	}
	if v := tc.classify(rest); v.class.severity() > run.class.severity() {
		return v
	}
	return run
}

// stdinScript judges an interpreter that reads its program from standard
// input: fed by a pipe from the network it is network-to-shell, by any
// other pipe or a here-document hidden-command; from a file it runs that
// file; with none it is interactive.
func (j *judge) stdinScript(prog string) toolVerdict {
	switch src, from := j.stdinOf(); src {
	case "pipe":
		if from != "" {
			j.refuse(rule.NetworkToShell, fmt.Sprintf("%s reads its program from a pipe fed by %s, which fetches it from the network: code nobody has read would run", prog, from),
				"download the file into the workspace, read it, and ask the person to run it")
		} else {
			j.refuse(rule.HiddenCommand, fmt.Sprintf("%s reads its program from a pipe: what runs is the output of another command, not on the line", prog),
				"send the commands themselves as the command line, or write them to a file and run that")
		}
	case "heredoc":
		// The line shows the program: asked as code, with the code.
		return toolVerdict{class: toolRun, why: "runs the program its here-document holds: " + shownCode(j.stdinText())}
	case "file":
		return toolVerdict{class: toolRun, why: "runs the script its standard input names"}
	}
	return toolVerdict{class: toolRun, why: "starts an interactive interpreter"}
}

// stdinOf says where the command being judged reads standard input
// from: "pipe" (and, for a pipe, the network program that feeds the
// pipeline, if one does), "heredoc", "file" or "".
func (j *judge) stdinOf() (string, string) {
	src := ""
	for _, r := range j.redirs {
		if r.Fd != 0 {
			continue
		}
		switch {
		case strings.HasPrefix(r.Op, "<<"):
			src = "heredoc"
		case r.Op == "<" || r.Op == "<>":
			src = "file"
		}
	}
	if src != "" || j.cmd >= len(j.line) || j.line[j.cmd].Joiner != "|" {
		return src, ""
	}
	for k := j.cmd - 1; k >= 0 && k < len(j.line); k-- {
		if name := innerProgram(j.line[k].Argv); netPrograms[name] {
			return "pipe", name
		}
		if j.line[k].Joiner != "|" {
			break
		}
	}
	return "pipe", ""
}

// netPrograms fetch from the network what they print.
var netPrograms = map[string]bool{
	"curl": true, "wget": true, "nc": true, "ncat": true, "netcat": true, "socat": true, "telnet": true, "ssh": true,
	"http": true, "https": true, "xh": true, "aria2c": true, "lynx": true, "links": true, "w3m": true, "fetch": true,
	"ftp": true, "sftp": true, "tftp": true, "openssl": true, "gh": true, "aws": true, "gsutil": true, "scp": true,
}

// innerProgram is the program a command runs, seen through the wrappers
// the policy knows (timeout 5 curl x is curl).
func innerProgram(argv []string) string {
	for len(argv) > 0 {
		name := path.Base(argv[0])
		switch name {
		case "timeout", "time", "nice", "env", "command", "nohup", "stdbuf", "ionice", "sudo", "doas":
		default:
			return name
		}
		argv = argv[1:]
		for len(argv) > 0 && (strings.HasPrefix(argv[0], "-") || strings.Contains(argv[0], "=")) {
			argv = argv[1:]
		}
		if name == "timeout" && len(argv) > 0 {
			argv = argv[1:]
		}
	}
	return ""
}

// scriptFile judges a script an interpreter runs: it must be inside the
// workspace. A setup.py asked to upload publishes.
func (j *judge) scriptFile(argv []string, at int) toolVerdict {
	word := argv[at]
	if word != runtimeName {
		j.path(argv[0], access{word: word, what: "script", mode: modeProbe})
	}
	if path.Base(word) == "setup.py" {
		for _, w := range argv[at+1:] {
			if w == "upload" || w == "register" || w == "upload_docs" {
				return toolVerdict{class: toolPublish, why: "uploads the package to a registry"}
			}
		}
	}
	return toolVerdict{class: toolRun, why: fmt.Sprintf("runs the script %q", word)}
}

// pathProgram judges a program given as a path: one inside the workspace
// (./scripts/test.sh, node_modules/.bin/eslint, .venv/bin/pip) runs the
// workspace's code; one outside is a program admit does not know. Either
// way it is asked (only a rule that names the path answers), after the
// refusals of the toolchain its name is (a .venv/bin/pip install --user
// is still a global install).
func (j *judge) pathProgram(argv []string) {
	name := argv[0]
	r, ok := j.quietResolve(name)
	if !ok {
		j.refuse(rule.OutsideWorkspace, fmt.Sprintf("program %q cannot be resolved", name), "")
		return
	}
	base := path.Base(name)
	switch base {
	case "gradlew":
		base = "gradle"
	case "mvnw":
		base = "mvn"
	}
	if tc := j.p.toolchainOf(base); tc != nil {
		v := tc.classify(argv[1:])
		if tc.interp != nil {
			v = j.interpret(tc, argv, v)
		}
		if j.acc.refused || j.refuseClass(v, argv) || j.installReadOnly(v, argv) {
			return
		}
	}
	j.argPaths(argv, 1)
	if j.acc.refused {
		return
	}
	if inside(r.Path, j.c.Roots) {
		j.asksCode(rule.RunsCode, argv, fmt.Sprintf("%q is a program or script of the workspace, which admit cannot judge before it runs, so a person decides", name),
			"")
		return
	}
	j.asksCode(rule.UnsupportedProgram, argv, fmt.Sprintf("program %q is given as a path outside the workspace, so admit cannot judge what it does; a person decides", name),
		"name the program by its bare name, e.g. "+path.Base(name))
}

// unknownProgram asks about a program in none of the tables.
func (j *judge) unknownProgram(argv []string) {
	j.argPaths(argv, 1)
	if j.acc.refused || j.shellLineOperands(argv) {
		return
	}
	j.asksCode(rule.UnsupportedProgram, argv, fmt.Sprintf("program %q is in none of admit's tables, so admit cannot judge what it does; a person decides", argv[0]),
		"use a program the policy judges (docs/policy-programs.md), or wait for the person's answer")
}

// argPaths judges the words of a command the policy cannot parse that
// read as paths (absolute, "~", "..", or holding a "/"), and the values
// of --opt=VALUE and NAME=VALUE words: one outside the workspace refuses
// the command (the system's own folders, /usr, /opt and the harmless
// devices, aside), one under .admit/ or a place of the person's too, and
// one that names a protected path asks a person, since the program may
// change it.
func (j *judge) argPaths(argv []string, from int) {
	for k, word := range argv[from:] {
		list := from+k > 0 && listOptions[argv[from+k-1]]
		cand := word
		if i := strings.IndexByte(word, '='); i > 0 && !strings.Contains(word[:i], "/") {
			cand = word[i+1:]
		} else if strings.HasPrefix(word, "-") {
			if p := attachedPath(word); p != "" {
				if j.argPath(argv, word, p); j.acc.refused {
					return
				}
			}
			for _, p := range valuePaths(word, false) { // -Wl,-rpath,/x
				if j.argPath(argv, word, p); j.acc.refused {
					return
				}
			}
			continue
		}
		for _, p := range valuePaths(cand, list || strings.HasPrefix(word, "--class-path=") || strings.HasPrefix(word, "--module-path=")) {
			if j.argPath(argv, word, p); j.acc.refused {
				return
			}
		}
		if !pathLike(cand) {
			continue
		}
		if j.argPath(argv, word, cand); j.acc.refused {
			return
		}
	}
}

// attachedPath is the path a short option carries in its own word
// (-I/tmp, -L../lib, ruby's -I~/lib) or after a colon (java
// -javaagent:/tmp/a.jar=opts, -Xbootclasspath/a:/x), or "".
func attachedPath(word string) string {
	if strings.HasPrefix(word, "--") {
		return ""
	}
	if i := strings.IndexByte(word, ':'); i > 1 && certainPath(word[i+1:]) {
		p, _, _ := strings.Cut(word[i+1:], "=")
		return p
	}
	for k := 2; k <= 3 && k < len(word); k++ {
		if certainPath(word[k:]) {
			return word[k:]
		}
	}
	return ""
}

// argPath judges cand, a path the word of argv names (argPaths).
func (j *judge) argPath(argv []string, word, cand string) {
	abs := j.cleanAbs(cand)
	r, ok := j.quietResolve(cand)
	if !ok {
		j.refuse(rule.OutsideWorkspace, fmt.Sprintf("%s: the argument %q cannot be resolved", argv[0], word), "")
		return
	}
	if !inside(r.Path, j.c.Roots) {
		if systemPlace(abs) && systemPlace(r.Path) {
			return
		}
		shown := fmt.Sprintf("%q", word)
		if r.Path != abs {
			shown += fmt.Sprintf(" (which resolves to %q)", r.Path)
		}
		j.refuse(rule.OutsideWorkspace, fmt.Sprintf("%s: the argument %s names a place outside the workspace (%s)", argv[0], shown, strings.Join(j.c.Roots, ", ")),
			"use paths inside the workspace")
		return
	}
	if j.rootOf(r.Path) == r.Path {
		return // a root names the workspace (eslint ., pip install -e .), not a protected place in it
	}
	switch pr := j.protection(abs, r.Path); {
	case pr.Protected && !pr.Ask:
		j.refuse(rule.ProtectedPath, fmt.Sprintf("%s: the argument %q names a protected path: %s", argv[0], word, pr.Why), "")
		return
	case pr.Protected:
		j.acc.asks(rule.ProtectedPath, fmt.Sprintf("%s may change %q, which needs a person's approval: %s", argv[0], word, pr.Why), "")
	}
}

// pathLike reports a word that reads as a path: absolute, "~", ".", "..",
// or holding a "/", and not a URL or a host:path.
func pathLike(w string) bool {
	if w == "" || w == runtimeName {
		return false
	}
	if strings.HasPrefix(w, "/") || strings.HasPrefix(w, "~") || w == "." || w == ".." || strings.HasPrefix(w, "./") || strings.HasPrefix(w, "../") {
		return true
	}
	slash := strings.IndexByte(w, '/')
	if slash < 0 {
		return strings.HasPrefix(w, ".") // .env, .git, .admit
	}
	return !strings.Contains(w[:slash], ":") && !strings.HasPrefix(w, "@")
}

// systemPlace reports the system's own folders and harmless devices,
// which a toolchain names as inputs (CC=/usr/bin/gcc, -I/usr/include).
func systemPlace(p string) bool {
	switch p {
	case "/dev/null", "/dev/zero", "/dev/urandom", "/dev/random", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty":
		return true
	}
	for _, dir := range []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/nix/store", "/snap"} {
		if p == dir || strings.HasPrefix(p, dir+"/") {
			return true
		}
	}
	return false
}

// notInTable judges what the program table does not: a program given as
// a path, a word with a fixed answer, a toolchain, a program in no table.
// It reports whether it judged argv; the table judges the rest (and a
// toolchain a policy file describes, once the toolchain's refusals are
// passed). prog is the table's program of argv[0], nil if none.
func (j *judge) notInTable(argv []string, prog *Program) bool {
	name := argv[0]
	switch {
	case strings.ContainsRune(name, '/'):
		j.pathProgram(argv)
		return true
	case j.fixed(argv):
		return true
	case !j.programOnPath(argv): // a file of the workspace that PATH finds first (path.go)
		return true
	}
	if tc := j.p.toolchainOf(name); tc != nil {
		return j.toolchain(tc, argv)
	}
	if !folderBuiltin(name) && prog == nil {
		j.unknownProgram(argv)
		return true
	}
	return false
}
