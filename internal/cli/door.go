package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"admit/rpc"
	"admit/rpc/gate"
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
	sock := o.socket
	if sock == "" {
		sock = rpc.DefaultSocket(root)
	}
	dctx, cancel := context.WithTimeout(ctx, dialTimeout)
	c, dialErr := rpc.Dial(dctx, sock)
	cancel()
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
	bounds, err := boundsFromEnv()
	if err != nil {
		return nil, "", fmt.Errorf("%s, and %w", alone, err)
	}
	mode, effects, err := aloneSettings(bounds)
	if err != nil {
		return nil, "", fmt.Errorf("%s, and %w", alone, err)
	}
	bounds.Effects = effects // what sessions opened here may do, too
	home, _ := os.UserHomeDir()
	handles, err := localHandles()
	if err != nil {
		return nil, "", fmt.Errorf("%s, and %w", alone, err)
	}
	g, err := gate.Open(gate.Options{Dirs: []string{root}, Mode: mode, Effects: effects, TapePath: tapePath, TapeRequired: true, Handles: handles,
		Headless: true, OneCall: o.oneCall, Bounds: bounds, Home: home})
	if err != nil {
		return nil, "", fmt.Errorf("%s, and the local gate cannot start: %w", alone, err)
	}
	return g, alone, nil
}

// workspaceRoot is the folder a local decision takes as its root: the
// nearest folder at or above dir that holds .git, else dir itself;
// symlinks resolved, as the server resolves its roots. Never the nearest
// .admit folder: an agent can make one anywhere it can write (sub/.admit,
// node_modules/x/.admit) and then cd there.
func workspaceRoot(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
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
