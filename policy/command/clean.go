package command

import "path"

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

// isClean reports whether path.Clean(p) is p: not empty, no empty, "."
// or ".." name (but for a relative path's leading ".."s, which it
// leaves to path.Clean), and no trailing "/" but on "/" itself.
func isClean(p string) bool {
	if p == "" || len(p) > 1 && p[len(p)-1] == '/' {
		return false
	}
	start := 0
	if p[0] == '/' {
		start = 1
	}
	for i := start; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' {
			continue
		}
		switch p[start:i] {
		case "", ".", "..":
			return p == "/"
		}
		start = i + 1
	}
	return true
}
