package tape

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"

	"admit/policy/rule"

	"admit/internal/jsonquote"
)

// Record is one line of the tape. The json tags are the line's field names
// (Query decodes with them); Append encodes in this field order with its
// own encoder, so that it can add prev last and hash the exact bytes it
// writes. Empty fields are left out, except time, allowed and prev.
type Record struct {
	Time      time.Time       `json:"time"` // RFC 3339 with nanoseconds, UTC
	ID        string          `json:"id,omitempty"`
	Session   string          `json:"session,omitempty"`
	Mode      rule.Mode       `json:"mode,omitempty"`
	Verdict   rule.Verdict    `json:"verdict,omitempty"` // "allow" or "deny"
	Allowed   bool            `json:"allowed"`           // what the agent was told to do
	Rule      rule.Rule       `json:"rule,omitempty"`
	Reason    string          `json:"reason,omitempty"`
	Tool      string          `json:"tool,omitempty"`
	Args      json.RawMessage `json:"args,omitempty"` // bounded by MaxArgs
	Command   string          `json:"command,omitempty"`
	Kind      string          `json:"kind,omitempty"` // "read" or "write"
	Targets   []string        `json:"targets,omitempty"`
	Context   json.RawMessage `json:"context,omitempty"` // bounded by MaxContext
	Policy    string          `json:"policy,omitempty"`  // hash of the policy that decided
	DecidedBy rule.DecidedBy  `json:"decidedBy,omitempty"`
	Outcome   rule.Outcome    `json:"outcome,omitempty"` // the policy's answer class: allow, ask or deny
	Remedy    string          `json:"remedy,omitempty"`  // on a refusal, what to do instead
	// Handle is the single-use handle an allowed shell call was answered
	// with: the host ran admit run --handle in place of the line.
	Handle   string          `json:"handle,omitempty"`
	AskedAt  time.Time       `json:"askedAt,omitzero"`
	WaitedMs int64           `json:"waitedMs,omitempty"`
	Effects  json.RawMessage `json:"effects,omitempty"` // bounded by MaxEffects
	ExitCode *int            `json:"exitCode,omitempty"`
	Verified *bool           `json:"verified,omitempty"`
	Detail   string          `json:"detail,omitempty"`
	// Hidden are the secret files hidden from admit's run of the line
	// (policy.Decision.Hidden): on a decision, those it was allowed on
	// the condition of hiding; on its run's result, those the run hid.
	Hidden []string `json:"hidden,omitempty"`
	// Facts are what the decision rested on besides the policy and the
	// rules (policy/facts), for admit tape replay; bounded by MaxFacts.
	Facts json.RawMessage `json:"facts,omitempty"`
	// FactsCompact says Facts is compact, valid JSON as its maker's own
	// encoder wrote it (facts.AppendJSON): the line takes it as it is,
	// without compacting it again. It is not on the line.
	FactsCompact bool `json:"-"`
	// ArgsJSON says Args is valid JSON, as the gate read it (strictly)
	// before it judged the call: the line takes it as it stands unless it
	// holds a line break, without reading it again. It is not on the line.
	ArgsJSON bool `json:"-"`
	// Prev is the SHA-256 (hex) of the previous line's bytes without its
	// newline, "" for the first record of a tape. Append sets it; it is
	// always the last field of the line.
	Prev string `json:"prev"`
}

// Bounds on what one line may carry. The caller bounds its input already;
// these keep one odd record from making the tape hard to read. A raw field
// over its bound is replaced by {"truncated":N} (N its length in bytes); a
// raw field that is not valid JSON by {"invalid":N}; a longer string is cut
// at a character boundary and marked.
const (
	MaxArgs    = 4 << 10  // tool arguments, bounded (docs/tape.md)
	MaxContext = 4 << 10  // turn, task, agent: small by nature
	MaxEffects = 16 << 10 // lists of changed paths run longer
	MaxString  = 8 << 10  // command lines, reasons, details, each target
	MaxTargets = 256      // targets beyond this are counted, not listed
	// MaxFacts bounds a decision's recorded facts: the answers a long
	// line's paths and patterns got run longer than its arguments; past
	// it replay says the facts are missing.
	MaxFacts = 32 << 10
)

// appendPaths appends key (which opens the array) and list, when it has
// any: at most MaxTargets of them, then how many more there were.
func appendPaths(b []byte, key string, list []string) []byte {
	if len(list) == 0 {
		return b
	}
	b = append(b, key...)
	for i, s := range list {
		if i == MaxTargets {
			b = append(b, ',')
			b = appendQuoted(b, "… "+strconv.Itoa(len(list)-MaxTargets)+" more")
			break
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = appendQuoted(b, s)
	}
	return append(b, ']')
}

// appendBody appends r encoded as a JSON object without prev.
func appendBody(b []byte, r *Record) []byte {
	b = append(b, `{"time":"`...)
	b = r.Time.UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, '"')
	b = appendString(b, `,"id":`, r.ID)
	b = appendString(b, `,"session":`, r.Session)
	b = appendString(b, `,"mode":`, string(r.Mode))
	b = appendString(b, `,"verdict":`, string(r.Verdict))
	b = append(b, `,"allowed":`...)
	b = strconv.AppendBool(b, r.Allowed)
	b = appendString(b, `,"rule":`, string(r.Rule))
	b = appendString(b, `,"reason":`, r.Reason)
	b = appendString(b, `,"tool":`, r.Tool)
	if r.ArgsJSON && len(r.Args) > 0 && len(r.Args) <= MaxArgs && bytes.IndexByte(r.Args, '\n') < 0 && bytes.IndexByte(r.Args, '\r') < 0 {
		b = append(append(b, `,"args":`...), r.Args...)
	} else {
		b = appendRaw(b, `,"args":`, r.Args, MaxArgs)
	}
	b = appendString(b, `,"command":`, r.Command)
	b = appendString(b, `,"kind":`, r.Kind)
	b = appendPaths(b, `,"targets":[`, r.Targets)
	b = appendRaw(b, `,"context":`, r.Context, MaxContext)
	b = appendString(b, `,"policy":`, r.Policy)
	b = appendString(b, `,"decidedBy":`, string(r.DecidedBy))
	b = appendString(b, `,"outcome":`, string(r.Outcome))
	b = appendString(b, `,"remedy":`, r.Remedy)
	b = appendString(b, `,"handle":`, r.Handle)
	if !r.AskedAt.IsZero() {
		b = append(b, `,"askedAt":"`...)
		b = r.AskedAt.UTC().AppendFormat(b, time.RFC3339Nano)
		b = append(b, '"')
	}
	if r.WaitedMs != 0 {
		b = append(b, `,"waitedMs":`...)
		b = strconv.AppendInt(b, r.WaitedMs, 10)
	}
	b = appendRaw(b, `,"effects":`, r.Effects, MaxEffects)
	if r.ExitCode != nil {
		b = append(b, `,"exitCode":`...)
		b = strconv.AppendInt(b, int64(*r.ExitCode), 10)
	}
	if r.Verified != nil {
		b = append(b, `,"verified":`...)
		b = strconv.AppendBool(b, *r.Verified)
	}
	b = appendString(b, `,"detail":`, r.Detail)
	b = appendPaths(b, `,"hidden":[`, r.Hidden)
	if r.FactsCompact && len(r.Facts) > 0 && len(r.Facts) <= MaxFacts {
		b = append(append(b, `,"facts":`...), r.Facts...)
	} else {
		b = appendRaw(b, `,"facts":`, r.Facts, MaxFacts)
	}
	return append(b, '}')
}

func appendString(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	b = append(b, key...)
	return appendQuoted(b, s)
}

// appendRaw appends raw compacted (JSON lines must not hold a newline), or
// a marker when it is too long or not JSON.
func appendRaw(b []byte, key string, raw json.RawMessage, limit int) []byte {
	if len(raw) == 0 {
		return b
	}
	b = append(b, key...)
	if len(raw) > limit {
		return append(strconv.AppendInt(append(b, `{"truncated":`...), int64(len(raw)), 10), '}')
	}
	n := len(b)
	buf := bytes.NewBuffer(b)
	if err := json.Compact(buf, raw); err != nil {
		b = buf.Bytes()[:n]
		return append(strconv.AppendInt(append(b, `{"invalid":`...), int64(len(raw)), 10), '}')
	}
	return buf.Bytes()
}

// appendQuoted appends s as a JSON string, cut to MaxString bytes. It
// escapes what JSON requires, replaces invalid UTF-8 with U+FFFD and
// escapes U+2028 and U+2029 as encoding/json does; it leaves <, > and &
// alone, since the tape is read by people and tools, not browsers.
func appendQuoted(b []byte, s string) []byte {
	cut := 0
	if len(s) > MaxString {
		k := MaxString
		for k > 0 && !utf8.RuneStart(s[k]) {
			k--
		}
		cut = len(s) - k
		s = s[:k]
	}
	b = jsonquote.AppendBody(append(b, '"'), s, jsonquote.Minimal)
	if cut > 0 {
		b = append(b, "…(+"...)
		b = strconv.AppendInt(b, int64(cut), 10)
		b = append(b, " bytes)"...)
	}
	return append(b, '"')
}

func jsonValid(b []byte) bool { return json.Valid(b) }
