package command

import (
	"path"
	"strings"
)

// Place is one of the person's own files or folders outside the
// workspace: where admit's settings, rules, trust records and tape live,
// the editors' user settings and extensions, and the coding agents'
// user-level settings (where admit's own hook is registered). No tool
// call writes them: a change is refused with protected-path, never asked.
type Place struct {
	Path string // absolute
	What string // what lives there, for the reason
}

// PersonalPlaces lists the person's places for a home folder, with the
// XDG base folders read through getenv (nil: none set, the defaults
// under home). The gate passes the list to ProtectFor, through
// Context.Personal.
func PersonalPlaces(home string, getenv func(string) string) []Place {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	base := func(env, def string) string {
		if v := getenv(env); path.IsAbs(v) {
			return path.Clean(v)
		}
		return path.Join(home, def)
	}
	var ps []Place
	add := func(what string, paths ...string) {
		for _, p := range paths {
			if path.IsAbs(p) {
				ps = append(ps, Place{Path: path.Clean(p), What: what})
			}
		}
	}
	config, state, data := base("XDG_CONFIG_HOME", ".config"), base("XDG_STATE_HOME", ".local/state"), base("XDG_DATA_HOME", ".local/share")
	const admit = "admit's own settings, rules, trust records, tape and its seal"
	add(admit, path.Join(config, "admit"), path.Join(state, "admit"), path.Join(data, "admit"))
	if rt := getenv("XDG_RUNTIME_DIR"); path.IsAbs(rt) {
		add("admit's sockets", path.Join(rt, "admit"))
	}
	if home == "" || !path.IsAbs(home) {
		return ps
	}
	home = path.Clean(home)
	const editor = "the editor's user settings (which choose and configure the gate), keybindings, tasks and MCP servers"
	const exts = "the editor's extensions, the gate's own among them: code the editor runs"
	for _, app := range []string{"Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf", "Kiro", "Trae"} {
		add(editor, path.Join(config, app, "User"), path.Join(home, "Library/Application Support", app, "User"))
	}
	add(editor, path.Join(data, "code-server/User"), path.Join(data, "code-server/Machine"))
	for _, srv := range []string{".vscode-server", ".vscode-server-insiders", ".vscodium-server", ".cursor-server", ".windsurf-server"} {
		add(editor, path.Join(home, srv, "data/User"), path.Join(home, srv, "data/Machine"))
		add(exts, path.Join(home, srv, "extensions"))
	}
	add(exts, path.Join(home, ".vscode/extensions"), path.Join(home, ".vscode-insiders/extensions"),
		path.Join(home, ".vscode-oss/extensions"), path.Join(data, "code-server/extensions"))
	const agent = "a coding agent's user settings: where admit's hook is registered, and hooks, MCP servers and permissions that apply in every workspace"
	add(agent,
		path.Join(home, ".claude"), path.Join(home, ".claude.json"), path.Join(home, ".copilot"),
		path.Join(config, "github-copilot"), path.Join(home, ".codex"), path.Join(home, ".gemini"),
		path.Join(home, ".cursor"), path.Join(home, ".codeium"), path.Join(home, ".windsurf"),
		path.Join(home, ".cline"), path.Join(home, "Documents/Cline"), path.Join(home, ".kiro"),
		path.Join(home, ".aws/amazonq"), path.Join(home, ".continue"), path.Join(config, "opencode"),
		path.Join(config, "zed"), path.Join(home, ".roo"), path.Join(home, ".aider.conf.yml"),
		"/etc/github-copilot", "/etc/windsurf", "/etc/claude-code", "/etc/codex")
	return ps
}

// protectPersonal refuses p when it is one of the places, inside one, or a
// folder holding one. Names are compared as canonicalName spells them.
func protectPersonal(p string, places []Place) Protection {
	if len(places) == 0 {
		return Protection{}
	}
	cp := canonicalPath(p)
	for _, pl := range places {
		c := canonicalPath(pl.Path)
		switch {
		case cp == c || strings.HasPrefix(cp, c+"/"):
			return Protection{Protected: true, Why: pl.Path + " is the person's own: " + pl.What + "; no tool call changes it"}
		case strings.HasPrefix(c, cp+"/") || cp == "/":
			return Protection{Protected: true, Why: "it holds " + pl.Path + ", the person's own: " + pl.What + "; no tool call changes it"}
		}
	}
	return Protection{}
}

// canonicalPath is a clean absolute path with every name canonical.
func canonicalPath(p string) string {
	names := strings.Split(path.Clean(p), "/")
	for i, n := range names {
		names[i] = canonicalName(n)
	}
	return strings.Join(names, "/")
}
