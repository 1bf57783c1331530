package command

import (
	"path"
	"strings"
)

// copy judges cp and mv: each source goes to the destination, or into it
// when it is a folder (-t DIR, several sources, an existing folder or one
// an earlier mkdir of the line makes, unless -T). mv's sources are writes too; cp's are reads.
func (j *judge) copy(w *words) {
	ps := &w.ps
	ops := w.ops
	var dest string
	destDir := false
	if u := ps.has("target"); u != nil {
		dest, destDir = u.value, true
	} else if len(ops) > 0 {
		dest, ops = ops[len(ops)-1], ops[:len(ops)-1]
	}
	if len(ops) == 0 {
		return // no-target in check
	}
	noTargetDir := hasName(ps, "-T") || hasName(ps, "--no-target-directory")
	if !noTargetDir && !destDir {
		if r, ok := j.quietResolve(dest); ok && (r.Exists && r.Dir || !r.Exists && j.madeFolder(r.Path)) {
			destDir = true
		}
		if len(ops) > 1 {
			destDir = true
		}
	}
	mv := w.prog.rules == "mv"
	// mv moves links and folders (whose relative links then lead
	// elsewhere); cp copies them when it does not dereference.
	relinks := mv || ps.has("recursive") != nil || hasName(ps, "-P") || hasName(ps, "-d") || hasName(ps, "--no-dereference")
	if ps.has("follow") != nil {
		relinks = mv
	}
	op, keep := copyIntent(mv, ps)
	for _, o := range ops {
		if mv {
			w.add(access{word: o, what: "source", mode: modeWrite, nofollow: true, target: true})
		} else {
			w.add(access{word: o, what: "source", mode: modeRead})
		}
		t := dest
		if destDir {
			t = intoFolder(dest, o)
		}
		dst := access{word: t, what: "destination", mode: modeWrite, target: true, op: op, keep: keep}
		if op != OpCreate {
			dst.from = o
		}
		w.add(dst)
		j.relabelsSecret(w.prog.Name, o, t)
		for _, b := range backupNames(ps, t) {
			w.add(access{word: b, what: "backup of the destination", mode: modeWrite, target: true})
		}
		if relinks {
			j.noteRelink(w.prog.Name, o, t)
		}
	}
	if !mv {
		w.follows(ops)
	}
}

// madeFolder reports whether an earlier command of the line makes the
// folder p (mkdir d && cp a d copies a into d).
func (j *judge) madeFolder(p string) bool {
	for _, in := range j.acc.intents {
		if in.Op == OpCreateDir && in.Cmd < j.cmd && in.Path == p {
			return true
		}
	}
	return false
}

// intoFolder is where a source lands in the folder dest: dest/base. A
// source named ".", ".." or "/" is judged as the folder itself, and so
// refused as a change target.
func intoFolder(dest, src string) string {
	b := path.Base(strings.TrimRight(src, "/"))
	if b == "." || b == ".." || b == "/" {
		return dest + "/" + b
	}
	return strings.TrimRight(dest, "/") + "/" + b
}

// copyIntent is what cp or mv is meant to do with each destination. cp
// with -n, -u or -i may leave an existing destination as it was, and
// --attributes-only copies no content; mv --exchange swaps the two.
func copyIntent(mv bool, ps *parsed) (Op, bool) {
	if mv {
		if hasName(ps, "--exchange") {
			return OpExchange, false
		}
		return OpMove, false
	}
	if hasName(ps, "--attributes-only") {
		return OpCreate, false
	}
	for _, n := range []string{"-n", "--no-clobber", "-u", "--update", "-i", "--interactive"} {
		if hasName(ps, n) {
			return OpCopy, true
		}
	}
	return OpCopy, false
}

// backupNames are the paths cp and mv rename an existing destination to
// when they make backups (-b, --backup, -S/--suffix, which implies -b):
// DEST plus the suffix ("~" by default, and "~" too when the suffix holds
// a "/", as GNU does), and DEST.~1~ for numbered backups. They are writes
// like the destination: "cp -b -S rc a .env" makes .envrc.
func backupNames(ps *parsed, dest string) []string {
	on, suffix, control := false, "~", ""
	for _, u := range ps.opts {
		switch u.name { // long names are spelt out in full by the parser
		case "-b":
			on = true
		case "--backup":
			on, control = true, u.value
		case "-S", "--suffix":
			on, suffix = true, u.value
		}
	}
	switch control {
	case "none", "off":
		return nil
	}
	if !on {
		return nil
	}
	if suffix == "" || strings.Contains(suffix, "/") {
		suffix = "~"
	}
	dest = strings.TrimRight(dest, "/")
	return []string{dest + suffix, dest + ".~1~"}
}
