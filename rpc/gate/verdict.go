package gate

import (
	"encoding/json"

	"admit/policy"
	"admit/policy/tape"
)

// Verdict is the door's answer to one call, as docs/protocol.md has it.
type Verdict struct {
	ID        string   `json:"id"`
	Verdict   string   `json:"verdict"` // "allow" or "deny"
	Allowed   bool     `json:"allowed"` // what the agent must do: true when allowed, or when the mode is not enforce
	Mode      string   `json:"mode"`
	Rule      string   `json:"rule"`
	Reason    string   `json:"reason"`
	Kind      string   `json:"kind,omitempty"`
	Targets   []string `json:"targets,omitempty"`
	ToolError string   `json:"toolError,omitempty"`
	DecidedBy string   `json:"decidedBy,omitempty"`
	Session   string   `json:"session,omitempty"`
	Tool      string   `json:"tool,omitempty"`
	Summary   string   `json:"summary,omitempty"`
}

// CheckParams is one call put to the door.
type CheckParams struct {
	Session string          `json:"session,omitempty"`
	Tool    string          `json:"tool"`
	Args    json.RawMessage `json:"args,omitempty"`
	Command string          `json:"command,omitempty"`
	Argv    []string        `json:"argv,omitempty"` // a command as literal words, judged without a shell
	Cwd     string          `json:"cwd,omitempty"`
	Context json.RawMessage `json:"context,omitempty"`
}

// ParamError is a call the gate cannot take as given: a field that is
// missing, malformed or out of range. The server answers it with -32602,
// the command line with a usage error.
type ParamError struct{ Field, Msg string }

func (e *ParamError) Error() string {
	if e.Field == "" {
		return e.Msg // the message names the field itself
	}
	return e.Field + ": " + e.Msg
}

// Decided is a verdict with what the gate learnt deciding it, for the
// tools that act on an admitted call (run, read, edit, write).
type Decided struct {
	Verdict  Verdict
	Decision policy.Decision
	// Wire is the Verdict as the notifier put it on the wire, or nil: the
	// server replies with the same bytes.
	Wire    []byte
	session *session
	cwd     string
	roots   []string
	record  *tape.Record
}
