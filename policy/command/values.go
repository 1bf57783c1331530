package command

import (
	"fmt"
	"os"
	"os/user"
	"path"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"admit/policy/rule"
	"admit/policy/shell"
)

// The output of a few commands is known, or bounded, when the line is
// judged, wherever the host runs it: the working folder (pwd), the
// repository's top level, branch and commit read from its files (never by
// running git), and outputs of a fixed shape (nproc, date +%F, git
// rev-parse --short HEAD, id -u, uname -s), the user's name (whoami). The parser reads such a
// $(COMMAND) as that text (shell.Values), so cd "$(git rev-parse
// --show-toplevel)" is judged as the cd it is. The command inside still
// runs: it is judged as a command of the line (a git whose configuration
// runs a program asks, a date of the workspace found on PATH is one).
// A text that may differ when the line runs (the clock moved on) is
// judged as the one it is now, and only where no file of the same shape
// stands beside it (varyingOK): otherwise another name could lead
// elsewhere.

// GitHead is what a repository's files say git rev-parse
// --show-toplevel, git branch --show-current and git rev-parse HEAD
// print; an empty field is not known.
type GitHead struct {
	Top      string // the working tree's top folder
	Branch   string // the branch HEAD names, when OnBranch
	Commit   string // the commit HEAD is at, full hex
	OnBranch bool   // HEAD names a branch of plain characters
	Detached bool   // HEAD names a commit
}

// GitHeads is what the policy asks of the file system to know a
// repository's HEAD; workspace.Resolver implements it. An FS without it
// leaves every git value unknown.
type GitHeads interface {
	// GitHead reads the repository containing dir (resolved) from its
	// files, answering only what it reads cleanly.
	GitHead(dir string) GitHead
}

// PlainBranch reports a branch name that git would print as it is and
// that no shell or program reads as more than a name: letters, digits and
// "._-+/" in components that start with neither "." nor "-", no "..".
func PlainBranch(name string) bool {
	if name == "" || len(name) > 200 || strings.HasSuffix(name, ".lock") {
		return false
	}
	for _, part := range strings.Split(name, "/") {
		if part == "" || part[0] == '.' || part[0] == '-' || strings.HasSuffix(part, ".") || strings.Contains(part, "..") {
			return false
		}
		for i := 0; i < len(part); i++ {
			c := part[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' || c == '+') {
				return false
			}
		}
	}
	return true
}

// HexName reports a full object name: 40 (sha1) or 64 (sha256) lowercase
// hex digits.
func HexName(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	return hexDigits(s)
}

func hexDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return s != ""
}

func decimal(s string) bool { return allDigits(s) }

// valueSource answers the parser's shell.Values for one decision: the
// line runs in cwd under c. It reads the repository once.
type valueSource struct {
	cwd      string
	c        *Context
	head     GitHead
	headRead bool
}

func (v *valueSource) reset(cwd string, c *Context) {
	*v = valueSource{cwd: cwd, c: c}
}

// Value implements shell.Values.
func (v *valueSource) Value(argv []string) (shell.Value, bool) {
	switch argv[0] {
	case "pwd":
		if len(argv) == 1 && v.cwd != "" {
			return shell.Value{Text: v.cwd, Cwd: true}, true
		}
	case "git":
		return v.git(argv[1:])
	case "nproc":
		if len(argv) == 1 {
			return shell.Value{Text: strconv.Itoa(runtime.NumCPU()), Shape: decimal}, true
		}
	case "id":
		// The person's own ids: digits, whatever they are when it runs.
		if len(argv) == 2 && argv[1] == "-un" || len(argv) == 3 && (argv[1] == "-u" && argv[2] == "-n" || argv[1] == "-n" && argv[2] == "-u") {
			return userName()
		}
		if len(argv) == 2 && (argv[1] == "-u" || argv[1] == "-g") {
			id := os.Getuid()
			if argv[1] == "-g" {
				id = os.Getgid()
			}
			if id >= 0 {
				return shell.Value{Text: strconv.Itoa(id), Shape: decimal}, true
			}
		}
	case "whoami":
		if len(argv) == 1 {
			return userName()
		}
	case "uname":
		if len(argv) == 2 {
			if s := unameOf(argv[1]); s != "" {
				return shell.Value{Text: s}, true
			}
		}
	case "date":
		return v.date(argv[1:])
	}
	return shell.Value{}, false
}

// git answers the git commands whose output the repository's files say.
func (v *valueSource) git(args []string) (shell.Value, bool) {
	heads, ok := v.c.FS.(GitHeads)
	if !ok || v.c.FS == nil || v.cwd == "" {
		return shell.Value{}, false
	}
	if !v.headRead {
		v.head, v.headRead = heads.GitHead(v.cwd), true
	}
	h := v.head
	if h.Top == "" {
		return shell.Value{}, false
	}
	known := func(s string) (shell.Value, bool) { return shell.Value{Text: s, Cwd: true}, s != "" || h.Detached }
	if len(args) == 3 && args[0] == "merge-base" && plainRev(args[1]) && plainRev(args[2]) && h.Commit != "" {
		// A commit's full name, whichever commit it is: judged as HEAD's,
		// which is one, where no file of that shape stands (nothing when
		// the two have none in common: a git command without it).
		n := len(h.Commit)
		return shell.Value{Text: h.Commit, Cwd: true, Shape: func(s string) bool { return len(s) == n && isHex(s) }}, true
	}
	switch strings.Join(args, " ") {
	case "rev-parse --show-toplevel":
		return shell.Value{Text: h.Top, Cwd: true}, true
	case "branch --show-current":
		if h.OnBranch {
			return known(h.Branch)
		}
		if h.Detached {
			return shell.Value{Text: "", Cwd: true}, true
		}
	case "rev-parse --abbrev-ref HEAD":
		if h.OnBranch && h.Commit != "" {
			return known(h.Branch)
		}
		if h.Detached {
			return shell.Value{Text: "HEAD", Cwd: true}, true
		}
	case "rev-parse HEAD", "rev-parse --verify HEAD":
		if h.Commit != "" {
			return known(h.Commit)
		}
	case "rev-parse --short HEAD":
		if h.Commit != "" {
			// Its length is core.abbrev's, or grows with the objects:
			// some prefix of the commit, at least 4 digits.
			full := h.Commit
			return shell.Value{Text: full[:7], Cwd: true, Shape: func(s string) bool {
				return len(s) >= 4 && strings.HasPrefix(full, s)
			}}, true
		}
	}
	return shell.Value{}, false
}

// plainRev reports a revision word of letters, digits and "/._-~^" that
// starts with no "-": a branch, a tag, HEAD~2.
func plainRev(s string) bool {
	if s == "" || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("/._-~^", c) >= 0) {
			return false
		}
	}
	return true
}

// isHex reports lower-case hexadecimal digits only.
func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// userName is what whoami (id -un) prints: the name of the user admit
// runs as, the person's, as for id -u. Only a plain name (letters, digits,
// "._-", starting with neither "." nor "-") is known.
func userName() (shell.Value, bool) {
	u, err := user.Current()
	if err != nil || !plainUser(u.Username) {
		return shell.Value{}, false
	}
	return shell.Value{Text: u.Username}, true
}

func plainUser(name string) bool {
	if name == "" || len(name) > 64 || name[0] == '.' || name[0] == '-' {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// unameOf is what uname prints with option opt on this machine, or "".
func unameOf(opt string) string {
	switch opt {
	case "-s":
		switch runtime.GOOS {
		case "linux":
			return "Linux"
		case "darwin":
			return "Darwin"
		case "freebsd":
			return "FreeBSD"
		}
	case "-m":
		switch runtime.GOOS + "/" + runtime.GOARCH {
		case "linux/amd64", "darwin/amd64", "freebsd/amd64":
			return map[string]string{"linux": "x86_64", "darwin": "x86_64", "freebsd": "amd64"}[runtime.GOOS]
		case "linux/arm64":
			return "aarch64"
		case "darwin/arm64", "freebsd/arm64":
			return "arm64"
		}
	}
	return ""
}

// dateSpecs are the conversions of date +FORMAT whose output is digits of
// a known length whatever the locale: their Go layout and the pattern of
// what they print.
var dateSpecs = map[byte]struct{ layout, shape string }{
	'Y': {"2006", `[0-9]{4}`},
	'y': {"06", `[0-9]{2}`},
	'm': {"01", `[0-9]{2}`},
	'd': {"02", `[0-9]{2}`},
	'H': {"15", `[0-9]{2}`},
	'M': {"04", `[0-9]{2}`},
	'S': {"05", `[0-9]{2}`},
	'F': {"2006-01-02", `[0-9]{4}-[0-9]{2}-[0-9]{2}`},
	'T': {"15:04:05", `[0-9]{2}:[0-9]{2}:[0-9]{2}`},
	'j': {"002", `[0-9]{3}`},
	's': {"", `[0-9]{1,12}`},
}

// date answers date +FORMAT (or date -u +FORMAT) whose format holds only
// conversions of dateSpecs and letters, digits and "._:-+%": what it
// prints now, of a shape that no blank, pattern or "/" is part of.
func (v *valueSource) date(args []string) (shell.Value, bool) {
	utc := false
	if len(args) == 2 && (args[0] == "-u" || args[0] == "--utc") {
		utc, args = true, args[1:]
	}
	if len(args) != 1 || len(args[0]) < 2 || args[0][0] != '+' || len(args[0]) > 64 {
		return shell.Value{}, false
	}
	now := time.Now()
	if v.c.Now != nil {
		now = v.c.Now()
	}
	if utc {
		now = now.UTC()
	}
	format := args[0][1:]
	var text, shape strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._:-+", c) >= 0) {
				return shell.Value{}, false
			}
			text.WriteByte(c)
			shape.WriteString(regexp.QuoteMeta(string(c)))
			continue
		}
		i++
		if i == len(format) {
			return shell.Value{}, false
		}
		if format[i] == '%' {
			text.WriteByte('%')
			shape.WriteByte('%')
			continue
		}
		spec, ok := dateSpecs[format[i]]
		if !ok {
			return shell.Value{}, false
		}
		if format[i] == 's' {
			text.WriteString(strconv.FormatInt(now.Unix(), 10))
		} else {
			text.WriteString(now.Format(spec.layout))
		}
		shape.WriteString(spec.shape)
	}
	re, err := regexp.Compile(`^(?:` + shape.String() + `)$`)
	if err != nil {
		return shell.Value{}, false
	}
	return shell.Value{Text: text.String(), Shape: re.MatchString}, true
}

// valuedCommands are the commands whose output cmd's words hold.
func valuedCommands(cmd *shell.Command) [][]string {
	if cmd.Valued == nil {
		return nil
	}
	return cmd.Valued.Commands
}

// varyingOK judges the words of cmd that hold an output that may differ
// when the line runs, in dir: no entry of the folder each names may have
// that shape but the one judged, since the name that runs may be another.
func (j *judge) varyingOK(cmd *shell.Command, dir string) bool {
	for _, v := range cmd.Valued.Varying {
		folder := v.Dir
		if !path.IsAbs(folder) {
			folder = path.Join(dir, folder)
		}
		folder = path.Clean(folder)
		judged := strings.TrimPrefix(cmd.Argv[v.Index], v.Dir)
		if j.c.FS == nil {
			j.refuse(rule.DynamicWord, fmt.Sprintf("%s may print another value by the time the line runs, and the gate cannot look at %s", v.By, folder), "name it explicitly")
			return false
		}
		entries, err := j.c.FS.ReadDir(folder)
		if err != nil {
			if r, rerr := j.c.FS.Resolve(folder); rerr == nil && !r.Exists {
				continue // nothing of any shape stands there yet
			}
			j.refuse(rule.DynamicWord, fmt.Sprintf("%s may print another value by the time the line runs, and the gate cannot list %s to see what that name could be", v.By, folder), "name it explicitly")
			return false
		}
		for _, e := range entries {
			name := e.Name()
			if name == judged || len(name) < len(v.Prefix)+len(v.Suffix) || !strings.HasPrefix(name, v.Prefix) || !strings.HasSuffix(name, v.Suffix) {
				continue
			}
			if v.Shape(name[len(v.Prefix) : len(name)-len(v.Suffix)]) {
				j.refuse(rule.DynamicWord, fmt.Sprintf("%s may print another value by the time the line runs, and %s holds %s, a name of that shape the gate did not judge", v.By, folder, name), "name it explicitly")
				return false
			}
		}
	}
	return true
}
