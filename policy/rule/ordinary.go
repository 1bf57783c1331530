package rule

// The command policy's rules for ordinary lines it asks about, and for
// the dangers it refuses as classes (policy/command/ordinary.go,
// outside.go, danger.go).
const (
	// Background: a command of the line runs in the background (cmd &).
	Background Rule = "background"
	// OutsideRead: a read or listing of a path outside the workspace that
	// is no secret and no place of the person's.
	OutsideRead Rule = "outside-read"
	// Signal: kill of the pids a probe of the same line prints, or of
	// the line's own job.
	Signal Rule = "signal"
	// SecretExfiltration: a secret sent or copied off the machine.
	SecretExfiltration Rule = "secret-exfiltration"
	// WorkspaceExfiltration: the workspace copied to another host.
	WorkspaceExfiltration Rule = "workspace-exfiltration"
	// Persistence: something set to run later, outside the workspace
	// (crontab, a service unit, a shell's start-up file, an editor
	// extension, git's global hooks).
	Persistence Rule = "persistence"
	// ForeignSignal: a signal to processes the session did not start
	// (pkill, killall, kill of a pid named on the line).
	ForeignSignal Rule = "foreign-signal"
)
