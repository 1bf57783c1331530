package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"admit/gate"
	"admit/managed"
	policycmd "admit/policy/command"
	"admit/rpc"
)

// dialTimeout bounds reaching the editor's server; past it, the call is
// decided alone. A live server accepts within microseconds: this only
// matters for one that hangs.
const dialTimeout = 2 * time.Second

// door is the gate an agent's call goes through: the editor's server over
// its socket (*rpc.Client), or a gate in this process (*gate.Gate).
type door interface {
	Check(ctx context.Context, p gate.CheckParams) (gate.Verdict, error)
	OpenSession(ctx context.Context, p gate.OpenSessionParams) (string, error)
	CloseSession(ctx context.Context, id string) error
	// The acting tools, for admit's own MCP server.
	Read(ctx context.Context, p gate.ReadParams) (gate.FileResult, error)
	Edit(ctx context.Context, p gate.EditParams) (gate.FileResult, error)
	Write(ctx context.Context, p gate.WriteParams) (gate.FileResult, error)
	Run(ctx context.Context, p gate.RunParams, o gate.RunOptions) (gate.RunResult, error)
	Close() error
}

// doorOptions say where an agent's call comes from.
type doorOptions struct {
	cwd      string // the folder the agent works in
	socket   string // the editor's socket; "" is the workspace's default one
	tapePath string // the tape a gate of our own writes to; "" is the default tape
	oneCall  bool   // a gate of our own decides this one call and ends
}

// openDoor dials the editor's server, or, when none answers, opens a gate
// of its own on the workspace around o.cwd, with nobody to ask, taped,
// in the mode and effect mode the person chose (settings.go).
// alone is empty when the editor's server decides; otherwise it says why
// admit decides alone, for the caller to say so.
func openDoor(ctx context.Context, o doorOptions) (d door, alone string, err error) {
	root := workspaceRoot(o.cwd)
	c, sock, dialErr := dialWorkspace(ctx, o.cwd, o.socket)
	if dialErr == nil {
		return c, "", nil
	}
	if ctx.Err() != nil {
		return nil, "", ctx.Err()
	}
	alone = fmt.Sprintf("no admit server is reachable at %s", sock)
	if err := broadRoot(root); err != nil {
		return nil, "", fmt.Errorf("%s, and %w", alone, err)
	}
	tapePath, err := defaultTape(o.tapePath)
	if err != nil {
		return nil, "", fmt.Errorf("%s, and no tape: %w", alone, err)
	}
	g, err := openAlone(aloneGate{dirs: []string{root}, tapePath: tapePath, handleFiles: true, oneCall: o.oneCall})
	if err != nil {
		return nil, "", fmt.Errorf("%s, and the local gate cannot start: %w", alone, err)
	}
	return g, alone, nil
}

// aloneGate is what a gate deciding alone is opened on.
type aloneGate struct {
	dirs []string // the workspace folders, absolute
	// settings are the command line's; nil is the person's settings file
	// (aloneSettings).
	settings *gate.Settings
	tapePath string // "" tapes nothing
	// handleFiles keeps the handles given out as files, for admit run
	// --handle in another process to redeem; else they stay in memory.
	handleFiles bool
	oneCall     bool // the gate decides one call and ends (gate.Options.OneCall)
}

// openAlone opens a gate that decides with nobody to ask (what needs a
// person is refused): the one way admit check, admit run, admit run
// --handle and a hook or admit mcp with no editor's server to reach build
// one. Bounds come from ADMIT_*, the tape must open, the person's home
// and shell count. A gate that cannot open is an error of
// gate.Open's, or of the settings or bounds it would open with.
func openAlone(a aloneGate) (*gate.Gate, error) {
	bounds, err := boundsFromEnv()
	if err != nil {
		return nil, err
	}
	var settings gate.Settings
	var export *managed.Export
	if a.settings != nil {
		settings = *a.settings
		export, err = personExport()
	} else {
		settings, export, err = aloneSettings(bounds)
	}
	if err != nil {
		return nil, err
	}
	if settings.Effects != "" {
		bounds.Effects = settings.Effects // what sessions opened here may do, too
	}
	var handles *gate.HandleStore
	if a.handleFiles {
		if handles, err = localHandles(); err != nil {
			return nil, err
		}
	}
	home, _ := os.UserHomeDir()
	return gate.Open(gate.Options{Dirs: a.dirs, Settings: settings, TapePath: a.tapePath, TapeRequired: true, Handles: handles,
		Headless: true, OneCall: a.oneCall, PersonShell: os.Getenv("SHELL"), Bounds: bounds, Home: home, Export: export,
		// The line runs with this process's environment (the host's): the
		// names of its variables whose values are credentials.
		SecretValues: policycmd.SecretValueNames(os.Environ())})
}

// workspaceRoot is the folder a local decision takes as its root: the
// outermost folder at or above dir that holds .git, below the home
// folder, else dir itself; symlinks resolved, as the server resolves its
// roots. Never a nested repository's (a submodule, a vendored clone, a
// .git the agent made): the outer workspace's policy, and the person's
// rules for it, hold at every depth. Never the nearest .admit folder
// either: an agent can make one anywhere it can write (sub/.admit,
// node_modules/x/.admit) and then cd there.
func workspaceRoot(dir string) string {
	if repos := repoRoots(dir); len(repos) > 0 {
		return repos[0]
	}
	return resolvedDir(dir)
}

// repoRoots are the folders at or above dir that hold .git, outermost
// first, below the home folder (a person's dotfiles repository in it is
// no workspace) and the file system's root. A .git in a folder everyone
// may write (the system's temporary folder, /tmp, /var/tmp, any folder
// writable by others) is anyone's stray, not a workspace: taken for the
// root, it would make every other user's and program's files there the
// workspace, and a lone agent could plant one to widen its own.
func repoRoots(dir string) []string {
	dir = resolvedDir(dir)
	home, _ := os.UserHomeDir()
	if real, err := filepath.EvalSymlinks(home); err == nil {
		home = real
	}
	var out []string
	for d := dir; ; {
		if d == home || filepath.Dir(d) == d {
			break
		}
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil && !sharedFolder(d) {
			out = append(out, d)
		}
		d = filepath.Dir(d)
	}
	slices.Reverse(out)
	return out
}

// sharedFolder says whether anyone may write dir: the system's temporary
// folders, or a folder writable by others.
func sharedFolder(dir string) bool {
	for _, t := range []string{os.TempDir(), "/tmp", "/var/tmp"} {
		if dir == t || dir == resolvedDir(t) {
			return true
		}
	}
	st, err := os.Stat(dir)
	return err == nil && st.Mode().Perm()&0o002 != 0
}

func resolvedDir(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return dir
}

// dialWorkspace reaches the editor's server for dir: at socket when one
// is named, else at the default socket of each folder the person may have
// opened, outermost first (the repositories at or above dir, then dir),
// so that a server of the outer workspace decides for its nested
// repositories. It returns the last socket tried when none answers.
func dialWorkspace(ctx context.Context, dir, socket string) (*rpc.Client, string, error) {
	socks := []string{socket}
	if socket == "" {
		socks = nil
		for _, r := range append(repoRoots(dir), resolvedDir(dir)) {
			if s := rpc.DefaultSocket(r); !slices.Contains(socks, s) {
				socks = append(socks, s)
			}
		}
	}
	var err error
	for _, sock := range socks {
		dctx, cancel := context.WithTimeout(ctx, dialTimeout)
		var c *rpc.Client
		c, err = rpc.Dial(dctx, sock)
		cancel()
		if err == nil {
			return c, sock, nil
		}
		if ctx.Err() != nil {
			return nil, sock, ctx.Err()
		}
	}
	return nil, socks[0], err
}

// broadRoot refuses to take the file system's root or the home folder as
// a workspace: a gate deciding alone there would let an agent write
// anywhere. It happens when an agent runs outside any project.
func broadRoot(root string) error {
	home, _ := os.UserHomeDir()
	if root == string(filepath.Separator) || (home != "" && root == filepath.Clean(home)) {
		return fmt.Errorf("%s is not a workspace (no .git found at or above the working folder), so no local decision is possible", root)
	}
	return nil
}

// localHandles is where a gate deciding alone keeps the handles it gives
// out: files, since admit run redeems them from another process.
func localHandles() (*gate.HandleStore, error) {
	dir, err := gate.DefaultHandleDir()
	if err != nil {
		return nil, err
	}
	return gate.NewHandleStore(dir), nil
}
