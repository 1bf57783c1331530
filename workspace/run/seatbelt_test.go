//go:build unix

package run

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// The Seatbelt profile is a pure function of its plan: these tests read
// its text on any system. Whether macOS takes it is what the darwin
// probe checks on the machine itself (walls_darwin.go).

// paramsOf maps the profile's parameter names to their paths.
func paramsOf(t *testing.T, params []string) map[string]string {
	t.Helper()
	if len(params)%2 != 0 {
		t.Fatalf("odd parameters %q", params)
	}
	out := map[string]string{}
	for i := 0; i < len(params); i += 2 {
		k, v, ok := strings.Cut(params[i+1], "=")
		if params[i] != "-D" || !ok {
			t.Fatalf("parameter %q %q", params[i], params[i+1])
		}
		out[k] = v
	}
	return out
}

// pathRules lists, for each rule of the profile, its operations and the
// paths its parameters name, as "op op: path path".
func pathRules(t *testing.T, text string, params []string) []string {
	t.Helper()
	byName := paramsOf(t, params)
	var out []string
	for _, rule := range strings.Split(text, "\n(allow ")[1:] {
		ops, _, _ := strings.Cut(rule, "\n")
		ops, _, _ = strings.Cut(ops, " (")
		var paths []string
		for _, m := range regexp.MustCompile(`\(param "([^"]+)"\)`).FindAllStringSubmatch(rule, -1) {
			if m[1] == "PROGRAM" {
				continue // given per program, by sandboxArgv
			}
			p, ok := byName[m[1]]
			if !ok {
				t.Fatalf("parameter %s used and not given", m[1])
			}
			paths = append(paths, p)
		}
		if len(paths) > 0 {
			out = append(out, ops+": "+strings.Join(paths, " "))
		}
	}
	return out
}

func hasRule(rules []string, prefix string, paths ...string) bool {
	for _, r := range rules {
		ops, got, _ := strings.Cut(r, ": ")
		if strings.HasPrefix(ops, prefix) && slices.Equal(strings.Fields(got), paths) {
			return true
		}
	}
	return false
}

func TestSeatbeltProfileJudged(t *testing.T) {
	plan := seatbeltPlan{
		Read:       []string{"/ws", "/private/etc/hosts"},
		Exec:       []string{"/usr", "/opt/homebrew"},
		Write:      []string{"/tmp/run", "/ws/out"},
		WriteFiles: []string{"/ws/a.txt"},
	}
	text, params := plan.profile()
	if !strings.HasPrefix(text, "(version 1)\n") || !strings.Contains(text, "\n(deny default)\n") {
		t.Fatalf("not deny-by-default:\n%s", text)
	}
	for _, p := range []string{"/ws", "/tmp/run", "/ws/a.txt", "/opt/homebrew"} {
		if strings.Contains(text, `"`+p+`"`) {
			t.Errorf("path %s written into the profile's text, not a parameter", p)
		}
	}
	rules := pathRules(t, text, params)
	for _, want := range []struct {
		ops   string
		paths []string
	}{
		{"file-read* file-test-existence", []string{"/ws", "/private/etc/hosts"}},
		{"file-read* file-test-existence process-exec file-map-executable", []string{"/usr", "/opt/homebrew"}},
		{"file-read* file-test-existence file-write*", []string{"/tmp/run"}},
		{"file-read* file-test-existence file-write*", []string{"/ws/out"}},
		{"file-read* file-test-existence file-write-data file-write-mode file-write-times", []string{"/ws/a.txt"}},
		{"file-read-metadata file-test-existence", []string{"/ws", "/private/etc/hosts", "/usr", "/opt/homebrew", "/tmp/run", "/ws/out", "/ws/a.txt"}},
	} {
		if !hasRule(rules, want.ops, want.paths...) {
			t.Errorf("no rule %s on %v in\n%s", want.ops, want.paths, strings.Join(rules, "\n"))
		}
	}
	// A judged command's file target: its contents and metadata, never
	// its entry (unlink or rename need its folder).
	for _, r := range rules {
		if strings.Contains(r, "/ws/a.txt") && !strings.HasPrefix(r, "file-read-metadata") &&
			(strings.Contains(r, "file-write*") || strings.Contains(r, "unlink") || strings.Contains(r, "create")) {
			t.Errorf("a file target may be removed or replaced: %s", r)
		}
	}
	for _, closed := range []string{"network-outbound", "network-inbound", "network-bind", "system-socket", "(target others)", "process-info* (target", "/dev/tty"} {
		if closed == "process-info* (target" {
			if !strings.Contains(text, "(allow process-info* (target same-sandbox))") {
				t.Errorf("process information not limited to the run")
			}
			continue
		}
		if strings.Contains(text, closed) {
			t.Errorf("a run with the network closed has %s:\n%s", closed, text)
		}
	}
	if !strings.Contains(text, "(allow signal (target same-sandbox))") || strings.Count(text, "(allow signal") != 1 {
		t.Errorf("signals not limited to the run:\n%s", text)
	}
	for _, secret := range []string{"com.apple.SecurityServer", "cfprefsd", "user-preference", "kern.procargs", "ipc-sysv", "ipc-posix-shm-write", "file-write* (subpath \"/"} {
		if strings.Contains(text, secret) {
			t.Errorf("profile opens %s", secret)
		}
	}
}

func TestSeatbeltProfileKeep(t *testing.T) {
	plan := seatbeltPlan{
		Write: []string{"/ws", "/tmp/run"},
		Keep:  []string{"/ws/.git", "/ws/node_modules/.pnpm/x/index.js", "/ws/fifo"},
	}
	text, params := plan.profile()
	byName := paramsOf(t, params)
	name := func(p string) string {
		for k, v := range byName {
			if v == p {
				return k
			}
		}
		t.Fatalf("no parameter for %s", p)
		return ""
	}
	ws, tmp := name("/ws"), name("/tmp/run")
	// The workspace is read whole and written except what is kept.
	if !strings.Contains(text, fmt.Sprintf("(allow file-read* file-test-existence (subpath (param %q)))", ws)) {
		t.Errorf("workspace not readable:\n%s", text)
	}
	i := strings.Index(text, fmt.Sprintf("(allow file-write* (require-all (subpath (param %q))", ws))
	if i < 0 {
		t.Fatalf("no write rule with exceptions for the workspace:\n%s", text)
	}
	rule := text[i:]
	rule = rule[:strings.Index(rule, "\n(")+1]
	for _, k := range plan.Keep {
		for _, f := range []string{"literal", "subpath"} {
			if !strings.Contains(rule, fmt.Sprintf("(require-not (%s (param %q)))", f, name(k))) {
				t.Errorf("%s not kept by %s in\n%s", k, f, rule)
			}
		}
	}
	// The folders above a kept path are not renamed or removed: the
	// kept file cannot be moved from under its name and written.
	for _, a := range []string{"/ws/node_modules/.pnpm/x", "/ws/node_modules/.pnpm", "/ws/node_modules", "/ws"} {
		if !strings.Contains(rule, fmt.Sprintf("(require-not (literal (param %q)))", name(a))) {
			t.Errorf("%s, above a kept path, may be renamed:\n%s", a, rule)
		}
	}
	if strings.Contains(rule, fmt.Sprintf("(param %q)", tmp)) {
		t.Errorf("the temporary folder's rule carries the workspace's exceptions")
	}
	if !strings.Contains(text, fmt.Sprintf("(allow file-read* file-test-existence file-write* (subpath (param %q)))", tmp)) {
		t.Errorf("the temporary folder is not written whole:\n%s", text)
	}
	if strings.Contains(text, fmt.Sprintf("file-write* (subpath (param %q)))", ws)) {
		t.Errorf("the workspace is written whole, kept paths included:\n%s", text)
	}
}

// TestSeatbeltProfileAbsent: the protected names a root does not have
// are never made, in any case of their letters, nor anything beneath
// them; the same names deeper, and longer names, are the run's. The
// expressions name only the root's depth, never its folders.
func TestSeatbeltProfileAbsent(t *testing.T) {
	plan := seatbeltPlan{
		Write:  []string{"/Users/p/ws", "/tmp/run"},
		Absent: []string{"/Users/p/ws/.vscode", "/Users/p/ws/.envrc", "/Users/p/ws/rust-toolchain.toml"},
	}
	text, _ := plan.profile()
	i := strings.Index(text, "(allow file-write* (require-all (subpath (param ")
	if i < 0 {
		t.Fatalf("no write rule with exceptions:\n%s", text)
	}
	rule := text[i:]
	rule = rule[:strings.Index(rule, "\n(")+1]
	if strings.Contains(text, "Users") || strings.Contains(text, "/p/") {
		t.Errorf("a folder's name is in the profile's text:\n%s", text)
	}
	var res []*regexp.Regexp
	for _, m := range regexp.MustCompile(`\(require-not \(regex #"([^"]*)"\)\)`).FindAllStringSubmatch(rule, -1) {
		res = append(res, regexp.MustCompile(m[1]))
	}
	if len(res) != 2*len(plan.Absent) {
		t.Fatalf("%d expressions for %d names:\n%s", len(res), len(plan.Absent), rule)
	}
	denied := func(p string) bool {
		for _, re := range res {
			if re.MatchString(p) {
				return true
			}
		}
		return false
	}
	for _, p := range []string{"/Users/p/ws/.vscode", "/Users/p/ws/.VSCode/tasks.json", "/Users/p/ws/.envrc", "/Users/p/ws/.ENVRC", "/Users/p/ws/Rust-Toolchain.TOML"} {
		if !denied(p) {
			t.Errorf("%s may be made", p)
		}
	}
	for _, p := range []string{"/Users/p/ws/sub/.vscode", "/Users/p/ws/.vscodex", "/Users/p/ws/x.envrc", "/Users/p/ws/rust-toolchainxtoml", "/Users/p/ws/app"} {
		if denied(p) {
			t.Errorf("%s is refused", p)
		}
	}
	if strings.Count(text, "(regex ") != len(res) {
		t.Errorf("another rule than the workspace's carries the names:\n%s", text)
	}
}

func TestSeatbeltProfileNetwork(t *testing.T) {
	closed, _ := seatbeltPlan{Write: []string{"/ws"}}.profile()
	open, _ := seatbeltPlan{Write: []string{"/ws"}, Network: true}.profile()
	for _, want := range []string{
		`(allow network-outbound (remote ip "*:*"))`, `(allow network-bind (local ip "*:*"))`,
		`(allow network-inbound (local ip "*:*"))`, `(allow network-outbound (literal "/private/var/run/mDNSResponder"))`,
		`"com.apple.SystemConfiguration.DNSConfiguration"`,
	} {
		if !strings.Contains(open, want) {
			t.Errorf("network open lacks %s", want)
		}
		if strings.Contains(closed, want) {
			t.Errorf("network closed has %s", want)
		}
	}
	// Unix sockets stay closed with the network open: only the resolver's.
	if strings.Contains(open, "unix-socket") || strings.Count(open, "(literal \"/private/var/run/") != 1 {
		t.Errorf("network open reaches unix sockets:\n%s", open)
	}
}

// TestSeatbeltProfileText: a path's bytes never change the profile's
// text (quotes, parentheses, newlines and semicolons included): paths
// are parameters only.
func TestSeatbeltProfileText(t *testing.T) {
	plain := seatbeltPlan{Read: []string{"/a"}, Write: []string{"/b"}, Keep: []string{"/b/c"}, WriteFiles: []string{"/d"}}
	hostile := seatbeltPlan{
		Read:       []string{`/a")) (allow default) (("`},
		Write:      []string{"/b\n(allow default)\n;"},
		Keep:       []string{"/b\n(allow default)\n;/c"},
		WriteFiles: []string{`/d\"`},
	}
	pt, pp := plain.profile()
	ht, hp := hostile.profile()
	if pt != ht {
		t.Fatalf("a path changed the profile:\n%s\n---\n%s", pt, ht)
	}
	if len(pp) != len(hp) {
		t.Fatalf("parameters %q vs %q", pp, hp)
	}
	if strings.Contains(ht, "allow default") {
		t.Fatalf("injected")
	}
}

func TestUniformWalls(t *testing.T) {
	names := func(ws []Wall) []string {
		var out []string
		for _, w := range ws {
			out = append(out, w.String())
		}
		return out
	}
	judgedLinux, _ := layout{abi: 7, seccomp: true}.walls()
	codeLinux, _ := layout{abi: 7, seccomp: true, confiner: true, netns: true, code: true}.walls()
	for _, tc := range []struct {
		code, network bool
		by            string
		like          []Wall // the same walls, in the same order, as Linux's
		missing       []string
	}{
		{false, false, BySeatbelt, judgedLinux, nil},
		{true, false, BySeatbelt, codeLinux, nil},
		{false, false, "", judgedLinux, []string{WallFSRead, WallFSWrite, WallNetTCP, WallNetUDP, WallUnixSockets, WallSignals, WallPtrace, WallIPC}},
		{true, false, "", codeLinux, []string{WallFSRead, WallFSWrite, WallFSMetadata, WallProtected, WallHardLinks, WallNetTCP, WallNetUDP, WallUnixSockets, WallSignals, WallPtrace, WallIPC}},
		{true, true, "", codeLinux, []string{WallFSRead, WallFSWrite, WallFSMetadata, WallProtected, WallHardLinks, WallUnixSockets, WallSignals, WallPtrace, WallIPC}},
	} {
		walls, missing := uniformWalls(tc.code, tc.network, tc.by)
		if len(walls) != len(tc.like) {
			t.Errorf("%+v: walls %v, Linux has %v", tc, names(walls), names(tc.like))
			continue
		}
		for i, w := range walls {
			if w.Name != tc.like[i].Name {
				t.Errorf("%+v: wall %d is %s, Linux's %s", tc, i, w.Name, tc.like[i].Name)
			}
			isNet := w.Name == WallNetTCP || w.Name == WallNetUDP
			switch {
			case tc.network && isNet:
				if !w.Open || w.InForce() {
					t.Errorf("%+v: %s not open", tc, w)
				}
			case w.By != tc.by:
				t.Errorf("%+v: %s, want by %q", tc, w, tc.by)
			}
		}
		if !slices.Equal(missing, tc.missing) {
			t.Errorf("%+v: missing %v, want %v", tc, missing, tc.missing)
		}
	}
	walls, missing := uniformWalls(true, false, BySeatbelt)
	missing = weaken(walls, missing, WallHardLinks)
	if !slices.Equal(missing, []string{WallHardLinks}) || walls[4].Name != WallHardLinks || walls[4].InForce() {
		t.Errorf("weakened: %v %v", names(walls), missing)
	}
}

func TestMachineSummary(t *testing.T) {
	walls, _ := uniformWalls(true, false, BySeatbelt)
	none, missing := uniformWalls(true, false, "")
	for _, tc := range []struct {
		m      Machine
		want   string
		layers string
	}{
		{Machine{OS: "linux", Sandbox: SandboxLandlock, LandlockABI: 7, Seccomp: true, Namespaces: true}, "landlock (ABI 7), seccomp, namespaces", "landlock ABI 7"},
		{Machine{OS: "linux", Sandbox: SandboxLandlock, LandlockABI: 3}, "landlock (ABI 3)", "landlock ABI 3"},
		{Machine{OS: "darwin", Sandbox: SandboxSeatbelt, Code: walls}, "seatbelt", "seatbelt; fs-read: seatbelt"},
		{Machine{OS: "windows", Sandbox: SandboxNone, Code: none, MissingCode: missing}, "none", "none; fs-read: missing"},
	} {
		if got := tc.m.Summary(); got != tc.want {
			t.Errorf("%s: summary %q, want %q", tc.m.OS, got, tc.want)
		}
		if got := strings.Join(tc.m.Layers(), "; "); !strings.HasPrefix(got, tc.layers) {
			t.Errorf("%s: layers %q", tc.m.OS, got)
		}
	}
}

// seatbeltWorkspace is a workspace as a run of code meets it: a git
// folder, a package linked in from a store outside (every file
// hard-linked), a hard-linked file beside ordinary ones, a FIFO.
func seatbeltWorkspace(t *testing.T) (root, store string) {
	t.Helper()
	root, store = t.TempDir(), t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	write := func(p, s string) {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(rel string) {
		s := filepath.Join(store, strings.ReplaceAll(rel, "/", "_"))
		write(s, rel)
		os.MkdirAll(filepath.Dir(filepath.Join(root, rel)), 0o755)
		if err := os.Link(s, filepath.Join(root, rel)); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, ".git/HEAD"), "ref: refs/heads/main\n")
	write(filepath.Join(root, "src/main.go"), "package main\n")
	link("node_modules/.pnpm/left-pad/index.js")
	link("node_modules/.pnpm/left-pad/package.json")
	link("src/shared.txt")
	if err := syscall.Mkfifo(filepath.Join(root, "src/fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	return root, store
}

func TestPlanSeatbelt(t *testing.T) {
	root, _ := seatbeltWorkspace(t)
	temp := t.TempDir()
	home := t.TempDir()
	cache := filepath.Join(home, "Library", "Caches", "go-build")
	os.MkdirAll(cache, 0o755)
	env := ScrubEnv([]string{"PATH=/usr/bin:/bin:" + filepath.Join(root, "bin"), "HOME=" + home, "GOCACHE=" + cache})
	protected := func(p string) bool { return filepath.Base(p) == ".git" }

	code, capped, err := planSeatbelt(seatbeltInputs{Roots: []string{root}, Temp: temp, Env: env, Code: true, Protected: protected, RootNames: []string{".vscode", ".envrc"}})
	if err != nil || capped {
		t.Fatalf("plan: %v %v", err, capped)
	}
	if want := []string{filepath.Join(root, ".vscode"), filepath.Join(root, ".envrc")}; !slices.Equal(code.Absent, want) {
		t.Errorf("absent %q, want %q", code.Absent, want)
	}
	for _, want := range []struct {
		what  string
		list  []string
		paths []string
	}{
		{"kept", code.Keep, []string{filepath.Join(root, ".git"), filepath.Join(root, "node_modules"), filepath.Join(root, "src/shared.txt"), filepath.Join(root, "src/fifo")}},
		{"written", code.Write, []string{temp, root}},
		{"executed", code.Exec, []string{temp, root, cache, "/usr"}},
	} {
		for _, p := range want.paths {
			if !slices.Contains(want.list, p) {
				t.Errorf("%s lacks %s: %q", want.what, p, want.list)
			}
		}
	}
	// The person's caches are read and executed, never written (caches.go).
	if slices.Contains(code.Write, cache) {
		t.Errorf("a run of code writes the person's cache %s: %q", cache, code.Write)
	}
	// Nothing of the home folder but the cache; no PATH entry inside
	// the workspace.
	for _, p := range slices.Concat(code.Read, code.Exec, code.Write) {
		if p == home || (within(p, []string{home}) && !within(p, []string{cache})) || p == filepath.Join(root, "bin") || p == "/" {
			t.Errorf("plan grants %s", p)
		}
	}
	if slices.Contains(code.Keep, filepath.Join(root, "node_modules/.pnpm/left-pad/index.js")) {
		t.Errorf("a package linked in whole is kept file by file, not as its folder: %q", code.Keep)
	}

	target := filepath.Join(root, "src/main.go")
	judged, _, err := planSeatbelt(seatbeltInputs{Roots: []string{root}, Temp: temp, Env: env,
		Writes: []string{target, filepath.Join(root, "src"), filepath.Join(root, "missing")}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(judged.WriteFiles, []string{target}) || !slices.Equal(judged.Write, []string{temp, filepath.Join(root, "src")}) {
		t.Errorf("judged writes: files %q folders %q", judged.WriteFiles, judged.Write)
	}
	if !slices.Contains(judged.Read, root) || slices.Contains(judged.Exec, root) || len(judged.Keep) != 0 {
		t.Errorf("judged: the workspace is read, not executed: read %q exec %q keep %q", judged.Read, judged.Exec, judged.Keep)
	}
	if slices.Contains(judged.Exec, cache) || slices.Contains(judged.Write, cache) {
		t.Errorf("a judged command gets the toolchains' caches")
	}
	// The program a judged command starts is read and executed, as
	// found through a link: the profile's PROGRAM, given per program.
	argv := sandboxArgv("/run.sb", []string{"-D", "P_0=/ws"}, "/bin/../usr/bin/env", []string{"-i", "--", "x"})
	want := []string{"sandbox-exec", "-f", "/run.sb", "-D", "P_0=/ws", "-D", "PROGRAM=" + resolve("/usr/bin/env"), "--", "/bin/../usr/bin/env", "-i", "--", "x"}
	if !slices.Equal(argv, want) {
		t.Errorf("argv %q\nwant %q", argv, want)
	}
	text, _ := judged.profile()
	if !strings.Contains(text, `(allow file-read* file-test-existence process-exec file-map-executable (literal (param "PROGRAM")))`) {
		t.Errorf("the program's file is not executable:\n%s", text)
	}
	if _, _, err := planSeatbelt(seatbeltInputs{Roots: []string{root}, Temp: temp, Env: env, Code: true}); err == nil {
		t.Errorf("a run of code planned without its protected paths")
	}
}

// TestPlanSeatbeltCapped: past maxLinkBinds hard-linked files, the plan
// says so (the run then misses the hard-links wall) rather than growing
// without bound.
func TestPlanSeatbeltCapped(t *testing.T) {
	root, store := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(root, "own.txt"), nil, 0o644)
	src := filepath.Join(store, "f")
	os.WriteFile(src, nil, 0o644)
	for i := range maxLinkBinds + 1 {
		if err := os.Link(src, filepath.Join(root, fmt.Sprintf("l%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	plan, capped, err := planSeatbelt(seatbeltInputs{Roots: []string{root}, Temp: t.TempDir(), Code: true,
		Protected: func(string) bool { return false }})
	if err != nil || !capped || len(plan.Keep) > maxLinkBinds {
		t.Fatalf("capped %v, %d kept, %v", capped, len(plan.Keep), err)
	}
}

// TestSeatbeltParamsFit: the parameters of a workspace with as many
// hard-linked packages as the plan keeps fit sandbox-exec's command line,
// and a workspace past that is capped rather than a command line too long.
func TestSeatbeltParamsFit(t *testing.T) {
	size := func(params []string) int {
		n := 0
		for _, p := range params {
			n += len(p) + 1
		}
		return n
	}
	root, store := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(root, "own.txt"), nil, 0o644)
	src := filepath.Join(store, "f")
	os.WriteFile(src, nil, 0o644)
	pnpm := filepath.Join(root, "node_modules", ".pnpm")
	os.MkdirAll(pnpm, 0o755)
	os.WriteFile(filepath.Join(pnpm, "lock.yaml"), nil, 0o644)
	for i := range 3000 {
		// A package as pnpm links it in: every file a hard link.
		dir := filepath.Join(pnpm, fmt.Sprintf("some-package-%d@1.2.%d", i, i), "node_modules", fmt.Sprintf("some-package-%d", i))
		os.MkdirAll(dir, 0o755)
		if err := os.Link(src, filepath.Join(dir, "index.js")); err != nil {
			t.Fatal(err)
		}
	}
	plan, capped, err := planSeatbelt(seatbeltInputs{Roots: []string{root}, Temp: t.TempDir(), Code: true,
		Protected: func(string) bool { return false }})
	if err != nil || capped || len(plan.Keep) != 3000 {
		t.Fatalf("capped %v, %d kept, %v", capped, len(plan.Keep), err)
	}
	_, params := plan.profile()
	if n := size(params); n > maxParamBytes+64<<10 {
		t.Fatalf("3,000 packages take %d bytes of parameters", n)
	}
	// Long names, each in a folder of its own: the budget, not the
	// count, caps them.
	deep := t.TempDir()
	os.WriteFile(filepath.Join(deep, "own.txt"), nil, 0o644)
	for i := range 3000 {
		dir := filepath.Join(deep, strings.Repeat("d", 100), fmt.Sprintf("%s-%d", strings.Repeat("e", 60), i))
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "own.txt"), nil, 0o644)
		if err := os.Link(src, filepath.Join(dir, strings.Repeat("f", 60))); err != nil {
			t.Fatal(err)
		}
	}
	plan, capped, err = planSeatbelt(seatbeltInputs{Roots: []string{deep}, Temp: t.TempDir(), Code: true,
		Protected: func(string) bool { return false }})
	_, params = plan.profile()
	if err != nil || !capped || size(params) > maxParamBytes+64<<10 {
		t.Fatalf("capped %v, %d kept, %d bytes, %v", capped, len(plan.Keep), size(params), err)
	}
}

// TestSeatbeltProfileHidden: a hidden file is denied every read and
// write after every grant (the last rule that matches wins), and kept,
// so that no folder above it is renamed to move it from under its name.
func TestSeatbeltProfileHidden(t *testing.T) {
	ws := t.TempDir()
	plan, _, err := planSeatbelt(seatbeltInputs{Roots: []string{ws}, Writes: []string{ws}, Temp: t.TempDir(), Hidden: []string{filepath.Join(ws, "sub", ".env")}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(plan.Hidden, []string{filepath.Join(ws, "sub", ".env")}) || !slices.Contains(plan.Keep, filepath.Join(ws, "sub", ".env")) {
		t.Fatalf("plan: hidden %v, keep %v", plan.Hidden, plan.Keep)
	}
	text, params := plan.profile()
	var key string
	for k, v := range paramsOf(t, params) {
		if v == filepath.Join(ws, "sub", ".env") {
			key = k
		}
	}
	deny := fmt.Sprintf("(deny file-read* file-write* (literal (param %q)))", key)
	i := strings.Index(text, deny)
	if key == "" || i < 0 || strings.LastIndex(text, "(allow file-") > i {
		t.Fatalf("the hidden file is not denied after every grant:\n%s", text)
	}
	if !strings.Contains(text, fmt.Sprintf("(require-not (literal (param %q)))", keyOf(t, params, filepath.Join(ws, "sub")))) {
		t.Errorf("the folder above the hidden file may be renamed:\n%s", text)
	}
}

func keyOf(t *testing.T, params []string, path string) string {
	t.Helper()
	for k, v := range paramsOf(t, params) {
		if v == path {
			return k
		}
	}
	t.Fatalf("no parameter for %s", path)
	return ""
}
