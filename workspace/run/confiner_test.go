//go:build linux

package run

import (
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestUnescapeMount(t *testing.T) {
	for in, want := range map[string]string{
		`/mnt/a\040b`: "/mnt/a b",
		`/x\011y`:     "/x\ty",
		`/back\134`:   `/back\`,
		`/plain`:      "/plain",
		`/bad\09`:     `/bad\09`,
		`/end\04`:     `/end\04`,
	} {
		if got := unescapeMount(in); got != want {
			t.Errorf("unescapeMount(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzUnescapeMount: mountinfo's escapes never grow a path, a path
// without a backslash is left as it is, and nothing panics.
func FuzzUnescapeMount(f *testing.F) {
	for _, s := range []string{`/mnt/a\040b`, `\`, `\0`, `\777`, `/a\134\040`, ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := unescapeMount(s)
		if len(got) > len(s) {
			t.Fatalf("%q grew to %q", s, got)
		}
		if !strings.Contains(s, `\`) && got != s {
			t.Fatalf("%q changed to %q", s, got)
		}
	})
}

// TestMountPoints reads this process's mountinfo: the root is listed.
func TestMountPoints(t *testing.T) {
	points, err := mountPoints()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range points {
		if p.path == "/" {
			return
		}
	}
	t.Fatalf("no / in %v", points)
}

// TestSeccompFilterAssembles: every jump of the filter lands, for each
// combination of options.
func TestSeccompFilterAssembles(t *testing.T) {
	for _, o := range []filterOptions{{}, {DenyInet: true}, {DenyTruncate: true}, {DenyInet: true, DenyTruncate: true}} {
		prog, err := buildFilter(o)
		if seccompArch == 0 {
			if err == nil {
				t.Fatal("a filter for an architecture without one")
			}
			continue
		}
		if err != nil || len(prog) == 0 || len(prog) > 255 {
			t.Fatalf("%+v: %d instructions, %v", o, len(prog), err)
		}
		for i, ins := range prog {
			if ins.Code&0x07 != unix.BPF_JMP {
				continue
			}
			if int(ins.Jt)+i+1 >= len(prog) || int(ins.Jf)+i+1 >= len(prog) {
				t.Fatalf("%+v: instruction %d jumps past the end", o, i)
			}
		}
	}
}
