package shell

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrFishOrder is returned by ExpandPatterns for a command that may run
// in fish (Command.SortedByFish) when a pattern matches a name whose place
// in fish's order is not certain here.
var ErrFishOrder = errors.New("shell: fish's order of the names a pattern matches is not known here")

// fishOrder is names (a pattern's matches, in bash's order: by bytes) as
// fish orders them, or nil when fish keeps bash's order. fish sorts them
// as names to be read by people: letters without regard to case, runs of
// digits as numbers, ties by bytes (README.md after notes.md, x9 before
// x10).
func fishOrder(names []string) ([]string, error) {
	same := true
	for i, n := range names {
		if !fishComparable(n) {
			return nil, fmt.Errorf("%w: %s has a byte outside ASCII or a number of more than %d digits", ErrFishOrder, n, maxFishDigits)
		}
		if i > 0 && fishCompare(names[i-1], n) > 0 {
			same = false
		}
	}
	if same {
		return nil, nil
	}
	sorted := slices.Clone(names)
	slices.SortFunc(sorted, fishCompare)
	return sorted, nil
}

// maxFishDigits bounds a run of digits fishCompare reads as a number: a
// longer one overflows fish's, which then compares otherwise.
const maxFishDigits = 18

// fishComparable reports whether fishCompare knows where fish puts
// name: it is ASCII (fish folds the case of every letter) and has no run
// of digits too long to be read as a number.
func fishComparable(name string) bool {
	run := 0
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c >= 0x80:
			return false
		case isDigit(c):
			run++
			if run > maxFishDigits {
				return false
			}
		default:
			run = 0
		}
	}
	return true
}

// fishCompare compares a and b (fishComparable) as fish orders a
// pattern's matches (its wcsfilecmp_glob).
func fishCompare(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if isDigit(a[i]) && isDigit(b[j]) {
			si, sj := i, j
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			na, nb := strings.TrimLeft(a[si:i], "0"), strings.TrimLeft(b[sj:j], "0")
			if len(na) != len(nb) {
				return cmp.Compare(len(na), len(nb))
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			continue
		}
		if la, lb := lowerASCII(a[i]), lowerASCII(b[j]); la != lb {
			return cmp.Compare(la, lb)
		}
		i, j = i+1, j+1
	}
	switch {
	case i < len(a):
		return 1 // b ran out first: it is the shorter
	case j < len(b):
		return -1
	}
	return strings.Compare(a, b)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
