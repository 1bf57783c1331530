// Package shell reduces a command line to what the gate can judge: the
// simple commands it would run, each as a literal argv, and the files its
// redirections would open. It parses with mvdan.cc/sh/v3/syntax (bash
// dialect) and never runs anything. Anything whose value is only known at
// run time is reported as a Problem, never guessed.
//
// Start at Parser.Parse.
package shell

// Profile is how much shell syntax a command line may use.
type Profile string

const (
	// Analyze parses lists, pipelines and redirections and reports every
	// simple command and redirect target (the default).
	Analyze Profile = "analyze"
	// Refuse accepts one simple command of literal words and nothing else,
	// as the seed's tokenizer does.
	Refuse Profile = "refuse"
)

// Script is a command line reduced to its simple commands, in source order.
type Script struct {
	Commands []Command
}

// Command is one simple command with literal words.
type Command struct {
	Argv      []string
	Redirects []Redirect
	// Joiner is the operator that joins this command to the previous one:
	// "" for the first, ";", "&&", "||" or "|".
	Joiner string
	// Subshell is true inside ( ... ) or a pipeline of more than one
	// command, where a cd does not reach the commands after it.
	Subshell bool
}

// Redirect is one redirection of a simple command.
type Redirect struct {
	Fd     int    // the descriptor redirected (1 for ">", 0 for "<")
	Op     string // the operator as written: ">", ">>", "<", "&>", "2>&1", "<<", ...
	Target string // literal path; empty for a descriptor duplication or a here-document
	Write  bool   // opens Target for writing (truncate or append)
	Read   bool   // opens Target for reading
}

// Problem is why a command line cannot be judged statically.
type Problem struct {
	Rule   string   // "shell-syntax", "dynamic-word" or "empty-command"
	Items  []string // every construct found, each named, e.g. `command substitution "$(...)"`
	Reason string   // one sentence naming every item, written for a model
}

func (p *Problem) Error() string { return p.Reason }
