package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// nobodyAtPrompt says whether the host that started this hook runs with
// nobody at its prompt, so that a question handed to it would not be put
// to anyone. Only Gemini CLI needs it: in its non-interactive mode
// (gemini -p, or stdin not a terminal) an ask ends the whole run with no
// result and exit 0, where the model could have read a refusal. It walks
// up the processes that started the hook (the host's shell, then the
// host) to Gemini CLI's own and reads its arguments and its stdin, as
// Gemini CLI itself decides (an interactive prompt needs a terminal on
// stdin; -p and --prompt are one-shot unless -i asks for a session).
// Anything it cannot read counts as someone at the prompt.
func nobodyAtPrompt(host string) bool {
	if host != "gemini-cli" {
		return false
	}
	pid := os.Getppid()
	for range 6 {
		if pid <= 1 {
			return false
		}
		proc := filepath.Join("/proc", strconv.Itoa(pid))
		cmdline, err := os.ReadFile(filepath.Join(proc, "cmdline"))
		if err != nil {
			return false
		}
		args := strings.Split(string(bytes.TrimRight(cmdline, "\x00")), "\x00")
		if isGemini(args) {
			return geminiOneShot(args, proc)
		}
		pid = parentPID(proc)
	}
	return false
}

// isGemini says whether a process runs Gemini CLI: the gemini launcher
// (node .../bin/gemini, .../gemini-cli/bundle/gemini.js) or a binary of
// that name.
func isGemini(args []string) bool {
	for i, a := range args {
		if i > 1 {
			break
		}
		base := filepath.Base(a)
		if base == "gemini" || base == "gemini.js" && strings.Contains(a, "gemini-cli") {
			return true
		}
	}
	return false
}

// geminiOneShot reads a Gemini CLI process: its flags and whether its
// stdin is a terminal.
func geminiOneShot(args []string, proc string) bool {
	prompt, interactive := false, false
	for _, a := range args[1:] {
		switch {
		case a == "-i" || a == "--prompt-interactive" || strings.HasPrefix(a, "--prompt-interactive="):
			interactive = true
		case a == "-p" || a == "--prompt" || strings.HasPrefix(a, "--prompt="):
			prompt = true
		}
	}
	if interactive {
		return false
	}
	if prompt {
		return true
	}
	tty, err := os.Readlink(filepath.Join(proc, "fd", "0"))
	return err == nil && !strings.HasPrefix(tty, "/dev/pts/") && !strings.HasPrefix(tty, "/dev/tty")
}

// parentPID is the PPid line of /proc/PID/status, or 0.
func parentPID(proc string) int {
	data, err := os.ReadFile(filepath.Join(proc, "status"))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "PPid:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}
