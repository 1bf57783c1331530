package tape

import (
	"bufio"
	"bytes"
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
	"syscall"
	"time"

	"admit/policy/rule"
)

// Filter selects records for Query. Zero fields select everything.
type Filter struct {
	Since   time.Time // records at or after this time
	Limit   int       // keep only the newest Limit records (0: all)
	Verdict rule.Verdict
	Rule    rule.Rule
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
// is an error (*BrokenError): Verify says more.
//
// With a Limit, Query reads the files backwards from the newest line and
// stops when it has Limit records, so "the last 50" costs the same on a
// tape of any length.
func Query(path string, f Filter) ([]Record, error) {
	pre := f.prefilter()
	var out []Record
	visit := func(file string, line func() int, b []byte) (bool, error) {
		for _, p := range pre {
			if !bytes.Contains(b, p) {
				return true, nil
			}
		}
		var r Record
		if err := json.Unmarshal(b, &r); err != nil {
			return false, &BrokenError{File: file, Line: line(), Why: "not a record: " + err.Error()}
		}
		if f.match(&r) {
			out = append(out, r)
		}
		return f.Limit <= 0 || len(out) < f.Limit, nil
	}
	if f.Limit <= 0 {
		err := walk(path, func(file string, line int, b []byte) error {
			_, err := visit(file, func() int { return line }, b)
			return err
		})
		if err != nil {
			return nil, err
		}
		return out, nil
	}
	if err := walkBack(path, visit); err != nil {
		return nil, err
	}
	slices.Reverse(out)
	return out, nil
}

// prefilter is what a line must contain to match f: the exact bytes the
// encoder writes for each string the filter names. Every line on a tape
// comes from appendBody, so a line without them cannot match; a line with
// them may still not (the bytes can sit inside args), and is decoded.
func (f *Filter) prefilter() [][]byte {
	var pre [][]byte
	for _, kv := range [][2]string{
		{`"verdict":`, string(f.Verdict)}, {`"rule":`, string(f.Rule)}, {`"tool":`, f.Tool}, {`"session":`, f.Session},
	} {
		if kv[1] != "" && len(kv[1]) <= MaxString {
			pre = append(pre, appendQuoted([]byte(kv[0]), kv[1]))
		}
	}
	return pre
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
	var (
		prev     [64]byte // hex hash of the line before
		prevLine int
		prevFile string
	)
	err = walk(path, func(file string, line int, b []byte) error {
		p, ok := prevField(b)
		if !ok {
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
			if r.Prev == nil {
				return &BrokenError{File: file, Line: line, Why: "no prev field"}
			}
			p = []byte(*r.Prev)
		}
		switch {
		case n == 0 && len(p) != 0:
			return &BrokenError{File: file, Line: line, Why: fmt.Sprintf(
				"the first record has prev %s, want \"\": the tape starts in the middle of a chain (an older file or line is missing)",
				short(string(p)))}
		case n > 0 && !bytes.Equal(p, prev[:]):
			return &BrokenError{File: file, Line: line, Why: fmt.Sprintf(
				"prev is %s but line %d of %s hashes to %s: that line was changed, or lines were removed or moved",
				short(string(p)), prevLine, filepath.Base(prevFile), short(string(prev[:])))}
		}
		sum := sha256.Sum256(b)
		hex.Encode(prev[:], sum[:])
		prevLine, prevFile = line, file
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

// prevField reads prev from a line as the writer lays it out (a JSON
// object whose last member is "prev" with "" or 64 hex digits), much faster
// than decoding. It reports false for anything else, which the caller
// decodes in full. In valid JSON that suffix can only be the top-level
// object's last member, the one a decoder would also take.
func prevField(b []byte) ([]byte, bool) {
	const key = `,"prev":"`
	if !bytes.HasSuffix(b, []byte(`"}`)) || b[0] != '{' {
		return nil, false
	}
	body := b[:len(b)-2]
	var h []byte
	switch {
	case bytes.HasSuffix(body, []byte(key)):
		h = body[len(body):] // prev "": the first record
	case len(body) >= 64+len(key) && bytes.HasSuffix(body[:len(body)-64], []byte(key)):
		h = body[len(body)-64:]
		for _, c := range h {
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
				return nil, false
			}
		}
	default:
		return nil, false
	}
	if !json.Valid(b) {
		return nil, false
	}
	return h, true
}

// tapeFile is one file of a tape, open for reading, and how much of it to
// read.
type tapeFile struct {
	name    string
	f       *os.File
	end     int64
	current bool
}

// snapshot opens the files of the tape at path, oldest first. It holds the
// writers' lock (shared) while it lists and opens them, so that no writer
// is between a write and a rotation, then lets go: the open files stay
// what they were even if a writer renames them. A tape that was never
// written has no lock file and nothing to race with.
func snapshot(path string) ([]tapeFile, error) {
	if lock, err := os.Open(path + ".lock"); err == nil {
		defer lock.Close() // closing drops the lock
		for {
			err := syscall.Flock(int(lock.Fd()), syscall.LOCK_SH)
			if err != syscall.EINTR {
				break // without the lock the read is merely less careful
			}
		}
	}
	names, err := rotated(path)
	if err != nil {
		return nil, fmt.Errorf("tape: list rotated files: %w", err)
	}
	names = append(names, path)
	var files []tapeFile
	for i, name := range names {
		tf := tapeFile{name: name, current: i == len(names)-1}
		tf.f, err = os.Open(name)
		if err == nil {
			var fi os.FileInfo
			if fi, err = tf.f.Stat(); err == nil {
				tf.end = fi.Size()
				if tf.current {
					// Up to the last whole line: a torn tail is skipped.
					tf.end, _, err = scanTail(tf.f, tf.end)
				}
			}
			files = append(files, tf)
		} else if tf.current && errors.Is(err, os.ErrNotExist) {
			err = nil
		}
		if err != nil {
			closeAll(files)
			return nil, fmt.Errorf("tape: read: %w", err)
		}
	}
	return files, nil
}

func closeAll(files []tapeFile) {
	for _, tf := range files {
		tf.f.Close()
	}
}

// walk calls fn for every line (without its newline) of the tape's files,
// oldest first, stopping at the first error. The current file is read up
// to its last whole line; a rotated file must end in a newline.
func walk(path string, fn func(file string, line int, b []byte) error) error {
	files, err := snapshot(path)
	if err != nil {
		return err
	}
	defer closeAll(files)
	for _, tf := range files {
		if err := walkFile(tf, fn); err != nil {
			return err
		}
	}
	return nil
}

func walkFile(tf tapeFile, fn func(file string, line int, b []byte) error) error {
	file := tf.name
	br := bufio.NewReaderSize(io.NewSectionReader(tf.f, 0, tf.end), 64<<10)
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

// backChunk is how much walkBack reads at a time: a few hundred lines, so
// a small Limit reads little. A variable so tests can make it tiny.
var backChunk = 256 << 10

// walkBack calls fn for every line of the tape's files, newest first,
// until fn returns false or an error. line computes the line's number in
// its file, which takes a read of the file up to it: only errors need it.
func walkBack(path string, fn func(file string, line func() int, b []byte) (bool, error)) error {
	files, err := snapshot(path)
	if err != nil {
		return err
	}
	defer closeAll(files)
	buf := make([]byte, 0, backChunk)
	for i := len(files) - 1; i >= 0; i-- {
		more, err := walkFileBack(files[i], buf, fn)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

func walkFileBack(tf tapeFile, buf []byte, fn func(file string, line func() int, b []byte) (bool, error)) (bool, error) {
	file, f, end := tf.name, tf.f, tf.end
	if !tf.current && end > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, end-1); err != nil {
			return false, fmt.Errorf("tape: read: %w", err)
		}
		if last[0] != '\n' {
			n, _ := lineNumber(f, end)
			return false, &BrokenError{File: file, Line: n, Why: "unterminated last line"}
		}
	}
	// data holds the file's bytes from pos to the start of the oldest line
	// handed to fn so far; it always ends in a newline.
	pos := end
	var data []byte
	for pos > 0 {
		n := min(int64(cap(buf)), pos)
		pos -= n
		chunk := buf[:n]
		if _, err := f.ReadAt(chunk, pos); err != nil && err != io.EOF {
			return false, fmt.Errorf("tape: read: %w", err)
		}
		data = append(chunk, data...)
		e := len(data)
		for e > 0 {
			i := bytes.LastIndexByte(data[:e-1], '\n')
			if i < 0 && pos > 0 {
				break // the line starts in an earlier chunk
			}
			at := pos + int64(i+1)
			line := func() int {
				n, _ := lineNumber(f, at)
				return n
			}
			b := data[i+1 : e-1]
			if len(b) == 0 {
				return false, &BrokenError{File: file, Line: line(), Why: "empty line"}
			}
			more, err := fn(file, line, b)
			if err != nil || !more {
				return more, err
			}
			e = i + 1
		}
		data = append([]byte(nil), data[:e]...)
	}
	return true, nil
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
