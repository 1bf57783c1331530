package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

var probe = sync.OnceValue(func() Machine {
	var u unix.Utsname
	_ = unix.Uname(&u)
	m := Machine{OS: "darwin", Kernel: unix.ByteSliceToString(u.Release[:]), Sandbox: SandboxSeatbelt}
	ok, why := seatbeltAvailable()
	by := BySeatbelt
	if !ok {
		m.Sandbox, m.SandboxNote, by = SandboxNone, why, ""
	}
	m.Judged, m.MissingJudged = uniformWalls(false, false, by)
	m.Code, m.MissingCode = uniformWalls(true, false, by)
	return m
})

// seatbeltAvailable says whether sandbox-exec confines a run here, and
// why not: it is missing, admit itself runs in a sandbox (one cannot be
// entered from another), or this macOS does not take admit's profile. It
// runs the profiles admit makes (of every kind of rule, network closed
// and open) once per process: a program must start under each, a write
// the profile denies must fail, and one it allows must succeed.
var seatbeltAvailable = sync.OnceValues(func() (bool, string) {
	if _, err := os.Stat(sandboxExec); err != nil {
		return false, sandboxExec + " is missing"
	}
	// In admit's own temporary folder, as the Linux probe's.
	base, _ := tempBase()
	dir, err := os.MkdirTemp(base, "probe-")
	if err != nil {
		return false, "no temporary folder for the probe: " + err.Error()
	}
	defer os.RemoveAll(dir)
	dir = resolve(dir)
	ws, outside, tmp := filepath.Join(dir, "ws"), filepath.Join(dir, "outside"), filepath.Join(dir, "tmp")
	for _, d := range []string{filepath.Join(ws, ".git"), outside, tmp} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return false, "probe: " + err.Error()
		}
	}
	target := filepath.Join(ws, "target")
	if err := os.WriteFile(target, nil, 0o600); err != nil {
		return false, "probe: " + err.Error()
	}
	env := []string{"PATH=/usr/bin:/bin", "HOME=" + outside}
	in := seatbeltInputs{Roots: []string{ws}, Temp: tmp, Env: env, Code: true,
		Protected: func(p string) bool { return filepath.Base(p) == ".git" }}
	code, _, err := planSeatbelt(in)
	if err != nil {
		return false, "probe: " + err.Error()
	}
	in.Code, in.Writes = false, []string{target}
	judged, _, err := planSeatbelt(in)
	if err != nil {
		return false, "probe: " + err.Error()
	}
	codeNet := code
	codeNet.Network = true
	run := func(plan seatbeltPlan, argv ...string) error {
		text, params := plan.profile()
		pdir, err := os.MkdirTemp(dir, "profile-")
		if err != nil {
			return err
		}
		file, err := writeProfile(pdir, text)
		if err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, sandboxExec, sandboxArgv(file, params, argv[0], argv[1:])[1:]...)
		cmd.Env, cmd.Dir = env, ws
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
		}
		return nil
	}
	for _, c := range []struct {
		what string
		plan seatbeltPlan
	}{{"a judged command's profile", judged}, {"a run of code's profile", code}, {"a run of code's profile with the network open", codeNet}} {
		if err := run(c.plan, "/usr/bin/true"); err != nil {
			return false, fmt.Sprintf("sandbox-exec does not run %s here: %v", c.what, err)
		}
	}
	if err := run(judged, "/usr/bin/touch", target); err != nil {
		return false, fmt.Sprintf("sandbox-exec refused a write admit's profile allows: %v", err)
	}
	denied := filepath.Join(outside, "written")
	err = run(code, "/usr/bin/touch", denied)
	if _, serr := os.Lstat(denied); err == nil || !errors.Is(serr, os.ErrNotExist) {
		return false, "sandbox-exec let a write admit's profile denies through"
	}
	return true, ""
})
