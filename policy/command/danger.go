package command

import (
	"fmt"
	"path"
	"strings"

	"admit/policy/rule"
)

// The dangers refused as classes, whatever a prompt would answer: a
// secret or the workspace sent off the machine (exfil.go), something set
// to run later outside the workspace (persistence), signals to processes
// the session did not start (signals.go), publishing, and privilege
// changes. Each is judged by what the command does, not by its name
// alone: crontab -l, systemctl status and chmod +x pass. A rule of the
// person's own that names the command exactly (no pattern, no trailing
// *) allows it (dangerRefuse); no answer to a prompt does, since none is
// asked.

// dangerRefuse refuses argv with r, unless an allow rule of the person's
// names argv exactly.
func (j *judge) dangerRefuse(r rule.Rule, argv []string, reason, hint string) {
	written := withoutRuntimeNames(argv)
	if j.c.Rules != nil {
		if m, ok := j.c.Rules.Named(written); ok {
			j.acc.answered(m.Match)
			return
		}
	}
	j.refuse(r, reason+"; this is refused unless the person's own rules allow this exact command", hint)
}

// danger judges argv when it is a command of a danger class; it reports
// whether it judged it (refused, or decided otherwise).
func (j *judge) danger(argv []string) bool {
	name := argv[0] // never "" (program), so its own base when it has no "/"
	if strings.IndexByte(name, '/') >= 0 {
		name = path.Base(name)
	}
	args := argv[1:]
	switch name {
	case "pkill", "killall", "killall5", "skill", "snice", "xkill", "slay":
		j.dangerRefuse(rule.ForeignSignal, argv, fmt.Sprintf("%s signals every process that matches, whoever started it", name),
			"kill the pid a probe of the same line finds (kill $(lsof -ti:3000)), or ask the user to stop the process")
		return true
	case "kill":
		j.kill(argv)
		return true
	case "crontab":
		if len(args) == 1 && args[0] == "-l" {
			return true // prints the person's crontab: a probe
		}
		j.dangerRefuse(rule.Persistence, argv, "crontab changes what runs on a schedule, outside the workspace", "tell the user what to schedule; they set it up themselves")
		return true
	case "at", "batch", "systemd-run", "launchd":
		j.dangerRefuse(rule.Persistence, argv, fmt.Sprintf("%s schedules a command to run outside the session", name), "run the command now, in the foreground")
		return true
	case "systemctl":
		return j.serviceManager(argv, systemctlVerbs)
	case "launchctl":
		return j.serviceManager(argv, launchctlVerbs)
	case "loginctl":
		if firstWord(args) == "enable-linger" {
			j.dangerRefuse(rule.Persistence, argv, "loginctl enable-linger keeps the person's services running after they log out", "")
			return true
		}
	case "setcap", "chown", "chgrp", "chattr":
		j.dangerRefuse(rule.PrivilegeChange, argv, fmt.Sprintf("%s changes who owns a file or what it may do beyond its permissions", name),
			"leave ownership and capabilities as they are; ask the user to change them")
		return true
	case "chmod":
		if mode := firstWord(args); setsID(mode) {
			j.dangerRefuse(rule.PrivilegeChange, argv, fmt.Sprintf("chmod %s makes a program run with its owner's or group's rights (setuid, setgid)", mode),
				"use chmod +x or u+x, without s")
			return true
		}
	case "code", "code-insiders", "codium", "cursor", "windsurf", "code-server", "positron", "kiro":
		for _, a := range args {
			if a == "--" {
				break
			}
			if o, _, _ := strings.Cut(a, "="); o == "--install-extension" || o == "--uninstall-extension" {
				j.dangerRefuse(rule.Persistence, argv, fmt.Sprintf("%s %s changes the editor's extensions: code the editor runs in every workspace", name, o),
					"tell the user which extension to install; they install it themselves")
				return true
			}
		}
	case "gh":
		return j.ghPublishes(argv)
	}
	return j.exfiltration(argv, name)
}

// Verbs of the service managers: what changes what runs later
// (persistence), what starts, stops or signals a service that the session
// did not start (foreign-signal), and what only reads.
var (
	systemctlVerbs = serviceVerbs{
		persist: "enable disable reenable link edit mask unmask preset preset-all add-wants add-requires set-property revert daemon-reload daemon-reexec set-environment unset-environment import-environment set-default",
		signal:  "start stop restart reload try-restart reload-or-restart try-reload-or-restart isolate kill clean freeze thaw poweroff reboot halt suspend hibernate hybrid-sleep kexec exit rescue emergency default",
		read:    "status show cat list-units list-unit-files list-sockets list-timers list-jobs list-dependencies list-machines is-active is-enabled is-failed is-system-running show-environment get-default help",
	}
	launchctlVerbs = serviceVerbs{
		persist: "load bootstrap enable submit setenv unsetenv config asuser",
		signal:  "unload bootout disable kickstart kill stop start remove reboot",
		read:    "list print print-disabled blame help version getenv managerpid",
	}
)

type serviceVerbs struct{ persist, signal, read string }

// serviceManager judges systemctl or launchctl by its verb; one it does
// not know is left to the tables (asked).
func (j *judge) serviceManager(argv []string, v serviceVerbs) bool {
	verb := firstWord(argv[1:])
	switch {
	case verb == "":
		if len(argv) == 1 {
			return false
		}
		return false
	case hasField(v.persist, verb):
		j.dangerRefuse(rule.Persistence, argv, fmt.Sprintf("%s %s changes what the service manager runs later, outside the workspace", argv[0], verb), "tell the user what to set up")
	case hasField(v.signal, verb):
		j.dangerRefuse(rule.ForeignSignal, argv, fmt.Sprintf("%s %s starts, stops or signals a service the session did not start", argv[0], verb), "ask the user to manage the service")
	case verb == "show-environment":
		j.dangerRefuse(rule.SecretEnv, argv, fmt.Sprintf("%s show-environment prints the whole environment of the service manager, which may hold the person's secrets", argv[0]),
			"print only the variables the task needs (printenv NAME)")
	case verb == "getenv" && len(argv) > 2:
		for _, n := range argv[2:] {
			if why := j.c.secretVar(n); why != "" {
				j.dangerRefuse(rule.SecretEnv, argv, fmt.Sprintf("%s getenv %s prints a variable %s", argv[0], n, why), "ask the user for what the task needs instead of printing it")
				return true
			}
		}
		return true // a probe
	case hasField(v.read, verb):
		return true // a probe
	default:
		return false
	}
	return true
}

// firstWord is the first word of args that is not an option.
func firstWord(args []string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

// setsID reports a chmod mode that sets the setuid or setgid bit: a
// symbolic mode that adds or sets s (u+s, g=s, +s), or an octal one of
// four digits whose first holds 4 or 2.
func setsID(mode string) bool {
	if mode == "" {
		return false
	}
	if strings.Trim(mode, "01234567") == "" {
		return len(mode) >= 4 && (mode[len(mode)-4]-'0')&6 != 0
	}
	for _, clause := range strings.Split(mode, ",") {
		i := strings.IndexAny(clause, "+=")
		if i >= 0 && strings.ContainsRune(clause[i:], 's') {
			return true
		}
	}
	return false
}

// ghPublishes refuses what gh makes public: a public repository (gh repo
// create --public, gh repo edit --visibility public) and a public gist,
// and a gist of a secret as the secret sent off the machine. The rest is
// left to the toolchain table.
func (j *judge) ghPublishes(argv []string) bool {
	words := nonOptions(argv[1:])
	if len(words) < 2 {
		return false
	}
	public := false
	for i, a := range argv {
		if a == "--public" || a == "--visibility=public" || a == "--visibility" && i+1 < len(argv) && argv[i+1] == "public" || a == "-p" && words[0] == "gist" {
			public = true
		}
	}
	switch {
	case words[0] == "repo" && (words[1] == "create" || words[1] == "edit" || words[1] == "fork") && public:
		j.dangerRefuse(rule.Publishes, argv, "gh "+words[0]+" "+words[1]+" makes a repository public", "make it private, or ask the user to publish it")
		return true
	case words[0] == "gist" && words[1] == "create":
		for _, w := range words[2:] {
			if j.payload(argv, "gh", w) {
				return true
			}
		}
		if public {
			j.dangerRefuse(rule.Publishes, argv, "gh gist create --public publishes the files", "ask the user to publish them")
			return true
		}
	}
	return false
}

// nonOptions are the words of args that are not options (the value of
// an option given apart is counted as a word: gh's are few).
func nonOptions(args []string) []string {
	var out []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			out = append(out, a)
		}
	}
	return out
}
