package connect

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Gemini CLI loads no hooks from settings at all, the person's own
// included, in a folder it does not trust (google-gemini/gemini-cli
// packages/core/src/hooks/hookRegistry.ts: "Project hooks disabled because
// the folder is not trusted"), and a trusted workspace's
// .gemini/settings.json can switch them off (hooksConfig.enabled: false)
// or name admit's among the disabled ones (hooksConfig.disabled, matched
// against a hook's name or command; settingsSchema.ts, hookRegistry.ts).
// Folder trust (packages/cli/src/config/trustedFolders.ts) is on unless
// security.folderTrust.enabled is false; a folder is judged by the
// longest rule of ~/.gemini/trustedFolders.json (or
// $GEMINI_CLI_TRUSTED_FOLDERS_PATH) that holds it: TRUST_FOLDER the path
// and below, TRUST_PARENT its parent folder and below, DO_NOT_TRUST.

// geminiInert says why Gemini CLI will not run admit's hook in the
// workspaces of o (a few words, and in full), or "" when it will in each.
func geminiInert(sys System, o Options, files []File) (string, string) {
	trustOn := true
	if user, err := parseDoc(files[0].Data, true); err == nil && equalAt(user, false, "security", "folderTrust", "enabled") {
		trustOn = false // every folder is trusted
	}
	rules := geminiTrustRules(sys, o.Home)
	var label string
	var why []string
	for _, ws := range o.Place.Workspaces {
		if trustOn {
			switch trust, rule := geminiTrust(sys, rules, ws); trust {
			case "DO_NOT_TRUST":
				label = "untrusted folder"
				why = append(why, fmt.Sprintf("%s is not trusted (%s in %s): Gemini CLI runs no hooks there, admit's included; trust the folder in Gemini CLI (/permissions) to have its calls gated", ws, rule, geminiTrustPath(sys, o.Home)))
				continue
			case "":
				label = "folder not trusted yet"
				why = append(why, fmt.Sprintf("%s is in no trusted folder of %s: an interactive Gemini CLI asks whether to trust it and, until it is trusted, runs no hooks there, admit's included", ws, geminiTrustPath(sys, o.Home)))
				continue
			}
		}
		p := filepath.Join(ws, ".gemini", "settings.json")
		data, err := sys.ReadFile(p)
		if err != nil {
			continue
		}
		doc, err := parseDoc(data, true)
		if err != nil {
			continue
		}
		if equalAt(doc, false, "hooksConfig", "enabled") {
			label = "hooks off in the workspace"
			why = append(why, fmt.Sprintf("%s sets hooksConfig.enabled to false: Gemini CLI runs no hooks in %s, admit's included", p, ws))
			continue
		}
		if d := at(doc, "hooksConfig", "disabled"); d != nil && d.kind == '[' {
			for _, e := range d.elems {
				if e.kind == '"' && (e.str == "admit" || strings.Contains(e.str, " hook gemini-cli")) {
					label = "hooks off in the workspace"
					why = append(why, fmt.Sprintf("%s lists %q in hooksConfig.disabled: Gemini CLI skips admit's hook in %s", p, e.str, ws))
					break
				}
			}
		}
	}
	if len(why) == 0 {
		return "", ""
	}
	return label, strings.Join(why, "; ")
}

// at is the value at path (keys, nested) in n, or nil.
func at(n *node, path ...string) *node {
	for _, k := range path {
		if n = n.get(k); n == nil {
			return nil
		}
	}
	return n
}

// equalAt says whether the value at path in n is v.
func equalAt(n *node, v any, path ...string) bool {
	m := at(n, path...)
	return m != nil && equal(m, v)
}

func geminiTrustPath(sys System, home string) string {
	if p := sys.Getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH"); filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(home, ".gemini", "trustedFolders.json")
}

// geminiTrustRules reads trustedFolders.json: folder to trust level.
func geminiTrustRules(sys System, home string) map[string]string {
	rules := map[string]string{}
	data, err := sys.ReadFile(geminiTrustPath(sys, home))
	if err != nil {
		return rules
	}
	doc, err := parseDoc(data, true)
	if err != nil || doc.kind != '{' {
		return rules
	}
	for _, m := range doc.members {
		if m.val.kind == '"' {
			rules[m.key] = m.val.str
		}
	}
	return rules
}

// geminiTrust is the trust level of folder ws, as Gemini CLI's
// isPathTrusted finds it (the longest rule that holds it; symlinks
// resolved on both sides), and the rule; "" when no rule holds it.
func geminiTrust(sys System, rules map[string]string, ws string) (string, string) {
	real := func(p string) string {
		if r, err := sys.EvalSymlinks(p); err == nil {
			return r
		}
		return p
	}
	loc := real(ws)
	best, level, rule := -1, "", ""
	for path, lvl := range rules {
		eff := path
		if lvl == "TRUST_PARENT" {
			eff = filepath.Dir(path)
		}
		if !within(sys, loc, real(eff)) {
			continue
		}
		switch lvl {
		case "TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST":
		default:
			continue
		}
		if len(path) > best || len(path) == best && path < rule {
			best, level, rule = len(path), lvl, fmt.Sprintf("%q: %q", path, lvl)
		}
	}
	return level, rule
}
