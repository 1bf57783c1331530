package tape

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"admit/internal/sysfile"
	"admit/policy/rule"
)

// writer is the file side of a Tape. Only the holder of Tape.commit uses
// it, so it needs no lock of its own; across processes it is serialized by
// flock on the lock file.
type writer struct {
	t    *Tape
	lock *os.File     // "<path>.lock", flocked while a lease lasts
	f    *os.File     // the current file
	id   sysfile.Info // f's identity, to notice another process rotating

	// locked is true while this writer holds the flock; current is true
	// once refresh has looked at the file under it, and nobody else can
	// have written since.
	locked  bool
	current bool

	size    int64    // offset just after the last complete line we know of
	head    [32]byte // hash of that line (or of the newest rotated file's last line)
	hasHead bool     // false for a tape with no record yet

	// loaded is false from reopen until load has read size and head.
	loaded bool
	// dirty is set when a failed write could not be cut back; dirtySize
	// is the file's size just after that failure (-1: unknown).
	dirty     bool
	dirtySize int64
	// pending are RuleRepaired and RuleReanchored records not yet on the
	// tape; they go out before the next batch.
	pending []*Record

	// The head and the mark (head.go), written in place. records counts
	// the records up to size; headDirty and markDirty say that what they
	// hold is older than size, head and records.
	seal      *seal
	base      string // the tape file's name, in every head
	headName  string // the tape's head, path + HeadSuffix
	markName  string // the tape's mark in the seal folder
	hf, mf    *os.File
	hid, mid  sysfile.Info
	records   int64
	headDirty bool
	markDirty bool
	headBuf   []byte
	// unsynced says that bytes were written without an fdatasync.
	unsynced bool
	// lastSealed says that the current file's last line, as load found
	// it, carries a valid seal.
	lastSealed bool

	// others is nonzero for othersSeen looks after one found that another
	// process wrote: while it is, the flock goes back as soon as no line
	// waits, not after IdleLease.
	others int

	buf  []byte // the batch being written, reused
	ends []int  // where each line of buf ends, reused
}

// open creates what is missing, repairs a torn tail and loads the head.
func (w *writer) open() error {
	path := w.t.path
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("%w: create directory: %w", ErrUnwritable, err)
	}
	s, err := openSeal(w.t.sealDir, true)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUnwritable, err)
	}
	w.seal, w.base, w.headName, w.markName = s, filepath.Base(path), path+HeadSuffix, s.markPath(path)
	lock, err := sysfile.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("%w: open lock: %w", ErrUnwritable, err)
	}
	w.lock = lock
	if err := w.flock(); err != nil {
		lock.Close()
		return err
	}
	err = w.reopen()
	if err == nil {
		err = w.reopenAnchors()
	}
	if err == nil {
		err = w.load()
		if err != nil && w.loaded {
			// Only the repair record failed (a full disk, say): the tape
			// is consistent, and the record goes out before the next batch.
			w.t.log.Error("tape: cannot record a repair yet", "path", path, "err", err)
			err = nil
		}
	}
	if err == nil {
		w.flushAnchors()
	}
	w.funlock()
	if err != nil {
		for _, f := range []*os.File{w.f, w.hf, w.mf} {
			if f != nil {
				f.Close()
			}
		}
		lock.Close()
		return err
	}
	return nil
}

func (w *writer) close() error {
	w.unlock()
	var errs []error
	// Synced batches are durable already, sealed; the head and the mark
	// are not synced (a crash that loses them is made good from the seal).
	if w.f != nil {
		if w.t.sync != SyncNone && w.unsynced {
			if err := fdatasync(w.f); err != nil && !w.dirty {
				errs = append(errs, fmt.Errorf("tape: close: sync: %w", err))
			}
		}
		errs = append(errs, w.f.Close())
	}
	for _, f := range []*os.File{w.hf, w.mf} {
		errs = append(errs, f.Close())
	}
	errs = append(errs, w.lock.Close())
	return errors.Join(errs...)
}

func (w *writer) flock() error {
	if err := sysfile.Lock(w.lock, true); err != nil {
		return fmt.Errorf("%w: lock: %w", ErrUnwritable, err)
	}
	return nil
}

func (w *writer) funlock() {
	sysfile.Unlock(w.lock)
}

// acquire takes the flock unless this writer holds it already, and brings
// the writer up to date with the file.
func (w *writer) acquire() error {
	if !w.locked {
		if err := w.flock(); err != nil {
			return err
		}
		w.locked = true
	}
	if err := w.refresh(); err != nil {
		w.unlock()
		return err
	}
	return nil
}

// unlock brings the head and the mark up to date and gives the flock
// back: from now on another process may write, and readers see a head
// that matches the tape.
func (w *writer) unlock() {
	if w.locked {
		w.flushAnchors()
		w.funlock()
		w.locked, w.current = false, false
	}
}

// reopen opens (creating if needed) the file now at the tape's path.
func (w *writer) reopen() error {
	path := w.t.path
	_, statErr := os.Lstat(path)
	f, err := sysfile.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("%w: open: %w", ErrUnwritable, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("%w: stat: %w", ErrUnwritable, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return fmt.Errorf("%w: %s is not a regular file", ErrUnwritable, path)
	}
	if os.IsNotExist(statErr) {
		// A new file: make its name durable too.
		if err := syncDir(filepath.Dir(path)); err != nil {
			f.Close()
			return fmt.Errorf("%w: sync directory: %w", ErrUnwritable, err)
		}
	}
	if w.f != nil {
		w.f.Close()
	}
	w.f = f
	if w.id, err = sysfile.StatOf(path, fi); err != nil {
		f.Close()
		return fmt.Errorf("%w: stat: %w", ErrUnwritable, err)
	}
	w.loaded = false // load reads size and head
	return nil
}

// load takes the file as it is now: cuts a torn tail (and records the
// cut), reads the chain's head from the last line, or from the newest
// rotated file when this one is empty, and checks the tape against its
// head and mark (recording what does not match). The lock is held. Until
// load succeeds the writer writes nothing (refresh calls it again).
func (w *writer) load() error {
	w.loaded = false
	fi, err := w.f.Stat()
	if err != nil {
		return fmt.Errorf("%w: stat: %w", ErrUnwritable, err)
	}
	size := fi.Size()
	good, last, err := scanTail(w.f, size)
	if err != nil {
		return fmt.Errorf("%w: read tail: %w", ErrUnwritable, err)
	}
	if good < size {
		line, err := lineNumber(w.f, good)
		if err != nil {
			return fmt.Errorf("%w: read: %w", ErrUnwritable, err)
		}
		torn := make([]byte, min(size-good, maxTornDetail))
		if _, err := w.f.ReadAt(torn, good); err != nil && err != io.EOF {
			return fmt.Errorf("%w: read: %w", ErrUnwritable, err)
		}
		if err := w.f.Truncate(good); err != nil {
			return fmt.Errorf("%w: cut torn line: %w", ErrUnwritable, err)
		}
		cut := size - good
		w.t.log.Warn("tape: cut a torn last line", "path", w.t.path, "bytes", cut, "line", line)
		// Written before the next batch; kept until it is on the tape,
		// with (the start of) what was cut: a crash leaves a fragment,
		// but a last line made unreadable on purpose is evidence.
		w.pending = append(w.pending, &Record{
			Time:      w.t.now().UTC(),
			Rule:      rule.TapeRepaired,
			DecidedBy: rule.ByTape,
			Reason: fmt.Sprintf("cut %d bytes of a torn last line (line %d of %s) left by an unclean stop, or by an edit that made the last line unreadable",
				cut, line, filepath.Base(w.t.path)),
			Detail: "cut: " + string(torn),
		})
	}
	w.size = good
	w.dirty = false
	w.hasHead = false
	w.lastSealed = false
	if last != nil {
		w.head, w.hasHead = sha256.Sum256(last), true
		_, w.lastSealed = w.seal.checkLine(last)
	} else {
		r, err := newestRotated(w.t.path)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrUnwritable, err)
		}
		w.head, w.hasHead = r.last, r.ok
	}
	if err := w.checkAnchors(); err != nil {
		return err
	}
	w.loaded = true
	return w.writeRepair()
}

// maxTornDetail bounds how much of a cut tail its repair record keeps.
const maxTornDetail = 1 << 10

// writeRepair puts the pending rule.TapeRepaired and rule.TapeReanchored records on
// the tape, synced whatever the Sync setting: they are the only trace of
// what was found.
func (w *writer) writeRepair() error {
	if len(w.pending) == 0 {
		return nil
	}
	reqs := make([]*request, len(w.pending))
	for i, r := range w.pending {
		reqs[i] = &request{body: appendBody(nil, r), rec: r}
	}
	if err := w.write(reqs, true); err != nil {
		return err
	}
	for i, r := range w.pending {
		r.Prev = reqs[i].prev
	}
	w.pending = nil
	return nil
}

// rotatedTail is the end of the newest rotated file.
type rotatedTail struct {
	name string
	size int64    // the file's size
	last [32]byte // the hash of its last line
	ok   bool     // there is a rotated file with a last line
}

// newestRotated reads the last line of the newest rotated file.
func newestRotated(path string) (rotatedTail, error) {
	files, err := rotated(path)
	if err != nil {
		return rotatedTail{}, fmt.Errorf("list rotated files: %w", err)
	}
	if len(files) == 0 {
		return rotatedTail{}, nil
	}
	r := rotatedTail{name: files[len(files)-1]}
	f, err := sysfile.Open(r.name)
	if err != nil {
		return r, fmt.Errorf("open rotated file: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return r, fmt.Errorf("stat rotated file: %w", err)
	}
	r.size = fi.Size()
	_, last, err := scanTail(f, r.size)
	if err != nil {
		return r, fmt.Errorf("read rotated file: %w", err)
	}
	if last != nil {
		r.last, r.ok = sha256.Sum256(last), true
	}
	return r, nil
}

// refresh brings the writer up to date with the file under the lock:
// another process may have appended, rotated or left a torn line, our own
// last failure may have left bytes that could not be cut, and a repair
// record may still be waiting.
func (w *writer) refresh() error {
	if w.current && w.loaded && !w.dirty {
		return w.writeRepair()
	}
	w.current = false
	if err := w.look(); err != nil {
		return err
	}
	w.current = true
	return nil
}

// look takes the file as another process may have left it.
func (w *writer) look() error {
	// Until this look shows otherwise, nobody else wrote since we did.
	if w.others > 0 {
		w.others--
	}
	// One stat of the path says both whether it is still our file and, if
	// it is, how long it is (no fstat more under the lock).
	fi, err := os.Stat(w.t.path)
	var now sysfile.Info
	if err == nil {
		now, err = sysfile.StatOf(w.t.path, fi)
	}
	if err != nil || !now.Same(w.id) {
		w.others = othersSeen
		// Rotated (or removed) by someone else: follow the path.
		if err := w.reopen(); err != nil {
			return err
		}
	}
	if w.anchorsMoved() {
		w.others = othersSeen
		// A head or mark replaced under us: take them as they are now.
		if err := w.reopenAnchors(); err != nil {
			return err
		}
		w.loaded = false
	}
	if !w.loaded {
		return w.load()
	}
	if fi.Size() != w.size {
		w.others = othersSeen
	}
	switch {
	case w.dirty && fi.Size() == w.dirtySize:
		// Nobody wrote after our failure: cut our own bytes.
		if err := w.f.Truncate(w.size); err != nil {
			return fmt.Errorf("%w: cut failed write: %w", ErrUnwritable, err)
		}
		w.dirty = false
	case !w.dirty && fi.Size() > w.size && (w.takeHead(fi.Size()) || w.follow(fi.Size())):
		// Another writer appended sealed lines to what we knew.
	case w.dirty || fi.Size() != w.size:
		// Another process wrote (maybe after our failed bytes, which it
		// then cut as a torn tail): take the file as it is.
		return w.load()
	}
	return w.writeRepair()
}

// chainsOn says whether the whole lines of b chain on from head, each from
// the one before (so that a seal on the last covers them all), and returns
// the last line, its hash and how many there are.
func chainsOn(head [32]byte, hasHead bool, b []byte) (sum [32]byte, lines int64, last []byte, ok bool) {
	var buf [len(`,"prev":""}`) + 64]byte
	copy(buf[:], `,"prev":"`)
	for rest := b; len(rest) > 0; lines++ {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			return head, lines, nil, false
		}
		last, rest = rest[:i], rest[i+1:]
		want := append(buf[:len(`,"prev":"`)], `"}`...) // the first record's prev is ""
		if hasHead {
			want = hex.AppendEncode(buf[:len(`,"prev":"`)], head[:])
			want = append(want, `"}`...)
		}
		if !bytes.HasSuffix(last, want) {
			return head, lines, nil, false
		}
		head, hasHead = sha256.Sum256(last), true
	}
	return head, lines, last, last != nil
}

// othersSeen is how many takings of the lock that find nobody else wrote
// it takes before a writer keeps the lock through idle moments again.
const othersSeen = 64

// maxFollow bounds what follow reads; past it, load takes the file.
const maxFollow = 256 << 10

// follow takes lines another writer appended, from w.size to size, without
// reading the head and the mark again: they are whole lines, each chains
// from the one before (the first from our head) and the last carries this
// key's seal, which anchors them (the other writer brought the head and mark up to date
// before it let go of the lock; we write them again at ours). Anything
// else, false: load takes the file as it is.
func (w *writer) follow(size int64) bool {
	n := size - w.size
	if n > maxFollow || !w.hasHead {
		return false
	}
	b := w.buf[:0]
	if int64(cap(b)) < n {
		b = make([]byte, 0, n)
	}
	b = b[:n]
	w.buf = b[:0]
	if k, err := w.f.ReadAt(b, w.size); int64(k) != n || err != nil && err != io.EOF {
		return false
	}
	if b[n-1] != '\n' {
		return false
	}
	head, lines, last, ok := chainsOn(w.head, true, b)
	if !ok {
		return false
	}
	if _, ok := w.seal.checkLine(last); !ok || !wellFormed(last) {
		return false
	}
	w.records += lines
	w.head, w.size, w.lastSealed = head, size, true
	w.t.publishHead()
	return true
}

// takeHead takes lines another writer appended, from w.size to size, from
// the head it wrote before it gave the lock back, without reading or
// hashing them all as follow does: the head must be in the form this
// writer writes (sealed with this key, for this file), end exactly at size,
// hold more records than this writer knew, and name the line that ends at
// size, whose hash is checked: a change of that line shows on no prev,
// only against the head (load records it, as when follow fails), while a
// change of a line before it shows on the chain. A head a crash left
// behind the lines, a torn head, a changed last line: false, and follow or
// load take the file.
func (w *writer) takeHead(size int64) bool {
	width := headWidth(w.base)
	b := w.buf[:0]
	if cap(b) < width {
		b = make([]byte, 0, max(width, 4<<10))
	}
	b = b[:width]
	w.buf = b[:0]
	// One head's width, in one read: bytes past it (which no writer
	// writes) are Verify's to name, as they were when follow took the
	// lines without reading the head.
	if n, err := w.hf.ReadAt(b, 0); n != width || err != nil && err != io.EOF {
		return false
	}
	a, scratch, ok := w.seal.decodeOwn(b, w.base, w.headBuf)
	w.headBuf = scratch
	if !ok || a.size != size || a.records <= w.records || a.records-w.records > size-w.size {
		return false
	}
	line, ok := w.lastLine(size)
	if !ok || sha256.Sum256(line) != a.last {
		return false
	}
	w.records, w.size, w.head, w.hasHead = a.records, size, a.last, true
	// The head on disk says what this writer would; the mark, written
	// by whoever let go of the lock last, is not known to.
	w.headDirty, w.markDirty = false, true
	w.t.publishHead()
	return true
}

// lastLine reads the line (without its newline) that ends the current
// file at size, which starts at w.size or after it; ok false when it does
// not end in a newline or is longer than maxFollow.
func (w *writer) lastLine(size int64) ([]byte, bool) {
	for chunk := int64(8 << 10); ; chunk *= 2 {
		from := max(w.size, size-chunk)
		b := w.buf[:0]
		if int64(cap(b)) < size-from {
			b = make([]byte, 0, size-from)
		}
		b = b[:size-from]
		w.buf = b[:0]
		if n, err := w.f.ReadAt(b, from); int64(n) != size-from || err != nil && err != io.EOF {
			return nil, false
		}
		if b[len(b)-1] != '\n' {
			return nil, false
		}
		if i := bytes.LastIndexByte(b[:len(b)-1], '\n'); i >= 0 {
			return b[i+1 : len(b)-1], true
		}
		if from == w.size {
			return b[:len(b)-1], true
		}
		if chunk >= maxFollow {
			return nil, false
		}
	}
}

// commit writes one batch taken from the queue and answers every request
// in it.
func (w *writer) commit(batch []*request) {
	if err := w.acquire(); err != nil {
		w.t.log.Error("tape: cannot write", "path", w.t.path, "err", err)
		for _, q := range batch {
			q.done <- err
		}
		return
	}
	switch w.t.sync {
	case SyncAlways:
		for _, q := range batch {
			err := w.write([]*request{q}, true)
			q.done <- err
		}
	default:
		err := w.write(batch, w.t.sync == SyncBatch)
		for _, q := range batch {
			q.done <- err
		}
	}
}

// write appends the requests' lines, chained from w.head, with one write
// (and one fdatasync when sync is set). On failure the file is cut back to
// where it was and the head does not move. The lock is held.
func (w *writer) write(reqs []*request, sync bool) error {
	buf := w.buf[:0]
	head, hasHead := w.head, w.hasHead
	var prev [64]byte
	ends := w.ends[:0]
	for i, q := range reqs {
		start := len(buf)
		buf = append(buf, q.body[:len(q.body)-1]...)
		at := len(buf)
		buf = append(buf, `,"prev":"`...)
		if hasHead {
			hex.Encode(prev[:], head[:])
			buf = append(buf, prev[:]...)
		}
		buf = append(buf, `"}`...)
		if i == len(reqs)-1 {
			// The batch's last line anchors the batch (head.go, sealLine).
			buf = w.seal.sealLine(buf, start, at)
		}
		head, hasHead = sha256.Sum256(buf[start:]), true
		buf = append(buf, '\n')
		ends = append(ends, len(buf))
	}
	w.buf, w.ends = buf, ends
	if cap(w.buf) > 4<<20 {
		w.buf = nil // do not keep a huge buffer after a burst
	}

	if w.t.rotate > 0 && w.size > 0 && w.size+int64(len(buf)) > w.t.rotate {
		if err := w.rotateFiles(); err != nil {
			// Rotation is housekeeping; the record matters more.
			w.t.log.Warn("tape: rotate failed, writing on", "path", w.t.path, "err", err)
		}
	}

	// The batch anchors itself (its last line is sealed), durably with
	// the one fdatasync. The head of a synced batch is written just after
	// it, not synced: a head that a machine crash loses is made good from
	// the seal on open. Unsynced batches are anchored when the lock is
	// given back.
	next := anchor{records: w.records + int64(len(reqs)), size: w.size + int64(len(buf)), last: head}
	if sync {
		w.headBuf = w.seal.encode(w.headBuf[:0], w.base, next)
	}
	if _, err := w.f.WriteAt(buf, w.size); err != nil {
		w.cutBack()
		return fmt.Errorf("%w: write: %w", ErrUnwritable, err)
	}
	if sync {
		err := fdatasync(w.f)
		w.t.syncs.Add(1)
		if err != nil {
			w.cutBack()
			return fmt.Errorf("%w: sync: %w", ErrUnwritable, err)
		}
		w.headDirty = !w.writeHead(w.headBuf)
	} else {
		w.headDirty, w.unsynced = true, true
	}
	w.records = next.records
	w.markDirty = true
	// Durable: hand out the prev of every line.
	start := 0
	for i, q := range reqs {
		p := buf[start:ends[i]]
		q.prev = prevOf(p)
		start = ends[i]
	}
	w.size += int64(len(buf))
	w.head, w.hasHead = head, true
	w.t.appended.Add(int64(len(reqs)))
	w.t.publishHead()
	return nil
}

// prevOf reads back the prev this writer put at the end of line (which
// ends in `"prev":"<hex>"}\n`).
func prevOf(line []byte) string {
	line = line[:len(line)-len("\"}\n")]
	i := bytes.LastIndexByte(line, '"')
	return string(line[i+1:])
}

// cutBack removes whatever a failed write left after the last good line.
func (w *writer) cutBack() {
	if fi, err := w.f.Stat(); err == nil && fi.Size() > w.size {
		w.t.log.Warn("tape: cutting back a partial write", "path", w.t.path, "bytes", fi.Size()-w.size)
	}
	if err := w.f.Truncate(w.size); err != nil {
		fi, serr := w.f.Stat()
		if serr == nil && fi.Size() == w.size {
			return // nothing was left behind
		}
		w.dirty = true
		w.dirtySize = -1
		if serr == nil {
			w.dirtySize = fi.Size()
		}
		w.t.log.Error("tape: cannot cut back a failed write", "path", w.t.path, "err", err)
	}
}

// rotateFiles renames path.N to path.N+1 (oldest first), the current file
// to path.1, and starts an empty current file. The head carries over.
func (w *writer) rotateFiles() error {
	path := w.t.path
	files, err := rotated(path)
	if err != nil {
		return err
	}
	for i := range files { // oldest (highest number) first
		n := rotatedNumber(path, files[i])
		if err := os.Rename(files[i], fmt.Sprintf("%s.%d", path, n+1)); err != nil {
			return fmt.Errorf("rename: %w", err)
		}
	}
	if err := os.Rename(path, path+".1"); err != nil {
		return fmt.Errorf("rename: %w", err)
	}
	head, hasHead := w.head, w.hasHead
	if err := w.reopen(); err != nil {
		return err
	}
	// The new file is empty (nobody else creates it while we hold the
	// lock) and the chain carries over; reopen synced the directory.
	w.size, w.head, w.hasHead, w.loaded = 0, head, hasHead, true
	w.t.log.Info("tape: rotated", "path", path)
	return nil
}

func syncDir(dir string) error { return sysfile.SyncDir(dir) }

// scanTail finds the end of the last complete, well-formed line of the
// first size bytes of f. good is the offset just after it (everything
// after good is a torn tail), last is its bytes without the newline (nil
// when there is none). A trailing fragment without a newline is torn; so is
// a last complete line that is not a JSON object (garbage a crash can leave
// when the size reached the disk but the data did not). Only that one line
// is judged: older lines are Verify's business.
func scanTail(f io.ReaderAt, size int64) (good int64, last []byte, err error) {
	chunk := int64(8 << 10) // a few lines; doubled for a longer last line
	for {
		if chunk > size {
			chunk = size
		}
		off := size - chunk
		data := make([]byte, chunk)
		if _, err := f.ReadAt(data, off); err != nil && err != io.EOF {
			return 0, nil, err
		}
		whole := off == 0
		// end: index in data just after the last newline.
		end := bytes.LastIndexByte(data, '\n') + 1
		if end == 0 && !whole {
			chunk *= 2
			continue
		}
		judged := 0
		for end > 0 {
			begin := bytes.LastIndexByte(data[:end-1], '\n') + 1
			if begin == 0 && !whole {
				break // the line starts before this chunk
			}
			line := data[begin : end-1]
			if wellFormed(line) || judged == 1 {
				return off + int64(end), line, nil
			}
			judged++
			end = begin
		}
		if end == 0 && whole {
			return 0, nil, nil
		}
		if whole {
			return off + int64(end), nil, nil
		}
		chunk *= 2
	}
}

// wellFormed is the test for a whole line: a JSON object.
func wellFormed(line []byte) bool {
	return len(line) > 1 && line[0] == '{' && line[len(line)-1] == '}' && jsonValid(line)
}

// lineNumber is the 1-based number of the line that starts at off.
func lineNumber(f io.ReaderAt, off int64) (int, error) {
	n, err := countLines(f, 0, off)
	return int(n) + 1, err
}
