package command

import "os"

// linkCount is 1: the test file system does not read Windows' link
// counts.
func linkCount(os.FileInfo) uint64 { return 1 }

// ownedByOther is false on Windows, as workspace.Resolver's.
func ownedByOther(os.FileInfo) bool { return false }
