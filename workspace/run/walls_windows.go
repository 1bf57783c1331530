package run

import (
	"sync"

	"golang.org/x/sys/windows"
)

var probe = sync.OnceValue(func() Machine {
	v := windows.RtlGetVersion()
	m := Machine{OS: "windows", Sandbox: SandboxNone, SandboxNote: windowsNote, MemoryBound: "job"}
	if v != nil {
		m.Kernel = fmtVersion(v.MajorVersion, v.MinorVersion, v.BuildNumber)
	}
	m.Judged, m.MissingJudged = uniformWalls(false, false, "")
	m.Code, m.MissingCode = uniformWalls(true, false, "")
	return m
})
