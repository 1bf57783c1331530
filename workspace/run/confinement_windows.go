package run

import (
	"fmt"
	"os"
)

// sysRun is empty: admit has no sandbox on Windows.
type sysRun struct{}

func (s *sysRun) cleanup() {}

// endPlaceholders: there are none on Windows.
func (s *sysRun) endPlaceholders() []string { return nil }

// windowsNote says why a run on Windows is not confined, for the state
// and the refusal.
const windowsNote = "admit has no sandbox for a run on Windows yet (no AppContainer or restricted token): every wall is missing"

// confine refuses a confined run on Windows, where no wall can be given,
// unless the spec accepts weaker confinement; then the run gets its
// private temporary folder and runs unconfined, with every wall named in
// Result.Missing.
func (x *executor) confine(s Spec) error {
	if s.Code && s.Protected == nil {
		return fmt.Errorf("%w: a run of code needs Protected (the paths it must leave as they are)", ErrSetup)
	}
	if len(x.hidden) > 0 {
		// No wall here hides a file, whatever the person accepts.
		return notHidden(x.hidden, windowsNote)
	}
	x.walls, x.missing = uniformWalls(s.Code, s.Network, "")
	if len(x.missing) > 0 && !s.AcceptWeaker {
		return &ConfinementError{Missing: x.missing, Machine: "Windows: " + windowsNote}
	}
	x.confined, x.sandbox = true, SandboxNone
	base, _ := tempBase()
	temp, err := os.MkdirTemp(base, "admit-run-")
	if err != nil {
		return fmt.Errorf("%w: private temporary folder: %v", ErrSetup, err)
	}
	x.temp, x.tmpdir = temp, temp
	x.env = setEnv(x.env, "TMPDIR", x.tmpdir)
	x.env = setEnv(x.env, "TEMP", x.tmpdir)
	x.env = setEnv(x.env, "TMP", x.tmpdir)
	if s.Code {
		if err := makeCacheDir(temp); err != nil {
			return fmt.Errorf("%w: private cache folder: %v", ErrSetup, err)
		}
		x.caches = privateCaches(x.tmpdir, ScrubEnv(s.Env))
		x.env = withCaches(x.env, x.caches)
	}
	return nil
}

// Confinement reports ("none", 0): Windows gives admit no sandbox.
func Confinement() (string, int) { return SandboxNone, 0 }
