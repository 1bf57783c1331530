// Package strictjson is admit's one reader of the JSON it is handed: a
// request's params, a tool's arguments, a hook's event, a policy file, the
// person's rules and settings, a managed layer, a capability set, a tape's
// head. It reads exactly one value and refuses what another parser could
// read otherwise: a field the type does not have (a misspelt key would
// silently leave a default), a name in another case, a name given twice at
// any depth (parsers disagree on which one counts), invalid UTF-8, a lone
// surrogate, and anything after the value.
//
// Start at [Decode]; its errors are an [*Error] naming the field and, where
// there is one to show, the value.
package strictjson

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Error is what is wrong with a document, and where.
type Error struct {
	// Field is the member's path, dotted ("bounds.steps", "argv.0"); ""
	// is the document itself.
	Field string
	// Msg says what is wrong, with the value where there is one to show:
	// "unknown field", `must be bool, got JSON string "yes"`.
	Msg string
	// Offset is the byte offset of the input the error is at or after.
	Offset int64
}

func (e *Error) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

// Decode reads data, one JSON value, into v under the package's rules. A
// failure is an *Error.
func Decode(data []byte, v any) error {
	err := jsonv2.Unmarshal(data, v, jsonv2.RejectUnknownMembers(true))
	if err == nil {
		return nil
	}
	return describe(data, err)
}

// Check reports whether data is one JSON value under the package's rules,
// whatever its shape.
func Check(data []byte) error {
	var v jsontext.Value
	return Decode(data, &v)
}

// Within names err's field from prefix, the path of the value that was
// decoded ("programs.yq"): an *Error's field goes under it, any other
// error is wrapped with it.
func Within(prefix string, err error) error {
	var e *Error
	if !errors.As(err, &e) {
		return fmt.Errorf("%s: %w", prefix, err)
	}
	out := *e
	out.Field = prefix
	if e.Field != "" {
		out.Field = prefix + "." + e.Field
	}
	return &out
}

// maxShown bounds a value shown in an error: enough to recognise it.
const maxShown = 64

func describe(data []byte, err error) *Error {
	var se *jsonv2.SemanticError
	var syn *jsontext.SyntacticError
	switch {
	case errors.As(err, &syn):
		e := &Error{Field: fieldOf(syn.JSONPointer), Offset: syn.ByteOffset}
		switch {
		case errors.Is(syn.Err, jsontext.ErrDuplicateName):
			e.Msg = "given twice (a duplicate name); parsers disagree on which one counts"
		case errors.Is(syn.Err, io.ErrUnexpectedEOF) && len(bytes.TrimSpace(data)) == 0:
			e.Msg = "no JSON value (the input is empty)"
		case errors.Is(syn.Err, io.ErrUnexpectedEOF):
			e.Msg = "it ends before the value does (truncated)"
		case e.Field == "" && syn.ByteOffset > 0 && jsontext.Value(data[:syn.ByteOffset]).IsValid():
			e.Msg = fmt.Sprintf("more after the JSON value (at byte %d)", syn.ByteOffset)
		default:
			e.Msg = fmt.Sprintf("%v (at byte %d)", syn.Err, syn.ByteOffset)
		}
		return e
	case errors.As(err, &se):
		e := &Error{Field: fieldOf(se.JSONPointer), Offset: se.ByteOffset}
		switch {
		case errors.Is(se.Err, jsonv2.ErrUnknownName):
			e.Msg = "unknown field"
		case se.GoType != nil && se.JSONKind != 0:
			e.Msg = fmt.Sprintf("must be %s, got JSON %s", typeName(se.GoType), kindName(se.JSONKind))
			if v := shown(data, se.ByteOffset, se.JSONKind); v != "" {
				e.Msg += " " + v
			}
		case se.Err != nil:
			e.Msg = se.Err.Error()
		default:
			e.Msg = se.Error()
		}
		return e
	}
	return &Error{Msg: err.Error()}
}

// shown is the value of kind at off in data as written, when it is a
// scalar, bounded; "" for an object or an array.
func shown(data []byte, off int64, kind jsontext.Kind) string {
	if kind == '{' || kind == '[' || off < 0 || off >= int64(len(data)) {
		return ""
	}
	v, err := jsontext.NewDecoder(bytes.NewReader(data[off:])).ReadValue()
	if err != nil {
		return ""
	}
	s := string(v)
	if len(s) > maxShown {
		s = strings.ToValidUTF8(s[:maxShown], "") + "…"
	}
	return s
}

// fieldOf names a field by its JSON pointer, dotted: "/bounds/steps" is
// "bounds.steps".
func fieldOf(p jsontext.Pointer) string {
	var names []string
	for name := range p.Tokens() {
		names = append(names, name)
	}
	return strings.Join(names, ".")
}

// typeName is a Go type as JSON sees it: an object for a map or a struct.
func typeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Pointer:
		return typeName(t.Elem())
	}
	return t.String()
}

func kindName(k jsontext.Kind) string {
	switch k {
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "bool"
	}
	return k.String()
}
