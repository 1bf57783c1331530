// Package connect sets up the agents' hooks for the person: for each host
// admit has an adapter for (package hook), it knows the user-level file
// its hook configuration lives in, what admit's entries there look like,
// and how to find out whether the host is installed and admit connected.
// `admit connect` (internal/cli) and the editor's admit/agents,
// admit/connectAgent and admit/disconnectAgent (rpc) are its two doors.
//
// Start at Inspect (one host's Status: installed, connected, stale, the
// change connecting would make as a unified diff and as before and after
// texts, and the undo) and Connect / Disconnect (the write, after the
// person saw that change and said yes; Status.Change.Sum pins it).
//
// The edits are text edits. A configuration is parsed with every value's
// place in the file, and admit's entries are spliced in, brought up to
// date member by member, or cut out; every other byte of the file (the
// person's settings and hooks, key order, indentation, comments where the
// host reads JSON with comments) stays as it was. Connecting and then
// disconnecting gives back the file's bytes, and a file admit created is
// removed again. A file that does not parse, or has a key twice, is
// refused with the line and column, and nothing is written.
//
// The entries name the admit binary by its absolute path (CheckBinary:
// never a bare name looked up on PATH, never a file inside a workspace or
// repository or a temporary folder), set the host's timeout where the
// host takes one and pass the same value to admit hook as --host-timeout,
// and take each host's fail-closed settings (Cursor's failClosed). A hook
// run through a shell ends in "|| exit 2": a binary that is missing makes
// the shell exit 127, which most hosts take for a hook that merely
// failed, and the guard turns it into the status they block on.
//
// The package reads the machine only through a System and writes only
// through a Writer (OS is both); the per-file edits are pure functions of
// the file's bytes.
package connect
