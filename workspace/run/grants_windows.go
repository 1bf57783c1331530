package run

// userCacheHome is %LocalAppData%, as Go's os.UserCacheDir says for
// Windows.
func userCacheHome(env []string, _ string) string { return envValue(env, "LOCALAPPDATA") }

// userConfigHome is %AppData% (os.UserConfigDir).
func userConfigHome(env []string, _ string) string { return envValue(env, "APPDATA") }
