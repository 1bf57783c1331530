package connect

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"admit/hook"
)

// Host is one agent host admit connects: the user-level files its hook
// configuration lives in, what admit writes there, and how to tell that
// the host is installed.
type Host struct {
	// Name is the adapter's name (admit hook NAME).
	Name string
	// Agent is the product, for messages.
	Agent string
	// MissingBinary says what the host does, with the configuration admit
	// writes, when the binary the configuration names is gone.
	MissingBinary string
	// MissingBinaryBlocks says whether that is a refusal.
	MissingBinaryBlocks bool
	// Notes are what the person must still do by hand after connecting.
	Notes []string

	adapter *hook.Adapter
	timeout time.Duration // the host timeout the entries set; 0: none
	files   []*fileSpec
	detect  detectSpec
	// off says where the person's settings switch the host's hooks off
	// ("" when they do not), given the configuration files as read.
	off func(sys System, home string, files []File) string
	// inert says why the host will not run admit's entries, connected as
	// they are (a trust step not taken, a folder the host does not
	// trust): a few words and the whole reason, or "" when it will.
	inert   func(sys System, o Options, files []File) (string, string)
	windows bool // admit can write this host's configuration on Windows
	// managed is the host's own managed place, per system, where an
	// administrator's hooks live and no repository or person can switch
	// them off: the files (their absolute paths, one per file spec) and
	// how they differ from the person's files. Nil: the host has none.
	managed func(goos string, files []*fileSpec) []*fileSpec
	// ManagedNote is what the host's managed place does, for messages.
	ManagedNote string
}

// Env reads an environment variable ("" when unset).
type Env func(string) string

// shape is how a configuration holds its hooks.
type shape int

const (
	// groups: "hooks": {EVENT: [{"matcher": M, "hooks": [HANDLER]}]}
	// (Claude Code, Gemini CLI, Codex).
	shapeGroups shape = iota
	// flat: "hooks": {EVENT: [ENTRY]} (Copilot, Cursor, Windsurf).
	shapeFlat
	// list: "hooks": [{"trigger": EVENT, ...}] (Kiro).
	shapeList
	// script: the file is an executable named after the event (Cline).
	shapeScript
	// TOML block: admit's [[hooks.EVENT]] tables between two marker
	// comments at the end of a TOML file shared with other settings
	// (Codex's requirements.toml; tomlblock.go).
	shapeTOMLBlock
)

// fileSpec is one file of a host's configuration.
type fileSpec struct {
	path     func(home string, env Env) string
	comments bool // the host reads JSON with comments
	shape    shape
	skeleton obj // the members of a file admit creates
	matcher  string
	events   []string
	// entry is what admit writes for event: the handler, or the entry.
	entry func(event string, t target) obj
	// owned are the keys of an entry that are admit's to set: any of them
	// not in entry is removed (an "async" or "args" left over would change
	// how the host runs admit). Other keys of the person's are kept.
	owned []string
	// command reads an entry's invocation.
	command func(n *node) (invocation, bool)
	// script is the whole file, for shapeScript; parse reads back what a
	// script that is not a shell script runs (nil: parseScript).
	script func(t target) string
	parse  func(src []byte, host string) (invocation, bool)
}

// target is what an entry points at.
type target struct {
	bin  string // the admit binary, absolute
	goos string
}

// detectSpec says where a host leaves traces once installed.
type detectSpec struct {
	dirs       []func(home string, env Env) string
	programs   []string // on PATH
	extensions []string // VS Code extension ids
}

// seconds is a host timeout in whole seconds, as configurations write it.
func seconds(d time.Duration) int { return int(d / time.Second) }

// hostTimeout is admit hook's --host-timeout for a host timeout d: the
// configuration and admit must agree on it.
func hostTimeout(d time.Duration) string { return fmt.Sprintf("%ds", seconds(d)) }

// guarded is the shell line that runs admit hook: the binary by absolute
// path, single-quoted, then "|| exit 2", so that whatever keeps admit from
// answering (the binary missing: the shell's 127; killed: 128+N) reaches
// the host as the exit status that blocks the call, with the shell's
// complaint on stderr as the reason.
func guarded(t target, args ...string) string {
	return shellQuote(t.bin) + " " + strings.Join(args, " ") + " || exit 2"
}

// hookLine is guarded admit hook for adapter a, with the host timeout
// the entry gives it.
func hookLine(t target, a *hook.Adapter) string {
	return guarded(t, "hook", a.Name, "--host-timeout", hostTimeout(a.Timeout))
}

// under is a path under the home folder.
func under(parts ...string) func(home string, env Env) string {
	return func(home string, _ Env) string { return filepath.Join(append([]string{home}, parts...)...) }
}

// envDir is $VAR when set, else a folder of the home folder: the hosts
// that let an environment variable move their configuration folder.
func envDir(v string, parts ...string) func(home string, env Env) string {
	return func(home string, env Env) string {
		if d := env(v); d != "" && filepath.IsAbs(d) {
			return d
		}
		return filepath.Join(append([]string{home}, parts...)...)
	}
}

// inDir is a path under the folder dir names.
func inDir(dir func(home string, env Env) string, more ...string) func(home string, env Env) string {
	return func(home string, env Env) string { return filepath.Join(append([]string{dir(home, env)}, more...)...) }
}

// commandKey reads an entry's shell line from the first of keys it has.
func commandKey(keys ...string) func(n *node) (invocation, bool) {
	return func(n *node) (invocation, bool) {
		for _, k := range keys {
			if v := n.get(k); v != nil && v.kind == '"' {
				return parseCommand(v.str)
			}
		}
		return invocation{}, false
	}
}

// execOrCommand reads an entry written in exec form (a program and its
// args, no shell: Claude Code's command+args, the Copilot CLI's
// exec+args), or else as a shell line.
func execOrCommand(program string, shellKeys ...string) func(n *node) (invocation, bool) {
	line := commandKey(shellKeys...)
	return func(n *node) (invocation, bool) {
		p, args := n.get(program), n.get("args")
		if p != nil && p.kind == '"' && args != nil && args.kind == '[' {
			inv := invocation{program: p.str, literal: true}
			for _, a := range args.elems {
				if a.kind != '"' {
					return invocation{}, false
				}
				inv.args = append(inv.args, a.str)
			}
			return inv, true
		}
		return line(n)
	}
}

func adapter(name string) *hook.Adapter {
	a, ok := hook.Lookup(name)
	if !ok {
		panic("connect: no adapter " + name)
	}
	return a
}

var (
	claudeDir  = envDir("CLAUDE_CONFIG_DIR", ".claude")
	codexDir   = envDir("CODEX_HOME", ".codex")
	copilotDir = envDir("COPILOT_HOME", ".copilot")
)

// hosts are the hosts admit connects, one per adapter.
var hosts = []*Host{
	claudeHost(), geminiHost(), copilotHost(), codexHost(), cursorHost(), windsurfHost(), kiroHost(), clineHost(), opencodeHost(),
}

func claudeHost() *Host {
	a := adapter("claude-code")
	return &Host{
		Name: a.Name, Agent: a.Host, adapter: a, timeout: a.Timeout,
		MissingBinary:       "PreToolUse exits 2 (the shell's \"|| exit 2\"), which Claude Code blocks on, with the shell's complaint as the reason; PermissionRequest ignores exit codes, so Claude Code asks its user as it would without the hook",
		MissingBinaryBlocks: true,
		files: []*fileSpec{{
			path: inDir(claudeDir, "settings.json"), shape: shapeGroups, matcher: "*",
			events: []string{"PreToolUse", "PermissionRequest"},
			entry: func(_ string, t target) obj {
				return obj{{"type", "command"}, {"command", hookLine(t, a)}, {"timeout", seconds(a.Timeout)}}
			},
			owned:   []string{"type", "command", "args", "timeout", "async", "asyncRewake", "once", "shell"},
			command: execOrCommand("command", "command"),
		}},
		detect: detectSpec{dirs: []func(string, Env) string{claudeDir}, programs: []string{"claude"}, extensions: []string{"anthropic.claude-code"}},
		off: func(_ System, _ string, files []File) string {
			return settingOff(files[0], false, true, "disableAllHooks")
		},
		// Managed settings outrank every other file, and with
		// allowManagedHooksOnly (set in a file admit creates) Claude Code
		// runs no hook but the managed ones.
		managed: func(goos string, files []*fileSpec) []*fileSpec {
			out := placed(files, map[string][]string{
				"linux":  {"/etc/claude-code/managed-settings.json"},
				"darwin": {"/Library/Application Support/ClaudeCode/managed-settings.json"},
			}[goos]...)
			for _, f := range out {
				f.skeleton = obj{{"allowManagedHooksOnly", true}}
			}
			return out
		},
		ManagedNote: "managed settings, which no user or project setting overrides",
	}
}

func geminiHost() *Host {
	a := adapter("gemini-cli")
	return &Host{
		Name: a.Name, Agent: a.Host, adapter: a, timeout: a.Timeout,
		MissingBinary:       "denied: Gemini CLI reads a plain-text answer with exit status 2 (or more) as a deny, the shell's complaint as the reason",
		MissingBinaryBlocks: true,
		Notes:               []string{`Gemini CLI releases before hooks were on by default also need "tools": {"enableHooks": true} in ~/.gemini/settings.json.`},
		files: []*fileSpec{{
			path: under(".gemini", "settings.json"), comments: true, shape: shapeGroups, matcher: ".*",
			events: []string{"BeforeTool"},
			entry: func(_ string, t target) obj {
				return obj{{"type", "command"}, {"command", hookLine(t, a)}, {"name", "admit"}, {"timeout", int(a.Timeout / time.Millisecond)}}
			},
			owned:   []string{"type", "command", "name", "timeout"},
			command: commandKey("command"),
		}},
		detect: detectSpec{dirs: []func(string, Env) string{under(".gemini")}, programs: []string{"gemini"}, extensions: []string{"google.gemini-cli-vscode-ide-companion"}},
		off: func(_ System, _ string, files []File) string {
			return settingOff(files[0], true, false, "hooksConfig", "enabled")
		},
		inert: geminiInert,
	}
}

func copilotHost() *Host {
	a := adapter("copilot")
	entry := func(extra ...string) func(string, target) obj {
		return func(_ string, t target) obj {
			args := append([]string{"hook", a.Name}, extra...)
			args = append(args, "--host-timeout", hostTimeout(a.Timeout))
			o := obj{{"type", "command"}}
			if t.goos == "windows" {
				o = append(o, kv{"powershell", "& " + psQuote(t.bin) + " " + strings.Join(args, " ")})
			} else {
				o = append(o, kv{"bash", guarded(t, args...)})
			}
			return append(o, kv{"timeoutSec", seconds(a.Timeout)})
		}
	}
	owned := []string{"type", "bash", "powershell", "command", "exec", "args", "timeoutSec", "timeout", "linux", "osx", "windows"}
	return &Host{
		Name: a.Name, Agent: a.Host, adapter: a, timeout: a.Timeout, windows: true,
		MissingBinary:       "denied: the Copilot CLI (and VS Code's Copilot harness) deny on any non-zero exit of a preToolUse hook, and VS Code's Local harness denies on exit 2, which the shell's \"|| exit 2\" gives it",
		MissingBinaryBlocks: true,
		files: []*fileSpec{{
			// VS Code's Local harness converts this file; its Copilot
			// harness and the Copilot CLI read it natively.
			path: inDir(copilotDir, "hooks", "admit.json"), shape: shapeFlat,
			skeleton: obj{{"version", 1}}, events: []string{"preToolUse"},
			entry: entry(), owned: owned, command: execOrCommand("exec", "bash", "powershell", "command"),
		}, {
			// The Copilot CLI's permission requests; VS Code's Local
			// harness has no such event, so it gets a file of its own.
			path: inDir(copilotDir, "hooks", "admit-permission.json"), shape: shapeFlat,
			skeleton: obj{{"version", 1}}, events: []string{"permissionRequest"},
			entry: entry("--event", "permissionRequest"), owned: owned, command: execOrCommand("exec", "bash", "powershell", "command"),
		}},
		detect: detectSpec{dirs: []func(string, Env) string{copilotDir}, programs: []string{"copilot"}, extensions: []string{"github.copilot-chat", "github.copilot"}},
		off: func(sys System, home string, _ []File) string {
			p := inDir(copilotDir, "settings.json")(home, sys.Getenv)
			data, err := sys.ReadFile(p)
			if err != nil {
				return ""
			}
			return settingOff(File{Path: p, Data: data}, false, true, "disableAllHooks")
		},
		managed: func(goos string, files []*fileSpec) []*fileSpec {
			return placed(files, map[string][]string{
				"linux":   {"/etc/github-copilot/policy.d/admit.json", "/etc/github-copilot/policy.d/admit-permission.json"},
				"darwin":  {"/etc/github-copilot/policy.d/admit.json", "/etc/github-copilot/policy.d/admit-permission.json"},
				"windows": {`C:\ProgramData\GitHub\Copilot\policy.d\admit.json`, `C:\ProgramData\GitHub\Copilot\policy.d\admit-permission.json`},
			}[goos]...)
		},
		ManagedNote: "policy hooks, which load first, run whatever the folder's trust, and which disableAllHooks does not switch off (the files must be root's, not group- or world-writable)",
	}
}

func codexHost() *Host {
	a := adapter("codex")
	return &Host{
		Name: a.Name, Agent: a.Host, adapter: a, timeout: a.Timeout,
		MissingBinary:       "PreToolUse exits 2 with the shell's complaint on stderr (the \"|| exit 2\"), which Codex blocks on; PermissionRequest falls back to Codex's own approval prompt",
		MissingBinaryBlocks: true,
		Notes:               []string{"Codex runs a new or changed hook only once you trust it: open /hooks in Codex and trust admit's entries (until then admit connect --list says \"connected, not trusted: inert\")."},
		files: []*fileSpec{{
			path: inDir(codexDir, "hooks.json"), shape: shapeGroups, matcher: ".*",
			events: []string{"PreToolUse", "PermissionRequest"},
			entry: func(_ string, t target) obj {
				return obj{{"type", "command"}, {"command", hookLine(t, a)}, {"timeout", seconds(a.Timeout)}}
			},
			owned:   []string{"type", "command", "timeout", "timeout_sec", "timeoutSec", "async", "commandWindows", "command_windows"},
			command: commandKey("command"),
		}},
		detect: detectSpec{dirs: []func(string, Env) string{codexDir}, programs: []string{"codex"}, extensions: []string{"openai.chatgpt"}},
		inert: func(sys System, o Options, files []File) (string, string) {
			if why := codexInert(sys, o.Home, files); why != "" {
				return "not trusted", why
			}
			return "", ""
		},
		// requirements.toml's hooks are managed: trusted by policy, with
		// no /hooks step, and no user hook browser can disable them.
		managed: func(goos string, files []*fileSpec) []*fileSpec {
			out := placed(files, map[string][]string{
				"linux":  {"/etc/codex/requirements.toml"},
				"darwin": {"/etc/codex/requirements.toml"},
			}[goos]...)
			for _, f := range out {
				f.shape = shapeTOMLBlock
			}
			return out
		},
		ManagedNote: "requirements.toml's managed hooks, trusted by policy (set allow_managed_hooks_only = true there to run no other hook)",
	}
}

func cursorHost() *Host {
	a := adapter("cursor")
	return &Host{
		Name: a.Name, Agent: a.Host, adapter: a, timeout: a.Timeout,
		MissingBinary:       "denied: every entry sets failClosed, and the shell's \"|| exit 2\" gives the exit status Cursor blocks on",
		MissingBinaryBlocks: true,
		files: []*fileSpec{{
			path: under(".cursor", "hooks.json"), shape: shapeFlat, skeleton: obj{{"version", 1}},
			events: []string{"preToolUse", "beforeShellExecution", "beforeMCPExecution", "beforeReadFile"},
			entry: func(_ string, t target) obj {
				return obj{{"command", hookLine(t, a)}, {"timeout", seconds(a.Timeout)}, {"failClosed", true}}
			},
			owned:   []string{"command", "timeout", "failClosed", "type"},
			command: commandKey("command"),
		}},
		detect: detectSpec{dirs: []func(string, Env) string{under(".cursor")}, programs: []string{"cursor", "cursor-agent"}},
		managed: func(goos string, files []*fileSpec) []*fileSpec {
			return placed(files, map[string][]string{
				"linux":   {"/etc/cursor/hooks.json"},
				"darwin":  {"/Library/Application Support/Cursor/hooks.json"},
				"windows": {`C:\ProgramData\Cursor\hooks.json`},
			}[goos]...)
		},
		ManagedNote: "enterprise hooks, which outrank team, project and user hooks",
	}
}

func windsurfHost() *Host {
	a := adapter("windsurf")
	return &Host{
		Name: a.Name, Agent: a.Host, adapter: a,
		MissingBinary:       "blocked: the shell's \"|| exit 2\" gives the one exit status Windsurf blocks on, its complaint as the reason",
		MissingBinaryBlocks: true,
		files: []*fileSpec{{
			path: under(".codeium", "windsurf", "hooks.json"), shape: shapeFlat,
			events: []string{"pre_run_command", "pre_write_code", "pre_read_code", "pre_mcp_tool_use"},
			entry: func(_ string, t target) obj {
				// Windsurf documents no timeout to set: admit hook assumes
				// its default (hook.Adapter.Timeout).
				return obj{{"command", guarded(t, "hook", a.Name)}, {"show_output", true}}
			},
			owned:   []string{"command", "show_output"},
			command: commandKey("command"),
		}},
		detect: detectSpec{dirs: []func(string, Env) string{under(".codeium", "windsurf")}, programs: []string{"windsurf"}},
		managed: func(goos string, files []*fileSpec) []*fileSpec {
			return placed(files, map[string][]string{
				"linux":   {"/etc/windsurf/hooks.json"},
				"darwin":  {"/Library/Application Support/Windsurf/hooks.json"},
				"windows": {`C:\ProgramData\Windsurf\hooks.json`},
			}[goos]...)
		},
		ManagedNote: "system hooks, merged before the user's and the workspace's",
	}
}

func kiroHost() *Host {
	a := adapter("kiro")
	return &Host{
		Name: a.Name, Agent: a.Host, adapter: a, timeout: a.Timeout,
		MissingBinary:       "blocked: the shell's \"|| exit 2\" gives the exit status Kiro blocks on",
		MissingBinaryBlocks: true,
		// The hooks file of Kiro CLI v3 (kiro.dev/docs/cli/v3/hooks); Kiro
		// CLI 1.x and 2.x read hooks from agent configurations only.
		Notes: []string{"admit's file is in the hooks-file format of Kiro CLI v3 (.kiro/hooks/); that it is read from the home folder is not documented first-hand, and Kiro CLI 1.x/2.x read hooks only from an agent's configuration (~/.kiro/agents/NAME.json), where you add admit's entry by hand (docs/agents.md, Kiro). Check that a call is taped (admit tape) before relying on it."},
		files: []*fileSpec{{
			path: under(".kiro", "hooks", "admit.json"), shape: shapeList, skeleton: obj{{"version", "v1"}},
			events: []string{"PreToolUse"},
			entry: func(ev string, t target) obj {
				return obj{{"name", "admit"}, {"trigger", ev}, {"action", obj{{"type", "command"}, {"command", hookLine(t, a)}}}, {"timeout", seconds(a.Timeout)}}
			},
			owned: []string{"name", "trigger", "action", "timeout", "enabled", "matcher"},
			command: func(n *node) (invocation, bool) {
				if act := n.get("action"); act != nil {
					return commandKey("command")(act)
				}
				return invocation{}, false
			},
		}},
		detect: detectSpec{dirs: []func(string, Env) string{under(".kiro")}, programs: []string{"kiro", "kiro-cli"}, extensions: []string{"kiro.kiro"}},
	}
}

func clineHost() *Host {
	a := adapter("cline")
	return &Host{
		Name: a.Name, Agent: a.Host, adapter: a,
		MissingBinary:       "cancelled: the script prints Cline's own refusal ({\"cancel\":true}) when admit cannot run, which Cline honours whatever the exit status",
		MissingBinaryBlocks: true,
		Notes:               []string{`In Cline's VS Code extension, turn on "Enable Hooks" in its settings: it runs no hook without it (the Cline CLI needs no setting).`},
		files: []*fileSpec{{
			path: under("Documents", "Cline", "Hooks", "PreToolUse"), shape: shapeScript,
			events: []string{"PreToolUse"},
			script: func(t target) string {
				return "#!/bin/sh\n" + shellQuote(t.bin) + " hook " + a.Name + " || printf '%s\\n' '" + clineCancel + "'\n"
			},
		}},
		detect: detectSpec{dirs: []func(string, Env) string{under("Documents", "Cline")}, programs: []string{"cline"}, extensions: []string{"saoudrizwan.claude-dev"}},
	}
}

// clineCancel is what Cline's hook script prints when admit cannot run
// (the binary gone: the shell's 127; admit killed): Cline honours a
// printed cancel whatever the exit status, and runs the call when a hook
// prints nothing. It holds no quote, so it sits in single quotes as is.
const clineCancel = `{"cancel":true,"errorMessage":"admit could not run (the admit binary this hook names is missing or failed to start), so the call is refused. Reinstall admit, or run admit connect cline again."}`

// settingOff reads the setting at path (keys, nested) in f and, when it
// holds the boolean off, says so for the person.
func settingOff(f File, comments, off bool, path ...string) string {
	root, err := parseDoc(f.Data, comments)
	if err != nil {
		return ""
	}
	n := root
	for _, k := range path {
		if n = n.get(k); n == nil {
			return ""
		}
	}
	if equal(n, off) {
		return fmt.Sprintf("%s is %v in %s: the host runs no hook, admit's included, until it is removed", strings.Join(path, "."), off, f.Path)
	}
	return ""
}

// Hosts lists the hosts admit connects, in the order they are shown.
func Hosts() []*Host { return hosts }

// Lookup returns the host named name (an adapter's name).
func Lookup(name string) (*Host, bool) {
	for _, h := range hosts {
		if h.Name == name {
			return h, true
		}
	}
	return nil, false
}

// placed is files moved to paths (one each, in order), or nil when paths
// does not name one for each.
func placed(files []*fileSpec, paths ...string) []*fileSpec {
	if len(paths) != len(files) {
		return nil
	}
	out := make([]*fileSpec, len(files))
	for i, f := range files {
		c := *f
		p := paths[i]
		c.path = func(string, Env) string { return p }
		out[i] = &c
	}
	return out
}

// Managed is h writing into its own managed place on goos instead of the
// person's files, with root standing for the system's root folder (""
// is the real one; tests give a temporary folder), or nil when admit
// knows no such place for h there. A repository's settings do not
// switch the hooks of that place off, and they need no trust step.
func (h *Host) Managed(goos, root string) *Host {
	if h.managed == nil {
		return nil
	}
	files := h.managed(goos, h.files)
	if files == nil {
		return nil
	}
	m := *h
	m.files, m.off, m.inert, m.Notes = files, nil, nil, nil
	for _, f := range files {
		p := f.path("", nil)
		f.path = func(string, Env) string { return filepath.Join(root, p) }
	}
	return &m
}

// Paths are the files of h's configuration for home.
func (h *Host) Paths(home string, env Env) []string {
	paths := make([]string, len(h.files))
	for i, f := range h.files {
		paths[i] = f.path(home, env)
	}
	return paths
}

// Timeout is the host timeout admit's entries give the hook (and pass to
// admit hook as --host-timeout), or 0 where the configuration sets none.
func (h *Host) Timeout() time.Duration { return h.timeout }

// Events are the hook events admit's entries answer.
func (h *Host) Events() []string {
	var evs []string
	for _, f := range h.files {
		evs = append(evs, f.events...)
	}
	return evs
}

// File is one configuration file: where it is and what it holds.
type File struct {
	Path string
	Data []byte      // nil: the file does not exist
	Mode fs.FileMode // its permission bits (0 when it does not exist)
}

// Exists says whether the file exists.
func (f File) Exists() bool { return f.Data != nil }
