package facts

import (
	"encoding/json"
	"testing"

	"admit/policy/command"
)

// searchFS is gitFS with a one-call PATH search that knows /bin.
type searchFS struct{ gitFS }

func (f searchFS) SearchPath(dir, name string) (string, command.Resolved, bool) {
	if dir != "/bin" {
		return "", command.Resolved{}, false
	}
	r, err := f.Resolve(dir + "/" + name)
	return dir, r, err == nil
}

// TestSearchPathRoundTrip: a search is recorded with the folder's
// resolution and the name's answer, replayed from them through the
// tape's JSON; a search the record does not hold declines, so the policy
// resolves as it did before searches (and an old tape replays as before).
func TestSearchPathRoundTrip(t *testing.T) {
	cat := command.Resolved{Path: "/bin/cat", Exists: true, Mode: 0o755, Links: 1}
	live := &fakeFS{res: map[string]command.Resolved{"/bin/cat": cat}}
	r := NewRecorder(searchFS{gitFS{live}}, nil)
	s, ok := r.FS().(pathSearcher)
	if !ok {
		t.Fatal("the recording FS hides SearchPath")
	}
	if canon, got, ok := s.SearchPath("/bin", "cat"); !ok || canon != "/bin" || got != cat {
		t.Fatalf("SearchPath = %q %+v %v", canon, got, ok)
	}
	if _, _, ok := s.SearchPath("/usr/bin", "cat"); ok {
		t.Fatal("a declined search answered")
	}
	b, err := json.Marshal(r.Facts(Facts{}))
	if err != nil {
		t.Fatal(err)
	}
	var f Facts
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	rep := NewReplay(&f)
	rs := rep.FS().(pathSearcher)
	if canon, got, ok := rs.SearchPath("/bin", "cat"); !ok || canon != "/bin" || got != cat {
		t.Errorf("replayed SearchPath = %q %+v %v", canon, got, ok)
	}
	if _, _, ok := rs.SearchPath("/usr/bin", "cat"); ok {
		t.Error("replay answered a search not recorded")
	}
	if m := rep.Missing(); len(m) != 0 {
		t.Errorf("missing %v", m)
	}
	// A recorder over an FS without the search declines and keeps nothing.
	plain := NewRecorder(gitFS{live}, nil)
	if _, _, ok := plain.FS().(pathSearcher).SearchPath("/bin", "cat"); ok {
		t.Error("a recorder over an FS without SearchPath answered one")
	}
	if got := plain.Facts(Facts{}); got.PathDirs != nil || got.Resolve != nil {
		t.Errorf("recorded %v %v", got.PathDirs, got.Resolve)
	}
	// The encoder writes what json.Marshal does.
	enc, err := r.AppendJSON(nil, &Facts{})
	if err != nil {
		t.Fatal(err)
	}
	if string(enc) != string(b) {
		t.Errorf("AppendJSON %s\njson.Marshal %s", enc, b)
	}
}
