package workspace

import "admit/policy/command"

// stampOf is what an lstat saw, as an observation keeps it.
func stampOf(st *statT) command.Stamp {
	return command.Stamp{Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(), Dev: uint64(st.Dev), Ino: uint64(st.Ino)}
}
