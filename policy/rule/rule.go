// Package rule is admit's vocabulary: the rules a verdict or a tape record
// names, the gate's modes, verdicts, outcome classes and who decided. It
// imports only the standard library, so every package that decides,
// records or reports (policy, policy/command, policy/shell, tape,
// approvals, hook, rpc) can share one spelling of each word.
//
// Start at [Catalogue]: every [Rule] with its one-line meaning, the remedy a
// person or a model can act on, its [Stage] in the decision order and its
// [Outcome] class. docs/rules.md is rendered from it (go test ./policy/rule
// -update), and a test checks README.md's decision order against it.
//
// The rule names are the wire and tape values of docs/protocol.md; they never
// change spelling.
package rule

import (
	"strconv"
	"strings"
)

// Rule names why a call was decided the way it was: the "rule" of a
// verdict and of a tape record. Every value admit uses is a constant below
// and has an entry in the catalogue.
type Rule string

// The gate's own rules, decided before or around the policy.
const (
	// CapsOff: the gate is off; the call was allowed without a check.
	CapsOff Rule = "caps-off"
	// PolicyInvalid: the workspace policy file cannot be used.
	PolicyInvalid Rule = "policy-invalid"
	// RulesInvalid: the person's rules file cannot be used.
	RulesInvalid Rule = "rules-invalid"
	// ManagedInvalid: the organisation's managed policy cannot be used.
	ManagedInvalid Rule = "managed-invalid"
)

// The tool check's rules: the request, the allow list, the budget and the
// arguments.
const (
	// NoTool: the call names no tool.
	NoTool Rule = "no-tool"
	// RequestTooLarge: the call is over the size bound or nests too deep.
	RequestTooLarge Rule = "request-too-large"
	// NotInAllowList: the session's capability set does not grant the tool.
	NotInAllowList Rule = "not-in-allow-list"
	// BudgetExhausted: the session's steps, time or retries are spent.
	BudgetExhausted Rule = "budget-exhausted"
	// BadArguments: the arguments cannot be read without ambiguity.
	BadArguments Rule = "bad-arguments"
)

// The command policy's rules, for the command line of a shell tool.
const (
	// ShellSyntax: a construct the shell profile does not run.
	ShellSyntax Rule = "shell-syntax"
	// DynamicWord: a word whose value is only known at run time.
	DynamicWord Rule = "dynamic-word"
	// EmptyCommand: nothing to run.
	EmptyCommand Rule = "empty-command"
	// UnsupportedProgram: a program the command policy's table lacks.
	UnsupportedProgram Rule = "unsupported-program"
	// ForbiddenFlag: an option or script the program may not be given.
	ForbiddenFlag Rule = "forbidden-flag"
	// GitSubcommand: a git subcommand the policy does not run.
	GitSubcommand Rule = "git-subcommand"
	// GitConfigExec: git in a repository whose configuration runs programs.
	GitConfigExec Rule = "git-config-exec"
	// PathInFlux: a path a background command of the session may still
	// change.
	PathInFlux Rule = "path-in-flux"
	// RuleDenies: a rule of the person's, or of the repository's policy,
	// refuses the command.
	RuleDenies Rule = "rule-denies"
	// RunsCode: a program that runs code the gate cannot read (a
	// toolchain's build or test, an interpreter, a workspace script).
	RunsCode Rule = "runs-code"
	// Network: a command whose work is talking to the network (git fetch,
	// pull, push).
	Network Rule = "network"
	// SecretRead: a read of a file that holds secrets (.env, a private key).
	SecretRead Rule = "secret-read"
	// HiddenCommand: a command that runs what the line does not show
	// (eval, sh -c, a script piped into a shell).
	HiddenCommand Rule = "hidden-command"
	// NetworkToShell: what the network sends is piped into a shell.
	NetworkToShell Rule = "network-to-shell"
	// SecretEnv: a command that prints the environment's secrets.
	SecretEnv Rule = "secret-env"
	// EndlessInput: a read of a device that never ends (/dev/zero,
	// /dev/urandom) that the line does not bound to a small size.
	EndlessInput Rule = "endless-input"
	// PrivilegeChange: a command run as another user (sudo, su).
	PrivilegeChange Rule = "privilege-change"
	// ConfigWrite: a change to configuration outside the workspace's files
	// (git config, npm config set, a remote added).
	ConfigWrite Rule = "config-write"
	// GlobalInstall: an install outside the workspace (npm -g, pip --user).
	GlobalInstall Rule = "global-install"
	// Publishes: a release to a registry or host (npm publish).
	Publishes Rule = "publishes"
	// DestroysExternal: a change that destroys what is not the workspace's
	// (git push --force, docker system prune, terraform destroy).
	DestroysExternal Rule = "destroys-external"
)

// The path rules, shared by the command policy, the mutators and the gate's
// file tools.
const (
	// OutsideWorkspace: a path resolves outside the workspace roots.
	OutsideWorkspace Rule = "outside-workspace"
	// NoWriteRoot: a mutator in a session with no write root.
	NoWriteRoot Rule = "no-write-root"
	// OutsideWriteRoot: a write target outside the write roots.
	OutsideWriteRoot Rule = "outside-write-root"
	// ProtectedPath: a write to a protected path (refused, or asked).
	ProtectedPath Rule = "protected-path"
	// ReadOnlyEffects: a write while the effect mode is read-only.
	ReadOnlyEffects Rule = "read-only-effects"
	// NoTarget: a write that names no target the gate can check.
	NoTarget Rule = "no-target"
	// UnobservedTarget: a write to a file the session has not read.
	UnobservedTarget Rule = "unobserved-target"
	// StaleObservation: a write to a file that changed since it was read.
	StaleObservation Rule = "stale-observation"
	// EditMismatch: admit/edit's oldText does not match the file read.
	EditMismatch Rule = "edit-mismatch"
)

// The rules of a call put to a person (see package approvals).
const (
	// NeedsHuman: the tool always needs a person's approval.
	NeedsHuman Rule = "needs-human"
	// RuleAsks: a rule of the person's, or of the repository's policy, puts
	// the command to a person.
	RuleAsks Rule = "rule-asks"
	// UnexpectedEffect: an earlier run changed what it was not admitted to.
	UnexpectedEffect Rule = "unexpected-effect"
	// HumanApproved: a person allowed the call.
	HumanApproved Rule = "human-approved"
	// HumanDenied: a person refused the call, or dismissed the prompt.
	HumanDenied Rule = "human-denied"
	// ApprovalTimeout: no one answered in time.
	ApprovalTimeout Rule = "approval-timeout"
	// ApprovalCancelled: the question was withdrawn before an answer.
	ApprovalCancelled Rule = "approval-cancelled"
	// NoApprover: there is no one to ask.
	NoApprover Rule = "no-approver"
)

// The allowed stage: every check passed.
const (
	// Allowed: every check passed; the call is admitted by rule.
	Allowed Rule = "allowed"
	// RuleAllows: a rule of the person's allows a command the policy would
	// have put to a person.
	RuleAllows Rule = "rule-allows"
)

// The rules of the tape and of what an admitted call did.
const (
	// TapeUnwritable: the decision could not be written to the tape.
	TapeUnwritable Rule = "tape-unwritable"
	// TapeRepaired: the record of a torn last line cut off the tape.
	TapeRepaired Rule = "tape-repaired"
	// TapeReanchored: the record of a tape that did not match its anchored
	// head, anchored again as it was found.
	TapeReanchored Rule = "tape-reanchored"
	// RunResult: the record of an admitted admit/run's outcome.
	RunResult Rule = "run-result"
	// WriteResult: the record of an admitted admit/edit or admit/write.
	WriteResult Rule = "write-result"
)

// The rules of the adapters that carry a call to the gate.
const (
	// HookFailed: an agent host's hook could not get a decision.
	HookFailed Rule = "hook-failed"
	// AdmitUnavailable: the MCP gateway could not get a decision.
	AdmitUnavailable Rule = "admit-unavailable"
)

// Stage is a step of the decision order. A call passes the stages in the
// order of their values, and the first stage that decides, decides; the
// tape, result and adapter stages come after (or around) the decision.
type Stage uint8

// The stages, in decision order.
const (
	// StageMode: the gate's mode; off allows everything unchecked.
	StageMode Stage = iota + 1
	// StagePolicyFile: the workspace policy file is read and checked.
	StagePolicyFile
	// StageRequest: the call's tool, size and working folder.
	StageRequest
	// StageAllowList: the session's capability set grants the tool.
	StageAllowList
	// StageBudget: the session's steps, time and retries.
	StageBudget
	// StageArguments: the arguments are read as a JSON object.
	StageArguments
	// StageCommand: the command policy judges a shell tool's command line.
	StageCommand
	// StageMutators: a structured tool's path arguments; a mutator's targets.
	StageMutators
	// StagePerson: a call that needs a person is asked.
	StagePerson
	// StageAllowed: nothing refused or asked: the call is admitted.
	StageAllowed
	// StageTape: the decision is written to the tape before the reply.
	StageTape
	// StageResult: what an admitted run or file change did, read back.
	StageResult
	// StageAdapter: a hook or gateway that carries calls to the gate.
	StageAdapter
)

var stageNames = [...]string{
	StageMode:       "mode",
	StagePolicyFile: "policy file",
	StageRequest:    "request",
	StageAllowList:  "allow list",
	StageBudget:     "budget",
	StageArguments:  "arguments",
	StageCommand:    "command policy",
	StageMutators:   "mutators",
	StagePerson:     "person",
	StageAllowed:    "allowed",
	StageTape:       "tape",
	StageResult:     "result",
	StageAdapter:    "adapter",
}

// String is the stage's name as the README's decision order writes it.
func (s Stage) String() string {
	if s == 0 || int(s) >= len(stageNames) {
		return "stage(" + strconv.Itoa(int(s)) + ")"
	}
	return stageNames[s]
}

// MarshalText writes the stage's name, so an Info marshals readably.
func (s Stage) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Stages returns every stage in decision order.
func Stages() []Stage {
	out := make([]Stage, 0, len(stageNames)-1)
	for s := StageMode; int(s) < len(stageNames); s++ {
		out = append(out, s)
	}
	return out
}

// Info is what the catalogue says about one rule.
type Info struct {
	Rule Rule `json:"rule"`
	// Stage is the first stage of the decision order that can give the
	// rule; the catalogue is sorted by it.
	Stage Stage `json:"stage"`
	// Also are the later stages that give the rule too (outside-workspace
	// is checked for the working folder, by the command policy and for
	// path arguments), in decision order.
	Also []Stage `json:"also,omitempty"`
	// Outcome is the rule's outcome class when the rule alone fixes it,
	// else "" (protected-path refuses or asks; a result record is no
	// decision).
	Outcome Outcome `json:"outcome,omitempty"`
	// Meaning is one line saying what happened.
	Meaning string `json:"meaning"`
	// Remedy is one line saying what to do instead, for a person or a model.
	Remedy string `json:"remedy"`
}

// Lookup returns the catalogue's entry for r.
func Lookup(r Rule) (Info, bool) {
	i, ok := index[r]
	if !ok {
		return Info{}, false
	}
	return catalogue[i].clone(), true
}

// Catalogue returns every rule's entry in decision order: by stage, and
// within a stage in the order the checks run. The slice is a copy.
func Catalogue() []Info {
	out := make([]Info, len(catalogue))
	for i := range catalogue {
		out[i] = catalogue[i].clone()
	}
	return out
}

func (in Info) clone() Info {
	if in.Also != nil {
		in.Also = append([]Stage(nil), in.Also...)
	}
	return in
}

// Remedy is what to tell a person or a model to do about a decision by r:
// the decision's own hint when it gives one (it knows the program, option
// or path), else the catalogue's remedy for r, else "" for a rule the
// catalogue does not know.
func Remedy(r Rule, hint string) string {
	if h := strings.TrimSpace(hint); h != "" {
		return h
	}
	if i, ok := index[r]; ok {
		return catalogue[i].Remedy
	}
	return ""
}

// OutcomeOf returns r's outcome class where the rule alone fixes it; ok is
// false for a rule whose class depends on the call (protected-path refuses
// or asks) or that names no decision (a result or repair record), and for a
// rule the catalogue does not know.
func OutcomeOf(r Rule) (o Outcome, ok bool) {
	i, known := index[r]
	if !known || catalogue[i].Outcome == "" {
		return "", false
	}
	return catalogue[i].Outcome, true
}

// index maps each rule to its position in catalogue.
var index = func() map[Rule]int {
	m := make(map[Rule]int, len(catalogue))
	for i, in := range catalogue {
		m[in.Rule] = i // TestCatalogue checks that no rule is there twice
	}
	return m
}()
