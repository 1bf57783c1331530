package run

// userCacheHome is where toolchains keep their caches by default, as Go's
// os.UserCacheDir says for macOS: ~/Library/Caches (Go's build cache,
// pip's). XDG_CACHE_HOME is not consulted there.
func userCacheHome(_ []string, home string) string { return joinIf(home, "Library", "Caches") }

// userConfigHome is ~/Library/Application Support (os.UserConfigDir).
func userConfigHome(_ []string, home string) string {
	return joinIf(home, "Library", "Application Support")
}
