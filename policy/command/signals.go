package command

import (
	"fmt"
	"strings"

	"admit/policy/rule"
	"admit/policy/shell"
)

// Signals: kill is judged by whose processes it names. The pids a probe
// of the same line prints (kill -9 $(lsof -ti:3000), $(pgrep -f vite)),
// and a job of the line itself (%1), are asked: the person sees what the
// probe finds. A pid written on the line is a process the session did not
// start, as far as the gate can tell, and is refused (foreign-signal);
// kill -l only lists the signals.

// pidProbes are the probes whose output is pids, and the option that
// makes them print pids alone (none: they always do).
var pidProbes = map[string]string{"lsof": "-t", "pgrep": "", "pidof": "", "fuser": ""}

// kill judges kill with literal words.
func (j *judge) kill(argv []string) {
	targets, ok := killTargets(argv)
	if !ok {
		return // kill -l, -L: lists the signals
	}
	if len(targets) == 0 {
		j.refuse(rule.NoTarget, "kill names no process", "")
		return
	}
	for _, t := range targets {
		if !strings.HasPrefix(t, "%") {
			j.dangerRefuse(rule.ForeignSignal, argv, fmt.Sprintf("kill %s signals a process the session did not start, as far as the gate can tell", t),
				"kill the pid a probe of the same line finds (kill $(lsof -ti:3000)), a job of the line (%1), or ask the user to stop it")
			return
		}
	}
	j.acc.asks(rule.Signal, fmt.Sprintf("%s signals a job the line itself started, so a person decides", showArgv(argv)), "")
}

// killTargets are the operands of kill (pids, job specs), after its
// signal options; ok is false for kill -l and -L, which signal nothing.
func killTargets(argv []string) (targets []string, ok bool) {
	args := argv[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-l" || a == "-L" || a == "--list" || a == "--table":
			return nil, false
		case a == "-s" || a == "-n" || a == "--signal":
			i++
		case a == "--":
			return append(targets, args[i+1:]...), true
		case strings.HasPrefix(a, "-") && len(a) > 1 && len(targets) == 0:
			// -9, -KILL, -SIGTERM: a pid group (-1) only after --
		default:
			targets = append(targets, a)
		}
	}
	return targets, true
}

// killPids judges kill whose operands include the pids a probe prints:
// the probe must be one that prints pids and be allowed on its own
// without a person; the other operands must be signals or jobs of the
// line. Then a person decides.
func (j *judge) killPids(cmd *shell.Command) {
	argv := cmd.Argv
	for _, s := range cmd.Pids {
		probe := s.Argv
		opt, ok := pidProbes[probe[0]]
		if !ok || opt != "" && !printsPidsOnly(probe, opt) {
			j.refuse(rule.DynamicWord, fmt.Sprintf("kill takes pids from %s, which is not a probe that prints pids (lsof -t, pgrep, pidof)", argv[s.Index]),
				"find the pid with lsof -ti:PORT or pgrep, and kill $(...) of that")
			return
		}
		asked := j.acc.ask || j.acc.code
		j.redirs = nil
		j.program(probe, 0)
		if j.acc.refused {
			return
		}
		if !asked && (j.acc.ask || j.acc.code) {
			j.refuse(rule.DynamicWord, fmt.Sprintf("the probe %s needs a person on its own; kill takes pids only from a probe the gate allows", argv[s.Index]), "")
			return
		}
	}
	rest := make([]string, 0, len(argv))
	for i, w := range argv {
		if !isPidSubst(cmd.Pids, i) {
			rest = append(rest, w)
		}
	}
	targets, _ := killTargets(rest)
	for _, t := range targets {
		if !strings.HasPrefix(t, "%") {
			j.dangerRefuse(rule.ForeignSignal, rest, fmt.Sprintf("kill %s signals a process the session did not start, as far as the gate can tell", t), "")
			return
		}
	}
	j.acc.asks(rule.Signal, fmt.Sprintf("%s signals the processes the probe finds, so a person decides", showArgv(argv)), "")
	j.redirs = cmd.Redirects
	for _, r := range cmd.Redirects {
		if j.acc.refused {
			return
		}
		j.redirect(r)
	}
}

// printsPidsOnly reports a probe given its option that prints pids
// alone, in a cluster or on its own (lsof -ti:3000, lsof -t -i :3000).
func printsPidsOnly(probe []string, opt string) bool {
	for _, a := range probe[1:] {
		if a == opt || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsRune(a[1:], rune(opt[1])) {
			return true
		}
	}
	return false
}

func isPidSubst(subs []shell.Substitution, i int) bool {
	for _, s := range subs {
		if s.Index == i {
			return true
		}
	}
	return false
}
