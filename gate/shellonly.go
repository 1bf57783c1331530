package gate

import (
	"errors"
	"strings"

	"admit/policy"
	"admit/policy/rule"
)

// A line judged in full whose constructs admit's own runner does not run
// (a loop, a background job, sh -c, "$(cat <<'EOF' ... EOF)", kill of a
// probe's pids: policy.Decision.ShellOnly) is left to the host's shell,
// which runs it as it was judged: a hook gets no handle for it, and
// admit run refuses it, saying where it can run.

// errShellOnly is why a hook's allowed line gets no handle.
var errShellOnly = errors.New("the line has constructs only a shell runs, which admit's runner does not")

// shellOnlyRefusal is the decision of admit run on such a line.
func shellOnlyRefusal(d policy.Decision) policy.Decision {
	return policy.Decision{Rule: rule.ShellSyntax, Kind: d.Kind, Summary: d.Summary,
		Reason: "admit run does not run " + strings.Join(d.ShellOnly, ", ") + "; the line is judged, and the agent's own shell tool may run it",
		Hint:   "send the line through the agent's shell tool, or as plain commands joined by && or ;"}
}
