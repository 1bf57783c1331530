// Package policy is admit's decision: pure, deterministic, with no model
// inside. It holds capability sets (caps.go), the tool-call check and the
// decision order (check.go), the bounds (bounds.go), the workspace policy
// file (file.go) and the refusal body handed back to a model (verdict.go).
// The command policy for shell tools lives in policy/command and the shell
// reduction in policy/shell; the tape in tape. The words every
// decision is made of (rules, modes, verdicts, outcome classes) are the
// typed constants of policy/rule, with the catalogue of rules.
//
// Start at Decide. Nothing here touches the file system except through the
// command.FS interface, nothing reads a clock, and there is no package state.
package policy
