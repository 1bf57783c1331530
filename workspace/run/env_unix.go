//go:build unix

package run

import (
	"io/fs"
	"strings"
)

// defaultPath is used when the base environment has no usable PATH.
func defaultPath() []string { return []string{"/usr/local/bin", "/usr/bin", "/bin"} }

// canonVar is a variable's name as ScrubEnv compares and keeps it: as
// written, on Unix.
func canonVar(name string) string { return name }

// osVar lists no variable beyond the common allowlist on Unix.
func osVar(string) bool { return false }

// plainName reports a program name without a folder in it.
func plainName(name string) bool { return name != "" && !strings.Contains(name, "/") }

// programCandidates are the files a plain name may be in dir.
func programCandidates(dir, name string) []string { return []string{dir + "/" + name} }

// executable reports a regular file someone may execute.
func executable(_ string, mode fs.FileMode) bool { return mode&0o111 != 0 }

// programName is the name a program's file says it is ("git"), as the
// shells and git checks compare it.
func programName(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		return path[i+1:]
	}
	return path
}

// isShell reports a program that interprets its arguments as shell code.
func isShell(name string) bool { return shells[name] }
