package command

import (
	"strings"

	"admit/policy/rule"
)

// The toolchains agents drive every day (Go, Node, Python, Rust, make,
// Java, containers and clouds), as data: each subcommand is classed by
// what it does, and the class is the policy's answer. Builds, tests,
// runs, lints and formats run code admit cannot read before it runs, and
// installs run their packages' scripts: a person decides (runs-code),
// unless an allow rule of theirs answers. Version and listing probes are
// allowed. Global installs, publishing, configuration writes and
// destroying what is not the workspace's are refused, whatever rule the
// person has: a rule that allows npm never allows npm publish. The
// judge of this table is toolchain.go.

// toolClass is what a toolchain command does, and so what the policy
// answers.
type toolClass uint8

const (
	toolProbe   toolClass = iota + 1 // prints a version, settings or a listing: allowed
	toolNetwork                      // talks to the network, runs nothing of the workspace's: asked (network)
	toolRun                          // builds, tests, runs, lints, formats: asked (runs-code)
	toolInstall                      // installs into the workspace and runs install scripts: asked (runs-code)
	toolOutside                      // changes files outside the workspace (a cache): refused (outside-workspace)
	toolHidden                       // runs code the line does not show (sh -c): refused (hidden-command)
	toolConfig                       // writes configuration outside the workspace's files: refused (config-write)
	toolGlobal                       // installs outside the workspace: refused (global-install)
	toolPublish                      // publishes to a registry or host: refused (publishes)
	toolDestroy                      // destroys what is not the workspace's: refused (destroys-external)
	toolSecret                       // prints a token or a credential: refused (secret-env)
	// toolProtected writes files that make tools run code (git hooks):
	// asked (protected-path), and no rule of the person's answers it.
	toolProtected
)

// refuses reports whether the class is a refusal.
func (c toolClass) refuses() bool {
	_, ok := toolRefusals[c]
	return ok
}

// toolRefusals are the rule, hint and default reason of each class the
// table refuses.
var toolRefusals = map[toolClass]struct {
	rule      rule.Rule
	hint, why string
}{
	toolOutside: {rule.OutsideWorkspace, "leave the caches alone; change only files inside the workspace", ""},
	toolHidden:  {rule.HiddenCommand, "send the script itself as the command line", "runs a script given as a string, which the gate does not judge"},
	toolConfig:  {rule.ConfigWrite, "pass the setting to the one command that needs it, or ask the user to change the configuration", whyConfig},
	toolGlobal: {rule.GlobalInstall, "install into the workspace (without -g or --user, into a virtual environment in the workspace), or run the tool once with npx or uvx",
		whyGlobal},
	toolPublish: {rule.Publishes, "stop before publishing and tell the user the release is ready", whyPublish},
	toolDestroy: {rule.DestroysExternal, "do not run it; ask the user to do destructive operations themselves", "destroys what is not the workspace's"},
	toolSecret:  {rule.SecretEnv, "ask the user for what the task needs instead of printing the credential", "prints a credential"},
}

// severity orders the classes: a probe, a network command, code that
// runs, a question no rule answers, a refusal.
func (c toolClass) severity() int {
	switch {
	case c == toolProbe:
		return 1
	case c == toolNetwork:
		return 2
	case c == toolRun || c == toolInstall:
		return 3
	case c == toolProtected:
		return 4
	case c == toolSecret:
		return 6 // gh auth token: more than a configuration change
	case c.refuses():
		return 5
	}
	return 0
}

// toolchain is one program of the table.
type toolchain struct {
	// names are the program's names, space-separated; a name with a
	// version suffix (python3.12, pip3) is looked up without it.
	names string
	// what its commands run, for reasons ("the package's scripts").
	what string
	// valued are the options before the subcommand that take the next
	// word as their value (npm --prefix DIR, make -C DIR, cargo -Z X).
	valued string
	// probes are options that, given alone, only print: a version, help.
	probes string
	// bare is the answer for the program with no subcommand; other for a
	// subcommand the table does not list (a make target, an npm script).
	bare, other toolClass
	subs        []toolSub
	// flags are options anywhere before "--" that change the answer (-g).
	flags []toolFlag
	// interp: the program runs a script or inline code (python, node, sh).
	interp *interpreter
	// anyWord: every word that is no option is matched against subs, the
	// strictest answer winning (Maven goals, Gradle tasks, cloud CLIs'
	// nested commands: mvn clean deploy, gcloud app deploy).
	anyWord bool
}

// toolSub is one subcommand, under all its spellings.
type toolSub struct {
	names string // "install i add"
	class toolClass
	why   string // what it does, for reasons; "" says it by the class
	// subs are a second level (npm config set); other is the answer for a
	// second word the table does not list, or none (0: the sub's class).
	subs  []toolSub
	other toolClass
	flags []toolFlag
	// check names the judge that looks further before the class stands
	// (cargo-reads: cargoReads).
	check string
}

// toolFlag is an option that changes a command's answer: -g makes an
// install global, --force makes a push destroy.
type toolFlag struct {
	// names are the spellings, space-separated: "-g --global
	// --location=global"; a name ending in "*" is a prefix, one starting
	// with "*" a suffix (delete-*, *:destroy).
	names string
	value string // when set, the option must have this value (-X DELETE, --method=DELETE)
	class toolClass
	why   string
}

// interpreter says how a program finds the code it runs: inline (python
// -c), from a module (python -m), from a script file, or from standard
// input.
type interpreter struct {
	code   string // options whose value is the code: "-c", "-e --eval"
	module string // the option whose value names a module run as a program (python -m)
	valued string // other options that take the next word as their value
	// shell: inline code is refused (hidden-command: send the script as
	// the command line), not asked; a cluster holding "c" (-lc, -ec) is
	// inline code too.
	shell bool
	// cluster: the switches cluster (perl -ne, ruby -lane), and these
	// letters take the rest of their word as their value (-i.bak,
	// -Mstrict); digits those that take the digits after them (-l0, -00).
	cluster, digits string
	// stdin are the words that name standard input as the script: "-",
	// "-s" (sh), "/dev/stdin".
	stdin string
}

// Reasons the table gives.
const (
	whyGlobal     = "installs outside the workspace, for every project of the person's"
	whyPublish    = "publishes to a registry or host"
	whyConfig     = "writes configuration outside the workspace's files"
	whyUserConfig = "stores a login or a token in the person's configuration"
	// docker inspect shows a container's Config.Env, the variables it was
	// started with (a database's password, an API key).
	whyContainerEnv = "prints the container's environment, its secrets with it"
)

// toolchainTable is the built-in toolchains by name.
func toolchainTable() map[string]*toolchain {
	node := "the package's scripts and its dependencies' code"
	npmGlobal := []toolFlag{{names: "-g --global --location=global", class: toolGlobal, why: whyGlobal}, {names: "--location", value: "global", class: toolGlobal, why: whyGlobal}}
	npmLike := func(names, bin string) *toolchain {
		return &toolchain{
			names: names, what: node, probes: "-v --version -h --help", bare: toolRun, other: toolRun,
			valued: "--prefix -C --dir -w --workspace --filter -F --cwd --registry --userconfig --cache --loglevel",
			flags:  npmGlobal,
			subs: []toolSub{
				{names: "install i add ci isntall in ins inst insta instal isnt isnta isntal update up upgrade udpate remove rm uninstall un unlink r dedupe ddp prune rebuild rb fetch import", class: toolInstall,
					why: "installs packages into the workspace and runs their install scripts"},
				// audit reads the lockfile and asks the registry; audit fix
				// (pnpm: --fix) installs the fixed versions.
				{names: "audit", class: toolNetwork, why: "reads the lockfile and asks the registry about known vulnerabilities",
					subs:  []toolSub{{names: "fix", class: toolInstall, why: "installs the fixed versions into the workspace and runs their install scripts"}},
					flags: []toolFlag{{names: "--fix", class: toolInstall, why: "installs the fixed versions into the workspace and runs their install scripts"}}},
				{names: "test t tst rum urn exec x start stop restart dlx create init innit build pack version why-not", class: toolRun},
				// run alone lists the scripts; with a word (or anything
				// else) it runs one (check "alone").
				{names: "run run-script", class: toolProbe, check: "alone"},
				// pkg get prints package.json fields; set and delete write it.
				{names: "pkg", class: toolRun, subs: []toolSub{{names: "get", class: toolProbe}}},
				{names: "publish unpublish deprecate undeprecate dist-tag dist-tags owner author access team star unstar", class: toolPublish, why: whyPublish},
				{names: "config c", class: toolProbe, subs: []toolSub{
					{names: "get list ls", class: toolProbe},
					{names: "set delete edit fix rm", class: toolConfig, why: whyConfig},
				}, other: toolProbe},
				{names: "set", class: toolConfig, why: whyConfig},
				{names: "get", class: toolProbe},
				{names: "npm", class: toolRun, subs: []toolSub{
					{names: "publish", class: toolPublish, why: whyPublish},
					{names: "login logout", class: toolConfig, why: whyUserConfig},
					{names: "info whoami audit", class: toolNetwork},
				}},
				{names: "login logout adduser add-user token profile", class: toolConfig, why: whyUserConfig},
				{names: "link ln", class: toolGlobal, why: "links the package into the person's global folder"},
				{names: "ls list la ll why explain prefix root bin help help-search find-dupes query licenses", class: toolProbe},
				{names: "view info show v outdated search s se doctor ping whoami", class: toolNetwork},
				{names: "cache store", class: toolProbe, subs: []toolSub{{names: "clean clear rm prune", class: toolOutside, why: "removes the package manager's cache, outside the workspace"}}, other: toolProbe},
				{names: "global", class: toolGlobal, why: whyGlobal},
			},
		}
	}
	python := &toolchain{
		names: "python python3 pypy pypy3", what: "Python code", probes: "-V --version -h --help", bare: toolRun, other: toolRun,
		interp: &interpreter{code: "-c", module: "-m", valued: "-W -X -Q", stdin: "- /dev/stdin"},
	}
	pip := &toolchain{
		names: "pip pip3", what: "packages' build scripts", probes: "-V --version -h --help", bare: toolProbe, other: toolRun,
		valued: "--python --cache-dir --log --proxy --retries --timeout -r --requirement",
		flags: []toolFlag{
			{names: "--user", class: toolGlobal, why: "installs into the person's user site, for every project"},
			{names: "--break-system-packages", class: toolGlobal, why: "installs into the system's Python"},
		},
		subs: []toolSub{
			{names: "install download uninstall wheel", class: toolInstall, why: "installs packages into the Python environment pip belongs to (a virtual environment in the workspace when one is active) and runs their build scripts"},
			{names: "list freeze show check help debug inspect hash index search", class: toolProbe},
			{names: "config", class: toolProbe, subs: []toolSub{{names: "set unset edit", class: toolConfig, why: whyConfig}}, other: toolProbe},
			{names: "cache", class: toolProbe, subs: []toolSub{{names: "purge remove", class: toolOutside, why: "removes pip's cache, outside the workspace"}}, other: toolProbe},
		},
	}
	shell := func(names string) *toolchain {
		return &toolchain{names: names, what: "a shell script", probes: "--version --help", bare: toolRun, other: toolRun,
			interp: &interpreter{code: "-c", shell: true, valued: "-o +o -O +O --rcfile --init-file", stdin: "- -s /dev/stdin"}}
	}
	tcs := []*toolchain{
		{
			names: "go", what: "the module's code (tests, build steps, go:generate, cgo)", probes: "-h --help", bare: toolProbe, other: toolRun,
			valued: "-C",
			subs: []toolSub{
				{names: "build test run generate vet fmt fix tool doc-test", class: toolRun},
				{names: "get", class: toolInstall, why: "adds modules to the workspace's go.mod and downloads them"},
				{names: "mod work", class: toolInstall, why: "changes go.mod or go.work and downloads modules", subs: []toolSub{
					{names: "graph why verify", class: toolNetwork, why: "reads the module graph, downloading modules"},
				}},
				{names: "install", class: toolGlobal, why: "installs programs into GOBIN, outside the workspace"},
				{names: "version help doc list", class: toolProbe, flags: []toolFlag{
					{names: "-export -compiled -toolexec -exec", class: toolRun},
					{names: "-u -versions -retracted -reuse", class: toolNetwork},
				}},
				{names: "env", class: toolProbe, flags: []toolFlag{{names: "-w -u", class: toolConfig, why: "writes the person's go env configuration"}}},
				{names: "clean", class: toolRun, flags: []toolFlag{{names: "-cache -modcache -testcache -fuzzcache", class: toolOutside, why: "removes Go's caches, outside the workspace"}}},
				{names: "telemetry", class: toolProbe, subs: []toolSub{{names: "on off local", class: toolConfig, why: whyConfig}}, other: toolProbe},
				{names: "bug", class: toolRun},
			},
		},
		{names: "gofmt goimports golangci-lint staticcheck", what: "the formatter or linter over the workspace's code", probes: "--version -V -h --help", bare: toolRun, other: toolRun},
		npmLike("npm", "npm"),
		npmLike("pnpm", "pnpm"),
		func() *toolchain {
			y := npmLike("yarn", "yarn")
			y.bare = toolInstall // yarn alone installs
			return y
		}(),
		{names: "npx pnpx bunx", what: "a package's program, downloaded when it is not installed", probes: "-v --version -h --help", bare: toolRun, other: toolRun,
			valued: "-p --package -c --call"},
		{names: "node nodejs", what: "JavaScript code", probes: "-v --version -h --help", bare: toolRun, other: toolRun,
			interp: &interpreter{code: "-e --eval -p --print", valued: "-r --require --import --loader --experimental-loader -C --conditions --input-type --title --env-file --inspect-port", stdin: "- /dev/stdin"}},
		{names: "bun deno", what: "JavaScript or TypeScript code", probes: "-v --version -h --help -V", bare: toolRun, other: toolRun,
			flags: npmGlobal,
			subs: []toolSub{
				{names: "add install i remove rm update upgrade outdated", class: toolInstall},
				{names: "publish", class: toolPublish, why: whyPublish},
				{names: "pm", class: toolProbe, subs: []toolSub{{names: "cache", class: toolOutside}}, other: toolProbe},
				{names: "info", class: toolProbe},
			}},
		{names: "tsc tsx ts-node vite vitest jest mocha eslint prettier biome webpack rollup esbuild next nuxt astro playwright cypress turbo nx lerna",
			what: "the workspace's code, configuration and plugins", probes: "-v --version -h --help", bare: toolRun, other: toolRun},
		python, pip,
		{names: "pytest py.test", what: "the workspace's tests, conftest.py and plugins", bare: toolRun, other: toolRun},
		{names: "uv", what: "the project's build scripts and Python code", probes: "-V --version -h --help", bare: toolProbe, other: toolRun,
			valued: "--directory --project --cache-dir --python -p --config-file",
			flags:  []toolFlag{{names: "--system --break-system-packages", class: toolGlobal, why: "installs into the system's Python"}},
			subs: []toolSub{
				{names: "add remove sync lock export venv init", class: toolInstall},
				{names: "run build format", class: toolRun},
				{names: "pip", class: toolInstall, subs: []toolSub{{names: "list freeze show tree check", class: toolProbe}}},
				{names: "tool", class: toolRun, subs: []toolSub{
					{names: "install upgrade uninstall update-shell", class: toolGlobal, why: whyGlobal},
					{names: "list dir", class: toolProbe},
				}},
				{names: "python", class: toolProbe, subs: []toolSub{{names: "install uninstall pin upgrade", class: toolGlobal, why: "installs Python versions outside the workspace"}}, other: toolProbe},
				{names: "publish", class: toolPublish, why: whyPublish},
				{names: "self", class: toolGlobal, why: "updates uv itself, outside the workspace"},
				{names: "cache", class: toolProbe, subs: []toolSub{{names: "clean prune", class: toolOutside, why: "removes uv's cache, outside the workspace"}}, other: toolProbe},
				{names: "version", class: toolProbe, flags: []toolFlag{{names: "--bump --set", class: toolRun}}},
				{names: "tree help", class: toolProbe},
			}},
		{names: "uvx pipx", what: "a package's program, downloaded when it is not installed", probes: "-V --version -h --help", bare: toolRun, other: toolRun,
			subs: []toolSub{
				{names: "install uninstall upgrade upgrade-all reinstall reinstall-all inject ensurepath install-all", class: toolGlobal, why: whyGlobal},
				{names: "list environment", class: toolProbe},
			}},
		{names: "poetry pipenv pdm hatch flit", what: "the project's build scripts and Python code", probes: "-V --version -h --help", bare: toolProbe, other: toolRun,
			subs: []toolSub{
				{names: "install add remove lock update sync", class: toolInstall},
				{names: "run shell build test env", class: toolRun},
				{names: "publish upload", class: toolPublish, why: whyPublish},
				{names: "config", class: toolProbe, other: toolConfig, flags: []toolFlag{{names: "--unset", class: toolConfig, why: whyConfig}}},
				{names: "self", class: toolGlobal, why: "changes the tool's own installation"},
				{names: "show check about version info list", class: toolProbe},
			}},
		{names: "twine", what: "packages", probes: "--version -h --help", bare: toolProbe, other: toolRun,
			subs: []toolSub{{names: "upload register", class: toolPublish, why: whyPublish}, {names: "check", class: toolProbe}}},
		{names: "ruff black isort flake8 pylint mypy pyright tox nox coverage sphinx-build mkdocs",
			what: "the workspace's code, configuration and plugins", probes: "--version -V -h --help", bare: toolRun, other: toolRun},
		{names: "pre-commit husky lefthook", what: "the repository's hooks", probes: "--version -V -h --help", bare: toolRun, other: toolRun,
			subs: []toolSub{{names: "install install-hooks init add", class: toolProtected, why: "installs git hooks, which run on every commit"}}},
		{
			names: "cargo", what: "the crate's build scripts, procedural macros and tests", probes: "-V --version --list -h --help", bare: toolProbe, other: toolRun,
			valued: "-Z --config --color -C --manifest-path --target-dir",
			subs: []toolSub{
				{names: "build b check c test t run r bench clippy fmt doc d fix clean miri nextest llvm-cov tarpaulin", class: toolRun},
				{names: "add remove rm update up fetch generate-lockfile vendor", class: toolInstall, why: "changes Cargo.toml or Cargo.lock and downloads crates"},
				// tree and metadata read Cargo.toml and the lock file, run
				// code only by configuration: judged by cargoReads.
				{names: "tree metadata", class: toolProbe, check: "cargo-reads"},
				{names: "install uninstall", class: toolGlobal, why: "installs programs into ~/.cargo/bin, outside the workspace"},
				{names: "publish yank owner", class: toolPublish, why: whyPublish},
				{names: "login logout", class: toolConfig, why: whyUserConfig},
				{names: "version help locate-project pkgid search info verify-project", class: toolProbe},
			},
		},
		{names: "rustc", what: "the compiler (and procedural macros)", probes: "-V --version -vV -h --help", bare: toolRun, other: toolRun},
		{names: "rustup", what: "Rust toolchains", probes: "-V --version -h --help", bare: toolProbe, other: toolGlobal,
			subs: []toolSub{
				{names: "show which help doc", class: toolProbe},
				{names: "run", class: toolRun},
				{names: "toolchain target component", class: toolGlobal, why: "installs or removes Rust toolchains outside the workspace", subs: []toolSub{{names: "list", class: toolProbe}}},
				{names: "override", class: toolConfig, why: whyConfig, subs: []toolSub{{names: "list", class: toolProbe}}},
			}},
		{names: "make gmake", what: "the Makefile's recipes", probes: "-v --version -h --help", bare: toolRun, other: toolRun,
			valued: "-C --directory -f --file --makefile -I --include-dir -j --jobs -l --load-average -o --old-file -W --what-if --assume-new"},
		{names: "cmake ctest ninja meson bazel bazelisk just task scons", what: "the build's scripts", probes: "--version -h --help", bare: toolRun, other: toolRun},
		{names: "mvn mvnd gradle", what: "the build's scripts, plugins and tests", bare: toolRun, other: toolRun, anyWord: true,
			valued: "-f --file -s --settings -pl --projects -P --activate-profiles -D -b --build-file -c --settings-file -p --project-dir -g --gradle-user-home",
			subs: []toolSub{
				{names: "deploy release:perform release:prepare deploy:deploy-file publish publishToMavenCentral publishPlugins uploadArchives publishAllPublicationsToMavenRepository", class: toolPublish, why: whyPublish},
			}},
		{names: "java javac kotlin kotlinc scala sbt swift swiftc php lua Rscript julia elixir mix erl ghc cabal stack dart flutter zig gcc g++ cc c++ clang clang++",
			what: "code it compiles or runs", probes: "-v -V --version -version -h --help", bare: toolRun, other: toolRun,
			interp: &interpreter{code: "-e -E -r", stdin: "- /dev/stdin"}},
		// perl and ruby cluster their switches: -ne CODE, -lane CODE.
		{names: "perl", what: "Perl code", probes: "-v -V --version -h --help", bare: toolRun, other: toolRun,
			interp: &interpreter{code: "-e -E", cluster: "iImMdDFx", digits: "l0C", valued: "-I", stdin: "- /dev/stdin"}},
		{names: "ruby", what: "Ruby code", probes: "-v --version -h --help", bare: toolRun, other: toolRun,
			interp: &interpreter{code: "-e", cluster: "iIrCxEFK", digits: "0W", valued: "-I -r -C -E", stdin: "- /dev/stdin"}},
		{names: "dotnet", what: "the project's build and tests", probes: "--version --info -h --help --list-sdks --list-runtimes", bare: toolProbe, other: toolRun,
			subs: []toolSub{{names: "nuget", class: toolRun, subs: []toolSub{{names: "push delete", class: toolPublish, why: whyPublish}}}, {names: "tool workload", class: toolRun, flags: []toolFlag{{names: "-g --global", class: toolGlobal, why: whyGlobal}}}}},
		{names: "gem", what: "the gems' build scripts", probes: "-v --version -h --help", bare: toolProbe, other: toolRun,
			subs: []toolSub{
				{names: "install update uninstall cleanup pristine", class: toolGlobal, why: "installs gems into the person's gem folder, outside the workspace"},
				{names: "push owner yank", class: toolPublish, why: whyPublish},
				{names: "list show outdated info search contents which environment specification", class: toolProbe},
				{names: "signin signout sources", class: toolConfig, why: whyUserConfig},
			}},
		{names: "bundle bundler composer", what: "the packages' scripts", probes: "-v --version -V -h --help", bare: toolInstall, other: toolRun,
			flags: []toolFlag{{names: "--system", class: toolGlobal, why: whyGlobal}},
			subs: []toolSub{
				{names: "install add update remove require lock", class: toolInstall},
				{names: "exec run-script", class: toolRun},
				{names: "list show outdated info search licenses", class: toolProbe},
				{names: "global", class: toolGlobal, why: whyGlobal},
				{names: "config", class: toolConfig, why: whyConfig},
			}},
		{names: "brew apt apt-get dnf yum pacman apk zypper snap flatpak port nix-env choco winget scoop corepack volta asdf mise rtx fnm nvm pyenv rbenv nodenv sdk",
			what: "software for the whole machine or the person", probes: "-v -V --version -h --help", bare: toolProbe, other: toolGlobal,
			subs: []toolSub{
				{names: "list ls search info show policy which current version versions where outdated doctor config env", class: toolProbe},
				{names: "exec x run", class: toolRun},
			}},
		shell("sh bash zsh dash ksh mksh fish ash"),
		{names: "docker podman nerdctl", what: "containers, which can reach the whole machine", probes: "-v --version -h --help", bare: toolProbe, other: toolRun,
			valued: "-H --host -c --context --config -l --log-level",
			subs: []toolSub{
				{names: "ps images version info logs top stats history port search", class: toolProbe},
				{names: "inspect", class: toolSecret, why: whyContainerEnv},
				{names: "push", class: toolPublish, why: whyPublish},
				{names: "login logout context", class: toolConfig, why: whyUserConfig},
				{names: "container", class: toolRun, subs: []toolSub{
					{names: "prune rm remove", class: toolDestroy, why: "removes containers that are not the workspace's"},
					{names: "inspect", class: toolSecret, why: whyContainerEnv},
					{names: "ls list", class: toolProbe},
				}},
				{names: "system image volume network builder buildx", class: toolRun, subs: []toolSub{
					{names: "prune rm remove", class: toolDestroy, why: "removes containers, images, volumes or networks that are not the workspace's"},
					{names: "ls list df inspect info", class: toolProbe},
				}},
				{names: "compose", class: toolRun, subs: []toolSub{
					{names: "ps ls logs images version top", class: toolProbe},
					{names: "config", class: toolSecret, why: "prints the compose file with the values of .env and of the environment filled in"},
					{names: "down", class: toolRun, flags: []toolFlag{{names: "-v --volumes --rmi", class: toolDestroy, why: "removes volumes or images that are not the workspace's"}}},
				}},
			}},
		{names: "kubectl oc helm", what: "changes to a cluster", probes: "--version -h --help", bare: toolProbe, other: toolNetwork,
			subs: []toolSub{
				{names: "get describe logs top explain api-resources api-versions cluster-info list status history show search template lint", class: toolNetwork,
					flags: []toolFlag{{names: "--raw", class: toolSecret, why: "prints the cluster's credentials"}}},
				// kubectl version asks the server for its version too;
				// --client (and helm's, which has no server) prints the
				// program's own (clientVersion).
				{names: "version", class: toolNetwork, check: "client-version"},
				{names: "config", class: toolNetwork, subs: []toolSub{
					{names: "set set-context set-cluster set-credentials use-context use delete-context delete-cluster rename-context unset", class: toolConfig, why: whyConfig},
					// Names from the kubeconfig, no credential with them.
					{names: "current-context get-contexts get-clusters get-users", class: toolProbe},
					// view hides tokens and keys, but not a password or an
					// auth provider's refresh token: asked. --raw and
					// --flatten print the keys as well.
					{names: "view", class: toolNetwork, why: "prints the kubeconfig, which may hold a password or an auth provider's token"},
				}, flags: []toolFlag{{names: "--raw --flatten", class: toolSecret, why: "prints the cluster's credentials"}}},
				{names: "delete uninstall drain cordon replace", class: toolDestroy, why: "deletes or replaces what runs in a cluster"},
				{names: "exec cp port-forward run debug attach proxy plugin", class: toolRun},
			}},
		{names: "terraform tofu terragrunt pulumi", what: "changes to infrastructure", probes: "-v -version --version -h --help", bare: toolProbe, other: toolNetwork,
			flags: []toolFlag{{names: "-destroy", class: toolDestroy, why: "destroys infrastructure"}},
			subs: []toolSub{
				{names: "destroy down", class: toolDestroy, why: "destroys infrastructure"},
				{names: "fmt validate version providers graph console preview", class: toolProbe},
				{names: "output show", class: toolProbe, flags: []toolFlag{{names: "-json --json -raw --raw -show-secrets --show-secrets", class: toolSecret, why: "prints the values marked sensitive, which the plain form hides"}}},
				{names: "init get plan refresh apply up import", class: toolRun},
				{names: "login logout", class: toolConfig, why: whyUserConfig},
				{names: "state workspace", class: toolProbe, subs: []toolSub{
					{names: "rm mv push replace-provider delete", class: toolDestroy, why: "changes infrastructure state that is not the workspace's"},
					{names: "pull", class: toolSecret, why: "prints the whole state, the secrets of every resource with it"},
				}, other: toolProbe},
			}},
		{names: "aws gcloud az doctl flyctl fly heroku vercel netlify wrangler firebase", what: "changes to a cloud account", probes: "--version -v -h --help", bare: toolNetwork, other: toolNetwork, anyWord: true,
			subs: []toolSub{
				{names: "configure config login logout auth init sso", class: toolConfig, why: whyUserConfig, subs: []toolSub{{names: "list get describe", class: toolProbe}}},
				{names: "print-access-token print-identity-token get-access-token export-credentials auth:token get-login-password", class: toolSecret, why: "prints a cloud credential"},
				{names: "deploy publish release", class: toolPublish, why: whyPublish},
				{names: "delete rm rb destroy remove terminate delete-* terminate-* remove-* deregister-* destroy-* *:delete *:destroy *:remove", class: toolDestroy, why: "deletes cloud resources"},
			}},
		{names: "gh glab", what: "changes on the code host", probes: "--version -h --help", bare: toolProbe, other: toolNetwork,
			flags: []toolFlag{{names: "-X --method", value: "DELETE", class: toolDestroy, why: "deletes on the code host"}},
			subs: []toolSub{
				{names: "release", class: toolPublish, why: "makes or changes releases on the code host", subs: []toolSub{{names: "list view download", class: toolNetwork}}},
				{names: "auth config secret variable ssh-key gpg-key alias extension", class: toolConfig, why: "changes the code host's or the tool's configuration", subs: []toolSub{
					{names: "status list view", class: toolNetwork},
					{names: "token", class: toolSecret, why: "prints the code host's token"},
				}},
				{names: "repo", class: toolNetwork, subs: []toolSub{{names: "delete archive rename", class: toolDestroy, why: "deletes or renames a repository on the code host"}}},
			}},
	}
	t := map[string]*toolchain{}
	for _, tc := range tcs {
		for _, n := range strings.Fields(tc.names) {
			t[n] = tc
		}
	}
	return t
}

// toolchainOf returns the toolchain of a program name: by the name, or
// by the name without a version suffix (python3.12, pip3.11, go1.22.0).
func (p *Policy) toolchainOf(name string) *toolchain {
	if tc := p.tool(name); tc != nil {
		return tc
	}
	base := name // python3.12, node18: the toolchain's name without its version
	for base != "" && (base[len(base)-1] >= '0' && base[len(base)-1] <= '9' || base[len(base)-1] == '.') {
		base = base[:len(base)-1]
	}
	if base != name && base != "" {
		return p.tool(base)
	}
	return nil
}

// tool is p.tools[name], looked up only when the filter says it may hold it.
func (p *Policy) tool(name string) *toolchain {
	if p.toolSet == nil || p.toolSet.mayHave(name) {
		return p.tools[name]
	}
	return nil
}

// find returns the subcommand spelled word, or nil.
func findSub(subs []toolSub, word string) *toolSub {
	for i := range subs {
		for _, n := range strings.Fields(subs[i].names) {
			if wordIs(n, word) {
				return &subs[i]
			}
		}
	}
	return nil
}

// hasField reports whether the space-separated list holds word.
func hasField(list, word string) bool {
	// Found in place, not by strings.Fields: the lists are the policy's
	// own literals, asked on every option of a hot path, and a split
	// allocates.
	if word == "" || strings.ContainsAny(word, " \t\n\r\v\f") {
		return false // no field is empty or holds a blank
	}
	for i := 0; i+len(word) <= len(list); {
		j := strings.Index(list[i:], word)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(word)
		if (j == 0 || asciiSpace(list[j-1])) && (end == len(list) || asciiSpace(list[end])) {
			return true
		}
		i = j + 1
	}
	return false
}

// asciiSpace is what strings.Fields splits the policy's ASCII lists at.
func asciiSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\v' || b == '\f'
}
