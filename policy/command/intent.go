package command

import "fmt"

// Op is what an admitted write is meant to do to its path.
type Op uint8

// The writes a command can be admitted for. A run's readback
// (workspace/effects) checks each one after the command ran.
const (
	// OpNone records no intent (a backup, mv's source: the move is the
	// destination's intent).
	OpNone Op = iota
	// OpCreate: Path exists afterwards (touch, cp --attributes-only).
	OpCreate
	// OpCreateDir: Path is a folder afterwards (mkdir).
	OpCreateDir
	// OpChange: Path exists afterwards, written, replaced or changed by
	// the program (tee, chmod, sed -i, uniq's output, sort -o, > and >>).
	OpChange
	// OpUpdate: Path is changed only if it exists, so it exists afterwards
	// exactly when it existed before (touch -c).
	OpUpdate
	// OpRemove: Path is gone afterwards (rm, rmdir).
	OpRemove
	// OpCopy: Path holds what From holds (cp SOURCE DEST, cp -t DIR SOURCE).
	OpCopy
	// OpMove: From is gone afterwards, and Path holds what From held (mv).
	OpMove
	// OpExchange: Path and From each hold what the other held (mv --exchange).
	OpExchange
)

var opNames = [...]string{"none", "create", "create-folder", "change", "update", "remove", "copy", "move", "exchange"}

func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", o)
}

// An Intent is one admitted write in the policy's own reading of the
// command: the options and operands as its getopt_long parser read them,
// and the paths as they were resolved when it was judged. It is what a
// run's readback checks, and nothing else.
type Intent struct {
	Op   Op
	Path string // resolved, absolute: the path written
	// From is the source of a copy, a move or an exchange: resolved and
	// absolute, its final symlink not followed (cp and mv take the name).
	From string
	// Keep: an existing Path may be left as it was (cp -n, -u, -i).
	Keep bool
	By   string // what writes it: the program ("cp"), or "redirection >"
	Cmd  int    // the index of its simple command in the line (0 for an argv)
	// Dir is the working folder the command was judged in. A command
	// after "cd DIR;" is judged in every folder it may run in, and has an
	// Intent for each.
	Dir string
}
