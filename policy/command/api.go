// Package command is the command policy: it judges a shell command line, or
// an argv, against the program tables, the workspace roots, the effect mode
// and what the agent has observed. It is pure: the file system is reached
// only through the FS interface, observations through Observations.
//
// Start at Policy.Evaluate (policy.go): it parses the line with
// policy/shell, follows cd through the script, and judges every simple
// command (judge.go) and redirection. A program is judged by its entry in
// the Table (programs.go: one struct literal per program, an accept-list
// of options parsed as GNU getopt_long does, options.go), and by the
// family of built-in rules its entry names, dispatched through one table
// (programRules, rules.go) to a file per family: git.go, find.go (find,
// test), grep.go (grep, rg), sed.go, awk.go, text.go (uniq, cmp, diff,
// date, printf, which), listing.go (ls, tree, stat), copy.go (cp, mv) and
// writes.go (rm, rmdir, touch). Every path a rule names goes through the
// access engine (access.go): it is resolved through FS and must be inside
// the roots; every write needs workspace-write, an explicit target, an
// observation of it, and Protect (protect.go) to let it through, and
// records what it is meant to do (an Intent, intent.go) for the run's
// readback. A line is judged as a whole where its commands affect each
// other (relink.go): a path under a link or folder that mv/cp moves in
// the same line, and git after a write it may read as configuration, are
// refused. What the line runs with is judged too: a program name is looked
// up on the call's PATH (path.go), paths a background command of the
// session may still change are refused (flux.go), and the folder the line
// leaves the shell in is followed for terminals (cwd.go). A FIFO, socket
// or device is never opened, and a file with more than one hard link is
// not written (access.go). ParseTable (tablejson.go)
// merges the "programs" section of .admit/policy.json over the defaults.
package command

import "io/fs"

// Effects is the effect mode of a session.
type Effects string

const (
	ReadOnly       Effects = "read-only"
	WorkspaceWrite Effects = "workspace-write"
)

// Resolved is a path after symlink resolution.
type Resolved struct {
	Path   string // absolute, cleaned, symlinks resolved (a final symlink followed, even a dangling one)
	Exists bool
	Dir    bool
	// Mode is the type and permission bits of what Path names when it
	// exists (a FIFO is fs.ModeNamedPipe, a regular file has no type
	// bits); zero when it does not, or when the FS cannot tell.
	Mode fs.FileMode
	// Links is the number of hard links of an existing Path (st_nlink);
	// 0 when it does not exist, or when the FS cannot tell. A regular
	// file with more than one may be the same file as one outside the
	// roots (a package store's).
	Links uint64
	// Foreign reports that an existing Path belongs to another user than
	// the gate's (root excepted): a folder of a stranger's, whose content
	// the stranger controls. False when the FS cannot tell.
	Foreign bool
	// Seen is what the resolution saw of an existing Path: what the gate
	// records when the agent reads it, without a second stat. Zero when
	// the FS does not tell.
	Seen Stamp
}

// Stamp is a file's size, modification and change times (nanoseconds)
// and identity, as an observation of a read keeps them.
type Stamp struct {
	Size, Mtime, Ctime int64
	Dev, Ino           uint64
}

// Known reports whether the FS filled the stamp: no file has inode 0.
func (s Stamp) Known() bool { return s.Ino != 0 }

// Typed reports whether the FS told the file's type: Mode and Links are
// known. An FS that leaves them zero for an existing path is read as
// one that cannot tell, and the checks that need them fail closed.
func (r Resolved) Typed() bool { return r.Exists && r.Links > 0 }

// Regular reports whether Path is an existing regular file.
func (r Resolved) Regular() bool { return r.Typed() && r.Mode.IsRegular() }

// FS answers the questions about the file system the policy needs.
// workspace.Resolver implements it.
type FS interface {
	// Resolve resolves an absolute path through its nearest existing
	// ancestor, following every symlink including a final one and a
	// trailing slash on a link; "..", "." and repeated slashes are handled
	// after each link is followed, as the kernel does.
	Resolve(path string) (Resolved, error)
	// LinksOutside lists symlinks under dir (recursively) whose targets
	// resolve outside the roots; recursive reads that follow links refuse them.
	// A program that follows links also walks the folders that links under
	// dir lead to, so links found there count too.
	LinksOutside(dir string) []string
	// SplitNames lists the names the walk of LinksOutside reaches under
	// dir that xargs without -0 would not read whole (a blank, a newline,
	// a quote or a backslash in them) or a shell would expand in an
	// unquoted $(...)'s output (a character of patternChars, a leading
	// "="), and a sentinel entry when the walk stopped at its bound.
	SplitNames(dir string) []string
	// OptionNames lists the names the same walk reaches under dir that
	// start with "-", which a program handed them whole would read as
	// options, and a sentinel entry when the walk stopped at its bound.
	OptionNames(dir string) []string
	// GitExec names what in the repository containing dir (its .git/config,
	// the files that config includes, .gitattributes) would make git run a
	// program, or "" when nothing does.
	GitExec(dir string) string
	// GitConfigFiles lists the configuration files (resolved) git reads
	// for a command run in dir: the repository's own, every file an
	// include names (whether or not it exists yet), those of submodules
	// and nested repositories. A write to one before git runs changes
	// what git runs.
	GitConfigFiles(dir string) []string
	// CargoExec names what in cargo's configuration for a command run
	// in dir (.cargo/config.toml from dir up to "/", the person's
	// CARGO_HOME left out; rustup's rust-toolchain.toml) would make cargo
	// tree or cargo metadata run a program, or "" when nothing does.
	CargoExec(dir string) string
	// ReadDir lists a folder for pattern expansion, sorted by name. A
	// folder outside the roots is an error: its names are not the
	// policy's to see, nor the agent's to learn from a refusal.
	ReadDir(dir string) ([]fs.DirEntry, error)
}

// ObsState is what the agent knows about one file.
type ObsState int

const (
	Unobserved ObsState = iota
	Observed            // read, and unchanged since
	Stale               // read, and changed by someone else since
)

// Observations is one session's record of what its agent has seen.
type Observations interface {
	File(path string) ObsState // path is resolved and absolute
	Dir(path string) bool      // the folder's listing was observed
}

// GitWrites is what the policy asks of the file system about a
// repository before git changes it; workspace.Resolver implements it. An
// FS without it makes git's writes ask a person (git-config-exec), and a
// push to a named remote is refused, since neither can be checked.
type GitWrites interface {
	// GitRemotes lists the remotes the configuration of the repository
	// containing dir names; ok is false when it cannot be read.
	GitRemotes(dir string) (remotes []string, ok bool)
	// GitWriteExec names what would make git run a program, or send
	// what it pushes elsewhere, when a command that writes or talks to a
	// remote runs in the repository containing dir: an executable hook
	// among hooks (pre-commit, post-checkout, ...), or a key only such
	// commands read (core.editor, credential.helper, merge drivers,
	// url.*.insteadOf, remote.*.receivepack, ...); "" when nothing does.
	GitWriteExec(dir string, hooks []string) string
	// GitCredentials names the settings of the configuration of the
	// repository containing dir that hold a credential git prints when
	// it shows them (a URL's password or token, an http.extraHeader), a
	// subsection that holds it shown as "*"; ok is false when it cannot
	// be read.
	GitCredentials(dir string) (names []string, ok bool)
}
