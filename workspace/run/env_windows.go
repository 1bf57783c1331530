package run

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// defaultPath is used when the base environment has no usable PATH: the
// system's own folders.
func defaultPath() []string {
	root := os.Getenv("SystemRoot")
	if !filepath.IsAbs(root) {
		root = `C:\Windows`
	}
	return []string{filepath.Join(root, "System32"), root}
}

// canonVar is a variable's name as ScrubEnv compares and keeps it:
// upper-case, as Windows does not tell "Path" from "PATH".
func canonVar(name string) string { return strings.ToUpper(name) }

// osVar are the variables a Windows program cannot do without: where the
// system, the person's profile and the program files are, the
// executable extensions, the temporary folder, the processor. Not
// COMSPEC (the shell) or PSModulePath.
func osVar(name string) bool {
	switch name {
	case "SYSTEMROOT", "WINDIR", "SYSTEMDRIVE", "PATHEXT", "TEMP", "TMP", "USERPROFILE", "APPDATA",
		"LOCALAPPDATA", "PROGRAMDATA", "PROGRAMFILES", "PROGRAMFILES(X86)", "PROGRAMW6432",
		"COMMONPROGRAMFILES", "COMMONPROGRAMFILES(X86)", "COMPUTERNAME", "USERNAME", "USERDOMAIN",
		"HOMEDRIVE", "HOMEPATH", "NUMBER_OF_PROCESSORS", "PROCESSOR_ARCHITECTURE", "OS":
		return true
	}
	return false
}

// plainName reports a program name without a folder or drive in it.
func plainName(name string) bool { return name != "" && !strings.ContainsAny(name, `/\:`) }

// programExts are the extensions of programs Windows starts itself.
// .bat and .cmd are not among them: cmd.exe, a shell, runs them.
var programExts = []string{".exe", ".com"}

// programCandidates are the files a plain name may be in dir: the name
// as given when it ends in a program's extension, else with each.
func programCandidates(dir, name string) []string {
	for _, ext := range programExts {
		if strings.EqualFold(filepath.Ext(name), ext) {
			return []string{filepath.Join(dir, name)}
		}
	}
	var out []string
	for _, ext := range programExts {
		out = append(out, filepath.Join(dir, name+ext))
	}
	return out
}

// executable reports a file Windows starts as a program: by its
// extension (Windows has no execute bit).
func executable(path string, _ fs.FileMode) bool {
	for _, ext := range programExts {
		if strings.EqualFold(filepath.Ext(path), ext) {
			return true
		}
	}
	return false
}

// programName is the name a program's file says it is ("git" for
// git.exe), lower-case, as the shells and git checks compare it.
func programName(path string) string {
	base := strings.ToLower(filepath.Base(path))
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// windowsShells are Windows' own shells and script hosts.
var windowsShells = map[string]bool{
	"cmd": true, "powershell": true, "pwsh": true, "wsl": true, "wscript": true, "cscript": true,
	"mshta": true, "bash": true, "sh": true,
}

// isShell reports a program that interprets its arguments as code.
func isShell(name string) bool {
	name = strings.ToLower(name)
	return shells[name] || windowsShells[name]
}
