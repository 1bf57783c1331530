package rules

import (
	"fmt"
	"net"
	"slices"
	"strings"

	"admit/policy/rule"
)

// A person's "always allow" is about what the approved call did, not how
// its line starts (docs/rules-person.md, "What a rule covers"). A rule
// names what runs (Head: the program and, where that is what was
// approved, its subcommand, script, package or target) and the kinds of
// effect the approved call had (Effects: what it read, what code it ran
// and from where, which hosts it reached and what it sent). A later call
// is answered only when its head is the rule's and its effects are within
// the rule's. Head and Scan read the words; the command policy
// classifies the files they name (workspace, secret, outside) and where
// code comes from, and calls Set.Answer.

// Kinds of effect. A rule's Effects lists the kinds it covers; a call's,
// the kinds it has.
const (
	// Reads: the files a call's words name for it to read or send.
	ReadWorkspace = "workspace"
	ReadSecret    = "secret" // a file the secret patterns name
	ReadOutside   = "outside"

	// Code: where the code a call runs comes from.
	CodeWorkspace = "workspace" // the workspace's scripts, tests, build files
	CodeRegistry  = "registry"  // a package fetched to run (npx -y cowsay, uvx ruff)
	CodeInline    = "inline"    // code on the line itself (python3 -c, node -e, bash -c)
	CodeOptions   = "options"   // an option or variable that loads more code (--node-options, --require, NODE_OPTIONS=, curl -K)
	CodeOutside   = "outside"   // a script or program outside the workspace

	// Sends: what a call sends over the network.
	SendData   = "data"   // literal data of the line (curl -d '{"a":1}')
	SendFile   = "file"   // a file's contents (curl -d @f, -T f, scp f host:)
	SendStdin  = "stdin"  // whatever is piped to it (curl --data-binary @-)
	SendMethod = "method" // a request that changes something (-X POST, DELETE)

	// AnyHost in Hosts covers every host.
	AnyHost = "*"
)

// Effects are kinds of effect: a call's, or those a rule covers. An empty
// list is none of that kind.
type Effects struct {
	Reads []string `json:"reads,omitempty"`
	Code  []string `json:"code,omitempty"`
	// Hosts are the hosts reached, as host or host:port ("localhost:3000";
	// 127.0.0.1, ::1 and 0.0.0.0 are written localhost), or AnyHost.
	Hosts []string `json:"hosts,omitempty"`
	Sends []string `json:"sends,omitempty"`
}

// Legacy is what a rule written without effects covers (a prefix rule of
// the allow list, Claude Code's Bash(prefix:*), a Codex prefix_rule): the
// workspace's files and code and packages fetched to run, any host, and
// literal data or a changing request; never a secret, a file outside, a
// file or piped data sent off, code on the line or loaded by an option.
var Legacy = Effects{
	Reads: []string{ReadWorkspace},
	Code:  []string{CodeWorkspace, CodeRegistry},
	Hosts: []string{AnyHost},
	Sends: []string{SendData, SendMethod},
}

var kinds = map[string][]string{
	"reads": {ReadWorkspace, ReadSecret, ReadOutside},
	"code":  {CodeWorkspace, CodeRegistry, CodeInline, CodeOptions, CodeOutside},
	"sends": {SendData, SendFile, SendStdin, SendMethod},
}

// check refuses a kind no call has, naming the field and the value.
func (e *Effects) check() error {
	for field, list := range map[string][]string{"reads": e.Reads, "code": e.Code, "sends": e.Sends} {
		for _, k := range list {
			if !slices.Contains(kinds[field], k) {
				return fmt.Errorf("effects.%s: %q is not one of %s", field, k, strings.Join(kinds[field], ", "))
			}
		}
	}
	for _, h := range e.Hosts {
		if h == "" || strings.ContainsAny(h, " \t/@*") && h != AnyHost {
			return fmt.Errorf("effects.hosts: %q is not a host or host:port (or %q for any)", h, AnyHost)
		}
	}
	return nil
}

// Add adds kind k to list, once.
func Add(list []string, k string) []string {
	if slices.Contains(list, k) {
		return list
	}
	return append(list, k)
}

// Covers reports whether every effect of call is one e covers.
func (e *Effects) Covers(call Effects) bool {
	within := func(have, want []string) bool {
		for _, k := range want {
			if !slices.Contains(have, k) {
				return false
			}
		}
		return true
	}
	if !within(e.Reads, call.Reads) || !within(e.Code, call.Code) || !within(e.Sends, call.Sends) {
		return false
	}
	if slices.Contains(e.Hosts, AnyHost) {
		return true
	}
	return within(e.Hosts, call.Hosts)
}

// Sorted is e with each list sorted, for a rule as written.
func (e Effects) Sorted() Effects {
	for _, l := range []*[]string{&e.Reads, &e.Code, &e.Hosts, &e.Sends} {
		*l = slices.Clone(*l)
		slices.Sort(*l)
		*l = slices.Compact(*l)
	}
	return e
}

// Describe says in words what e covers, for the prompt.
func (e Effects) Describe() string {
	var parts []string
	if len(e.Code) > 0 {
		var from []string
		for _, c := range e.Code {
			from = append(from, map[string]string{CodeWorkspace: "the workspace's code", CodeRegistry: "a package it fetches", CodeInline: "code on the line",
				CodeOptions: "code an option loads", CodeOutside: "code outside the workspace"}[c])
		}
		parts = append(parts, "runs "+strings.Join(from, " or "))
	}
	if len(e.Reads) > 0 {
		parts = append(parts, "reads files of "+strings.Join(readWords(e.Reads), " and "))
	}
	switch {
	case slices.Contains(e.Hosts, AnyHost):
		parts = append(parts, "reaches any host")
	case len(e.Hosts) > 0:
		parts = append(parts, "reaches "+strings.Join(e.Hosts, ", ")+" only")
	}
	if len(e.Sends) > 0 {
		parts = append(parts, "sends "+strings.Join(e.Sends, ", "))
	} else if len(e.Hosts) > 0 {
		parts = append(parts, "sends nothing")
	}
	if len(parts) == 0 {
		return "reads and runs nothing beyond the program itself"
	}
	return strings.Join(parts, "; ")
}

func readWords(list []string) []string {
	out := make([]string, len(list))
	for i, r := range list {
		out[i] = map[string]string{ReadWorkspace: "the workspace", ReadSecret: "secrets", ReadOutside: "outside the workspace"}[r]
	}
	return out
}

// Scan is what the words of one command say about its effects, before
// the command policy classifies the files they name.
type Scan struct {
	// Head is what runs: the program and the words that say what of it
	// (see Head).
	Head []string
	// Files are words naming local files the command reads or sends
	// (operands that read as paths, curl's @file and -T file, wget's
	// --post-file), as written.
	Files []string
	Code  []string // CodeInline, CodeOptions, CodeRegistry as the words say
	Hosts []string
	Sends []string
	// Package is the package a runner fetches or runs (npx cowsay: cowsay),
	// for the command policy to look for in the workspace first.
	Package string
}

// codeOptions load code beyond what the program's words name, whatever
// the program: a rule never covers them unless it names them.
var codeOptions = []string{"--node-options", "--require", "--import", "--loader", "--experimental-loader", "--preload",
	"--init-file", "--rcfile", "--script-shell", "--shell", "--exec", "--toolexec", "--overlay", "--call", "--setup-file", "--plugin"}

// nodeTuning are node's options that only set how the runtime runs
// (memory, warnings, stack traces, module resolution of the program's
// own files): no module, file, port or program of their own.
var nodeTuning = []string{"--max-old-space-size", "--max-semi-space-size", "--stack-size", "--stack-trace-limit", "--enable-source-maps",
	"--no-warnings", "--no-deprecation", "--trace-warnings", "--trace-deprecation", "--throw-deprecation", "--pending-deprecation",
	"--trace-uncaught", "--trace-exit", "--unhandled-rejections", "--experimental-vm-modules", "--experimental-specifier-resolution",
	"--no-experimental-fetch", "--experimental-global-webcrypto", "--dns-result-order", "--use-openssl-ca", "--use-bundled-ca",
	"--max-http-header-size", "--preserve-symlinks", "--preserve-symlinks-main", "--no-addons", "--zero-fill-buffers", "--frozen-intrinsics",
	"--disable-proto", "--input-type", "--abort-on-uncaught-exception", "--no-force-async-hooks-checks", "--experimental-strip-types",
	"--experimental-detect-module", "--no-experimental-detect-module", "--experimental-require-module", "--no-experimental-require-module",
	"--tls-min-v1.2", "--tls-min-v1.3", "--trace-sigint", "--title", "--force-context-aware",
	"--test-concurrency", "--test-timeout"}

// NodeOptionsTuneOnly reports whether a value of node's options
// (NODE_OPTIONS, npm's --node-options) only tunes the runtime: every
// word one of nodeTuning's, so it loads no code. Any other word (a
// loader, an inspector port, an option admit does not know) is judged as
// loading code.
func NodeOptionsTuneOnly(value string) bool {
	for _, w := range strings.Fields(value) {
		n, _, _ := strings.Cut(w, "=")
		if !slices.Contains(nodeTuning, n) {
			return false
		}
	}
	return true
}

// codeVariables are assignments (env NAME=value, a wrapper's) that load
// code.
var codeVariables = []string{"NODE_OPTIONS", "LD_PRELOAD", "LD_LIBRARY_PATH", "DYLD_INSERT_LIBRARIES", "PYTHONSTARTUP", "PYTHONPATH",
	"PERL5OPT", "PERL5LIB", "RUBYOPT", "BASH_ENV", "ENV", "PROMPT_COMMAND", "GIT_SSH_COMMAND", "GIT_EXEC_PATH", "npm_config_script_shell"}

// inlineFlags carry the code they run, per interpreter.
var inlineFlags = map[string][]string{
	"python": {"-c"}, "python3": {"-c"}, "python2": {"-c"}, "node": {"-e", "-p", "--eval", "--print"}, "bun": {"-e", "--eval", "-p", "--print"},
	"deno": {"eval"}, "ts-node": {"-e", "--eval", "-p", "--print"}, "tsx": {"-e", "--eval", "-p", "--print"}, "ruby": {"-e"}, "perl": {"-e", "-E"}, "php": {"-r"}, "bash": {"-c"}, "sh": {"-c"}, "zsh": {"-c"}, "dash": {"-c"},
	"fish": {"-c", "--command"}, "lua": {"-e"}, "pwsh": {"-c", "-Command", "-EncodedCommand"}, "Rscript": {"-e"}, "osascript": {"-e"},
	"npx": {"-c", "--call"},
}

// scriptPrograms run a script file their first operand names: the rule
// names the script.
var scriptPrograms = map[string]bool{
	"python": true, "python3": true, "python2": true, "node": true, "ruby": true, "perl": true, "php": true, "bash": true, "sh": true,
	"zsh": true, "dash": true, "fish": true, "lua": true, "Rscript": true, "osascript": true, "pwsh": true, "tsx": true, "ts-node": true,
}

// exactPrograms are named with every word: what they do is in their
// operands and options (which host, which remote command, which files go
// where, which processes, which extension), so the rule is the call.
var exactPrograms = map[string]bool{
	"ssh": true, "scp": true, "rsync": true, "sftp": true, "code": true, "code-insiders": true, "cursor": true,
	"kill": true, "pkill": true, "killall": true, "crontab": true, "systemctl": true, "launchctl": true,
	"sudo": true, "doas": true, "su": true, "chmod": true, "chown": true, "docker": true, "podman": true, "kubectl": true,
	"nc": true, "ncat": true, "netcat": true, "socat": true, "telnet": true,
}

// runners run a package they name, fetched or installed: the rule names
// the runner's words and the package.
var runners = map[string][]string{
	"npx": nil, "bunx": nil, "uvx": nil, "pnpx": nil,
	"pnpm": {"dlx", "exec"}, "yarn": {"dlx", "exec"}, "bun": {"x"}, "npm": {"exec", "x"},
	"uv": {"run", "tool"}, "pipx": {"run"}, "poetry": {"run"}, "pdm": {"run"}, "hatch": {"run"}, "rye": {"run"},
}

// valued are options that take the next word as their value, per program
// ("" for every program): a value is never a head word.
var valued = map[string][]string{
	"":        {"-C", "--directory", "-f", "--file", "--prefix", "-w", "--workspace", "--filter", "-p", "--package", "--python", "--with", "--project", "--env-file", "--config", "-c", "--cwd", "--dir"},
	"make":    {"-C", "-f", "--file", "--makefile", "-I", "--include-dir", "-o", "--old-file", "-W", "--what-if", "--assume-new", "-j", "--jobs", "-l", "--load-average"},
	"ssh":     {"-p", "-i", "-l", "-o", "-F", "-J", "-L", "-R", "-D", "-e", "-b", "-c", "-m", "-O", "-Q", "-S", "-W", "-w", "-E", "-B", "-I"},
	"python":  {"-W", "-X"},
	"python3": {"-W", "-X"},
	"git":     {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"},
	"go":      {"-C", "-o", "-run", "-bench", "-tags", "-p", "-count", "-timeout", "-coverprofile", "-ldflags", "-gcflags"},
	"npm":     {"-w", "--workspace", "--prefix", "-C"},
	"cargo":   {"-p", "--package", "--manifest-path", "--target", "-j", "--jobs", "--features", "-F", "--bin", "--example", "--test"},
	"gh":      {"-R", "--repo", "-L", "--limit", "--json", "-q", "--jq", "-t", "--template"},
	"curl": {"-d", "--data", "--data-binary", "--data-raw", "--data-ascii", "--data-urlencode", "--json", "-F", "--form", "--form-string",
		"-H", "--header", "-X", "--request", "-o", "--output", "-T", "--upload-file", "-u", "--user", "-A", "--user-agent", "-e", "--referer",
		"-b", "--cookie", "-c", "--cookie-jar", "-x", "--proxy", "-m", "--max-time", "--connect-timeout", "-w", "--write-out", "-K", "--config",
		"--resolve", "--connect-to", "-r", "--range", "-C", "--continue-at", "--retry", "--cacert", "--cert", "--key", "-E", "-U", "--proxy-user",
		"--url", "-D", "--dump-header", "--limit-rate", "-z", "--time-cond", "--output-dir", "--unix-socket", "-Y", "-y", "--max-filesize", "-Q", "--quote"},
	"wget": {"-O", "--output-document", "-o", "--output-file", "-P", "--directory-prefix", "--header", "--post-data", "--post-file",
		"--body-data", "--body-file", "--method", "-U", "--user-agent", "-e", "--execute", "-i", "--input-file", "-T", "--timeout", "-t", "--tries"},
}

func isValued(prog, opt string) bool {
	if strings.Contains(opt, "=") {
		return false
	}
	if list, ok := valued[prog]; ok {
		return slices.Contains(list, opt)
	}
	return slices.Contains(valued[""], opt)
}

// plainWord is a word a rule can name as a head word: no option, no
// pattern, no assignment.
func plainWord(w string) bool {
	return w != "" && !strings.HasPrefix(w, "-") && !strings.ContainsAny(w, "=*\x00")
}

// operands are argv's words after the program that are no option nor an
// option's value, up to "--" (after which all are operands).
func operands(prog string, args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i+1:]...)
		case strings.HasPrefix(a, "-") && a != "-":
			if isValued(prog, a) && i+1 < len(args) {
				if (a == "-j" || a == "--jobs" || a == "-l") && prog == "make" && !numeric(args[i+1]) {
					continue // make -j without a number takes none
				}
				i++
			}
		default:
			out = append(out, a)
		}
	}
	return out
}

func numeric(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && c != '.' {
			return false
		}
	}
	return true
}

// Head is what a call runs, as a rule names it: the program (as written:
// ./scripts/x.sh is not x.sh), then
//
//   - for an interpreter, the script it runs (bash scripts/x.sh,
//     python3 -m pytest), nothing for code on the line;
//   - for a runner, its words and the package (npx cowsay, uv run pytest,
//     pnpm dlx prettier);
//   - for make, the targets (make -j8 test is make test);
//   - for npm, pnpm, yarn and bun, run and the script (npm run build);
//   - for ssh, scp, rsync, kill, code and the like, every word: the rule
//     is the call;
//   - for git and gh, the subcommand(s) (gh repo view) and, for push,
//     pull and fetch, the remote;
//   - otherwise the subcommand, when the first operand is a plain word
//     (go test, cargo build).
func Head(argv []string) []string {
	if len(argv) == 0 {
		return nil
	}
	prog, args := argv[0], argv[1:]
	base := prog
	if strings.Contains(prog, "/") {
		return slices.Clone(argv[:1]) // a program given as a path is its own head
	}
	if exactPrograms[base] {
		return slices.Clone(argv)
	}
	ops := operands(base, args)
	head := []string{prog}
	switch {
	case scriptPrograms[base]:
		for i := 0; i < len(args); i++ {
			a := args[i]
			if slices.Contains(inlineFlags[base], a) {
				return head // the code is on the line: no word says what runs
			}
			if a == "-m" && i+1 < len(args) {
				return append(head, "-m", args[i+1])
			}
		}
		if len(ops) > 0 {
			head = append(head, ops[0])
		}
		return head
	case runners[base] != nil || isRunner(base):
		rest := ops
		if subs := runners[base]; subs != nil {
			if len(rest) == 0 || !slices.Contains(subs, rest[0]) {
				return subHead(base, head, ops)
			}
			head, rest = append(head, rest[0]), rest[1:]
			if base == "uv" && head[1] == "tool" && len(rest) > 0 && rest[0] == "run" {
				head, rest = append(head, "run"), rest[1:]
			}
		}
		if len(rest) > 0 {
			head = append(head, rest[0])
		}
		return head
	case base == "make" || base == "gmake" || base == "just" || base == "task" || base == "mage":
		for _, o := range ops {
			if !strings.Contains(o, "=") {
				head = append(head, o)
			}
		}
		return head
	}
	return subHead(base, head, ops)
}

// isRunner reports a runner with no subcommand of its own (npx x).
func isRunner(base string) bool { r, ok := runners[base]; return ok && r == nil }

// subHead is the head of a program with subcommands.
func subHead(base string, head, ops []string) []string {
	if len(ops) == 0 || !plainWord(ops[0]) || strings.Contains(ops[0], "/") {
		return head
	}
	head = append(head, ops[0])
	switch base {
	case "npm", "pnpm", "yarn", "bun":
		if ops[0] == "run" || ops[0] == "run-script" {
			if len(ops) > 1 && plainWord(ops[1]) {
				head = append(head, ops[1])
			}
		}
	case "gh", "glab", "aws", "gcloud", "az":
		if len(ops) > 1 && plainWord(ops[1]) && !strings.Contains(ops[1], "/") {
			head = append(head, ops[1])
		}
	case "git":
		if (ops[0] == "push" || ops[0] == "pull" || ops[0] == "fetch") && len(ops) > 1 {
			head = append(head, ops[1])
		}
	}
	return head
}

// ScanArgv reads what argv's words say about its effects (wrappers seen
// through, as the command policy hands it over).
func ScanArgv(argv []string) Scan {
	s := Scan{Head: Head(argv)}
	if len(argv) == 0 {
		return s
	}
	prog := argv[0]
	args := argv[1:]
	if fl := inlineFlags[prog]; fl != nil {
		for _, a := range args {
			if slices.Contains(fl, a) {
				s.Code = Add(s.Code, CodeInline)
			}
		}
	}
	for k, a := range args {
		name, value, attached := strings.Cut(a, "=")
		if name == "--node-options" {
			// Judged as the code it loads: a runtime setting loads none.
			if !attached && k+1 < len(args) {
				value = args[k+1]
			}
			if !NodeOptionsTuneOnly(value) {
				s.Code = Add(s.Code, CodeOptions)
			}
			continue
		}
		if strings.HasPrefix(a, "-") && slices.Contains(codeOptions, "--"+strings.TrimLeft(name, "-")) {
			s.Code = Add(s.Code, CodeOptions)
		}
		if attached && name != "" && slices.Contains(codeVariables, name) && !(name == "NODE_OPTIONS" && NodeOptionsTuneOnly(value)) {
			s.Code = Add(s.Code, CodeOptions)
		}
	}
	if (prog == "node" || prog == "bun" || prog == "deno") && (slices.Contains(args, "-r") || slices.Contains(args, "--require")) {
		s.Code = Add(s.Code, CodeOptions)
	}
	switch prog {
	case "curl":
		scanCurl(&s, args)
	case "wget":
		scanWget(&s, args)
	case "http", "https", "xh", "xhs":
		scanHTTPie(&s, args)
	case "ssh", "sftp":
		if ops := operands("ssh", args); len(ops) > 0 {
			s.Hosts = Add(s.Hosts, hostOf(ops[0]))
		}
	case "scp", "rsync":
		for _, o := range operands(prog, args) {
			if h, ok := remoteOperand(o); ok {
				s.Hosts = Add(s.Hosts, h)
			} else {
				s.Files = append(s.Files, o)
			}
		}
		if len(s.Hosts) > 0 && len(s.Files) > 0 {
			s.Sends = Add(s.Sends, SendFile)
		}
	case "nc", "ncat", "netcat", "telnet", "socat":
		if ops := operands(prog, args); len(ops) > 0 {
			s.Hosts = Add(s.Hosts, hostOf(ops[0]))
		}
		s.Sends = Add(s.Sends, SendStdin)
	default:
		for _, a := range args {
			if u, ok := urlHost(a); ok {
				s.Hosts = Add(s.Hosts, u)
			}
		}
	}
	if r, ok := runners[prog]; ok {
		ops := operands(prog, args)
		switch {
		case r == nil && len(ops) > 0:
			s.Package = ops[0]
		case len(ops) > 1 && (ops[0] == "dlx" || ops[0] == "x" || prog == "npm" && ops[0] == "exec" || prog == "pipx" && ops[0] == "run"):
			s.Package = ops[1]
		case prog == "uv" && len(ops) > 2 && ops[0] == "tool" && ops[1] == "run":
			s.Package = ops[2]
		}
		if prog == "uvx" || prog == "bunx" || prog == "pnpx" || prog == "pipx" || (len(ops) > 0 && (ops[0] == "dlx" || ops[0] == "tool")) {
			s.Code = Add(s.Code, CodeRegistry)
		}
		for i, a := range args {
			if a == "-y" || a == "--yes" || a == "--with" || strings.HasPrefix(a, "--with=") || a == "--from" || (a == "-p" || a == "--package") && i+1 < len(args) {
				s.Code = Add(s.Code, CodeRegistry)
			}
		}
	}
	return s
}

// scanCurl reads curl's words: the hosts of its URLs, what it sends, and
// the files it reads to send them.
func scanCurl(s *Scan, args []string) {
	dataOpt := func(o string) bool {
		switch o {
		case "-d", "--data", "--data-binary", "--data-raw", "--data-ascii", "--data-urlencode", "--json", "-F", "--form", "--form-string":
			return true
		}
		return false
	}
	value := func(i int) (string, string, int) { // the option's name, its value, and the next index
		a := args[i]
		if name, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "--") {
			return name, v, i + 1
		}
		if len(a) > 2 && a[0] == '-' && a[1] != '-' && isValued("curl", a[:2]) {
			return a[:2], a[2:], i + 1
		}
		if isValued("curl", a) && i+1 < len(args) {
			return a, args[i+1], i + 2
		}
		return a, "", i + 1
	}
	for i := 0; i < len(args); {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") || a == "-" {
			if a != "--" {
				if h, ok := urlHost(a); ok {
					s.Hosts = Add(s.Hosts, h)
				} else if h, ok := urlHost("http://" + a); ok {
					s.Hosts = Add(s.Hosts, h)
				}
			}
			i++
			continue
		}
		name, v, next := value(i)
		i = next
		switch {
		case dataOpt(name):
			file := ""
			switch {
			case name == "-F" || name == "--form":
				if _, rhs, ok := strings.Cut(v, "="); ok && (strings.HasPrefix(rhs, "@") || strings.HasPrefix(rhs, "<")) {
					file = strings.SplitN(rhs[1:], ";", 2)[0]
				}
			case name == "--data-raw" || name == "--form-string":
			case strings.HasPrefix(v, "@"):
				file = v[1:]
			case name == "--data-urlencode":
				if j := strings.Index(v, "@"); j >= 0 && !strings.Contains(v[:j], "=") {
					file = v[j+1:]
				}
			}
			switch file {
			case "":
				s.Sends = Add(s.Sends, SendData)
			case "-":
				s.Sends = Add(s.Sends, SendStdin)
			default:
				s.Sends, s.Files = Add(s.Sends, SendFile), append(s.Files, file)
			}
		case name == "-T" || name == "--upload-file":
			if v == "-" || v == "." {
				s.Sends = Add(s.Sends, SendStdin)
			} else {
				s.Sends, s.Files = Add(s.Sends, SendFile), append(s.Files, v)
			}
		case name == "-X" || name == "--request":
			if m := strings.ToUpper(v); m != "GET" && m != "HEAD" && m != "OPTIONS" {
				s.Sends = Add(s.Sends, SendMethod)
			}
		case name == "-K" || name == "--config":
			s.Code, s.Files = Add(s.Code, CodeOptions), append(s.Files, v)
		case name == "--url":
			if h, ok := urlHost(v); ok {
				s.Hosts = Add(s.Hosts, h)
			}
		case name == "-x" || name == "--proxy" || name == "--connect-to" || name == "--resolve" || name == "--unix-socket":
			s.Hosts = Add(s.Hosts, AnyHost) // where it goes is not the URL's host
		case name == "-b" || name == "--cookie":
			if !strings.Contains(v, "=") {
				s.Sends, s.Files = Add(s.Sends, SendFile), append(s.Files, v)
			}
		case name == "-E" || name == "--cert" || name == "--key":
			s.Sends, s.Files = Add(s.Sends, SendFile), append(s.Files, v)
		case name == "-u" || name == "--user" || name == "-H" || name == "--header":
			if name == "-H" || name == "--header" {
				if strings.HasPrefix(v, "@") {
					s.Sends, s.Files = Add(s.Sends, SendFile), append(s.Files, v[1:])
				}
			} else {
				s.Sends = Add(s.Sends, SendData)
			}
		}
	}
}

// scanWget reads wget's words.
func scanWget(s *Scan, args []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			if h, ok := urlHost(a); ok {
				s.Hosts = Add(s.Hosts, h)
			} else if h, ok := urlHost("http://" + a); ok {
				s.Hosts = Add(s.Hosts, h)
			}
			continue
		}
		name, v, ok := strings.Cut(a, "=")
		if !ok && isValued("wget", a) && i+1 < len(args) {
			i++
			v = args[i]
		}
		switch name {
		case "--post-data", "--body-data":
			s.Sends = Add(s.Sends, SendData)
		case "--post-file", "--body-file", "-i", "--input-file":
			if v == "-" {
				s.Sends = Add(s.Sends, SendStdin)
			} else {
				s.Sends, s.Files = Add(s.Sends, SendFile), append(s.Files, v)
			}
		case "--method":
			if m := strings.ToUpper(v); m != "GET" && m != "HEAD" {
				s.Sends = Add(s.Sends, SendMethod)
			}
		case "-e", "--execute":
			s.Code = Add(s.Code, CodeOptions)
		}
	}
}

// scanHTTPie reads httpie's and xh's words: METHOD URL ITEM...
func scanHTTPie(s *Scan, args []string) {
	url := false
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			continue
		}
		if !url {
			switch strings.ToUpper(a) {
			case "GET", "HEAD":
				continue
			case "POST", "PUT", "PATCH", "DELETE":
				s.Sends = Add(s.Sends, SendMethod)
				continue
			}
			url = true
			if h, ok := urlHost(a); ok {
				s.Hosts = Add(s.Hosts, h)
			} else if strings.HasPrefix(a, ":") {
				s.Hosts = Add(s.Hosts, "localhost"+a)
			} else if h, ok := urlHost("http://" + a); ok {
				s.Hosts = Add(s.Hosts, h)
			}
			continue
		}
		switch {
		case strings.Contains(a, "@"):
			if _, f, ok := strings.Cut(a, "@"); ok {
				s.Sends, s.Files = Add(s.Sends, SendFile), append(s.Files, f)
			}
		case strings.Contains(a, "="), strings.Contains(a, ":"):
			s.Sends = Add(s.Sends, SendData)
		}
	}
}

// urlHost is the host (and port, when given) of a URL word.
func urlHost(w string) (string, bool) {
	scheme, rest, ok := strings.Cut(w, "://")
	if !ok || scheme == "" || strings.ContainsAny(scheme, "/@:") {
		return "", false
	}
	authority := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority = rest[:i]
	}
	if i := strings.LastIndexByte(authority, '@'); i >= 0 {
		authority = authority[i+1:]
	}
	if authority == "" || strings.ContainsAny(authority, " \t*") {
		return "", false
	}
	return normalHost(authority), true
}

// hostOf is the host of ssh's destination (user@host, ssh://host:port).
func hostOf(w string) string {
	if h, ok := urlHost(w); ok {
		return h
	}
	if i := strings.LastIndexByte(w, '@'); i >= 0 {
		w = w[i+1:]
	}
	return normalHost(w)
}

// remoteOperand reads an scp or rsync operand that names a host
// (host:path, user@host:path, rsync://host/path).
func remoteOperand(w string) (string, bool) {
	if h, ok := urlHost(w); ok {
		return h, true
	}
	colon := strings.IndexByte(w, ':')
	slash := strings.IndexByte(w, '/')
	if colon <= 0 || (slash >= 0 && slash < colon) {
		return "", false
	}
	return hostOf(w[:colon]), true
}

// normalHost writes a host:port the one way: lower case, the loopback
// names as localhost.
func normalHost(hp string) string {
	hp = strings.ToLower(hp)
	host, port, err := net.SplitHostPort(hp)
	if err != nil {
		host, port = strings.Trim(hp, "[]"), ""
	}
	if host == "127.0.0.1" || host == "::1" || host == "0.0.0.0" || strings.HasPrefix(host, "127.") || host == "localhost.localdomain" {
		host = "localhost"
	}
	if port != "" {
		return host + ":" + port
	}
	return host
}

// Offer is the rule "always allow" offers for a call of argv (one simple
// command, wrappers seen through) whose effects the command policy judged
// to be eff: what runs (Head) and the kinds of effect it had, so that the
// same call, and calls that do the same kinds of thing (go test over
// other packages of the workspace, curl to the same host sending nothing),
// are answered, and nothing more. When no rule can answer it, Offer says
// why instead.
func Offer(argv []string, eff Effects) (Rule, string) {
	head := Head(argv)
	if len(head) == 0 {
		return Rule{}, "the command has no program"
	}
	why := ""
	switch {
	case slices.Contains(eff.Code, CodeInline):
		why = "the code it runs is on the line itself: a rule for " + head[0] + " would allow any code"
	case slices.Contains(eff.Code, CodeOptions):
		why = "an option or variable of it loads more code than the command names: a rule would allow whatever that loads"
	case slices.Contains(eff.Code, CodeOutside):
		why = "it runs code from outside the workspace"
	case slices.Contains(eff.Reads, ReadSecret):
		why = "it reads or sends a file the secret patterns name: that is asked each time, whatever the program"
	case slices.Contains(eff.Reads, ReadOutside):
		why = "it reads or sends a file outside the workspace"
	case slices.Contains(eff.Sends, SendStdin):
		why = "it sends whatever is piped to it, which no rule can say in advance"
	case slices.Contains(eff.Hosts, AnyHost):
		why = "it reaches a host other than the one its URL names (a proxy, --resolve), which no rule can name"
	case len(head) > maxWords:
		why = fmt.Sprintf("what runs takes %d words, more than a rule holds (%d)", len(head), maxWords)
	}
	for _, w := range head {
		if why == "" && (strings.Contains(w, "*") || strings.ContainsAny(w, "\n\r\x00")) {
			why = fmt.Sprintf("the word %q holds a character a rule cannot name literally", w)
		}
	}
	if why != "" {
		return Rule{}, why
	}
	words := make([]string, len(head))
	for i, w := range head {
		words[i] = quoteWord(w)
	}
	r, err := Parse(strings.Join(words, " "), rule.OutcomeAllow)
	if err != nil {
		return Rule{}, "no rule can name it: " + err.Error()
	}
	e := eff.Sorted()
	if slices.Contains(e.Code, CodeWorkspace) {
		// The workspace's code reads the workspace whatever its words
		// name: go test over other packages is the same kind of call.
		e.Reads = Add(e.Reads, ReadWorkspace)
		e = e.Sorted()
	}
	r.Effects = &e
	r.Examples = []string{Quote(argv)}
	return r, ""
}

// Explain says what an offered rule covers, for the prompt: the words it
// names and its effects.
func (r *Rule) Explain() string {
	if r.Effects == nil {
		return fmt.Sprintf("%q and any words after it, reading the workspace, running its code, sending no file", r.Match)
	}
	return fmt.Sprintf("%s, with any options, when it %s", r.Match, r.Effects.Describe())
}
