//go:build !linux

package run

// SweepLeftovers: only Linux makes empties in the workspace
// (placeholders_linux.go); there is nothing to sweep here.
func SweepLeftovers(stateDir string) {}
