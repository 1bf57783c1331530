package run

import (
	"os"
	"path/filepath"
	"strings"
)

// A program that runs code (go test, npm install, pip install) would
// otherwise write the person's caches, which their own later builds
// trust: a Go build cache entry, a package in ~/.npm or pip's wheel cache
// planted by a confined run would be used, unconfined, by the person. So
// a run of code never writes them: the person's caches are granted read
// only (the module caches keep what is downloaded there usable), and the
// run's environment points every toolchain at a private cache in its own
// temporary folder, which goes with the folder when the run ends
// (docs/confinement.md, "Caches").

// cacheDir is the private cache folder under a run's temporary folder.
const cacheDir = "cache"

// privateCaches are the variables that point the toolchains at a private
// cache under tmpdir (the run's TMPDIR as its programs see it), given the
// person's scrubbed environment: for each tool, the variable it documents
// for its cache. The person's module caches stay where they are, read
// only: GOMODCACHE (set so that go does not derive another from GOPATH),
// and Gradle's dependency cache as GRADLE_RO_DEP_CACHE, its read-only
// cache.
func privateCaches(tmpdir string, personEnv []string) [][2]string {
	c := filepath.Join(tmpdir, cacheDir)
	vars := [][2]string{
		{"XDG_CACHE_HOME", c}, // every tool that follows the XDG default
		{"GOCACHE", filepath.Join(c, "go-build")},
		{"npm_config_cache", filepath.Join(c, "npm")},
		{"NPM_CONFIG_CACHE", filepath.Join(c, "npm")},
		{"pnpm_config_store_dir", filepath.Join(c, "pnpm-store")},
		{"YARN_CACHE_FOLDER", filepath.Join(c, "yarn")},
		{"YARN_GLOBAL_FOLDER", filepath.Join(c, "yarn-berry")},
		{"BUN_INSTALL_CACHE_DIR", filepath.Join(c, "bun")},
		{"PIP_CACHE_DIR", filepath.Join(c, "pip")},
		{"UV_CACHE_DIR", filepath.Join(c, "uv")},
		{"POETRY_CACHE_DIR", filepath.Join(c, "poetry")},
		{"PIPENV_CACHE_DIR", filepath.Join(c, "pipenv")},
		{"GRADLE_USER_HOME", filepath.Join(c, "gradle")},
	}
	for _, t := range toolchainDirs(personEnv) {
		switch t.Why {
		case "GOMODCACHE":
			vars = append(vars, [2]string{"GOMODCACHE", t.Path})
		case "Gradle caches":
			vars = append(vars, [2]string{"GRADLE_RO_DEP_CACHE", t.Path})
		}
	}
	return vars
}

// makeCacheDir makes the private cache folder in the run's temporary
// folder (temp, as admit sees it), so a tool that expects it to exist
// finds it.
func makeCacheDir(temp string) error {
	return os.MkdirAll(filepath.Join(temp, cacheDir), 0o700)
}

// withCaches sets vars in env, over any value the line's own
// assignments gave (GOCACHE=~/.cache/go-build go test would otherwise
// point back at the person's, which the walls keep read-only anyway).
func withCaches(env []string, vars [][2]string) []string {
	for _, kv := range vars {
		env = setEnv(env, kv[0], kv[1])
	}
	return env
}

// goCacheProgVars are the variables that make the run's go read the
// person's build cache through admit's cache program (gocacheprog.go),
// and the program's file, which the run must be let execute; nil where
// the person has no build cache or admit's own file cannot be named.
func goCacheProgVars(personEnv []string) ([][2]string, string) {
	person := ""
	for _, t := range toolchainDirs(personEnv) {
		if t.Why == "GOCACHE" {
			person = t.Path
		}
	}
	self, err := os.Executable()
	if err != nil || person == "" {
		return nil, ""
	}
	if real, err := filepath.EvalSymlinks(self); err == nil {
		self = real
	}
	// GOCACHEPROG is split on spaces, with quotes: a name with a quote in
	// it is not passed at all.
	if strings.ContainsAny(self, "'\"") {
		return nil, ""
	}
	return [][2]string{{"GOCACHEPROG", "'" + self + "' " + goCacheProgArg}, {goCacheReadVar, person}}, self
}
