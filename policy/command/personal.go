package command

import (
	"bytes"
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
	// Family also protects every name in the same folder that is the
	// place's name, a dot and more: a tape's .head and .lock and its
	// rotated files (tape.jsonl.1, ...), which may be made later.
	Family bool
}

// PersonalPlaces lists the person's places for a home folder, with the
// XDG base folders read through getenv (nil: none set, the defaults
// under home). The gate makes them ready once (NewPersonal) and passes
// them to the policy in Context.Personal.
func PersonalPlaces(home string, getenv func(string) string) []Place {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	base := func(env, def string) string {
		if v := getenv(env); path.IsAbs(v) {
			return cleanPath(v)
		}
		return path.Join(home, def)
	}
	var ps []Place
	add := func(what string, paths ...string) {
		for _, p := range paths {
			if path.IsAbs(p) {
				ps = append(ps, Place{Path: cleanPath(p), What: what})
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
	home = cleanPath(home)
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

// Personal is a list of the person's places made ready for ProtectFor:
// each place and each folder above one, by canonical path. Make it once
// (NewPersonal) and share it; it is never changed.
type Personal struct {
	places   []Place
	at       map[string]int // a place's canonical path: its index
	above    map[string]int // a folder holding a place: the index of one it holds
	families []family       // the places whose Family is set
}

// family is a Family place's folder and name, canonical.
type family struct {
	dir, base string
	i         int
}

func families(places []Place) []family {
	var out []family
	for i, pl := range places {
		if pl.Family {
			c := canonicalPath(pl.Path)
			dir, base := path.Split(c)
			out = append(out, family{dir: dir, base: base, i: i})
		}
	}
	return out
}

// family finds the Family place whose folder holds cp (canonical) under a
// name of the place's family, or -1.
func (ps *Personal) family(cp []byte) int {
	for _, f := range ps.families {
		if f.base == "" || len(cp) < len(f.dir) || string(cp[:len(f.dir)]) != f.dir {
			continue
		}
		name := cp[len(f.dir):]
		if i := bytes.IndexByte(name, '/'); i >= 0 {
			name = name[:i]
		}
		if string(name) == f.base || len(name) > len(f.base) && name[len(f.base)] == '.' && string(name[:len(f.base)]) == f.base {
			return f.i
		}
	}
	return -1
}

// NewPersonal prepares places for ProtectFor.
func NewPersonal(places []Place) *Personal {
	ps := &Personal{places: places, at: map[string]int{}, above: map[string]int{}, families: families(places)}
	for i, pl := range places {
		c := canonicalPath(pl.Path)
		if _, dup := ps.at[c]; !dup {
			ps.at[c] = i
		}
		for j := 0; j < len(c); j++ {
			if c[j] == '/' {
				up := c[:max(j, 1)]
				if _, dup := ps.above[up]; !dup {
					ps.above[up] = i
				}
			}
		}
	}
	return ps
}

// ScanPersonal is NewPersonal for a list used once or twice: the places
// are compared one by one instead of indexed, which costs less than
// making the index.
func ScanPersonal(places []Place) *Personal {
	clean := make([]Place, len(places))
	for i, pl := range places {
		clean[i] = Place{Path: cleanPath(pl.Path), What: pl.What, Family: pl.Family}
	}
	return &Personal{places: clean, families: families(clean)}
}

// Places are the places ps was made from.
func (ps *Personal) Places() []Place { return ps.places }

// protect refuses p (absolute, clean) when it is one of the places,
// inside one, or a folder holding one, comparing names as canonicalName
// spells them.
func (ps *Personal) protect(p string) Protection {
	if ps == nil || len(ps.places) == 0 {
		return Protection{}
	}
	if len(ps.families) == 0 && ps.at == nil {
		return ps.scan(p)
	}
	// Spelled once, on the stack: both lookups below compare it, and a
	// map indexed by string(cp) copies nothing.
	var buf [256]byte
	cp := appendCanonical(buf[:0], p) // p is clean: ProtectFor cleaned it
	if len(ps.families) > 0 {
		if i := ps.family(cp); i >= 0 {
			pl := ps.places[i]
			return Protection{Protected: true, Why: p + " is the person's own (beside " + pl.Path + "): " + pl.What + "; no tool call changes it"}
		}
	}
	if ps.at == nil {
		return ps.scan(p)
	}
	for j := 1; j <= len(cp); j++ {
		if j < len(cp) && cp[j] != '/' {
			continue
		}
		if i, ok := ps.at[string(cp[:j])]; ok {
			pl := ps.places[i]
			return Protection{Protected: true, Why: pl.Path + " is the person's own: " + pl.What + "; no tool call changes it"}
		}
	}
	if i, ok := ps.above[string(cp)]; ok {
		pl := ps.places[i]
		return Protection{Protected: true, Why: "it holds " + pl.Path + ", the person's own: " + pl.What + "; no tool call changes it"}
	}
	return Protection{}
}

// scan is protect without the maps: each place compared in turn, which is
// cheaper than making the maps for one line (the fallback of
// Context.personal).
func (ps *Personal) scan(p string) Protection {
	cp := strings.Split(p, "/")
	for i, n := range cp {
		cp[i] = canonicalName(n)
	}
	for _, pl := range ps.places {
		switch under, holds := relate(cp, pl.Path); {
		case under:
			return Protection{Protected: true, Why: pl.Path + " is the person's own: " + pl.What + "; no tool call changes it"}
		case holds:
			return Protection{Protected: true, Why: "it holds " + pl.Path + ", the person's own: " + pl.What + "; no tool call changes it"}
		}
	}
	return Protection{}
}

// relate says whether the path whose canonical names are cp is place or
// under it, or a folder that holds it.
func relate(cp []string, place string) (under, holds bool) {
	i := 0
	for rest := place; ; i++ {
		name, more, cut := strings.Cut(rest, "/")
		if i == len(cp) {
			return false, true // place goes on below the path
		}
		if !sameName(name, cp[i]) {
			return false, false
		}
		if !cut {
			return true, false
		}
		rest = more
	}
}

// sameName is canonicalName(raw) == canon, without a copy when raw is
// plain ASCII.
func sameName(raw, canon string) bool {
	plain := raw != "" && raw[len(raw)-1] != '.' && raw[len(raw)-1] != ' '
	for i := 0; plain && i < len(raw); i++ {
		plain = raw[i] < 0x80 && raw[i] != ':'
	}
	if !plain {
		return canonicalName(raw) == canon
	}
	if len(raw) != len(canon) {
		return false
	}
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != canon[i] {
			return false
		}
	}
	return true
}

// appendCanonical appends canonicalPath(p) to dst; p is clean.
func appendCanonical(dst []byte, p string) []byte {
	if !plainNames(p) {
		return append(dst, canonicalPath(p)...)
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// canonicalPath is a clean absolute path with every name canonical.
func canonicalPath(p string) string {
	p = cleanPath(p)
	if plainNames(p) {
		// Each name's canonical spelling is its ASCII lower case, which
		// folding the whole path gives without splitting it.
		return foldName(p)
	}
	names := strings.Split(p, "/")
	for i, n := range names {
		names[i] = canonicalName(n)
	}
	return strings.Join(names, "/")
}

// plainNames reports whether every name of the clean path p is canonical
// once lower-cased: ASCII (no code point HFS+ ignores), no ':' (an NTFS
// stream), and none ending in '.' or ' ' (which Windows drops).
func plainNames(p string) bool {
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c >= 0x80 || c == ':':
			return false
		case (c == '.' || c == ' ') && (i+1 == len(p) || p[i+1] == '/'):
			return false
		}
	}
	return true
}
