package tape

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"admit/internal/sysfile"
	"admit/policy/rule"
)

// reopenAnchors opens (creating if needed) the head beside the tape and the
// tape's mark in the seal folder. Neither is followed through a symlink:
// the writer overwrites them in place.
func (w *writer) reopenAnchors() error {
	hf, hid, err := openAnchor(w.headName)
	if err != nil {
		return fmt.Errorf("%w: open head: %w", ErrUnwritable, err)
	}
	mf, mid, err := openAnchor(w.markName)
	if err != nil {
		hf.Close()
		return fmt.Errorf("%w: open mark: %w", ErrUnwritable, err)
	}
	for _, f := range []*os.File{w.hf, w.mf} {
		if f != nil {
			f.Close()
		}
	}
	w.hf, w.hid, w.mf, w.mid = hf, hid, mf, mid
	return nil
}

func openAnchor(name string) (*os.File, sysfile.Info, error) {
	f, err := sysfile.OpenNoFollow(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, sysfile.Info{}, err
	}
	id, err := sysfile.FileStat(f)
	if err == nil && !id.Mode.IsRegular() {
		err = fmt.Errorf("%s is not a regular file", name)
	}
	if err != nil {
		f.Close()
		return nil, sysfile.Info{}, err
	}
	return f, id, nil
}

// anchorsMoved says whether the head or the mark at their paths is no
// longer the file this writer has open (removed, or replaced by another).
func (w *writer) anchorsMoved() bool {
	return moved(w.headName, w.hid) || moved(w.markName, w.mid)
}

// moved says whether name is no longer the file id.
func moved(name string, id sysfile.Info) bool {
	now, err := sysfile.Lstat(name)
	return err != nil || !now.Same(id)
}

// anchor is the writer's state as a head would say it.
func (w *writer) anchor() anchor {
	a := anchor{records: w.records, size: w.size}
	if w.hasHead {
		a.last = w.head
	}
	return a
}

// writeHead writes an encoded head in place and says whether it did.
func (w *writer) writeHead(b []byte) bool {
	if _, err := w.hf.WriteAt(b, 0); err != nil {
		w.t.log.Error("tape: cannot write the head", "path", w.hf.Name(), "err", err)
		return false
	}
	return true
}

// flushAnchors writes the head and the mark when they are behind the tape;
// it runs before the lock is given back. A failure is logged and tried
// again at the next flush: the lines are on the tape, and a head that lags
// shows as unanchored lines, which the next writer records.
func (w *writer) flushAnchors() {
	if !w.loaded || (!w.headDirty && !w.markDirty) {
		return
	}
	w.headBuf = w.seal.encode(w.headBuf[:0], w.base, w.anchor())
	if w.headDirty && w.writeHead(w.headBuf) {
		w.headDirty = false
	}
	if w.markDirty {
		if _, err := w.mf.WriteAt(w.headBuf, 0); err != nil {
			w.t.log.Error("tape: cannot write the mark", "path", w.mf.Name(), "err", err)
		} else {
			w.markDirty = false
		}
	}
}

// checkAnchors compares the tape as load found it (w.size, w.head) with its
// head and its mark, sets w.records, and queues a rule.TapeReanchored record
// saying what does not match. The mark is the head's copy in the seal
// folder: a head may be ahead of it (the mark is written when the lock is
// given back), never behind.
func (w *writer) checkAnchors() error {
	hb, err := readSmall(w.hf)
	if err != nil {
		return fmt.Errorf("%w: read head: %w", ErrUnwritable, err)
	}
	mb, err := readSmall(w.mf)
	if err != nil {
		return fmt.Errorf("%w: read mark: %w", ErrUnwritable, err)
	}
	h, herr := w.seal.decode(hb, w.base)
	m, merr := w.seal.decode(mb, w.base)
	headName := filepath.Base(w.hf.Name())
	var why []string
	var ref anchor
	// A mark ahead of its head is a rollback unless the tape reaches the
	// mark: then only the head lagged (neither is synced).
	var rollback string
	have := true
	switch {
	case herr == nil && merr == nil:
		ref = h
		if m.records > h.records || m.records == h.records && m != h {
			rollback = fmt.Sprintf("the mark in %s anchors %d records and the head %d: the tape and its head were put back to an older state",
				w.seal.dir, m.records, h.records)
			ref = m
		}
	case herr == nil:
		ref = h
		if h.records > 0 {
			why = append(why, fmt.Sprintf("the mark in %s %s, so an older tape put back in place would not show", w.seal.dir, anchorProblem(merr)))
		}
	case merr == nil:
		ref = m
		why = append(why, fmt.Sprintf("the head %s %s", headName, anchorProblem(herr)))
	default:
		have = false
		if herr == errNoHead && merr == errNoHead && w.size == 0 && !w.hasHead {
			w.records, w.headDirty, w.markDirty = 0, true, true // a new tape
			return nil
		}
		why = append(why, fmt.Sprintf("the head %s %s", headName, anchorProblem(herr)))
	}
	cur := w.anchor()
	switch {
	case have && ref.size == cur.size && ref.last == cur.last && (ref.records > 0) == w.hasHead:
		w.records = ref.records
	case have:
		n, what, reaches, err := w.compare(ref)
		if err != nil {
			return err
		}
		w.records = n
		if !reaches && rollback != "" {
			why = append(why, rollback)
		}
		if what != "" {
			why = append(why, what)
		}
	default:
		n, err := w.countAll()
		if err != nil {
			return err
		}
		w.records = n
	}
	if m != ref || merr != nil {
		w.markDirty = true
	}
	if h != ref || herr != nil || w.records != ref.records {
		w.headDirty = true
	}
	if len(why) == 0 {
		return nil
	}
	reason := strings.Join(why, "; ") + fmt.Sprintf("; the head now anchors the %d records found", w.records)
	w.t.log.Warn("tape: the tape does not match its head", "path", w.t.path, "found", reason)
	w.pending = append(w.pending, &Record{
		Time:      w.t.now().UTC(),
		Rule:      rule.TapeReanchored,
		DecidedBy: rule.ByTape,
		Reason:    reason,
	})
	w.headDirty, w.markDirty = true, true
	return nil
}

func anchorProblem(err error) string {
	if err == errNoHead {
		return "is missing"
	}
	return "cannot be trusted: " + err.Error()
}

// compare says how the tape differs from an anchor it does not match ("" :
// in nothing that needs a record), how many records it holds, and whether
// it reaches the anchor (holds its records and goes on from its last).
// Lines past the anchor whose start chains from it are unanchored (what a crash between the write and the head leaves);
// anything else means the anchored records changed.
func (w *writer) compare(ref anchor) (int64, string, bool, error) {
	// The anchor ends inside the current file: the line ending there must
	// be the one it names.
	if ref.size > 0 && ref.size < w.size {
		line, ok, err := lineEndingAt(w.f, ref.size)
		if err != nil {
			return 0, "", false, fmt.Errorf("%w: read: %w", ErrUnwritable, err)
		}
		if ok && sha256.Sum256(line) == ref.last {
			k, err := countLines(w.f, ref.size, w.size)
			if err != nil {
				return 0, "", false, fmt.Errorf("%w: read: %w", ErrUnwritable, err)
			}
			first, _ := lineNumber(w.f, ref.size)
			return ref.records + k, w.unanchored(ref, ref.size, k, first), true, nil
		}
	}
	// The anchor is the end of the newest rotated file (a rotation the head
	// did not see), or of an empty tape: all of the current file is past it.
	// (A head written just after a rotation anchors size 0 and the rotated
	// file's last record.)
	{
		r, err := newestRotated(w.t.path)
		if err != nil {
			return 0, "", false, fmt.Errorf("%w: %w", ErrUnwritable, err)
		}
		inRotated := r.ok && r.last == ref.last && (ref.size == 0 || ref.size == r.size)
		if ref.records == 0 && !r.ok || ref.records > 0 && inRotated {
			k, err := countLines(w.f, 0, w.size)
			if err != nil {
				return 0, "", false, fmt.Errorf("%w: read: %w", ErrUnwritable, err)
			}
			if k == 0 {
				return ref.records, "", true, nil // only the head's size is behind
			}
			return ref.records + k, w.unanchored(ref, 0, k, 1), true, nil
		}
	}
	n, err := w.countAll()
	if err != nil {
		return 0, "", false, err
	}
	what := fmt.Sprintf("the tape does not match its head, which anchors %d records ending at byte %d of %s with hash %s; the tape has %d records ending at byte %d",
		ref.records, ref.size, w.base, short(ref.lastHex()), n, w.size)
	switch {
	case n < ref.records:
		what += ": records were cut from the end"
	case w.hasHead && n == ref.records:
		what += ": the last record was changed"
	default:
		what += ": anchored records were changed or removed"
	}
	return n, what, false, nil
}

// unanchored is the finding for the k lines past the anchor ref, from
// byte off (line first) of the current file on; "" when they chain on from
// it and the last is sealed: then a key holder wrote them and only the
// head and the mark lag (a machine crash before they reached the disk),
// which needs no record.
func (w *writer) unanchored(ref anchor, off, k int64, first int) string {
	if w.lastSealed && w.size-off <= maxFollow {
		b := make([]byte, w.size-off)
		if _, err := w.f.ReadAt(b, off); err == nil {
			if _, _, _, ok := chainsOn(ref.last, ref.records > 0, b); ok {
				return ""
			}
		}
	}
	return fmt.Sprintf("%d records from line %d of %s on were not anchored: a crash between writing them and updating the head leaves this, and so does a writer without the key",
		k, first, w.base)
}

// countAll counts the records of every file of the tape, up to w.size in
// the current one.
func (w *writer) countAll() (int64, error) {
	files, err := rotated(w.t.path)
	if err != nil {
		return 0, fmt.Errorf("%w: list rotated files: %w", ErrUnwritable, err)
	}
	var n int64
	for _, name := range files {
		k, err := countFile(name)
		if err != nil {
			return 0, fmt.Errorf("%w: count records: %w", ErrUnwritable, err)
		}
		n += k
	}
	k, err := countLines(w.f, 0, w.size)
	if err != nil {
		return 0, fmt.Errorf("%w: count records: %w", ErrUnwritable, err)
	}
	return n + k, nil
}

func countFile(name string) (int64, error) {
	f, err := sysfile.Open(name)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return 0, nil // renamed meanwhile: counted under its new name, or gone
		}
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return countLines(f, 0, fi.Size())
}
