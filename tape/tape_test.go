package tape

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"admit/policy/rule"
)

func openT(t testing.TB, path string, o Options) *Tape {
	t.Helper()
	tp, err := Open(path, o)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { tp.Close() })
	return tp
}

func appendN(t testing.TB, tp *Tape, n int, mk func(i int) *Record) {
	t.Helper()
	for i := range n {
		if err := tp.Append(context.Background(), mk(i)); err != nil {
			t.Fatalf("Append %d: %v", i, err)
		}
	}
}

func rec(i int) *Record {
	return &Record{ID: fmt.Sprintf("r%d", i), Verdict: "allow", Allowed: true, Rule: "allowed", Tool: "read_file"}
}

func mustVerify(t testing.TB, path string, want int) {
	t.Helper()
	n, err := Verify(path)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if want >= 0 && n != want {
		t.Fatalf("Verify: %d records, want %d", n, want)
	}
}

func lines(t testing.TB, path string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		t.Fatalf("%s does not end in a newline", path)
	}
	return bytes.SplitAfter(b, []byte{'\n'})[:bytes.Count(b, []byte{'\n'})]
}

func hashOf(line []byte) string {
	sum := sha256.Sum256(bytes.TrimSuffix(line, []byte{'\n'}))
	return hex.EncodeToString(sum[:])
}

func TestConcurrentAppends(t *testing.T) {
	for _, s := range []Sync{SyncBatch, SyncAlways, SyncNone} {
		t.Run(string(s), func(t *testing.T) {
			const writers, each = 64, 50
			path := filepath.Join(t.TempDir(), "state", "admit", "tape.jsonl")
			tp := openT(t, path, Options{Sync: s})
			var wg sync.WaitGroup
			errs := make(chan error, writers)
			// The first record ever has prev ""; append it alone so that
			// every concurrent one must carry a hash.
			if err := tp.Append(context.Background(), &Record{ID: "w0-0"}); err != nil || tp.Head() == "" {
				t.Fatal(err)
			}
			for w := range writers {
				wg.Go(func() {
					for i := range each {
						if w == 0 && i == 0 {
							continue
						}
						r := &Record{ID: fmt.Sprintf("w%d-%d", w, i), Session: fmt.Sprint(w), Verdict: "deny", Rule: "not-in-allow-list"}
						if err := tp.Append(context.Background(), r); err != nil {
							errs <- err
							return
						}
						if len(r.Prev) != 64 {
							errs <- fmt.Errorf("prev %q", r.Prev)
							return
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			appended, syncs := tp.Stats()
			if appended != writers*each {
				t.Errorf("Stats appended = %d, want %d", appended, writers*each)
			}
			switch s {
			case SyncAlways:
				if syncs != appended {
					t.Errorf("always: %d syncs for %d lines", syncs, appended)
				}
			case SyncNone:
				if syncs != 0 {
					t.Errorf("none: %d syncs", syncs)
				}
			case SyncBatch:
				if syncs == 0 || syncs > appended {
					t.Errorf("batch: %d syncs for %d lines", syncs, appended)
				}
				t.Logf("batch: %d lines in %d syncs", appended, syncs)
			}
			if err := tp.Close(); err != nil {
				t.Fatal(err)
			}
			mustVerify(t, path, writers*each)
			got, err := Query(path, Filter{})
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]int{}
			for _, r := range got {
				seen[r.ID]++
			}
			for w := range writers {
				for i := range each {
					if id := fmt.Sprintf("w%d-%d", w, i); seen[id] != 1 {
						t.Fatalf("record %s is on the tape %d times", id, seen[id])
					}
				}
			}
			ls := lines(t, path)
			if h := hashOf(ls[len(ls)-1]); h != tp.Head() {
				t.Errorf("Head %s, last line hashes to %s", tp.Head(), h)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("file mode %v, want 0600", fi.Mode().Perm())
			}
			di, err := os.Stat(filepath.Dir(path))
			if err != nil {
				t.Fatal(err)
			}
			if di.Mode().Perm() != 0o700 {
				t.Errorf("directory mode %v, want 0700", di.Mode().Perm())
			}
		})
	}
}

func TestChainAndReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tape.jsonl")
	tp := openT(t, path, Options{})
	if tp.Head() != "" {
		t.Fatalf("Head of a new tape = %q", tp.Head())
	}
	first := rec(0)
	if err := tp.Append(context.Background(), first); err != nil {
		t.Fatal(err)
	}
	if first.Prev != "" {
		t.Errorf("first record prev = %q, want \"\"", first.Prev)
	}
	appendN(t, tp, 3, func(i int) *Record { return rec(i + 1) })
	head := tp.Head()
	tp.Close()

	tp = openT(t, path, Options{})
	if tp.Head() != head {
		t.Fatalf("Head after reopen = %s, want %s", tp.Head(), head)
	}
	r := rec(4)
	if err := tp.Append(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	if r.Prev != head {
		t.Errorf("prev after reopen = %s, want %s", r.Prev, head)
	}
	ls := lines(t, path)
	for i := 1; i < len(ls); i++ {
		var got Record
		if err := json.Unmarshal(ls[i], &got); err != nil {
			t.Fatal(err)
		}
		if got.Prev != hashOf(ls[i-1]) {
			t.Errorf("line %d: prev %s, want the hash of line %d", i+1, got.Prev, i)
		}
	}
	mustVerify(t, path, 5)
}

func TestClosed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tape.jsonl")
	tp := openT(t, path, Options{})
	appendN(t, tp, 1, rec)
	if err := tp.Close(); err != nil {
		t.Fatal(err)
	}
	if err := tp.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	err := tp.Append(context.Background(), rec(1))
	if !errors.Is(err, ErrUnwritable) || !errors.Is(err, ErrClosed) {
		t.Errorf("Append after Close = %v, want ErrUnwritable and ErrClosed", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tp = openT(t, path, Options{})
	if err := tp.Append(ctx, rec(2)); !errors.Is(err, context.Canceled) {
		t.Errorf("Append with a cancelled context = %v", err)
	}
	mustVerify(t, path, 1)
}

func TestOpenOptions(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(filepath.Join(dir, "t"), Options{Sync: "sometimes"}); err == nil {
		t.Error("Open accepted sync \"sometimes\"")
	}
	if _, err := Open(filepath.Join(dir, "t"), Options{RotateBytes: -1}); err == nil {
		t.Error("Open accepted a negative RotateBytes")
	}
	if _, err := Open(dir, Options{}); !errors.Is(err, ErrUnwritable) {
		t.Errorf("Open of a directory = %v, want ErrUnwritable", err)
	}
	for in, want := range map[string]Sync{"": SyncBatch, "always": SyncAlways, "batch": SyncBatch, "none": SyncNone} {
		if got, err := ParseSync(in); err != nil || got != want {
			t.Errorf("ParseSync(%q) = %q, %v", in, got, err)
		}
	}
}

func TestDefaultPath(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/x/state")
	if p, _ := DefaultPath(); p != "/x/state/admit/tape.jsonl" {
		t.Errorf("with XDG_STATE_HOME: %s", p)
	}
	t.Setenv("HOME", "/home/u")
	for _, v := range []string{"", "relative/state"} {
		t.Setenv("XDG_STATE_HOME", v)
		if p, _ := DefaultPath(); p != "/home/u/.local/state/admit/tape.jsonl" {
			t.Errorf("XDG_STATE_HOME=%q: %s", v, p)
		}
	}
}

func TestRecordEncoding(t *testing.T) {
	code, yes := 3, true
	r := &Record{
		Time: time.Date(2026, 11, 30, 6, 0, 0, 123456789, time.FixedZone("x", 3600)),
		ID:   "1", Session: "s", Mode: "enforce", Verdict: "deny", Allowed: false,
		Rule: "forbidden-flag", Reason: "quote \" backslash \\ newline \n tab \t nul \x00 bad \xff sep \u2028 <&> é 😀",
		Tool: "bash", Args: json.RawMessage("{\n  \"command\": \"ls\"\n}"), Command: "ls -la",
		Kind: "read", Targets: []string{"/a", "/b"}, Context: json.RawMessage(`{"turn":3}`),
		Policy: "abc", DecidedBy: "person", AskedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		WaitedMs: 1500, Effects: json.RawMessage(`{"added":["x"]}`), ExitCode: &code, Verified: &yes,
		Detail: "d",
	}
	body := appendBody(nil, r)
	if bytes.ContainsAny(body, "\n\r") {
		t.Fatalf("body holds a line break: %s", body)
	}
	var got Record
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, body)
	}
	want := *r
	want.Time = want.Time.UTC()
	want.Reason = strings.ToValidUTF8(want.Reason, "\ufffd")
	want.Args = json.RawMessage(`{"command":"ls"}`)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
	}
	// The same record through encoding/json decodes to the same map: the
	// tags and the encoder agree on every name.
	std, _ := json.Marshal(&want)
	var a, b map[string]any
	json.Unmarshal(body, &a)
	json.Unmarshal(std, &b)
	delete(b, "prev")
	if !reflect.DeepEqual(a, b) {
		t.Errorf("encoder and tags disagree:\n%s\n%s", body, std)
	}
	if !strings.HasPrefix(string(body), `{"time":"2026-11-30T05:00:00.123456789Z","id":"1"`) {
		t.Errorf("body starts %s", body[:60])
	}
	// Only time and allowed for an empty record.
	if got := string(appendBody(nil, &Record{Time: time.Unix(0, 0)})); got != `{"time":"1970-01-01T00:00:00Z","allowed":false}` {
		t.Errorf("empty record: %s", got)
	}
}

func TestBounds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tape.jsonl")
	tp := openT(t, path, Options{})
	big := json.RawMessage(`"` + strings.Repeat("a", MaxArgs) + `"`)
	targets := make([]string, MaxTargets+5)
	for i := range targets {
		targets[i] = "/t"
	}
	r := &Record{
		Args:    big,
		Context: json.RawMessage(`{not json`),
		Command: strings.Repeat("é", MaxString), // cut in the middle of a rune
		Targets: targets,
	}
	if err := tp.Append(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	got, err := Query(path, Filter{})
	if err != nil || len(got) != 1 {
		t.Fatalf("Query: %v, %d", err, len(got))
	}
	g := got[0]
	if want := fmt.Sprintf(`{"truncated":%d}`, len(big)); string(g.Args) != want {
		t.Errorf("args = %s, want %s", g.Args, want)
	}
	if string(g.Context) != `{"invalid":9}` {
		t.Errorf("context = %s", g.Context)
	}
	if !strings.HasSuffix(g.Command, fmt.Sprintf("…(+%d bytes)", MaxString)) || strings.ContainsRune(g.Command, '\ufffd') {
		t.Errorf("command ends %q", g.Command[len(g.Command)-40:])
	}
	if len(g.Targets) != MaxTargets+1 || g.Targets[MaxTargets] != "… 5 more" {
		t.Errorf("targets: %d, last %q", len(g.Targets), g.Targets[len(g.Targets)-1])
	}
	if string(r.Args) != string(big) {
		t.Error("Append changed the caller's args")
	}
}

func FuzzQuoted(f *testing.F) {
	for _, s := range []string{"", "plain", "\"\\\n\x00\x1f\x7f", "\xff\xfe", "\u2028\u2029", "é😀", strings.Repeat("x", MaxString+1)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := appendQuoted(nil, s)
		if bytes.ContainsAny(b, "\n\r") {
			t.Fatalf("line break in %q", b)
		}
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%q: %v", b, err)
		}
		if len(s) <= MaxString && got != strings.ToValidUTF8(s, "\ufffd") {
			// encoding/json replaces each invalid byte; ToValidUTF8 runs of
			// them. Compare with the standard encoder instead.
			std, _ := json.Marshal(s)
			var want string
			json.Unmarshal(std, &want)
			if got != want {
				t.Fatalf("%q decodes to %q, want %q", s, got, want)
			}
		}
	})
}

// writeFile puts raw bytes on a tape path, for tests that damage a tape.
func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestTornLineRepaired(t *testing.T) {
	cases := []struct {
		name string
		tail string // appended after 3 good lines
	}{
		{"no newline", `{"time":"2026-01-01T00:00:00Z","id":"tor`},
		{"garbage line", "\x00\x00\x00garbage}\n"},
		{"garbage then fragment", "not json\n{\"time\""},
		{"half a line with newline", `{"time":"2026-01-01T00:00:00Z","id":"x"` + "\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "tape.jsonl")
			tp := openT(t, path, Options{})
			appendN(t, tp, 3, rec)
			head := tp.Head()
			tp.Close()
			good, _ := os.ReadFile(path)
			f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			f.WriteString(c.tail)
			f.Close()

			// Readers skip the torn tail before any repair.
			mustVerify(t, path, 3)
			if got, err := Query(path, Filter{}); err != nil || len(got) != 3 {
				t.Fatalf("Query before repair: %d records, %v", len(got), err)
			}

			tp = openT(t, path, Options{})
			now, _ := os.ReadFile(path)
			if !bytes.HasPrefix(now, good) {
				t.Fatal("repair changed the good lines")
			}
			got, err := Query(path, Filter{Rule: rule.TapeRepaired})
			if err != nil || len(got) != 1 {
				t.Fatalf("repair records: %d, %v", len(got), err)
			}
			want := fmt.Sprintf("cut %d bytes of a torn last line (line 4 of tape.jsonl)", len(c.tail))
			if !strings.Contains(got[0].Reason, want) || got[0].Prev != head {
				t.Errorf("repair record %+v, want reason with %q and prev %s", got[0], want, head)
			}
			appendN(t, tp, 2, func(i int) *Record { return rec(10 + i) })
			tp.Close()
			mustVerify(t, path, 6)
		})
	}
}

func TestTornOnlyLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tape.jsonl")
	writeFile(t, path, []byte(`{"time":"2026`))
	tp := openT(t, path, Options{})
	appendN(t, tp, 1, rec)
	tp.Close()
	got, err := Query(path, Filter{})
	if err != nil || len(got) != 2 || got[0].Rule != rule.TapeRepaired || got[0].Prev != "" {
		t.Fatalf("Query = %+v, %v", got, err)
	}
	mustVerify(t, path, 2)
}

func TestQuery(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tape.jsonl")
	base := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	tp := openT(t, path, Options{})
	for i := range 20 {
		r := &Record{
			Time:    base.Add(time.Duration(i) * time.Minute),
			ID:      fmt.Sprint(i),
			Session: []string{"a", "b"}[i%2],
			Tool:    []string{"bash", "edit", "read"}[i%3],
			Verdict: "allow", Allowed: true, Rule: "allowed",
		}
		if i%4 == 0 {
			r.Verdict, r.Allowed, r.Rule = "deny", false, "forbidden-flag"
		}
		if err := tp.Append(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	tp.Close()
	ids := func(rs []Record) string {
		var s []string
		for _, r := range rs {
			s = append(s, r.ID)
		}
		return strings.Join(s, ",")
	}
	cases := []struct {
		f    Filter
		want string
	}{
		{Filter{}, "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19"},
		{Filter{Verdict: "deny"}, "0,4,8,12,16"},
		{Filter{Rule: "forbidden-flag", Limit: 2}, "12,16"},
		{Filter{Tool: "bash"}, "0,3,6,9,12,15,18"},
		{Filter{Tool: "bash", Session: "b"}, "3,9,15"},
		{Filter{Since: base.Add(15 * time.Minute)}, "15,16,17,18,19"},
		{Filter{Since: base.Add(15 * time.Minute), Limit: 3}, "17,18,19"},
		{Filter{Limit: 25}, "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19"},
		{Filter{Limit: 1}, "19"},
		{Filter{Session: "nobody"}, ""},
	}
	for _, c := range cases {
		got, err := Query(path, c.f)
		if err != nil {
			t.Fatal(err)
		}
		if ids(got) != c.want {
			t.Errorf("Query(%+v) = %s, want %s", c.f, ids(got), c.want)
		}
	}
	got, err := Query(filepath.Join(t.TempDir(), "none.jsonl"), Filter{})
	if err != nil || got != nil {
		t.Errorf("Query of a missing tape = %v, %v", got, err)
	}
	if n, err := Verify(filepath.Join(t.TempDir(), "none.jsonl")); !errors.Is(err, ErrNoTape) || n != 0 {
		t.Errorf("Verify of a missing tape = %d, %v; want ErrNoTape", n, err)
	}
}

func TestRotation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tape.jsonl")
	tp := openT(t, path, Options{RotateBytes: 1000, Sync: SyncAlways})
	appendN(t, tp, 40, rec)
	tp.Close()
	files, err := rotated(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 3 {
		t.Fatalf("%d rotated files, want several", len(files))
	}
	for _, f := range append(files, path) {
		if fi, _ := os.Stat(f); fi.Size() > 1000 {
			t.Errorf("%s has %d bytes, over RotateBytes", f, fi.Size())
		}
	}
	// The first line of each file chains to the last line of the one before.
	all := append(files, path)
	for i := 1; i < len(all); i++ {
		prevLines, curLines := lines(t, all[i-1]), lines(t, all[i])
		var first Record
		json.Unmarshal(curLines[0], &first)
		if first.Prev != hashOf(prevLines[len(prevLines)-1]) {
			t.Errorf("%s does not chain to %s", all[i], all[i-1])
		}
	}
	mustVerify(t, path, 40)
	got, err := Query(path, Filter{})
	if err != nil || len(got) != 40 || got[0].ID != "r0" || got[39].ID != "r39" {
		t.Fatalf("Query across files: %d records, %v", len(got), err)
	}
	// Without the current file the chain is whole but the head shows the
	// cut; the next writer records it and the chain goes on.
	cur := len(lines(t, path))
	os.Remove(path)
	var he *HeadError
	if n, err := Verify(path); !errors.As(err, &he) || !strings.Contains(he.Why, "cut from the end") || n != 40-cur {
		t.Fatalf("Verify without the current file = %d, %v; want the cut named", n, err)
	}
	tp = openT(t, path, Options{RotateBytes: 1000})
	appendN(t, tp, 5, func(i int) *Record { return rec(100 + i) })
	tp.Close()
	mustVerify(t, path, 45-cur+1)
	if got, err := Query(path, Filter{Rule: rule.TapeReanchored}); err != nil || len(got) != 1 || !strings.Contains(got[0].Reason, "cut from the end") {
		t.Errorf("reanchor records: %+v, %v", got, err)
	}
}

func TestRotationAfterCrash(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tape.jsonl")
	tp := openT(t, path, Options{RotateBytes: 600})
	appendN(t, tp, 10, rec)
	tp.Close()
	// A crash between renaming the current file and creating the next.
	files, _ := rotated(path)
	for i := range files {
		n := rotatedNumber(path, files[i])
		os.Rename(files[i], fmt.Sprintf("%s.%d", path, n+2)) // leaves a gap
	}
	os.Rename(path, path+".1")
	mustVerify(t, path, 10)
	tp = openT(t, path, Options{RotateBytes: 600})
	appendN(t, tp, 10, func(i int) *Record { return rec(10 + i) })
	tp.Close()
	mustVerify(t, path, 20)
}

func TestVerifyNamesFirstBrokenLine(t *testing.T) {
	setup := func(t *testing.T) (string, [][]byte) {
		path := filepath.Join(t.TempDir(), "tape.jsonl")
		tp := openT(t, path, Options{Sync: SyncNone})
		appendN(t, tp, 10, rec)
		tp.Close()
		return path, lines(t, path)
	}
	cases := []struct {
		name   string
		damage func([][]byte) [][]byte
		line   int
		why    string
	}{
		{"edited", func(ls [][]byte) [][]byte {
			ls[4] = bytes.Replace(ls[4], []byte(`"allow"`), []byte(`"deny"`), 1)
			return ls
		}, 6, "line 5 of tape.jsonl hashes to"},
		{"deleted", func(ls [][]byte) [][]byte { return append(ls[:4:4], ls[5:]...) }, 5, "prev is"},
		{"reordered", func(ls [][]byte) [][]byte { ls[3], ls[4] = ls[4], ls[3]; return ls }, 4, "prev is"},
		{"first deleted", func(ls [][]byte) [][]byte { return ls[1:] }, 1, "starts in the middle"},
		{"prev removed", func(ls [][]byte) [][]byte {
			ls[2] = append(bytes.Split(ls[2], []byte(`,"prev"`))[0], "}\n"...)
			return ls
		}, 3, "no prev field"},
		{"not json", func(ls [][]byte) [][]byte { ls[6] = []byte("hello\n"); return ls }, 7, "not a JSON object"},
		{"empty line", func(ls [][]byte) [][]byte { ls[6] = []byte("\n"); return ls }, 7, "empty line"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path, ls := setup(t)
			writeFile(t, path, bytes.Join(c.damage(ls), nil))
			_, err := Verify(path)
			var be *BrokenError
			if !errors.As(err, &be) {
				t.Fatalf("Verify = %v, want a *BrokenError", err)
			}
			if be.File != path || be.Line != c.line || !strings.Contains(be.Why, c.why) {
				t.Errorf("Verify = %v, want line %d and %q", be, c.line, c.why)
			}
		})
	}
	// Across files: an edit in a rotated file names that file.
	path := filepath.Join(t.TempDir(), "tape.jsonl")
	tp := openT(t, path, Options{RotateBytes: 1000, Sync: SyncNone})
	appendN(t, tp, 20, rec)
	tp.Close()
	files, _ := rotated(path)
	ls := lines(t, files[0])
	ls[1] = bytes.Replace(ls[1], []byte(`"r1"`), []byte(`"r9"`), 1)
	writeFile(t, files[0], bytes.Join(ls, nil))
	_, err := Verify(path)
	var be *BrokenError
	if !errors.As(err, &be) || be.File != files[0] || be.Line != 3 {
		t.Errorf("Verify = %v, want %s line 3", err, files[0])
	}
}

// Two Tapes on one path (as two editor windows have) keep one chain.
func TestTwoWritersShareTape(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tape.jsonl")
	a := openT(t, path, Options{RotateBytes: 8000})
	b := openT(t, path, Options{RotateBytes: 8000, Sync: SyncNone})
	var wg sync.WaitGroup
	for w := range 8 {
		tp := a
		if w%2 == 1 {
			tp = b
		}
		wg.Go(func() {
			for i := range 50 {
				if err := tp.Append(context.Background(), &Record{ID: fmt.Sprintf("%d-%d", w, i)}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	a.Close()
	b.Close()
	mustVerify(t, path, 400)
	files, _ := rotated(path)
	if len(files) == 0 {
		t.Error("no rotation happened")
	}
}

// Query with a Limit reads backwards; it must agree with reading forwards
// across files, chunk boundaries and long lines.
func TestQueryBackwards(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tape.jsonl")
	tp := openT(t, path, Options{RotateBytes: 80 << 10, Sync: SyncNone})
	for i := range 1200 {
		r := rec(i)
		r.Tool = []string{"bash", "edit"}[i%2]
		r.Reason = strings.Repeat("z", (i*37)%700)
		if i%200 == 7 {
			r.Command = strings.Repeat("c", 6000)       // lines longer than usual
			r.Args = json.RawMessage(`{"tool":"edit"}`) // prefilter bait
		}
		if err := tp.Append(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	tp.Close()
	if files, _ := rotated(path); len(files) < 3 {
		t.Fatalf("want several files, have %d", len(files))
	}
	all, err := Query(path, Filter{})
	if err != nil || len(all) != 1200 {
		t.Fatalf("Query: %d, %v", len(all), err)
	}
	for _, chunk := range []int{backChunk, 1000, 4096} {
		backChunk = chunk
		checkLimits(t, path, all)
	}
	backChunk = 256 << 10
	// A broken line is named, with its line number, also backwards.
	ls := lines(t, path)
	ls[len(ls)-3] = []byte("{broken\n")
	writeFile(t, path, bytes.Join(ls, nil))
	_, err = Query(path, Filter{Limit: 10})
	var be *BrokenError
	if !errors.As(err, &be) || be.File != path || be.Line != len(ls)-2 {
		t.Errorf("Query of a broken tape = %v, want line %d", err, len(ls)-2)
	}
}

func checkLimits(t *testing.T, path string, all []Record) {
	t.Helper()
	for _, f := range []Filter{{Limit: 1}, {Limit: 333}, {Limit: 1199}, {Limit: 1200}, {Limit: 5000}, {Limit: 40, Tool: "bash"}, {Limit: 500, Tool: "edit"}} {
		got, err := Query(path, f)
		if err != nil {
			t.Fatal(err)
		}
		var want []Record
		for _, r := range all {
			if f.match(&r) {
				want = append(want, r)
			}
		}
		want = want[max(0, len(want)-f.Limit):]
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Query(%+v): %d records, want %d (first %s, want %s)", f, len(got), len(want), got[0].ID, want[0].ID)
		}
	}
}

// Readers run beside a writer that rotates often: each sees a consistent
// tape (no file missed or read twice in the middle of a rotation).
func TestReadWhileWriting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tape.jsonl")
	tp := openT(t, path, Options{RotateBytes: 4000, Sync: SyncNone})
	appendN(t, tp, 1, rec)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 1000 { // bounded: each Verify reads it all
				select {
				case <-stop:
					return
				default:
				}
				if err := tp.Append(context.Background(), &Record{ID: fmt.Sprintf("%d-%d", w, i)}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	last := 0
	for range 30 {
		n, err := Verify(path)
		if err != nil {
			t.Fatalf("Verify beside a writer: %v", err)
		}
		if n < last {
			t.Fatalf("Verify saw %d records after %d", n, last)
		}
		last = n
		if _, err := Query(path, Filter{Limit: 20}); err != nil {
			t.Fatalf("Query beside a writer: %v", err)
		}
	}
	close(stop)
	wg.Wait()
	files, _ := rotated(path)
	t.Logf("%d records in %d files", last, len(files)+1)
}

// TestRecordBytes pins the exact line of a record whose vocabulary fields
// (mode, verdict, rule, decidedBy) are set, so that typing those fields
// cannot change a byte of what is taped or hashed.
func TestRecordBytes(t *testing.T) {
	code, ok := 0, false
	r := Record{
		Time: time.Date(2026, 11, 30, 5, 0, 0, 5, time.UTC), ID: "c-9", Session: "s", Mode: "enforce",
		Verdict: "deny", Allowed: false, Rule: "stale-observation", Reason: "the file changed", Tool: "Edit",
		Kind: "write", Targets: []string{"/w/a.go"}, DecidedBy: "timeout", AskedAt: time.Date(2026, 11, 30, 5, 0, 1, 0, time.UTC),
		WaitedMs: 60000, ExitCode: &code, Verified: &ok, Detail: "d",
	}
	want := `{"time":"2026-11-30T05:00:00.000000005Z","id":"c-9","session":"s","mode":"enforce","verdict":"deny","allowed":false,` +
		`"rule":"stale-observation","reason":"the file changed","tool":"Edit","kind":"write","targets":["/w/a.go"],` +
		`"decidedBy":"timeout","askedAt":"2026-11-30T05:00:01Z","waitedMs":60000,"exitCode":0,"verified":false,"detail":"d"}`
	if got := string(appendBody(nil, &r)); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	var back Record
	if err := json.Unmarshal([]byte(want), &back); err != nil {
		t.Fatal(err)
	}
	if back.Mode != r.Mode || back.Verdict != r.Verdict || back.Rule != r.Rule || back.DecidedBy != r.DecidedBy {
		t.Fatalf("read back %+v", back)
	}
}

// TestFactsCompact: facts its maker says are compact go on the line as
// they are, the same bytes the compacting path gives them; facts past
// MaxFacts are still replaced by their length.
func TestFactsCompact(t *testing.T) {
	facts := json.RawMessage(`{"v":1,"roots":["/w"],"rule":"read-allowed","resolve":{"/w/a":{"p":"/w/a","e":true}}}`)
	for _, f := range []json.RawMessage{facts, json.RawMessage(`{"v":1,"x":"` + strings.Repeat("a", MaxFacts) + `"}`)} {
		r := Record{Time: time.Unix(0, 0), Facts: f}
		want := appendBody(nil, &r)
		r.FactsCompact = true
		if got := appendBody(nil, &r); !bytes.Equal(got, want) {
			t.Errorf("compact facts:\n got %.200s\nwant %.200s", got, want)
		}
	}
}

// giveBack gives the flock back now as a lease's end does, whatever is left of the lease.
func (t *Tape) giveBack() {
	t.commit.Lock()
	defer t.commit.Unlock()
	t.w.unlock()
}

// TestArgsJSONAsTheyStand: arguments the gate read as JSON go on the line
// as they stand; with a line break among them, or not known to be JSON,
// they are compacted (or marked invalid), so a line stays one valid line.
func TestArgsJSONAsTheyStand(t *testing.T) {
	for _, c := range []struct {
		args  string
		known bool
		want  string
	}{
		{`{"file_path": "a b"}`, true, `{"file_path": "a b"}`},
		{"{\"file_path\":\n\"a\"}", true, `{"file_path":"a"}`},
		{"{\"a\":\r\n1}", true, `{"a":1}`},
		{`{"file_path": "a"}`, false, `{"file_path":"a"}`},
		{`{not json`, false, `{"invalid":9}`},
		{``, true, ``},
	} {
		line, err := Encode(&Record{Tool: "Read", Args: json.RawMessage(c.args), ArgsJSON: c.known})
		if err != nil {
			t.Fatal(err)
		}
		var r Record
		if err := json.Unmarshal(line, &r); err != nil || bytes.ContainsAny(line, "\r\n") {
			t.Fatalf("args %q: line %q is not one JSON line: %v", c.args, line, err)
		}
		if string(r.Args) != c.want {
			t.Errorf("args %q (known JSON %v): on the line %s, want %s", c.args, c.known, r.Args, c.want)
		}
	}
}
