package cases

import (
	"bytes"
	"strings"
)

// archive is a txtar archive: a comment, then sections each opened by a
// line "-- NAME --". It is the format of golang.org/x/tools/txtar, read
// here in a few lines rather than taken as a dependency.
type archive struct {
	comment  string
	sections []section
}

// section is one "-- NAME --" and the lines up to the next one.
type section struct {
	name string
	line int // the line of the marker, 1-based
	data string
}

// parseArchive reads a txtar archive. A section's data ends with a
// newline, as txtar writes it, unless it is empty.
func parseArchive(data []byte) archive {
	var a archive
	var cur *section
	var body strings.Builder
	flush := func() {
		if cur == nil {
			a.comment = body.String()
		} else {
			cur.data = body.String()
			a.sections = append(a.sections, *cur)
		}
		body.Reset()
	}
	for i, line := range bytes.SplitAfter(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if name, ok := marker(line); ok {
			flush()
			cur = &section{name: name, line: i + 1}
			continue
		}
		body.Write(line)
		if line[len(line)-1] != '\n' {
			body.WriteByte('\n')
		}
	}
	flush()
	return a
}

// marker reports whether line is "-- NAME --" and returns NAME.
func marker(line []byte) (string, bool) {
	s := strings.TrimRight(string(line), "\r\n")
	if !strings.HasPrefix(s, "-- ") || !strings.HasSuffix(s, " --") || len(s) < 6 {
		return "", false
	}
	name := strings.TrimSpace(s[3 : len(s)-3])
	return name, name != ""
}
