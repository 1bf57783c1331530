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
	"admit/managed"
	"admit/policy"
)

// The person's settings file, $XDG_CONFIG_HOME/admit/settings.json, beside
// the person's rules and outside every workspace, holds the settings
// (gate.Settings, by their json names) of a gate that decides without the
// editor: a hook or admit mcp with no server to reach. The editor's gate
// takes its settings from the editor's instead.

// personSettings is the file: a gate's settings, and the person's export.
type personSettings struct {
	gate.Settings
	// Export sends every gate's decisions to the person's collector
	// (docs/teams.md); the managed layer's export wins over it. It lives
	// here, outside every workspace, and never in the editor's settings,
	// so no repository can point it elsewhere.
	Export *managed.Export `json:"export,omitempty"`
}

func (s personSettings) check() error {
	if err := s.Check(); err != nil {
		return err
	}
	return s.Export.Check()
}

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
func loadPersonSettings() (personSettings, string, error) {
	var s personSettings
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
		return s, path, fmt.Errorf("the person's settings %s: %v (the keys are mode, effects, shell, secretPatterns, confinedRuns, acceptWeakerConfinement and export)", path, err)
	}
	if err := s.check(); err != nil {
		return s, path, fmt.Errorf("the person's settings %s: %w", path, err)
	}
	return s, path, nil
}

// aloneSettings are the settings of a gate deciding alone: the person's
// settings file, in enforce and read-only unless it says otherwise, with
// ADMIT_EFFECTS (set in a host's configuration for that host alone) over
// its effects, and the person's export.
func aloneSettings(bounds policy.Bounds) (gate.Settings, *managed.Export, error) {
	s, _, err := loadPersonSettings()
	if err != nil {
		return s.Settings, nil, err
	}
	s.Mode = orDefault(s.Mode, "enforce")
	s.Effects = orDefault(s.Effects, "read-only")
	if os.Getenv("ADMIT_EFFECTS") != "" {
		s.Effects = bounds.Effects
	}
	return s.Settings, s.Export, nil
}

// personExport is the export the person's settings file asks for, or
// nil. Every gate of the person's reads it: the editor's server, a hook
// deciding alone, admit check and admit run.
func personExport() (*managed.Export, error) {
	s, _, err := loadPersonSettings()
	return s.Export, err
}

// savePersonSettings writes the settings file, keeping what o leaves
// unset (admit connect sets the mode and the effects) as the file has it.
func savePersonSettings(o gate.Settings) (string, personSettings, error) {
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
	if err := cur.check(); err != nil {
		return path, cur, err
	}
	data, _ := json.MarshalIndent(cur, "", "  ")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return path, cur, err
	}
	return path, cur, sysfile.WriteAtomic(path, append(data, '\n'), 0o600)
}
