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
	case p == "" || p == "." || p == ".." || p[len(p)-1] == '/':
		return false
	case strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../"):
		return false
	case strings.HasSuffix(p, "/.") || strings.HasSuffix(p, "/.."):
		return false
	}
	return !strings.Contains(p, "//") && !strings.Contains(p, "/./") && !strings.Contains(p, "/../")
}
