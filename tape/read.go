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
	"time"

	"admit/internal/sysfile"
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

// ErrNoTape is Verify's error for a path with no tape at all (no file and
// no rotated files): there is nothing to vouch for.
var ErrNoTape = errors.New("tape: no tape")

// HeadError says that the tape does not match its head or its mark, or
// that they cannot be checked: what the chain alone cannot show (a changed
// last line, records cut from the end, a tape put back to an older state).
type HeadError struct {
	File string // the tape file, head or mark concerned
	Line int    // 1-based line of File, 0 when the error is about a head
	Why  string
	// Unanchored is set when the chain is whole and goes on past the head
	// and past the last sealed line: the lines after it were written but
	// not anchored. A batch a machine crash kept only part of leaves this,
	// and so does a writer without the key; the next Open records them and
	// anchors them.
	Unanchored bool
}

func (e *HeadError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("tape: %s:%d: %s", e.File, e.Line, e.Why)
	}
	return fmt.Sprintf("tape: %s: %s", e.File, e.Why)
}

// VerifyOptions configure VerifyWith.
type VerifyOptions struct {
	// SealDir holds the key that checks the head, and the tape's mark (""
	// : DefaultSealDir). Verify never creates it.
	SealDir string
}

// Verify is VerifyWith with the default seal folder.
func Verify(path string) (n int, err error) { return VerifyWith(path, VerifyOptions{}) }

// VerifyWith checks the tape at path, with its rotated files, oldest first,
// and returns how many records it checked. A torn last line is skipped, as
// readers do.
//
// The chain: the first record must have prev ""; each later one the hash
// of the line before it, also across files. A broken chain is a
// *BrokenError naming the first broken line: a line changed, removed or
// moved anywhere but at the end.
//
// The head (path + HeadSuffix) and the mark (in the seal folder) must be
// sealed with the key and agree with the tape: as many records as they
// anchor, the last one hashing to what they say, the current file ending
// where they say. Otherwise the error is a *HeadError: the last line
// changed, records cut from the end, a head or mark missing, changed or
// older than the other. A path with no tape at all is ErrNoTape.
func VerifyWith(path string, o VerifyOptions) (n int, err error) {
	if path, err = filepath.Abs(path); err != nil {
		return 0, fmt.Errorf("tape: verify: %w", err)
	}
	headName := path + HeadSuffix
	s, serr := openSeal(o.SealDir, false)
	var hb, mb []byte
	var herr, merr error
	files, err := snapshot(path, func() {
		hb, herr = readSmallFile(headName)
		if s != nil {
			mb, merr = readSmallFile(s.markPath(path))
		}
	})
	if err != nil {
		return 0, err
	}
	defer closeAll(files)
	if len(files) == 0 {
		return 0, fmt.Errorf("%w at %s", ErrNoTape, path)
	}
	var want int64 = -1 // the records the head anchors, once it is read
	var h, m anchor
	var mderr error = errNoHead
	if serr == nil {
		if herr == nil {
			h, herr = s.decode(hb, filepath.Base(path))
		}
		if merr == nil {
			m, mderr = s.decode(mb, filepath.Base(path))
		}
	}
	// A mark ahead of the head: the tape must reach the mark (else it and
	// its head were put back), and the mark anchors it.
	markAhead := herr == nil && mderr == nil && (m.records > h.records || m.records == h.records && m != h)
	if markAhead {
		h = m
	}
	if herr == nil {
		want = h.records
	}

	type place struct {
		file string
		line int
	}
	var (
		prev           [64]byte // hex hash of the line before
		last, anchored [32]byte
		lastAt, after  place // the last record; the first one past the head
		prevLine       int
		prevFile       string
		sealed         int64 // the last record with a valid seal (0: none)
		afterSeal      place // the record after it
	)
	err = walkFiles(files, func(file string, line int, b []byte) error {
		// A seal that does not match counts as none: a changed line shows
		// on the next line's prev, or (the last) against the head.
		if s != nil {
			if _, ok := s.checkLine(b); ok {
				sealed = int64(n) + 1
			}
		}
		if int64(n) == sealed && sealed > 0 {
			afterSeal = place{file, line}
		}
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
		last = sha256.Sum256(b)
		hex.Encode(prev[:], last[:])
		prevLine, prevFile = line, file
		n++
		lastAt = place{file, line}
		switch int64(n) {
		case want:
			anchored = last
		case want + 1:
			after = place{file, line}
		}
		return nil
	})
	if err != nil {
		return n, err
	}

	// The head and the mark.
	switch {
	case serr != nil:
		return n, &HeadError{File: headName, Why: "cannot check the head: " + serr.Error()}
	case herr == errNoHead:
		return n, &HeadError{File: headName, Why: "the head is missing: nothing vouches for the end of the tape (a tape from before heads, or a head that was removed)"}
	case herr != nil:
		return n, &HeadError{File: headName, Why: "the head cannot be trusted: " + herr.Error()}
	}
	markName := s.markPath(path)
	switch {
	case merr != nil:
		return n, &HeadError{File: markName, Why: "cannot read the mark: " + merr.Error()}
	case mderr == errNoHead && h.records > 0:
		return n, &HeadError{File: markName, Why: "the mark is missing, so an older tape put back in place would not show"}
	case mderr != nil && mderr != errNoHead:
		return n, &HeadError{File: markName, Why: "the mark cannot be trusted: " + mderr.Error()}
	case markAhead && (int64(n) < m.records || m.records > 0 && anchored != m.last):
		hd, _ := s.decode(hb, filepath.Base(path))
		return n, &HeadError{File: headName, Why: fmt.Sprintf(
			"the head anchors %d records but the mark in %s anchors %d: the tape and its head were put back to an older state",
			hd.records, s.dir, m.records)}
	}

	// Where the head says the tape ends: in the current file, or at the end
	// of the newest rotated one when the current file is empty or missing
	// (a crash in the middle of a rotation, before the head saw it).
	cur, rot := files[len(files)-1], tapeFile{end: -1}
	if !cur.current {
		cur, rot = tapeFile{}, cur
	} else if len(files) > 1 {
		rot = files[len(files)-2]
	}
	endOK := cur.current && cur.end == h.size ||
		cur.end == 0 && (h.size == 0 || h.size == rot.end)
	switch got := int64(n); {
	case got == h.records && (got == 0 || last == h.last) && endOK:
		return n, nil
	case got > h.records && (h.records == 0 || anchored == h.last) && sealed == got:
		// The head lags (it is not synced): the tape's sealed last line
		// anchors the records past it.
		return n, nil
	case got > h.records && (h.records == 0 || anchored == h.last):
		from, k := after, got-h.records
		if sealed > h.records {
			from, k = afterSeal, got-sealed
		}
		return n, &HeadError{File: from.file, Line: from.line, Unanchored: true, Why: fmt.Sprintf(
			"%d records from here on are not anchored by the head (it anchors %d) nor sealed: a crash between writing them and updating the head leaves this, and so does a writer without the key; the next writer records and anchors them",
			k, h.records)}
	case got < h.records:
		return n, &HeadError{File: lastAt.file, Line: lastAt.line, Why: fmt.Sprintf(
			"the tape ends after %d records but its head anchors %d: records were cut from the end", got, h.records)}
	case got == h.records && last != h.last:
		return n, &HeadError{File: lastAt.file, Line: lastAt.line, Why: fmt.Sprintf(
			"the last record hashes to %s but the head anchors %s: the last record was changed",
			short(hex.EncodeToString(last[:])), short(h.lastHex()))}
	case got == h.records && !cur.current:
		return n, &HeadError{File: path, Why: fmt.Sprintf("the current file is missing; its head anchors %d bytes of it", h.size)}
	case got == h.records:
		return n, &HeadError{File: path, Why: fmt.Sprintf(
			"the current file ends at byte %d but its head anchors %d bytes", cur.end, h.size)}
	default:
		return n, &HeadError{File: path, Why: fmt.Sprintf(
			"record %d, which the head anchors, hashes to %s and not %s: the tape was rewritten from there on",
			h.records, short(hex.EncodeToString(anchored[:])), short(h.lastHex()))}
	}
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
// what they were even if a writer renames them. locked (if not nil) runs
// while the lock is held, to read the head that goes with the files. A
// tape that was never written has no lock file and nothing to race with.
func snapshot(path string, locked func()) ([]tapeFile, error) {
	if lock, err := sysfile.Open(path + ".lock"); err == nil {
		defer lock.Close()            // closing drops the lock
		_ = sysfile.Lock(lock, false) // without the lock the read is merely less careful
	}
	if locked != nil {
		defer locked() // before the lock is dropped
	}
	names, err := rotated(path)
	if err != nil {
		return nil, fmt.Errorf("tape: list rotated files: %w", err)
	}
	names = append(names, path)
	var files []tapeFile
	for i, name := range names {
		tf := tapeFile{name: name, current: i == len(names)-1}
		tf.f, err = sysfile.Open(name)
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
	files, err := snapshot(path, nil)
	if err != nil {
		return err
	}
	defer closeAll(files)
	return walkFiles(files, fn)
}

func walkFiles(files []tapeFile, fn func(file string, line int, b []byte) error) error {
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
	files, err := snapshot(path, nil)
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
