package cases

import "errors"

// mkfifo fails: Windows has no FIFOs in the file system, so the corpus's
// workspace cannot be built there.
func mkfifo(string) error { return errors.New("no FIFOs on Windows") }
