package command

import (
	"path"
	"strings"
)

// cleanPath is path.Clean(p). Most paths the policy cleans are clean
// already (resolved paths, roots, the working folder joined with a plain
// name), and telling so is a fraction of path.Clean's rewriting walk,
// which was a fifth of a write's decision.
func cleanPath(p string) string {
	if isClean(p) {
		return p
	}
	return path.Clean(p)
}

// parentOf is path.Dir(p), without cleaning a clean p again.
func parentOf(p string) string {
	if !isClean(p) {
		return path.Dir(p)
	}
	switch i := strings.LastIndexByte(p, '/'); {
	case i < 0:
		return "."
	case i == 0:
		return "/"
	default:
		return p[:i]
	}
}

// isClean reports whether path.Clean(p) is p, conservatively: false for
// an empty path, a trailing "/" (but on "/" itself), an empty, "." or
// ".." name (a relative path's leading ".."s, which path.Clean keeps, are
// left to it too).
func isClean(p string) bool {
	switch {
	case p == "/":
		return true
	case p == "" || p[len(p)-1] == '/':
		return false
	case p[0] != '/' && dotted(p):
		return false
	}
	// One hop per "/", each looking at the name after it (three scans of
	// the path for "//", "/./" and "/../" were 4% of a read's decision).
	for i := 0; ; {
		j := strings.IndexByte(p[i:], '/')
		if j < 0 {
			return true
		}
		i += j + 1
		if rest := p[i:]; rest[0] == '/' || dotted(rest) {
			return false
		}
	}
}

// dotted reports whether rest (not empty) starts with a "." or ".."
// name.
func dotted(rest string) bool {
	if rest[0] != '.' {
		return false
	}
	if len(rest) == 1 || rest[1] == '/' {
		return true
	}
	return rest[1] == '.' && (len(rest) == 2 || rest[2] == '/')
}
