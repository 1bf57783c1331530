package run

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// sysRun is what a run keeps for macOS's confinement: the profile's file
// and its parameters ("": the programs run unconfined, the person having
// accepted weaker confinement), in a folder of admit's own.
type sysRun struct {
	profileDir string
	profile    string
	params     []string
}

// endPlaceholders: macOS's profile denies the names; nothing is made.
func (s *sysRun) endPlaceholders() []string { return nil }

func (s *sysRun) cleanup() {
	if s.profileDir != "" {
		os.RemoveAll(s.profileDir)
	}
}

// confine lays out the run's confinement under Seatbelt: its walls (all
// of them, or none where sandbox-exec does not work here), the private
// temporary folder and the plan every program's profile is made from. A
// run that needs a wall this machine cannot give is refused here, before
// anything starts, unless the spec accepts weaker confinement.
func (x *executor) confine(s Spec) error {
	if s.Code && s.Protected == nil {
		return fmt.Errorf("%w: a run of code needs Protected (the paths it must leave as they are)", ErrSetup)
	}
	ok, why := seatbeltAvailable()
	by := ""
	if ok {
		by = BySeatbelt
	}
	x.walls, x.missing = uniformWalls(s.Code, s.Network, by)
	if len(x.hidden) > 0 {
		if !ok {
			// Without the sandbox nothing hides a file, whatever the
			// person accepts: the gate allowed the run on that condition.
			return notHidden(x.hidden, "macOS without a working sandbox-exec: "+why)
		}
		x.walls = append(x.walls, Wall{Name: WallHidden, By: BySeatbelt})
	}
	if len(x.missing) > 0 && !s.AcceptWeaker {
		return &ConfinementError{Missing: x.missing, Machine: "macOS without a working sandbox-exec: " + why}
	}
	x.confined, x.sandbox = true, SandboxNone
	base, _ := tempBase()
	temp, err := os.MkdirTemp(base, "admit-run-")
	if err != nil {
		return fmt.Errorf("%w: private temporary folder: %v", ErrSetup, err)
	}
	x.temp = temp
	x.tmpdir = resolve(temp) // the sandbox matches real paths (/var is /private/var)
	x.env = setEnv(x.env, "TMPDIR", x.tmpdir)
	if s.Code {
		if err := makeCacheDir(temp); err != nil {
			return fmt.Errorf("%w: private cache folder: %v", ErrSetup, err)
		}
		x.caches = privateCaches(x.tmpdir, ScrubEnv(s.Env))
		x.env = withCaches(x.env, x.caches)
	}
	if !ok {
		return nil
	}
	plan, capped, err := planSeatbelt(seatbeltInputs{
		Roots: x.roots, Writes: x.writes, Code: s.Code, Temp: x.tmpdir,
		Env: ScrubEnv(s.Env), Protected: s.Protected, Network: s.Network,
		RootNames: slices.Concat(s.RootFolders, s.RootFiles),
		Hidden:    hiddenPaths(x.hidden),
	})
	if err != nil {
		return err
	}
	if capped {
		x.missing = weaken(x.walls, x.missing, WallHardLinks)
		if !s.AcceptWeaker {
			return &ConfinementError{Missing: x.missing, Machine: fmt.Sprintf("macOS's sandbox keeps at most %d hard-linked files and folders of them, %d KiB of their paths; this workspace holds more", maxLinkBinds, maxParamBytes>>10)}
		}
	}
	text, params := plan.profile()
	if x.profileDir, err = os.MkdirTemp(base, "admit-profile-"); err != nil {
		return fmt.Errorf("%w: the sandbox profile's folder: %v", ErrSetup, err)
	}
	if x.profile, err = writeProfile(x.profileDir, text); err != nil {
		return fmt.Errorf("%w: the sandbox profile: %v", ErrSetup, err)
	}
	x.sandbox, x.params = SandboxSeatbelt, params
	return nil
}

// writeProfile writes a profile to dir, readable by this user alone.
func writeProfile(dir, text string) (string, error) {
	file := filepath.Join(dir, "run.sb")
	return file, os.WriteFile(file, []byte(text), 0o600)
}

// Confinement reports what this system supports: ("seatbelt", 0) where
// sandbox-exec works, or ("none", 0). Probe says which walls a run gets.
func Confinement() (string, int) {
	if ok, _ := seatbeltAvailable(); ok {
		return SandboxSeatbelt, 0
	}
	return SandboxNone, 0
}
