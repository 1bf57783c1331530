package run

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// ScrubEnv keeps only an allowlist of the base environment: PATH (absolute
// entries only; a default when none is left), HOME, USER, LOGNAME, LANG,
// LC_*, TZ and TMPDIR, and the variables that say where toolchains and
// their caches live (GOROOT, GOPATH, GOCACHE, GOMODCACHE, CARGO_HOME,
// RUSTUP_HOME, JAVA_HOME, GRADLE_USER_HOME, PYENV_ROOT, PIP_CACHE_DIR,
// npm_config_cache, XDG_CACHE_HOME: a confined run grants those folders,
// found from the same variables, and nothing else); TERM is set to dumb. Everything else is dropped, so
// LD_*, GIT_*, PAGER-like, editor, shell start-up (BASH_ENV, ENV,
// PROMPT_COMMAND, IFS, CDPATH) and interpreter (PYTHON*, NODE_OPTIONS,
// PERL5*, RUBY*) variables never reach a program. Later entries win.
// Each system adds the few it cannot run without (osVar: on Windows
// SystemRoot, PATHEXT, the profile folders; names are compared and
// kept upper-case there, as Windows does not tell "Path" from "PATH").
func ScrubEnv(base []string) []string {
	keep := map[string]string{}
	var order []string
	for _, kv := range base {
		name, value, ok := strings.Cut(kv, "=")
		name = canonVar(name)
		if !ok || !(allowedVar(name) || osVar(name)) {
			continue
		}
		if _, seen := keep[name]; !seen {
			order = append(order, name)
		}
		keep[name] = value
	}
	var path []string
	for _, dir := range filepath.SplitList(keep["PATH"]) {
		if filepath.IsAbs(dir) {
			path = append(path, dir)
		}
	}
	if len(path) == 0 {
		if _, seen := keep["PATH"]; !seen {
			order = append(order, "PATH")
		}
		path = defaultPath()
	}
	keep["PATH"] = strings.Join(path, string(filepath.ListSeparator))
	env := make([]string, 0, len(order)+1)
	for _, name := range order {
		env = append(env, name+"="+keep[name])
	}
	return append(env, "TERM=dumb")
}

func allowedVar(name string) bool {
	switch name {
	case "PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR":
		return true
	case "GOROOT", "GOPATH", "GOCACHE", "GOMODCACHE", "CARGO_HOME", "RUSTUP_HOME", "JAVA_HOME",
		"GRADLE_USER_HOME", "PYENV_ROOT", "PIP_CACHE_DIR", "npm_config_cache", "NPM_CONFIG_CACHE", "XDG_CACHE_HOME":
		return true
	}
	return strings.HasPrefix(name, "LC_")
}

// gitConfig overrides, through GIT_CONFIG_COUNT (command scope, above every
// config file), the settings that make git run a program or reach out:
// file system monitors, hooks, pagers, editors, ssh, credential helpers,
// signature checks (gpg), the attributes file, and the ext:: transport.
// Empty values reset multi-valued keys (credential.helper) or turn the
// program off. diff.external and per-driver textconv/command cannot be
// reset to "nothing" this way (an empty program is still tried), so git
// diff, log, show, blame and grep get --no-ext-diff/--no-textconv instead
// (hardenGit).
var gitConfig = [][2]string{
	{"core.fsmonitor", "false"},
	{"core.hooksPath", "/dev/null"},
	{"core.pager", "cat"},
	{"core.editor", "false"},
	{"sequence.editor", "false"},
	{"core.sshCommand", "false"},
	{"core.askPass", ""},
	{"core.attributesFile", "/dev/null"},
	{"core.alternateRefsCommand", ""},
	{"credential.helper", ""},
	{"gpg.program", "false"},
	{"gpg.ssh.program", "false"},
	{"gpg.x509.program", "false"},
	{"log.showSignature", "false"},
	{"protocol.ext.allow", "never"},
	{"uploadpack.packObjectsHook", ""},
	// gc and maintenance may detach (setsid) and keep writing .git/
	// after the run ended and its effects were read.
	{"gc.auto", "0"},
	{"gc.autoDetach", "false"},
	{"maintenance.auto", "false"},
}

// gitSafety is added to every program's environment, after ScrubEnv;
// extra overrides (the repository's filter drivers) follow the fixed ones.
func gitSafety(extra [][2]string) []string {
	all := append(slices.Clip(gitConfig), extra...)
	env := []string{
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_PAGER=cat",
		"PAGER=cat",
		"GIT_OPTIONAL_LOCKS=0",
		fmt.Sprintf("GIT_CONFIG_COUNT=%d", len(all)),
	}
	for i, kv := range all {
		env = append(env, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", i, kv[0]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", i, kv[1]))
	}
	return env
}

// gitValueOptions are git's global options that take the next word.
var gitValueOptions = map[string]bool{
	"-C": true, "-c": true, "--git-dir": true, "--work-tree": true,
	"--namespace": true, "--super-prefix": true, "--config-env": true,
}

// hardenGit adds --no-pager, and --no-ext-diff/--no-textconv to the
// subcommands that would run diff drivers, and refuses options that change
// configuration or the programs git runs.
func hardenGit(args []string) ([]string, error) {
	for _, a := range args[1:] {
		switch {
		case a == "-c" || a == "--config-env" || strings.HasPrefix(a, "--config-env=") ||
			strings.HasPrefix(a, "--exec-path") || a == "--ext-diff" || a == "--textconv" ||
			strings.HasPrefix(a, "--upload-pack") || strings.HasPrefix(a, "--receive-pack"):
			return nil, fmt.Errorf("git option %s is not run", a)
		}
	}
	sub := -1
	for i := 1; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			sub = i
			break
		}
		if gitValueOptions[a] {
			i++
		}
	}
	out := []string{args[0], "--no-pager"}
	if sub < 0 {
		return append(out, args[1:]...), nil
	}
	out = append(out, args[1:sub+1]...)
	switch args[sub] {
	case "diff", "log", "show", "whatchanged":
		out = append(out, "--no-ext-diff", "--no-textconv")
	case "blame", "annotate", "grep":
		out = append(out, "--no-textconv")
	}
	return append(out, args[sub+1:]...), nil
}
