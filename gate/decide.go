package gate

import (
	"context"
	"errors"
	"slices"

	"admit/approvals"
	"admit/policy"
	"admit/policy/rule"
	"admit/policy/shell"
	"admit/tape"
	"admit/workspace/run"
)

// judging is one call on its way through Decide's stages: the call, what
// it is judged against, and what the stages so far concluded.
type judging struct {
	ctx   context.Context // waiting(ctx) once the call waits for a person
	id    string          // the decision's id, given before any stage runs
	p     CheckParams
	amend func(*policy.Decision)
	mode  rule.Mode
	s     *session
	env   *policy.Env // &envOf; nil when the workspace policy file cannot be used
	envOf policy.Env
	lp    *loadedPolicy // never changed once loaded
	call  policy.Call
	// Decided is what Decide returns, made in place: one allocation a
	// decision. Its Decision is the decision as the stages so far left it;
	// its Rule is "" until a stage has decided.
	Decided
	tracked bool // a line of a terminal whose folder is tracked (terminal.go)
	pinned  bool // a line typed into a shell the host keeps, whose folder is not followed (StayInFolder)
	judged  bool // the policy judged the call: the facts hold what it saw
	// unconfined is the decision before the person's standing answer for
	// confined code allowed it (stageConfined): what stands when admit
	// cannot take the line to run confined after all.
	unconfined *policy.Decision
	// handle is the rewrite handle taken out for the call before it is
	// asked, so that a line admit cannot take to run is refused before a
	// person sees it; it is given back unless the call is allowed.
	handle string
	// asked is the person's answer (or the broker's, with nobody to ask),
	// when the call was put to one.
	asked *approvals.Resolution
	// traced records what the decision rests on, for replay (facts.go);
	// nil when nothing is taped or exported (its methods do nothing on nil).
	traced *factTrace
}

// decided reports whether a stage has decided the call.
func (j *judging) decided() bool { return j.Decision.Rule != "" }

// admits reports whether the call is, so far, allowed or put to a person.
func (j *judging) admits() bool { return j.Decision.Allowed || j.Decision.Ask }

// refuse decides the call with a refusal of r, keeping what the policy
// said of the call's kind and summary.
func (j *judging) refuse(r rule.Rule, reason, hint string) {
	kind, summary := j.Decision.Kind, j.Decision.Summary
	if kind == "" {
		kind, summary = "read", j.p.Tool
	}
	j.Decision = policy.Decision{Rule: r, Reason: reason, Hint: hint, Kind: kind, Summary: summary}
}

// stages are the steps of one decision, in the catalogue's stage order
// (policy/rule, docs/rules.md; TestStagesInCatalogueOrder holds them to
// it). Each may decide the call or change what an earlier one decided;
// reading them in order tells why a call got its verdict. The mode comes
// before them all (off decides nothing), and conclude turns what they
// leave into the verdict and its tape record.
var stages = []struct {
	stage rule.Stage
	what  string
	gives []rule.Rule // the rules the stage itself may set (policy.Decide's are the catalogue's)
	run   func(*Gate, *judging) error
}{
	{rule.StagePolicyFile, "the workspace policy file, as it takes effect under trust", []rule.Rule{rule.PolicyInvalid}, (*Gate).stagePolicyFile},
	{rule.StageRequest, "the call's folder: inside the roots, or its terminal's folder", []rule.Rule{rule.OutsideWorkspace, rule.DynamicWord}, (*Gate).stageFolder},
	{rule.StageRequest, "the policy (policy.Decide): tool, size, allow list, budget, arguments, command line, mutators", nil, (*Gate).stagePolicy},
	{rule.StageCommand, "deciding alone, a terminal line that may leave the terminal's folder", []rule.Rule{rule.DynamicWord}, (*Gate).stageOneCall},
	{rule.StageMutators, "the acting file tool's own check (the bytes it read)", []rule.Rule{rule.EditMismatch, rule.StaleObservation}, (*Gate).stageAmend},
	{rule.StagePerson, "the person's standing answer for code admit runs confined (confinedRuns: allow)", []rule.Rule{rule.RuleAllows}, (*Gate).stageConfined},
	{rule.StagePerson, "an earlier run's unexpected effect, before the session writes again", []rule.Rule{rule.UnexpectedEffect}, (*Gate).stageTainted},
	{rule.StagePerson, "before anyone is asked, the rewrite handle: a line only admit's runner may run is refused when admit cannot take it", []rule.Rule{rule.DynamicWord}, (*Gate).stageHandle},
	{rule.StagePerson, "before anyone is asked, a line allowed with secret files hidden from admit's run, judged again where admit will not run it or cannot hide them", nil, (*Gate).stageHidden},
	{rule.StagePerson, "before anyone is asked, a line the host may run itself after all, judged as the host's own shell reads it", []rule.Rule{rule.ShellSyntax, rule.DynamicWord}, (*Gate).stageHostShell},
	{rule.StagePerson, "the person, for a call that asks (or a handle's call the person approved when it was asked)", []rule.Rule{rule.HumanApproved, rule.HumanDenied, rule.ApprovalTimeout, rule.ApprovalCancelled, rule.NoApprover}, (*Gate).stagePerson},
}

// Decide is Check returning what the acting tools need. amend, when given,
// may refuse a decision the policy admitted, before anyone is asked and
// before the tape: the file tools bind a change to the bytes read.
func (g *Gate) Decide(ctx context.Context, p CheckParams, amend func(d *policy.Decision)) (*Decided, error) {
	j, err := g.decide(ctx, p, amend, &judging{})
	if err != nil {
		return nil, err
	}
	return &j.Decided, nil
}

// decide runs the decision order on j, a zero judging, and leaves what
// Decide returns in j.Decided.
func (g *Gate) decide(ctx context.Context, p CheckParams, amend func(d *policy.Decision), j *judging) (*judging, error) {
	j.ctx, j.id, j.p, j.amend, j.mode = ctx, g.newID(), p, amend, g.Mode()
	if j.mode == rule.Off {
		j.Verdict = Verdict{ID: j.id, Verdict: rule.Allow, Allowed: true, Mode: j.mode, Rule: rule.CapsOff, Reason: "the gate is off: nothing was checked or recorded", Tool: p.Tool, Outcome: rule.OutcomeAllow}
		return j, nil
	}
	s, err := g.session(p.Session)
	if err != nil {
		return nil, err
	}
	j.s = s
	for _, st := range stages {
		if err := st.run(g, j); err != nil {
			return nil, err
		}
	}
	g.conclude(j)
	return j, nil
}

func (g *Gate) stagePolicyFile(j *judging) error {
	env, lp, err := g.envIn(&j.envOf, j.s)
	j.env, j.lp = env, lp
	if wait, ok := j.ctx.Value(waitKey{}).(func() context.Context); ok && env != nil {
		env.FS = &releasingFS{Resolver: g.cfg.Resolver, release: wait}
	}
	if env != nil {
		prof, perr := g.callProfile(j.p)
		if perr != nil {
			return perr
		}
		if env.Profile == shell.Analyze {
			env.Profile = prof
		}
	}
	secretValues, verr := j.p.secretValues(g.cfg.SecretValues)
	if verr != nil {
		return verr
	}
	j.call = policy.Call{Tool: j.p.Tool, Args: j.p.Args, Command: j.p.Command, Argv: j.p.Argv, Path: j.p.pathList(), SecretValues: secretValues,
		Background: j.p.Background, AdmitRuns: g.admitRuns(j.p)}
	j.traced = g.traceFacts(env, j.s, j.p)
	switch {
	case g.cfg.ManagedErr != nil:
		j.Decision = managedRefusal(g.cfg.ManagedErr, j.p.Tool)
	case err != nil:
		j.refuse(rule.PolicyInvalid, "the workspace policy file cannot be used, so the gate stays closed: "+err.Error(), "")
	}
	return nil
}

func (g *Gate) stageFolder(j *judging) error {
	if j.decided() {
		return nil
	}
	cwd, err := g.cwd(j.s, j.p.Cwd, j.env.Roots)
	if err == nil && j.p.Terminal != "" && slices.Contains(j.env.ShellTools, j.p.Tool) {
		cwd, err = j.s.terms.cwd(j.p.Terminal, j.p.Cwd != "", cwd, j.p.DryRun)
		j.call.Terminal, j.tracked = true, err == nil
	}
	j.pinned = err == nil && j.p.StayInFolder && slices.Contains(j.env.ShellTools, j.p.Tool)
	j.call.Terminal = j.call.Terminal || j.pinned
	j.call.Cwd = cwd
	switch {
	case err == nil:
	case isParamError(err):
		return err
	case isTerminalError(err):
		j.refuse(rule.DynamicWord, err.Error(), "open a new terminal")
	case err != nil:
		j.refuse(rule.OutsideWorkspace, err.Error(), "")
	}
	return nil
}

func (g *Gate) stagePolicy(j *judging) error {
	if j.decided() {
		return nil
	}
	now := g.cfg.Now()
	if !j.p.DryRun {
		j.env.Budget = j.s.spend(j.p, now)
	}
	j.env.InFlux = j.s.inFlux(now, j.p.heldBy)
	j.traced.call(j.call, j.env, j.tracked, j.pinned)
	j.Decision = policy.Decide(j.call, j.env)
	j.judged = true
	if j.p.Tool == runTool && len(j.Decision.ShellOnly) > 0 && (j.Decision.Allowed || j.Decision.Ask) {
		j.Decision = shellOnlyRefusal(j.Decision) // shellonly.go
	}
	return nil
}

// stageOneCall: a gate of one call (a hook deciding alone) cannot follow a
// terminal to its next line, nor can anyone follow a shell the host keeps
// without saying where it left it.
func (g *Gate) stageOneCall(j *judging) error {
	if !(j.tracked && g.cfg.OneCall || j.pinned) || !j.admits() || j.Decision.FinalCwdKnown && j.Decision.FinalCwd == j.call.Cwd {
		return nil
	}
	why := "admit decides alone here, one call at a time, so it could not judge the terminal's next line in the folder it is really in"
	hint := "stay in the terminal's folder: put the cd in a subshell, (cd sub && make), or run the editor with admit, whose server follows the terminal"
	if j.pinned && !j.tracked {
		why = "the host may keep its shell in that folder for the next call, or put it back, so the folder the next line runs in would not be known"
		hint = "stay in the call's folder: name the folder to the program instead (make -C sub, git -C sub, npm --prefix sub)"
	}
	j.refuse(rule.DynamicWord, "the line may leave the terminal in another folder, and "+why, hint)
	return nil
}

// stageHandle takes out the rewrite handle of a shell call the host lets
// admit run, before anyone is asked: a line admitted only because admit's
// runner runs it (code confined, words judged again once known) is
// refused here when admit cannot take it, never after a person said yes.
func (g *Gate) stageHandle(j *judging) error {
	wanted := j.Decision.Allowed || j.Decision.Ask && j.mode == rule.Enforce
	if !j.p.Handle || j.p.DryRun || !wanted || j.env == nil || !slices.Contains(j.env.ShellTools, j.p.Tool) {
		return nil
	}
	// A handle taken out for a question carries the question: it is given
	// back unless the person says yes, and then the run that redeems it is
	// not asked again.
	var approved rule.Rule
	if j.Decision.Ask {
		approved = j.Decision.Rule
	}
	h, err := "", error(errShellOnly)
	if len(j.Decision.ShellOnly) == 0 { // what only a shell runs is left to the host's (shellonly.go)
		h, err = g.issue(&Decided{session: j.s, cwd: j.call.Cwd}, j.p, j.id, approved)
	}
	if err == nil {
		j.handle = h
		return nil
	}
	g.cfg.Logger.Warn("no handle for a rewrite; the host runs the line itself", "id", j.id, "err", err)
	switch {
	case len(j.Decision.Rejudged) > 0:
		// Its substitutions are admitted only because admit's runner
		// judges their words again: the host's shell would not.
		j.refuse(rule.DynamicWord, "the line has words only known when it runs (a command substitution, a variable), which only admit's own runner judges again, and admit could not take it to run ("+err.Error()+"); run it through admit run", "")
	case j.unconfined != nil:
		// Code the person lets run only confined: the host would run it as
		// it is, so it is a question again, as for any code the host runs.
		j.Decision = *j.unconfined
		j.Decision.Reason += "; admit could not take it to run confined (" + err.Error() + "), so the host would run it unconfined"
	}
	return nil
}

// stageHidden: a line allowed on the condition that admit's run hides the
// secret files its walk reads is judged again as the host runs it (a
// secret read, asked) where admit will not run it (no handle) or cannot
// hide a file here.
func (g *Gate) stageHidden(j *judging) error {
	if len(j.Decision.Hidden) == 0 || j.env == nil {
		return nil
	}
	admitRuns := j.p.Tool == runTool || j.handle != "" || j.p.DryRun && g.admitRuns(j.p)
	if admitRuns && run.Probe().HidesFiles() {
		return nil
	}
	if j.handle != "" {
		_, _ = g.cfg.Handles.take(j.handle) // the host runs the line: its handle goes
		j.handle = ""
	}
	call := j.call
	call.AdmitRuns = false
	j.Decision = policy.Decide(call, j.env)
	return nil
}

// stageHostShell: a line admit was to run that the host may run itself
// after all (an ask the host's own prompt may answer, an allow without a
// handle) must mean the same in the host's own shell.
func (g *Gate) stageHostShell(j *judging) error {
	if !j.p.Handle || j.env == nil || !(j.Decision.Ask || j.Decision.Allowed && j.handle == "" && !j.p.DryRun) {
		return nil
	}
	if hd := g.hostJudge(j.call, j.env, j.p); hd != nil {
		if j.handle != "" {
			_, _ = g.cfg.Handles.take(j.handle) // the call is refused: its handle goes
			j.handle = ""
		}
		j.Decision = *hd
	}
	return nil
}

func (g *Gate) stageAmend(j *judging) error {
	if j.amend != nil && j.admits() {
		before := j.Decision
		j.amend(&j.Decision)
		j.traced.amended(before, j.Decision)
	}
	return nil
}

func (g *Gate) stageConfined(j *judging) error {
	if j.Decision.Ask && g.confinedWithoutAsking(j.p, j.Decision) {
		before := j.Decision
		j.unconfined = &before
		j.Decision.Allowed, j.Decision.Ask, j.Decision.Rule = true, false, rule.RuleAllows
		j.Decision.Reason = "admit runs it confined (the workspace minus its protected paths, no network), and the person lets programs that run code run confined without asking: " + j.Decision.Reason
	}
	return nil
}

func (g *Gate) stageTainted(j *judging) error {
	if why := j.s.tainted(); why != "" && j.Decision.Kind == "write" && j.admits() {
		// An earlier run changed what it was not admitted to: a person
		// acknowledges that before the session writes again.
		j.Decision.Allowed, j.Decision.Ask, j.Decision.Rule = false, true, rule.UnexpectedEffect
		j.Decision.Reason = "an earlier run in this session " + why + "; a person must acknowledge it before the next change"
	}
	j.traced.result(j.Decision) // what replay compares with: the policy's answer and the gate's turns replay takes again
	return nil
}

func (g *Gate) stagePerson(j *judging) error {
	if !j.Decision.Ask || j.mode != rule.Enforce || j.p.DryRun {
		return nil
	}
	if j.p.approved != "" && j.p.approved == j.Decision.Rule {
		// The person said yes to this call when the hook asked; the run
		// that redeems its handle is the same call, asked once.
		j.asked = &approvals.Resolution{Allowed: true, DecidedBy: rule.ByHandle, Rule: rule.HumanApproved,
			Reason: "a person approved this call when it was asked (decision " + j.p.heldBy + "); its handle runs it without asking again"}
		return nil
	}
	j.ctx = waiting(j.ctx)
	o := g.ask(j.ctx, j.s, j.p, j.id, j.Decision)
	if o.Allowed && j.Decision.Rule == rule.UnexpectedEffect {
		j.s.acknowledge()
	}
	j.asked = &o
	return nil
}

// conclude turns what the stages decided into the verdict and its tape
// record, writes the record before anyone acts on the verdict, and does
// what an admitted call leaves behind (observations, the terminal's
// folder, the paths a background command holds).
func (g *Gate) conclude(j *judging) *Decided {
	d, p, s := j.Decision, j.p, j.s
	out := &j.Decided
	out.session, out.cwd = s, j.call.Cwd
	if j.env != nil {
		out.roots = j.env.Roots
	}
	// The verdict and the record are built in place, in out.
	v := &out.Verdict
	*v = Verdict{ID: j.id, Mode: j.mode, Rule: d.Rule, Reason: d.Reason, Kind: d.Kind, Targets: d.Targets(), Session: s.id, Agent: agentOf(p.Context), Tool: p.Tool, Summary: d.Summary, DecidedBy: rule.ByRule, Outcome: d.Outcome()}
	if j.lp.path != "" {
		v.PolicyTrust = string(j.lp.trust)
	}
	if p.DryRun {
		return g.dryRun(out, *v, d, j.mode)
	}
	// Credentials in the clear stay off the tape and out of the export.
	rec := &out.rec
	// Arguments the policy read as JSON and that redaction left alone are
	// copied to the line as they stand, not compacted again.
	args := tape.RedactRaw(p.Args)
	argsJSON := d.ArgsJSON && len(args) == len(p.Args) && (len(args) == 0 || &args[0] == &p.Args[0])
	*rec = tape.Record{ID: v.ID, Session: s.id, Mode: j.mode, Tool: p.Tool, Command: tape.Redact(commandOf(p)), Args: args, ArgsJSON: argsJSON, Context: p.Context, Policy: j.lp.hash, DecidedBy: rule.ByRule,
		Facts: j.traced.encode(&g.factsBufs, j.judged), FactsCompact: true, Hidden: d.Hidden}
	switch {
	case j.asked != nil:
		o := j.asked
		rec.AskedAt, rec.WaitedMs = o.AskedAt, o.Waited.Milliseconds()
		v.DecidedBy, v.Allowed, v.Verdict = o.DecidedBy, o.Allowed, rule.VerdictOf(o.Allowed)
		if o.DecidedBy == rule.ByHeadless {
			// Keep the rule that asked: it says what to change.
			v.Question, v.Reason = d.Reason, d.Reason+"; "+o.Reason
		} else {
			v.Rule, v.Reason = o.Rule, o.Reason
		}
	case d.Allowed:
		v.Verdict, v.Allowed = rule.Allow, true
	default:
		v.Verdict, v.Allowed = rule.Deny, j.mode != rule.Enforce
	}
	if j.handle != "" {
		if v.Verdict == rule.Allow {
			v.Handle = j.handle
		} else {
			_, _ = g.cfg.Handles.take(j.handle) // the call may not run as admitted: its handle goes
		}
	}
	rec.Verdict, rec.Allowed, rec.Rule, rec.Reason, rec.Kind, rec.Targets, rec.DecidedBy = v.Verdict, v.Allowed, v.Rule, v.Reason, v.Kind, v.Targets, v.DecidedBy
	rec.Outcome, rec.Handle = v.Outcome, v.Handle
	if v.Verdict == rule.Deny {
		rec.Remedy = rule.Remedy(v.Rule, d.Hint)
	}
	err := g.tape(j.ctx, rec)
	rec.Facts = nil // on the tape now, or not at all: what follows (retape) keeps no facts
	g.endTrace(j.traced)
	if err != nil {
		if v.Handle != "" {
			_, _ = g.cfg.Handles.take(v.Handle) // the call may not run: its handle goes too
			v.Handle = ""
		}
		if j.mode == rule.Enforce {
			v.Verdict, v.Allowed, v.Rule, v.Outcome = rule.Deny, false, rule.TapeUnwritable, rule.OutcomeDeny
			v.Reason = "the decision could not be written to the tape, so the call may not run: " + err.Error()
		}
	}
	if v.Verdict == rule.Deny {
		v.Remedy = rule.Remedy(v.Rule, d.Hint)
		v.ToolError = policy.ToolError(v.Rule, v.Reason, d.Hint)
		s.refused(p)
	}
	if v.Verdict == rule.Allow {
		s.forgetRefusals()
	}
	if v.Allowed {
		g.observe(s, d)
		if j.tracked {
			s.terms.ran(p.Terminal, d.FinalCwdKnown, d.FinalCwd)
		}
		if held := backgroundHeld(p, d, j.env, v.Handle != ""); len(held) > 0 {
			s.holdFlux(v.ID, held, g.cfg.Now().Add(backgroundHold(p.TimeoutMs)))
		}
	}
	out.Wire = g.count(v)
	out.record = rec
	return out
}

// isParamError and isTerminalError are errors.As for the folder's error,
// in functions of their own: the target of errors.As escapes, and a call
// whose folder is fine must not pay for it (two allocations a check).
func isParamError(err error) bool {
	var pe *ParamError
	return errors.As(err, &pe)
}

func isTerminalError(err error) bool {
	var te *terminalError
	return errors.As(err, &te)
}
