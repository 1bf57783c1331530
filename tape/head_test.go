package tape

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"admit/policy/rule"
)

// smallTape writes n records (rotating past rotate bytes, 0: never) and
// closes the tape.
func smallTape(t *testing.T, n int, rotate int64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tape.jsonl")
	tp := openT(t, path, Options{RotateBytes: rotate})
	appendN(t, tp, n, rec)
	if err := tp.Close(); err != nil {
		t.Fatal(err)
	}
	mustVerify(t, path, n)
	return path
}

// tapeFiles are the files of the tape at path, oldest first.
func tapeFiles(t *testing.T, path string) []string {
	t.Helper()
	files, err := rotated(path)
	if err != nil {
		t.Fatal(err)
	}
	return append(files, path)
}

// wantHeadError fails unless err is a *HeadError whose Why holds why and
// whose File ends in file ("" : any).
func wantHeadError(t *testing.T, err error, file, why string) *HeadError {
	t.Helper()
	var he *HeadError
	if !errors.As(err, &he) {
		t.Fatalf("Verify = %v, want a *HeadError about %q", err, why)
	}
	if !strings.Contains(he.Why, why) || !strings.HasSuffix(he.File, file) {
		t.Fatalf("Verify = %v, want %q about %s", err, why, file)
	}
	return he
}

func reanchors(t *testing.T, path string) []Record {
	t.Helper()
	got, err := Query(path, Filter{Rule: rule.TapeReanchored})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// Every line edited in turn, in every file of a rotated tape: an edit
// that keeps the line JSON shows on the next line's prev, or (the last
// line) on the head; an edit that breaks it is named on its own line, or
// (the last line, which readers take for a torn tail) as a cut.
func TestVerifyEveryLineEdited(t *testing.T) {
	for _, rotate := range []int64{0, 700} {
		path := smallTape(t, 14, rotate)
		files := tapeFiles(t, path)
		if rotate > 0 && len(files) < 3 {
			t.Fatalf("%d files, want a rotated tape", len(files))
		}
		for fi, file := range files {
			orig, _ := os.ReadFile(file)
			ls := lines(t, file)
			for i := range ls {
				lastLine := fi == len(files)-1 && i == len(ls)-1
				for _, edit := range []struct {
					name string
					do   func([]byte) []byte
				}{
					{"same length", func(b []byte) []byte { return bytes.Replace(b, []byte(`"allow"`), []byte(`"alloW"`), 1) }},
					{"longer", func(b []byte) []byte { return bytes.Replace(b, []byte(`"read_file"`), []byte(`"write_file"`), 1) }},
					{"not JSON", func(b []byte) []byte { return append([]byte("x"), b...) }},
				} {
					t.Run(fmt.Sprintf("rotate=%d/%s:%d/%s", rotate, filepath.Base(file), i+1, edit.name), func(t *testing.T) {
						changed := make([][]byte, len(ls))
						copy(changed, ls)
						changed[i] = edit.do(ls[i])
						if bytes.Equal(changed[i], ls[i]) {
							t.Fatal("the edit changed nothing")
						}
						writeFile(t, file, bytes.Join(changed, nil))
						defer writeFile(t, file, orig)
						_, err := Verify(path)
						var be *BrokenError
						switch {
						case !lastLine && edit.name == "not JSON":
							if !errors.As(err, &be) || be.File != file || be.Line != i+1 {
								t.Fatalf("Verify = %v, want line %d of %s", err, i+1, file)
							}
						case !lastLine:
							next, line := file, i+2
							if i == len(ls)-1 {
								next, line = files[fi+1], 1
							}
							if !errors.As(err, &be) || be.File != next || be.Line != line {
								t.Fatalf("Verify = %v, want %s:%d", err, next, line)
							}
						case edit.name == "not JSON":
							// Readers take it for a torn tail.
							wantHeadError(t, err, "", "cut from the end")
						default:
							he := wantHeadError(t, err, filepath.Base(file), "the last record was changed")
							if he.Line != i+1 {
								t.Fatalf("Verify names line %d, want %d", he.Line, i+1)
							}
						}
					})
				}
			}
		}
		mustVerify(t, path, 14)
	}
}

// Truncation at every line boundary, and inside lines, of the current file
// and of the whole tape.
func TestVerifyTruncation(t *testing.T) {
	path := smallTape(t, 10, 0)
	orig, _ := os.ReadFile(path)
	ends := []int{0}
	for i, b := range orig {
		if b == '\n' {
			ends = append(ends, i+1)
		}
	}
	for k, end := range ends[:len(ends)-1] {
		for _, cut := range []int{end, end + 7} {
			writeFile(t, path, orig[:cut])
			n, err := Verify(path)
			if n != k {
				t.Errorf("cut at byte %d: %d records read, want %d", cut, n, k)
			}
			he := wantHeadError(t, err, "", "cut from the end")
			if k > 0 && (he.File != path || he.Line != k) {
				t.Errorf("cut at byte %d: %v, want line %d named", cut, err, k)
			}
		}
	}
	writeFile(t, path, orig)
	mustVerify(t, path, 10)

	// The writer records the cut, and the tape verifies again.
	writeFile(t, path, orig[:ends[6]])
	tp := openT(t, path, Options{})
	appendN(t, tp, 2, func(i int) *Record { return rec(100 + i) })
	tp.Close()
	mustVerify(t, path, 6+1+2)
	if got := reanchors(t, path); len(got) != 1 || !strings.Contains(got[0].Reason, "records were cut from the end") ||
		!strings.Contains(got[0].Reason, "anchors 10 records") {
		t.Fatalf("reanchor records: %+v", got)
	}
}

func TestVerifyMissingTape(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{filepath.Join(dir, "none.jsonl"), filepath.Join(dir, "no", "such", "tape.jsonl")} {
		if n, err := Verify(p); !errors.Is(err, ErrNoTape) || n != 0 {
			t.Errorf("Verify(%s) = %d, %v; want ErrNoTape", p, n, err)
		}
	}
	// A head alone is no tape either.
	path := smallTape(t, 3, 0)
	os.Remove(path)
	if _, err := Verify(path); !errors.Is(err, ErrNoTape) {
		t.Errorf("Verify of a removed tape whose head is left = %v; want ErrNoTape", err)
	}
}

func TestVerifyHeadMissing(t *testing.T) {
	path := smallTape(t, 4, 0)
	os.Remove(path + HeadSuffix)
	wantHeadError(t, func() error { _, err := Verify(path); return err }(), HeadSuffix, "the head is missing")

	// The mark still anchors the tape, so an edit of the last line made
	// while the head is gone shows when the writer comes back.
	ls := lines(t, path)
	ls[3] = bytes.Replace(ls[3], []byte(`"r3"`), []byte(`"r9"`), 1)
	writeFile(t, path, bytes.Join(ls, nil))
	tp := openT(t, path, Options{})
	tp.Close()
	got := reanchors(t, path)
	if len(got) != 1 || !strings.Contains(got[0].Reason, "the head tape.jsonl.head is missing") || !strings.Contains(got[0].Reason, "the last record was changed") {
		t.Fatalf("reanchor records: %+v", got)
	}
	mustVerify(t, path, 5)
}

// A head put back from an earlier copy, or lagging after a machine crash
// (heads and marks are written, not synced): the tape's sealed last line
// anchors the records past it, so neither Verify nor the next writer has
// anything to say. Lines past it that are not sealed (a writer without
// the key) are named, and recorded by the writer.
func TestVerifyStaleHead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tape.jsonl")
	tp := openT(t, path, Options{})
	appendN(t, tp, 5, rec)
	tp.giveBack() // give the lock back: the head and mark are written
	old, _ := os.ReadFile(path + HeadSuffix)
	appendN(t, tp, 3, func(i int) *Record { return rec(5 + i) })
	tp.Close()
	writeFile(t, path+HeadSuffix, old)
	// The mark went on to 8 records, and the tape reaches it: only the
	// head lagged.
	mustVerify(t, path, 8)
	// The mark as old as the head: the seal anchors the 3 records.
	s, err := openSeal("", false)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, s.markPath(path), old)
	mustVerify(t, path, 8)
	tp = openT(t, path, Options{})
	tp.Close()
	if got := reanchors(t, path); len(got) != 0 {
		t.Fatalf("reanchor records after a lagging head: %+v", got)
	}
	mustVerify(t, path, 8)

	// A line chained on by hand, without the key.
	data, _ := os.ReadFile(path)
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	sum := sha256.Sum256(lines[len(lines)-1])
	forged := fmt.Sprintf(`{"time":"2026-12-01T00:00:00Z","id":"forged","allowed":true,"prev":"%x"}`+"\n", sum)
	writeFile(t, path, append(data, forged...))
	_, err = Verify(path)
	he := wantHeadError(t, err, "tape.jsonl", "1 records from here on are not anchored")
	if !he.Unanchored || he.Line != 9 {
		t.Errorf("Verify = %+v, want Unanchored at line 9", he)
	}
	tp = openT(t, path, Options{})
	tp.Close()
	if got := reanchors(t, path); len(got) != 1 || !strings.Contains(got[0].Reason, "1 records from line 9 of tape.jsonl on were not anchored") {
		t.Fatalf("reanchor records: %+v", got)
	}
	mustVerify(t, path, 10)
}

// Every batch's last line is sealed, and the seal is the HMAC of the
// line without it (docs/tape.md says how to check one by hand).
func TestLineSeal(t *testing.T) {
	path := smallTape(t, 3, 0)
	s, err := openSeal("", false)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	for i, line := range lines {
		at := sealAt(line)
		if at < 0 {
			t.Fatalf("line %d is not sealed: %s", i+1, line)
		}
		mac := hmac.New(sha256.New, s.key)
		mac.Write(line[:at])
		mac.Write(line[at+sealWidth:])
		if got, want := string(line[at+len(sealKey):at+sealWidth-1]), hex.EncodeToString(mac.Sum(nil)); got != want {
			t.Errorf("line %d: seal %s, want %s", i+1, got, want)
		}
		var r Record
		if err := json.Unmarshal(line, &r); err != nil || r.ID == "" {
			t.Errorf("line %d does not read as a record: %v", i+1, err)
		}
	}
	// Changed under its seal, a line is no longer sealed.
	if _, ok := s.checkLine(bytes.Replace(lines[2], []byte(`"allow"`), []byte(`"deny!"`), 1)); ok {
		t.Error("a changed line kept its seal")
	}
}

// The tape and its head put back together to an earlier state (a copy
// kept by whoever could write the tape's folder): only the mark, in the
// seal folder, shows it.
func TestVerifyRollback(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tape.jsonl")
	tp := openT(t, path, Options{})
	appendN(t, tp, 5, rec)
	tp.giveBack()
	oldTape, _ := os.ReadFile(path)
	oldHead, _ := os.ReadFile(path + HeadSuffix)
	appendN(t, tp, 5, func(i int) *Record { return &Record{ID: fmt.Sprint("secret", i), Verdict: "allow", Allowed: true} })
	tp.Close()
	writeFile(t, path, oldTape)
	writeFile(t, path+HeadSuffix, oldHead)

	n, err := Verify(path)
	if n != 5 {
		t.Errorf("Verify read %d records, want 5", n)
	}
	wantHeadError(t, err, HeadSuffix, "the head anchors 5 records but the mark")
	tp = openT(t, path, Options{})
	tp.Close()
	if got := reanchors(t, path); len(got) != 1 || !strings.Contains(got[0].Reason, "put back to an older state") {
		t.Fatalf("reanchor records: %+v", got)
	}
	mustVerify(t, path, 6)

	// Without the mark, the rollback is what the seal folder exists to
	// show: a missing mark is an error too.
	s, _ := openSeal("", false)
	os.Remove(s.markPath(path))
	wantHeadError(t, func() error { _, err := Verify(path); return err }(), markSuffix, "the mark is missing")
}

// Heads that do not come from the key: written by hand (plain JSON, a
// recomputed hash), sealed with another key, or copied from another tape.
func TestVerifyForgedHead(t *testing.T) {
	path := smallTape(t, 4, 0)
	good, _ := os.ReadFile(path + HeadSuffix)
	var h map[string]any
	if err := json.Unmarshal(good, &h); err != nil {
		t.Fatalf("the head is not JSON: %v\n%s", err, good)
	}
	if len(good) != headWidth("tape.jsonl") || h["records"] != 4.0 || h["file"] != "tape.jsonl" || len(h["mac"].(string)) != 64 {
		t.Fatalf("head %q", good)
	}
	other, err := openSeal(t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	mine, _ := openSeal("", false)
	a, err := mine.decode(good, "tape.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	more := a
	more.records++
	var moreHead map[string]any
	json.Unmarshal(mine.encode(nil, "tape.jsonl", more), &moreHead)
	forged := func(m map[string]any) []byte {
		c := map[string]any{}
		for k, v := range h {
			c[k] = v
		}
		for k, v := range m {
			c[k] = v
		}
		b, _ := json.Marshal(c)
		return b
	}
	for _, c := range []struct {
		name, why string
		head      []byte
	}{
		{"records changed", "MAC does not match", forged(map[string]any{"records": 3})},
		{"the MAC of another anchor", "MAC does not match", forged(map[string]any{"mac": moreHead["mac"]})},
		{"another key", "sealed with key", other.encode(nil, "tape.jsonl", a)},
		{"another tape", `head of "other.jsonl"`, mine.encode(nil, "other.jsonl", a)},
		{"not JSON", "not a head", []byte("records=4\n")},
		{"unknown field", "not a head", forged(map[string]any{"extra": 1})},
		{"version 2", "not a version 1 head", forged(map[string]any{"v": 2})},
		{"negative", "0 or more", forged(map[string]any{"size": -1})},
		{"two objects", "more after the JSON value", append(append([]byte{}, good...), good...)},
		{"empty", "the head is missing", []byte("   \n")},
	} {
		t.Run(c.name, func(t *testing.T) {
			writeFile(t, path+HeadSuffix, c.head)
			_, err := Verify(path)
			wantHeadError(t, err, HeadSuffix, c.why)
		})
	}
	writeFile(t, path+HeadSuffix, good)
	mustVerify(t, path, 4)

	// Without the key nothing can be checked.
	if _, err := VerifyWith(path, VerifyOptions{SealDir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "no key") {
		t.Errorf("Verify without a key = %v", err)
	}
	if _, err := os.Stat(filepath.Join(t.TempDir(), keyFile)); err == nil {
		t.Error("Verify created a key")
	}
}

// The head is kept in step with group commit: when a synced Append
// returns, the head on disk already anchors its batch.
func TestHeadInStepWithCommit(t *testing.T) {
	seal, err := openSeal("", false)
	if err != nil {
		seal, err = openSeal("", true)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []Sync{SyncBatch, SyncAlways} {
		t.Run(string(s), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "tape.jsonl")
			tp := openT(t, path, Options{Sync: s})
			var wg sync.WaitGroup
			for w := range 16 {
				wg.Go(func() {
					for i := range 20 {
						if err := tp.Append(context.Background(), &Record{ID: fmt.Sprintf("%d-%d", w, i)}); err != nil {
							t.Error(err)
							return
						}
						// Holding commit, no batch is being written: the head
						// on disk is the writer's state.
						tp.commit.Lock()
						b, _ := os.ReadFile(path + HeadSuffix)
						a, err := seal.decode(b, "tape.jsonl")
						want, dirty := tp.w.anchor(), tp.w.headDirty
						tp.commit.Unlock()
						if err != nil || dirty || a != want || a.records < 1 {
							t.Errorf("head after an Append: %+v (%v, dirty %v), want %+v", a, err, dirty, want)
							return
						}
					}
				})
			}
			wg.Wait()
			tp.giveBack()
			mustVerify(t, path, 320)
		})
	}
	// SyncNone anchors when the lock is given back.
	path := filepath.Join(t.TempDir(), "tape.jsonl")
	tp := openT(t, path, Options{Sync: SyncNone})
	appendN(t, tp, 50, rec)
	tp.giveBack()
	mustVerify(t, path, 50)
}

// A fresh tape and a tape reopened cleanly carry no reanchor record; a
// tape from before heads gets one, naming the records it found.
func TestReanchorOnlyWhenNeeded(t *testing.T) {
	path := smallTape(t, 3, 0)
	tp := openT(t, path, Options{})
	appendN(t, tp, 1, rec)
	tp.Close()
	if got := reanchors(t, path); len(got) != 0 {
		t.Fatalf("reanchor records on a clean tape: %+v", got)
	}
	s, _ := openSeal("", false)
	os.Remove(path + HeadSuffix)
	os.Remove(s.markPath(path))
	tp = openT(t, path, Options{})
	tp.Close()
	if got := reanchors(t, path); len(got) != 1 || !strings.Contains(got[0].Reason, "is missing; the head now anchors the 4 records found") {
		t.Fatalf("reanchor records: %+v", got)
	}
	mustVerify(t, path, 5)
}

// A head or mark planted as a symlink is not written through.
func TestHeadSymlinkRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tape.jsonl")
	victim := filepath.Join(dir, "victim")
	writeFile(t, victim, []byte("keep me\n"))
	if err := os.Symlink(victim, path+HeadSuffix); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path, Options{}); !errors.Is(err, ErrUnwritable) {
		t.Errorf("Open with a symlinked head = %v, want ErrUnwritable", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep me\n" {
		t.Errorf("the link's target was written: %q", b)
	}
}

// A head replaced while the tape is open is taken as found: the writer
// notices at its next turn and records what it found.
func TestHeadReplacedWhileOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tape.jsonl")
	tp := openT(t, path, Options{})
	appendN(t, tp, 3, rec)
	tp.giveBack()
	os.Remove(path + HeadSuffix)
	writeFile(t, path+HeadSuffix, []byte(`{"v":1}`))
	appendN(t, tp, 1, func(int) *Record { return rec(9) })
	tp.Close()
	got := reanchors(t, path)
	if len(got) != 1 || !strings.Contains(got[0].Reason, "cannot be trusted") {
		t.Fatalf("reanchor records: %+v", got)
	}
	mustVerify(t, path, 5)
}

func TestSealKey(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "seal")
	var wg sync.WaitGroup
	ids := make([]string, 8)
	for i := range ids {
		wg.Go(func() {
			s, err := openSeal(dir, true)
			if err != nil {
				t.Error(err)
				return
			}
			ids[i] = s.id
		})
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] {
			t.Fatalf("concurrent openers made different keys: %v", ids)
		}
	}
	fi, err := os.Stat(filepath.Join(dir, keyFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key: %v, %v", fi, err)
	}
	if di, _ := os.Stat(dir); di.Mode().Perm() != 0o700 {
		t.Errorf("seal folder mode %v", di.Mode().Perm())
	}
	for name, content := range map[string]string{"short": "abcd\n", "not hex": strings.Repeat("z", 64)} {
		d := t.TempDir()
		writeFile(t, filepath.Join(d, keyFile), []byte(content))
		if _, err := openSeal(d, true); err == nil || !strings.Contains(err.Error(), "does not hold a key") {
			t.Errorf("%s key: %v", name, err)
		}
	}
	t.Setenv("XDG_DATA_HOME", "/x/data")
	if d, _ := DefaultSealDir(); d != "/x/data/admit/tape-seal" {
		t.Errorf("DefaultSealDir = %s", d)
	}
	t.Setenv("XDG_DATA_HOME", "relative")
	t.Setenv("HOME", "/home/u")
	if d, _ := DefaultSealDir(); d != "/home/u/.local/share/admit/tape-seal" {
		t.Errorf("DefaultSealDir = %s", d)
	}
}

// FuzzHeadDecode: decode never panics, accepts only what the key sealed,
// and reads back every anchor encode writes.
func FuzzHeadDecode(f *testing.F) {
	s, err := openSeal(f.TempDir(), true)
	if err != nil {
		f.Fatal(err)
	}
	for _, a := range []anchor{{}, {records: 3, size: 120, last: [32]byte{1, 2, 3}}} {
		f.Add(s.encode(nil, "tape.jsonl", a), int64(0), int64(0))
	}
	f.Add([]byte(`{"v":1,"file":"tape.jsonl","records":1,"size":2,"last":"","key":"","mac":""}`), int64(1), int64(2))
	f.Fuzz(func(t *testing.T, b []byte, records, size int64) {
		if a, err := s.decode(b, "tape.jsonl"); err == nil && !bytes.Contains(b, hex.AppendEncode(nil, s.mac("tape.jsonl", a))) {
			t.Fatalf("accepted %q without the MAC of %+v", b, a)
		}
		// What a writer takes from a head without decode, decode takes too.
		if own, _, ok := s.decodeOwn(b, "tape.jsonl", nil); ok {
			if a, err := s.decode(b, "tape.jsonl"); err != nil || a != own {
				t.Fatalf("decodeOwn took %q as %+v, decode as %+v, %v", b, own, a, err)
			}
		}
		if records < 0 || size < 0 {
			return
		}
		a := anchor{records: records, size: size, last: [32]byte{byte(records)}}
		if records == 0 {
			a.size, a.last = 0, [32]byte{}
		}
		got, err := s.decode(s.encode(nil, "tape.jsonl", a), "tape.jsonl")
		if err != nil || got != a {
			t.Fatalf("round trip of %+v: %+v, %v", a, got, err)
		}
		if own, _, ok := s.decodeOwn(s.encode(nil, "tape.jsonl", a), "tape.jsonl", nil); !ok || own != a {
			t.Fatalf("decodeOwn round trip of %+v: %+v, %v", a, own, ok)
		}
	})
}

// A last line made unreadable is cut as a torn line would be, but the
// repair record keeps what was cut, and the head shows the record was
// anchored: both are on the tape.
func TestUnreadableLastLineKeepsEvidence(t *testing.T) {
	path := smallTape(t, 3, 0)
	ls := lines(t, path)
	ls[2] = append([]byte("#"), ls[2]...)
	writeFile(t, path, bytes.Join(ls, nil))
	tp := openT(t, path, Options{})
	tp.Close()
	got, err := Query(path, Filter{Rule: rule.TapeRepaired})
	if err != nil || len(got) != 1 || !strings.HasPrefix(got[0].Detail, `cut: #{"time"`) || !strings.Contains(got[0].Detail, `"id":"r2"`) {
		t.Fatalf("repair records: %+v, %v", got, err)
	}
	if r := reanchors(t, path); len(r) != 1 || !strings.Contains(r[0].Reason, "cut from the end") {
		t.Fatalf("reanchor records: %+v", r)
	}
	mustVerify(t, path, 4)
}

// The mark is found whatever spelling of the tape's folder is used.
func TestMarkFollowsTheFolder(t *testing.T) {
	path := smallTape(t, 2, 0)
	link := filepath.Join(t.TempDir(), "via")
	if err := os.Symlink(filepath.Dir(path), link); err != nil {
		t.Fatal(err)
	}
	mustVerify(t, filepath.Join(link, "tape.jsonl"), 2)
	tp := openT(t, filepath.Join(link, "tape.jsonl"), Options{})
	appendN(t, tp, 1, rec)
	tp.Close()
	if r := reanchors(t, path); len(r) != 0 {
		t.Fatalf("reanchor records through the link: %+v", r)
	}
	mustVerify(t, path, 3)
}

// A head written in place stays one head when it gets shorter (fewer
// digits after a rotation), whatever the tape's name.
func TestHeadShrinksInPlace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t\"\x01\\é.jsonl")
	tp := openT(t, path, Options{RotateBytes: 3000})
	appendN(t, tp, 40, rec)
	tp.Close()
	if files := tapeFiles(t, path); len(files) < 2 {
		t.Fatalf("%d files, want a rotation", len(files))
	}
	b, _ := os.ReadFile(path + HeadSuffix)
	if len(b) != headWidth(filepath.Base(path)) {
		t.Errorf("head is %d bytes, want %d", len(b), headWidth(filepath.Base(path)))
	}
	mustVerify(t, path, 40)
}

// Two writers taking turns: each takes the other's sealed lines from the
// tape as they are (no finding). Lines added between their turns by
// someone without the key (chained on, but unsealed, or ending in a
// sealed line copied from earlier) are not taken that way: the writer
// reads the head again and records what it found.
func TestWritersFollowEachOther(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tape.jsonl")
	a := openT(t, path, Options{Sync: SyncNone})
	b := openT(t, path, Options{Sync: SyncNone})
	for i := range 6 {
		tp := a
		if i%2 == 1 {
			tp = b
		}
		appendN(t, tp, 2, func(k int) *Record { return rec(2*i + k) })
	}
	if got := reanchors(t, path); len(got) != 0 {
		t.Fatalf("writers taking turns recorded %+v", got)
	}
	data, _ := os.ReadFile(path)
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	sum := sha256.Sum256(lines[len(lines)-1])
	forged := fmt.Sprintf(`{"time":"2026-12-01T00:00:00Z","id":"forged","allowed":true,"prev":"%x"}`, sum)
	for _, c := range []struct {
		name  string
		added []byte
	}{
		{"unsealed", []byte(forged + "\n")},
		{"an old sealed line after it", append([]byte(forged+"\n"), append(lines[3], '\n')...)},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := len(reanchors(t, path))
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.Write(c.added)
			f.Close()
			appendN(t, a, 1, rec)
			if got := reanchors(t, path); len(got) != before+1 {
				t.Fatalf("after %s lines were added: reanchor records %+v", c.name, got)
			}
			// The next lines chain on from the tape as found.
			data, _ = os.ReadFile(path)
			lines = bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
			sum = sha256.Sum256(lines[len(lines)-1])
			forged = fmt.Sprintf(`{"time":"2026-12-01T00:00:00Z","id":"forged2","allowed":true,"prev":"%x"}`, sum)
		})
	}
	a.Close()
	b.Close()
}

// A writer whose turn comes after another's takes the other's lines from
// the head it left, when that head ends where the tape ends, in the form a
// writer writes, and names the tape's last line. Otherwise it reads the
// lines, or the files, as before: a kill between the lines and the head
// leaves a head behind them, which the lines' seal makes good; a last line
// changed (keeping its length) while nobody held the lock is recorded.
func TestWriterTakesTheHead(t *testing.T) {
	seal, err := openSeal("", true)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		// change runs after a's turn; head and mark are as they were
		// before it.
		change  func(t *testing.T, path string, head, mark []byte)
		takes   bool
		finding string // in b's reanchor record ("" : none)
	}{
		{"as a left it", func(*testing.T, string, []byte, []byte) {}, true, ""},
		{"killed before the head and the mark", func(t *testing.T, path string, head, mark []byte) {
			writeFile(t, path+HeadSuffix, head)
			writeFile(t, seal.markPath(path), mark)
		}, false, ""},
		{"killed before the mark", func(t *testing.T, path string, _, mark []byte) {
			writeFile(t, seal.markPath(path), mark)
		}, true, ""},
		{"last line changed", func(t *testing.T, path string, _, _ []byte) {
			ls := lines(t, path)
			last := ls[len(ls)-1]
			ls[len(ls)-1] = bytes.Replace(last, []byte(`"id":"r8"`), []byte(`"id":"r9"`), 1)
			if bytes.Equal(ls[len(ls)-1], last) {
				t.Fatalf("last line %s has no r8", last)
			}
			writeFile(t, path, bytes.Join(ls, nil))
		}, false, "the last record was changed"},
		{"a line added without the key", func(t *testing.T, path string, _, _ []byte) {
			ls := lines(t, path)
			forged := fmt.Sprintf(`{"time":"2026-12-01T00:00:00Z","id":"forged","allowed":true,"prev":"%s"}`+"\n", hashOf(ls[len(ls)-1]))
			writeFile(t, path, append(bytes.Join(ls, nil), forged...))
		}, false, "were not anchored"},
		{"head re-encoded by hand", func(t *testing.T, path string, _, _ []byte) {
			b, _ := os.ReadFile(path + HeadSuffix)
			writeFile(t, path+HeadSuffix, bytes.Replace(b, []byte(`{"v":1,`), []byte(`{"v":1, `), 1)[:len(b)])
		}, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "tape.jsonl")
			a := openT(t, path, Options{Sync: SyncNone})
			b := openT(t, path, Options{Sync: SyncNone})
			appendN(t, b, 1, rec) // b knows the tape
			b.giveBack()
			head, _ := os.ReadFile(path + HeadSuffix)
			mark, _ := os.ReadFile(seal.markPath(path))
			appendN(t, a, 8, func(i int) *Record { return rec(1 + i) })
			a.giveBack()
			c.change(t, path, head, mark)

			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			b.commit.Lock()
			b.w.flock()
			took := b.w.takeHead(fi.Size())
			want := anchor{records: 9, size: fi.Size()} // when it takes the head
			got := b.w.anchor()
			got.last = [32]byte{}
			b.w.funlock()
			b.commit.Unlock()
			if took != c.takes || took && got != want {
				t.Fatalf("took the head: %v with %+v, want %v with %+v", took, got, c.takes, want)
			}

			appendN(t, b, 1, func(int) *Record { return rec(10) })
			b.giveBack()
			found := reanchors(t, path)
			switch {
			case c.finding == "" && len(found) != 0:
				t.Fatalf("recorded %+v", found)
			case c.finding != "" && (len(found) != 1 || !strings.Contains(found[0].Reason, c.finding)):
				t.Fatalf("recorded %+v, want %q", found, c.finding)
			}
			mustVerify(t, path, len(lines(t, path)))
		})
	}
}

// decodeOwn reads back exactly what encode writes and nothing else: any
// one byte of a head changed, it leaves the head to decode.
func TestDecodeOwn(t *testing.T) {
	s, err := openSeal(t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	other, err := openSeal(t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []anchor{{}, {records: 1, size: 312, last: sha256.Sum256([]byte("x"))}, {records: 1 << 40, size: 1 << 50, last: [32]byte{9}}} {
		h := s.encode(nil, "t\"é.jsonl", a)
		if got, _, ok := s.decodeOwn(h, "t\"é.jsonl", nil); !ok || got != a {
			t.Fatalf("decodeOwn(encode(%+v)) = %+v, %v", a, got, ok)
		}
		if _, _, ok := s.decodeOwn(h, "tape.jsonl", nil); ok {
			t.Errorf("took the head of t\"é.jsonl for tape.jsonl")
		}
		if _, _, ok := other.decodeOwn(h, "t\"é.jsonl", nil); ok {
			t.Errorf("took a head sealed with another key")
		}
		for i := range h {
			for _, c := range []byte{'0', '9', 'a', ' ', '"'} {
				if h[i] == c {
					continue
				}
				changed := bytes.Clone(h)
				changed[i] = c
				if got, _, ok := s.decodeOwn(changed, "t\"é.jsonl", nil); ok {
					t.Fatalf("took %q (byte %d of a head of %+v changed) as %+v", changed, i, a, got)
				}
			}
		}
	}
}
