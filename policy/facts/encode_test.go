package facts

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"admit/policy/command"
)

// TestAppendJSONIsMarshal: AppendJSON gives json.Marshal's bytes, for
// facts empty and full, strings that need escaping, nil and empty lists
// and maps, and many made at random.
func TestAppendJSONIsMarshal(t *testing.T) {
	odd := []string{"", "a", "/w/src/main.go", `q"uote\back`, "<tag>&amp;", "tab\tnl\ncr\rbs\bff\f", "\x00\x01\x1f\x7f",
		"caf\u00e9 \u2028 \u2029 \U0001F600", "bad\xffutf8\xc3", "line\u2028sep"}
	r := rand.New(rand.NewPCG(21, 1))
	pick := func() string { return odd[r.IntN(len(odd))] }
	list := func() []string {
		switch r.IntN(4) {
		case 0:
			return nil
		case 1:
			return []string{}
		}
		out := make([]string, 1+r.IntN(3))
		for i := range out {
			out[i] = pick()
		}
		return out
	}
	keys := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = pick() + string(rune('a'+r.IntN(26)))
		}
		return out
	}
	cases := []Facts{{}, {V: Version, Roots: []string{}}, {Session: json.RawMessage(` { "a" : "<b>" , "c":[1, 2] } `)}}
	for range 400 {
		f := Facts{V: r.IntN(3), Roots: list(), Effects: pick(), Profile: pick(), Home: pick(), Cwd: pick(), Argv: list(), Line: r.IntN(2) == 0,
			Path: list(), PathKnown: r.IntN(2) == 0, SecretValues: list(), Background: r.IntN(2) == 0, Terminal: r.IntN(2) == 0, AdmitRuns: r.IntN(2) == 0,
			MaxRequestChars: int64(r.IntN(3) * 1000), Budget: pick(), InFlux: list(), ConfinedOK: r.IntN(2) == 0, Tainted: pick(), OneCall: r.IntN(2) == 0,
			Tracked: r.IntN(2) == 0, Pinned: r.IntN(2) == 0, AmendRule: pick(), AmendWhy: pick(), Rule: pick(), Outcome: pick(), Before: pick()}
		if r.IntN(3) == 0 {
			f.Session = json.RawMessage(`{"effects":"read-only","tools":["Read","<x>"]}`)
		}
		if n := r.IntN(12); n > 0 {
			f.Resolve, f.Links, f.Split, f.Options = map[string]Resolved{}, map[string][]string{}, map[string][]string{}, map[string][]string{}
			f.GitExec, f.GitConfig, f.ReadDir, f.Remotes = map[string]string{}, map[string][]string{}, map[string]Dir{}, map[string]*[]string{}
			f.WriteExec, f.ObsFile, f.ObsDir, f.Creds = map[string]string{}, map[string]ObsAnswer{}, map[string]bool{}, map[string]*[]string{}
			for _, k := range keys(n) {
				f.Resolve[k] = Resolved{Path: pick(), Exists: r.IntN(2) == 0, Dir: r.IntN(2) == 0, Mode: uint32(r.IntN(3)) * 0o40755, Links: uint64(r.IntN(3)), Err: pick()}
				f.Links[k], f.Split[k], f.Options[k], f.GitConfig[k] = list(), list(), list(), list()
				f.GitExec[k], f.WriteExec[k] = pick(), pick()
				f.ReadDir[k] = Dir{Names: list(), Modes: []uint32{0, 0o20000000000}[:r.IntN(3)], Err: pick(), Kind: pick()}
				if l := list(); l != nil || r.IntN(2) == 0 {
					f.Remotes[k] = &l
				} else {
					f.Remotes[k] = nil
				}
				if l := list(); l != nil || r.IntN(2) == 0 {
					f.Creds[k] = &l
				} else {
					f.Creds[k] = nil
				}
				f.ObsFile[k], f.ObsDir[k] = r.IntN(4)-1, r.IntN(2) == 0
			}
		} else if r.IntN(2) == 0 {
			f.Resolve = map[string]Resolved{} // empty, left out
		}
		cases = append(cases, f)
	}
	for _, f := range cases {
		want, err := json.Marshal(&f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := f.AppendJSON([]byte("prefix"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[len("prefix"):], want) {
			t.Fatalf("AppendJSON:\n got %s\nwant %s", got[len("prefix"):], want)
		}
	}
	bad := Facts{Session: json.RawMessage(`{"a":`)}
	if _, err := bad.AppendJSON(nil); err == nil {
		t.Error("AppendJSON of a session that is not JSON: no error")
	}
}

// TestRecorderAppendJSON: the recorder's own encoding is json.Marshal of
// Facts(base), for a few answers of each kind and for more than
// smallAnswered of one (the index), the first answer to a key kept.
func TestRecorderAppendJSON(t *testing.T) {
	for _, n := range []int{0, 1, 3, smallAnswered + 5} {
		live := &fakeFS{res: map[string]command.Resolved{}, dirs: map[string][]string{"/w": {"a", "b"}}}
		r := NewRecorder(gitFS{live}, fakeObs{"/w/a": command.Stale})
		fsys, obs := r.FS(), r.Obs()
		for i := n; i > 0; i-- { // asked out of order, and twice
			p := "/w/f" + string(rune('a'+i%26)) + "<" + string(rune('0'+i%10))
			live.res[p] = command.Resolved{Path: p, Exists: i%2 == 0, Mode: 0o644}
			fsys.Resolve(p)
			live.res[p] = command.Resolved{Path: p + "-later"}
			fsys.Resolve(p)
			fsys.LinksOutside(p)
			obs.File(p)
			obs.Dir(p)
		}
		if n > 0 {
			fsys.ReadDir("/w")
			fsys.ReadDir("/none")
			fsys.GitExec("/w")
			fsys.GitConfigFiles("/w")
			fsys.CargoExec("/w")
			fsys.(command.GitWrites).GitRemotes("/w")
			fsys.(command.GitWrites).GitWriteExec("/w", []string{"pre-commit"})
			fsys.SplitNames("/w")
			fsys.OptionNames("/w")
		}
		base := Facts{Roots: []string{"/w"}, Effects: "read-only", Cwd: "/w", Rule: "allowed", Outcome: "allow"}
		want, err := json.Marshal(r.Facts(base))
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.AppendJSON(nil, &base)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%d answers:\n got %s\nwant %s", n, got, want)
		}
		if again, _ := json.Marshal(r.Facts(base)); !bytes.Equal(again, want) {
			t.Errorf("%d answers: Facts changed after AppendJSON:\n%s\n%s", n, again, want)
		}
	}
}

// BenchmarkRecorderAppendJSON is a read's facts as the gate encodes them:
// the settings and one resolved path.
func BenchmarkRecorderAppendJSON(b *testing.B) {
	p := "/home/someone/src/project/README.md"
	live := &fakeFS{res: map[string]command.Resolved{p: {Path: p, Exists: true, Mode: 0o644, Links: 1}}}
	r := NewRecorder(live, nil)
	r.FS().Resolve(p)
	base := Facts{Roots: []string{"/home/someone/src/project"}, Effects: "read-only", Profile: "analyze", Cwd: "/home/someone/src/project",
		MaxRequestChars: 4096, Rule: "allowed", Outcome: "allow"}
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = r.AppendJSON(buf[:0], &base)
	}
	b.SetBytes(int64(len(buf)))
}
