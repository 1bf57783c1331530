package command

import (
	"fmt"
	"path"
	"strings"

	"admit/policy/rule"
)

// cargo tree and cargo metadata read Cargo.toml and Cargo.lock, fetch
// the index into CARGO_HOME (as go list fetches modules) and run rustc
// for the target's facts; they build and run nothing of the crate's.
// They run code only by configuration: the workspace's
// .cargo/config.toml and those above it (build.rustc-wrapper,
// build.rustc, rustflags that load code, [env], credential providers),
// rustup's rust-toolchain.toml naming a toolchain by path, the line's
// --config and CARGO_* variables (givenCode and codeVar refuse those
// that name programs), and rustc found on PATH.

// cargoReads judges cargo tree or metadata: a probe where nothing of
// that applies, a question (runs-code) where it does, and in the
// read-only effect mode a refusal when cargo would write Cargo.lock.
func (j *judge) cargoReads(argv []string) toolVerdict {
	probe := toolVerdict{class: toolProbe}
	locked, noDeps := false, false
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if a == "--" {
			break
		}
		switch {
		case a == "--locked" || a == "--frozen":
			locked = true
		case a == "--no-deps":
			noDeps = true
		case a == "--config" && i+1 < len(argv) || strings.HasPrefix(a, "--config="):
			v := strings.TrimPrefix(a, "--config=")
			if a == "--config" {
				v, i = argv[i+1], i+1
			}
			if !strings.Contains(v, "=") {
				return toolVerdict{class: toolRun, why: fmt.Sprintf("reads cargo's settings from the file %q, which may name programs cargo starts", v)}
			}
		case strings.HasPrefix(a, "-Z"), strings.HasPrefix(a, "-C"):
			// Unstable features; -C DIR moves where the configuration is read.
			return toolVerdict{class: toolRun, why: fmt.Sprintf("turns on %q, an unstable feature or another folder's configuration", a)}
		}
	}
	if j.c.FS == nil {
		return probe
	}
	if found := j.c.FS.CargoExec(j.cwd); found != "" {
		return toolVerdict{class: toolRun, why: fmt.Sprintf("would run a program named by cargo's configuration (%s)", found)}
	}
	if !j.helperOnPath([]string{"rustc"}) {
		return probe // asked by the lookup
	}
	if j.c.Effects != WorkspaceWrite && !locked && !noDeps && !j.cargoLockExists() {
		j.wrote()
		j.refuse(rule.ReadOnlyEffects, fmt.Sprintf("%s writes Cargo.lock when there is none, and the effect mode is read-only", showArgv(argv)),
			"add --locked (cargo then stops instead of writing the lock file), or ask the person for the workspace-write effect mode")
	}
	return probe
}

// cargoLockExists reports a Cargo.lock in the working folder or a folder
// above it inside the roots: the workspace's lock file, which cargo
// reads and rewrites only when Cargo.toml has changed since.
func (j *judge) cargoLockExists() bool {
	for d := j.cwd; inside(d, j.c.Roots); d = path.Dir(d) {
		if r, ok := j.quietResolve(d + "/Cargo.lock"); ok && r.Exists && !r.Dir {
			return true
		}
		if d == "/" {
			break
		}
	}
	return false
}
