package shell

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"admit/policy/rule"
)

// home is the home directory the tests' parsers expand "~" to.
const home = "/home/u"

// Profiles a case runs in.
const (
	inAnalyze = "a"
	inRefuse  = "r"
	inBoth    = "ar"
)

type parseCase struct {
	note string
	line string
	in   string     // inAnalyze, inRefuse or inBoth
	argv [][]string // the commands' argv when the line is accepted
	rule rule.Rule  // the Problem's rule when it is refused
	has  []string   // texts the reason must contain
}

// cmds is a readable way to write argv lists: words of one command are
// separated by "\x1f"-free strings, commands by a nil entry.
func one(words ...string) [][]string { return [][]string{words} }

func many(cmds ...[]string) [][]string { return cmds }

func w(words ...string) []string { return words }

// cases are adversarial first: each is a way a line could mean more than
// its text says.
var cases = []parseCase{
	// Quoting tricks: the argv is what bash would pass.
	{note: "adjacent quotes join", line: `'r''m' -rf x`, in: inBoth, argv: one("rm", "-rf", "x")},
	{note: "backslash inside a word", line: `c\at a`, in: inBoth, argv: one("cat", "a")},
	{note: "mixed quotes in a name", line: `"c"a't' f`, in: inBoth, argv: one("cat", "f")},
	{note: "escaped dollar is literal", line: `echo \$HOME`, in: inBoth, argv: one("echo", "$HOME")},
	{note: "escaped dollar in double quotes", line: `echo "\$HOME"`, in: inBoth, argv: one("echo", "$HOME")},
	{note: "escaped quote in double quotes", line: `echo "a\"b"`, in: inBoth, argv: one("echo", `a"b`)},
	{note: "other backslash kept in double quotes", line: `echo "a\b"`, in: inBoth, argv: one("echo", `a\b`)},
	{note: "backslash literal in single quotes", line: `echo 'a\b'`, in: inBoth, argv: one("echo", `a\b`)},
	{note: "escaped backslash", line: `echo "\\"`, in: inBoth, argv: one("echo", `\`)},
	{note: "escaped blank joins words", line: `echo a\ b`, in: inBoth, argv: one("echo", "a b")},
	{note: "empty quotes are an argument", line: `echo '' ""`, in: inBoth, argv: one("echo", "", "")},
	{note: "lone dollar is literal", line: `echo $ a$`, in: inAnalyze, argv: one("echo", "$", "a$")},
	{note: "escaped backquote", line: "echo \\`", in: inBoth, argv: one("echo", "`")},
	{note: "HEAD~1 is no tilde", line: `git diff HEAD~1 -- src/a.go`, in: inBoth, argv: one("git", "diff", "HEAD~1", "--", "src/a.go")},
	{note: "brace-expanded command name", line: `{ls,-la}`, in: inAnalyze, argv: one("ls", "-la")},
	{note: "$'' without escapes is its text", line: `$'rm' x`, in: inAnalyze, argv: one("rm", "x")},
	{note: "$'' hides rm", line: `$'\x72m' -rf /`, in: inAnalyze, rule: rule.DynamicWord, has: w(`ANSI-C string with escapes "$'\x72m'"`)},
	{note: "$'' with an escaped quote", line: `echo $'a\'b'`, in: inAnalyze, rule: rule.DynamicWord},
	{note: "locale string", line: `echo $"hello"`, in: inAnalyze, rule: rule.DynamicWord, has: w("locale-translated string")},
	{note: "command substitution in double quotes", line: `cat "$(id)"`, in: inAnalyze, rule: rule.DynamicWord, has: w(`command substitution "$(id)"`)},
	{note: "echo prints a quoted substitution's output", line: `echo "$(id)"`, in: inAnalyze, argv: [][]string{{"id"}, {"echo", "output"}}},
	{note: "nested substitutions in double quotes", line: `echo "x$(echo "$(id)")"`, in: inAnalyze, rule: rule.DynamicWord, has: w("command substitution")},
	{note: "substitution as the program", line: `$(echo rm) -rf /`, in: inAnalyze, rule: rule.DynamicWord},
	{note: "backquotes", line: "echo `id`", in: inAnalyze, rule: rule.DynamicWord, has: w("command substitution \"`id`\"")},
	{note: "backquotes in double quotes", line: "echo \"`id`\"", in: inAnalyze, rule: rule.DynamicWord},
	{note: "IFS splits words", line: `ls${IFS}-la`, in: inAnalyze, rule: rule.DynamicWord, has: w(`parameter expansion "${IFS}"`)},
	{note: "IFS in quotes", line: `cat "${IFS}"`, in: inAnalyze, rule: rule.DynamicWord},
	{note: "positional parameters", line: `cat $@ $0 $1 $$ $? $#`, in: inAnalyze, rule: rule.DynamicWord, has: w(`"$@"`, `"$0"`, `"$1"`, `"$$"`, `"$?"`, `"$#"`)},
	{note: "echo's positional parameters", line: `echo $@ $0 $1 $$ $#`, in: inAnalyze, rule: rule.DynamicWord, has: w(`"$@"`, `"$0"`, `"$1"`, `"$$"`, `"$#"`)},
	// echo and printf print a plain variable: kept as written (Params).
	{note: "echo prints variables", line: `echo "$HOME" $? ${PATH} "exit: $?"`, in: inAnalyze, argv: one("echo", "$HOME", "$?", "${PATH}", "exit: $?")},
	{note: "printf prints a variable", line: `printf '%s\n' "$USER"`, in: inAnalyze, argv: one("printf", `%s\n`, "$USER")},
	{note: "a variable names no program", line: `$x hi`, in: inAnalyze, rule: rule.DynamicWord},
	{note: "a variable beside echo's pattern", line: `echo $x *.go`, in: inAnalyze, rule: rule.DynamicWord},
	{note: "a variable as a redirection target", line: `echo hi > $x`, in: inAnalyze, rule: rule.DynamicWord},
	{note: "echo's default words", line: `echo ${x:-$(id)}`, in: inAnalyze, rule: rule.DynamicWord},
	{note: "echo's indirection", line: `echo ${!x}`, in: inAnalyze, rule: rule.DynamicWord},
	{note: "echo's length and slice", line: `echo ${#x} ${x:1}`, in: inAnalyze, rule: rule.DynamicWord},
	{note: "a variable of echo's in a pipeline's other command", line: `echo $x | cat $x`, in: inAnalyze, rule: rule.DynamicWord, has: w(`parameter expansion "$x"`)},
	{note: "echo through a wrapper", line: `command echo $x`, in: inAnalyze, rule: rule.DynamicWord},
	{note: "default value that assigns", line: `echo ${x:=/etc/passwd}`, in: inAnalyze, rule: rule.DynamicWord},
	{note: "default value with an expansion", line: `echo ${x:-$(id)}`, in: inAnalyze, rule: rule.DynamicWord},
	{note: "default value with a pattern", line: `echo ${x:-/*}`, in: inAnalyze, rule: rule.DynamicWord},
	{note: "arithmetic", line: `echo $((1+2)) $[3]`, in: inAnalyze, rule: rule.DynamicWord, has: w("arithmetic expansion \"$((1+2))\"", `"$[3]"`)},
	{note: "process substitution of output", line: `diff a >(ls b)`, in: inAnalyze, rule: rule.DynamicWord, has: w(`process substitution ">(ls b)"`)},
	{note: "process substitution as part of a word", line: `diff x<(ls a) b`, in: inAnalyze, rule: rule.DynamicWord},
	{note: "process substitution as a target", line: `ls > >(tee x)`, in: inAnalyze, rule: rule.DynamicWord},
	{note: "same item once", line: `cat $x $x "$x"`, in: inAnalyze, rule: rule.DynamicWord, has: w(`has words whose value is only known when a shell runs them: parameter expansion "$x"`)},

	// Globs in every position.
	{note: "star is kept for the command policy to expand", line: `ls *.go`, in: inAnalyze, argv: one("ls", "*.go")},
	{note: "quoted star", line: `ls '*.go' "*.go" \*.go`, in: inAnalyze, argv: one("ls", "*.go", "*.go", "*.go")},
	{note: "question mark", line: `ls a?b`, in: inAnalyze, argv: one("ls", "a?b")},
	{note: "bracket class", line: `ls [ab].go`, in: inAnalyze, argv: one("ls", "[ab].go")},
	{note: "test brackets are words", line: `[ -f x ]`, in: inAnalyze, argv: one("[", "-f", "x", "]")},
	{note: "unmatched brackets are literal", line: `ls a[ ]b`, in: inAnalyze, argv: one("ls", "a[", "]b")},
	{note: "quoted bracket opens nothing", line: `ls "["a]`, in: inAnalyze, argv: one("ls", "[a]")},
	{note: "find pattern quoted", line: `find . -name '*.go'`, in: inBoth, argv: one("find", ".", "-name", "*.go")},
	{note: "find pattern unquoted", line: `find . -name *.go`, in: inAnalyze, argv: one("find", ".", "-name", "*.go")},
	{note: "glob as the program", line: `/bin/r? x`, in: inAnalyze, rule: rule.DynamicWord},
	{note: "glob in the middle of a path", line: `cat src/*/x`, in: inAnalyze, argv: one("cat", "src/*/x")},
	{note: "glob as the program after a brace", line: `{/bin/r?,x} y`, in: inAnalyze, rule: rule.DynamicWord, has: w("unquoted pattern as the program name")},
	{note: "glob in the refuse profile", line: `ls *.go`, in: inRefuse, rule: rule.ShellSyntax},
	{note: "a glob in a long option's value is kept, marked for the command policy", line: `grep --include=*.go x`, in: inAnalyze, argv: one("grep", "--include=*.go", "x")},
	{note: "a glob before the = is a pattern like any other", line: `grep --inc*=x y`, in: inAnalyze, argv: one("grep", "--inc*=x", "y")},
	{note: "a glob in a short option's value is a pattern", line: `grep -e* x`, in: inAnalyze, argv: one("grep", "-e*", "x")},
	{note: "a glob option value in a redirection target stays refused", line: `cat a > --x=*.go`, in: inAnalyze, rule: rule.DynamicWord},
	{note: "the refuse profile refuses every pattern", line: `grep --include=*.go x`, in: inRefuse, rule: rule.ShellSyntax},
	{note: "glob in a redirect target", line: `ls > *.txt`, in: inAnalyze, rule: rule.DynamicWord},
	{note: "extglob", line: `ls @(a|b)`, in: inAnalyze, rule: rule.DynamicWord, has: w(`extended glob "@(a|b)"`)},
	{note: "negated extglob", line: `rm !(keep)`, in: inAnalyze, rule: rule.DynamicWord},
	{note: "quoted pattern for grep", line: `grep -e 'a*' f`, in: inBoth, argv: one("grep", "-e", "a*", "f")},

	// Brace expansion is static: bash expands it before anything runs.
	{note: "list", line: `mkdir -p src/{a,b}`, in: inAnalyze, argv: one("mkdir", "-p", "src/a", "src/b")},
	{note: "sequence", line: `echo {1..3}`, in: inAnalyze, argv: one("echo", "1", "2", "3")},
	{note: "product", line: `echo {a,b}{c,d}`, in: inAnalyze, argv: one("echo", "ac", "ad", "bc", "bd")},
	{note: "padded sequence", line: `echo {01..03}`, in: inAnalyze, argv: one("echo", "01", "02", "03")},
	{note: "letters", line: `echo {a..c}`, in: inAnalyze, argv: one("echo", "a", "b", "c")},
	{note: "downward with a step", line: `echo {5..1..2}`, in: inAnalyze, argv: one("echo", "5", "3", "1")},
	{note: "quoted element", line: `echo {a,'b c'}`, in: inAnalyze, argv: one("echo", "a", "b c")},
	{note: "single-quoted braces", line: `echo '{a,b}'`, in: inBoth, argv: one("echo", "{a,b}")},
	{note: "double-quoted braces", line: `echo "{a,b}"`, in: inBoth, argv: one("echo", "{a,b}")},
	{note: "escaped braces", line: `echo \{a,b\}`, in: inBoth, argv: one("echo", "{a,b}")},
	{note: "one element is no expansion", line: `echo {a} {}`, in: inAnalyze, argv: one("echo", "{a}", "{}")},
	{note: "unclosed brace", line: `echo {a,b`, in: inAnalyze, argv: one("echo", "{a,b")},
	{note: "find -exec braces", line: `find . -exec cat {} \;`, in: inAnalyze, argv: one("find", ".", "-exec", "cat", "{}", ";")},
	{note: "brace then tilde", line: `echo {~,x}`, in: inAnalyze, argv: one("echo", home, "x")},
	{note: "brace with a variable", line: `cat a{b,$x}`, in: inAnalyze, rule: rule.DynamicWord},
	{note: "huge sequence", line: `echo {1..100000}`, in: inAnalyze, rule: rule.ShellSyntax, has: w("brace expansion to more than 256 words")},
	{note: "combinatorial blow-up", line: `echo {1..16}{1..16}{1..2}`, in: inAnalyze, rule: rule.ShellSyntax},
	{note: "sequence at the int64 edge", line: `echo {9223372036854775806..9223372036854775807}`, in: inAnalyze, rule: rule.ShellSyntax},
	{note: "braces in refuse", line: `mkdir -p src/{a,b}`, in: inRefuse, rule: rule.ShellSyntax, has: w(`unquoted pattern "{", unquoted pattern "}"`)},

	// Tilde, as bash expands it.
	{note: "home prefix", line: `cat ~/x`, in: inAnalyze, argv: one("cat", home+"/x")},
	{note: "home alone", line: `cd ~`, in: inAnalyze, argv: one("cd", home)},
	{note: "another user's home", line: `cat ~root/.ssh/id_rsa`, in: inAnalyze, rule: rule.DynamicWord, has: w(`tilde expansion "~root"`)},
	{note: "PWD", line: `cat ~+/x`, in: inAnalyze, rule: rule.DynamicWord},
	{note: "OLDPWD", line: `cd ~-`, in: inAnalyze, rule: rule.DynamicWord},
	{note: "quoted tilde", line: `cat '~/x' \~/y`, in: inAnalyze, argv: one("cat", "~/x", "~/y")},
	{note: "quoted prefix is no tilde prefix", line: `cat ~"/x"`, in: inAnalyze, argv: one("cat", "~/x")},
	{note: "option value keeps its tilde", line: `ls --dir=~/x`, in: inAnalyze, argv: one("ls", "--dir=~/x")},
	{note: "assignment-like argument", line: `make PREFIX=~/x`, in: inAnalyze, argv: one("make", "PREFIX="+home+"/x")},
	{note: "after a colon in an assignment-like argument", line: `make P=a:~/b`, in: inAnalyze, argv: one("make", "P=a:"+home+"/b")},
	{note: "append form", line: `make P+=~`, in: inAnalyze, argv: one("make", "P+="+home)},
	{note: "not a name", line: `echo 1a=~ x:~ a~`, in: inAnalyze, argv: one("echo", "1a=~", "x:~", "a~")},
	{note: "user after =", line: `echo A=~root`, in: inAnalyze, rule: rule.DynamicWord},
	{note: "tilde in a target", line: `ls > ~/o`, in: inAnalyze, argv: one("ls")},
	{note: "tilde in refuse", line: `ls ~`, in: inRefuse, rule: rule.ShellSyntax, has: w(`home directory expansion "~"`)},
	{note: "assignment tilde in refuse", line: `ls a=~`, in: inRefuse, rule: rule.ShellSyntax, has: w(`home directory expansion "~"`)},

	// Here-documents and here-strings.
	{note: "plain here-doc", line: "cat <<EOF\nhello\nEOF", in: inAnalyze, argv: one("cat")},
	{note: "here-doc with a variable", line: "cat <<EOF\n$HOME\nEOF", in: inAnalyze, rule: rule.DynamicWord, has: w(`"$HOME"`)},
	{note: "here-doc with a substitution", line: "cat <<EOF\n$(id)\nEOF", in: inAnalyze, rule: rule.DynamicWord},
	{note: "quoted delimiter keeps the body literal", line: "cat <<'EOF'\n$HOME `id`\nEOF", in: inAnalyze, argv: one("cat")},
	{note: "double-quoted delimiter", line: "cat <<\"EOF\"\n$(id)\nEOF", in: inAnalyze, argv: one("cat")},
	{note: "escaped delimiter", line: "cat <<\\EOF\n$x\nEOF", in: inAnalyze, argv: one("cat")},
	{note: "tab-stripping here-doc", line: "cat <<-EOF\n\thi\n\tEOF", in: inAnalyze, argv: one("cat")},
	{note: "unclosed here-doc", line: "cat <<EOF", in: inAnalyze, rule: rule.ShellSyntax, has: w("does not parse")},
	{note: "here-string", line: `cat <<<hello`, in: inAnalyze, argv: one("cat")},
	{note: "here-string is not globbed", line: `cat <<< '*' <<< *`, in: inAnalyze, argv: one("cat")},
	{note: "here-string with a variable", line: `cat <<<"$x"`, in: inAnalyze, rule: rule.DynamicWord},
	{note: "here-doc in refuse", line: "cat <<'EOF'\nx\nEOF", in: inRefuse, rule: rule.ShellSyntax, has: w(`shell operator "<", shell operator "\n"`)},

	// Redirections (their details are in TestStructure).
	{note: "dynamic descriptor", line: `ls {fd}>x`, in: inAnalyze, rule: rule.DynamicWord, has: w(`dynamic file descriptor "{fd}>x"`)},
	{note: "variable target", line: `ls > $out`, in: inAnalyze, rule: rule.DynamicWord},
	{note: "variable duplication", line: `ls >&$fd`, in: inAnalyze, rule: rule.DynamicWord},
	{note: "two targets", line: `ls >{a,b}`, in: inAnalyze, rule: rule.ShellSyntax, has: w(`ambiguous redirection ">{a,b}"`)},
	{note: "redirection alone truncates a file", line: `> out`, in: inAnalyze, rule: rule.ShellSyntax, has: w("redirection without a command")},
	{note: "descriptor out of range", line: `ls 99999999999999999999>x`, in: inAnalyze, rule: rule.ShellSyntax},
	{note: "input duplication from a file", line: `cat <&file`, in: inAnalyze, rule: rule.ShellSyntax},
	{note: "redirections in refuse", line: `cat a.txt 2>/dev/null`, in: inRefuse, rule: rule.ShellSyntax, has: w(`shell operator ">"`)},

	// Lists, pipelines, groups.
	{note: "pipeline", line: `git log --oneline -5 | head -3`, in: inAnalyze, argv: many(w("git", "log", "--oneline", "-5"), w("head", "-3"))},
	{note: "and list", line: `cd src && ls`, in: inAnalyze, argv: many(w("cd", "src"), w("ls"))},
	{note: "newline list", line: "ls\npwd\n", in: inAnalyze, argv: many(w("ls"), w("pwd"))},
	{note: "negation", line: `! grep -q x f`, in: inAnalyze, argv: one("grep", "-q", "x", "f")},
	{note: "background", line: `sleep 100 &`, in: inAnalyze, argv: one("sleep", "100")},
	{note: "background in a list", line: `rm -rf x & ls`, in: inAnalyze, argv: many(w("rm", "-rf", "x"), w("ls"))},
	{note: "background in a group", line: `(ls &)`, in: inAnalyze, argv: one("ls")},
	{note: "background in refuse", line: `sleep 100 &`, in: inRefuse, rule: rule.ShellSyntax, has: w(`shell operator "&"`)},
	{note: "coprocess", line: `coproc sleep 100`, in: inAnalyze, rule: rule.ShellSyntax},
	{note: "pipeline in refuse", line: `ls | wc`, in: inRefuse, rule: rule.ShellSyntax, has: w(`needs shell syntax the gate does not run: shell operator "|"`)},

	// Control flow and other constructs analyze does not flatten.
	{note: "if: every branch", line: `if true; then rm x; elif false; then ls; else pwd; fi`, in: inAnalyze, argv: many(w("true"), w("rm", "x"), w("false"), w("ls"), w("pwd"))},
	{note: "while: condition and body once", line: `while true; do ls; done`, in: inAnalyze, argv: many(w("true"), w("ls"))},
	{note: "until", line: `until false; do ls; done`, in: inAnalyze, argv: many(w("false"), w("ls"))},
	{note: "cd in a while loop", line: `while true; do cd x; done`, in: inAnalyze, rule: rule.ShellSyntax, has: w("cd inside a while loop")},
	{note: "for over literal words", line: `for f in a 'b c' {d,e}; do rm "$f" x$f.bak; done`, in: inAnalyze, rule: rule.DynamicWord, has: w(`unquoted loop variable`)},
	{note: "for, quoted or clean values", line: `for f in a {d,e}; do rm "$f" ${f}.bak; done`, in: inAnalyze,
		argv: many(w("rm", "a", "a.bak"), w("rm", "d", "d.bak"), w("rm", "e", "e.bak"))},
	{note: "nested for", line: `for a in x y; do for b in 1 2; do echo "$a$b"; done; done`, in: inAnalyze,
		argv: many(w("echo", "x1"), w("echo", "x2"), w("echo", "y1"), w("echo", "y2"))},
	{note: "for: the variable after the loop is not known", line: `for f in a; do ls; done; rm "$f"`, in: inAnalyze, rule: rule.DynamicWord},
	{note: "for over a pattern", line: `for f in *.go; do gofmt -l "$f"; done`, in: inAnalyze, rule: rule.DynamicWord},
	{note: "for over a substitution", line: `for f in $(ls); do rm "$f"; done`, in: inAnalyze, rule: rule.DynamicWord},
	{note: "for an exported name", line: `for PATH in /tmp; do ls; done`, in: inAnalyze, rule: rule.ShellSyntax, has: w("for loop variable")},
	{note: "for a zsh parameter", line: `for path in /tmp; do ls; done`, in: inAnalyze, rule: rule.ShellSyntax, has: w("for loop variable")},
	{note: "for over the positional parameters", line: `for f; do ls; done`, in: inAnalyze, rule: rule.ShellSyntax, has: w("for loop")},
	{note: "C-style for", line: `for ((i=0; i<3; i++)); do ls; done`, in: inAnalyze, rule: rule.ShellSyntax, has: w("for loop")},
	{note: "for with too many commands", line: `for a in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32; do for b in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32; do x; done; done`, in: inAnalyze, rule: rule.ShellSyntax, has: w("more than 512 commands")},
	{note: "for in refuse", line: `for f in a; do ls; done`, in: inRefuse, rule: rule.ShellSyntax},
	{note: "select", line: `select x in a; do ls; done`, in: inAnalyze, rule: rule.ShellSyntax, has: w("select loop")},
	{note: "case", line: `case x in a) ls;; esac`, in: inAnalyze, argv: one("ls")},
	{note: "case, every branch", line: `case "$x" in a|b) ls;; *.go) rm -rf ~;; esac`, in: inAnalyze, argv: many([]string{"ls"}, []string{"rm", "-rf", "/home/u"})},
	{note: "case pattern with a brace", line: `case x in {a,b}) ls;; esac`, in: inAnalyze, rule: rule.ShellSyntax, has: w("brace inside a test")},
	{note: "case word a substitution", line: `case $(id) in a) ls;; esac`, in: inAnalyze, rule: rule.DynamicWord, has: w("command substitution")},
	{note: "function", line: `f() { ls; }`, in: inAnalyze, rule: rule.ShellSyntax, has: w("function definition")},
	{note: "function keyword", line: `function f { ls; }`, in: inAnalyze, rule: rule.ShellSyntax, has: w("function definition")},
	{note: "test clause", line: `[[ -f x ]]`, in: inAnalyze, argv: one("test", "-f", "x")},
	{note: "test clause, each test", line: `[[ -d src && ! -e ~/x || x -nt y ]]`, in: inAnalyze, argv: many([]string{"test", "-d", "src"}, []string{"test", "-e", "/home/u/x"}, []string{"test", "x", "-nt", "y"})},
	{note: "test clause pattern is text", line: `[[ $x == *.go ]]`, in: inAnalyze, argv: one("test", "$x", "=", "*.go")},
	{note: "test clause regex is text", line: `[[ "$v" =~ ^v[0-9]+$ ]]`, in: inAnalyze, argv: one("test", `"$v"`, "=", "^v[0-9]+$")},
	{note: "test clause arithmetic", line: `[[ $? -eq 0 && 3 -gt -2 ]]`, in: inAnalyze, argv: many([]string{"test", "$?", "-eq", "0"}, []string{"test", "3", "-gt", "-2"})},
	{note: "test clause arithmetic of a name", line: `[[ x -eq 0 ]]`, in: inAnalyze, rule: rule.DynamicWord, has: w("not a decimal integer")},
	{note: "test clause arithmetic of a subscript", line: `[[ 'a[$(touch M)]' -eq 0 ]]`, in: inAnalyze, rule: rule.DynamicWord, has: w("not a decimal integer")},
	{note: "test clause arithmetic of a variable", line: `[[ $n -gt 0 ]]`, in: inAnalyze, rule: rule.DynamicWord, has: w("not a decimal integer")},
	{note: "test clause -v of a subscript", line: `[[ -v 'a[$(touch M)]' ]]`, in: inAnalyze, rule: rule.DynamicWord, has: w("not a plain name")},
	{note: "test clause file of a variable", line: `[[ -f $f ]]`, in: inAnalyze, rule: rule.DynamicWord, has: w("file test of a path")},
	{note: "test clause file pattern", line: `[[ -f *.go ]]`, in: inAnalyze, rule: rule.DynamicWord, has: w("unquoted pattern")},
	{note: "test clause brace", line: `[[ -f {a,b} ]]`, in: inAnalyze, rule: rule.ShellSyntax, has: w("brace inside a test")},
	{note: "arithmetic command", line: `(( x = 1 ))`, in: inAnalyze, rule: rule.ShellSyntax, has: w("arithmetic command")},
	{note: "let", line: `let x=1`, in: inAnalyze, rule: rule.ShellSyntax, has: w("let builtin")},
	{note: "export", line: `export A=1`, in: inRefuse, rule: rule.ShellSyntax},
	{note: "export alone", line: `export`, in: inAnalyze, rule: rule.ShellSyntax, has: w(`declaration builtin "export"`)},
	{note: "export -p", line: `export -p`, in: inAnalyze, rule: rule.ShellSyntax, has: w(`declaration builtin "export -p"`)},
	{note: "export of a name", line: `export A`, in: inAnalyze, rule: rule.ShellSyntax, has: w(`declaration builtin "export A"`)},
	{note: "export +=", line: `export A+=1`, in: inAnalyze, rule: rule.ShellSyntax, has: w(`assignment "A+=1"`)},
	{note: "declare", line: `declare -x A`, in: inAnalyze, rule: rule.ShellSyntax},
	{note: "local", line: `local a`, in: inAnalyze, rule: rule.ShellSyntax},
	{note: "readonly", line: `readonly a`, in: inAnalyze, rule: rule.ShellSyntax},
	{note: "typeset", line: `typeset a`, in: inAnalyze, rule: rule.ShellSyntax},
	{note: "time", line: `time ls`, in: inRefuse, rule: rule.ShellSyntax, has: w("time clause")},
	{note: "time is the pipeline it times", line: `time -p ls | wc -l`, in: inAnalyze, argv: [][]string{{"ls"}, {"wc", "-l"}}},
	{note: "bare time", line: `time`, in: inAnalyze, rule: rule.ShellSyntax, has: w("time clause")},
	{note: "coproc", line: `coproc ls`, in: inAnalyze, rule: rule.ShellSyntax},
	{note: "prefix assignment in refuse", line: `PAGER=sh git log`, in: inRefuse, rule: rule.ShellSyntax},
	{note: "assignment with a pattern", line: `X=* ls`, in: inAnalyze, rule: rule.ShellSyntax, has: w(`unquoted * in its value`)},
	{note: "assignment with a tilde", line: `X=a:~/b ls`, in: inAnalyze, rule: rule.ShellSyntax, has: w(`unquoted ~ in its value`)},
	{note: "assignment with braces", line: `X={a,b} ls`, in: inAnalyze, rule: rule.ShellSyntax, has: w(`unquoted { in its value`)},
	{note: "assignment with a leading =", line: `X==ls ls`, in: inAnalyze, rule: rule.ShellSyntax},
	{note: "assignment with a substitution", line: `X=$(id) ls`, in: inAnalyze, rule: rule.DynamicWord},
	{note: "bare assignment", line: `A=1`, in: inBoth, rule: rule.ShellSyntax},
	{note: "append assignment", line: `A+=1 ls`, in: inAnalyze, rule: rule.ShellSyntax},
	{note: "array assignment", line: `arr=(a b)`, in: inAnalyze, rule: rule.ShellSyntax},
	{note: "negation in refuse", line: `! ls`, in: inRefuse, rule: rule.ShellSyntax, has: w(`negation "!"`)},
	{note: "mixed problems: shell-syntax wins, all named", line: `cat $x; coproc ls`, in: inAnalyze, rule: rule.ShellSyntax, has: w(`parameter expansion "$x", coproc clause`)},

	// Parse errors carry mvdan's message.
	{note: "unterminated quote", line: `ls "abc`, in: inAnalyze, rule: rule.ShellSyntax, has: w("the line does not parse: 1:4:")},
	{note: "stray paren", line: `ls )`, in: inAnalyze, rule: rule.ShellSyntax},
	{note: "dangling pipe", line: `ls |`, in: inAnalyze, rule: rule.ShellSyntax},
	{note: "leading operator", line: `&& ls`, in: inAnalyze, rule: rule.ShellSyntax},
	{note: "lone keyword", line: `if`, in: inBoth, rule: rule.ShellSyntax, has: w("does not parse")},

	// Empty lines.
	{note: "empty", line: ``, in: inBoth, rule: rule.EmptyCommand},
	{note: "blanks", line: "  \t ", in: inBoth, rule: rule.EmptyCommand},
	{note: "only newlines", line: "\n\n", in: inAnalyze, rule: rule.EmptyCommand},
	{note: "only a comment", line: `# just a comment`, in: inAnalyze, rule: rule.EmptyCommand},
	{note: "empty program name", line: `'' x`, in: inBoth, rule: rule.EmptyCommand},

	// Comments, line continuations, control bytes, unicode, size.
	{note: "trailing comment", line: `ls -la # list`, in: inAnalyze, argv: one("ls", "-la")},
	{note: "hash inside a word", line: `ls a#b`, in: inBoth, argv: one("ls", "a#b")},
	{note: "comment in refuse", line: `#ls`, in: inRefuse, rule: rule.ShellSyntax, has: w(`comment "#"`)},
	{note: "line continuation", line: "ls \\\n-la", in: inAnalyze, argv: one("ls", "-la")},
	{note: "continuation inside a word", line: "l\\\ns", in: inAnalyze, argv: one("ls")},
	{note: "continuation in refuse", line: "ls \\\n-la", in: inRefuse, rule: rule.ShellSyntax, has: w("line continuation")},
	{note: "trailing backslash", line: `ls \`, in: inAnalyze, argv: one("ls", `\`)},
	{note: "carriage return", line: "git status\r", in: inAnalyze, rule: rule.ShellSyntax, has: w(`carriage return "\r"`)},
	{note: "CRLF", line: "ls\r\nrm -rf x", in: inAnalyze, rule: rule.ShellSyntax},
	{note: "quoted carriage return", line: "echo 'a\rb'", in: inAnalyze, rule: rule.ShellSyntax},
	{note: "NUL byte", line: "rm\x00 -rf x", in: inBoth, rule: rule.ShellSyntax},
	{note: "unicode", line: `cat 'ünï cødé.txt' 日本`, in: inBoth, argv: one("cat", "ünï cødé.txt", "日本")},
	{note: "newline inside quotes is literal", line: "echo 'a\nb'", in: inAnalyze, argv: one("echo", "a\nb")},
	{note: "unknown profile", line: `ls`, in: "x", rule: rule.ShellSyntax, has: w(`unknown shell profile "bogus"`)},

	// Ordinary agent commands must pass (over-refusal matters too).
	{note: "grep", line: `grep -rn TODO src`, in: inBoth, argv: one("grep", "-rn", "TODO", "src")},
	{note: "ls", line: `ls -la`, in: inBoth, argv: one("ls", "-la")},
	{note: "wc", line: `wc -l a b`, in: inBoth, argv: one("wc", "-l", "a", "b")},
	{note: "mkdir", line: `mkdir -p build/out`, in: inBoth, argv: one("mkdir", "-p", "build/out")},
	{note: "sed script in quotes", line: `sed -n '1,20p' a.go`, in: inBoth, argv: one("sed", "-n", "1,20p", "a.go")},
	{note: "go test", line: `go test -run 'TestX|TestY' ./...`, in: inBoth, argv: one("go", "test", "-run", "TestX|TestY", "./...")},
	{note: "commit message with symbols", line: `git commit -m "fix: a > b; c & d"`, in: inBoth, argv: one("git", "commit", "-m", "fix: a > b; c & d")},
	{note: "refuse names every problem in order", line: `ls | grep * > x`, in: inRefuse, rule: rule.ShellSyntax, has: w(`needs shell syntax the gate does not run: shell operator "|", unquoted pattern "*", shell operator ">"`)},
	{note: "refuse: expansion in double quotes", line: `echo "$HOME"`, in: inRefuse, rule: rule.ShellSyntax, has: w(`expansion "$"`)},
	{note: "refuse: unterminated quote", line: `ls 'abc`, in: inRefuse, rule: rule.ShellSyntax, has: w("unterminated quote")},
	{note: "refuse: trailing backslash", line: `ls \`, in: inRefuse, rule: rule.ShellSyntax, has: w("line continuation")},
}

func TestParse(t *testing.T) {
	p := NewParser(home)
	for _, c := range cases {
		for _, prof := range profilesOf(c.in) {
			t.Run(string(prof)+"/"+c.note, func(t *testing.T) {
				script, prob := p.Parse(c.line, prof)
				if c.rule != "" {
					if prob == nil {
						t.Fatalf("Parse(%q) = %q, want rule %s", c.line, argvs(script), c.rule)
					}
					if prob.Rule != c.rule {
						t.Errorf("Parse(%q) rule = %s, want %s (%s)", c.line, prob.Rule, c.rule, prob.Reason)
					}
					for _, h := range c.has {
						if !strings.Contains(prob.Reason, h) {
							t.Errorf("Parse(%q) reason = %q, want it to contain %q", c.line, prob.Reason, h)
						}
					}
					if len(prob.Items) == 0 {
						t.Errorf("Parse(%q): problem without items", c.line)
					}
					return
				}
				if prob != nil {
					t.Fatalf("Parse(%q) refused: %s: %s", c.line, prob.Rule, prob.Reason)
				}
				if got := argvs(script); !reflect.DeepEqual(got, c.argv) {
					t.Errorf("Parse(%q) = %q, want %q", c.line, got, c.argv)
				}
			})
		}
	}
}

func profilesOf(in string) []Profile {
	var ps []Profile
	if strings.Contains(in, inAnalyze) {
		ps = append(ps, Analyze)
	}
	if strings.Contains(in, inRefuse) {
		ps = append(ps, Refuse)
	}
	if in == "x" {
		ps = append(ps, "bogus")
	}
	return ps
}

func argvs(s *Script) [][]string {
	var out [][]string
	for _, c := range s.Commands {
		out = append(out, c.Argv)
	}
	return out
}

// TestStructure checks joiners, subshells and redirections in full.
func TestStructure(t *testing.T) {
	dup := func(fd int, op string) Redirect { return Redirect{Fd: fd, Op: op} }
	out := func(fd int, op, target string) Redirect { return Redirect{Fd: fd, Op: op, Target: target, Write: true} }
	in := func(fd int, op, target string) Redirect { return Redirect{Fd: fd, Op: op, Target: target, Read: true} }
	text := func(r Redirect, s string) Redirect { r.Text = s; return r }
	tests := []struct {
		note string
		line string
		want []Command
	}{
		{"every redirection", `ls > o >> a >| c < i <> rw &> b &>> d 2>e 2>>f`, []Command{{Argv: w("ls"), Redirects: []Redirect{
			out(1, ">", "o"), out(1, ">>", "a"), out(1, ">|", "c"), in(0, "<", "i"),
			{Fd: 0, Op: "<>", Target: "rw", Read: true, Write: true},
			out(1, "&>", "b"), out(1, "&>>", "d"), out(2, "2>", "e"), out(2, "2>>", "f"),
		}}}},
		{"duplications and closes in order", `ls 2>&1 >/dev/null >&2 <&0 >&- 2>&1- 3<&-`, []Command{{Argv: w("ls"), Redirects: []Redirect{
			dup(2, "2>&1"), out(1, ">", "/dev/null"), dup(1, ">&2"), dup(0, "<&0"), dup(1, ">&-"), dup(2, "2>&1-"), dup(3, "3<&-"),
		}}}},
		{"duplication to a file writes it", `ls >&file 2>&err`, []Command{{Argv: w("ls"), Redirects: []Redirect{out(1, ">&", "file"), out(2, "2>&", "err")}}}},
		{"quoted and tilde targets", `cat < "a b" > ~/o`, []Command{{Argv: w("cat"), Redirects: []Redirect{in(0, "<", "a b"), out(1, ">", home+"/o")}}}},
		{"here-doc and here-string", "cat <<EOF <<<x\nhi\nEOF", []Command{{Argv: w("cat"), Redirects: []Redirect{text(dup(0, "<<"), "hi\n"), text(dup(0, "<<<"), "x\n")}}}},
		{"here-string texts as bash expands them", `cat <<<~/x <<<*.go <<<"a b"\ c <<<=ls`, []Command{{Argv: w("cat"), Redirects: []Redirect{
			text(dup(0, "<<<"), home+"/x\n"), text(dup(0, "<<<"), "*.go\n"), text(dup(0, "<<<"), "a b c\n"), text(dup(0, "<<<"), "=ls\n")}}}},
		{"here-doc texts", "cat <<'E' <<-F <<G <<< 'a b'\n$x \\$y\nE\n\tin \\$z \\\\\n\tF\n\\`q\\\nr\nG", []Command{{Argv: w("cat"), Redirects: []Redirect{
			text(dup(0, "<<"), "$x \\$y\n"), text(dup(0, "<<-"), "in $z \\\n"), text(dup(0, "<<"), "`qr\n"), text(dup(0, "<<<"), "a b\n")}}}},
		{"assignments before a command", `CI=true A='q r' B="x" npm test`, []Command{{Argv: w("npm", "test"), Env: w("CI=true", "A=q r", "B=x")}}},
		{"export, then the commands", `export CI=true A='q r' && npm test; B=1 ls`, []Command{
			{Argv: w("export", "CI=true", "A=q r")}, {Argv: w("npm", "test"), Joiner: "&&", Env: w("CI=true", "A=q r")}, {Argv: w("ls"), Joiner: ";", Env: w("CI=true", "A=q r", "B=1")}}},
		{"cd gets no export", `export CI=true; cd x`, []Command{{Argv: w("export", "CI=true")}, {Argv: w("cd", "x"), Joiner: ";"}}},
		{"an export in a subshell, a pipeline's side or the background ends with it", `(export A=1); export B=1 | cat; export C=1 & ls`, []Command{
			{Argv: w("export", "A=1"), Subshell: true}, {Argv: w("export", "B=1"), Joiner: ";", Subshell: true}, {Argv: w("cat"), Joiner: "|", Subshell: true},
			{Argv: w("export", "C=1"), Joiner: ";", Background: true}, {Argv: w("ls"), Joiner: ";"}}},
		{"an export in a block reaches the commands after it", `{ export A=1; }; ls`, []Command{{Argv: w("export", "A=1")}, {Argv: w("ls"), Joiner: ";", Env: w("A=1")}}},
		{"background statement", "npm run dev > dev.log 2>&1 & sleep 1", []Command{
			{Argv: w("npm", "run", "dev"), Background: true, Redirects: []Redirect{out(1, ">", "dev.log"), dup(2, "2>&1")}}, {Argv: w("sleep", "1"), Joiner: ";"}}},
		{"claude code's commit form", "git commit -m \"$(cat <<'EOF'\nfix: a\n\nbody $x\nEOF\n)\"", []Command{{Argv: w("git", "commit", "-m", "fix: a\n\nbody $x"), Feeders: [][]string{w("cat")}}}},
		{"kill of a probe's pids", "kill -9 $(lsof -ti:3000)", []Command{{Argv: w("kill", "-9", "$(lsof -ti:3000)"), Pids: []Substitution{{Index: 2, Argv: w("lsof", "-ti:3000")}}}}},
		{"redirection before the command", `> o ls`, []Command{{Argv: w("ls"), Redirects: []Redirect{out(1, ">", "o")}}}},
		{"list joiners", "a; b && c || d\ne", []Command{
			{Argv: w("a")}, {Argv: w("b"), Joiner: ";"}, {Argv: w("c"), Joiner: "&&"}, {Argv: w("d"), Joiner: "||"}, {Argv: w("e"), Joiner: ";"},
		}},
		{"pipeline members are subshells", `cd x && ls | wc -l; pwd`, []Command{
			{Argv: w("cd", "x")}, {Argv: w("ls"), Joiner: "&&", Subshell: true}, {Argv: w("wc", "-l"), Joiner: "|", Subshell: true, Fed: true}, {Argv: w("pwd"), Joiner: ";"},
		}},
		{"subshell", `(cd x; ls) && pwd`, []Command{
			{Argv: w("cd", "x"), Subshell: true}, {Argv: w("ls"), Joiner: ";", Subshell: true}, {Argv: w("pwd"), Joiner: "&&"},
		}},
		{"block", `{ cd x; ls; } || pwd`, []Command{
			{Argv: w("cd", "x")}, {Argv: w("ls"), Joiner: ";"}, {Argv: w("pwd"), Joiner: "||"},
		}},
		{"group redirections come first", `{ a 2>e; b; } > o`, []Command{
			{Argv: w("a"), Redirects: []Redirect{out(1, ">", "o"), out(2, "2>", "e")}}, {Argv: w("b"), Joiner: ";", Redirects: []Redirect{out(1, ">", "o")}},
		}},
		{"|& joins stderr of the last element", `a | b 2>/dev/null |& c`, []Command{
			{Argv: w("a"), Subshell: true},
			{Argv: w("b"), Joiner: "|", Subshell: true, Fed: true, Redirects: []Redirect{out(2, "2>", "/dev/null"), dup(2, "|&")}},
			{Argv: w("c"), Joiner: "|", Subshell: true, Fed: true},
		}},
		{"|& after a group", `(a; b) |& c`, []Command{
			{Argv: w("a"), Subshell: true, Redirects: []Redirect{dup(2, "|&")}},
			{Argv: w("b"), Joiner: ";", Subshell: true, Redirects: []Redirect{dup(2, "|&")}},
			{Argv: w("c"), Joiner: "|", Subshell: true},
		}},
		{"block in a pipeline", `{ a; b; } | c`, []Command{
			{Argv: w("a"), Subshell: true}, {Argv: w("b"), Joiner: ";", Subshell: true}, {Argv: w("c"), Joiner: "|", Subshell: true},
		}},
		{"nested groups", `a && (b || { c; d; }) | e`, []Command{
			{Argv: w("a")}, {Argv: w("b"), Joiner: "&&", Subshell: true}, {Argv: w("c"), Joiner: "||", Subshell: true},
			{Argv: w("d"), Joiner: ";", Subshell: true}, {Argv: w("e"), Joiner: "|", Subshell: true},
		}},
		{"negated pipeline", `! a | b`, []Command{{Argv: w("a"), Subshell: true}, {Argv: w("b"), Joiner: "|", Subshell: true, Fed: true}}},
		{"group feeding a pipe", `(a; b) | c`, []Command{{Argv: w("a"), Subshell: true}, {Argv: w("b"), Joiner: ";", Subshell: true}, {Argv: w("c"), Joiner: "|", Subshell: true}}},
	}
	p := NewParser(home)
	for _, tt := range tests {
		t.Run(tt.note, func(t *testing.T) {
			script, prob := p.Parse(tt.line, Analyze)
			if prob != nil {
				t.Fatalf("Parse(%q) refused: %s", tt.line, prob.Reason)
			}
			if !reflect.DeepEqual(script.Commands, tt.want) {
				t.Errorf("Parse(%q)\n got %+v\nwant %+v", tt.line, script.Commands, tt.want)
			}
		})
	}
}

func TestTildeWithoutHome(t *testing.T) {
	p := NewParser("")
	for _, line := range []string{`cat ~/x`, `cd ~`, `make P=~/x`} {
		if _, prob := p.Parse(line, Analyze); prob == nil || prob.Rule != rule.DynamicWord {
			t.Errorf("Parse(%q) with no home = %v, want dynamic-word", line, prob)
		}
	}
}

func TestBraceCap(t *testing.T) {
	p := NewParser(home)
	s, prob := p.Parse(`echo {1..16}{1..16}`, Analyze)
	if prob != nil {
		t.Fatalf("256 words refused: %s", prob.Reason)
	}
	if n := len(s.Commands[0].Argv); n != 257 {
		t.Errorf("argv has %d words, want 257", n)
	}
}

func TestLongLine(t *testing.T) {
	p := NewParser(home)
	var b strings.Builder
	b.WriteString("echo")
	for range 5000 {
		b.WriteString(" abc/def.go")
	}
	s, prob := p.Parse(b.String(), Analyze)
	if prob != nil {
		t.Fatal(prob.Reason)
	}
	if n := len(s.Commands[0].Argv); n != 5001 {
		t.Errorf("argv has %d words, want 5001", n)
	}
	// Thousands of distinct problems: the reason names some and counts
	// the rest instead of growing without bound.
	b.Reset()
	b.WriteString("cat")
	for i := range 1000 {
		b.WriteString(" $v")
		b.WriteString(strings.Repeat("x", i%50))
		b.WriteByte('_')
		b.WriteString(string(rune('a' + i%26)))
	}
	_, prob = p.Parse(b.String(), Analyze)
	if prob == nil || !strings.Contains(prob.Reason, " more") || len(prob.Items) > maxItems {
		t.Errorf("many problems: %+v", prob)
	}
}

// TestReuse checks that a Parser carries nothing from one call to the next.
func TestReuse(t *testing.T) {
	p := NewParser(home)
	first, _ := p.Parse(`ls a`, Analyze)
	if _, prob := p.Parse(`cat $x`, Analyze); prob == nil {
		t.Fatal("want a problem")
	}
	second, prob := p.Parse(`ls b`, Refuse)
	if prob != nil {
		t.Fatal(prob.Reason)
	}
	if first.Commands[0].Argv[1] != "a" || second.Commands[0].Argv[1] != "b" {
		t.Errorf("scripts share state: %q %q", first.Commands[0].Argv, second.Commands[0].Argv)
	}
}

// TestAgainstBash runs every accepted single command through a real bash
// (when there is one) whose builtins and PATH are taken away, so the
// command is not found and command_not_found_handle prints the argv bash
// built. The two must agree word for word.
func TestAgainstBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	p := NewParser(home)
	checked := 0
	for _, c := range cases {
		if c.rule != "" || !strings.Contains(c.in, inAnalyze) || len(c.argv) != 1 {
			continue
		}
		script, prob := p.Parse(c.line, Analyze)
		if prob != nil || len(script.Commands[0].Redirects) != 0 || len(script.ShellOnly) > 0 {
			continue // a loop, a test clause, a case: not one command bash would build
		}
		if script.Commands[0].Argv[0] == "printf" || script.Commands[0].Argv[0] == "builtin" {
			continue // the handler needs them
		}
		// printf stays a builtin: the handler must not be "not found"
		// itself, or it would call itself without end.
		prelude := "enable -n echo cd pwd test [ kill\n" +
			"command_not_found_handle() { builtin printf '%s\\0' \"$@\"; }\n"
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		cmd := exec.CommandContext(ctx, bash, "--norc", "--noprofile", "-c", prelude+c.line)
		cmd.Dir = dir
		cmd.Env = []string{"HOME=" + home, "PATH=" + dir + "/none"}
		var stdout bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, os.Stderr
		_ = cmd.Run() // the handler's status is the command's; only the output matters
		cancel()
		got := strings.Split(strings.TrimSuffix(stdout.String(), "\x00"), "\x00")
		want := slices.Clone(script.Commands[0].Argv)
		for _, i := range script.Commands[0].Params {
			// Kept as written: bash gives the variables' values, here one
			// word each.
			want[i] = os.Expand(want[i], func(name string) string {
				return map[string]string{"HOME": home, "PATH": dir + "/none", "?": "0"}[name]
			})
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %q: bash built %q, Parse built %q", c.note, c.line, got, want)
		}
		checked++
	}
	t.Logf("%d lines checked against bash", checked)
}

func TestBraceFidelity(t *testing.T) {
	p := NewParser(home)
	tests := []struct {
		line string
		want []string
	}{
		{`cmd {a,}`, w("cmd", "a")},
		{`cmd {a,''}`, w("cmd", "a", "")},
		{`cmd x{,}`, w("cmd", "x", "x")},
		{`cmd x=~/{a,b}`, w("cmd", "x=~/a", "x=~/b")},
		{`cmd x=~/{a}`, w("cmd", "x="+home+"/{a}")},
		{`cmd ~/{a,b}`, w("cmd", home+"/a", home+"/b")},
		{`{,}ls`, w("ls", "ls")},
	}
	for _, tt := range tests {
		s, prob := p.Parse(tt.line, Analyze)
		if prob != nil {
			t.Errorf("Parse(%q): %s", tt.line, prob.Reason)
			continue
		}
		if got := s.Commands[0].Argv; !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
	if _, prob := p.Parse(`{,} `, Analyze); prob == nil || prob.Rule != rule.EmptyCommand {
		t.Errorf("a command that expands to no word: %v", prob)
	}
}

func TestStrayBraces(t *testing.T) {
	p := NewParser(home)
	for _, line := range []string{`cmd {{a,c}s\{1..3}`, `cmd {{a..c..2}"s"\{1..3}`, `cmd {a,b}}`, `cmd {a,b}{}`} {
		if _, prob := p.Parse(line, Analyze); prob == nil || prob.Rule != rule.ShellSyntax {
			t.Errorf("Parse(%q) = %v, want shell-syntax", line, prob)
		}
	}
	// Literal braces with no expansion beside them are only text.
	for _, line := range []string{`find . -exec cat {} +`, `echo {a} }{ \{a,b\}`} {
		if _, prob := p.Parse(line, Analyze); prob != nil {
			t.Errorf("Parse(%q) refused: %s", line, prob.Reason)
		}
	}
}

func TestGlobOptionsMarked(t *testing.T) {
	p := NewParser("/home/u")
	sc, pr := p.Parse(`grep -rn --include=*.go --exclude={a,b}*.ts foo src | grep --color=never x`, Analyze)
	if pr != nil {
		t.Fatal(pr.Reason)
	}
	if got := sc.Commands[0].GlobOptions; len(got) != 3 || got[0] != 2 || got[1] != 3 || got[2] != 4 {
		t.Fatalf("first command's glob options %v, argv %q", got, sc.Commands[0].Argv)
	}
	if got := sc.Commands[1].GlobOptions; len(got) != 0 {
		t.Fatalf("second command's glob options %v", got)
	}
}
