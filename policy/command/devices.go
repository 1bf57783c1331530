package command

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"admit/policy/rule"
)

// Endless input (docs/policy-programs.md, "Devices"): /dev/zero,
// /dev/random, /dev/urandom and /dev/full never end. A command that
// reads one runs until stopped (sha256sum /dev/zero, sort /dev/zero
// grows until memory runs out), fills the disk when it copies it into a
// file (cp /dev/zero big.bin), or the model's context when it prints it
// (cat /dev/urandom). A read of one is allowed only where the reader
// bounds it to a small size before anything else reads it: head -c N,
// od -N N or hexdump -n N with N at most maxDeviceRead, dd with count=
// blocks that come to no more (dd.go); sort's and shuf's --random-source take
// only the random bytes they need. Other spellings of the devices (a
// symlink, /proc/self/fd/N, /dev/fd/N) and /dev/full resolve outside the
// workspace and are refused as such.

// maxDeviceRead bounds the bytes head -c may take from an endless
// device: a key, a nonce or a test fixture, not a disk's worth.
const maxDeviceRead = 1 << 20

// endlessDevice reports the devices that never end.
func endlessDevice(abs string) bool {
	switch cleanPath(abs) {
	case "/dev/zero", "/dev/random", "/dev/urandom", "/dev/full":
		return true
	}
	return false
}

// endlessRead judges a read of an endless device by the command being
// judged (j.cur): it reports whether the read is bounded, and refuses it
// otherwise.
func (j *judge) endlessRead(prog, word string) bool {
	if n, ok := j.readBound(j.cur); ok && n <= maxDeviceRead {
		return true
	}
	if n, ok := ddBytes(j.cur); ok && n <= maxDeviceRead {
		return true
	}
	j.refuse(rule.EndlessInput, fmt.Sprintf("%s would read %q, a device that never ends, with nothing on the line bounding it to a small size: it would run until stopped, or fill the disk or the output", prog, word),
		"bound the read where it starts: head -c 32 "+word+" | base64, od -An -N4 "+word+", or dd if="+word+" bs=32 count=1 (at most 1 MiB)")
	return false
}

// byteBounds are the readers an option bounds to a count of bytes: the
// option's names and, for head, those of the option that counts lines
// instead (the later of the two counts).
// head bounds each file it reads, od and hexdump all of them together.
var byteBounds = map[string]struct {
	bytes, lines string
	perFile      bool
}{
	"head":    {bytes: "-c --bytes", lines: "-n --lines", perFile: true},
	"od":      {bytes: "-N --read-bytes"},
	"hexdump": {bytes: "-n --length"},
}

// readBound is the most a reader (argv as judged, wrappers seen through)
// takes from its inputs by its byte-count option, ok false for a command
// with none. The options are split as the program table splits them, as
// the program does: a cluster (-qc 1G), a long option's prefix
// (--by=1G) and the last of repeated counts are read as the program
// reads them, so a small count written first bounds nothing.
func (j *judge) readBound(argv []string) (int64, bool) {
	if len(argv) == 0 {
		return 0, false
	}
	b, ok := byteBounds[argv[0]]
	prog := j.p.progs[argv[0]]
	if !ok || prog == nil {
		return 0, false
	}
	ps, err := parseArgs(prog, argv[1:], false)
	if err != nil {
		return 0, false
	}
	count, found := "", false
	for _, u := range ps.opts {
		switch {
		case hasField(b.bytes, u.name):
			count, found = u.value, true
		case b.lines != "" && (hasField(b.lines, u.name) || u.opt == nil):
			found = false // a count of lines (-n N, -N), which /dev/zero never ends
		}
	}
	if !found {
		return 0, false // head alone prints ten lines; od and hexdump read to the end
	}
	n, ok := byteCount(count)
	if !ok || !b.perFile {
		return n, ok
	}
	return n * int64(max(1, len(ps.operands))), true
}

// byteCount reads head's count: digits with an optional multiplier (b
// 512, K/KiB 1024, KB 1000, M, MB, G, ...); a leading "-" (all but the
// last N) or "+" is no bound.
func byteCount(s string) (int64, bool) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		return 0, false
	}
	mult := int64(1)
	switch suffix := s[i:]; suffix {
	case "":
	case "b":
		mult = 512
	case "K", "KiB", "k":
		mult = 1 << 10
	case "KB", "kB":
		mult = 1000
	case "M", "MiB":
		mult = 1 << 20
	case "MB":
		mult = 1000 * 1000
	default:
		return 0, false // G and beyond, or a spelling head does not take: no small bound
	}
	if n > maxDeviceRead*2 {
		return n, true // over the bound whatever the multiplier
	}
	return n * mult, true
}

// maxSeqLines bounds the lines seq may print: a test's fixture or a
// loop's range, not an output or a file without end (seq inf, seq 1e18
// > f fills the disk).
const maxSeqLines = 10_000_000

// seq judges seq FIRST [INCR] LAST by the count of lines it prints: more
// than maxSeqLines, no end (inf, a zero or wrong-signed step on
// implementations that loop), or a number it cannot read is refused.
func (j *judge) seq(w *words) {
	var nums []float64
	args := j.cur[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-f" || a == "-s" || a == "--format" || a == "--separator":
			i++
			continue
		case strings.HasPrefix(a, "--") || len(a) > 1 && a[0] == '-' && (a[1] < '0' || a[1] > '9') && a[1] != '.':
			continue // -w, -fFMT, --format=FMT
		}
		n, err := strconv.ParseFloat(a, 64)
		if err != nil {
			j.refuse(rule.EndlessInput, fmt.Sprintf("seq: %q is not a number the policy can read, so how many lines seq prints is not known", a), "give seq plain decimal numbers")
			return
		}
		nums = append(nums, n)
	}
	first, incr, last := 1.0, 1.0, 0.0
	switch len(nums) {
	case 1:
		last = nums[0]
	case 2:
		first, last = nums[0], nums[1]
	case 3:
		first, incr, last = nums[0], nums[1], nums[2]
	default:
		return // seq's own usage error
	}
	lines := math.Floor((last-first)/incr) + 1
	if incr == 0 || math.IsNaN(lines) || math.IsInf(lines, 0) || lines > maxSeqLines {
		j.refuse(rule.EndlessInput, fmt.Sprintf("seq %s would print %s lines, with no small end: it would run until stopped, or fill the disk or the output", strings.Join(args, " "), seqCount(lines, incr)),
			fmt.Sprintf("print at most %d lines (seq 1 1000)", maxSeqLines))
	}
}

func seqCount(lines, incr float64) string {
	if incr == 0 || math.IsNaN(lines) || math.IsInf(lines, 0) {
		return "endless"
	}
	return strconv.FormatFloat(lines, 'g', 3, 64)
}
