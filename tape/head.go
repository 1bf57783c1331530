package tape

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"admit/internal/strictjson"
	"admit/internal/sysfile"
)

// The head: see "The head" in the package doc and docs/tape.md.

// HeadSuffix names the head of the tape at path: path + HeadSuffix.
const HeadSuffix = ".head"

// headVersion is the "v" of the head's line; a reader refuses another.
const headVersion = 1

// keyFile and markSuffix are the names inside the seal folder.
const (
	keyFile    = "key"
	markSuffix = ".mark"
)

// DefaultSealDir is $XDG_DATA_HOME/admit/tape-seal, or
// ~/.local/share/admit/tape-seal when XDG_DATA_HOME is unset or not
// absolute: the key that seals every head, and a mark per tape. It is
// outside the tape's folder ($XDG_STATE_HOME/admit), so that rewriting a
// tape and its head without being caught also takes reading the key and
// writing a second folder.
func DefaultSealDir() (string, error) {
	base := os.Getenv("XDG_DATA_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("tape: default seal folder: %w", err)
		}
		base = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(base, "admit", "tape-seal"), nil
}

// seal is the key that signs heads and the folder that holds it. Its
// methods are not safe for concurrent use (mac reuses one hash): a writer
// uses it under Tape.commit, a reader has its own.
type seal struct {
	dir string
	key []byte
	id  string // 16 hex digits naming the key (not secret), in every head

	h   hash.Hash // HMAC-SHA256 with key
	buf []byte    // mac's input, reused
	sum []byte
}

// errNoKey is why a head cannot be checked when the seal has no key.
var errNoKey = errors.New("no key")

// openSeal reads the key in dir, creating the folder (0700) and a new
// random key (0600) when create is set and there is none.
func openSeal(dir string, create bool) (*seal, error) {
	if dir == "" {
		var err error
		if dir, err = DefaultSealDir(); err != nil {
			return nil, err
		}
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("tape: seal folder: %w", err)
	}
	name := filepath.Join(dir, keyFile)
	key, err := readKey(name)
	if errors.Is(err, os.ErrNotExist) && create {
		if err = makeKey(dir, name); err == nil {
			key, err = readKey(name)
		}
	}
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			err = fmt.Errorf("%w at %s", errNoKey, name)
		}
		return nil, fmt.Errorf("tape: seal: %w", err)
	}
	sum := sha256.Sum256(append([]byte("admit tape key id\n"), key...))
	return &seal{dir: dir, key: key, id: hex.EncodeToString(sum[:8]), h: hmac.New(sha256.New, key)}, nil
}

// readKey reads a key file: a regular file (not a link another program
// could point elsewhere) holding 64 hex digits.
func readKey(name string) ([]byte, error) {
	fi, err := os.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	key, err := hex.DecodeString(string(bytes.TrimSpace(b)))
	if err != nil || len(key) != 32 {
		return nil, fmt.Errorf("%s does not hold a key (64 hex digits)", name)
	}
	return key, nil
}

// makeKey writes a new key to name. The key is written to a temporary file
// and linked into place, so that two processes starting at once agree on
// one key and nobody reads a half-written one.
func makeKey(dir, name string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".key-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(hex.EncodeToString(key) + "\n")
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Link(tmp.Name(), name); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	return syncDir(dir)
}

// markPath is where the mark of the tape at the absolute path tape lives:
// one file per tape, named by the hash of its path with the folder's
// symlinks resolved, so that every spelling of the path finds it.
func (s *seal) markPath(tape string) string {
	dir := filepath.Dir(tape)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	sum := sha256.Sum256([]byte(filepath.Join(dir, filepath.Base(tape))))
	return filepath.Join(s.dir, hex.EncodeToString(sum[:16])+markSuffix)
}

// anchor is what a head says: how many records the tape holds, where the
// last whole line of the current file ends, and the hash of the last
// record (none when the tape is empty).
type anchor struct {
	records int64
	size    int64
	last    [32]byte
}

func (a anchor) lastHex() string {
	if a.records == 0 {
		return ""
	}
	return hex.EncodeToString(a.last[:])
}

// mac is the HMAC-SHA256 of the anchor of the tape file named file:
// over "admit tape head v1", file, records, size and last, a line each.
// The result is valid until the next call.
func (s *seal) mac(file string, a anchor) []byte {
	b := append(s.buf[:0], "admit tape head v"...)
	b = strconv.AppendInt(b, headVersion, 10)
	b = append(b, '\n')
	b = append(b, file...)
	b = append(b, '\n')
	b = strconv.AppendInt(b, a.records, 10)
	b = append(b, '\n')
	b = strconv.AppendInt(b, a.size, 10)
	b = append(b, '\n')
	if a.records > 0 {
		b = hex.AppendEncode(b, a.last[:])
	}
	b = append(b, '\n')
	s.buf = b
	s.h.Reset()
	s.h.Write(b)
	s.sum = s.h.Sum(s.sum[:0])
	return s.sum
}

// headWidth is the length of every head of the tape file named file, so
// that a new head written in place covers the old one entirely: more than
// the fixed fields (about 250 bytes with the largest numbers) and the
// name quoted with every byte escaped.
func headWidth(file string) int { return 320 + 6*len(file) }

// encode appends the head line for an anchor, padded with spaces to
// headWidth.
func (s *seal) encode(b []byte, file string, a anchor) []byte {
	start := len(b)
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, headVersion, 10)
	b = append(b, `,"file":`...)
	b = appendQuoted(b, file)
	b = append(b, `,"records":`...)
	b = strconv.AppendInt(b, a.records, 10)
	b = append(b, `,"size":`...)
	b = strconv.AppendInt(b, a.size, 10)
	b = append(b, `,"last":"`...)
	if a.records > 0 {
		b = hex.AppendEncode(b, a.last[:]) // lastHex, without a string per head
	}
	b = append(b, `","key":"`...)
	b = append(b, s.id...)
	b = append(b, `","mac":"`...)
	b = hex.AppendEncode(b, s.mac(file, a))
	b = append(b, `"}`...)
	for len(b)-start < headWidth(file)-1 {
		b = append(b, ' ')
	}
	return append(b, '\n')
}

// decodeOwn reads a head in exactly the form encode writes for the tape
// file named file under this key, without the JSON decoder: it takes the
// numbers and the hash from their places, encodes them again into scratch
// and says whether that gives b, byte for byte (so the MAC, the key and
// the file are this seal's). It is how a writer takes the head another
// writer of the tape left; anything else is ok false, and decode says what
// is wrong with it. scratch comes back for reuse.
func (s *seal) decodeOwn(b []byte, file string, scratch []byte) (a anchor, _ []byte, ok bool) {
	want := append(scratch[:0], `{"v":`...)
	want = strconv.AppendInt(want, headVersion, 10)
	want = append(want, `,"file":`...)
	want = appendQuoted(want, file)
	want = append(want, `,"records":`...)
	rest, found := bytes.CutPrefix(b, want)
	var digits bool
	if a.records, rest, digits = cutNumber(rest); !found || !digits {
		return anchor{}, want, false
	}
	if rest, found = bytes.CutPrefix(rest, []byte(`,"size":`)); !found {
		return anchor{}, want, false
	}
	if a.size, rest, digits = cutNumber(rest); !digits {
		return anchor{}, want, false
	}
	if rest, found = bytes.CutPrefix(rest, []byte(`,"last":"`)); !found {
		return anchor{}, want, false
	}
	if a.records > 0 {
		if len(rest) < 64 {
			return anchor{}, want, false
		}
		if _, err := hex.Decode(a.last[:], rest[:64]); err != nil {
			return anchor{}, want, false
		}
	}
	want = s.encode(want[:0], file, a)
	return a, want, bytes.Equal(want, b)
}

// cutNumber takes the decimal digits b starts with (at most 18, so that
// they fit an int64), and says whether there were any.
func cutNumber(b []byte) (n int64, rest []byte, ok bool) {
	i := 0
	for ; i < len(b) && i < 18 && '0' <= b[i] && b[i] <= '9'; i++ {
		n = n*10 + int64(b[i]-'0')
	}
	return n, b[i:], i > 0
}

// errNoHead is a head file that is missing or empty.
var errNoHead = errors.New("missing")

// decode checks a head (or mark) of the tape file named file: its format,
// its key and its MAC. The error says what is wrong, in words.
func (s *seal) decode(b []byte, file string) (anchor, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return anchor{}, errNoHead
	}
	var h struct {
		V       *int   `json:"v"`
		File    string `json:"file"`
		Records *int64 `json:"records"`
		Size    *int64 `json:"size"`
		Last    string `json:"last"`
		Key     string `json:"key"`
		MAC     string `json:"mac"`
	}
	if err := strictjson.Decode(b, &h); err != nil {
		return anchor{}, fmt.Errorf("not a head: %v", err)
	}
	switch {
	case h.V == nil || *h.V != headVersion:
		return anchor{}, fmt.Errorf("not a version %d head", headVersion)
	case h.Records == nil || h.Size == nil || *h.Records < 0 || *h.Size < 0:
		return anchor{}, errors.New("not a head: records and size must be numbers of 0 or more")
	case h.File != file:
		return anchor{}, fmt.Errorf("it is the head of %q, not of %q", h.File, file)
	case h.Key != s.id:
		return anchor{}, fmt.Errorf("it was sealed with key %s, and the key in %s is %s", short(h.Key), s.dir, s.id)
	}
	a := anchor{records: *h.Records, size: *h.Size}
	if a.records > 0 {
		last, err := hex.DecodeString(h.Last)
		if err != nil || len(last) != 32 {
			return anchor{}, errors.New("not a head: last is not a SHA-256")
		}
		copy(a.last[:], last)
	} else if h.Last != "" || a.size != 0 {
		return anchor{}, errors.New("not a head: an empty tape has no last record and size 0")
	}
	mac, err := hex.DecodeString(h.MAC)
	if err != nil || !hmac.Equal(mac, s.mac(file, a)) {
		return anchor{}, errors.New("its MAC does not match: it was written without the key, or changed")
	}
	return a, nil
}

// readSmall reads a head or a mark: at most 4 KiB, which is more than any
// head holds.
func readSmall(f io.ReaderAt) ([]byte, error) {
	b := make([]byte, 4<<10)
	n, err := f.ReadAt(b, 0)
	if err == io.EOF {
		err = nil
	}
	return b[:n], err
}

// readSmallFile is readSmall by name; a missing file reads as empty.
func readSmallFile(name string) ([]byte, error) {
	f, err := sysfile.Open(name)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readSmall(f)
}

// lineEndingAt returns the line (without its newline) that ends just
// before off (f[off-1] is its newline), or ok false when off is not just
// after a newline.
func lineEndingAt(f io.ReaderAt, off int64) (line []byte, ok bool, err error) {
	if off <= 0 {
		return nil, false, nil
	}
	one := []byte{0}
	if _, err := f.ReadAt(one, off-1); err != nil {
		if err == io.EOF {
			return nil, false, nil
		}
		return nil, false, err
	}
	if one[0] != '\n' {
		return nil, false, nil
	}
	end := off - 1
	chunk := int64(4 << 10)
	for {
		start := max(0, end-chunk)
		buf := make([]byte, end-start)
		if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
			return nil, false, err
		}
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
			return buf[i+1:], true, nil
		}
		if start == 0 {
			return buf, true, nil
		}
		chunk *= 2
	}
}

// countLines counts the newlines in f between from and to.
func countLines(f io.ReaderAt, from, to int64) (int64, error) {
	var n int64
	buf := make([]byte, 256<<10)
	for pos := from; pos < to; {
		k, err := f.ReadAt(buf[:min(int64(len(buf)), to-pos)], pos)
		n += int64(bytes.Count(buf[:k], []byte{'\n'}))
		pos += int64(k)
		if err != nil && err != io.EOF {
			return 0, err
		}
		if k == 0 {
			break
		}
	}
	return n, nil
}

// The seal of a line: the last line of every batch carries
// `"seal":"<hex>"` just before prev, the HMAC-SHA256 under the key of the
// line with that member cut out. A line so sealed anchors itself and,
// through the chain, every line before it: a head or mark that lags the
// tape after a machine crash (they are written, not synced) is made good
// from the tape on open, while lines added by a writer without the key
// stay unanchored. See "Crashes" in docs/tape.md.
const sealKey = `,"seal":"`

// sealWidth is the length of the seal member.
const sealWidth = len(sealKey) + 64 + 1

// sealLine puts the seal into the line that starts at buf[start] and ends
// the buffer (without its newline); at is where its prev member starts.
func (s *seal) sealLine(buf []byte, start, at int) []byte {
	s.h.Reset()
	s.h.Write(buf[start:])
	s.sum = s.h.Sum(s.sum[:0])
	s.buf = append(s.buf[:0], buf[at:]...)
	buf = append(buf[:at], sealKey...)
	buf = hex.AppendEncode(buf, s.sum)
	buf = append(buf, '"')
	return append(buf, s.buf...)
}

// sealAt finds a line's seal member: the offset where it starts, or -1
// when the line has none (unsealed lines, and tapes from before seals).
func sealAt(line []byte) int {
	p := bytes.LastIndex(line, []byte(`,"prev":"`))
	i := p - sealWidth
	if i < 0 || line[p-1] != '"' || !bytes.Equal(line[i:i+len(sealKey)], []byte(sealKey)) {
		return -1
	}
	for _, c := range line[i+len(sealKey) : p-1] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return -1
		}
	}
	return i
}

// checkLine says whether line carries a seal and whether it is this key's
// seal of the line.
func (s *seal) checkLine(line []byte) (sealed, ok bool) {
	i := sealAt(line)
	if i < 0 {
		return false, false
	}
	var want [32]byte
	if _, err := hex.Decode(want[:], line[i+len(sealKey):i+sealWidth-1]); err != nil {
		return true, false
	}
	s.h.Reset()
	s.h.Write(line[:i])
	s.h.Write(line[i+sealWidth:])
	s.sum = s.h.Sum(s.sum[:0])
	return true, hmac.Equal(want[:], s.sum)
}
