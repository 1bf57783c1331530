package tape

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Filter selects records for Query. Zero fields select everything.
type Filter struct {
	Since   time.Time // records at or after this time
	Limit   int       // keep only the newest Limit records (0: all)
	Verdict string
	Rule    string
	Tool    string
	Session string
}

func (f *Filter) match(r *Record) bool {
	return (f.Since.IsZero() || !r.Time.Before(f.Since)) &&
		(f.Verdict == "" || r.Verdict == f.Verdict) &&
		(f.Rule == "" || r.Rule == f.Rule) &&
		(f.Tool == "" || r.Tool == f.Tool) &&
		(f.Session == "" || r.Session == f.Session)
}

// BrokenError names the first line where a tape is not what the writer
// writes: not a JSON object, or a prev that is not the hash of the line
// before it. A changed line shows up on the line after it (whose prev no
// longer matches); a removed or moved line on its own position.
type BrokenError struct {
	File string // the file's path
	Line int    // 1-based, within File
	Why  string
}

func (e *BrokenError) Error() string {
	return fmt.Sprintf("tape: %s:%d: %s", e.File, e.Line, e.Why)
}

// Query returns the records of the tape at path (and of its rotated
// files) that match f, oldest first. A torn last line is skipped, as is a
// tape that does not exist yet (no records, no error). A malformed line
// elsewhere is an error (*BrokenError): Verify says more.
func Query(path string, f Filter) ([]Record, error) {
	var out []Record
	next := 0 // with a Limit, out is a ring and next its oldest slot
	err := walk(path, func(file string, line int, b []byte) error {
		var r Record
		if err := json.Unmarshal(b, &r); err != nil {
			return &BrokenError{File: file, Line: line, Why: "not a record: " + err.Error()}
		}
		if !f.match(&r) {
			return nil
		}
		if f.Limit > 0 && len(out) == f.Limit {
			out[next] = r
			next = (next + 1) % f.Limit
			return nil
		}
		out = append(out, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if next > 0 {
		out = append(out[next:], out[:next]...)
	}
	return out, nil
}

// Verify checks the hash chain of the tape at path across its rotated
// files, oldest first, and returns how many records it checked. The first
// record must have prev ""; each later one the hash of the line before it,
// also across files. A torn last line is skipped, as readers do. The error
// for a broken chain is a *BrokenError naming the first broken line.
//
// The chain shows that no line was changed, removed or moved, except at
// the end: cutting off the newest records leaves a valid chain. Compare
// Tape.Head with a copy kept elsewhere to catch that.
func Verify(path string) (n int, err error) {
	var prev string // hash of the previous line
	var prevAt string
	err = walk(path, func(file string, line int, b []byte) error {
		var r struct {
			Prev *string `json:"prev"`
		}
		if err := json.Unmarshal(b, &r); err != nil || b[0] != '{' {
			why := "not a JSON object"
			if err != nil {
				why += ": " + err.Error()
			}
			return &BrokenError{File: file, Line: line, Why: why}
		}
		switch {
		case r.Prev == nil:
			return &BrokenError{File: file, Line: line, Why: "no prev field"}
		case n == 0 && *r.Prev != "":
			return &BrokenError{File: file, Line: line, Why: fmt.Sprintf(
				"the first record has prev %s, want \"\": the tape starts in the middle of a chain (an older file or line is missing)",
				short(*r.Prev))}
		case n > 0 && *r.Prev != prev:
			return &BrokenError{File: file, Line: line, Why: fmt.Sprintf(
				"prev is %s but %s hashes to %s: that line was changed, or lines were removed or moved",
				short(*r.Prev), prevAt, short(prev))}
		}
		sum := sha256.Sum256(b)
		prev = hex.EncodeToString(sum[:])
		prevAt = fmt.Sprintf("line %d of %s", line, filepath.Base(file))
		n++
		return nil
	})
	return n, err
}

func short(h string) string {
	if h == "" {
		return `""`
	}
	if len(h) > 12 {
		return h[:12] + "…"
	}
	return h
}

// walk calls fn for every line (without its newline) of the tape's files,
// oldest first, stopping at the first error. The current file is read up
// to its last whole line; a rotated file must end in a newline.
func walk(path string, fn func(file string, line int, b []byte) error) error {
	files, err := rotated(path)
	if err != nil {
		return fmt.Errorf("tape: list rotated files: %w", err)
	}
	files = append(files, path)
	for i, file := range files {
		if err := walkFile(file, i == len(files)-1, fn); err != nil {
			return err
		}
	}
	return nil
}

func walkFile(file string, current bool, fn func(file string, line int, b []byte) error) error {
	f, err := os.Open(file)
	if err != nil {
		if current && errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("tape: read: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("tape: read: %w", err)
	}
	end := fi.Size()
	if current {
		// A writer may be appending: read what is there now, minus a torn
		// tail.
		if end, _, err = scanTail(f, end); err != nil {
			return fmt.Errorf("tape: read: %w", err)
		}
	}
	br := bufio.NewReaderSize(io.NewSectionReader(f, 0, end), 64<<10)
	var long []byte
	for line := 1; ; line++ {
		b, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long[:0], b...)
			for err == bufio.ErrBufferFull {
				b, err = br.ReadSlice('\n')
				long = append(long, b...)
			}
			b = long
		}
		if err == io.EOF {
			if len(b) > 0 {
				return &BrokenError{File: file, Line: line, Why: "unterminated last line"}
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("tape: read: %w", err)
		}
		b = b[:len(b)-1]
		if len(b) == 0 {
			return &BrokenError{File: file, Line: line, Why: "empty line"}
		}
		if err := fn(file, line, b); err != nil {
			return err
		}
	}
}

// rotated lists the rotated files of the tape at path (path.1, path.2,
// ...), oldest (highest number) first. Gaps, which a crash in the middle
// of a rotation can leave, do not matter.
func rotated(path string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	base := filepath.Base(path) + "."
	var files []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, base) || !e.Type().IsRegular() {
			continue
		}
		if n := rotatedNumber(path, name); n > 0 {
			files = append(files, filepath.Join(filepath.Dir(path), name))
		}
	}
	slices.SortFunc(files, func(a, b string) int {
		return rotatedNumber(path, b) - rotatedNumber(path, a)
	})
	return files, nil
}

// rotatedNumber is N for a file named path.N (N > 0), else 0.
func rotatedNumber(path, file string) int {
	suffix, ok := strings.CutPrefix(filepath.Base(file), filepath.Base(path)+".")
	if !ok || suffix == "" || suffix[0] == '0' {
		return 0
	}
	n, err := strconv.Atoi(suffix)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}
