// Package tape is admit's decision record: an append-only file of JSON
// lines, one per decision, each carrying the SHA-256 of the line before it
// (a hash chain anyone can check with sha256sum).
//
// Start at Open and Tape.Append: the server appends a Record for every
// decision and replies only when Append returns, so a call never runs
// without its record on disk. Query and Verify read a tape, including its
// rotated files, without opening it for writing.
//
// # The line
//
// Each line is a JSON object with the fields of Record in a fixed order,
// empty ones left out, and "prev" always last:
//
//	{"time":"2026-11-30T06:00:00.123Z","id":"c-1","mode":"enforce","verdict":"deny","allowed":false,"rule":"forbidden-flag",...,"prev":"9f86d0..."}
//
// prev is the SHA-256 of the previous line's bytes without its newline
// ("" on the very first line), so `sed -n 1p tape.jsonl | tr -d '\n' |
// sha256sum` prints line 2's prev. Verify walks the chain.
//
// # The head
//
// A chain shows a changed, removed or moved line, but not a change at its
// end: an edited last line, or lines cut off, leave a valid chain. So the
// end is anchored outside the chain, in the head (path + HeadSuffix, one
// JSON line written in place):
//
//	{"v":1,"file":"tape.jsonl","records":1234,"size":456789,"last":"<sha256 of the last line>","key":"<key id>","mac":"<HMAC-SHA256>"}
//
// records counts the lines of every file of the tape, size is where the
// last whole line of the current file ends, last is the chain's head. mac
// is the HMAC-SHA256, under a 32-byte key, of "admit tape head v1" and
// file, records, size and last, a line each. The key lives in the seal
// folder (Options.SealDir, default DefaultSealDir:
// $XDG_DATA_HOME/admit/tape-seal), outside the tape's folder; the seal
// folder also keeps the tape's mark, a copy of its latest head.
//
// The last line of every batch carries "seal" just before prev: the
// HMAC-SHA256 under the key of the line without that member. A batch is
// thus anchored by its own last line, in the same write and fdatasync
// (one per decision); the head and the mark are written after it and
// never synced. The head of a synced batch is written just after the
// fdatasync; that of unsynced batches (SyncNone), and the mark, when the
// writer gives the lock back (at most LockLease later; after IdleLease of
// idleness when no other process writes the tape) and at Close: nobody
// reads or writes the tape without the lock, so none sees them behind. A
// head or mark a crash left behind the tape is made good from the seal;
// lines past them without a valid seal are named. Readers read the head
// under the shared lock, so it matches the files.
//
// Verify checks the head and the mark against the tape: the last line
// changed, records cut, a tape missing, a head missing, changed, forged
// without the key, or older than the mark with the tape not reaching the
// mark (the tape and its head put back to an earlier copy) are all named;
// lines past the head that chain on and end sealed are anchored by the
// seal. A writer that finds the tape not matching its head (lines past
// it without a seal, or anything else that edits the tape) appends a
// rule.TapeReanchored record saying what it found, then anchors the tape as it
// is: the finding is on the record, and anchored from then on.
//
// What this stops, and what it cannot: rewriting the tape without being
// caught takes rewriting the head, which takes the key, and rewriting the
// mark, in another folder. A program that can write the tape's folder but
// not read the key or write the seal folder (a sandbox that grants the
// state folder, another account with access to it, a tool that edits
// files by name) is caught. A program running as the person, unconfined,
// can read the key and rewrite all three: only a copy of the head kept
// where it cannot write (another account, another machine) catches that.
// See docs/tape.md.
//
// # Durability
//
// Append queues its encoded line and then commits the queue itself,
// unless another Append is committing: that one's caller is the writer
// until it is done, and the next caller in line takes every line queued
// meanwhile. With SyncBatch (the default) a commit writes all of its lines
// with one write and one fdatasync and then releases all of their callers:
// concurrent decisions share the cost of making them durable (group
// commit), and a lone decision pays no hand-off to another goroutine.
// SyncAlways syncs after each line; SyncNone only writes.
//
// A crash can leave a torn last line. Readers skip it; Open cuts it off and
// appends a record with rule tape-repaired (rule.TapeRepaired) saying what was cut, so the cut
// is itself on the record and the chain goes on from the last whole line.
//
// When the tape cannot be written (a full or read-only file system, an I/O
// error, a closed Tape) Append returns an error that matches ErrUnwritable,
// and the file still ends at its last complete line. The next Append after
// the condition clears continues the chain.
//
// # Several processes
//
// Every editor window runs its own server, and by default they share one
// tape. A writer takes an exclusive flock on "<path>.lock" and, on taking
// it, notices lines or rotations made by another process, so the chain
// stays one chain: lines appended by another writer are taken from the
// head that writer left when it ends where the tape ends and names the
// tape's last line (one head and one line read, however many lines were
// added), else from the tape itself when they chain on from what this
// writer knew and end sealed; anything else reads the head and the mark
// again, as Open does, and records what does not match. It gives the
// lock back as soon as no line waits (once its callers have had the
// chance to queue their next) when another process writes the tape too,
// else after IdleLease of idleness, and at the latest after LockLease while
// lines keep coming: a busy writer pays for the lock once per run of
// batches, and another process waits for one batch of an idle writer, at
// most a lease of a busy one.
//
// # Rotation
//
// With Options.RotateBytes set, the writer renames tape.jsonl to
// tape.jsonl.1 before a batch would take it past that size (older files
// shift to .2, .3, ...; all are kept). The chain continues across files:
// the first line of the new file carries the hash of the last line of the
// old one.
package tape

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"admit/internal/sysfile"
)

// Sync says when Append returns relative to the disk.
type Sync string

const (
	// SyncAlways issues one fdatasync per line before its Append returns.
	SyncAlways Sync = "always"
	// SyncBatch (the default) writes every line queued so far with one
	// write and one fdatasync; each Append returns once its batch is
	// durable.
	SyncBatch Sync = "batch"
	// SyncNone writes and returns; the kernel flushes when it likes, so a
	// machine crash (not a process crash) can lose the last records.
	SyncNone Sync = "none"
)

// ParseSync reads a sync setting from configuration; "" means SyncBatch.
func ParseSync(s string) (Sync, error) {
	switch Sync(s) {
	case "":
		return SyncBatch, nil
	case SyncAlways, SyncBatch, SyncNone:
		return Sync(s), nil
	}
	return "", fmt.Errorf("tape: sync %q: want always, batch or none", s)
}

// Options configure Open. The zero value is SyncBatch, no rotation, no
// logging and the real clock.
type Options struct {
	Sync Sync
	// RotateBytes rotates the file before a batch would take it past this
	// size. A single batch is never split, so a file can exceed it by one
	// batch. 0 never rotates.
	RotateBytes int64
	// Logger receives repairs, rotations and write failures (nil: none).
	Logger *slog.Logger
	// Now stamps records whose Time is zero (nil: time.Now).
	Now func() time.Time
	// SealDir holds the key that seals the tape's head, and the tape's
	// mark ("" : DefaultSealDir). Open creates the folder and a key when
	// there is none.
	SealDir string
}

var (
	// ErrUnwritable matches every Append error caused by the file or the
	// Tape rather than by the caller: a full or read-only file system, an
	// I/O error, a closed Tape. The server refuses in enforce mode when it
	// sees it.
	ErrUnwritable = errors.New("tape: unwritable")
	// ErrClosed is returned (together with ErrUnwritable) by Append after
	// Close.
	ErrClosed = errors.New("tape: closed")
)

// DefaultPath is $XDG_STATE_HOME/admit/tape.jsonl, or
// ~/.local/state/admit/tape.jsonl when XDG_STATE_HOME is unset or not
// absolute (as the XDG spec says): outside every workspace, so an agent
// that may write the workspace cannot rewrite its own record.
func DefaultPath() (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("tape: default path: %w", err)
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "admit", "tape.jsonl"), nil
}

// Tape is an open tape. Its methods are safe for concurrent use.
type Tape struct {
	path    string
	sync    Sync
	rotate  int64
	log     *slog.Logger
	now     func() time.Time
	sealDir string

	// mu guards the fields below it. Append queues under it; the leader
	// takes the whole queue under it and never holds it while writing or
	// syncing.
	mu      sync.Mutex
	queue   []*request
	spare   []*request // the last batch's slice, reused for the next queue
	leading bool       // some caller is committing, or has been handed the turn
	idle    sync.Cond  // signalled when leading turns false
	closed  bool

	// commit is held while a batch is written and while the lease ends;
	// w belongs to whoever holds it.
	commit sync.Mutex
	w      writer
	// lease gives the flock back when its lease ends. It is armed once per
	// taking of the lock, not reset per batch (a timer change per decision
	// costs a wake of the runtime's poller): when it fires, endLease looks
	// at when the last batch ended and arms it again for what is left.
	lease    *time.Timer
	armed    bool      // lease is pending; under commit
	due      time.Time // when it fires; under commit
	leased   time.Time // when w last took the flock; under commit
	lastEnd  time.Time // when the last batch ended; under commit
	lastIdle bool      // no line waited when it ended; under commit

	head     atomic.Pointer[headSum] // hash of the last line, for Head
	appended atomic.Int64
	syncs    atomic.Int64
}

// request is one Append waiting for the writer.
type request struct {
	body []byte     // the encoded record without prev, ending in '}'
	rec  *Record    // receives Prev on success
	prev string     // set by the writer before it answers
	done chan error // the outcome, or errLead
}

// errLead, sent on a request's done, hands its caller the leader's turn:
// it commits the queue, its own line included.
var errLead = errors.New("tape: your turn to commit")

var requests = sync.Pool{New: func() any {
	return &request{body: make([]byte, 0, 512), done: make(chan error, 1)}
}}

// maxPooledBody keeps unusually large bodies from staying in the pool.
const maxPooledBody = 64 << 10

// Open opens the tape at path for appending, creating its directory (0700)
// and file (0600) if needed. If the file ends in a torn line, Open cuts it
// off and appends a rule.TapeRepaired record about the cut. The chain continues
// from the last line on the tape, in this file or the newest rotated one.
func Open(path string, o Options) (*Tape, error) {
	s, err := ParseSync(string(o.Sync))
	if err != nil {
		return nil, err
	}
	if o.RotateBytes < 0 {
		return nil, fmt.Errorf("tape: negative RotateBytes %d", o.RotateBytes)
	}
	path, err = filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("tape: open: %w", err)
	}
	t := &Tape{
		path:    path,
		sync:    s,
		rotate:  o.RotateBytes,
		log:     o.Logger,
		now:     o.Now,
		sealDir: o.SealDir,
	}
	if t.log == nil {
		t.log = slog.New(slog.DiscardHandler)
	}
	if t.now == nil {
		t.now = time.Now
	}
	t.w.t = t
	t.idle.L = &t.mu
	if err := t.w.open(); err != nil {
		return nil, err
	}
	t.publishHead()
	t.lease = time.AfterFunc(time.Hour, t.endLease)
	t.lease.Stop()
	return t, nil
}

// Sync is the tape's sync setting.
func (t *Tape) Sync() Sync { return t.sync }

// Path is the absolute path of the current file.
func (t *Tape) Path() string { return t.path }

// Head is the hash of the last line on the tape ("" for an empty tape):
// what the next record's prev will be, unless another process appends
// first.
func (t *Tape) Head() string {
	h := t.head.Load()
	if !h.ok {
		return ""
	}
	return hex.EncodeToString(h.sum[:])
}

// Stats reports how many records this Tape has appended and how many
// fdatasyncs it issued; appended/syncs is the mean batch size.
func (t *Tape) Stats() (appended, syncs int64) {
	return t.appended.Load(), t.syncs.Load()
}

func (t *Tape) publishHead() {
	t.head.Store(&headSum{sum: t.w.head, ok: t.w.hasHead})
}

// headSum is the hash of the tape's last line as published after a batch;
// Head encodes it when asked, not every batch.
type headSum struct {
	sum [32]byte
	ok  bool // false for a tape with no record yet
}

// Append fills r.Time (when zero; always normalized to UTC) and r.Prev,
// writes r as one line and returns when it is as durable as the Sync
// setting says. Prev is set only when the line is on the tape.
//
// ctx is checked before the record is queued; once queued, Append waits
// for the outcome, so that an error always means the record is not on the
// tape. Errors from the file system match ErrUnwritable; the tape then
// still ends at its last complete line and the chain stays valid.
//
// Long fields are bounded in the line (see MaxArgs and friends); r itself
// is not changed apart from Time and Prev.
func (t *Tape) Append(ctx context.Context, r *Record) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("tape: append: %w", err)
	}
	if r.Time.IsZero() {
		r.Time = t.now()
	}
	r.Time = r.Time.UTC()
	if !r.AskedAt.IsZero() {
		r.AskedAt = r.AskedAt.UTC()
	}
	q := requests.Get().(*request)
	q.body = appendBody(q.body[:0], r)
	q.rec = r

	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		release(q)
		return fmt.Errorf("%w: %w", ErrUnwritable, ErrClosed)
	}
	t.queue = append(t.queue, q)
	lead := !t.leading
	t.leading = true
	t.mu.Unlock()

	if lead {
		t.lead(q)
	}
	err := <-q.done
	if err == errLead {
		t.lead(q)
		err = <-q.done
	}
	if err == nil {
		r.Prev = q.prev
	}
	release(q)
	return err
}

func release(q *request) {
	if cap(q.body) > maxPooledBody {
		q.body = make([]byte, 0, 512)
	}
	q.rec, q.prev = nil, ""
	requests.Put(q)
}

// Close waits until every line queued is written, gives the lock back and
// closes the file. Appends after Close fail with ErrClosed. Close is
// idempotent.
func (t *Tape) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	for t.leading {
		t.idle.Wait()
	}
	t.mu.Unlock()
	t.commit.Lock()
	defer t.commit.Unlock()
	t.lease.Stop()
	return t.w.close()
}

// lead commits everything queued as one batch, and again for what queued
// meanwhile, up to leadBatches batches; then it hands the turn to the
// first caller still queued. Nobody waits for a goroutine of the tape's,
// and no caller writes more than leadBatches batches of others' lines.
func (t *Tape) lead(own *request) {
	t.mu.Lock()
	for turn := 0; ; turn++ {
		batch := t.queue
		t.queue = t.spare[:0]
		t.mu.Unlock()

		t.commit.Lock()
		held := t.w.locked
		t.w.commit(batch)
		now := time.Now()
		if !held && t.w.locked {
			t.leased = now
		}
		// A batch of only this caller's own line answered nobody who could
		// append again: yielding for them would only cost the scheduler.
		idle := t.nothingWaits(turn == 0 && len(batch) == 1 && batch[0] == own)
		switch {
		case !t.w.locked:
		case idle && t.w.others > 0:
			// Another process writes this tape too: it need not wait.
			t.w.unlock()
		case now.Sub(t.leased) >= LockLease:
			t.w.unlock()
		default:
			// Keep the lock (and the head and mark unwritten): while lines
			// keep coming, until LockLease after it was taken; once nothing
			// waits here, for IdleLease more, in case this process's next
			// line follows at once, as a caller deciding line after line
			// does. A process that starts sharing the tape waits for the
			// timer (which the runtime may round up to a millisecond) once,
			// then both give it back at once (writer.others).
			// The timer is changed only when it would fire too late.
			t.lastEnd, t.lastIdle = now, idle
			left := t.leaseLeft(now)
			if due := now.Add(left); !t.armed || due.Before(t.due) {
				t.armed, t.due = true, due
				t.lease.Reset(left)
			}
		}
		t.commit.Unlock()

		t.mu.Lock()
		clear(batch)
		t.spare = batch
		switch {
		case len(t.queue) == 0:
			t.leading = false
			t.idle.Broadcast()
			t.mu.Unlock()
			return
		case turn+1 == leadBatches:
			t.queue[0].done <- errLead // never blocks: nothing else was sent to it yet
			t.mu.Unlock()
			return
		}
	}
}

// nothingWaits says whether no line waits. Unless alone (only the leader's own
// line was in the batch), it asks once the callers this batch just
// answered have had the processor: with many callers, the queue is empty
// only for the moment they take to append again, and giving the lock back
// then would cost every next batch the lock and its checks.
func (t *Tape) nothingWaits(alone bool) bool {
	t.mu.Lock()
	empty := len(t.queue) == 0
	t.mu.Unlock()
	if !empty || alone {
		return empty
	}
	runtime.Gosched()
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.queue) == 0
}

// leadBatches bounds the batches one caller commits before it hands the
// turn on: a few keep the writing hot under load without making one
// caller wait for everybody's lines.
const leadBatches = 4

// LockLease is the longest a writer keeps the flock while lines keep
// coming; when none are waiting it gives it back after IdleLease.
const LockLease = time.Millisecond

// IdleLease is how long a writer keeps the flock once no line waits: long
// enough that a single caller's next decision finds it held (no lock, no
// look at the files, no head and mark written per line), short against
// a paced caller's pause, so that another process waits for it briefly.
const IdleLease = 50 * time.Microsecond

// leaseLeft is how long the lock may still be kept at now: until LockLease
// after it was taken, and IdleLease after the last batch if no line waited
// then. Under commit.
func (t *Tape) leaseLeft(now time.Time) time.Duration {
	left := LockLease - now.Sub(t.leased)
	if t.lastIdle {
		left = min(left, IdleLease-now.Sub(t.lastEnd))
	}
	return left
}

// endLease runs when the lease timer fires: it gives the flock back if the
// lease is over, so other processes sharing the tape get their turn, and
// otherwise arms the timer again for what is left of it.
func (t *Tape) endLease() {
	t.commit.Lock()
	defer t.commit.Unlock()
	t.armed = false
	if !t.w.locked {
		return
	}
	now := time.Now()
	if left := t.leaseLeft(now); left > 0 {
		t.armed, t.due = true, now.Add(left)
		t.lease.Reset(left)
		return
	}
	t.w.unlock()
}

// fdatasync makes f's data (and the size needed to read it) durable.
func fdatasync(f *os.File) error { return sysfile.Datasync(f) }
