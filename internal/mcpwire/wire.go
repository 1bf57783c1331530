// Package mcpwire is what admit's MCP gateway (mcpgate) and its own MCP
// server (mcpserver) share of the MCP stdio transport: one JSON-RPC 2.0
// message a line, read strictly (a key repeated at any depth, also under
// another case, is refused: parsers differ on which one wins), the
// protocol versions admit speaks, and the error codes it answers with.
package mcpwire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// JSON-RPC error codes admit answers with. Refused is admit's own, in the
// range JSON-RPC leaves to servers; MCP uses -32002 for a resource that
// does not exist, so admit does not.
const (
	ParseError     = -32700
	InvalidRequest = -32600
	MethodNotFound = -32601
	InvalidParams  = -32602
	Refused        = -32001
)

// Versions are the MCP protocol versions admit speaks, newest first.
var Versions = []string{"2025-06-18", "2025-03-26", "2024-11-05"}

// Negotiate answers a client's protocolVersion as the lifecycle says: the
// same version when admit speaks it, else the newest admit speaks (the
// client then decides whether it can go on).
func Negotiate(requested string) string {
	for _, v := range Versions {
		if v == requested {
			return v
		}
	}
	return Versions[0]
}

// Error is a JSON-RPC error object.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("%d %s", e.Code, e.Message) }

// Message is one JSON-RPC message, its top-level members matched exactly.
type Message struct {
	Members map[string]json.RawMessage
	ID      json.RawMessage // nil for a notification; "null" counts as an id
	Method  string          // "" for a response
	Params  json.RawMessage // nil when absent
}

// IsRequest reports whether m asks for an answer.
func (m *Message) IsRequest() bool { return m.Method != "" && m.ID != nil }

// IsNotification reports whether m is a method call without an id.
func (m *Message) IsNotification() bool { return m.Method != "" && m.ID == nil }

// IsResponse reports whether m answers a request.
func (m *Message) IsResponse() bool { return m.Method == "" }

// DuplicateError is a message that names one key twice in an object, or
// two keys that are one under case folding (Go's encoding/json, and other
// lenient readers, match keys without case).
type DuplicateError struct {
	Pointer string // JSON pointer of the object holding the key
	Key     string
}

func (e *DuplicateError) Error() string {
	where := e.Pointer
	if where == "" {
		where = "the message"
	}
	return fmt.Sprintf("%s names the key %q twice (or under another case): readers differ on which one wins, so it is not relayed", where, e.Key)
}

// InParams reports whether the repeated key is inside params.
func (e *DuplicateError) InParams() bool {
	return e.Pointer == "/params" || strings.HasPrefix(e.Pointer, "/params/")
}

// maxDepth bounds the nesting Parse reads: deeper than any MCP message.
const maxDepth = 512

// Parse reads one message: valid JSON (UTF-8 included), one object, no
// key repeated at any depth (*DuplicateError), and "method", when present,
// a string. Top-level keys that only differ from the protocol's by case
// count as repeated even when the protocol's is absent: a lenient reader
// would take "Method" for "method".
func Parse(line []byte) (*Message, error) {
	if err := checkKeys(line); err != nil {
		return nil, err
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(line, &members); err != nil || members == nil {
		return nil, errors.New("a JSON-RPC message must be a JSON object")
	}
	for k := range members {
		for _, want := range []string{"jsonrpc", "id", "method", "params", "result", "error"} {
			if k != want && strings.EqualFold(k, want) {
				return nil, &DuplicateError{Key: k}
			}
		}
	}
	m := &Message{Members: members, Params: members["params"]}
	if id, ok := members["id"]; ok {
		m.ID = id
	}
	if raw, ok := members["method"]; ok {
		if err := json.Unmarshal(raw, &m.Method); err != nil || m.Method == "" {
			return nil, errors.New("method must be a non-empty string")
		}
	}
	return m, nil
}

// checkKeys walks every object of line and refuses a repeated key.
func checkKeys(line []byte) error {
	dec := jsontext.NewDecoder(bytes.NewReader(line), jsontext.AllowDuplicateNames(true))
	type object struct {
		seen map[string]bool
	}
	var stack []*object
	for {
		kind := dec.PeekKind()
		if kind == 0 {
			_, err := dec.ReadToken()
			if err == io.EOF {
				if len(stack) == 0 {
					return nil
				}
				return errors.New("the message ends inside an object")
			}
			return fmt.Errorf("not valid JSON: %w", err)
		}
		// An object's name comes where an object expects one: the decoder
		// says so by the depth and the count of what it has read.
		level, length := dec.StackIndex(dec.StackDepth())
		if kind == '"' && level == '{' && length%2 == 0 && len(stack) > 0 {
			tok, err := dec.ReadToken()
			if err != nil {
				return fmt.Errorf("not valid JSON: %w", err)
			}
			name := tok.String()
			key := fold(name)
			top := stack[len(stack)-1]
			if top.seen[key] {
				return &DuplicateError{Pointer: string(dec.StackPointer().Parent()), Key: name}
			}
			top.seen[key] = true
			continue
		}
		tok, err := dec.ReadToken()
		if err != nil {
			return fmt.Errorf("not valid JSON: %w", err)
		}
		switch tok.Kind() {
		case '{':
			if len(stack) >= maxDepth {
				return fmt.Errorf("the message nests deeper than %d levels", maxDepth)
			}
			stack = append(stack, &object{seen: map[string]bool{}})
		case '}':
			stack = stack[:len(stack)-1]
		case '[':
			if dec.StackDepth() > maxDepth {
				return fmt.Errorf("the message nests deeper than %d levels", maxDepth)
			}
			stack = append(stack, nil)
		case ']':
			stack = stack[:len(stack)-1]
		}
		if dec.StackDepth() == 0 {
			if _, err := dec.ReadToken(); err != io.EOF {
				return errors.New("not one JSON value: text follows it")
			}
			return nil
		}
	}
}

// fold maps a key to one spelling for every case of it: each rune to the
// least of its simple case folds, as Go's encoding/json compares names
// (the Kelvin sign is a k, the long s an s). For ASCII that is upper case.
func fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToUpper(s)
	}
	var b strings.Builder
	for _, r := range s {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < least {
				least = f
			}
		}
		b.WriteRune(least)
	}
	return b.String()
}

// Response encodes a result or an error for id (nil: null).
func Response(id json.RawMessage, result any, e *Error) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	m := map[string]any{"jsonrpc": "2.0", "id": id}
	if e != nil {
		m["error"] = e
	} else {
		if result == nil {
			result = struct{}{}
		}
		m["result"] = result
	}
	b, err := json.Marshal(m)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": &Error{Code: -32603, Message: "the answer could not be encoded: " + err.Error()}})
	}
	return b
}

// Encode re-encodes a request or notification from only the protocol's
// members, so what is relayed is exactly what was judged.
func (m *Message) Encode() ([]byte, error) {
	out := map[string]json.RawMessage{}
	for _, k := range []string{"jsonrpc", "id", "method", "params"} {
		if v, ok := m.Members[k]; ok {
			out[k] = v
		}
	}
	return json.Marshal(out)
}
