// Package shell reduces a command line to what the gate can judge: the
// simple commands it would run, each as a literal argv, and the files its
// redirections would open. It parses with mvdan.cc/sh/v3/syntax (bash
// dialect) and never runs anything. Anything whose value is only known at
// run time is reported as a Problem, never guessed.
//
// Start at Parser.Parse. In the analyze profile a line is parsed by
// mvdan.cc/sh/v3/syntax and walked statement by statement (parser.go);
// each word is brace-expanded, tilde-expanded and unquoted the way bash
// does it, and refused if an expansion would make its value depend on run
// time (words.go). An unquoted pattern in an argument is kept for the
// command policy to expand against the folder it runs in (glob.go). The
// refuse profile first runs a POSIX tokenizer (refuse.go), so its refusals
// name the character a shell would act on, then checks that bash would read the
// same words. Problems are collected for the whole line and reported
// together (problems.go).
//
// The interactive profiles (bash-interactive, zsh, fish; profile.go) are
// for a line typed into a terminal: it is judged as bash -c would run it,
// and refused wherever that shell, its history or its line editor would
// read it differently (interactive.go), so that what they admit means the
// same under that shell as under bash -c. They model each shell with its
// default options and no startup files: aliases, functions, abbreviations
// and key bindings from the person's own rc files are not known.
//
// What is not covered: the parser does not know which programs are
// builtins or what they do (eval, exec, source, env, xargs, sh -c are
// ordinary argv here; the command policy judges them), except where an
// interactive profile refuses a builtin its shell does not share with
// bash, and it does not read the environment, so aliases and shell
// options (extglob, nullglob, failglob, posix mode) are assumed to be
// bash's non-interactive defaults.
package shell

import "admit/policy/rule"

// Script is a command line reduced to its simple commands, in source order.
type Script struct {
	Commands []Command
	// ShellOnly names the constructs of the line that a shell runs as
	// judged but admit's own runner does not (a loop, a background job,
	// a here-document's text as a word, kill of a probe's pids): the
	// gate leaves such a line to the host's shell (see shellonly.go).
	ShellOnly []string
	// Expanded are the commands of for loops whose words a pattern gave
	// (Parser.Loops): bash took the names from the folder before the
	// loop ran, so a command of the line outside them that changes
	// files could change the names.
	Expanded []Span
}

// Command is one simple command with literal words.
type Command struct {
	// Argv is never empty and Argv[0] is never "". Brace expansion has
	// been done ({a,b} gives two words), "~" has been replaced by the home
	// directory, and quotes and backslashes have been removed.
	Argv []string
	// Redirects are in the order bash performs them: those of enclosing
	// ( ) and { } groups first, then the command's own as written.
	Redirects []Redirect
	// Joiner is the operator that joins this command to the previous one:
	// "" for the first, ";", "&&", "||" or "|". A newline is ";", and "|&"
	// is "|" plus a Redirect with Op "|&" on the command before it. The
	// first command inside a group takes the joiner written before the
	// group.
	Joiner string
	// Subshell is true inside ( ... ) or a pipeline of more than one
	// command, where a cd does not reach the commands after it.
	Subshell bool
	// GlobOptions are the argv indexes of words like --include=*.go: a
	// long option whose value holds an unquoted pattern. bash could only
	// replace such a word with file names that start with the same
	// "--include=", so the option is certain and only its value is not;
	// the command policy admits them for options whose value is text.
	GlobOptions []int
	// Patterns are the words bash would expand to file names (ls *.go),
	// in argv order. Argv holds each as bash passes it when nothing
	// matches; ExpandPatterns replaces them with the names that match in
	// a given folder, which is where the command policy judges them.
	Patterns []Pattern
	// SortedByFish says the line may run in fish (the fish and portable
	// profiles), which orders a pattern's names its own way
	// (README.md after notes.md): ExpandPatterns sets FishArgv where that
	// order differs from bash's, and refuses a name whose place in it is
	// not known (ErrFishOrder). When nothing matches, fish runs nothing
	// where bash passes the word.
	SortedByFish bool
	// FishArgv is Argv with each pattern's names in fish's order, set by
	// ExpandPatterns where that differs: the command policy judges both.
	FishArgv []string
	// ZshPatterns are the words bash passes as written that zsh's common
	// extendedglob option expands, by a ^ or # outside quotes (.en^,
	// .en#v, ^x), each as a bash pattern matching every name it could:
	// zsh profile only. Where one matches a name the line does not mean
	// what bash would run; where none does, zsh fails the command.
	ZshPatterns []Pattern
	// Substitutions are the words of Argv that are a command substitution
	// $(INNER), kept only with Parser.Substitutions; Argv holds each as
	// written. bash replaces such a word with INNER's output split at
	// blanks, each field then expanded as a pattern, so the words the
	// command gets are only known when it runs.
	Substitutions []Substitution
	// Params are the indexes of the words of Argv, arguments of echo or
	// printf, that hold a plain $NAME or $? (kept as written); ParamNames
	// are those names. The shell replaces them with the variables' values,
	// split into any number of words when unquoted, so the words echo
	// gets are only known when it runs.
	Params     []int
	ParamNames []string
	// Env are the assignments written before the command (CI=true npm
	// test), each NAME=value with a literal value, in order: the shell
	// passes them in the command's environment, as env NAME=value would.
	Env []string
	// Background: the command is part of a statement run with "&", so
	// the line goes on (and ends) while it still runs.
	Background bool
	// Fed: the command reads the pipe written by the command just before
	// it, and by no other: the left side of the pipeline is one simple
	// command (not (a; b) | c, where both write to the pipe).
	Fed bool
	// Feeders are the commands the shell runs to build a word of this
	// one whose output the line shows: cat of a literal here-document in
	// "$(cat <<'EOF' ... EOF)" (the word holds the text). They read
	// nothing else, but are programs all the same, looked up on PATH.
	Feeders [][]string
	// Pids are the words of a kill that are $(PROBE), PROBE one simple
	// command of literal words (lsof -ti:3000, pgrep -f x): the shell
	// replaces them with the pids PROBE prints. Argv holds each as
	// written.
	Pids []Substitution
	// Valued is set when words of Argv hold the output of a $(COMMAND)
	// the parser took from Parser.Values (values.go); nil for nearly
	// every command, so the rare case costs a Command one pointer.
	Valued *Valued
	// Read is the while read loop the command is in (readloop.go), whose
	// line stands in Argv and Redirects as ReadValue; nil outside one.
	Read *ReadLoop
	// Via is the shell (sh, bash) whose literal line (sh -c LINE) this
	// command is part of: set by the command policy, which judges that
	// line's commands as the line's own, and the shell's name on PATH.
	Via string
}

// Substitution is a word $(INNER) of a command, INNER one simple command
// of literal words without redirections.
type Substitution struct {
	Index int      // its place in Argv
	Argv  []string // INNER's words
}

// Pattern is an argument that pathname expansion would replace.
type Pattern struct {
	Index int    // its place in Argv
	Word  string // the word as unquoted shell text: quoted characters backslash-escaped
}

// Redirect is one redirection of a simple command.
//
// Op is the operator with the descriptor written before it: ">", "2>",
// ">>", "2>>", ">|", "<", "<>", "&>", "&>>", "<<", "<<-", "<<<". For a
// duplication, a move or a close it also carries the descriptor written
// after it: "2>&1", ">&2", "<&0", "2>&1-", ">&-". A ">&" or "2>&" whose
// word is a file name is a write of that file (bash reads ">&file" as
// "&>file") and has Op ">&" or "2>&". "|&" is the stderr a "|&" joins to
// the pipe.
//
// Target is empty exactly when no file is opened (duplications, closes,
// here-documents, here-strings, "|&"); a redirection to an empty file name
// is refused, so "" never means a file.
type Redirect struct {
	Fd     int    // the descriptor redirected (1 for ">" and "&>", 0 for "<"), or the one written before Op
	Op     string // the operator as written, see above
	Target string // literal path; empty for a descriptor duplication or a here-document
	Write  bool   // opens Target for writing (truncate, append, or "<>")
	Read   bool   // opens Target for reading ("<" and "<>")
	// Text is what a here-document or a here-string feeds the command,
	// as the shell passes it (every one the parser admits is literal).
	Text string
}

// Problem is why a command line cannot be judged statically. A line may
// have several problems; all are named. Rule is shell-syntax if any of them
// is a construct the profile does not run, else dynamic-word if a word's
// value is only known at run time, else empty-command.
type Problem struct {
	Rule   rule.Rule // rule.ShellSyntax, rule.DynamicWord or rule.EmptyCommand
	Items  []string  // every construct found, each named, e.g. `command substitution "$(...)"`
	Reason string    // one sentence naming every item, written for a model
	// Hint says what to write instead: for a construct an interactive
	// profile refuses, how to say the same in words every shell reads
	// alike; otherwise to write plain words. Never empty.
	Hint string
}

func (p *Problem) Error() string { return p.Reason }

// zshPatterns reports whether a command of s has ZshPatterns.
func zshPatterns(s *Script) bool {
	for i := range s.Commands {
		if len(s.Commands[i].ZshPatterns) > 0 {
			return true
		}
	}
	return false
}
