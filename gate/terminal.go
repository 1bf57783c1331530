package gate

import (
	"fmt"
	"sync"
)

// A terminal keeps its working folder from one line to the next: after
// "cd .git", the next line runs in .git, whatever folder the host thinks
// it is in. A call that names its terminal (CheckParams.Terminal) is
// judged in the folder the gate tracked for that terminal through the
// lines it admitted there: the first line in the call's folder, each
// later one in the folder the line before left the shell in (the
// policy's FinalCwd; in a terminal the policy refuses a cd whose effect
// it cannot follow). A host that reports a folder other than the tracked
// one has lost track, or the terminal was used by someone else: the
// terminal is then refused for good, and the agent opens a new one.

// maxTerminals bounds the terminals one session tracks.
const maxTerminals = 256

// terminals are the tracked folders of one session's terminals.
type terminals struct {
	// mu guards byID.
	mu   sync.Mutex
	byID map[string]*terminalState
}

// terminalState is what the gate knows of one terminal.
type terminalState struct {
	cwd  string // the tracked folder; "" before the first admitted line
	lost string // why its folder is no longer known; every line is then refused
}

// terminalError is a line of a terminal whose folder is not known.
type terminalError struct{ why string }

func (e *terminalError) Error() string { return e.why }

// cwd is the folder the next line of terminal id runs in: the tracked
// one, or cwd (the call's, resolved) for the terminal's first line.
// reported says the host named a folder for the call; dry (a dry run)
// changes nothing the gate keeps.
func (ts *terminals) cwd(id string, reported bool, cwd string, dry bool) (string, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.byID == nil {
		ts.byID = map[string]*terminalState{}
	}
	t := ts.byID[id]
	if t == nil {
		if len(ts.byID) >= maxTerminals {
			return "", &ParamError{"terminal", fmt.Sprintf("the session tracks %d terminals already; reuse one", maxTerminals)}
		}
		t = &terminalState{}
		if !dry {
			ts.byID[id] = t
		}
	}
	switch {
	case t.lost != "":
		return "", &terminalError{t.lost}
	case t.cwd == "":
		return cwd, nil
	case reported && cwd != t.cwd:
		lost := fmt.Sprintf("terminal %q: the call says it runs in %s, but the lines admitted in it left it in %s; which one the shell is in is not known, so no line of this terminal is judged any more: open a new terminal", id, cwd, t.cwd)
		if !dry {
			t.lost = lost
		}
		return "", &terminalError{lost}
	}
	return t.cwd, nil
}

// ran records the folder a line that ran left terminal id in, or that
// it is no longer known.
func (ts *terminals) ran(id string, known bool, final string) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t := ts.byID[id]
	if t == nil || t.lost != "" {
		return
	}
	if !known {
		t.lost = fmt.Sprintf("terminal %q: a line that ran there left its folder unknown (admitted without enforcing), so no line of this terminal is judged any more: open a new terminal", id)
		return
	}
	t.cwd = final
}
