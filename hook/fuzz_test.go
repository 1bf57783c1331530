package hook

import "testing"

// FuzzAdapters feeds any bytes to every adapter. Whatever they are, the
// adapter does not panic; an event it cannot read is refused, and the
// refusal is read by the host as a deny; an event it reads maps to calls
// with a tool, and a refused decision is read as a deny.
func FuzzAdapters(f *testing.F) {
	for _, name := range Names() {
		for _, x := range fixtures(f, name) {
			f.Add(x.data, x.event)
		}
	}
	for _, x := range fixtures(f, "bad") {
		f.Add(x.data, "")
	}
	f.Fuzz(func(t *testing.T, data []byte, event string) {
		for _, name := range Names() {
			a, _ := Lookup(name)
			ev, err := a.Parse(data, event)
			if err != nil {
				if r := a.Failure(ev, err.Error()); hostReads(ev, r) != hostDeny {
					t.Fatalf("%s: the failure for %q is read as %s: %+v", name, err, hostReads(ev, r), r)
				}
				continue
			}
			calls, err := a.Map(ev)
			if err != nil {
				if r := a.Failure(ev, err.Error()); hostReads(ev, r) != hostDeny {
					t.Fatalf("%s: the failure for %q is read as %s", name, err, hostReads(ev, r))
				}
				continue
			}
			for _, c := range calls {
				if c.Tool == "" || c.Context == nil {
					t.Fatalf("%s: a call without a tool or context: %+v", name, c)
				}
			}
			if r := a.Answer(ev, denyD); hostReads(ev, r) != hostDeny {
				t.Fatalf("%s: a refusal of %s is read as %s: %+v", name, ev.Tool, hostReads(ev, r), r)
			}
			if r := a.Answer(ev, allowD); hostReads(ev, r) == hostDeny {
				t.Fatalf("%s: an allow of %s is read as a deny: %+v", name, ev.Tool, r)
			}
			if a.CanRewrite(ev) {
				if r := a.Answer(ev, rewriteD); hostReads(ev, r) != hostAllow {
					t.Fatalf("%s: a rewrite of %s is read as %s: %+v", name, ev.Tool, hostReads(ev, r), r)
				}
			}
		}
	})
}

// TestCrashBlocks: what each host does when the configured admit is
// missing (the shell exits 127 with its complaint) is what the adapter's
// CrashBlocks says.
func TestCrashBlocks(t *testing.T) {
	crash := Reply{Exit: 127, Stderr: "/bin/sh: 1: /opt/admit/bin/admit: not found"}
	for _, name := range Names() {
		a, _ := Lookup(name)
		ev := mustParse(t, a, fixtures(t, name)[0])
		got := hostReads(ev, crash) == hostDeny
		if got != a.CrashBlocks {
			t.Errorf("%s: a missing binary is read as %s, but CrashBlocks is %v", name, hostReads(ev, crash), a.CrashBlocks)
		}
	}
}
