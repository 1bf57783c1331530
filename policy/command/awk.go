package command

import (
	"errors"
	"fmt"
	"strings"

	"admit/policy/rule"
)

// awkDenied are the awk names that reach past the input and standard
// output: system runs a command, getline reads a file or a command's
// output, close and fflush serve those, ENVIRON prints the environment,
// ARGV and ARGC choose the files awk reads, and PROCINFO, SYMTAB and
// FUNCTAB (gawk) reach the same by other names.
var awkDenied = map[string]string{
	"system":   "runs a shell command",
	"getline":  "reads a file or a command's output",
	"close":    "closes a file or a command",
	"fflush":   "flushes a file or a command",
	"ENVIRON":  "prints the environment",
	"ARGV":     "chooses the files awk reads",
	"ARGC":     "chooses the files awk reads",
	"PROCINFO": "reaches the process and its settings",
	"SYMTAB":   "reaches any variable by name",
	"FUNCTAB":  "reaches any function by name",
}

// awkProgram checks an awk program (POSIX awk, with gawk's and mawk's
// names denied too) for what reaches past the input and standard output:
// the names in awkDenied, output redirections (print > file, print | cmd),
// pipes, and gawk's @-directives and indirect calls. Strings, regex
// literals and comments are skipped, so a "system" inside /re/ or "text"
// is no call; a "/" is taken as a regex only where a division cannot
// stand (after an operator or at the start), so code is never skipped as
// a regex.
func awkProgram(s string) error {
	var l awkLexer
	l.expectRE = true
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '\\' && i+1 < len(s) && s[i+1] == '\n':
			i += 2 // a continued line
		case c == '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '"' || c == '/' && l.expectRE:
			j, err := awkSkipQuoted(s, i, c)
			if err != nil {
				return err
			}
			i, l.expectRE, l.lastOp = j, false, ""
		case c == '@':
			return errors.New(`"@" (a gawk directive or an indirect call)`)
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(s) && (s[j] == '_' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			if err := l.name(s[i:j]); err != nil {
				return err
			}
			i = j
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			i, l.lastOp = awkNumberEnd(s, i), ""
			l.expectRE = false
		default:
			op := string(c)
			if i+1 < len(s) && awkTwoCharOps[s[i:i+2]] {
				op = s[i : i+2]
			}
			if err := l.operator(op); err != nil {
				return err
			}
			i += len(op)
		}
	}
	return nil
}

// awkLexer is what awkProgram knows of the tokens before the current one.
type awkLexer struct {
	inPrint  bool
	parens   int    // depth inside the current print statement
	expectRE bool   // a "/" here starts a regex, not a division
	lastOp   string // the previous token when it was an operator
}

// name takes a keyword, a function or a variable.
func (l *awkLexer) name(name string) error {
	if why, ok := awkDenied[name]; ok {
		return fmt.Errorf("%q %s", name, why)
	}
	if name == "print" || name == "printf" {
		l.inPrint, l.parens = true, 0
	}
	l.lastOp = ""
	// After a keyword that starts an expression, a "/" is a regex.
	l.expectRE = name == "print" || name == "printf" || name == "return" || name == "in" || name == "case"
	return nil
}

// operator takes an operator or punctuation.
func (l *awkLexer) operator(op string) error {
	switch op {
	case "|", "|&":
		return errors.New(`"|" (output to, or input from, a command)`)
	case ">", ">>":
		if l.inPrint && l.parens == 0 {
			return fmt.Errorf("%q after print (output to a file)", op)
		}
	case "(":
		l.parens++
	case ")":
		l.parens--
	case "\n":
		// A newline after a comma, && or || continues the statement
		// (print a,<newline>b > "f" is still a redirection).
		if l.lastOp != "," && l.lastOp != "&&" && l.lastOp != "||" {
			l.inPrint = false
		}
	case ";", "{", "}":
		l.inPrint = false
	}
	if op != "\n" || l.lastOp == "" {
		l.lastOp = op
	}
	// A value ends with ")", "]", "$" names a field, "++"/"--" may
	// follow a value: after them a "/" divides.
	l.expectRE = !(op == ")" || op == "]" || op == "$" || op == "++" || op == "--")
	return nil
}

var awkTwoCharOps = map[string]bool{
	"||": true, "&&": true, ">>": true, "==": true, "!=": true, "<=": true, ">=": true, "++": true, "--": true,
	"+=": true, "-=": true, "*=": true, "/=": true, "%=": true, "^=": true, "!~": true, "|&": true, "**": true,
}

// awkSkipQuoted returns the index just after the string or regex literal
// that starts at s[i] with quote q; a backslash escapes the next byte.
// awks differ on whether a "/" inside a regex's bracket expression ends
// the regex, so such a regex is refused rather than read one way.
func awkSkipQuoted(s string, i int, q byte) (int, error) {
	inBracket := false
	for j := i + 1; j < len(s); j++ {
		switch c := s[j]; {
		case c == '\\':
			j++
		case c == '\n':
			return 0, errors.New("a newline inside a string or regex")
		case q == '/' && c == '[':
			inBracket = true
		case q == '/' && c == ']':
			inBracket = false
		case c == q && inBracket:
			return 0, errors.New(`a "/" inside a bracket expression of a regex`)
		case c == q:
			return j + 1, nil
		}
	}
	return 0, fmt.Errorf("an unterminated %c", q)
}

// awkNumberEnd returns the index just after the number at s[i]: decimal
// digits and a point, an exponent, or gawk's 0x hexadecimal. Only that:
// in "1close(f)" the number is "1", and close a name of its own.
func awkNumberEnd(s string, i int) int {
	digit := func(c byte) bool { return c >= '0' && c <= '9' }
	if strings.HasPrefix(s[i:], "0x") || strings.HasPrefix(s[i:], "0X") {
		i += 2
		for i < len(s) && (digit(s[i]) || s[i] >= 'a' && s[i] <= 'f' || s[i] >= 'A' && s[i] <= 'F') {
			i++
		}
		return i
	}
	for i < len(s) && (digit(s[i]) || s[i] == '.') {
		i++
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && digit(s[j]) {
			for j < len(s) && digit(s[j]) {
				j++
			}
			i = j
		}
	}
	return i
}

// awkAssignment reports whether an operand is NAME=value, which awk takes
// as an assignment rather than a file to read.
func awkAssignment(op string) bool {
	eq := strings.IndexByte(op, '=')
	if eq <= 0 {
		return false
	}
	for i := 0; i < eq; i++ {
		c := op[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// awk judges awk: its program (the first operand) is lexed and refused
// when it reaches past printing; the other operands are files read, but
// for NAME=value assignments and standard input.
func (j *judge) awk(w *words) {
	if w.first == 0 {
		j.refuse(rule.ForbiddenFlag, "awk without a program", "")
		return
	}
	if err := awkProgram(w.ops[0]); err != nil {
		j.refuse(rule.ForbiddenFlag, fmt.Sprintf("the awk program cannot be admitted: %v", err), "print to standard output only, and let the tools read and write files")
		return
	}
	for _, o := range w.ops[1:] {
		if o == "-" || awkAssignment(o) {
			continue // standard input; a variable set before the next file
		}
		w.add(access{word: o, what: "operand", mode: modeRead})
	}
}
