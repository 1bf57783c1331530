package connect

import (
	"fmt"
	"strings"
)

// diffContext is the number of unchanged lines shown around a change, as
// diff -u shows them.
const diffContext = 3

// unifiedDiff is the change from before to after as `diff -u` prints it,
// with oldName and newName in the headers (/dev/null for a file created
// or removed). It is "" when nothing changed.
func unifiedDiff(oldName, newName string, before, after []byte) string {
	if string(before) == string(after) {
		return ""
	}
	a, b := splitLines(string(before)), splitLines(string(after))
	ops := diffLines(a, b)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", oldName, newName)
	// Group the edit script into hunks: changes with up to 2*context
	// unchanged lines between them share a hunk.
	type line struct {
		op   byte // ' ', '-', '+'
		text string
	}
	var lines []line
	for _, o := range ops {
		lines = append(lines, line{o.op, o.text})
	}
	i := 0
	for i < len(lines) {
		for i < len(lines) && lines[i].op == ' ' {
			i++
		}
		if i >= len(lines) {
			break
		}
		start := max(i-diffContext, 0)
		end := i
		for end < len(lines) {
			if lines[end].op != ' ' {
				end++
				continue
			}
			run := end
			for run < len(lines) && lines[run].op == ' ' {
				run++
			}
			if run == len(lines) || run-end > 2*diffContext {
				end = min(end+diffContext, len(lines))
				break
			}
			end = run
		}
		// Line numbers of the hunk in each file.
		oldStart, newStart := 1, 1
		for _, l := range lines[:start] {
			if l.op != '+' {
				oldStart++
			}
			if l.op != '-' {
				newStart++
			}
		}
		oldLen, newLen := 0, 0
		for _, l := range lines[start:end] {
			if l.op != '+' {
				oldLen++
			}
			if l.op != '-' {
				newLen++
			}
		}
		if oldLen == 0 {
			oldStart--
		}
		if newLen == 0 {
			newStart--
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(oldStart, oldLen), hunkRange(newStart, newLen))
		for _, l := range lines[start:end] {
			text, nl := strings.CutSuffix(l.text, "\n")
			out.WriteByte(l.op)
			out.WriteString(text)
			out.WriteByte('\n')
			if !nl {
				out.WriteString("\\ No newline at end of file\n")
			}
		}
		i = end
	}
	return out.String()
}

func hunkRange(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// splitLines cuts s into lines, each keeping its "\n" (the last may lack
// one).
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

type diffOp struct {
	op   byte
	text string
}

// diffLines is a shortest edit script from a to b (Myers' O(ND)
// algorithm), unchanged lines included. The common head and tail are cut
// first: a configuration change is a few lines in a long file.
func diffLines(a, b []string) []diffOp {
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	var ops []diffOp
	for _, l := range a[:head] {
		ops = append(ops, diffOp{' ', l})
	}
	ops = append(ops, myers(a[head:len(a)-tail], b[head:len(b)-tail])...)
	for _, l := range a[len(a)-tail:] {
		ops = append(ops, diffOp{' ', l})
	}
	return ops
}

func myers(a, b []string) []diffOp {
	n, m := len(a), len(b)
	maxD := n + m
	if maxD == 0 {
		return nil
	}
	off := maxD
	v := make([]int, 2*maxD+2)
	var trace [][]int
	for d := 0; d <= maxD; d++ {
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(a, b, trace, d, off)
			}
		}
	}
	panic("connect: no edit script")
}

// backtrack walks the saved frontiers back from (len(a), len(b)).
func backtrack(a, b []string, trace [][]int, d, off int) []diffOp {
	x, y := len(a), len(b)
	var rev []diffOp
	for ; d > 0; d-- {
		v := trace[d]
		k := x - y
		var prevK int
		if k == -d || k != d && v[off+k-1] < v[off+k+1] {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := v[off+prevK]
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			rev = append(rev, diffOp{' ', a[x-1]})
			x, y = x-1, y-1
		}
		if x == prevX {
			rev = append(rev, diffOp{'+', b[y-1]})
		} else {
			rev = append(rev, diffOp{'-', a[x-1]})
		}
		x, y = prevX, prevY
	}
	for x > 0 && y > 0 {
		rev = append(rev, diffOp{' ', a[x-1]})
		x, y = x-1, y-1
	}
	ops := make([]diffOp, len(rev))
	for i := range rev {
		ops[i] = rev[len(rev)-1-i]
	}
	return ops
}
