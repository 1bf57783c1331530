package hook

import (
	"bytes"
	"encoding/json"
	"fmt"

	"admit/internal/strictjson"
)

// object is a JSON object decoded one level deep, keys exactly as sent:
// no case folding, so "Tool_Name" is not "tool_name".
type object map[string]json.RawMessage

// parseObject decodes an event strictly: one JSON object and nothing
// after it, valid UTF-8, escapes that decode to valid code points (no lone
// surrogates), and no name twice in any object at any depth. A host's own
// parser takes the last of two equal keys where Go's takes the first, or
// the other way round, so a duplicate could show the gate one command and
// the host another.
func parseObject(data []byte, what string) (object, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("hook: %s is empty", what)
	}
	if len(data) > MaxEventBytes {
		return nil, fmt.Errorf("hook: %s is %d bytes, over the %d byte bound", what, len(data), MaxEventBytes)
	}
	if trimmed[0] != '{' {
		if err := strictjson.Check(trimmed); err != nil {
			return nil, fmt.Errorf("hook: %s is not one valid JSON object: %v", what, err)
		}
		return nil, fmt.Errorf("hook: %s is a JSON %s, not an object", what, jsonKind(trimmed))
	}
	var o object
	if err := strictjson.Decode(trimmed, &o); err != nil {
		return nil, fmt.Errorf("hook: %s is not one valid JSON object: %v", what, err)
	}
	return o, nil
}

func jsonKind(raw []byte) string {
	switch raw[0] {
	case '[':
		return "array"
	case '"':
		return "string"
	case 'n':
		return "null"
	case 't', 'f':
		return "boolean"
	default:
		return "number"
	}
}

// has says whether key is present and not null.
func (o object) has(key string) bool {
	raw, ok := o[key]
	return ok && !isNull(raw)
}

func isNull(raw json.RawMessage) bool {
	return len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null"
}

// str is a string field: "" when absent or null, an error naming the
// field when it holds anything else.
func (o object) str(key string) (string, error) {
	raw, ok := o[key]
	if !ok || isNull(raw) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("hook: %s must be a string, got a JSON %s", key, jsonKind(bytes.TrimSpace(raw)))
	}
	return s, nil
}

// strs reads several string fields, stopping at the first error.
func (o object) strs(dst map[string]*string) error {
	for k, p := range dst {
		s, err := o.str(k)
		if err != nil {
			return err
		}
		*p = s
	}
	return nil
}

// obj is an object field: nil when absent or null, an error naming the
// field when it holds anything else. Where allowString, the field may
// also be a JSON string that holds an object (several hosts send a tool's
// input that way), decoded as strictly as the event itself.
func (o object) obj(key string, allowString bool) (object, error) {
	raw, ok := o[key]
	if !ok || isNull(raw) {
		return nil, nil
	}
	return asObject(raw, key, allowString)
}

func asObject(raw json.RawMessage, key string, allowString bool) (object, error) {
	raw = bytes.TrimSpace(raw)
	if raw[0] == '"' && allowString {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("hook: %s: %v", key, err)
		}
		if len(bytes.TrimSpace([]byte(s))) == 0 {
			return object{}, nil
		}
		return parseObject([]byte(s), key+" (a JSON string)")
	}
	if raw[0] != '{' {
		return nil, fmt.Errorf("hook: %s must be a JSON object, got a JSON %s", key, jsonKind(raw))
	}
	var v object
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("hook: %s: %v", key, err)
	}
	return v, nil
}

// strList is a field holding a list of strings.
func (o object) strList(key string) ([]string, error) {
	raw, ok := o[key]
	if !ok || isNull(raw) {
		return nil, nil
	}
	var l []string
	if err := json.Unmarshal(raw, &l); err != nil {
		return nil, fmt.Errorf("hook: %s must be a list of strings", key)
	}
	return l, nil
}

// marshal encodes v without HTML escaping (a reason with < or & stays
// readable) and without a trailing newline.
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("hook: " + err.Error()) // only the package's own types are encoded
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// line is a JSON answer as printed: the object and a newline.
func line(v any) []byte {
	return append(marshal(v), '\n')
}
