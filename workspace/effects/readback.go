package effects

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Verification is the outcome of reading a change back from the file system.
type Verification struct {
	Verified bool   `json:"verified"`
	Detail   string `json:"detail"`
}

// optSpec says which options of a program take a value, so that the value
// is never mistaken for a path operand.
type optSpec struct {
	shortArg string          // short options with a required value, e.g. "t" for -t DIR
	longArg  map[string]bool // long options with a required value (--opt=V or --opt V)
}

// Only the options that take a required value matter: every other word
// starting with "-" is a flag. Long options with an optional value
// (--backup[=C], --preserve[=L], --context[=C], --reflink[=W],
// --interactive[=W], --preserve-root[=all]) take it only after "=", as in
// GNU getopt, and so need no entry.
var optSpecs = map[string]optSpec{
	"cp":    {shortArg: "tS", longArg: set("target-directory", "suffix", "no-preserve", "sparse")},
	"mv":    {shortArg: "tS", longArg: set("target-directory", "suffix")},
	"mkdir": {shortArg: "m", longArg: set("mode")},
	"touch": {shortArg: "drt", longArg: set("date", "reference", "time")},
	"rm":    {},
	"rmdir": {},
}

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// parsed is a command line split the way GNU getopt splits it: options may
// follow operands, "--" ends options, "-" alone is an operand.
type parsed struct {
	flags    map[string]bool   // short letters ("p") and long names ("parents")
	values   map[string]string // option values by letter or long name
	operands []string
}

func parseArgs(spec optSpec, args []string) (parsed, error) {
	p := parsed{flags: map[string]bool{}, values: map[string]string{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			p.operands = append(p.operands, args[i+1:]...)
			return p, nil
		case a == "-" || !strings.HasPrefix(a, "-"):
			p.operands = append(p.operands, a)
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			if spec.longArg[name] && !hasVal {
				if i+1 >= len(args) {
					return p, fmt.Errorf("option --%s needs a value", name)
				}
				i++
				val, hasVal = args[i], true
			}
			p.flags[name] = true
			if hasVal {
				p.values[name] = val
			}
		default:
			letters := a[1:]
			for j := 0; j < len(letters); j++ {
				c := letters[j : j+1]
				p.flags[c] = true
				if strings.Contains(spec.shortArg, c) {
					val := letters[j+1:]
					if val == "" {
						if i+1 >= len(args) {
							return p, fmt.Errorf("option -%s needs a value", c)
						}
						i++
						val = args[i]
					}
					p.values[c] = val
					break
				}
			}
		}
	}
	return p, nil
}

func (p parsed) has(names ...string) bool {
	for _, n := range names {
		if p.flags[n] {
			return true
		}
	}
	return false
}

func (p parsed) value(names ...string) (string, bool) {
	for _, n := range names {
		if v, ok := p.values[n]; ok {
			return v, true
		}
	}
	return "", false
}

// Readback reads back the change that argv (a write program and its words,
// as run) should have made, relative to cwd. It is the seed's
// verify_change: mkdir made directories, touch made files (unless -c), rm
// and rmdir removed their operands, cp and mv put each source where it
// belongs (into a target folder, or as the destination), and mv left no
// source behind. Option words and their values are never taken for paths.
//
// It sees only the state after the run, so "cp -r dir new" (new did not
// exist) is recognised by new holding what dir holds, and "mv dir new" by
// new existing and dir being gone.
//
// A program without a readback rule (a read-only one) is verified with
// nothing to check.
func Readback(argv []string, cwd string) Verification {
	if len(argv) == 0 {
		return Verification{false, "readback failed: empty command"}
	}
	prog := filepath.Base(argv[0])
	spec, ok := optSpecs[prog]
	if !ok {
		return Verification{true, fmt.Sprintf("nothing to read back for %s", prog)}
	}
	p, err := parseArgs(spec, argv[1:])
	if err != nil {
		return Verification{false, fmt.Sprintf("readback failed: %s: %v", prog, err)}
	}
	abs := func(s string) string {
		if filepath.IsAbs(s) {
			return s
		}
		return filepath.Join(cwd, s)
	}
	var problems []string
	switch prog {
	case "mkdir":
		for _, d := range p.operands {
			if info, err := os.Stat(abs(d)); err != nil || !info.IsDir() {
				problems = append(problems, d+" (not a directory)")
			}
		}
	case "touch":
		noCreate := p.has("c", "no-create")
		for _, f := range p.operands {
			if f == "-" {
				continue // touch - touches standard output
			}
			if _, err := os.Lstat(abs(f)); err != nil && !noCreate {
				problems = append(problems, f+" (missing)")
			}
		}
	case "rm", "rmdir":
		for _, f := range p.operands {
			if _, err := os.Lstat(abs(f)); err == nil {
				problems = append(problems, f+" (still present)")
			}
		}
	case "cp", "mv":
		problems, err = readbackCopy(prog, p, abs)
		if err != nil {
			return Verification{false, fmt.Sprintf("readback failed: %s: %v", prog, err)}
		}
	}
	if len(p.operands) == 0 {
		return Verification{false, fmt.Sprintf("readback failed: %s has no operand to read back", prog)}
	}
	if len(problems) > 0 {
		return Verification{false, "readback failed: " + strings.Join(problems, ", ")}
	}
	return Verification{true, fmt.Sprintf("readback confirmed %s %s", prog, strings.Join(p.operands, " "))}
}

// readbackCopy checks that cp or mv put each source where it belongs.
func readbackCopy(prog string, p parsed, abs func(string) string) ([]string, error) {
	var problems []string
	ops := p.operands
	type move struct{ src, dst string }
	var moves []move
	target, hasTarget := p.value("t", "target-directory")
	noTarget := p.has("T", "no-target-directory")
	switch {
	case hasTarget && noTarget:
		return nil, fmt.Errorf("-t and -T together")
	case hasTarget:
		if len(ops) == 0 {
			return nil, fmt.Errorf("no source")
		}
		for _, s := range ops {
			moves = append(moves, move{s, filepath.Join(target, baseName(s))})
		}
	case len(ops) < 2:
		return nil, fmt.Errorf("needs a source and a destination")
	case noTarget:
		if len(ops) != 2 {
			return nil, fmt.Errorf("-T takes exactly one source and one destination")
		}
		moves = append(moves, move{ops[0], ops[1]})
	default:
		dest := ops[len(ops)-1]
		srcs := ops[:len(ops)-1]
		info, err := os.Stat(abs(dest))
		destDir := err == nil && info.IsDir()
		if len(srcs) > 1 || (destDir && !becameDest(prog, srcs[0], dest, abs)) {
			for _, s := range srcs {
				moves = append(moves, move{s, filepath.Join(dest, baseName(s))})
			}
		} else {
			moves = append(moves, move{srcs[0], dest})
		}
	}
	// -n, -u and -i may leave an existing destination as it was, so
	// its content is not compared with the source's.
	compare := prog == "cp" && !p.has("n", "no-clobber", "u", "update", "i", "interactive", "attributes-only")
	for _, m := range moves {
		dst := abs(m.dst)
		if _, err := os.Lstat(dst); err != nil {
			problems = append(problems, m.dst+" (missing)")
			continue
		}
		if compare && !sameContent(abs(m.src), dst) {
			problems = append(problems, m.dst+" (differs from "+m.src+")")
		}
		if prog == "mv" && filepath.Clean(abs(m.src)) != filepath.Clean(dst) {
			if _, err := os.Lstat(abs(m.src)); err == nil {
				problems = append(problems, m.src+" (still present)")
			}
		}
	}
	return problems, nil
}

// becameDest reports whether a single source that is a folder was copied or
// moved to dest itself (dest did not exist before), rather than into dest:
// dest/base(src) is absent and, for cp, dest holds the names src holds; for
// mv, the source is gone.
func becameDest(prog, src, dest string, abs func(string) string) bool {
	if _, err := os.Lstat(filepath.Join(abs(dest), baseName(src))); err == nil {
		return false
	}
	if prog == "mv" {
		_, err := os.Lstat(abs(src))
		return err != nil
	}
	info, err := os.Stat(abs(src))
	if err != nil || !info.IsDir() {
		return false
	}
	a, errA := os.ReadDir(abs(src))
	b, errB := os.ReadDir(abs(dest))
	if errA != nil || errB != nil || len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name() != b[i].Name() {
			return false
		}
	}
	return true
}

func baseName(p string) string {
	return filepath.Base(strings.TrimRight(p, "/"))
}

// sameContentMax bounds how much of a file Readback compares byte for byte;
// beyond it only sizes are compared, so a readback stays cheap.
const sameContentMax = 1 << 20

// sameContent compares two regular files; anything else (folders, links,
// unreadable files) is taken as the same, since existence was checked.
func sameContent(a, b string) bool {
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	if errA != nil || errB != nil || !ia.Mode().IsRegular() || !ib.Mode().IsRegular() {
		return true
	}
	if ia.Size() != ib.Size() {
		return false
	}
	if ia.Size() > sameContentMax {
		return true
	}
	fa, err := os.Open(a)
	if err != nil {
		return true
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return true
	}
	defer fb.Close()
	ba, _ := io.ReadAll(fa)
	bb, _ := io.ReadAll(fb)
	return bytes.Equal(ba, bb)
}
