package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCargoExec: the settings of cargo's configuration that make cargo
// tree or metadata start a program are reported, however spelled (a
// dotted key, an inline table, snake_case, a \u escape, a folder above
// the working one); the everyday settings, and CARGO_HOME's (the
// person's), are not.
func TestCargoExec(t *testing.T) {
	runs := map[string]string{
		"[build]\nrustc-wrapper = \"./w.sh\"\n":                                 "build.rustc-wrapper",
		"build.rustc = './r'\n":                                                 "build.rustc",
		"build = { rustc_workspace_wrapper = \"x\" }\n":                         "build.rustc_workspace_wrapper",
		"[build]\n\"rustc\\u002dwrapper\" = \"x\"\n":                            "build.rustc-wrapper",
		"[build]\nrustdoc = \"\"\"\n./d\"\"\"\n":                                "build.rustdoc",
		"[target.'cfg(unix)']\nrustflags = [\n  '-Zcodegen-backend=x.so',\n]\n": "rustflags",
		"[build]\nrustflags = \"-C opt-level=3 @flags.txt\"\n":                  "build.rustflags",
		"[env]\nLD_PRELOAD = { value = \"x.so\", relative = true }\n":           "env.LD_PRELOAD",
		"[env]\nPATH = \"./bin\"\n":                                             "env.PATH",
		"[env]\nRUSTC_BOOTSTRAP = \"1\"\n":                                      "env.RUSTC_BOOTSTRAP",
		"[net]\ngit-fetch-with-cli = true\n":                                    "net.git-fetch-with-cli",
		"[registries.corp]\ncredential-provider = \"./cred\"\n":                 "credential-provider",
		"[alias]\ntree = \"run\"\n":                                             "alias.tree",
		"include = \"more.toml\"\n":                                             "include",
		"[build\n":                                                              "cannot be parsed",
		"x = \"unterminated\n":                                                  "cannot be parsed",
	}
	quiet := []string{
		"",
		"# comment\n[build]\ntarget-dir = \"target\" # trailing\njobs = 4\n",
		"[target.x86_64-unknown-linux-gnu]\nlinker = \"clang\"\nrustflags = [\"-C\", \"link-arg=-fuse-ld=lld\", \"-C\", \"target-cpu=native\"]\n",
		"[alias]\nxtask = \"run --package xtask --\"\n",
		"[env]\nRUST_TEST_THREADS = \"1\"\nOPENSSL_DIR = { value = \"vendor/openssl\", relative = true }\n",
		"[registry]\nglobal-credential-providers = [\"cargo:token\"]\n",
		"[net]\ngit-fetch-with-cli = false\noffline = true\n",
		"[profile.release]\nlto = true\ncodegen-units = 1\n[[bin]]\nname = \"x\"\n",
		"[source.crates-io]\nreplace-with = \"vendored\"\n[source.vendored]\ndirectory = \"vendor\"\n",
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("CARGO_HOME", filepath.Join(root, "home", ".cargo"))
	ws := filepath.Join(root, "ws")
	sub := filepath.Join(ws, "crates", "a")
	for _, d := range []string{filepath.Join(ws, ".cargo"), sub, filepath.Join(root, "home", ".cargo")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r := NewResolver(mustRoots(t, ws))
	cfg := filepath.Join(ws, ".cargo", "config.toml")
	for text, want := range runs {
		if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := r.CargoExec(sub); !strings.Contains(got, want) {
			t.Errorf("%q: CargoExec = %q, want it to name %q", text, got, want)
		}
	}
	for _, text := range quiet {
		if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := r.CargoExec(sub); got != "" {
			t.Errorf("%q: CargoExec = %q, want nothing", text, got)
		}
	}
	// The person's own CARGO_HOME configuration is theirs.
	if err := os.WriteFile(filepath.Join(root, "home", ".cargo", "config.toml"), []byte("[build]\nrustc-wrapper = \"sccache\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := NewResolver(mustRoots(t, filepath.Join(root, "home"))).CargoExec(filepath.Join(root, "home")); got != "" {
		t.Errorf("CARGO_HOME's configuration: %q, want nothing", got)
	}
	// rustup's toolchain file: a path runs that folder's cargo; a channel does not.
	tc := filepath.Join(sub, "rust-toolchain.toml")
	if err := os.WriteFile(tc, []byte("[toolchain]\npath = \"./tc\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := r.CargoExec(sub); !strings.Contains(got, "toolchain.path") {
		t.Errorf("rust-toolchain.toml with a path: %q", got)
	}
	if err := os.WriteFile(tc, []byte("[toolchain]\nchannel = \"1.80\"\ncomponents = [\"clippy\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := r.CargoExec(sub); got != "" {
		t.Errorf("rust-toolchain.toml with a channel: %q", got)
	}
}

// FuzzParseTOML: the reader of cargo's configuration never panics, and
// what it accepts has keys.
func FuzzParseTOML(f *testing.F) {
	for _, s := range []string{"[build]\nrustc-wrapper = \"x\"\n", "a = [\n 'b', # c\n [1, {d = \"\\u0041\"}],\n]\n", "x = \"\"\"\nm\\\n  l\"\"\"\n", "[t.'q'.\"r\"]\nk.l = { m = 1 }\n", "\"\\U0001F600\" = 1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		entries, err := parseTOML([]byte(s))
		if err != nil {
			return
		}
		for _, e := range entries {
			if len(e.key) == 0 {
				t.Fatalf("%q: an entry with no key", s)
			}
			cargoRuns(e)
		}
	})
}
