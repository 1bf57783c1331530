package command

import "strings"

// Linters and formatters that only read: gofmt -l (or -d, -s, -e) prints
// the names or the diffs of files it would change and writes nothing;
// ruff check and ruff format --check or --diff print what they find, and
// with --no-cache write nothing either (without it ruff writes
// .ruff_cache/ in the project). Neither runs code of the workspace's:
// they parse it. Their operands are judged as reads.

// readOnlyLint judges argv when it is such a read-only use; it reports
// whether it judged it.
func (j *judge) readOnlyLint(argv []string) bool {
	var ops []string
	switch argv[0] {
	case "gofmt":
		for _, a := range argv[1:] {
			switch {
			case a == "-l" || a == "-d" || a == "-s" || a == "-e" || a == "-ls" || a == "-sl" || a == "-ds" || a == "-sd":
			case strings.HasPrefix(a, "-"):
				return false // -w writes, -r rewrites, -cpuprofile writes a file
			default:
				ops = append(ops, a)
			}
		}
		if len(argv) == 1 {
			return false
		}
	case "ruff":
		if len(argv) < 2 {
			return false
		}
		sub, rest := argv[1], argv[2:]
		noCache, check := false, sub == "check"
		for _, a := range rest {
			switch {
			case a == "--no-cache":
				noCache = true
			case sub == "format" && (a == "--check" || a == "--diff"):
				check = true
			case a == "-q" || a == "--quiet" || a == "--statistics" || a == "--show-files" || a == "--show-settings" || a == "--no-fix" || a == "-e" || a == "--exit-zero" ||
				strings.HasPrefix(a, "--output-format=") || strings.HasPrefix(a, "--select=") || strings.HasPrefix(a, "--ignore=") || strings.HasPrefix(a, "--extend-select=") || strings.HasPrefix(a, "--target-version="):
			case strings.HasPrefix(a, "-"):
				return false // --fix, --watch, --add-noqa, --config FILE, ...
			default:
				ops = append(ops, a)
			}
		}
		if !noCache || !check {
			return false
		}
	default:
		return false
	}
	for _, op := range ops {
		j.path(argv[0], access{word: op, what: "operand", mode: modeRead})
		if j.acc.refused {
			return true
		}
	}
	return true
}
