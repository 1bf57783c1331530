package command

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	"admit/policy/rule"
)

// Environment variables that name a place a program writes, reads or runs
// from: an assignment before a command (GOCACHE=/tmp/x go build, env
// TMPDIR=... cmd, export NAME=...; cmd) moves the program's work there,
// beyond what its words show, so the value is judged as the path it is.
// Those that move all of a program's configuration at once (HOME, XDG_*,
// GIT_*, PATH, CARGO_HOME, ...) are refused by runsWith before this table
// is read; those that load code (PYTHONPATH, NODE_OPTIONS) are codeVars.

// envUse is what a program does with the place a variable names; a
// variable may do more than one.
type envUse uint8

const (
	// envWrites: caches, build and install folders, temporary folders,
	// history files. Inside the workspace a write there (effect mode,
	// protected paths); outside refused, as an outside write is.
	envWrites envUse = 1 << iota
	// envReads: a file or folder of data the program trusts (certificate
	// bundles, a credentials file). Judged as a read of it: inside, a
	// secret's name asks; outside, as an outside read is (asked or
	// refused). The system's certificate stores are read anyway.
	envReads
	// envConfig: settings the program reads that can name programs it
	// starts (kubeconfig's exec plugins, docker's credsStore, .curlrc,
	// gh's aliases). Inside, the command is asked as code of the
	// workspace that runs; outside refused.
	envConfig
	// envRuns: a folder the program runs its tools or loads its packages
	// from (GOROOT, JAVA_HOME, GEM_HOME). Inside asked as code that runs;
	// outside refused, except the system's own folders (/usr, /opt).
	envRuns
	// envTemp: a temporary folder, for which the system's own (/tmp,
	// /var/tmp) is where the program writes anyway.
	envTemp
	// envSource: where a package manager downloads the packages whose
	// code it then runs (a registry, an index, a module proxy), as URLs
	// or paths. A registry other than the public default is asked as code
	// that runs; a path is a folder of packages, judged as envRuns is.
	envSource
)

// envPath is one variable of the table: what the program does with its
// place, whether the value is a ':'-separated list, and what it is, for
// reasons.
type envPath struct {
	use  envUse
	list bool
	what string
	// scratch: a cache, build or temporary folder that holds only what
	// the program itself puts there, so a fresh one under the system's
	// temporary folder (scratchTemp) changes nothing the program trusts:
	// the command is judged as it would be without the variable.
	scratch bool
}

// envPaths are the variables by name. npm's settings (npm_config_KEY in
// any case, - or _) are in npmPathKeys.
var envPaths = map[string]envPath{
	// Go
	"GOCACHE":    {use: envWrites, scratch: true, what: "the Go build cache, whose entries later builds trust"},
	"GOMODCACHE": {use: envWrites, scratch: true, what: "the Go module cache, whose code later builds compile"},
	"GOPATH":     {use: envWrites, list: true, scratch: true, what: "the Go workspace, where go writes modules and installs programs"},
	"GOBIN":      {use: envWrites, what: "the folder go install writes programs to"},
	"GOTMPDIR":   {use: envWrites | envTemp, scratch: true, what: "the folder go writes its temporary files to"},
	"GOCOVERDIR": {use: envWrites, scratch: true, what: "the folder coverage data is written to"},
	"GOENV":      {use: envConfig | envWrites, what: "the file of go's settings (GOFLAGS=-toolexec runs a program), which go env -w writes"},
	"GOROOT":     {use: envRuns, what: "the Go toolchain go runs its compiler and tools from"},
	"GOPROXY":    {use: envSource, what: "the module proxies go downloads modules from"},
	// temporary folders
	"TMPDIR":  {use: envWrites | envTemp, scratch: true, what: "the folder programs write their temporary files to"},
	"TMP":     {use: envWrites | envTemp, scratch: true, what: "the folder programs write their temporary files to"},
	"TEMP":    {use: envWrites | envTemp, scratch: true, what: "the folder programs write their temporary files to"},
	"TEMPDIR": {use: envWrites | envTemp, scratch: true, what: "the folder programs write their temporary files to"},
	// JavaScript
	"YARN_CACHE_FOLDER":        {use: envWrites, scratch: true, what: "yarn's package cache, whose packages later installs trust"},
	"YARN_GLOBAL_FOLDER":       {use: envWrites, what: "the folder yarn installs global packages to"},
	"YARN_RC_FILENAME":         {use: envConfig, what: "the name of the file of yarn's settings"},
	"PNPM_HOME":                {use: envWrites | envRuns, what: "the folder pnpm installs global programs to"},
	"BUN_INSTALL":              {use: envWrites | envRuns, what: "the folder bun installs global programs to"},
	"BUN_INSTALL_CACHE_DIR":    {use: envWrites, scratch: true, what: "bun's package cache"},
	"DENO_DIR":                 {use: envWrites, scratch: true, what: "deno's cache of modules, whose code later runs trust"},
	"COREPACK_HOME":            {use: envWrites | envRuns, what: "the folder corepack keeps the package managers it runs in"},
	"NODE_EXTRA_CA_CERTS":      {use: envReads, what: "certificates node trusts besides its own"},
	"YARN_REGISTRY":            {use: envSource, what: "the registry yarn installs packages from"},
	"YARN_NPM_REGISTRY_SERVER": {use: envSource, what: "the registry yarn installs packages from"},
	"BUN_CONFIG_REGISTRY":      {use: envSource, what: "the registry bun installs packages from"},
	"NODE_REPL_HISTORY":        {use: envWrites, what: "the file node writes its REPL history to"},
	"NODE_V8_COVERAGE":         {use: envWrites, scratch: true, what: "the folder node writes coverage data to"},
	"TURBO_CACHE_DIR":          {use: envWrites, scratch: true, what: "turbo's cache of task outputs, which later runs replay"},
	"NX_CACHE_DIRECTORY":       {use: envWrites, scratch: true, what: "nx's cache of task outputs, which later runs replay"},
	// Python
	"PIP_CACHE_DIR":           {use: envWrites, scratch: true, what: "pip's cache of downloads and wheels, which later installs trust"},
	"PIP_TARGET":              {use: envWrites, what: "the folder pip installs packages to"},
	"PIP_PREFIX":              {use: envWrites, what: "the prefix pip installs packages under"},
	"PIP_SRC":                 {use: envWrites, what: "the folder pip checks editable packages out to"},
	"PIP_CERT":                {use: envReads, what: "the certificate bundle pip trusts"},
	"PIP_INDEX_URL":           {use: envSource, what: "the package index pip installs from"},
	"PIP_EXTRA_INDEX_URL":     {use: envSource, what: "more package indexes pip installs from"},
	"PIP_FIND_LINKS":          {use: envSource, what: "pages or folders of packages pip installs from"},
	"UV_INDEX_URL":            {use: envSource, what: "the package index uv installs from"},
	"UV_DEFAULT_INDEX":        {use: envSource, what: "the package index uv installs from"},
	"UV_INDEX":                {use: envSource, what: "more package indexes uv installs from"},
	"UV_EXTRA_INDEX_URL":      {use: envSource, what: "more package indexes uv installs from"},
	"UV_FIND_LINKS":           {use: envSource, what: "pages or folders of packages uv installs from"},
	"PIPENV_PYPI_MIRROR":      {use: envSource, what: "the package index pipenv installs from"},
	"UV_CACHE_DIR":            {use: envWrites, scratch: true, what: "uv's cache of packages, which later installs trust"},
	"UV_TOOL_DIR":             {use: envWrites | envRuns, what: "the folder uv installs tools to"},
	"UV_TOOL_BIN_DIR":         {use: envWrites | envRuns, what: "the folder uv installs tools' programs to"},
	"UV_PYTHON_INSTALL_DIR":   {use: envWrites | envRuns, what: "the folder uv installs Python interpreters to"},
	"UV_PROJECT_ENVIRONMENT":  {use: envWrites | envRuns, what: "the virtual environment uv installs into and runs from"},
	"VIRTUAL_ENV":             {use: envWrites | envRuns, what: "the virtual environment the tools install into and run from"},
	"CONDA_PREFIX":            {use: envWrites | envRuns, what: "the conda environment the tools install into and run from"},
	"POETRY_CACHE_DIR":        {use: envWrites, scratch: true, what: "poetry's cache of packages"},
	"POETRY_VIRTUALENVS_PATH": {use: envWrites | envRuns, what: "the folder poetry makes its virtual environments in"},
	"PIPENV_CACHE_DIR":        {use: envWrites, scratch: true, what: "pipenv's cache of packages"},
	"WORKON_HOME":             {use: envWrites | envRuns, what: "the folder of virtual environments pipenv and virtualenvwrapper use"},
	"PYTHONPYCACHEPREFIX":     {use: envWrites, scratch: true, what: "the folder Python writes its compiled bytecode to, which later imports trust"},
	"MYPY_CACHE_DIR":          {use: envWrites, scratch: true, what: "mypy's cache"},
	"RUFF_CACHE_DIR":          {use: envWrites, scratch: true, what: "ruff's cache"},
	"PRE_COMMIT_HOME":         {use: envWrites | envRuns, what: "the folder pre-commit installs its hooks' environments to"},
	"COVERAGE_FILE":           {use: envWrites, what: "the file coverage.py writes its data to"},
	"PYTHON_HISTORY":          {use: envWrites, what: "the file Python writes its REPL history to"},
	"IPYTHONDIR":              {use: envConfig | envWrites, what: "IPython's folder, whose startup scripts run"},
	"JUPYTER_CONFIG_DIR":      {use: envConfig | envWrites, what: "Jupyter's settings, which may run code"},
	"MPLCONFIGDIR":            {use: envConfig | envWrites, scratch: true, what: "matplotlib's settings and cache"},
	"REQUESTS_CA_BUNDLE":      {use: envReads, what: "the certificate bundle requests trusts"},
	// Rust, C
	"CARGO_TARGET_DIR":       {use: envWrites, scratch: true, what: "the folder cargo writes its builds to"},
	"CARGO_BUILD_TARGET_DIR": {use: envWrites, scratch: true, what: "the folder cargo writes its builds to"},
	"CARGO_INSTALL_ROOT":     {use: envWrites, what: "the folder cargo install writes programs to"},
	"CARGO_HTTP_CAINFO":      {use: envReads, what: "the certificate bundle cargo trusts"},
	"SCCACHE_DIR":            {use: envWrites, scratch: true, what: "sccache's cache of compiled objects, which later builds link"},
	"CCACHE_DIR":             {use: envWrites, scratch: true, what: "ccache's cache of compiled objects, which later builds link"},
	"LLVM_PROFILE_FILE":      {use: envWrites, what: "the file instrumented programs write their profile to"},
	// JVM, .NET, Ruby
	"JAVA_HOME":          {use: envRuns, what: "the JDK whose java the build tools run"},
	"GRADLE_USER_HOME":   {use: envConfig | envWrites, what: "gradle's folder, whose init scripts run with every build"},
	"NUGET_PACKAGES":     {use: envWrites, scratch: true, what: "NuGet's package cache, whose packages later builds trust"},
	"DOTNET_CLI_HOME":    {use: envConfig | envWrites, what: "the folder of the dotnet tool's settings and tools"},
	"GEM_HOME":           {use: envWrites | envRuns, what: "the folder gems are installed to and loaded from"},
	"GEM_PATH":           {use: envRuns, list: true, what: "the folders gems are loaded from"},
	"BUNDLE_PATH":        {use: envWrites | envRuns, what: "the folder bundler installs gems to and loads them from"},
	"BUNDLE_SSL_CA_CERT": {use: envReads, what: "the certificate bundle bundler trusts"},
	// certificates and credentials read
	"SSL_CERT_FILE":                    {use: envReads, what: "the certificate bundle OpenSSL trusts"},
	"SSL_CERT_DIR":                     {use: envReads, list: true, what: "the folders of certificates OpenSSL trusts"},
	"CURL_CA_BUNDLE":                   {use: envReads, what: "the certificate bundle curl trusts"},
	"AWS_CA_BUNDLE":                    {use: envReads, what: "the certificate bundle the AWS tools trust"},
	"GRPC_DEFAULT_SSL_ROOTS_FILE_PATH": {use: envReads, what: "the certificates gRPC trusts"},
	"DOCKER_CERT_PATH":                 {use: envReads, what: "the folder of docker's client certificates and key"},
	"AWS_SHARED_CREDENTIALS_FILE":      {use: envReads, what: "the AWS tools' credentials file"},
	"GOOGLE_APPLICATION_CREDENTIALS":   {use: envReads, what: "a Google service account's key file"},
	"NETRC":                            {use: envReads, what: "the file of logins programs send to hosts"},
	"PGPASSFILE":                       {use: envReads, what: "PostgreSQL's file of passwords"},
	"PGSERVICEFILE":                    {use: envReads, what: "PostgreSQL's file of connections"},
	"SSH_AUTH_SOCK":                    {use: envReads, what: "the socket of the ssh agent whose keys ssh and git use"},
	"PASSWORD_STORE_DIR":               {use: envReads | envWrites, what: "pass's store of secrets"},
	// configuration that can name programs
	"KUBECONFIG":          {use: envConfig, list: true, what: "kubectl's configuration, whose exec plugins it runs, with its clusters' credentials"},
	"DOCKER_CONFIG":       {use: envConfig | envWrites, what: "docker's configuration, whose credential helpers it runs"},
	"AWS_CONFIG_FILE":     {use: envConfig, what: "the AWS tools' configuration, whose credential_process they run"},
	"GNUPGHOME":           {use: envConfig | envWrites, what: "gpg's folder of keys and settings, which name the programs it starts"},
	"CURL_HOME":           {use: envConfig, what: "the folder of curl's .curlrc, more options for every curl"},
	"WGETRC":              {use: envConfig, what: "wget's file of settings, more options for every wget"},
	"RIPGREP_CONFIG_PATH": {use: envConfig, what: "ripgrep's file of options (--pre runs a program on every file)"},
	"GH_CONFIG_DIR":       {use: envConfig | envWrites, what: "gh's configuration, whose aliases run shell lines"},
	"GLAB_CONFIG_DIR":     {use: envConfig | envWrites, what: "glab's configuration, whose aliases run commands"},
	"BOTO_CONFIG":         {use: envConfig, what: "the configuration of gsutil and boto"},
	"CLOUDSDK_CONFIG":     {use: envConfig | envWrites, what: "gcloud's configuration and credentials"},
	"AZURE_CONFIG_DIR":    {use: envConfig | envWrites, what: "the Azure CLI's configuration and credentials"},
	"TF_CLI_CONFIG_FILE":  {use: envConfig, what: "terraform's configuration, which names its credential helpers and providers"},
	"TF_PLUGIN_CACHE_DIR": {use: envWrites | envRuns, what: "terraform's cache of providers, programs later runs start"},
	"HELM_CONFIG_HOME":    {use: envConfig | envWrites, what: "helm's configuration, plugins and repositories"},
	"HELM_PLUGINS":        {use: envRuns, what: "the folder helm runs its plugins from"},
	"TS_NODE_PROJECT":     {use: envConfig, what: "the tsconfig ts-node reads, which may name modules it loads"},
	// history files of shells and clients
	"HISTFILE":          {use: envWrites, what: "the file the shell writes its history to"},
	"LESSHISTFILE":      {use: envWrites, what: "the file less writes its history to"},
	"SQLITE_HISTORY":    {use: envWrites, what: "the file sqlite3 writes its history to"},
	"MYSQL_HISTFILE":    {use: envWrites, what: "the file mysql writes its history to"},
	"PSQL_HISTORY":      {use: envWrites, what: "the file psql writes its history to"},
	"REDISCLI_HISTFILE": {use: envWrites, what: "the file redis-cli writes its history to"},
}

// npmPathKeys are npm's (and pnpm's) settings that name a place, as
// npm_config_KEY: npm reads the name in any case, with - or _.
var npmPathKeys = map[string]envPath{
	"cache":             {use: envWrites, scratch: true, what: "npm's package cache, whose packages later installs trust"},
	"prefix":            {use: envWrites | envRuns, what: "the prefix npm installs global packages and programs under"},
	"tmp":               {use: envWrites | envTemp, scratch: true, what: "the folder npm writes its temporary files to"},
	"devdir":            {use: envWrites, what: "the folder node-gyp keeps node's headers in, which native builds compile against"},
	"logs-dir":          {use: envWrites, scratch: true, what: "the folder npm writes its logs to"},
	"store-dir":         {use: envWrites, what: "pnpm's store of packages, which later installs link"},
	"global-dir":        {use: envWrites | envRuns, what: "the folder pnpm installs global packages to"},
	"global-bin-dir":    {use: envWrites | envRuns, what: "the folder pnpm installs global programs to"},
	"virtual-store-dir": {use: envWrites, what: "pnpm's folder of linked packages"},
	"modules-dir":       {use: envWrites, what: "the folder pnpm installs packages to, in place of node_modules"},
	"cafile":            {use: envReads, what: "the certificate bundle npm trusts"},
	"registry":          {use: envSource, what: "the registry npm installs packages from"},
}

// envPathOf is the table's entry for the variable name, if any.
func envPathOf(name string) (envPath, bool) {
	if ep, ok := envPaths[name]; ok && ep.use != 0 {
		return ep, true
	}
	if key, ok := strings.CutPrefix(strings.ToLower(name), "npm_config_"); ok {
		if strings.HasSuffix(key, ":registry") {
			key = "registry" // a scope's registry: npm_config_@acme:registry
		}
		ep, ok := npmPathKeys[strings.ReplaceAll(key, "_", "-")]
		return ep, ok
	}
	if strings.HasPrefix(name, "POETRY_REPOSITORIES_") && strings.HasSuffix(name, "_URL") || strings.HasPrefix(name, "UV_INDEX_") && strings.HasSuffix(name, "_URL") {
		return envPath{use: envSource, what: "a package index the installs use"}, true
	}
	return envPath{}, false
}

// systemTemp are the system's temporary folders: a program writes there
// when no variable says otherwise.
var systemTemp = map[string]bool{"/tmp": true, "/var/tmp": true, "/dev/shm": true}

// scratchTempRoots are the system's temporary folders a scratch
// variable may name a folder under (macOS's /tmp is /private/tmp).
var scratchTempRoots = []string{"/tmp", "/var/tmp", "/private/tmp", "/private/var/tmp"}

// sharedTempNames are (ending in "-", "_" or ".", or krb5cc: start) the names of the well-known entries of the
// system's temporary folder that other programs and users share: display
// and session sockets, ssh agents, Kerberos tickets, private folders of
// services. A hidden name is refused too.
var sharedTempNames = []string{"systemd-private-", "tmux-", "ssh-", "krb5cc", "snap-private-tmp", "pulse-", "mysql.sock", "vscode-", "hsperfdata_", "com.apple.", "screens", "uscreens", "user", "runtime-"}

// tempRest is what follows a system temporary folder in p ("" if p is
// not under one, or is one).
func tempRest(p string) string {
	for _, t := range scratchTempRoots {
		if rest, ok := strings.CutPrefix(p, t+"/"); ok {
			return rest
		}
	}
	return ""
}

// scratchTemp reports whether a scratch variable's place (abs as written,
// r where it resolves) is a folder of the program's own under the
// system's temporary folder: below it, not a link nor under one (only
// the temporary folder itself may be, as macOS's /tmp), not one of the
// shared entries, not in the person's home nor beside the workspace, and, where it and the
// folders above it exist, the gate's user's own folders others cannot write.
func (j *judge) scratchTemp(abs string, r Resolved) bool {
	rest := tempRest(abs)
	if rest == "" || tempRest(r.Path) != rest {
		return false
	}
	first, _, _ := strings.Cut(rest, "/")
	if strings.HasPrefix(first, ".") || strings.Contains(strings.ToLower(first), "admit") {
		return false
	}
	for _, shared := range sharedTempNames {
		if first == shared || strings.HasSuffix(shared, "-") && strings.HasPrefix(first, shared) || strings.HasSuffix(shared, "_") && strings.HasPrefix(first, shared) || strings.HasSuffix(shared, ".") && strings.HasPrefix(first, shared) || shared == "krb5cc" && strings.HasPrefix(first, shared) {
			return false
		}
	}
	if home := j.c.Home; home != "" && (inside(abs, []string{home}) || inside(r.Path, []string{home})) {
		return false
	}
	for _, root := range j.c.Roots {
		// The workspace's neighbours are the person's other projects,
		// not a folder of the program's own.
		if holder := path.Dir(root); tempRest(holder) != "" && (inside(abs, []string{holder}) || inside(r.Path, []string{holder})) || inside(root, []string{r.Path}) {
			return false
		}
	}
	if pr := j.protection(abs, r.Path); pr.Protected {
		return false // one of the person's places
	}
	// The place and the folders between it and the temporary folder:
	// each that exists a folder others cannot write, so no stranger can
	// fill or swap what the program makes there (nor a stranger's own
	// folder, whose content the stranger controls).
	for p := r.Path; tempRest(p) != ""; p = path.Dir(p) {
		pr := r
		if p != r.Path {
			var ok bool
			if pr, ok = j.quietResolve(p); !ok || pr.Path != p {
				return false
			}
		}
		if pr.Exists && (!pr.Typed() || !pr.Dir || pr.Foreign || pr.Mode&(fs.ModeSymlink|fs.ModeSticky) != 0 || pr.Mode.Perm()&0o002 != 0) {
			return false
		}
	}
	return true
}

// systemCerts reports the system's certificate stores, which programs
// trust when no variable says otherwise.
func systemCerts(p string) bool {
	for _, dir := range []string{"/etc/ssl", "/etc/pki", "/etc/ca-certificates", "/usr/share/ca-certificates", "/usr/local/share/ca-certificates"} {
		if p == dir || strings.HasPrefix(p, dir+"/") {
			return true
		}
	}
	return false
}

// envPathVar judges one assignment a command runs with (NAME=value before
// it, env NAME=value, export NAME=value) whose variable names a place the
// program writes, reads or runs from (envPaths): each path of the value as
// the access it is, then, for settings or programs the workspace now
// provides, the command asked as code that runs under its whole argv.
// prog names the command in reasons; argv is what a rule must name.
func (j *judge) envPathVar(prog, assign string, argv []string) {
	name, value, _ := strings.Cut(assign, "=")
	ep, ok := envPathOf(name)
	if !ok || value == "" {
		return
	}
	if ep.use&envSource != 0 {
		j.envSourceVar(prog, name, value, ep, argv)
		return
	}
	values := []string{value}
	if ep.list {
		values = strings.Split(value, ":")
	}
	workspaceCode := false
	for _, v := range values {
		if v == "" {
			continue
		}
		in := j.envPathValue(prog, name, v, ep)
		if j.acc.refused {
			return
		}
		workspaceCode = workspaceCode || in
	}
	if workspaceCode && ep.use&(envConfig|envRuns) != 0 {
		j.asksCode(rule.RunsCode, argv, fmt.Sprintf("%s sets %s to a place of the workspace, or one that holds what another left: %s, so what runs is theirs and a person decides", showArgv(argv), name, ep.what), "")
	}
}

// envPathValue judges one path v of the variable name; it reports a place
// inside the workspace.
func (j *judge) envPathValue(prog, name, v string, ep envPath) bool {
	shown := fmt.Sprintf("%s=%s", name, v)
	if (v == "~" || strings.HasPrefix(v, "~/")) && j.c.Home != "" {
		// Left by the shell (quoted), but npm and others expand it
		// themselves: judged as the home folder it may be.
		v = j.c.Home + v[1:]
	}
	abs := j.cleanAbs(v)
	r, ok := j.quietResolve(v)
	if !ok {
		j.refuse(rule.OutsideWorkspace, fmt.Sprintf("%s: %q names a place that cannot be resolved (%s)", prog, shown, ep.what), "")
		return false
	}
	if !inside(abs, j.c.Roots) || !inside(r.Path, j.c.Roots) {
		switch {
		case ep.use&envTemp != 0 && systemTemp[abs] && systemTemp[r.Path]:
			return false // where it writes anyway
		case ep.scratch && j.scratchTemp(abs, r):
			// A folder of its own under the system's temporary folder:
			// a fresh one holds nothing the program trusts. Settings left
			// in one that exists are another's, asked as code.
			return ep.use&envConfig != 0 && r.Exists
		case ep.use == envRuns && systemPlace(abs) && systemPlace(r.Path):
			return false // the system's own toolchains (/usr/lib/jvm, /usr/local/go)
		case ep.use == envReads && systemCerts(abs) && systemCerts(r.Path):
			return false // the system's trust store, read anyway
		case ep.use == envReads:
			j.envRead(prog, name, v, r)
			return false
		}
		loc := fmt.Sprintf("%q", v)
		if r.Path != abs {
			loc += fmt.Sprintf(" (which resolves to %q)", r.Path)
		}
		j.refuse(rule.OutsideWorkspace, fmt.Sprintf("%s: %s=%s names a place outside the workspace (%s): %s", prog, name, loc, strings.Join(j.c.Roots, ", "), ep.what),
			scratchHint(name, ep))
		return false
	}
	if ep.use&envWrites != 0 {
		if j.c.Effects != WorkspaceWrite {
			j.wrote()
			j.refuse(rule.ReadOnlyEffects, fmt.Sprintf("%s: %q makes it write under %q (%s), and the effect mode is read-only", prog, shown, v, ep.what),
				fmt.Sprintf("ask the person for the workspace-write effect mode, or leave %s as it is", name))
			return true
		}
		if j.rootOf(r.Path) != r.Path {
			switch pr := j.protection(abs, r.Path); {
			case pr.Protected && !pr.Ask:
				j.refuse(rule.ProtectedPath, fmt.Sprintf("%s: %q makes it write under a protected path: %s", prog, shown, pr.Why), "")
				return true
			case pr.Protected:
				j.acc.asks(rule.ProtectedPath, fmt.Sprintf("%s: %q makes it write under %q, which needs a person's approval: %s", prog, shown, v, pr.Why), "")
			}
		}
	}
	if ep.use&(envReads|envConfig) != 0 {
		j.envRead(prog, name, v, r)
	}
	return true
}

// envRead judges the place v a variable has the program read, as a read
// of it: a file as a file is read, a folder as a listing. The program
// reads it, not the model: it is not recorded as seen.
func (j *judge) envRead(prog, name, v string, r Resolved) {
	mode := modeRead
	if r.Dir || !r.Exists {
		mode = modeList
	}
	reads, lists := len(j.acc.reads), len(j.acc.lists)
	j.path(prog, access{word: v, what: "variable " + name, mode: mode})
	j.acc.reads, j.acc.lists = j.acc.reads[:reads], j.acc.lists[:lists]
}

// publicRegistries are the default registries of the package managers
// envSource names (and go's words for none): setting one changes nothing.
var publicRegistries = map[string]bool{
	"direct": true, "off": true, "https://proxy.golang.org": true, "https://registry.npmjs.org": true, "https://registry.yarnpkg.com": true,
	"https://pypi.org/simple": true, "https://pypi.python.org/simple": true, "https://files.pythonhosted.org": true,
}

// envSourceVar judges a variable naming where packages come from: each
// entry of its value (GOPROXY's list by "," or "|", pip's by blanks) a
// public default, a URL of another registry (the command asked as code
// that runs: what it installs is that registry's), or a path or file://
// URL, a folder of packages judged as one the program runs from.
func (j *judge) envSourceVar(prog, name, value string, ep envPath, argv []string) {
	other := ""
	for _, v := range strings.FieldsFunc(value, func(r rune) bool { return r == ',' || r == '|' || r == ' ' || r == '\t' || r == '\n' }) {
		switch {
		case publicRegistries[strings.TrimSuffix(v, "/")]:
		case strings.HasPrefix(v, "file://") || !strings.Contains(v, "://"):
			p := strings.TrimPrefix(v, "file://")
			if in := j.envPathValue(prog, name, p, envPath{use: envRuns, what: ep.what}); j.acc.refused {
				return
			} else if in && other == "" {
				other = v
			}
		case other == "":
			other = v
		}
	}
	if other != "" {
		j.asksCode(rule.RunsCode, argv, fmt.Sprintf("%s sets %s to %q: %s, so what it installs and runs comes from there and a person decides", showArgv(argv), name, other, ep.what), "")
	}
}

// scratchHint is the hint of a refused place outside the workspace.
func scratchHint(name string, ep envPath) string {
	if ep.scratch {
		return fmt.Sprintf("leave %s as it is, or point it inside the workspace or at a new folder of its own under /tmp", name)
	}
	return fmt.Sprintf("leave %s as it is, or point it inside the workspace", name)
}
