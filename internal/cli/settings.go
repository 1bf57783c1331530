package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"admit/gate"
	"admit/internal/strictjson"
	"admit/internal/sysfile"
	"admit/policy"
)

// The person's settings file, $XDG_CONFIG_HOME/admit/settings.json, beside
// the person's rules and outside every workspace, holds the settings
// (gate.Settings, by their json names) of a gate that decides without the
// editor: a hook or admit mcp with no server to reach. The editor's gate
// takes its settings from the editor's instead.

// settingsPath is the person's settings file.
func settingsPath() (string, error) {
	dir, err := gate.DefaultRulesDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "settings.json"), nil
}

// loadPersonSettings reads the settings file; none is the defaults. A
// file that does not parse, or holds a key or a value admit does not
// know, is an error naming the file, the field and the value: a gate that
// guessed would decide under settings the person did not choose.
func loadPersonSettings() (gate.Settings, string, error) {
	var s gate.Settings
	path, err := settingsPath()
	if err != nil {
		return s, "", err
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, path, nil
	}
	if err != nil {
		return s, path, fmt.Errorf("the person's settings %s: %w", path, err)
	}
	if err := strictjson.Decode(data, &s); err != nil {
		return s, path, fmt.Errorf("the person's settings %s: %v (the keys are mode, effects, shell, secretPatterns, confinedRuns and acceptWeakerConfinement)", path, err)
	}
	if err := s.Check(); err != nil {
		return s, path, fmt.Errorf("the person's settings %s: %w", path, err)
	}
	return s, path, nil
}

// aloneSettings are the settings of a gate deciding alone: the person's
// settings file, in enforce and read-only unless it says otherwise, with
// ADMIT_EFFECTS (set in a host's configuration for that host alone) over
// its effects.
func aloneSettings(bounds policy.Bounds) (gate.Settings, error) {
	s, _, err := loadPersonSettings()
	if err != nil {
		return s, err
	}
	s.Mode = orDefault(s.Mode, "enforce")
	s.Effects = orDefault(s.Effects, "read-only")
	if os.Getenv("ADMIT_EFFECTS") != "" {
		s.Effects = bounds.Effects
	}
	return s, nil
}

// savePersonSettings writes the settings file, keeping what o leaves
// unset (admit connect sets the mode and the effects) as the file has it.
func savePersonSettings(o gate.Settings) (string, gate.Settings, error) {
	cur, path, err := loadPersonSettings()
	if err != nil {
		return path, cur, err
	}
	if o.Mode != "" {
		cur.Mode = o.Mode
	}
	if o.Effects != "" {
		cur.Effects = o.Effects
	}
	if err := cur.Check(); err != nil {
		return path, cur, err
	}
	data, _ := json.MarshalIndent(cur, "", "  ")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return path, cur, err
	}
	return path, cur, sysfile.WriteAtomic(path, append(data, '\n'), 0o600)
}
