package policy

import (
	"fmt"
	"strconv"
	"strings"
)

// Bounds limit one session or one command-line run. The names, defaults and
// ranges are those README.md lists ("Bounds"), each read from ADMIT_<NAME>.
type Bounds struct {
	MaxSteps              int64  `json:"maxSteps"`
	MaxRetries            int64  `json:"maxRetries"`
	TimeoutMs             int64  `json:"timeoutMs"`
	ToolTimeoutMs         int64  `json:"toolTimeoutMs"`
	StartupTimeoutMs      int64  `json:"startupTimeoutMs"`
	MaxOutputBytes        int64  `json:"maxOutputBytes"`
	MaxRequestChars       int64  `json:"maxRequestChars"`
	MaxMemoryMb           int64  `json:"maxMemoryMb"`
	MaxFingerprintEntries int64  `json:"maxFingerprintEntries"`
	MaxStepsPerMinute     int64  `json:"maxStepsPerMinute"`
	Effects               string `json:"effects"`
}

// BoundSpec is one bound: its key, variable, default and range (Max 0: any).
type BoundSpec struct {
	Key, Env     string
	Default, Min int64
	Max          int64
	field        func(*Bounds) *int64
}

// BoundSpecs lists the bounds in the order they are read and reported.
func BoundSpecs() []BoundSpec {
	return []BoundSpec{
		{"maxSteps", "ADMIT_MAX_STEPS", 8, 1, 64, func(b *Bounds) *int64 { return &b.MaxSteps }},
		{"maxRetries", "ADMIT_MAX_RETRIES", 1, 0, 5, func(b *Bounds) *int64 { return &b.MaxRetries }},
		{"timeoutMs", "ADMIT_TIMEOUT_MS", 120_000, 1, 0, func(b *Bounds) *int64 { return &b.TimeoutMs }},
		{"toolTimeoutMs", "ADMIT_TOOL_TIMEOUT_MS", 30_000, 1, 0, func(b *Bounds) *int64 { return &b.ToolTimeoutMs }},
		{"startupTimeoutMs", "ADMIT_STARTUP_TIMEOUT_MS", 30_000, 1, 0, func(b *Bounds) *int64 { return &b.StartupTimeoutMs }},
		{"maxOutputBytes", "ADMIT_MAX_OUTPUT_BYTES", 64 * 1024, 1, 16 * 1024 * 1024, func(b *Bounds) *int64 { return &b.MaxOutputBytes }},
		{"maxRequestChars", "ADMIT_MAX_REQUEST_CHARS", 4096, 1, 0, func(b *Bounds) *int64 { return &b.MaxRequestChars }},
		{"maxMemoryMb", "ADMIT_MAX_MEMORY_MB", 1024, 1, 0, func(b *Bounds) *int64 { return &b.MaxMemoryMb }},
		{"maxFingerprintEntries", "ADMIT_MAX_FINGERPRINT_ENTRIES", 5000, 1, 0, func(b *Bounds) *int64 { return &b.MaxFingerprintEntries }},
		// A rate, not a total, for sessions that last as long as their
		// client (an MCP gateway's): two calls a second is more than a
		// model's turns make, and stops a loop that no model drives.
		{"maxStepsPerMinute", "ADMIT_MAX_STEPS_PER_MINUTE", 120, 1, 0, func(b *Bounds) *int64 { return &b.MaxStepsPerMinute }},
	}
}

// DefaultBounds are the bounds when no variable is set.
func DefaultBounds() Bounds {
	b, _ := ParseBounds(func(string) string { return "" })
	return b
}

// ParseBounds reads the ADMIT_* variables through getenv. The first invalid
// one is an error that names the variable, its range ("any" for no maximum)
// and the raw value.
func ParseBounds(getenv func(string) string) (Bounds, error) {
	var b Bounds
	for _, s := range BoundSpecs() {
		raw := getenv(s.Env)
		if raw == "" {
			*s.field(&b) = s.Default
			continue
		}
		v, err := s.Check(raw)
		if err != nil {
			return Bounds{}, err
		}
		*s.field(&b) = v
	}
	raw := getenv("ADMIT_EFFECTS")
	b.Effects = strings.TrimSpace(raw)
	switch {
	case raw == "":
		b.Effects = "read-only"
	case b.Effects == "":
		// Set but blank is a mistake, not a choice: it is refused.
		return Bounds{}, fmt.Errorf("ADMIT_EFFECTS must be read-only or workspace-write, got %q (blank)", raw)
	}
	if err := CheckEffects("ADMIT_EFFECTS", b.Effects); err != nil {
		return Bounds{}, err
	}
	return b, nil
}

// Check parses a raw value of the bound; a failure names the variable,
// its range and the raw value.
func (s BoundSpec) Check(raw string) (int64, error) {
	t := strings.TrimSpace(raw)
	v, err := strconv.ParseInt(t, 10, 64)
	digits := t != "" && strings.Trim(t, "0123456789") == ""
	if err != nil || !digits || v < s.Min || (s.Max > 0 && v > s.Max) {
		max := "any"
		if s.Max > 0 {
			max = strconv.FormatInt(s.Max, 10)
		}
		return 0, fmt.Errorf("%s must be an integer from %d to %s, got %q", s.Env, s.Min, max, raw)
	}
	return v, nil
}

// Override applies the bounds a session asked for (keys as in JSON) over b,
// each checked against its range. The error names the field and the value.
func (b Bounds) Override(set map[string]int64) (Bounds, error) {
	specs := BoundSpecs()
	for key, v := range set {
		i := -1
		for j, s := range specs {
			if s.Key == key {
				i = j
			}
		}
		if i < 0 {
			return b, fmt.Errorf("bounds.%s: unknown bound", key)
		}
		s := specs[i]
		if v < s.Min || (s.Max > 0 && v > s.Max) {
			max := "any"
			if s.Max > 0 {
				max = strconv.FormatInt(s.Max, 10)
			}
			return b, fmt.Errorf("bounds.%s must be an integer from %d to %s, got %d", key, s.Min, max, v)
		}
		*s.field(&b) = v
	}
	return b, nil
}

// CheckEffects validates an effect mode named by field.
func CheckEffects(field, v string) error {
	if v != "read-only" && v != "workspace-write" {
		return fmt.Errorf("%s must be one of read-only, workspace-write, got %q", field, v)
	}
	return nil
}
