package command

import (
	"strconv"
	"strings"
	"testing"
)

func TestDDNumber(t *testing.T) {
	for s, want := range map[string]int64{"1": 1, "32": 32, "2c": 2, "3w": 6, "1b": 512, "1K": 1024, "1kB": 1000, "1M": 1 << 20, "1MB": 1000000, "2x1M": 2 << 20, "1G": 1 << 30, "1T": 1 << 40} {
		if got, ok := ddNumber(s); !ok || got != want {
			t.Errorf("ddNumber(%q) = %d, %v; want %d", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "x", "1x", "x1", "1e9", "-1", "+1", "1Q", "2T", "9999999999999999999", "1M x1"} {
		if got, ok := ddNumber(s); ok {
			t.Errorf("ddNumber(%q) = %d, want no number", s, got)
		}
	}
}

func TestDDBytes(t *testing.T) {
	for line, want := range map[string]int64{
		"dd if=/dev/zero count=1":                     512,
		"dd if=/dev/zero count=2 bs=32":               64,
		"dd if=/dev/zero count=2 ibs=32 bs=64":        128, // the largest block size given
		"dd if=/dev/zero count=1 count=9 bs=1":        9,   // the largest count given
		"dd if=/dev/zero count=100 iflag=count_bytes": 100,
		"dd if=/dev/zero count=1T bs=1T":              2 * maxDeviceRead, // over the bound, no overflow
	} {
		got, ok := ddBytes(strings.Fields(line))
		if !ok || got != want {
			t.Errorf("%s: %d, %v; want %d", line, got, ok, want)
		}
	}
	for _, line := range []string{"dd if=/dev/zero", "dd if=/dev/zero bs=1", "head -c 1 /dev/zero", "dd count=x"} {
		if got, ok := ddBytes(strings.Fields(line)); ok {
			t.Errorf("%s: %d, want no bound", line, got)
		}
	}
}

// FuzzDDNumber: ddNumber never panics, never answers a negative or an
// oversized number, and reads a plain decimal as itself.
func FuzzDDNumber(f *testing.F) {
	for _, s := range []string{"1", "32", "1M", "2x1M", "1kB", "1T", "9999999999999999999", "1x1x1x1", "0", "b", "1xx2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := ddNumber(s)
		if ok && (n < 0 || n > 1<<40) {
			t.Fatalf("ddNumber(%q) = %d", s, n)
		}
		digits := strings.Trim(s, "0123456789") == ""
		if d, err := strconv.ParseInt(s, 10, 64); err == nil && digits && d <= 1<<40 && (!ok || n != d) {
			t.Fatalf("ddNumber(%q) = %d, %v; want %d", s, n, ok, d)
		}
	})
}
