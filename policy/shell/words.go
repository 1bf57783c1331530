package shell

import (
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

// fields appends to dst the literal words w expands to, in bash's order:
// brace expansion, then tilde expansion, then quote removal, with a check
// that no pathname expansion would apply. arg is true for a command's
// arguments, where bash also expands a tilde after the "=" of a word that
// looks like an assignment; false for a redirection target. ok is false when
// w was reported as a problem instead.
func (p *Parser) fields(dst []string, w *syntax.Word, arg bool) ([]string, bool) {
	if !p.parts(w.Parts) {
		return dst, false
	}
	if p.inter {
		p.checkWordBraces(w)
	}
	braces := countBraces(w.Parts)
	if braces == 0 {
		s, _, ok := p.literal(w, w.Parts, arg)
		if !ok {
			return dst, false
		}
		p.noteGlob(len(dst))
		return append(dst, s), true
	}
	return p.braceFields(dst, w, braces, arg)
}

// braceFields is fields for a word with a "{". It is its own function
// because the range over BracesSeq moves fields' parameters to the heap,
// and most words never need it.
func (p *Parser) braceFields(dst []string, w *syntax.Word, braces int, arg bool) ([]string, bool) {
	if braces > maxBraces {
		// Expanding deeply nested braces costs time that grows with the
		// cube of their number in mvdan's implementation.
		p.ps.add(classSyntax, "brace expansion with more than 32 braces", p.src(w))
		return dst, false
	}
	// SplitBraces replaces the word's Parts slice; it builds new Lits and
	// never changes the ones it was given, so a shallow copy keeps the
	// tree intact.
	cp := *w
	syntax.SplitBraces(&cp)
	// bash marks a word as assignment-like when it parses it; the words
	// a brace expansion makes lose the mark, so x=~/{a,b} keeps its "~"
	// while x=~/{a} (no expansion) does not.
	expanded := false
	for _, part := range cp.Parts {
		if _, ok := part.(*syntax.BraceExp); ok {
			expanded = true
			arg = false
			break
		}
	}
	if expanded && strayBraces(cp.Parts) {
		// mvdan and bash pair braces differently when a "{" or "}" that
		// starts no expansion sits around or beside one that does: bash
		// expands {{a,c}s\{1..3} to "as{1..3" and "cs{1..3", mvdan to
		// "{as{1..3}" and "{cs{1..3}". Rather than guess which words
		// bash would build, refuse.
		p.ps.add(classSyntax, "brace expansion beside unpaired braces", p.src(w))
		return dst, false
	}
	if expanded && !p.checkBraces(w, cp.Parts) {
		return dst, false
	}
	n, orig := 0, len(dst)
	ok := true
	if expanded {
		p.braceWord = w
		defer func() { p.braceWord = nil }()
	}
	for ew, err := range expand.BracesSeq(nil, &cp) {
		n++
		p.braceWords++
		if err != nil || n > maxBraceWords {
			p.ps.add(classSyntax, "brace expansion to more than 256 words", p.src(w))
			return dst[:orig], false
		}
		if p.braceWords > maxLineBraceWords {
			p.ps.add(classSyntax, "brace expansions to more than 1024 words in one line", p.src(w))
			return dst[:orig], false
		}
		s, null, wok := p.literal(w, ew.Parts, arg)
		if !wok {
			// One problem per word is enough: the other expansions of
			// the same word would name the same construct.
			ok = false
			break
		}
		if null {
			// {a,} is "a" alone: an empty unquoted word is removed, as
			// word splitting removes it in bash.
			if p.inter {
				p.checkNullBrace(w)
			}
			continue
		}
		p.noteGlob(len(dst))
		dst = append(dst, s)
	}
	if !ok {
		return dst[:orig], false
	}
	return dst, true
}

// strayBraces reports whether an unquoted literal in parts, or in the
// elements of a brace expansion among them, still has an unescaped "{" or
// "}" after SplitBraces: one that bash might pair differently.
func strayBraces(parts []syntax.WordPart) bool {
	for _, part := range parts {
		switch x := part.(type) {
		case *syntax.Lit:
			for i := 0; i < len(x.Value); i++ {
				switch x.Value[i] {
				case '\\':
					i++
				case '{', '}':
					return true
				}
			}
		case *syntax.BraceExp:
			for _, elem := range x.Elems {
				if strayBraces(elem.Parts) {
					return true
				}
			}
		}
	}
	return false
}

// countBraces counts the "{" in the unquoted parts of a word: only with
// one can brace expansion apply.
func countBraces(parts []syntax.WordPart) int {
	n := 0
	for _, part := range parts {
		if lit, ok := part.(*syntax.Lit); ok {
			n += strings.Count(lit.Value, "{")
		}
	}
	return n
}

// parts reports each part whose value is only known at run time; ok is
// true when there is none.
func (p *Parser) parts(parts []syntax.WordPart) bool {
	ok := true
	for _, part := range parts {
		if !p.part(part) {
			ok = false
		}
	}
	return ok
}

// part reports part if its value is only known at run time, and returns
// whether it is static. A static double-quoted string is checked inside.
func (p *Parser) part(part syntax.WordPart) bool {
	switch x := part.(type) {
	case *syntax.Lit:
		return true
	case *syntax.SglQuoted:
		if x.Dollar && strings.IndexByte(x.Value, '\\') >= 0 {
			// $'\x72m' is "rm": the escape hides the text from a reader,
			// and decoding it here would be a second, different
			// implementation of bash's rules.
			p.ps.add(classDynamic, "ANSI-C string with escapes", p.src(x))
			return false
		}
		return true
	case *syntax.DblQuoted:
		if x.Dollar {
			p.ps.add(classDynamic, "locale-translated string", p.src(x))
			return false
		}
		was := p.inDouble
		p.inDouble = true
		ok := p.parts(x.Parts)
		p.inDouble = was
		return ok
	case *syntax.ParamExp:
		if v, ok := p.boundValue(x); ok {
			return p.boundWordOK(x, v)
		}
		if p.printing && (plainParam(x) || defaultedParam(x)) {
			p.params = append(p.params, x.Param.Value)
			return true
		}
		p.ps.add(classDynamic, "parameter expansion", p.src(x))
	case *syntax.CmdSubst:
		if v, ok := p.valueOf(x); ok {
			return p.valueWordOK(x, v)
		}
		if p.prof == Fish {
			// Only a known value is read alike: fish has no here-documents,
			// and splits an unknown output at newlines alone.
			p.refuseAs("$", p.src(x), "expands a variable after every $ and refuses a lone one", hintDollar)
			return false
		}
		if p.inDouble && p.prof != Zsh && p.literalCat(x) {
			return true
		}
		p.ps.add(classDynamic, "command substitution", p.src(x))
	case *syntax.ArithmExp:
		p.ps.add(classDynamic, "arithmetic expansion", p.src(x))
	case *syntax.ProcSubst:
		p.ps.add(classDynamic, "process substitution", p.src(x))
	case *syntax.ExtGlob:
		p.ps.add(classDynamic, "extended glob", p.src(x))
		if p.prof == Zsh {
			p.refuseAs("glob qualifier", p.src(x), "reads (...) after a pattern as qualifiers that select files (*(.) is every plain file) or run code (*(e:...:))", hintZshGlob)
		}
	default:
		p.ps.add(classDynamic, "expansion", p.src(part))
	}
	return false
}

// literal is the value of one word whose parts are all static (checked by
// parts) and brace-expanded. w is the word as written, for naming it.
// assign enables bash's tilde expansion after the "=" of an
// assignment-like word. null is true for an empty word with no quotes,
// which bash removes.
func (p *Parser) literal(w *syntax.Word, parts []syntax.WordPart, assign bool) (s string, null, ok bool) {
	if p.inter && !p.checkEquals(w, parts) {
		return "", false, false
	}
	// Most words are one plain unquoted literal: no copy needed.
	if len(parts) == 1 {
		if lit, ok := parts[0].(*syntax.Lit); ok && plainLiteral(lit.Value) {
			return lit.Value, lit.Value == "", true
		}
	}
	p.pieces = p.pieces[:0]
	for _, part := range parts {
		switch x := part.(type) {
		case *syntax.Lit:
			if n := len(p.pieces); n > 0 && p.pieces[n-1].raw {
				p.pieces[n-1].s += x.Value
			} else {
				p.pieces = append(p.pieces, piece{s: x.Value, raw: true})
			}
		case *syntax.SglQuoted:
			p.pieces = append(p.pieces, piece{s: x.Value})
		case *syntax.DblQuoted:
			if len(x.Parts) == 0 {
				p.pieces = append(p.pieces, piece{})
			}
			for _, in := range x.Parts {
				switch in := in.(type) {
				case *syntax.Lit:
					p.pieces = append(p.pieces, piece{s: unescapeDouble(in.Value)})
				case *syntax.ParamExp:
					if v, ok := p.boundValue(in); ok {
						p.pieces = append(p.pieces, piece{s: v})
						continue
					}
					p.pieces = append(p.pieces, piece{s: p.src(in)}) // kept as written (printing)
				case *syntax.CmdSubst:
					if v, ok := p.valueOf(in); ok {
						p.pieces = append(p.pieces, piece{s: v.Text, shape: v.Shape})
						continue
					}
					p.pieces = append(p.pieces, piece{s: catText(in)}) // a literal $(cat <<'EOF'), checked by part
				}
			}
		case *syntax.CmdSubst:
			// A known value, checked by part: one that splitting and
			// pathname expansion leave as it is.
			v, _ := p.valueOf(x)
			p.pieces = append(p.pieces, piece{s: v.Text, shape: v.Shape})
		case *syntax.ParamExp:
			if v, ok := p.boundValue(x); ok {
				// Checked by part: a value that splitting and pathname
				// expansion leave as it is.
				p.pieces = append(p.pieces, piece{s: v})
				continue
			}
			p.pieces = append(p.pieces, piece{s: p.src(x)}) // kept as written (printing)
		}
	}
	if p.inter && !p.checkQuotedStart(w, p.pieces) {
		return "", false, false
	}
	// A word like NAME=value or NAME+=value: bash (outside POSIX mode)
	// expands a tilde after its "=" and after each ":", as in an
	// assignment, even when it is an argument.
	assign = assign && len(p.pieces) > 0 && p.pieces[0].raw && assignmentLike(p.pieces[0].s)
	quoted := false
	p.val, p.pat = p.val[:0], p.pat[:0]
	maybeGlob := false
	zshOp := false   // an unquoted ^ or #: zsh's extendedglob operators
	eligible := true // a tilde here starts a tilde prefix
	seenEq := false
	vary, varyStart, varyEnd := (func(string) bool)(nil), 0, 0
	for pi, pc := range p.pieces {
		if pc.shape != nil {
			if vary != nil {
				p.ps.add(classDynamic, "two command substitutions whose output may change before the line runs, in one word", p.src(w))
				return "", false, false
			}
			vary, varyStart, varyEnd = pc.shape, len(p.val), len(p.val)+len(pc.s)
		}
		if !pc.raw {
			quoted = true
			p.val = append(p.val, pc.s...)
			q := pattern.QuoteMeta(pc.s, 0)
			if p.prof == Zsh {
				q = quoteZshOps(q)
			}
			p.pat = append(p.pat, q...)
			eligible = false
			continue
		}
		s := pc.s
		for i := 0; i < len(s); i++ {
			c := s[i]
			if eligible && c == '~' {
				eligible = false
				j := i + 1
				for j < len(s) && s[j] != '/' && !(assign && seenEq && s[j] == ':') {
					j++
				}
				prefix := s[i+1 : j]
				// A prefix with a quoted character is no tilde prefix:
				// ~"/x" and ~\/x stay literal.
				quotedPrefix := strings.IndexByte(prefix, '\\') >= 0 || (j == len(s) && pi+1 < len(p.pieces))
				if quotedPrefix && (p.prof == Zsh || p.prof == Fish) {
					p.refuseAs("~ before a quoted character", p.src(w), "expands the ~ all the same", hintTildeAssign)
					return "", false, false
				}
				if !quotedPrefix {
					switch {
					case prefix != "":
						// ~user, ~+, ~-, ~2: another user's home, $PWD,
						// $OLDPWD, the directory stack.
						p.ps.add(classDynamic, "tilde expansion", "~"+prefix)
						return "", false, false
					case p.home == "":
						p.ps.add(classDynamic, "tilde expansion without a home directory", "~")
						return "", false, false
					case p.strict:
						p.ps.add(classSyntax, "home directory expansion", "~")
						return "", false, false
					}
					if (pi > 0 || i > 0) && p.inter && !p.checkTildeAssign(w) {
						return "", false, false
					}
					if p.braceWord != nil && p.prof == Fish && !p.checkBraceTilde(p.braceWord) {
						return "", false, false
					}
					p.val = append(p.val, p.home...)
					p.pat = append(p.pat, pattern.QuoteMeta(p.home, 0)...)
					i = j - 1
					continue
				}
			}
			eligible = false
			switch c {
			case '\\':
				p.pat = append(p.pat, '\\')
				if i+1 == len(s) {
					// A trailing backslash with nothing to escape is kept.
					p.val = append(p.val, '\\')
					p.pat = append(p.pat, '\\')
					continue
				}
				i++
				if s[i] != '\n' {
					p.val = append(p.val, s[i])
				}
				p.pat = append(p.pat, s[i])
				continue
			case '*', '?', '[':
				maybeGlob = true
			case '^', '#':
				zshOp = true
			case '=':
				if assign && !seenEq {
					seenEq, eligible = true, true
				}
			case ':':
				eligible = assign && seenEq
			}
			p.val = append(p.val, c)
			p.pat = append(p.pat, c)
		}
	}
	if vary != nil && !p.noteVarying(w, Value{Shape: vary}, varyStart, varyEnd) {
		return "", false, false
	}
	if p.hereWord {
		return string(p.val), false, true
	}
	if zshOp && !maybeGlob && p.prof == Zsh && !p.zshOperators(w) {
		return "", false, false
	}
	if maybeGlob && p.inter && !p.checkBrackets(w, p.pat) {
		return "", false, false
	}
	if maybeGlob && pattern.HasMeta(string(p.pat), 0) {
		if p.inter && (p.inArgs || p.loopList) && !p.textPattern && !p.checkPattern(w, p.pat) {
			return "", false, false
		}
		switch {
		case p.textPattern:
			if p.inter && !p.checkTextPattern(w, p.pat) {
				return "", false, false
			}
		case p.loopList && !p.strict:
			p.patWord = patternWord(p.pat)
		case p.inArgs && !p.strict && optionValueGlob(p.pat):
			p.globWord = true
		case p.inArgs && !p.strict:
			p.patWord = patternWord(p.pat)
		default:
			p.ps.add(classDynamic, "unquoted pattern", p.src(w))
			return "", false, false
		}
		return string(p.val), false, true
	}
	return string(p.val), len(p.val) == 0 && !quoted, true
}

// noteGlob records that the word about to go at argv index i is an
// option-value glob, if the last literal said so.
func (p *Parser) noteGlob(i int) {
	if p.globWord {
		p.globs = append(p.globs, i)
		p.globWord = false
	}
	if p.patWord != "" {
		p.patterns = append(p.patterns, Pattern{Index: i, Word: p.patWord})
		p.patWord = ""
	}
	if p.zshPatWord != "" {
		p.zshPats = append(p.zshPats, Pattern{Index: i, Word: p.zshPatWord})
		p.zshPatWord = ""
	}
	if p.varyWord != nil {
		v := *p.varyWord
		v.Index = i
		p.varying = append(p.varying, v)
		p.varyWord = nil
	}
}

// optionValueGlob reports whether a pattern is a long option whose value
// holds the pattern: "--name=" with no unescaped *, ? or [ before the "=".
func optionValueGlob(pat []byte) bool {
	if len(pat) < 4 || pat[0] != '-' || pat[1] != '-' {
		return false
	}
	for i := 2; i < len(pat); i++ {
		switch pat[i] {
		case '\\':
			i++
		case '*', '?', '[':
			return false
		case '=':
			return i > 2
		}
	}
	return false
}

// unescapeDouble removes the backslashes that escape a character inside
// double quotes: only before $, `, ", \ and a newline (which it removes).
func unescapeDouble(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				i++
				c = s[i]
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// assignmentLike reports whether s starts with NAME= or NAME+=, NAME a
// valid shell variable name.
func assignmentLike(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && i > 0:
		case c == '=' && i > 0:
			return true
		case c == '+' && i > 0 && i+1 < len(s) && s[i+1] == '=':
			return true
		default:
			return false
		}
	}
	return false
}

// plainLiteral reports whether s holds none of "\\~*?[": an unquoted
// literal that is its own value. It is asked of every word, and a byte
// loop over a table costs a fraction of strings.IndexAny's rune-by-rune
// search (and of a switch's compares per byte).
func plainLiteral(s string) bool {
	for i := 0; i < len(s); i++ {
		if notPlain[s[i]] {
			return false
		}
	}
	return true
}

// '^' and '#' are zsh's extendedglob operators (zshOperators).
var notPlain = [256]bool{'\\': true, '~': true, '*': true, '?': true, '[': true, '^': true, '#': true}

// quoteZshOps escapes the ^ and # of a quoted piece's pattern q, so that
// zshSuperset sees only the operators zsh would read.
func quoteZshOps(q string) string {
	if !strings.ContainsAny(q, "^#") {
		return q
	}
	var sb strings.Builder
	for i := 0; i < len(q); i++ {
		switch c := q[i]; c {
		case '\\':
			sb.WriteByte(c)
			if i+1 < len(q) {
				i++
				sb.WriteByte(q[i])
			}
		case '^', '#':
			sb.WriteByte('\\')
			sb.WriteByte(c)
		default:
			sb.WriteByte(c)
		}
	}
	return sb.String()
}
