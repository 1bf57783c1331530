package command

import (
	"fmt"
	"strconv"
	"strings"

	"admit/policy/rule"
)

// dd copies if= (standard input without it) to of= (standard output
// without it), in blocks; its operands are KEY=VALUE words. if= is a
// read and of= a write, judged as any read and write target (outside,
// protected, a device, unobserved); a read of an endless device is
// bounded only by count= blocks of ibs=/bs= bytes (ddBytes), as head -c
// bounds one (devices.go). Every other operand is a number or a list of
// known flags; anything else is refused, since dd's flags change what it
// opens (iflag=directory) and how.
func (j *judge) dd(w *words) {
	for _, op := range w.ops {
		key, val, ok := strings.Cut(op, "=")
		if !ok {
			j.refuse(rule.ForbiddenFlag, fmt.Sprintf("dd operand %q is not KEY=VALUE; dd takes if=, of=, bs=, count=, ...", op), "")
			return
		}
		switch key {
		case "if":
			w.add(access{word: val, what: "input (if=)", mode: modeRead})
		case "of":
			w.add(access{word: val, what: "output (of=)", mode: modeWrite, op: OpChange})
		case "bs", "ibs", "obs", "cbs", "count", "skip", "seek", "iseek", "oseek":
			if _, ok := ddNumber(val); !ok {
				j.refuse(rule.ForbiddenFlag, fmt.Sprintf("dd %s=%q is not a number dd reads (digits with c, w, b, K, M, kB, MB, ... or NxM)", key, val), "")
				return
			}
		case "conv", "iflag", "oflag":
			for _, f := range strings.Split(val, ",") {
				if !ddFlags[key][f] {
					j.refuse(rule.ForbiddenFlag, fmt.Sprintf("dd %s=%q: %q is not one of the flags admit accepts for %s", key, val, f, key), "")
					return
				}
			}
		case "status":
			if val != "none" && val != "noxfer" && val != "progress" {
				j.refuse(rule.ForbiddenFlag, fmt.Sprintf("dd status=%q is not none, noxfer or progress", val), "")
				return
			}
		default:
			j.refuse(rule.ForbiddenFlag, fmt.Sprintf("dd operand %q is not one dd takes (if, of, bs, ibs, obs, cbs, count, skip, seek, conv, iflag, oflag, status)", key), "")
			return
		}
	}
}

// ddFlags are the values conv=, iflag= and oflag= take (GNU coreutils);
// none opens another file or runs anything.
var ddFlags = map[string]map[string]bool{
	"conv":  setOf("ascii ebcdic ibm block unblock lcase ucase sparse swab sync excl nocreat notrunc noerror fdatasync fsync"),
	"iflag": setOf("append direct directory dsync sync fullblock nonblock noatime nocache noctty nofollow count_bytes skip_bytes binary text"),
	"oflag": setOf("append direct directory dsync sync nonblock noatime nocache noctty nofollow seek_bytes binary text"),
}

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// ddBytes is the most a dd command (argv as judged) reads, ok false for
// any other command or a dd without count=, which reads to the end. It
// takes the largest of repeated operands (dd implementations differ on
// which one counts) and of bs= and ibs=, so it never says less than dd
// reads: count blocks of the input block size (512 without bs= or ibs=),
// or count bytes with iflag=count_bytes.
func ddBytes(argv []string) (int64, bool) {
	if len(argv) == 0 || argv[0] != "dd" {
		return 0, false
	}
	var count, block int64 = -1, -1
	bytes := false
	for _, a := range argv[1:] {
		key, val, _ := strings.Cut(a, "=")
		switch key {
		case "count", "bs", "ibs":
			n, ok := ddNumber(val)
			if !ok {
				return 0, false
			}
			if key == "count" {
				count = max(count, n)
			} else {
				block = max(block, n)
			}
		case "iflag":
			for _, f := range strings.Split(val, ",") {
				bytes = bytes || f == "count_bytes"
			}
		}
	}
	if count < 0 {
		return 0, false
	}
	if block < 0 {
		block = 512
	}
	if bytes {
		return count, true
	}
	if block > 0 && count > maxDeviceRead*2/block {
		return maxDeviceRead * 2, true // over the bound, without overflow
	}
	return count * block, true
}

// ddNumber reads one of dd's numbers: digits with an optional multiplier
// (c 1, w 2, b 512, kB 1000, K/KiB 1024, MB, M/MiB, GB, G/GiB, ... up to
// E), or a product of such numbers joined by "x". Past 2^40 it is not
// read (no bound admit needs is that large).
func ddNumber(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	product := int64(1)
	for _, part := range strings.Split(s, "x") {
		i := 0
		for i < len(part) && part[i] >= '0' && part[i] <= '9' {
			i++
		}
		if i == 0 {
			return 0, false
		}
		n, err := strconv.ParseInt(part[:i], 10, 64)
		if err != nil {
			return 0, false
		}
		mult, ok := ddSuffix[part[i:]]
		if !ok {
			return 0, false
		}
		const ceiling = 1 << 40
		if n > ceiling/mult {
			return 0, false
		}
		v := n * mult
		if v != 0 && product > ceiling/v {
			return 0, false
		}
		product *= v
	}
	return product, true
}

// ddSuffix are dd's multipliers up to T (larger ones are past any bound).
var ddSuffix = map[string]int64{
	"": 1, "c": 1, "w": 2, "b": 512,
	"kB": 1000, "K": 1 << 10, "KiB": 1 << 10, "k": 1 << 10,
	"MB": 1000 * 1000, "M": 1 << 20, "MiB": 1 << 20,
	"GB": 1000 * 1000 * 1000, "G": 1 << 30, "GiB": 1 << 30,
	"TB": 1000 * 1000 * 1000 * 1000, "T": 1 << 40, "TiB": 1 << 40,
}
