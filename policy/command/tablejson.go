package command

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"admit/internal/strictjson"
)

// programJSON is one entry of the "programs" section of .admit/policy.json.
type programJSON struct {
	Write        bool              `json:"write"`
	Operands     string            `json:"operands"`
	FirstOperand string            `json:"firstOperand"`
	Options      map[string]string `json:"options"`
	Refuse       map[string]string `json:"refuse"`
	Digits       bool              `json:"digits"`
	ExactLong    bool              `json:"exactLong"`
	NoOptions    bool              `json:"noOptions"`
	Wrapper      bool              `json:"wrapper"`
	CommandAfter int               `json:"commandAfter"`
	Assignments  bool              `json:"assignments"`
	Rules        string            `json:"rules"`
}

// ParseTable reads the "programs" section of .admit/policy.json and merges
// it over the built-in table (DefaultTable). The section is an object
// from program name to an entry, or to null to remove a built-in program:
//
//	"programs": {
//	  "jq": {
//	    "operands": "read",               // read | write | text | list (default read)
//	    "firstOperand": "text",           // optional: what the first operand is instead
//	    "options": {                      // the accept-list: spellings -> value kind
//	      "-r --raw-output": "",          //   "" : a flag, no value
//	      "--arg": "text",                //   "text": a value that is not a path
//	      "-f --from-file": "read",       //   "read" / "write": a path read / written
//	      "--indent": "text?"             //   "text?": optional value, attached only
//	    },
//	    "refuse": {"--rawfile": "reads a file named by the command"},
//	    "write": false,                   // true: changes files, needs workspace-write
//	    "digits": false,                  // accept -NUM
//	    "exactLong": false,               // no unambiguous prefixes of long options
//	    "noOptions": false                // every word is an operand
//	  },
//	  "timeout": {"wrapper": true, "commandAfter": 1,
//	              "options": {"-s --signal -k --kill-after": "text", "--preserve-status --foreground -v --verbose": ""}},
//	  "rm": null
//	}
//
// A wrapper runs the rest of its argv as a command, which is judged in
// turn; commandAfter counts its operands before the command, and
// "assignments": true lets it take NAME=value words (env). "rules" names
// a family of built-in rules (programRules: "grep", "ls", "names", ...)
// that judges the entry's operands, as it does for the built-in programs
// of that family; an unknown name is an error. An entry
// replaces the built-in program of the same name entirely; programs with
// built-in rules (git, find, test, grep, ls, cp, mv, rm, ...) can only be
// removed. Errors name the field and the value.
func ParseTable(data []byte) (*Table, error) {
	var raw map[string]json.RawMessage
	if err := strictjson.Decode(data, &raw); err != nil {
		return nil, strictjson.Within("programs", err)
	}
	// The process's built-in table, copied: its entries' option indexes
	// (built on first lookup) are shared, not built again per file.
	t := (&Table{Programs: builtin().progs}).clone()
	names := make([]string, 0, len(raw))
	for n := range raw {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		field := "programs." + name
		if name == "" || strings.ContainsAny(name, "/ \t\n=") || folderBuiltin(name) {
			return nil, fmt.Errorf("%s: %q is not a program name (a bare name without a folder; cd is built in)", field, name)
		}
		msg := bytes.TrimSpace(raw[name])
		if bytes.Equal(msg, []byte("null")) || bytes.Equal(msg, []byte("false")) {
			delete(t.Programs, name)
			continue
		}
		if old := t.Programs[name]; old != nil && old.rules != "" {
			return nil, fmt.Errorf("%s: %s has built-in rules and cannot be redefined; null removes it", field, name)
		}
		var pj programJSON
		if err := strictjson.Decode(msg, &pj); err != nil {
			return nil, strictjson.Within(field, err)
		}
		p, err := pj.program(name, field)
		if err != nil {
			return nil, err
		}
		t.Programs[name] = p
	}
	if err := t.compile(); err != nil {
		return nil, err
	}
	return t, nil
}

func (pj *programJSON) program(name, field string) (*Program, error) {
	p := &Program{Name: name, Write: pj.Write, Digits: pj.Digits, ExactLong: pj.ExactLong, NoOptions: pj.NoOptions,
		Wrapper: pj.Wrapper, CommandAfter: pj.CommandAfter, Assignments: pj.Assignments, rules: pj.Rules}
	if _, ok := programRules[pj.Rules]; pj.Rules != "" && !ok {
		return nil, fmt.Errorf("%s.rules: %q is not one of the built-in rules (%s)", field, pj.Rules, ruleNames())
	}
	if pj.Rules != "" && pj.Wrapper {
		return nil, fmt.Errorf("%s: rules %q and \"wrapper\": true exclude each other (a wrapper judges the command it runs)", field, pj.Rules)
	}
	kind, err := parseOperands(pj.Operands, field+".operands")
	if err != nil {
		return nil, err
	}
	p.Operands = kind
	if pj.FirstOperand != "" {
		k, err := parseOperands(pj.FirstOperand, field+".firstOperand")
		if err != nil {
			return nil, err
		}
		p.FirstOperand = &k
	}
	if pj.CommandAfter < 0 || pj.CommandAfter > 8 {
		return nil, fmt.Errorf("%s.commandAfter: %d is not between 0 and 8", field, pj.CommandAfter)
	}
	if !pj.Wrapper && (pj.CommandAfter != 0 || pj.Assignments) {
		return nil, fmt.Errorf("%s: commandAfter and assignments need \"wrapper\": true", field)
	}
	opts, err := pj.options(field)
	if err != nil {
		return nil, err
	}
	p.Options = opts
	if err := p.compile(); err != nil {
		return nil, err
	}
	return p, nil
}

// options reads the accept-list and the refused options of an entry, in
// the order of their spellings.
func (pj *programJSON) options(field string) ([]Option, error) {
	var opts []Option
	for _, k := range slices.Sorted(maps.Keys(pj.Options)) {
		v := pj.Options[k]
		arg := Arg(-1)
		for a, n := range argNames {
			if n == v {
				arg = a
			}
		}
		if v == "flag" {
			arg = NoArg
		}
		if arg < 0 {
			return nil, fmt.Errorf("%s.options[%q]: %q is not one of \"\", \"text\", \"text?\", \"read\", \"write\"", field, k, v)
		}
		opts = append(opts, Option{Names: k, Arg: arg})
	}
	for _, k := range slices.Sorted(maps.Keys(pj.Refuse)) {
		why := pj.Refuse[k]
		if why == "" {
			why = "is refused by the workspace policy"
		}
		opts = append(opts, Option{Names: k, Refuse: why})
	}
	return opts, nil
}

func parseOperands(s, field string) (Operands, error) {
	if s == "" {
		return ReadOperands, nil
	}
	for k, n := range operandNames {
		if n == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("%s: %q is not one of read, write, text, list", field, s)
}
