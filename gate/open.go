package gate

import (
	"fmt"
	"log/slog"
	"os"
	"time"

	"admit/approvals"
	"admit/managed"
	"admit/policy"
	"admit/policy/command"
	"admit/policy/shell"
	"admit/tape"
	"admit/workspace"
)

// Options are what Open builds a gate from. Every command of admit (serve,
// check, run, hook, mcp, bench) makes its gate this one way; only what
// feeds it (a person to ask, a client to notify) differs.
type Options struct {
	// Dirs are the workspace folders, absolute; they become the roots,
	// symlinks resolved. None is a gate that can write nowhere.
	Dirs []string
	// Settings are the person's: "" or nil is each one's default
	// (Settings' fields say which).
	Settings
	// Policy replaces the workspace's .admit/policy.json when not nil.
	Policy *policy.File
	// TapePath is where decisions are taped; "" tapes nothing.
	TapePath string
	Tape     tape.Options
	// TapeRequired makes a tape that cannot be opened an error (the
	// command line's choice); otherwise the gate runs and every decision
	// reports it, refused as tape-unwritable in enforce (the server's).
	TapeRequired bool
	// Trust records the policy files the person trusted; nil is the
	// person's own records (DefaultTrustDir), read by every command and
	// written only through the editor.
	Trust *TrustStore
	// Rules are the person's rules; nil is the person's own files
	// (DefaultRulesDir), for the first of Dirs.
	Rules *RuleStore
	// Handles keeps the handles given out for rewritten calls; nil keeps
	// them in memory (the server's: admit run redeems through its socket).
	Handles *HandleStore
	// Headless: nobody is at the keyboard; what needs a person is refused.
	Headless bool
	// OneCall: the gate decides one call and ends with it (admit hook
	// deciding alone), so it cannot follow a terminal's folder to the
	// next line: a terminal line that may leave it elsewhere is refused.
	OneCall bool
	// PersonShell is the person's shell ($SHELL), which their terminals
	// run: a terminal's line that names no profile is judged with its
	// interactive profile (portable when it is not bash, zsh or fish).
	PersonShell string
	// SecretValues name the variables of the environment this gate's
	// calls run with, when they carry none of their own (the editor's,
	// which its terminals inherit; a hook's or admit check's own), whose
	// values are credentials: command.SecretValueNames(os.Environ()).
	// Only the names: the values stay in the process that has them.
	SecretValues []string
	Bounds       policy.Bounds
	Home         string
	Approvals    *approvals.Broker // nil: nobody to ask
	Notifier     Notifier          // nil: nobody to tell
	Logger       *slog.Logger
	Now          func() time.Time
	// Exporter is handed every taped record (config.Exporter); nil
	// exports nothing, unless Export or the managed layer names one.
	Exporter Exporter
	// Export is the person's export of decisions to a collector
	// (internal/otelexport); the managed layer's wins over it.
	Export *managed.Export
}

// Open builds a gate from o: the roots, the resolver, the tape and the
// settings, each checked. A setting that is wrong is a *ParamError naming
// it.
func Open(o Options) (*Gate, error) {
	roots, err := workspace.NewRoots(o.Dirs...)
	if err != nil {
		return nil, &ParamError{"roots", err.Error()}
	}
	// The organisation's layer is read first: it pins what it pins
	// (managed.go), and one that cannot be used closes the gate.
	layer, layerErr := managed.Load(os.Getenv)
	if err := applyManaged(&o, layer, layerErr); err != nil {
		return nil, err
	}
	if o.Mode == "" {
		o.Mode = "enforce"
	}
	if o.Effects == "" {
		o.Effects = o.Bounds.Effects
	}
	if o.Effects == "" {
		o.Effects = "read-only"
	}
	if o.Shell == "" {
		o.Shell = string(shell.Analyze)
	}
	if err := o.Settings.Check(); err != nil {
		return nil, err
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Trust == nil {
		if dir, err := DefaultTrustDir(); err == nil {
			o.Trust = NewTrustStore(dir)
		}
	}
	if o.Handles == nil {
		o.Handles = NewHandleStore("")
	}
	if o.Rules == nil {
		if dir, err := DefaultRulesDir(); err == nil {
			first := ""
			if list := roots.List(); len(list) > 0 {
				first = list[0]
			}
			o.Rules = NewRuleStore(dir, first)
		}
	}
	var secrets *command.Secrets
	if pats := secretPatterns(layer, o.SecretPatterns); pats != nil {
		s, err := command.NewSecrets(pats)
		if err != nil {
			return nil, &ParamError{"secretPatterns", err.Error()}
		}
		secrets = s
	}
	cfg := config{
		Mode: o.Mode, Effects: o.Effects, Shell: o.Shell, Roots: roots, Resolver: workspace.NewResolver(roots).SetHome(o.Home),
		Approvals: o.Approvals, Notifier: o.Notifier, Logger: o.Logger, Now: o.Now,
		Home: o.Home, Bounds: o.Bounds, Policy: o.Policy, Trust: o.Trust, Rules: o.Rules, Handles: o.Handles, AcceptWeaker: o.AcceptWeakerConfinement != nil && *o.AcceptWeakerConfinement, Secrets: secrets, AllowConfinedCode: o.ConfinedRuns == "allow", Headless: o.Headless, OneCall: o.OneCall, PersonShell: o.PersonShell, SecretValues: o.SecretValues,
		Managed: layer, ManagedErr: layerErr, Exporter: o.Exporter,
	}
	if o.TapePath != "" {
		cfg.TapePath = o.TapePath
		opts := o.Tape
		if opts.Logger == nil {
			opts.Logger = o.Logger
		}
		if opts.Now == nil {
			opts.Now = o.Now
		}
		t, err := tape.Open(o.TapePath, opts)
		switch {
		case err != nil && o.TapeRequired:
			return nil, fmt.Errorf("tape %s: %w", o.TapePath, err)
		case err != nil:
			// The gate still answers; in enforce every call is refused as
			// tape-unwritable until the tape can be written.
			o.Logger.Error("tape cannot be opened", "path", o.TapePath, "err", err)
			cfg.TapeErr = err
		default:
			cfg.Tape = t
		}
	}
	if cfg.Exporter == nil {
		x, err := openExport(layer, o.Export, o.Logger)
		if err != nil {
			if cfg.Tape != nil {
				_ = cfg.Tape.Close()
			}
			return nil, &ParamError{"export", err.Error()}
		}
		if x != nil {
			cfg.Exporter = x
		}
	}
	g, err := newGate(cfg)
	if err != nil && cfg.Tape != nil {
		_ = cfg.Tape.Close()
	}
	return g, err
}
