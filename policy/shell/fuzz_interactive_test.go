package shell

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// The fuzz targets of the interactive profiles check, for any input: no
// panic; exactly one of Script and Problem; no more lenient than analyze,
// and the same Script where both admit; and that no admitted line holds a
// construct the profile must refuse. That last check is an oracle of its
// own: it finds the constructs in mvdan's syntax tree, not with the
// profile's byte scan, so a scan that lost track of its quotes shows up.

func FuzzBashInteractive(f *testing.F) { fuzzProfile(f, BashInteractive) }
func FuzzZsh(f *testing.F)             { fuzzProfile(f, Zsh) }
func FuzzFish(f *testing.F)            { fuzzProfile(f, Fish) }

func fuzzProfile(f *testing.F, prof Profile) {
	for _, c := range profileCases {
		f.Add(c.line)
	}
	for _, line := range ordinaryLines {
		f.Add(line)
	}
	for _, a := range terminalAttacks {
		for _, line := range a.lines {
			f.Add(line)
		}
	}
	for _, c := range cases {
		f.Add(c.line)
	}
	p := NewParser(home)
	oracle := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true))
	f.Fuzz(func(t *testing.T, line string) {
		script, prob := p.Parse(line, prof)
		checkResult(t, line, prof, script, prob)
		if prob != nil {
			if prob.Hint == "" {
				t.Fatalf("Parse(%q, %s): problem without a hint", line, prof)
			}
			return
		}
		want, wprob := p.Parse(line, Analyze)
		if wprob != nil {
			t.Fatalf("%s admits %q, analyze refuses it: %s", prof, line, wprob.Reason)
		}
		if !sameReading(script, want) {
			t.Fatalf("%s reads %q as %+v, analyze as %+v", prof, line, script.Commands, want.Commands)
		}
		file, err := oracle.Parse(strings.NewReader(line), "")
		if err != nil {
			t.Fatalf("%s admits %q, which does not parse: %v", prof, line, err)
		}
		if why := mustRefuse(prof, line, file, script); why != "" {
			t.Fatalf("%s admits %q, which has %s", prof, line, why)
		}
	})
}

// mustRefuse names a construct in line that prof must refuse, or is "".
func mustRefuse(prof Profile, line string, file *syntax.File, script *Script) string {
	body := strings.TrimSuffix(line, "\n")
	if !utf8.ValidString(body) {
		return "bytes that are not UTF-8"
	}
	for _, r := range body {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f {
			return "a control character"
		}
	}
	history := prof == BashInteractive || prof == Zsh
	if history && strings.HasPrefix(strings.TrimLeft(body, " "), "^") {
		return "a leading ^"
	}

	// Where the quotes are, by the tree.
	type span struct{ from, to int }
	var single, double, comments []span
	var printed []int // where a $ begins a printed "$(LIST)" or $NAME, or $PWD
	var why string
	inSpan := func(spans []span, i int) bool {
		for _, s := range spans {
			if i >= s.from && i < s.to {
				return true
			}
		}
		return false
	}
	syntax.Walk(file, func(n syntax.Node) bool {
		if why != "" || n == nil {
			return false
		}
		switch x := n.(type) {
		case *syntax.SglQuoted:
			single = append(single, span{int(x.Pos().Offset()), int(x.End().Offset())})
			if prof == Fish && !x.Dollar && (strings.Contains(x.Value, `\\`) || strings.HasSuffix(x.Value, `\`)) {
				why = `\\ or \' in single quotes`
			}
		case *syntax.DblQuoted:
			double = append(double, span{int(x.Pos().Offset()), int(x.End().Offset())})
		case *syntax.Word:
			why = wordMustRefuse(prof, x)
		case *syntax.Redirect:
			// zsh reads a ! right after any output operator as part of
			// it (>!, >>!, &>!, >&!): the clobbering form, which writes
			// the next word. After a blank, ! is the file's name, as in bash.
			if prof == Zsh && (x.Op == syntax.RdrClob || x.Word != nil && bangAfterOperator(line, x)) {
				why = "a clobbering redirection"
			}
			if prof == Fish && (x.Op == syntax.RdrClob || x.Op == syntax.RdrInOut || x.Op == syntax.WordHdoc) {
				why = "a redirection fish does not share"
			}
		case *syntax.Subshell, *syntax.Block:
			if prof == Fish {
				why = "a group"
			}
		case *syntax.BinaryCmd:
			if prof == Fish && x.Op == syntax.PipeAll {
				why = "|&"
			}
		case *syntax.ParamExp:
			// $PWD is the folder in every shell (boundValue).
			if x.Short && x.Param != nil && x.Param.Value == "PWD" {
				printed = append(printed, int(x.Pos().Offset()))
			}
		case *syntax.CallExpr:
			// echo $NAME, printf FORMAT "$NAME": only printed, in fish as
			// in bash (printsParams).
			if name := x.Args[0].Lit(); name == "echo" || name == "printf" {
				for _, w := range x.Args[1:] {
					syntax.Walk(w, func(n syntax.Node) bool {
						if pe, ok := n.(*syntax.ParamExp); ok && pe.Short {
							printed = append(printed, int(pe.Pos().Offset()))
						}
						return true
					})
				}
			}
			// echo "$(LIST)", printf FORMAT "$(LIST)": fish 3.4+ reads
			// the quoted substitution as bash does (printedSubst).
			for k, w := range x.Args {
				if !(x.Args[0].Lit() == "echo" && k > 0 || x.Args[0].Lit() == "printf" && k > 1) || len(w.Parts) != 1 {
					continue
				}
				if dq, ok := w.Parts[0].(*syntax.DblQuoted); ok && !dq.Dollar && len(dq.Parts) == 1 {
					if cs, ok := dq.Parts[0].(*syntax.CmdSubst); ok && !cs.Backquotes && !cs.TempFile && !cs.ReplyVar {
						printed = append(printed, int(cs.Pos().Offset()))
					}
				}
			}
		case *syntax.Comment:
			comments = append(comments, span{int(x.Pos().Offset()), int(x.End().Offset())})
			if prof == Zsh {
				why = "a comment"
			}
		}
		return true
	})
	if why != "" {
		return why
	}
	// A backslash at the end joins the next line typed, except in a
	// comment: bash and fish end a comment at the newline whatever comes
	// before it (zsh has no comments, so there it joins too).
	if n := len(body) - len(strings.TrimRight(body, `\`)); n%2 == 1 && (prof == Zsh || !inSpan(comments, len(body)-1)) {
		return "a backslash at the end"
	}
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '!':
			if !history || inSpan(single, i) {
				continue
			}
			escaped := i > 0 && body[i-1] == '\\'
			if prof == Zsh && escaped {
				return `\! in zsh`
			}
			next := byte(0)
			if i+1 < len(body) {
				next = body[i+1]
			}
			switch {
			case next == 0 || next == ' ' || next == '=':
			case prof == BashInteractive && (escaped || next == '"' && inSpan(double, i)):
			default:
				return "a ! that history expands"
			}
		case '$':
			if prof == Fish && !inSpan(single, i) && !inSpan(comments, i) && !(i > 0 && body[i-1] == '\\') && !slices.Contains(printed, i) {
				return "a $"
			}
		}
	}
	for _, c := range script.Commands {
		for _, pt := range c.Patterns {
			if prof == Fish && (!starOnly(pt.Word) || !c.SortedByFish) {
				return "a file name pattern of more than *, or one fish's order is not held to"
			}
		}
		for _, pt := range c.Patterns {
			if prof == Zsh && unescapedStarStar(pt.Word) {
				return "a recursive pattern"
			}
		}
		if strings.HasPrefix(c.Argv[0], "%") || stateBuiltins[c.Argv[0]] {
			return "a job or a builtin that outlives the call"
		}
	}
	return ""
}

// wordMustRefuse names a construct of one word that prof must refuse.
func wordMustRefuse(prof Profile, w *syntax.Word) string {
	for i, part := range w.Parts {
		lit, ok := part.(*syntax.Lit)
		if !ok {
			if sq, ok := part.(*syntax.SglQuoted); ok && sq.Dollar && prof == Fish {
				return "$'...'"
			}
			continue
		}
		if prof == Zsh && i == 0 && strings.HasPrefix(lit.Value, "=") && (len(lit.Value) > 1 || len(w.Parts) > 1) {
			return "=word"
		}
		for j := 0; j+1 < len(lit.Value); j++ {
			if lit.Value[j] != '\\' {
				continue
			}
			if prof == Fish && isAlnum(lit.Value[j+1]) {
				return "a fish escape"
			}
			j++
		}
	}
	return ""
}

// unescapedStarStar reports whether a pattern word has two unescaped
// stars in a row.
// starOnly reports whether a pattern word (quoted characters escaped)
// has no pattern character but single *s: fish reads it as bash does.
func starOnly(word string) bool {
	for i := 0; i < len(word); i++ {
		switch word[i] {
		case '\\':
			i++
		case '?', '[':
			return false
		}
	}
	return !unescapedStarStar(word)
}

func unescapedStarStar(word string) bool {
	for i := 0; i+1 < len(word); i++ {
		switch {
		case word[i] == '\\':
			i++
		case word[i] == '*' && word[i+1] == '*':
			return true
		}
	}
	return false
}

// bangAfterOperator reports whether the word of an output redirection
// starts with a ! right after its operator, with no blank between.
func bangAfterOperator(line string, r *syntax.Redirect) bool {
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.DplOut:
	default:
		return false // after < or <>, ! is a file's name in zsh too
	}
	at := int(r.OpPos.Offset()) + len(r.Op.String())
	return int(r.Word.Pos().Offset()) == at && at < len(line) && line[at] == '!'
}
