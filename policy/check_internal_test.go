package policy

import "testing"

// TestBeneath is strings.CutPrefix(p, root+"/") with root's own trailing
// slash dropped, as secretOf read it before: the same answers, no string
// built.
func TestBeneath(t *testing.T) {
	for _, c := range []struct {
		p, root, rel string
		ok           bool
	}{
		{"/w/a.txt", "/w", "a.txt", true},
		{"/w/a.txt", "/w/", "a.txt", true},
		{"/w/sub/.env", "/w", "sub/.env", true},
		{"/w", "/w", "", false},
		{"/w/", "/w", "", true},
		{"/wx/a", "/w", "", false},
		{"/etc/passwd", "/", "etc/passwd", true},
		{"/", "/", "", true},
		{"", "/w", "", false},
		{"/v/a", "/w", "", false},
	} {
		rel, ok := beneath(c.p, c.root)
		want, wantOK := c.rel, c.ok
		if ok != wantOK || rel != want {
			t.Errorf("beneath(%q, %q) = %q, %v; want %q, %v", c.p, c.root, rel, ok, want, wantOK)
		}
	}
}
