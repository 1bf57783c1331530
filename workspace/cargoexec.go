package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"admit/policy/command"
)

// CargoExec names the first thing in cargo's configuration that would
// make cargo tree or cargo metadata, run in dir, start a program the
// person did not choose, or returns "". Those commands read Cargo.toml
// and the lock file, fetch the index and run rustc (through its wrapper)
// for the target's facts: they run code only by configuration. Read, as
// cargo does, .cargo/config.toml and .cargo/config in dir and every
// folder above it up to "/" (CARGO_HOME's, the person's own, left out),
// and, as rustup does, the first rust-toolchain.toml or rust-toolchain
// from dir up. A file that cannot be read or parsed is reported: the
// gate fails closed. The result reads like
// `build.rustc-wrapper = "./w.sh" in .cargo/config.toml`.
func (r *Resolver) CargoExec(dir string) string {
	res, err := resolve(filepath.Clean(dir))
	if err != nil {
		return fmt.Sprintf("cannot resolve %s: %v", dir, err)
	}
	own := r.cargoHome()
	toolchain := false
	for d := res.Path; ; d = filepath.Dir(d) {
		if d != own && filepath.Join(d, ".cargo") != own {
			for _, name := range []string{".cargo/config.toml", ".cargo/config"} {
				if f := cargoConfigFile(filepath.Join(d, name), res.Path); f != "" {
					return f
				}
			}
		}
		if !toolchain {
			var f string
			toolchain, f = rustToolchainFile(d, res.Path)
			if f != "" {
				return f
			}
		}
		if d == "/" || d == filepath.Dir(d) {
			return ""
		}
	}
}

// cargoHome is the person's CARGO_HOME: $CARGO_HOME, else ~/.cargo.
func (r *Resolver) cargoHome() string {
	if h := os.Getenv("CARGO_HOME"); h != "" {
		if res, err := resolve(filepath.Clean(h)); err == nil {
			return res.Path
		}
		return h
	}
	home := r.home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if home == "" {
		return ""
	}
	if res, err := resolve(filepath.Join(home, ".cargo")); err == nil {
		return res.Path
	}
	return filepath.Join(home, ".cargo")
}

// shown names p relative to from when it lies under it.
func shown(p, from string) string {
	if rel, err := filepath.Rel(from, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}

// cargoConfigFile judges one configuration file; "" when it is absent or
// names nothing that runs.
func cargoConfigFile(p, from string) string {
	data, err := readBounded(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return "" // cargo skips a missing file, and fails on one it cannot read
		}
		return fmt.Sprintf("%s cannot be read: %v", shown(p, from), err)
	}
	entries, err := parseTOML(data)
	if err != nil {
		return fmt.Sprintf("%s cannot be parsed: %v", shown(p, from), err)
	}
	for _, e := range entries {
		if why := cargoRuns(e); why != "" {
			return fmt.Sprintf("%s = %q in %s: %s", strings.Join(e.key, "."), strings.Join(e.values, " "), shown(p, from), why)
		}
	}
	return ""
}

// cargoRuns says why a setting makes cargo tree or metadata run code, or
// "". Target runners and linkers are not started by them (nothing is
// built or run); rustc is, with the build's and the target's rustflags.
func cargoRuns(e tomlEntry) string {
	// cargo's keys are kebab-case; snake_case read the same, to fail closed.
	k := make([]string, len(e.key))
	for i, part := range e.key {
		if i == 1 && e.key[0] == "env" {
			k[i] = part
			continue
		}
		k[i] = strings.ReplaceAll(part, "_", "-")
	}
	set := false
	for _, v := range e.values {
		set = set || v != ""
	}
	switch {
	case len(k) == 2 && k[0] == "build" && (k[1] == "rustc" || k[1] == "rustc-wrapper" || k[1] == "rustc-workspace-wrapper" || k[1] == "rustdoc"):
		if set {
			return "names the compiler cargo runs, or a program it runs the compiler through"
		}
	case len(k) >= 2 && (k[0] == "build" || k[0] == "target" || k[0] == "host") && (k[len(k)-1] == "rustflags" || k[len(k)-1] == "rustdocflags"):
		for _, v := range e.values {
			for _, w := range strings.Fields(v) {
				if strings.HasPrefix(w, "-Z") || strings.HasPrefix(w, "@") || strings.Contains(w, "codegen-backend") || strings.Contains(w, "llvm-plugins") {
					return "passes rustc a flag that loads code or reads more flags from a file"
				}
			}
		}
	case len(k) == 2 && k[0] == "alias" && (k[1] == "tree" || k[1] == "metadata"):
		return "makes the command an alias"
	case k[0] == "registry" && len(k) == 2 && (k[1] == "credential-provider" || k[1] == "global-credential-providers"),
		k[0] == "registries" && len(k) == 3 && k[2] == "credential-provider", k[0] == "credential-alias":
		for _, v := range e.values {
			switch v {
			case "", "cargo:token", "cargo:libsecret", "cargo:wincred", "cargo:macos-keychain":
				// cargo's own providers, which start nothing.
			default:
				return "names a program cargo runs for credentials"
			}
		}
	case len(k) == 2 && k[0] == "net" && k[1] == "git-fetch-with-cli":
		if len(e.values) == 1 && e.values[0] == "false" {
			return ""
		}
		return "makes cargo run git, found on PATH, with its own configuration"
	case k[0] == "env" && len(k) >= 2:
		if len(k) > 2 && k[2] != "value" {
			return ""
		}
		v := strings.Join(e.values, " ")
		if k[1] == "RUSTC_BOOTSTRAP" || command.EnvRunsCode(k[1], v) != "" {
			return "sets a variable for rustc that changes what runs"
		}
	case k[0] == "include" || k[0] == "unstable":
		return "reads another file or turns on unstable features"
	}
	return ""
}

// rustToolchainFile judges the rust-toolchain.toml or rust-toolchain of
// folder d: found reports that one exists (rustup reads the first from
// the working folder up), the string a path it names as the toolchain,
// whose cargo and rustc would run.
func rustToolchainFile(d, from string) (bool, string) {
	for _, name := range []string{"rust-toolchain.toml", "rust-toolchain"} {
		p := filepath.Join(d, name)
		data, err := readBounded(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				continue
			}
			return true, fmt.Sprintf("%s cannot be read: %v", shown(p, from), err)
		}
		text := strings.TrimSpace(string(data))
		if name == "rust-toolchain" && !strings.Contains(text, "[") {
			// The legacy form: a toolchain's name alone.
			if strings.ContainsAny(text, "/\\") {
				return true, fmt.Sprintf("%s names the toolchain %q by its path, whose cargo and rustc would run", shown(p, from), text)
			}
			return true, ""
		}
		entries, err := parseTOML(data)
		if err != nil {
			return true, fmt.Sprintf("%s cannot be parsed: %v", shown(p, from), err)
		}
		for _, e := range entries {
			if len(e.key) == 2 && e.key[0] == "toolchain" && e.key[1] == "path" {
				return true, fmt.Sprintf("toolchain.path = %q in %s: rustup runs the cargo and rustc of that folder", strings.Join(e.values, " "), shown(p, from))
			}
		}
		return true, ""
	}
	return false, ""
}
