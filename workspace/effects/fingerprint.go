// Package effects observes what a command did to the workspace: a bounded
// fingerprint of the tree before and after (Take, TakeRoots), the difference
// between two fingerprints (Compare), and a readback of the changes the
// command policy admitted the command to make (Expect, Verify). It only
// reads the file system.
//
// Start with Take and Compare. The readback (readback.go) parses nothing:
// it checks the command.Intent list the policy recorded while it judged
// the command, so what is verified is the reading that was admitted.
package effects

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
)

// Fingerprint is a bounded snapshot of a tree: for each entry its kind
// (d, f or l), size and modification time in nanoseconds, as
// "kind:size:mtimeNanos". Complete is false when the bound cut the walk
// short, so a difference may be missing from a Compare.
type Fingerprint struct {
	// Entries maps a key to "kind:size:mtimeNanos". Take keys entries by
	// slash-separated path relative to its root; TakeRoots by absolute path.
	Entries  map[string]string `json:"entries"`
	Complete bool              `json:"complete"`
}

// Take fingerprints the tree under root, breadth first, names sorted within
// each folder, at most limit entries (limit <= 0 means no bound). A `.git`
// entry is listed but not entered. Symlinks are listed, never followed.
// Entries that vanish during the walk are skipped; an unreadable folder is
// listed but contributes no children.
func Take(root string, limit int) Fingerprint {
	return walk([]walkRoot{{dir: root, prefix: ""}}, limit)
}

// TakeRoots fingerprints several roots in one walk, breadth first across all
// of them (the first level of every root comes before the second level of
// any), sharing one bound. Entries are keyed by absolute path so that trees
// from different roots never collide.
func TakeRoots(roots []string, limit int) Fingerprint {
	rs := make([]walkRoot, 0, len(roots))
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			continue
		}
		rs = append(rs, walkRoot{dir: abs, prefix: abs})
	}
	return walk(rs, limit)
}

type walkRoot struct {
	dir    string // folder on disk
	prefix string // key prefix; "" for relative keys
}

// statParallel is how many lstat calls run at once for one folder. Folders
// of a large tree are mostly small, so the gain comes from big folders;
// eight workers saturate a local SSD without flooding a network mount.
const statParallel = 8

// parallelMin is the folder size from which lstat calls are spread over
// goroutines; below it the goroutine overhead costs more than it saves.
const parallelMin = 64

func walk(roots []walkRoot, limit int) Fingerprint {
	fp := Fingerprint{Entries: make(map[string]string), Complete: true}
	queue := roots
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		f, err := os.Open(cur.dir)
		if err != nil {
			continue
		}
		names, _ := f.Readdirnames(-1)
		f.Close()
		slices.Sort(names)
		if limit > 0 && len(fp.Entries)+len(names) > limit {
			names = names[:max(0, limit-len(fp.Entries))]
			fp.Complete = false
		}
		values, dirs := statAll(cur.dir, names)
		for i, name := range names {
			if values[i] == "" {
				continue // vanished since the listing
			}
			key := name
			if cur.prefix != "" {
				key = cur.prefix + "/" + name
			}
			fp.Entries[key] = values[i]
			if dirs[i] && name != ".git" {
				queue = append(queue, walkRoot{dir: filepath.Join(cur.dir, name), prefix: key})
			}
		}
		if !fp.Complete {
			return fp
		}
	}
	return fp
}

// statAll lstats each name in dir and returns its fingerprint value ("" when
// it vanished) and whether it is a directory.
func statAll(dir string, names []string) ([]string, []bool) {
	values := make([]string, len(names))
	dirs := make([]bool, len(names))
	one := func(i int) {
		info, err := os.Lstat(filepath.Join(dir, names[i]))
		if err != nil {
			return
		}
		values[i], dirs[i] = value(info)
	}
	if len(names) < parallelMin {
		for i := range names {
			one(i)
		}
		return values, dirs
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range statParallel {
		wg.Go(func() {
			for i := range next {
				one(i)
			}
		})
	}
	for i := range names {
		next <- i
	}
	close(next)
	wg.Wait()
	return values, dirs
}

func value(info os.FileInfo) (string, bool) {
	kind := byte('f')
	isDir := false
	switch {
	case info.Mode()&os.ModeSymlink != 0:
		kind = 'l'
	case info.IsDir():
		kind = 'd'
		isDir = true
	}
	b := make([]byte, 0, 40)
	b = append(b, kind, ':')
	b = strconv.AppendInt(b, info.Size(), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, info.ModTime().UnixNano(), 10)
	return string(b), isDir
}

// Diff is what changed between two fingerprints: keys added, removed and
// changed (kind, size or mtime), each sorted. Complete is false when either
// fingerprint was cut short by its bound.
type Diff struct {
	Added    []string `json:"added"`
	Removed  []string `json:"removed"`
	Changed  []string `json:"changed"`
	Complete bool     `json:"complete"`
}

// Empty reports whether the diff lists no change.
func (d Diff) Empty() bool {
	return len(d.Added) == 0 && len(d.Removed) == 0 && len(d.Changed) == 0
}

// Compare lists what differs from before to after. The slices are never nil,
// so they encode as [] in JSON.
func Compare(before, after Fingerprint) Diff {
	d := Diff{Added: []string{}, Removed: []string{}, Changed: []string{}, Complete: before.Complete && after.Complete}
	for k, v := range after.Entries {
		old, ok := before.Entries[k]
		switch {
		case !ok:
			d.Added = append(d.Added, k)
		case old != v:
			d.Changed = append(d.Changed, k)
		}
	}
	for k := range before.Entries {
		if _, ok := after.Entries[k]; !ok {
			d.Removed = append(d.Removed, k)
		}
	}
	slices.Sort(d.Added)
	slices.Sort(d.Removed)
	slices.Sort(d.Changed)
	return d
}
