package command

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"admit/policy/rule"
)

// Calls that overlap. A line the host runs in the background (or one
// that detaches a command: setsid, nohup) goes on changing what it
// writes after its call returns, so the paths it may write are in flux
// for the session until it ends (the gate keeps them, Context.InFlux). A
// later call that reads, writes, lists or runs from one of them would be
// judged against a state the background command can still change: a
// background "mv -f evil docs/notes.txt", then "cat docs/notes.txt",
// reads what the link evil leads to. Such a call is refused
// (path-in-flux).

// errInFlux is a folder a pattern would list while a background command
// may still change what is in it.
var errInFlux = errors.New("command: a background command of the session may still change this folder")

// inFlux returns the path in flux that p is at, under, or (when the
// access may walk a folder) above, or "".
func inFlux(p string, flux []string, walks bool) string {
	for _, f := range flux {
		if p == f || strings.HasPrefix(p, f+"/") || walks && (p == "/" || strings.HasPrefix(f, p+"/")) {
			return f
		}
	}
	return ""
}

// checkFlux refuses an access to a path in flux; abs is the path as
// written, r where it resolved.
func (j *judge) checkFlux(prog string, a access, abs string, r Resolved) bool {
	if len(j.c.InFlux) == 0 {
		return true
	}
	// A folder read (grep -r DIR) reads what is under it; a listing or a
	// probe only names what is there, and a name that changes after it
	// is the watcher's to report.
	walks := r.Dir && a.mode == modeRead
	f := inFlux(r.Path, j.c.InFlux, walks)
	if f == "" {
		f = inFlux(cleanPath(abs), j.c.InFlux, walks)
	}
	if f == "" {
		return true
	}
	j.refuse(rule.PathInFlux, fmt.Sprintf("%s: %s %q: a background command of this session may still change %s, so what is there now is not what the command would find", prog, a.what, a.word, f),
		"wait until the background command has ended, or work on other paths meanwhile")
	return false
}

// fluxReadDir is the FS's ReadDir for pattern expansion, refusing a
// folder in flux or one that holds a path in flux (its names may change).
func fluxReadDir(c *Context, memo *resolveMemo) func(string) ([]fs.DirEntry, error) {
	if len(c.InFlux) == 0 {
		return c.FS.ReadDir
	}
	return func(dir string) ([]fs.DirEntry, error) {
		p := cleanPath(dir)
		if r, err := memo.resolve(c.FS, p); err == nil {
			p = r.Path
		}
		for _, f := range c.InFlux {
			if p == f || strings.HasPrefix(p, f+"/") || path.Dir(f) == p {
				return nil, fmt.Errorf("%w (%s)", errInFlux, f)
			}
		}
		return c.FS.ReadDir(dir)
	}
}

// fluxWrites are the paths in flux as writes made before the line, for
// the judgments that depend on earlier writes (git's configuration, the
// folders PATH searches).
func fluxWrites(c *Context) []lineWrite {
	if len(c.InFlux) == 0 {
		return nil
	}
	out := make([]lineWrite, 0, len(c.InFlux))
	for _, f := range c.InFlux {
		out = append(out, lineWrite{path: f, cmd: -1, word: f})
	}
	return out
}

// fluxGitInputs are the paths in flux that git reads as configuration
// or repository shape by their names (gitInputName), as writes made
// before the line: git after them is refused.
func fluxGitInputs(c *Context) []gitInput {
	var out []gitInput
	for _, f := range c.InFlux {
		for _, r := range c.Roots {
			if (f == r || strings.HasPrefix(f, r+"/")) && gitInputName(strings.TrimPrefix(f, r)) {
				out = append(out, gitInput{path: f, cmd: -1, word: f})
				break
			}
		}
	}
	return out
}

// InFlux reports the path in flux (of flux) that the resolved path p is
// at or under, or, when p is a folder a tool walks, above: for the
// structured tools, which the gate judges outside the command policy.
func InFlux(p string, flux []string, walks bool) string { return inFlux(p, flux, walks) }

// backgrounds reports whether a wrapper detaches the command it runs:
// setsid without --wait forks it into a session of its own and returns,
// and nohup is how a command is kept running after its shell ends.
func backgrounds(name string, ps *parsed) bool {
	switch name {
	case "setsid":
		return !hasName(ps, "-w") && !hasName(ps, "--wait")
	case "nohup":
		return true
	}
	return false
}

// backgroundWrites fills in what a background line may write.
func backgroundWrites(d *Decision, acc *accum, c *Context) {
	d.Background = c.Background || acc.background
	if !d.Background || !(d.Allowed || d.Ask) {
		return
	}
	// Code that runs (a toolchain, a script, a workspace program) may
	// write anywhere, but how far that reaches depends on who runs it, so
	// the gate widens the hold (Decision.RunsCode): here are only the
	// writes the line names.
	if acc.writesAnywhere {
		d.BackgroundWrites = slices.Clone(c.Roots)
		return
	}
	var out []string
	for _, w := range d.Writes {
		out = addPath(out, w)
	}
	for _, in := range d.Intents {
		if in.From != "" {
			out = addPath(out, in.From)
		}
	}
	d.BackgroundWrites = out
}
