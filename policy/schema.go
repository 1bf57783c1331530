package policy

import (
	"encoding/json"
	"strings"
	"sync"
)

// Paths under names admit does not know. A tool admit has no table for (an
// MCP server's, a policy file's addition) names its path arguments as it
// likes: repo_path, outputFile, workingDirectory. Three things find them:
// the tool's input schema, when the session was handed one (SchemaPathArgs);
// the last word of an argument's name (path, file, dir, ...); and, for a
// tool admit does not know, any string argument that reads as a path
// (readsAsPath), whatever its name. Unknown means judged.

// maxSchemaDepth bounds how deep SchemaPathArgs looks into a schema; a
// path property deeper than this is still caught by its value's form.
const maxSchemaDepth = 16

// maxPathLen is the longest string taken as a path (Linux's PATH_MAX):
// anything longer is content, which no path resolution would accept.
const maxPathLen = 4096

// knownTools are the tools of the built-in policy: admit knows their
// arguments, so only their path keys are paths (an Edit's old_string may
// well be "/usr/bin/env"). Built on first use: it takes the whole
// built-in policy, which a process that never judges a tool call does not
// need.
var knownTools = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, t := range DefaultFile().Allow {
		m[t] = true
	}
	return m
})

// contentKeys name arguments that carry text, never a path: a string of
// theirs is not judged by its form (a .gitignore's one line "/build" is
// content), though a schema may still say otherwise by format.
var contentKeys = map[string]bool{
	"content": true, "contents": true, "text": true, "body": true, "data": true,
	"message": true, "description": true, "title": true, "comment": true, "note": true,
	"oldstring": true, "newstring": true, "oldtext": true, "newtext": true, "oldstr": true,
	"newstr": true, "code": true, "patch": true, "diff": true, "query": true,
	"pattern": true, "regex": true, "prompt": true, "systemprompt": true, "replacement": true,
	"newsource": true, "summary": true,
}

// pathWords are the last words of argument names that name a file or
// folder (repo_path, outputFile, working-directory), and the leading
// words of a description that says its property is one ("Path to the
// repository", "Directory to list").
var pathWords = map[string]bool{
	"path": true, "paths": true, "filepath": true, "filepaths": true, "file": true, "files": true,
	"filename": true, "filenames": true, "dir": true, "dirs": true, "dirpath": true,
	"directory": true, "directories": true, "folder": true, "folders": true,
	"cwd": true, "workdir": true, "uri": true, "uris": true,
}

// pathFormats are the JSON Schema formats of a string that names a file:
// a URI (a file: one is a path here, another scheme is judged by the
// tool's name) or a path.
var pathFormats = map[string]bool{
	"uri": true, "uri-reference": true, "iri": true, "iri-reference": true,
	"path": true, "file-path": true, "filepath": true, "directory": true,
}

// lastWord is the last word of an argument name, lower-cased: words part
// at '_', '-', '.' and ' ', and where a lower-case letter or a digit meets
// an upper-case one (outputFile's last word is "file"; REPOPATH is one word).
func lastWord(k string) string {
	end := len(k)
	for end > 0 && isWordSep(k[end-1]) {
		end--
	}
	start := end
	for start > 0 && !isWordSep(k[start-1]) {
		c, prev := k[start-1], byte(0)
		if start > 1 {
			prev = k[start-2]
		}
		start--
		if c >= 'A' && c <= 'Z' && (prev >= 'a' && prev <= 'z' || prev >= '0' && prev <= '9') {
			break
		}
	}
	return strings.ToLower(k[start:end])
}

func isWordSep(c byte) bool { return c == '_' || c == '-' || c == '.' || c == ' ' }

// wordPathKey reports whether an argument's name ends in a word that
// names a file or folder. It holds for every tool: a name says what it
// holds whoever wrote the tool.
func wordPathKey(k string) bool { return pathWords[lastWord(k)] }

// readsAsPath reports whether a string argument reads as a path that may
// lead outside the workspace: absolute, under ~, climbing with "..", or a
// file: URI. A string of several lines, or longer than any path, is
// content; one with another URI scheme names no file of this machine.
func readsAsPath(s string) bool {
	t := strings.TrimSpace(s)
	if t == "" || len(t) > maxPathLen || strings.ContainsAny(t, "\n\r") {
		return false
	}
	if scheme, ok := uriScheme(t); ok {
		return strings.EqualFold(scheme, "file")
	}
	if t[0] == '/' || t[0] == '~' {
		return true
	}
	for _, c := range strings.FieldsFunc(t, func(r rune) bool { return r == '/' || r == '\\' }) {
		if c == ".." {
			return true
		}
	}
	return false
}

// foreignURI reports whether s is a URI of a scheme other than file:
// under a name that only may be a path (a schema's "format": "uri", a
// name ending in uri), such a value names a resource of the tool's own,
// judged by the tool's name.
func foreignURI(s string) bool {
	scheme, ok := uriScheme(strings.TrimSpace(s))
	return ok && !strings.EqualFold(scheme, "file")
}

// SchemaPathArgs reads a tool's input schema (JSON Schema, as MCP's
// tools/list and OpenAI's function parameters give it) and returns the
// names, normalized as pathKeys are, of the string properties at any depth
// that hold paths: by name (a path key, or a last word such as repo_path's),
// by format (uri, uri-reference, path), or by a description that starts by
// saying so ("Path to the repository", "The directory to list"). A schema
// that cannot be read yields none: the call's values are still judged by
// their form.
func SchemaPathArgs(schema json.RawMessage) map[string]bool {
	out := map[string]bool{}
	var s any
	if json.Unmarshal(schema, &s) != nil {
		return out
	}
	var walk func(node any, depth int)
	walk = func(node any, depth int) {
		m, ok := node.(map[string]any)
		if !ok || depth > maxSchemaDepth {
			return
		}
		if props, ok := m["properties"].(map[string]any); ok {
			for name, p := range props {
				if ps, ok := p.(map[string]any); ok && stringish(ps, 0) && pathProperty(name, ps) {
					out[normKey(name)] = true
				}
				walk(p, depth+1)
			}
		}
		walk(m["items"], depth+1)
		walk(m["additionalProperties"], depth+1)
		for _, k := range []string{"anyOf", "oneOf", "allOf"} {
			if list, ok := m[k].([]any); ok {
				for _, x := range list {
					walk(x, depth+1)
				}
			}
		}
	}
	walk(s, 0)
	return out
}

// stringish reports whether a property holds a string or a list of
// strings: its type says so, or says nothing.
func stringish(p map[string]any, depth int) bool {
	if depth > 4 {
		return false
	}
	switch t := p["type"].(type) {
	case string:
		if t == "array" {
			items, ok := p["items"].(map[string]any)
			return !ok || stringish(items, depth+1)
		}
		return t == "string"
	case []any:
		for _, x := range t {
			if x == "string" {
				return true
			}
		}
		return false
	case nil:
		for _, k := range []string{"anyOf", "oneOf"} {
			if list, ok := p[k].([]any); ok {
				for _, x := range list {
					if xm, ok := x.(map[string]any); ok && stringish(xm, depth+1) {
						return true
					}
				}
				return false
			}
		}
		_, obj := p["properties"]
		return !obj
	}
	return false
}

// pathProperty reports whether a string property names a file or folder.
func pathProperty(name string, p map[string]any) bool {
	n := normKey(name)
	if pathKeys[n] || pathListKeys[n] || wordPathKey(name) {
		return true
	}
	format, _ := p["format"].(string)
	if items, ok := p["items"].(map[string]any); ok && format == "" {
		format, _ = items["format"].(string)
	}
	if pathFormats[strings.ToLower(format)] {
		return true
	}
	if contentKeys[n] {
		return false
	}
	desc, _ := p["description"].(string)
	return describesPath(desc)
}

// describesPath reports whether a description starts by naming a file or
// folder: its first word past an article and a qualifier ("The absolute
// path ...", "Directory to list", "File to read"). Only the start counts:
// "Value to write at the given path" holds a value, not a path.
func describesPath(desc string) bool {
	words := strings.Fields(strings.ToLower(desc))
	for i, w := range words {
		if i > 3 {
			return false
		}
		w = strings.Trim(w, ".,:;()\"'`")
		switch w {
		case "the", "a", "an", "absolute", "relative", "full", "local", "optional", "target", "source", "input", "output":
			continue
		}
		return pathWords[w] && w != "uri" && w != "uris"
	}
	return false
}
