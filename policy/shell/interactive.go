package shell

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// This file holds what the interactive profiles refuse beyond analyze:
// first what happens to the typed text before the shell parses it (the
// line editor's keys, history expansion, a continuation into the next
// line typed), then each shell's reading of words, redirections and
// command names where it differs from bash -c. Every check refuses; none
// rewrites the line, so a line the interactive profiles admit is judged by
// exactly the walk analyze does.
//
// The scan works on the bytes of the line with the quoting bash's parser
// uses. Only lines that analyze also accepts can be admitted, so the scan
// need only be right for the constructs analyze admits: plain words,
// '...', "..." without expansions, $'...' without escapes, backslashes,
// operators and comments.

// Hints for what to write instead. Each is a whole instruction; a Problem
// joins those of its items.
const (
	hintPlain       = "write the command as plain words, without the constructs named"
	hintControl     = "write the character as an escape the program reads (printf '\\t', sed 's/\\t/ /'), never the raw byte, and send one line with no line breaks"
	hintUTF8        = "write the text in UTF-8, or as an escape the program reads"
	hintBang        = "put the ! inside single quotes ('wow!'), or follow it with a space"
	hintCaret       = "start the line with the program's name; quote a leading ^ ('^x')"
	hintTrailing    = "end the line without a backslash, or quote it ('\\')"
	hintZshComment  = "leave the comment out: interactive zsh passes # and the words after it to the program"
	hintClobber     = "write > (with the default options it replaces the file the same way)"
	hintEquals      = "quote the = ('=name'), or write the program's path"
	hintStarStar    = "name the folders, or let the program search (find . -name 'x', grep -r)"
	hintZshGlob     = "quote ^, ~, # and [ in a pattern ('^'), or let the program match (find -name)"
	hintNumericGlob = "put a space after < and quote the range ('<1-10>')"
	hintMultios     = "redirect each descriptor once; use tee to copy output to several files"
	hintTildeAssign = "write the home folder's path after the =, or put the ~ at the start of its own word"
	hintBrace       = "write the words out, or use a brace list with no empty element ({a,b})"
	hintZshBrace    = "quote a } that closes no brace list ('}')"
	hintEscape      = "write the character itself, or quote the backslash ('\\n')"
	hintFishSingle  = "fish reads \\\\ and \\' inside single quotes as escapes: put such text in double quotes"
	hintDollar      = "quote the $ in single quotes ('$')"
	hintFishPercent = "quote the % ('%self')"
	hintFishGroup   = "run the commands one after another with ; or &&, without ( ) or { }"
	hintPattern     = "name the files, or quote the pattern for the program to match (find . -name '*.go', grep -r --include='*.go')"
	hintFishBrace   = "write the words out, or use one brace list per word ({a,b}) with no empty element and no range"
	hintRedir       = "use >, >>, <, 2>, &> or 2>&1"
	hintPipeAll     = "write 2>&1 | instead of |&"
	hintNamedFd     = "quote the braces ('{name}'), or put the word after the redirection"
	hintCommandName = "start the command with the program's name"
	hintState       = "leave it out: in a terminal its effect lasts for every later call, so only a person should run it there"
	hintJob         = "name the process by its pid, not a job of the terminal"
	hintBuiltin     = "run the program by its path, or use a program every shell runs alike"
	hintEcho        = "use printf with a quoted format ('%s\\n') instead of echo"
	hintZshCd       = "cd to one folder, named by its path"
)

// refuseAs records a construct the profile's shell reads differently:
// what it is, the text it was written as, and what that shell does with it.
func (p *Parser) refuseAs(what, text, does, hint string) {
	item := what
	if text != "" {
		item += " " + quote(text)
	}
	item += " (" + p.prof.shellName() + " " + does + ")"
	p.ps.addItem(classSyntax, item)
	p.addHint(hint)
}

// addHint records a hint once.
func (p *Parser) addHint(h string) {
	for _, have := range p.hints {
		if have == h {
			return
		}
	}
	p.hints = append(p.hints, h)
}

// hint is the Problem's Hint: the hints recorded, or the plain one.
func (p *Parser) hint() string {
	if len(p.hints) == 0 {
		return hintPlain
	}
	if len(p.hints) == 1 {
		return p.hints[0]
	}
	return strings.Join(p.hints, "; ")
}

// historyShell reports whether the profile's shell expands history in
// the line before it parses it (bash and zsh do, in a terminal).
func (p *Parser) historyShell() bool { return p.prof == BashInteractive || p.prof == Zsh }

// scanTyped checks what happens to the text before the shell parses it.
func (p *Parser) scanTyped(line string) {
	// A single final newline is the Enter that sends the line; any other
	// one would send the rest as a line of its own, which the program
	// running by then may read as its input instead.
	body := strings.TrimSuffix(line, "\n")
	p.scanControls(body)
	if p.historyShell() {
		if t := strings.TrimLeft(body, " "); strings.HasPrefix(t, "^") {
			p.refuseAs("quick substitution", snippet(t, 0), "replaces a leading ^old^new^ with the previous line, changed", hintCaret)
		}
	}
	var (
		quote     byte // 0, '\'' or '"'
		ansi      bool // in $'...'
		comment   bool // past a # that starts a comment
		wordStart = true
	)
	for i := 0; i < len(body); i++ {
		c := body[i]
		if comment {
			// bash's history expansion does not stop at a comment, and
			// quotes in a comment are only text: every ! counts.
			if c == '!' {
				p.bang(body, i, false)
			}
			continue
		}
		switch quote {
		case '\'':
			switch {
			case c == '\'':
				quote, ansi = 0, false
			case c == '\\' && ansi:
				i++ // analyze refuses $'...' with escapes; skip what it quotes
			case c == '\\' && p.prof == Fish && i+1 < len(body) && (body[i+1] == '\\' || body[i+1] == '\''):
				p.refuseAs("backslash in single quotes", snippet(body, i), "reads \\\\ and \\' inside single quotes as escapes", hintFishSingle)
			}
			continue
		case '"':
			switch c {
			case '"':
				quote = 0
			case '\\':
				if i+1 < len(body) {
					switch n := body[i+1]; {
					case n == '!' && p.prof == Zsh:
						p.refuseAs("escaped ! in double quotes", `"\!`, "removes the backslash, which bash keeps", hintBang)
					case n == '`' && p.prof == Fish:
						p.refuseAs("escaped backquote in double quotes", "\\`", "keeps the backslash, which bash removes", hintEscape)
					}
					i++
				}
			case '!':
				p.bang(body, i, true)
			case '$':
				switch {
				case i+1 < len(body) && body[i+1] == '(':
					// $(...): judged on the syntax tree (values.go, part).
				case p.prof == Fish && !plainDollarName(body[i+1:]):
					p.refuseAs("$", snippet(body, i), "expands a variable after every $ and refuses a lone one", hintDollar)
				case p.prof == Zsh && i+1 < len(body) && body[i+1] != '"' && body[i+1] != ' ' && !plainDollarName(body[i+1:]):
					p.refuseAs("$ before punctuation", snippet(body, i), "reads $ with the character after it ($=, $~, $^) as an expansion", hintDollar)
				}
			}
			continue
		}
		switch c {
		case ' ', '\t':
			wordStart = true
			continue
		case '\\':
			if i+1 == len(body) {
				p.refuseAs("backslash at the end of the line", `\`, "joins the next line typed into the terminal to this one", hintTrailing)
				continue
			}
			switch n := body[i+1]; {
			case p.prof == Fish && isAlnum(n):
				p.refuseAs("backslash escape", snippet(body, i), "reads \\"+string(n)+" as an escape sequence (\\x41 is A), where bash reads the letter alone", hintEscape)
			case p.prof == Zsh && n == '!':
				p.refuseAs("escaped !", `\!`, "removes the backslash before it parses the line, so \\! can start a negation or join a $", hintBang)
			}
			i++
			wordStart = false
			continue
		case '\'':
			quote = '\''
			ansi = i > 0 && body[i-1] == '$'
			wordStart = false
			continue
		case '"':
			quote = '"'
			wordStart = false
			continue
		case '!':
			p.bang(body, i, false)
		case '#':
			if p.prof == Fish && !wordStart && i > 0 && (body[i-1] == ' ' || body[i-1] == '\t') {
				// Only an escaped blank leaves the word open here.
				p.refuseAs("# after an escaped blank", snippet(body, i-2), "starts a comment there and keeps its text in the word", hintEscape)
			}
			if wordStart {
				if p.prof == Zsh {
					p.refuseAs("comment", snippet(body, i), "has no comments, so the # and the words after it are arguments", hintZshComment)
					return
				}
				comment = true
				continue
			}
		case '$':
			switch {
			case i+1 < len(body) && body[i+1] == '(':
				// $(...): judged on the syntax tree (values.go, part).
			case p.prof == Fish && !plainDollarName(body[i+1:]):
				p.refuseAs("$", snippet(body, i), "expands a variable after every $ and refuses a lone one", hintDollar)
			case p.prof == Zsh && i+1 < len(body) && body[i+1] != '\'' && body[i+1] != ' ' && !plainDollarName(body[i+1:]):
				p.refuseAs("$ before punctuation", snippet(body, i), "reads $ with the character after it ($=, $~, $^) as an expansion", hintDollar)
			}
		case '%':
			if p.prof == Fish && wordStart {
				p.refuseAs("% at the start of a word", snippet(body, i), "expands %self to its process id", hintFishPercent)
			}
		case '>':
			if p.prof == Zsh && i+1 < len(body) && body[i+1] == '!' {
				p.refuseAs("clobbering redirection", snippet(body, i), "reads >! as one operator that writes the file named after it", hintClobber)
			}
		case '<':
			if p.prof == Zsh && numericGlob(body[i+1:]) {
				p.refuseAs("numeric range pattern", snippet(body, i), "matches file names by number with <N-M>, where bash redirects", hintNumericGlob)
			}
		}
		wordStart = strings.IndexByte(";&|()<>", c) >= 0
	}
}

// scanControls refuses every control character (the line editor of each
// shell acts on them as keys: ^U erases the line, tab completes, ESC
// starts a key sequence), bytes that are not UTF-8, and the C1 controls
// some terminals act on.
func (p *Parser) scanControls(body string) {
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '\n':
			p.refuseAs("line break inside the line", "", "runs each line as it is typed, and the program running by then may read the rest as its input", hintControl)
			i++
		case c == '\t':
			p.refuseAs("tab", "", "completes a file or program name on it", hintControl)
			i++
		case c < 0x20 || c == 0x7f:
			p.refuseAs("control character", body[i:i+1], "acts on it as a key (^U erases the line, ^C cancels it)", hintControl)
			i++
		case c < 0x80:
			i++
		default:
			r, n := utf8.DecodeRuneInString(body[i:])
			switch {
			case r == utf8.RuneError && n == 1:
				p.refuseAs("byte that is not UTF-8", "", "may read it as a key with the meta bit set", hintUTF8)
			case r >= 0x80 && r <= 0x9f:
				p.refuseAs("C1 control character", "", "and the terminal may act on it as a control sequence", hintControl)
			}
			i += n
		}
	}
}

// bang checks a ! at body[i] that is not in single quotes or escaped:
// bash and zsh expand history there unless a blank, "=" or the end of the
// line follows it (and for bash in double quotes, a closing quote). zsh
// removes a !" and then stops expanding, so it is refused there too.
func (p *Parser) bang(body string, i int, inDouble bool) {
	if !p.historyShell() {
		return
	}
	if p.prof == Zsh && i > 0 && body[i-1] == '\\' {
		// An escaped backslash: zsh's history still takes it as the
		// escape of the !, and removes it.
		p.refuseAs("escaped !", `\!`, "removes the backslash before it parses the line, so \\! can start a negation or join a $", hintBang)
		return
	}
	if i+1 == len(body) {
		return
	}
	switch body[i+1] {
	case ' ', '=':
		return
	case '"':
		if inDouble && p.prof == BashInteractive {
			return
		}
	}
	p.refuseAs("history expansion", snippet(body, i), "replaces it with words of earlier lines before it parses this one", hintBang)
}

// plainDollarName reports whether s, what follows a $, is a plain name
// that zsh and fish expand as bash does: letters, digits and _, followed
// by a character that starts no subscript ([), modifier (:), qualifier
// or flag. The parser then refuses every such $name but a loop
// variable's (loops.go), whose value it checked splitting leaves whole,
// $PWD, and one echo or printf only prints.
func plainDollarName(s string) bool {
	n := 0
	for n < len(s) && (s[n] == '_' || s[n] >= 'a' && s[n] <= 'z' || s[n] >= 'A' && s[n] <= 'Z' || n > 0 && s[n] >= '0' && s[n] <= '9') {
		n++
	}
	return n > 0 && (n == len(s) || strings.IndexByte(" \t\"'/.-;)&|,+@<>$", s[n]) >= 0)
}

// numericGlob reports whether s (what follows a "<") is zsh's <N-M>
// pattern: optional digits, "-", optional digits, ">".
func numericGlob(s string) bool {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == len(s) || s[i] != '-' {
		return false
	}
	i++
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i < len(s) && s[i] == '>'
}

// snippet is the text from body[i] to the end of its word, at most 16
// bytes, for a reason to quote.
func snippet(body string, i int) string {
	j := i + 1
	for j < len(body) && j-i < 16 && strings.IndexByte(" \t;&|<>()", body[j]) < 0 {
		j++
	}
	return body[i:j]
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// checkWordBraces refuses unquoted braces the profile's shell pairs
// differently from bash: zsh fails on a } that closes nothing in its word,
// fish on any { or } without its partner.
func (p *Parser) checkWordBraces(w *syntax.Word) {
	if p.prof != Zsh && p.prof != Fish {
		return
	}
	depth := 0
	for _, part := range w.Parts {
		lit, ok := part.(*syntax.Lit)
		if !ok {
			continue
		}
		for i := 0; i < len(lit.Value); i++ {
			switch lit.Value[i] {
			case '\\':
				i++
			case '{':
				depth++
			case '}':
				depth--
				if depth < 0 {
					if p.prof == Zsh {
						p.refuseAs("unpaired }", p.src(w), "reads it as the end of a { } group and fails", hintZshBrace)
					} else {
						p.refuseAs("unpaired }", p.src(w), "refuses a } that opens no brace expansion", hintFishBrace)
					}
					return
				}
			}
		}
	}
	if depth > 0 && p.prof == Fish {
		p.refuseAs("unpaired {", p.src(w), "refuses a { that is not closed in the same word", hintFishBrace)
	}
}

// checkBraces refuses brace expansions the profile's shell expands to
// other words: fish has no {1..3} sequences, and it orders the words of
// two expansions in one word ({a,b}{c,d}) its own way.
func (p *Parser) checkBraces(w *syntax.Word, parts []syntax.WordPart) bool {
	if p.prof != Fish {
		return true
	}
	n := 0
	for _, part := range parts {
		be, ok := part.(*syntax.BraceExp)
		if !ok {
			continue
		}
		if be.Sequence {
			p.refuseAs("brace sequence", p.src(w), "has no {x..y} sequences and passes the word as written", hintFishBrace)
			return false
		}
		n++
		for _, e := range be.Elems {
			for _, in := range e.Parts {
				if _, nested := in.(*syntax.BraceExp); nested {
					n++
				}
			}
		}
	}
	if n > 1 {
		p.refuseAs("several brace expansions in one word", p.src(w), "orders the words they make its own way", hintFishBrace)
		return false
	}
	return true
}

// checkNullBrace refuses a brace expansion that makes an empty word:
// bash drops it, zsh and fish pass it as an empty argument.
func (p *Parser) checkNullBrace(w *syntax.Word) {
	if p.prof == Zsh || p.prof == Fish {
		p.refuseAs("brace expansion to an empty word", p.src(w), "passes the empty word as an argument, where bash drops it", hintBrace)
	}
}

// checkPattern refuses a file name pattern (pat: the word's pattern, with
// quoted characters escaped) the profile's shell expands differently.
func (p *Parser) checkPattern(w *syntax.Word, pat []byte) bool {
	switch p.prof {
	case Fish:
		// A * is read as bash reads it; the names' order is held to bash's
		// where they are expanded (Command.SortedByFish).
		for i := 0; i < len(pat); i++ {
			switch pat[i] {
			case '\\':
				i++
			case '?', '[':
				p.refuseAs("file name pattern", p.src(w), "has no [...] classes and no ? in patterns (fish 4 reads ? as itself)", hintPattern)
				return false
			case '*':
				if i+1 < len(pat) && pat[i+1] == '*' {
					p.refuseAs("recursive pattern", p.src(w), "matches **/ in every folder below", hintStarStar)
					return false
				}
			}
		}
	case Zsh:
		for i := 0; i < len(pat); i++ {
			switch pat[i] {
			case '\\':
				i++
			case '*':
				if i+1 < len(pat) && pat[i+1] == '*' {
					p.refuseAs("recursive pattern", p.src(w), "matches **/ in every folder below, and ***/ through symbolic links", hintStarStar)
					return false
				}
			case '^', '~', '#':
				if i > 0 && pat[i-1] == '[' {
					continue // [^a] is a negated class in both shells
				}
				p.refuseAs("zsh pattern operator", p.src(w), "with the common extendedglob option reads ^, ~ and # in a pattern as negation, exclusion and repetition", hintZshGlob)
				return false
			}
		}
	}
	return true
}

// zshOperators judges a word bash reads as plain text that holds ^ or #
// outside quotes (p.pat): zsh's common extendedglob option makes it a
// pattern (.en^ is every name that starts .en, .en#v matches .env, ^x is
// every name but x). As an argument it becomes a Pattern of the bash glob
// that matches every name it could (zshSuperset), kept beside the word
// (Command.ZshPatterns): where it matches a name the command policy
// refuses the line, and where it matches none zsh fails the command (no
// matches found), so HEAD^ and pkg@^1 stay as written. Anywhere else (a
// redirection, an assignment, a loop's words, a case pattern) it is
// refused.
func (p *Parser) zshOperators(w *syntax.Word) bool {
	sup, ok := zshSuperset(p.pat)
	if !ok {
		return true
	}
	if p.inArgs && !p.loopList && !p.textPattern && !p.strict {
		p.zshPatWord = sup
		return true
	}
	p.refuseAs("zsh pattern operator", p.src(w), "with the common extendedglob option reads ^ and # in a word as a pattern", hintZshGlob)
	return false
}

// zshSuperset returns a bash pattern matching every name the zsh
// extendedglob pattern pat (quoted characters escaped, no *, ? or [) can
// match, and whether pat has such an operator (an unescaped ^ or #) at
// all. Each path component that holds one keeps its text up to the first
// (less the character a # repeats) and matches anything after it: zsh's
// ^ binds tighter than /, so src/^x looks in src alone.
func zshSuperset(pat []byte) (string, bool) {
	if bytes.IndexByte(pat, '^') < 0 && bytes.IndexByte(pat, '#') < 0 {
		return "", false
	}
	out := make([]byte, 0, len(pat)+2)
	found := false
	start := 0 // where the component in progress starts in out
	last := -1 // where its last character starts in out (an escape is two bytes)
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		switch {
		case c == '\\' && i+1 < len(pat):
			last = len(out)
			out = append(out, c, pat[i+1])
			i++
			continue
		case c == '/':
			start, last = len(out)+1, -1
		case c == '^' || c == '#':
			found = true
			if c == '#' && last >= start {
				out = out[:last] // x# is any number of x: the x is not certain
			}
			out = append(out, '*')
			for i+1 < len(pat) && pat[i+1] != '/' {
				i++ // the rest of the component is anything
			}
			continue
		}
		last = len(out)
		out = append(out, c)
	}
	if !found {
		return "", false
	}
	return patternWord(out), true
}

// checkTextPattern refuses a pattern matched against text ([[ x == p ]],
// a case pattern) that zsh reads differently: its ^, ~ and # operators.
// A regex (=~) is not a pattern and is not checked here.
func (p *Parser) checkTextPattern(w *syntax.Word, pat []byte) bool {
	if p.prof != Zsh || p.textRegex {
		return true
	}
	for i := 0; i < len(pat); i++ {
		switch pat[i] {
		case '\\':
			i++
		case '^', '~', '#':
			if i > 0 && pat[i-1] == '[' {
				continue
			}
			p.refuseAs("zsh pattern operator", p.src(w), "with the common extendedglob option reads ^, ~ and # in a pattern as negation, exclusion and repetition", hintZshGlob)
			return false
		}
	}
	return true
}

// checkBrackets refuses an unquoted [ with no ] after it in its word
// (pat, quoted characters escaped), which bash keeps as text: zsh fails
// the command on it (bad pattern), and fish the whole line. A lone [ is
// the test command.
func (p *Parser) checkBrackets(w *syntax.Word, pat []byte) bool {
	if (p.prof != Zsh && p.prof != Fish) || string(pat) == "[" {
		return true
	}
	open := false
	for i := 0; i < len(pat); i++ {
		switch pat[i] {
		case '\\':
			i++
		case '[':
			open = true
		case ']':
			open = false
		}
	}
	if !open {
		return true
	}
	p.refuseAs("[ without ]", p.src(w), "fails on a [ that no ] closes", hintZshGlob)
	return false
}

// checkEquals refuses a word that zsh's EQUALS option expands: an
// unquoted "=" at its start followed by more text is the path of the
// program named after it (=ls is /usr/bin/ls).
func (p *Parser) checkEquals(w *syntax.Word, parts []syntax.WordPart) bool {
	if p.prof != Zsh || len(parts) == 0 {
		return true
	}
	lit, ok := parts[0].(*syntax.Lit)
	if !ok || !strings.HasPrefix(lit.Value, "=") || (lit.Value == "=" && len(parts) == 1) {
		return true
	}
	p.refuseAs("= at the start of a word", p.src(w), "replaces =name with the path of the program name", hintEquals)
	return false
}

// checkTildeAssign refuses a tilde after the "=" or a ":" of an
// assignment-like argument (make PREFIX=~/x): bash expands it, zsh (without
// magic_equal_subst) and fish pass it as written.
func (p *Parser) checkTildeAssign(w *syntax.Word) bool {
	if p.prof != Zsh && p.prof != Fish {
		return true
	}
	p.refuseAs("~ after = or :", p.src(w), "does not expand it there, where bash puts the home folder", hintTildeAssign)
	return false
}

// checkBraceTilde refuses a ~ that a brace expansion put at the start of
// a word ({~,x}): bash expands it, fish only a ~ at the start of the word
// as written.
func (p *Parser) checkBraceTilde(w *syntax.Word) bool {
	if lit, ok := w.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(lit.Value, "~") {
		return true
	}
	p.refuseAs("~ from a brace expansion", p.src(w), "expands only a ~ at the start of the word as written", hintTildeAssign)
	return false
}

// checkStmt refuses the statement shapes the profile's shell reads
// differently: in fish a ( ) or { } group and |&; in zsh a descriptor
// redirected more than once, which zsh's MULTIOS turns into a copy to
// every target (a pipe included).
func (p *Parser) checkStmt(s *syntax.Stmt) {
	switch p.prof {
	case Fish:
		if call, ok := s.Cmd.(*syntax.CallExpr); ok && len(call.Args) > 0 {
			for _, r := range s.Redirs {
				if r.Pos().Offset() < call.Args[0].Pos().Offset() {
					p.refuseAs("redirection before the command", p.src(r), "refuses a line that starts with a redirection", hintRedir)
					break
				}
			}
		}
		switch c := s.Cmd.(type) {
		case *syntax.Subshell:
			p.refuseAs("( ) group", p.src(s), "runs the words in parentheses as a command substitution", hintFishGroup)
		case *syntax.Block:
			p.refuseAs("{ } group", p.src(s), "has no { } groups and reads the braces as a brace expansion", hintFishGroup)
		case *syntax.BinaryCmd:
			if c.Op == syntax.PipeAll {
				p.refuseAs("|&", "|&", "refuses it; its own form is &|", hintPipeAll)
			}
		}
	case Zsh:
		p.multios(s)
		if call, ok := s.Cmd.(*syntax.CallExpr); ok && len(s.Redirs) > 0 {
			for _, w := range call.Args {
				if p.namedFd(w) {
					p.refuseAs("{name} before a redirection", p.src(w), "opens a new descriptor and stores its number in name, even after a blank", hintNamedFd)
				}
			}
		}
	}
}

// namedFd reports whether w is a {name} word that the next token, a
// redirection, makes zsh's named descriptor ({fd} >file).
func (p *Parser) namedFd(w *syntax.Word) bool {
	src := p.src(w)
	if len(src) < 3 || src[0] != '{' || src[len(src)-1] != '}' || !assignmentLike(src[1:len(src)-1]+"=") {
		return false
	}
	rest := strings.TrimLeft(p.line[int(w.End().Offset()):], " \t")
	rest = strings.TrimLeft(rest, "0123456789")
	return strings.HasPrefix(rest, "<") || strings.HasPrefix(rest, ">") || strings.HasPrefix(rest, "&>")
}

// checkQuotedStart refuses a word that starts with empty quotes and then
// an unquoted ~ or =: zsh still expands them there (""~/x is the home
// folder's x), where bash reads them as text.
func (p *Parser) checkQuotedStart(w *syntax.Word, pieces []piece) bool {
	if p.prof != Zsh {
		return true
	}
	// Empty pieces are skipped whether quoted or not: a brace element
	// that was empty ({a,}""~) leaves an empty literal before the quotes.
	k, quoted := 0, false
	for k < len(pieces) && pieces[k].s == "" {
		quoted = quoted || !pieces[k].raw
		k++
	}
	if !quoted || k == len(pieces) || !pieces[k].raw || (pieces[k].s[0] != '~' && pieces[k].s[0] != '=') {
		return true
	}
	p.refuseAs("~ or = after empty quotes", p.src(w), "expands it as at the start of the word", hintTildeAssign)
	return false
}

// multios refuses what zsh's MULTIOS option (on by default) changes: two
// redirections of one descriptor in one statement, an output redirection
// on a command whose output also goes to a pipe, and an input
// redirection on a command that also reads a pipe.
func (p *Parser) multios(s *syntax.Stmt) {
	var seen [3]int // how many times each of 0, 1, 2 is redirected
	for _, r := range s.Redirs {
		fds, n := redirFds(r)
		for _, fd := range fds[:n] {
			if fd < len(seen) {
				seen[fd]++
				if seen[fd] == 2 {
					p.refuseAs("descriptor redirected twice", p.src(s), "copies the output to every target (or reads every input in turn) with its multios option", hintMultios)
					return
				}
			}
		}
	}
	bc, ok := s.Cmd.(*syntax.BinaryCmd)
	if !ok || (bc.Op != syntax.Pipe && bc.Op != syntax.PipeAll) {
		return
	}
	left := bc.X
	for {
		if b, ok := left.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) {
			left = b.Y
			continue
		}
		break
	}
	right := bc.Y
	for {
		if b, ok := right.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) {
			right = b.X
			continue
		}
		break
	}
	for _, r := range left.Redirs {
		fds, n := redirFds(r)
		for _, fd := range fds[:n] {
			if fd == 1 || (fd == 2 && bc.Op == syntax.PipeAll) {
				p.refuseAs("output redirection before a pipe", p.src(left), "sends the output to the file and to the pipe with its multios option", hintMultios)
				return
			}
		}
	}
	for _, r := range right.Redirs {
		fds, n := redirFds(r)
		for _, fd := range fds[:n] {
			if fd == 0 {
				p.refuseAs("input redirection after a pipe", p.src(right), "reads the pipe and then the file with its multios option", hintMultios)
				return
			}
		}
	}
}

// redirFds is the descriptors a redirection sets: the first n of fds.
func redirFds(r *syntax.Redirect) (fds [2]int, n int) {
	fd := -1
	if r.N != nil && allDigits(r.N.Value) && len(r.N.Value) < 3 {
		fd = int(r.N.Value[0] - '0')
		if len(r.N.Value) == 2 {
			fd = fd*10 + int(r.N.Value[1]-'0')
		}
	}
	switch r.Op {
	case syntax.RdrAll, syntax.AppAll:
		return [2]int{1, 2}, 2
	case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		if fd < 0 {
			fd = 0
		}
	default:
		if fd < 0 {
			fd = 1
		}
	}
	if fd == 1 && r.Op == syntax.DplOut && r.N == nil {
		// >&file writes both outputs, as &> does.
		if v := r.Word.Lit(); !allDigits(v) && v != "-" {
			return [2]int{1, 2}, 2
		}
	}
	return [2]int{fd}, 1
}

// checkRedirect refuses a redirection operator the profile's shell reads
// differently: >| in zsh (which reads >| and >! alike, so both are
// refused, as is a ! right after any other operator) and fish (which reads > then a pipe), and in fish every
// operator it does not share with bash.
func (p *Parser) checkRedirect(r *syntax.Redirect) {
	switch p.prof {
	case Zsh:
		if r.Op == syntax.RdrClob {
			p.refuseAs("clobbering redirection", p.src(r), "reads >| and >! as one operator", hintClobber)
		}
		// A ! right after the operator, with no blank between, is part of
		// it in zsh (>!, >>!, &>!, >&!): the clobbering form, which writes
		// the word after it, where bash writes a file named !.
		if at := int(r.OpPos.Offset()) + len(r.Op.String()); writesOnly(r.Op) && r.Word != nil && int(r.Word.Pos().Offset()) == at && at < len(p.line) && p.line[at] == '!' {
			p.refuseAs("clobbering redirection", p.src(r), "reads "+r.Op.String()+"! as one operator that writes the word after it", hintClobber)
		}
		if (r.Op == syntax.DplOut || r.Op == syntax.DplIn) && r.Word.Lit() == "-" {
			p.refuseAs("closed descriptor", p.src(r), "lets its builtins write to a closed descriptor without failing, where bash's fail", hintRedir)
		}
		if r.Op == syntax.DplOut && r.N != nil {
			if v := r.Word.Lit(); v != "-" && !allDigits(v) && !(strings.HasSuffix(v, "-") && allDigits(v[:len(v)-1])) {
				p.refuseAs("redirection", p.src(r), "writes the file named after N>&, where bash refuses it as ambiguous", hintRedir)
			}
		}
	case Fish:
		if end := int(r.Word.End().Offset()); end < len(p.line) && (p.line[end] == '<' || p.line[end] == '>') {
			p.refuseAs("redirection", p.src(r)+p.line[end:end+1], "reads a word and a < or > right after it as one more redirection", hintRedir)
		}
		switch r.Op {
		case syntax.RdrClob:
			p.refuseAs("redirection", p.src(r), "reads >| as > followed by a pipe into the next word", hintRedir)
		case syntax.RdrInOut, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			p.refuseAs("redirection", p.src(r), "has no <>, here-documents or here-strings", hintRedir)
		case syntax.DplIn, syntax.DplOut:
			switch v := r.Word.Lit(); {
			case v == "-":
				p.refuseAs("closed descriptor", p.src(r), "lets its builtins write to a closed descriptor without failing, where bash's fail", hintRedir)
			case !allDigits(v):
				p.refuseAs("redirection", p.src(r), "duplicates only a descriptor number", hintRedir)
			}
		}
	}
}

// writesOnly reports whether op only writes (>, >>, &>, &>>, >&), the
// operators zsh has a clobbering form of with a ! after them; after <
// or <> a ! is a file's name in zsh too.
func writesOnly(op syntax.RedirOperator) bool {
	switch op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.DplOut:
		return true
	}
	return false
}

// stateBuiltins change the shell of the terminal for the calls typed
// after this one (a PATH set with printf -v, an alias, a trap, an exec
// that replaces the shell, a hash entry that points ls elsewhere), or read
// the next call typed as their input; under bash -c those changes end
// with the call. history and fc rerun or edit earlier lines.
var stateBuiltins = map[string]bool{
	"alias": true, "unalias": true, "bind": true, "complete": true, "compopt": true,
	"enable": true, "hash": true, "set": true, "shopt": true, "source": true, ".": true,
	"trap": true, "ulimit": true, "umask": true, "unset": true, "exec": true, "eval": true,
	"history": true, "fc": true, "read": true, "mapfile": true, "readarray": true,
	"getopts": true, "fg": true, "bg": true, "disown": true, "suspend": true,
}

// printsLimits reports ulimit or umask with options only, each from the
// letters every shell shares for printing (ulimit -a, ulimit -n, ulimit
// -Hn, umask, umask -S): they print the limits or the mask. A number or
// any other word sets them, kept for the later calls.
func printsLimits(name string, args []string) bool {
	letters := ""
	switch name {
	case "ulimit":
		letters = "aHScdfnstuv"
	case "umask":
		letters = "S"
	default:
		return false
	}
	for _, a := range args {
		if len(a) < 2 || a[0] != '-' || strings.Trim(a[1:], letters) != "" {
			return false
		}
	}
	return true
}

// zshRunsInShell are the names zsh runs in its own process (its
// builtins, those bash shares included): in the last command of a
// pipeline zsh runs them without a fork, and a pattern there that matches
// nothing stops the line without waiting for the rest of the pipeline.
var zshRunsInShell = map[string]bool{
	"-": true, ".": true, ":": true, "[": true, "alias": true, "autoload": true, "bg": true, "bindkey": true,
	"break": true, "builtin": true, "bye": true, "cd": true, "chdir": true, "command": true, "continue": true,
	"declare": true, "dirs": true, "disable": true, "disown": true, "echo": true, "echotc": true, "echoti": true,
	"emulate": true, "enable": true, "eval": true, "exec": true, "exit": true, "export": true, "false": true,
	"fc": true, "fg": true, "float": true, "functions": true, "getln": true, "getopts": true, "hash": true,
	"history": true, "integer": true, "jobs": true, "kill": true, "let": true, "limit": true, "local": true,
	"log": true, "logout": true, "noglob": true, "popd": true, "print": true, "printf": true, "private": true,
	"pushd": true, "pushln": true, "pwd": true, "r": true, "read": true, "readonly": true, "rehash": true,
	"return": true, "sched": true, "set": true, "setopt": true, "shift": true, "source": true, "suspend": true,
	"test": true, "times": true, "trap": true, "true": true, "ttyctl": true, "type": true, "typeset": true,
	"ulimit": true, "umask": true, "unalias": true, "unfunction": true, "unhash": true, "unlimit": true,
	"unset": true, "unsetopt": true, "vared": true, "wait": true, "whence": true, "where": true, "which": true,
	"zcompile": true, "zformat": true, "zle": true, "zmodload": true, "zparseopts": true, "zregexparse": true,
	"zstyle": true,
}

// shellExits are the builtins that change the shell they run in (its
// folder) or end it. bash runs every command of a pipeline in a subshell;
// zsh runs the last one in the terminal's shell, and fish runs every
// builtin there.
var shellExits = map[string]bool{
	"cd": true, "pushd": true, "popd": true, "chdir": true, "exit": true, "logout": true, "bye": true, "return": true,
}

// jobBuiltins take job specs (%1) that name the terminal's jobs.
var jobBuiltins = map[string]bool{"kill": true, "wait": true, "jobs": true, "fg": true, "bg": true, "disown": true}

// zshBuiltins are zsh's own builtins, reserved words and precommand
// modifiers that bash does not have (under bash -c they are programs
// looked up on PATH): r reruns the last line, noglob and - change how the
// rest is read, print and the z* builtins do things bash never does.
var zshBuiltins = map[string]bool{
	"-": true, "autoload": true, "bindkey": true, "bye": true, "chdir": true, "comparguments": true,
	"compcall": true, "compctl": true, "compdescribe": true, "compfiles": true, "compgroups": true,
	"compquote": true, "comptags": true, "comptry": true, "compvalues": true, "compadd": true, "compset": true,
	"echotc": true, "echoti": true, "emulate": true, "end": true, "float": true, "foreach": true,
	"functions": true, "getln": true, "integer": true, "limit": true, "log": true, "nocorrect": true,
	"noglob": true, "print": true, "private": true, "pushln": true, "r": true, "rehash": true,
	"repeat": true, "sched": true, "setopt": true, "ttyctl": true, "unfunction": true, "unhash": true,
	"unlimit": true, "unsetopt": true, "vared": true, "whence": true, "where": true, "zcompile": true,
	"zformat": true, "zle": true, "zmodload": true, "zparseopts": true, "zregexparse": true, "zstyle": true,
}

// fishBuiltins are the keywords, builtins and functions of fish 3 (with
// no configuration) that bash -c would run as some other program, or not
// at all. ls, grep and diff (functions that add colour, and ls -F on a
// terminal), realpath (a function that runs the program), and the
// builtins bash shares with the same effect (echo and cd with the checks
// below, printf, test, [, pwd, type, true, false; pushd DIR, popd and
// dirs, fish's functions that keep the same folder stack) are not here.
var fishBuiltins = map[string]bool{
	"_": true, "abbr": true, "and": true, "argparse": true, "begin": true, "block": true,
	"breakpoint": true, "case": true, "commandline": true, "contains": true, "count": true,
	"else": true, "emit": true, "end": true, "function": true, "functions": true, "math": true,
	"not": true, "or": true, "path": true, "random": true, "set_color": true, "status": true,
	"string": true, "switch": true, "N_": true, "cdh": true, "contains_seq": true, "dirh": true,
	"down-or-search": true, "edit_command_buffer": true, "export": true, "funced": true,
	"funcsave": true, "help": true, "isatty": true, "la": true, "ll": true, "man": true, "nextd": true,
	"open": true, "prevd": true, "psub": true, "setenv": true,
	"up-or-search": true, "vared": true,
}

// checkCommand refuses a simple command whose program the profile's shell
// runs differently from bash -c: a builtin of that shell alone, one that
// changes the terminal's shell for later calls, a job of the terminal,
// and the echo and cd whose options differ.
func (p *Parser) checkCommand(argv []string) {
	name, args := argv[0], argv[1:]
	if (name == "builtin" || name == "command") && len(args) > 0 {
		// Both run the builtin named next (command only when no
		// function has the name), so judge that one.
		name, args = args[0], args[1:]
	}
	if strings.HasPrefix(name, "%") {
		p.refuseAs("job", name, "resumes the terminal's job of that name", hintJob)
		return
	}
	switch {
	case p.prof == Zsh && zshBuiltins[name]:
		p.refuseAs("zsh builtin", name, "runs its own builtin, where bash -c runs a program of that name", hintBuiltin)
		return
	case p.prof == Fish && (fishBuiltins[name] || strings.HasPrefix(name, "fish_") || strings.HasPrefix(name, "prompt_")):
		p.refuseAs("fish builtin", name, "runs its own builtin or function, where bash -c runs a program of that name", hintBuiltin)
		return
	case stateBuiltins[name] && !printsLimits(name, args):
		p.refuseAs("builtin", name, "keeps what it changes for every later call typed into the terminal", hintState)
		return
	case name == "printf" && len(args) > 0 && strings.HasPrefix(args[0], "-v"):
		p.refuseAs("printf -v", "printf "+args[0], "keeps the variable it sets for every later call typed into the terminal", hintState)
		return
	}
	if jobBuiltins[name] {
		for _, a := range args {
			if strings.HasPrefix(a, "%") {
				p.refuseAs("job", a, "names the terminal's job of that number", hintJob)
				return
			}
		}
	}
	if (p.prof == Zsh || p.prof == Fish) && (p.pipeLeft > 0 || p.pipeLast) && shellExits[name] {
		p.refuseAs(name+" in a pipeline", name, "runs the builtins of a pipeline in the terminal's shell itself, so it changes that shell", hintState)
		return
	}
	switch name {
	case "pwd":
		for _, a := range args {
			if !strings.HasPrefix(a, "-") && (p.prof == Zsh || p.prof == Fish) {
				p.refuseAs("pwd with an operand", "pwd "+a, "refuses operands, which bash ignores", hintBuiltin)
				return
			}
		}
	case "echo":
		p.checkEcho(args)
	case "cd", "pushd":
		if p.prof == Zsh {
			operands := 0
			for _, a := range args {
				if a != "-" && strings.HasPrefix(a, "-") && operands == 0 {
					continue
				}
				operands++
			}
			if operands > 1 {
				p.refuseAs("cd with two folders", "cd "+strings.Join(args, " "), "replaces the first in the current path with the second", hintZshCd)
				return
			}
			for _, a := range args {
				if len(a) > 1 && (a[0] == '+' || a[0] == '-') && strings.Trim(a[1:], "0123456789") == "" {
					// With auto_pushd (oh-my-zsh's default) every cd
					// fills that stack, with folders the gate never saw.
					p.refuseAs("cd to a folder of the stack", name+" "+a, "goes to an entry of zsh's folder stack, not to a folder of that name", hintZshCd)
					return
				}
			}
		}
		if p.prof == Fish && len(args) == 1 && args[0] == "-" {
			p.refuseAs("cd -", "cd -", "goes back in its own folder history, which is not bash's OLDPWD", hintZshCd)
		}
	}
}

// checkEcho refuses an echo that zsh's or fish's echo prints differently:
// zsh's reads backslash escapes by default and takes a lone - as the end
// of its options; fish's takes -s and -- as options, and with -e knows
// other escapes than bash's.
func (p *Parser) checkEcho(args []string) {
	if p.prof != Zsh && p.prof != Fish {
		return
	}
	options, escapes := true, p.prof == Zsh
	for _, a := range args {
		if options && len(a) > 1 && a[0] == '-' && strings.Trim(a[1:], "neEs") == "" && strings.IndexByte(a, 'e') >= 0 {
			escapes = true
		}
		if escapes && strings.IndexByte(a, '\\') >= 0 {
			p.refuseAs("echo with a backslash", "echo "+a, "prints backslash escapes its own way", hintEcho)
			return
		}
		if !options {
			continue
		}
		switch {
		case a == "-" && p.prof == Zsh, a == "--" && p.prof == Fish:
			p.refuseAs("echo option", "echo "+a, "reads it as the end of the options and does not print it", hintEcho)
			return
		case len(a) > 1 && a[0] == '-' && strings.Trim(a[1:], "neE") == "":
			// -n, -e, -E and their combinations mean the same in all.
		case len(a) > 1 && a[0] == '-' && p.prof == Fish && strings.Trim(a[1:], "neEs") == "":
			p.refuseAs("echo option", "echo "+a, "reads -s as an option (no spaces between the words)", hintEcho)
			return
		default:
			options = false
		}
	}
}
