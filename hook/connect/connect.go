package connect

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// The states of a host's connection, as Status.State reports them.
const (
	// StateNotConnected: no entry of admit's.
	StateNotConnected = "not-connected"
	// StateConnected: every event has admit's entry, as admit writes it,
	// and the binary it names is there.
	StateConnected = "connected"
	// StateStale: an entry names a binary that is not there (or not
	// executable): the hook cannot run admit.
	StateStale = "stale"
	// StateOutdated: admit's entries are there but not as admit writes
	// them (an event missing, a bare name looked up on PATH, no
	// failClosed, another timeout, two binaries).
	StateOutdated = "outdated"
	// StateUnreadable: a configuration file does not parse (Problem says
	// where); admit changes nothing in it.
	StateUnreadable = "unreadable"
	// StateUnsupported: admit cannot write this host's configuration on
	// this system.
	StateUnsupported = "unsupported"
)

// Options say whose configurations to read and what to point them at.
type Options struct {
	// Home is the person's home folder, absolute.
	Home string
	// Binary is the admit binary the entries are to name, absolute ("":
	// propose no change).
	Binary string
	// GOOS is the system the configuration is for ("" is runtime.GOOS).
	GOOS string
	// Place is where Binary must not be.
	Place Place
}

func (o Options) goos() string {
	if o.GOOS != "" {
		return o.GOOS
	}
	return runtime.GOOS
}

// Status is one host's connection to admit.
type Status struct {
	Host  string `json:"host"`
	Agent string `json:"agent"`
	// Installed: a trace of the host was found (Found lists them).
	Installed bool     `json:"installed"`
	Found     []string `json:"found,omitempty"`
	State     string   `json:"state"`
	// Connected: State is StateConnected.
	Connected bool `json:"connected"`
	// Config is the host's (first) configuration file; Files lists every
	// file admit writes for it.
	Config string   `json:"config"`
	Files  []string `json:"files"`
	// Binary is the binary admit's entries run ("" when there is none);
	// BinaryExists says whether it is there and executable.
	Binary       string `json:"binary,omitempty"`
	BinaryExists bool   `json:"binaryExists,omitempty"`
	// Problem says why the host cannot be connected as it is.
	Problem string `json:"problem,omitempty"`
	// HooksOff says where the person's own settings switch the host's
	// hooks off (admit's included), when they do.
	HooksOff string `json:"hooksOff,omitempty"`
	// Inert, when set, says in a few words why the host will not run
	// admit's hooks although they are connected ("not trusted": Codex's
	// trust step not done; "untrusted folder": Gemini CLI's folder
	// trust), and InertWhy says it in full, with what to do.
	Inert    string `json:"inert,omitempty"`
	InertWhy string `json:"inertWhy,omitempty"`
	// Change is what connecting to Options.Binary would write, when it
	// would write anything; Undo is what disconnecting would.
	Change *Change `json:"change,omitempty"`
	Undo   *Change `json:"undo,omitempty"`
	// MissingBinary says what the host does, with admit's configuration,
	// when the binary is gone; MissingBinaryBlocks whether that refuses
	// the call.
	MissingBinary       string   `json:"missingBinary"`
	MissingBinaryBlocks bool     `json:"missingBinaryBlocks"`
	Notes               []string `json:"notes,omitempty"`
}

// Change is a change to a host's configuration files, as the person is
// shown it: one unified diff, each file before and after, and Sum, which
// names exactly this change (the files' paths and contents before and
// after), so that a write can insist on the change that was shown.
type Change struct {
	Diff  string       `json:"diff"`
	Files []FileChange `json:"files"`
	Sum   string       `json:"sum"`
}

// FileChange is one file of a Change.
type FileChange struct {
	Path    string `json:"path"`
	Before  string `json:"before"`
	After   string `json:"after"`
	Created bool   `json:"created,omitempty"` // the file does not exist yet
	Removed bool   `json:"removed,omitempty"` // the change removes the file
	Mode    string `json:"mode,omitempty"`    // the file's mode after, when admit sets it ("0755")

	old, new File
	spec     *fileSpec
}

// Survey reads every host's configuration under o.Home.
func Survey(sys System, o Options) []Status {
	out := make([]Status, 0, len(hosts))
	for _, h := range hosts {
		out = append(out, Inspect(sys, o, h))
	}
	return out
}

// read reads h's configuration files (through symlinks: the file the host
// reads is the one a symlink names).
func (h *Host) read(sys System, home string) ([]File, error) {
	files := make([]File, len(h.files))
	for i, p := range h.Paths(home, sys.Getenv) {
		files[i].Path = p
		real := p
		if r, err := sys.EvalSymlinks(p); err == nil {
			real = r
		} else if fi, lerr := sys.Lstat(p); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s: a symlink to nothing (%v); fix or remove it first", p, err)
		}
		fi, err := sys.Stat(real)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", p, err)
		}
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("%s: not a regular file", p)
		}
		data, err := sys.ReadFile(real)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", p, err)
		}
		if data == nil {
			data = []byte{}
		}
		files[i].Data, files[i].Mode = data, fi.Mode().Perm()
	}
	return files, nil
}

// connected computes h's files connected to t: admit's entries added or
// brought up to date, everything else of each file as it was.
func (h *Host) connected(files []File, t target) ([]File, error) {
	out := make([]File, len(files))
	for i, f := range h.files {
		data, err := f.connect(h.Name, files[i].Data, t)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", files[i].Path, err)
		}
		out[i] = File{Path: files[i].Path, Data: data, Mode: files[i].Mode}
		switch {
		case f.shape == shapeScript:
			out[i].Mode = files[i].Mode | 0o755 // the host runs it
		case out[i].Mode == 0:
			out[i].Mode = 0o644
		}
	}
	return out, nil
}

// disconnected computes h's files with admit's entries removed. A file
// left holding only its format's skeleton is removed (Data nil) when
// admit created it, which is when no backup of the person's is beside it;
// with a backup that is itself empty, the backup's bytes come back.
func (h *Host) disconnected(sys System, files []File) ([]File, error) {
	out := make([]File, len(files))
	for i, f := range h.files {
		cur := files[i]
		out[i] = cur
		if !cur.Exists() {
			continue
		}
		data, empty, err := f.disconnect(h.Name, cur.Data)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", cur.Path, err)
		}
		out[i].Data = data
		if !empty {
			continue
		}
		backup, berr := sys.ReadFile(backupPath(sys, cur.Path))
		switch {
		case berr != nil:
			out[i].Data = nil // admit made the file: take it away
		case f.shape == shapeScript:
			out[i].Data = nil
		default:
			// The person's own empty file, as it was (never one that
			// holds admit's entries: that would connect again).
			if _, bempty, err := f.disconnect(h.Name, backup); err == nil && bempty && !holdsAdmit(f, h.Name, backup) {
				out[i].Data = backup
			}
		}
	}
	return out, nil
}

// backupPath is where the person's file is kept before admit first
// changes it: beside the file (the one a symlink names).
func backupPath(sys System, path string) string {
	if r, err := sys.EvalSymlinks(path); err == nil {
		path = r
	}
	return path + ".admit-backup"
}

// change describes the move from files to next, or nil when nothing
// changes.
func (h *Host) change(files, next []File) *Change {
	c := &Change{}
	sum := sha256.New()
	for i := range files {
		old, new := files[i], next[i]
		if bytes.Equal(old.Data, new.Data) && old.Exists() == new.Exists() && (!new.Exists() || old.Mode == new.Mode) {
			continue
		}
		fc := FileChange{Path: old.Path, Before: string(old.Data), After: string(new.Data), Created: !old.Exists(), Removed: !new.Exists(), old: old, new: new, spec: h.files[i]}
		if new.Exists() && new.Mode&0o111 != 0 {
			fc.Mode = fmt.Sprintf("%04o", new.Mode)
		}
		oldName, newName := old.Path, new.Path
		if fc.Created {
			oldName = "/dev/null"
		}
		if fc.Removed {
			newName = "/dev/null"
		}
		d := unifiedDiff(oldName, newName, old.Data, new.Data)
		if d == "" {
			d = fmt.Sprintf("--- %s\n+++ %s\n(mode %04o -> %04o)\n", oldName, newName, old.Mode, new.Mode)
		}
		c.Diff += d
		c.Files = append(c.Files, fc)
		fmt.Fprintf(sum, "%q %t %q %t %q %o\n", old.Path, old.Exists(), old.Data, new.Exists(), new.Data, new.Mode)
	}
	if len(c.Files) == 0 {
		return nil
	}
	c.Sum = "sha256:" + hex.EncodeToString(sum.Sum(nil))
	return c
}

// Inspect reads h's configuration under o.Home: whether the host is
// installed, whether admit is connected, and what connecting to o.Binary
// and disconnecting would change.
func Inspect(sys System, o Options, h *Host) Status {
	st := Status{Host: h.Name, Agent: h.Agent, Files: h.Paths(o.Home, sys.Getenv),
		MissingBinary: h.MissingBinary, MissingBinaryBlocks: h.MissingBinaryBlocks, Notes: slices.Clone(h.Notes)}
	st.Config = st.Files[0]
	st.Found = h.detect.find(sys, o.Home)
	st.Installed = len(st.Found) > 0
	if !h.supports(o.goos()) {
		st.State, st.Problem = StateUnsupported, fmt.Sprintf("admit cannot write %s's configuration on %s yet: set it up by hand (docs/agents.md)", h.Agent, o.goos())
		return st
	}
	files, err := h.read(sys, o.Home)
	if err != nil {
		st.State, st.Problem = StateUnreadable, err.Error()
		return st
	}
	if h.off != nil {
		st.HooksOff = h.off(sys, o.Home, files)
	}
	placeErr := h.checkPlace(sys, files, o.Place)
	var invs []invocation
	missing := false
	for i, f := range h.files {
		found, err := f.inspect(h.Name, files[i].Data)
		if err != nil {
			st.State, st.Problem = StateUnreadable, fmt.Sprintf("%s: %v", files[i].Path, err)
			return st
		}
		for _, ev := range f.events {
			if len(found[ev]) == 0 {
				missing = true
			}
			invs = append(invs, found[ev]...)
		}
	}
	st.State = StateNotConnected
	if len(invs) > 0 {
		st.State = h.state(sys, files, invs, missing, o.goos(), &st)
		if next, err := h.disconnected(sys, files); err == nil {
			st.Undo = h.change(files, next)
		}
	}
	st.Connected = st.State == StateConnected
	if h.inert != nil && st.Connected {
		st.Inert, st.InertWhy = h.inert(sys, o, files)
	}
	if o.Binary != "" {
		if placeErr != nil {
			st.Problem = placeErr.Error()
		} else if err := CheckBinary(sys, o.Binary, o.Home, o.Place); err != nil {
			if st.Problem == "" && !st.Connected {
				st.Problem = err.Error()
			}
		} else if next, err := h.connected(files, target{o.Binary, o.goos()}); err != nil {
			st.Problem = err.Error()
		} else {
			st.Change = h.change(files, next)
		}
	}
	return st
}

// state judges admit's entries invs (missing: an event has none).
func (h *Host) state(sys System, files []File, invs []invocation, missing bool, goos string, st *Status) string {
	bins := map[string]bool{}
	for _, inv := range invs {
		bins[inv.program] = true
	}
	inv := invs[0]
	st.Binary = inv.program
	if !inv.absolute() {
		st.Problem = fmt.Sprintf("admit's entry runs %q, which is not an absolute path: the host looks it up on PATH (or expands a variable), so the workspace can choose the gate", inv.program)
		return StateOutdated
	}
	if fi, err := sys.Stat(inv.program); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 && !strings.EqualFold(filepath.Ext(inv.program), ".exe") {
		st.Problem = fmt.Sprintf("admit's entry runs %s, which is not there (or not executable): %s", inv.program, h.MissingBinary)
		return StateStale
	}
	st.BinaryExists = true
	if len(bins) > 1 {
		st.Problem = "admit's entries run different binaries"
		return StateOutdated
	}
	if missing {
		return StateOutdated
	}
	next, err := h.connected(files, target{inv.program, goos})
	if err != nil {
		st.Problem = err.Error()
		return StateOutdated
	}
	if h.change(files, next) != nil {
		return StateOutdated
	}
	return StateConnected
}

// checkPlace refuses a configuration file that is (or leads through a
// symlink to) a file inside a workspace: an agent there could edit the
// hook admit writes into it.
func (h *Host) checkPlace(sys System, files []File, p Place) error {
	for _, f := range files {
		path := f.Path
		if real, err := sys.EvalSymlinks(path); err == nil {
			path = real
		}
		for _, ws := range p.Workspaces {
			if within(sys, path, ws) {
				return fmt.Errorf("%s is inside the workspace %s, where an agent can edit the hook admit would write into it: connect from outside it, or keep the file elsewhere", path, ws)
			}
		}
	}
	return nil
}

func (h *Host) supports(goos string) bool {
	return goos != "windows" || h.windows
}

// find lists the traces of the host under home: its folders, its programs
// on PATH, its VS Code extension.
func (d detectSpec) find(sys System, home string) []string {
	var found []string
	for _, dir := range d.dirs {
		p := dir(home, sys.Getenv)
		if fi, err := sys.Stat(p); err == nil && fi.IsDir() {
			found = append(found, p)
		}
	}
	for _, prog := range d.programs {
		if p := lookPath(sys, prog); p != "" {
			found = append(found, p)
		}
	}
	for _, dir := range extensionDirs {
		entries, err := sys.ReadDir(filepath.Join(home, dir))
		if err != nil {
			continue
		}
		for _, e := range entries {
			for _, id := range d.extensions {
				if e.IsDir() && strings.HasPrefix(strings.ToLower(e.Name()), id+"-") {
					found = append(found, filepath.Join(home, dir, e.Name()))
				}
			}
		}
	}
	return found
}

// extensionDirs are where VS Code and its relatives keep extensions,
// under the home folder.
var extensionDirs = []string{
	".vscode/extensions", ".vscode-insiders/extensions", ".vscode-server/extensions",
	".vscode-oss/extensions", ".local/share/code-server/extensions", ".cursor/extensions", ".windsurf/extensions",
}

// Result is what a write did.
type Result struct {
	Status  Status   `json:"status"`
	Written []string `json:"written,omitempty"`
	Removed []string `json:"removed,omitempty"`
	Backups []string `json:"backups,omitempty"`
}

// ErrChanged is returned when the configuration is no longer the one whose
// change the person was shown (Sum differs): nothing is written.
var ErrChanged = errors.New("connect: the configuration changed since the change was shown; show it again")

// Connect points h's configuration at o.Binary: it checks the binary,
// reads the files, and writes what Inspect's Change showed. sum, when not
// "", is that Change's Sum: if the change to make now differs (a file was
// edited since), nothing is written and the error is ErrChanged. Before
// changing a file that exists and holds none of admit's entries, the file
// is copied to FILE.admit-backup.
func Connect(sys System, w Writer, o Options, h *Host, sum string) (Result, error) {
	if !h.supports(o.goos()) {
		return Result{}, fmt.Errorf("admit cannot write %s's configuration on %s yet: set it up by hand (docs/agents.md)", h.Agent, o.goos())
	}
	if err := CheckBinary(sys, o.Binary, o.Home, o.Place); err != nil {
		return Result{}, err
	}
	files, err := h.read(sys, o.Home)
	if err != nil {
		return Result{}, err
	}
	if err := h.checkPlace(sys, files, o.Place); err != nil {
		return Result{}, err
	}
	next, err := h.connected(files, target{o.Binary, o.goos()})
	if err != nil {
		return Result{}, err
	}
	return h.apply(sys, w, o, files, next, sum, true)
}

// Disconnect removes admit's entries from h's configuration (see
// Status.Undo); sum, when not "", is the Undo's Sum.
func Disconnect(sys System, w Writer, o Options, h *Host, sum string) (Result, error) {
	files, err := h.read(sys, o.Home)
	if err != nil {
		return Result{}, err
	}
	next, err := h.disconnected(sys, files)
	if err != nil {
		return Result{}, err
	}
	return h.apply(sys, w, o, files, next, sum, false)
}

func (h *Host) apply(sys System, w Writer, o Options, files, next []File, sum string, connecting bool) (Result, error) {
	var r Result
	c := h.change(files, next)
	if sum != "" && (c == nil || c.Sum != sum) {
		return Result{}, ErrChanged
	}
	if c != nil {
		for i, fc := range c.Files {
			if err := h.write(sys, w, fc, connecting, &r); err != nil {
				done := ""
				if i > 0 {
					done = fmt.Sprintf(" (%s already written)", strings.Join(append(r.Written, r.Removed...), ", "))
				}
				return r, fmt.Errorf("%s: %v%s", fc.Path, err, done)
			}
		}
	}
	r.Status = Inspect(sys, o, h)
	return r, nil
}

// write makes one file's change: through a symlink to the file it names,
// with the backup first.
func (h *Host) write(sys System, w Writer, fc FileChange, connecting bool, r *Result) error {
	path := fc.Path
	if real, err := sys.EvalSymlinks(path); err == nil {
		path = real
	}
	if fc.Removed {
		if err := w.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		r.Removed = append(r.Removed, fc.Path)
		return nil
	}
	if connecting && !fc.Created {
		bp := path + ".admit-backup"
		_, statErr := sys.Lstat(bp)
		if statErr != nil || !holdsAdmit(fc.spec, h.Name, fc.old.Data) {
			if err := w.WriteFile(bp, fc.old.Data, fc.old.Mode.Perm()); err != nil {
				return fmt.Errorf("backing up to %s: %v", bp, err)
			}
			r.Backups = append(r.Backups, bp)
		}
	}
	if err := w.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := w.WriteFile(path, fc.new.Data, fc.new.Mode.Perm()); err != nil {
		return err
	}
	r.Written = append(r.Written, fc.Path)
	return nil
}

// holdsAdmit says whether data has any of admit's entries for host: such
// a file is admit's own earlier change, and the backup of the person's
// file from before it is kept.
func holdsAdmit(f *fileSpec, host string, data []byte) bool {
	found, err := f.inspect(host, data)
	return err == nil && len(found) > 0
}
