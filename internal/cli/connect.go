package cli

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"

	"golang.org/x/term"

	"admit/gate"
	"admit/hook/connect"
	"admit/managed"
)

// connectOptions are admit connect's and admit disconnect's flags.
type connectOptions struct {
	list, dryRun, yes bool
	hosts             []*connect.Host
	named             bool // hosts were named on the command line
	// settings: what --mode and --effects choose for a hook deciding alone
	settings gate.Settings
}

// connectCmd is `admit connect [--list] [--dry-run] [--yes] [HOST...]`:
// for each host named (or each one installed), the change that points
// its user-level hook configuration at this admit binary, as a diff,
// then written on the person's yes (or --yes). With no terminal to ask
// on and no --yes, it only prints.
func connectCmd(args []string, std Stdio) int {
	return agentsCmd("connect", args, std)
}

// disconnectCmd is `admit disconnect [--dry-run] [--yes] HOST...`: the
// undo, shown and asked the same way.
func disconnectCmd(args []string, std Stdio) int {
	return agentsCmd("disconnect", args, std)
}

func agentsCmd(verb string, args []string, std Stdio) int {
	o, err := parseConnect(verb, args, std)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintf(std.Err, "admit %s: %v\n", verb, err)
		return exitUsage
	}
	home, err := os.UserHomeDir()
	if err != nil || !filepath.IsAbs(home) {
		fmt.Fprintf(std.Err, "admit %s: no home folder: %v\n", verb, err)
		return exitConfig
	}
	opts := connect.Options{Home: home, Place: connectPlace()}
	sys := connect.OS{}
	var binErr error
	if opts.Binary, binErr = selfBinary(); binErr == nil {
		binErr = connect.CheckBinary(sys, opts.Binary, home, opts.Place)
	}
	if o.list {
		return listAgents(sys, opts, binErr, std)
	}
	if verb == "connect" && binErr != nil {
		fmt.Fprintf(std.Err, "admit connect: %v\n", binErr)
		return exitConfig
	}
	if (o.settings.Mode != "" || o.settings.Effects != "") && !o.dryRun {
		path, s, err := savePersonSettings(o.settings)
		if err != nil {
			fmt.Fprintf(std.Err, "admit connect: %v\n", err)
			return exitConfig
		}
		fmt.Fprintf(std.Out, "A hook deciding without the editor now uses mode %s and effects %s (%s).\n", orDefault(s.Mode, "enforce"), orDefault(s.Effects, "read-only"), path)
	}
	if !o.named {
		for _, st := range connect.Survey(sys, opts) {
			if h, _ := connect.Lookup(st.Host); st.Installed {
				o.hosts = append(o.hosts, h)
			}
		}
		if len(o.hosts) == 0 {
			fmt.Fprintln(std.Out, "No agent admit knows is installed for this user; name one to connect it anyway: admit connect HOST (admit connect --list shows them all).")
			return exitOK
		}
	}
	if o.hosts, err = managedHosts(o.hosts, opts, std); err != nil {
		fmt.Fprintf(std.Err, "admit %s: %v\n", verb, err)
		return exitConfig
	}
	ask := !o.yes && !o.dryRun && isTerminal(std.In)
	in := bufio.NewReader(std.In)
	code := exitOK
	pending := 0
	for _, h := range o.hosts {
		st := connect.Inspect(sys, opts, h)
		c := st.Change
		if verb == "disconnect" {
			c = st.Undo
		}
		title := fmt.Sprintf("%s (%s)", st.Agent, st.Config)
		if st.HooksOff != "" && verb == "connect" {
			fmt.Fprintf(std.Err, "%s: warning: %s\n", st.Agent, st.HooksOff)
		}
		switch {
		case st.State == connect.StateUnreadable || st.State == connect.StateUnsupported || c == nil && st.Problem != "" && !st.Connected:
			fmt.Fprintf(std.Err, "%s: %s\n", title, st.Problem)
			code = exitConfig
			continue
		case c == nil && verb == "connect":
			fmt.Fprintf(std.Out, "%s: %s to %s\n", title, stateWords(st), st.Binary)
			if st.InertWhy != "" {
				fmt.Fprintf(std.Out, "%s: %s\n", st.Agent, st.InertWhy)
			}
			continue
		case c == nil:
			fmt.Fprintf(std.Out, "%s: not connected\n", title)
			continue
		}
		fmt.Fprintf(std.Out, "%s: %s", title, describe(st))
		if verb == "disconnect" {
			fmt.Fprint(std.Out, "; disconnecting removes admit's entries")
		}
		fmt.Fprintf(std.Out, "\n%s", c.Diff)
		switch {
		case o.dryRun:
			continue
		case ask:
			fmt.Fprintf(std.Err, "Write this change to %s's configuration? [y/N] ", st.Agent)
			line, _ := in.ReadString('\n')
			if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
				fmt.Fprintf(std.Out, "%s: left unchanged\n", st.Agent)
				continue
			}
		case !o.yes:
			pending++
			continue
		}
		do := connect.Connect
		if verb == "disconnect" {
			do = connect.Disconnect
		}
		r, err := do(sys, sys, opts, h, c.Sum)
		if err != nil {
			if errors.Is(err, fs.ErrPermission) {
				err = fmt.Errorf("%w (a host's managed place is the administrator's: run admit %s as root, or as an administrator)", err, verb)
			}
			fmt.Fprintf(std.Err, "%s: %v\n", title, err)
			code = exitConfig
			continue
		}
		for _, b := range r.Backups {
			fmt.Fprintf(std.Out, "%s: kept the previous file as %s\n", st.Agent, b)
		}
		for _, p := range r.Written {
			fmt.Fprintf(std.Out, "%s: wrote %s\n", st.Agent, p)
		}
		for _, p := range r.Removed {
			fmt.Fprintf(std.Out, "%s: removed %s\n", st.Agent, p)
		}
		fmt.Fprintf(std.Out, "%s: %s\n", st.Agent, stateWords(r.Status))
		if verb == "connect" {
			if r.Status.InertWhy != "" {
				fmt.Fprintf(std.Out, "%s: %s\n", st.Agent, r.Status.InertWhy)
			}
			for _, n := range r.Status.Notes {
				fmt.Fprintf(std.Out, "%s: %s\n", st.Agent, n)
			}
		}
	}
	if pending > 0 {
		fmt.Fprintf(std.Out, "Nothing was written: there is no terminal to ask on. Run admit %s --yes %s to write what is shown.\n", verb, strings.Join(hostNames(o.hosts), " "))
	}
	return code
}

func parseConnect(verb string, args []string, std Stdio) (connectOptions, error) {
	var o connectOptions
	fs := flag.NewFlagSet("admit "+verb, flag.ContinueOnError)
	fs.SetOutput(std.Err)
	if verb == "connect" {
		fs.BoolVar(&o.list, "list", false, "list the agents admit knows, whether each is installed and connected; change nothing")
		fs.StringVar(&o.settings.Effects, "effects", "", "the effect mode of a hook deciding without the editor: read-only (the default) or workspace-write; written to $XDG_CONFIG_HOME/admit/settings.json")
		fs.StringVar(&o.settings.Mode, "mode", "", "the mode of a hook deciding without the editor: enforce (the default), warn or off; written to the same file")
	}
	fs.BoolVar(&o.dryRun, "dry-run", false, "show the change, write nothing")
	fs.BoolVar(&o.yes, "yes", false, "write the change without asking")
	fs.Usage = func() {
		if verb == "connect" {
			fmt.Fprintf(std.Err, "usage: admit connect [--list] [--dry-run] [--yes] [--effects E] [--mode M] [HOST...]\n  HOST: %s (default: every one installed)\n  flags may also follow the agents' names\n", strings.Join(hostNames(connect.Hosts()), ", "))
		} else {
			fmt.Fprintf(std.Err, "usage: admit disconnect [--dry-run] [--yes] HOST...\n  HOST: %s\n", strings.Join(hostNames(connect.Hosts()), ", "))
		}
		fs.PrintDefaults()
	}
	// Flags may come before the agents' names and after them
	// (admit connect claude-code --dry-run); "--" ends the flags.
	for {
		if err := fs.Parse(args); err != nil {
			return o, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			for _, n := range rest {
				if err := o.addHost(n); err != nil {
					return o, err
				}
			}
			break
		}
		if err := o.addHost(rest[0]); err != nil {
			return o, err
		}
		args = rest[1:]
	}
	if err := o.settings.Check(); err != nil {
		return o, err
	}
	o.named = len(o.hosts) > 0
	if verb == "disconnect" && !o.named {
		return o, fmt.Errorf("name the agents to disconnect (%s)", strings.Join(hostNames(connect.Hosts()), ", "))
	}
	if o.list && o.named {
		return o, fmt.Errorf("--list takes no agents")
	}
	return o, nil
}

// stateWords is a host's state as --list shows it: the state, and where
// the host will not run admit's entries although they are connected, why
// in a few words ("connected, not trusted: inert").
func stateWords(st connect.Status) string {
	if st.Inert != "" {
		return st.State + ", " + st.Inert + ": inert"
	}
	return st.State
}

func (o *connectOptions) addHost(name string) error {
	h, ok := connect.Lookup(name)
	if !ok {
		return fmt.Errorf("unknown agent %q (want one of %s)", name, strings.Join(hostNames(connect.Hosts()), ", "))
	}
	o.hosts = append(o.hosts, h)
	return nil
}

// describe says what connecting would fix, in words.
func describe(st connect.Status) string {
	switch st.State {
	case connect.StateNotConnected:
		return "not connected"
	case connect.StateStale, connect.StateOutdated:
		return st.State + ": " + st.Problem
	case connect.StateConnected:
		return "connected to " + st.Binary
	}
	return st.State
}

// listAgents prints every host: installed, state, configuration, binary.
func listAgents(sys connect.System, opts connect.Options, binErr error, std Stdio) int {
	tw := tabwriter.NewWriter(std.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tHOST\tINSTALLED\tSTATE\tCONFIGURATION\tBINARY")
	var off []string
	for _, st := range connect.Survey(sys, opts) {
		if st.HooksOff != "" {
			off = append(off, st.Agent+": "+st.HooksOff)
		}
		if st.InertWhy != "" {
			off = append(off, st.Agent+": "+st.InertWhy)
		}
		installed := "no"
		if st.Installed {
			installed = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", st.Agent, st.Host, installed, stateWords(st), st.Config, st.Binary)
	}
	_ = tw.Flush()
	if len(off) > 0 {
		fmt.Fprintf(std.Out, "\n%s\n", strings.Join(off, "\n"))
	}
	if ps, path, err := loadPersonSettings(); err != nil {
		fmt.Fprintf(std.Out, "\n%v\n", err)
	} else {
		fmt.Fprintf(std.Out, "\nA hook deciding without the editor uses mode %s and effects %s (%s; admit connect --effects E --mode M).\n", orDefault(ps.Mode, "enforce"), orDefault(ps.Effects, "read-only"), path)
	}
	if binErr != nil {
		fmt.Fprintf(std.Out, "\nThis binary cannot be connected: %v\n", binErr)
	} else {
		fmt.Fprintf(std.Out, "\nadmit connect points the configurations at %s.\n", opts.Binary)
	}
	return exitOK
}

// selfBinary is the running binary, symlinks resolved: what the
// configurations will name.
func selfBinary() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("the running binary's path is unknown: %w", err)
	}
	return filepath.EvalSymlinks(self)
}

// connectPlace is where the binary must not be: the repository of the
// working folder (unless that is the home folder or the root, which is no
// workspace) and the temporary folder.
func connectPlace() connect.Place {
	var p connect.Place
	p.Temp = []string{filepath.Clean(os.TempDir())}
	if cwd, err := os.Getwd(); err == nil {
		// workspaceRoot never takes a stray .git in a shared folder (the
		// temporary folder) for the working folder's repository.
		if root := workspaceRoot(cwd); broadRoot(root) == nil && !sharedFolder(root) {
			p.Workspaces = append(p.Workspaces, root)
		}
	}
	return p
}

// SystemRootEnv names a folder that stands for the system's root folder
// when admit connect writes into the hosts' managed places: for tests.
const SystemRootEnv = "ADMIT_SYSTEM_ROOT"

// managedHosts is hosts with each one the managed layer's "hooks" names
// moved to the host's own managed place (connect.Host.Managed), where a
// repository's settings cannot switch the hook off; it says so for each,
// and says where a host has no such place (its person's files are used).
func managedHosts(hosts []*connect.Host, opts connect.Options, std Stdio) ([]*connect.Host, error) {
	layer, err := managed.Load(os.Getenv)
	if err != nil {
		return nil, fmt.Errorf("the managed policy: %w", err)
	}
	if layer == nil || len(layer.Hooks) == 0 {
		return hosts, nil
	}
	goos := opts.GOOS
	if goos == "" {
		goos = runtime.GOOS
	}
	root := os.Getenv(SystemRootEnv)
	if root != "" && !filepath.IsAbs(root) {
		return nil, fmt.Errorf("%s=%q: not an absolute folder", SystemRootEnv, root)
	}
	out := make([]*connect.Host, 0, len(hosts))
	for _, h := range hosts {
		if !slices.Contains(layer.Hooks, h.Name) && !slices.Contains(layer.Hooks, "*") {
			out = append(out, h)
			continue
		}
		m := h.Managed(goos, root)
		if m == nil {
			fmt.Fprintf(std.Out, "%s: your organisation's managed policy (%s) asks for the hook in %s's managed place, but %s has none admit knows on %s: its user configuration is used, which a repository's settings may switch off\n",
				h.Agent, layer.Where(), h.Agent, h.Agent, goos)
			out = append(out, h)
			continue
		}
		fmt.Fprintf(std.Out, "%s: your organisation's managed policy (%s) puts the hook in %s's managed place: %s\n", h.Agent, layer.Where(), h.Agent, h.ManagedNote)
		out = append(out, m)
	}
	return out, nil
}

// isTerminal says whether r is a terminal a person can answer on.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func hostNames(hs []*connect.Host) []string {
	names := make([]string, len(hs))
	for i, h := range hs {
		names[i] = h.Name
	}
	return names
}
