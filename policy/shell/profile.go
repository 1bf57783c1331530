package shell

import (
	"fmt"
	"strings"
)

// Profile names the shell that will run a command line, and so how the
// gate reads it. Every profile judges the line as non-interactive bash
// (bash -c) would run it; the interactive ones also refuse whatever their
// shell would read differently, so that a line they admit means the same
// under that shell as under bash -c.
type Profile string

const (
	// Analyze is non-interactive bash (bash -c): lists, pipelines and
	// redirections are parsed, and every simple command and redirect
	// target is reported (the default).
	Analyze Profile = "analyze"
	// Refuse accepts one simple command of literal words and nothing else,
	// as the POSIX tokenizer of refuse.go splits them.
	Refuse Profile = "refuse"
	// BashInteractive is bash reading the line from a terminal (bash -i,
	// default options): as Analyze, and refused are history expansion
	// (!, a leading ^), every control character the line editor acts on,
	// a trailing backslash that would join the next line typed, job
	// specs (%1), and builtins that change the terminal's shell for the
	// calls after this one.
	BashInteractive Profile = "bash-interactive"
	// Zsh is interactive zsh as a terminal runs it, with zsh's default
	// options (zsh -f -i): as BashInteractive (with zsh's history rules),
	// and refused are "#" (not a comment in interactive zsh), >! and >|,
	// =word, ** and ***, the glob syntax of zsh alone (qualifiers,
	// <1-10>, ^ ~ # in patterns, a [ no ] closes), several redirections
	// of one descriptor (zsh's MULTIOS), a tilde after "=" or ":", brace
	// expansions that zsh expands differently, $ before punctuation, and
	// the builtins zsh alone has or runs differently (r, print, echo with
	// a backslash, cd with two folders or to the folder stack (cd +1), cd
	// in a pipeline).
	Zsh Profile = "zsh"
	// Fish is fish 3.x in a terminal (fish --no-config -i): as
	// BashInteractive without history expansion, and refused are fish's
	// escapes (\x41, \n outside quotes), its single quotes (where \\ and
	// \' are escapes), every $ but $PWD, a $NAME echo prints and a $(...)
	// judged by its output (fish 3.4+ reads it as bash does: values.go),
	// bare ( ) and { } groups, % at the start of a word, file name patterns with ?, [...] or ** (a * alone is read as
	// bash reads it; fish's order of the names is judged where they are
	// expanded: Command.SortedByFish), brace expansions fish expands
	// differently, and the redirections and builtins fish does not share
	// with bash.
	Fish Profile = "fish"
	// Portable is a line for a shell the gate does not know for certain
	// (a host that runs "the person's shell", $SHELL unset or another
	// shell): admitted only if bash -c, interactive bash, interactive zsh
	// and fish all read it alike, that is if each of BashInteractive, Zsh
	// and Fish admits it. It refuses what any of them refuses: history
	// expansion, control characters, zsh's ** and glob syntax, patterns
	// but * and every $ (fish), fish's escapes, ...
	Portable Profile = "portable"
)

// portableShells are the profiles Portable must satisfy, each of which
// judges the line as bash -c does first.
var portableShells = [...]Profile{BashInteractive, Zsh, Fish}

// Profiles lists every profile, the default first.
func Profiles() []Profile {
	return []Profile{Analyze, Refuse, BashInteractive, Zsh, Fish, Portable}
}

// ParseProfile returns the profile named s. The empty string is the
// default, Analyze; any other name that is not a profile is an error that
// names the value and the choices.
func ParseProfile(s string) (Profile, error) {
	if s == "" {
		return Analyze, nil
	}
	for _, p := range Profiles() {
		if string(p) == s {
			return p, nil
		}
	}
	names := make([]string, 0, 6)
	for _, p := range Profiles() {
		names = append(names, string(p))
	}
	return "", fmt.Errorf("shell: unknown shell profile %q: want one of %s", s, strings.Join(names, ", "))
}

// interactive reports whether p is read by a shell in a terminal.
func (p Profile) interactive() bool {
	return p == BashInteractive || p == Zsh || p == Fish || p == Portable
}

// Interactive reports whether the profile is for a line typed into a
// shell in a terminal (or one that may be: Portable).
func (p Profile) Interactive() bool { return p.interactive() }

// TerminalProfile is the profile of an interactive terminal whose shell
// is the program at path ($SHELL): bash, zsh and fish have their own;
// any other shell, or none named, is judged Portable.
func TerminalProfile(path string) Profile {
	switch baseName(path) {
	case "bash":
		return BashInteractive
	case "zsh":
		return Zsh
	case "fish":
		return Fish
	}
	return Portable
}

// baseName is the last element of a slash-separated path ("" for "").
func baseName(path string) string {
	for len(path) > 1 && path[len(path)-1] == '/' {
		path = path[:len(path)-1]
	}
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		return path[i+1:]
	}
	return path
}

// shellName is how reasons name the shell of an interactive profile.
func (p Profile) shellName() string {
	switch p {
	case BashInteractive:
		return "interactive bash"
	case Zsh:
		return "interactive zsh"
	case Fish:
		return "fish"
	}
	return "bash"
}
