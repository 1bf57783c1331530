package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"admit/gate"
	"admit/managed"
	"admit/policy"
	"admit/policy/rule"
)

// personSettings are the person's own choices for a gate that decides
// without the editor (a hook or admit mcp with no server to reach):
// $XDG_CONFIG_HOME/admit/settings.json, beside the person's rules,
// outside every workspace. The editor's gate takes its mode and effect
// mode from the editor's settings instead.
type personSettings struct {
	// Mode is enforce (the default), warn or off.
	Mode string `json:"mode,omitempty"`
	// Effects is read-only (the default) or workspace-write.
	Effects string `json:"effects,omitempty"`
	// Export sends every gate's decisions to the person's collector
	// (docs/teams.md); the managed layer's export wins over it. It lives
	// here, outside every workspace, so no repository can point it
	// elsewhere.
	Export *managed.Export `json:"export,omitempty"`
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
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return s, path, fmt.Errorf("the person's settings %s: %v (the keys are mode, effects and export)", path, err)
	}
	if dec.More() {
		return s, path, fmt.Errorf("the person's settings %s: more than one JSON value", path)
	}
	if err := s.check(); err != nil {
		return s, path, fmt.Errorf("the person's settings %s: %w", path, err)
	}
	return s, path, nil
}

func (s personSettings) check() error {
	if s.Mode != "" {
		if _, err := rule.ParseMode(s.Mode); err != nil {
			return fmt.Errorf("mode: %v", err)
		}
	}
	if s.Effects != "" {
		if err := policy.CheckEffects("effects", s.Effects); err != nil {
			return err
		}
	}
	return s.Export.Check()
}

// personExport is the export the person's settings file asks for, or
// nil. Every gate of the person's reads it: the editor's server, a hook
// deciding alone, admit check and admit run.
func personExport() (*managed.Export, error) {
	s, _, err := loadPersonSettings()
	return s.Export, err
}

// aloneSettings are the mode and effect mode of a gate deciding alone:
// the person's settings file, with ADMIT_EFFECTS (set in a host's
// configuration for that host alone) over its effects, and its export.
func aloneSettings(bounds policy.Bounds) (mode, effects string, export *managed.Export, err error) {
	s, _, err := loadPersonSettings()
	if err != nil {
		return "", "", nil, err
	}
	mode, effects = "enforce", "read-only"
	if s.Mode != "" {
		mode = s.Mode
	}
	if s.Effects != "" {
		effects = s.Effects
	}
	if os.Getenv("ADMIT_EFFECTS") != "" {
		effects = bounds.Effects
	}
	return mode, effects, s.Export, nil
}

// savePersonSettings writes the settings file, keeping what o leaves
// unset as the file has it.
func savePersonSettings(o personSettings) (string, personSettings, error) {
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
	tmp, err := os.CreateTemp(filepath.Dir(path), ".settings.json.*")
	if err != nil {
		return path, cur, err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return path, cur, err
	}
	if err := tmp.Close(); err != nil {
		return path, cur, err
	}
	return path, cur, os.Rename(tmp.Name(), path)
}
