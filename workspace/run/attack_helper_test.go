//go:build linux

package run

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

func unsafePointer[T any](p *T) unsafe.Pointer { return unsafe.Pointer(p) }

// attackMain is the helper's part that tries what a confined program must
// not do. Each command prints "ok" and exits 0 when the forbidden thing
// worked, or prints the error and exits 1.
func attackMain(args []string) int {
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, args[0]+":", err)
		return 1
	}
	ok := func() int {
		fmt.Println("ok")
		return 0
	}
	switch args[0] {
	case "read": // read FILE: print it
		b, err := os.ReadFile(args[1])
		if err != nil {
			return fail(err)
		}
		os.Stdout.Write(b)
	case "append": // append FILE TEXT
		f, err := os.OpenFile(args[1], os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return fail(err)
		}
		defer f.Close()
		if _, err := f.WriteString(args[2]); err != nil {
			return fail(err)
		}
		return ok()
	case "create": // create FILE
		if err := os.WriteFile(args[1], []byte("created"), 0o644); err != nil {
			return fail(err)
		}
		return ok()
	case "chmod": // chmod FILE (to 0777)
		if err := os.Chmod(args[1], 0o777); err != nil {
			return fail(err)
		}
		return ok()
	case "symlink": // symlink TARGET LINK
		if err := os.Symlink(args[1], args[2]); err != nil {
			return fail(err)
		}
		return ok()
	case "dial": // dial NETWORK ADDRESS: connect (or send, for datagrams) "leak"; unix-in DIR NAME
		network, addr := args[1], args[2]
		if network == "unix-in" {
			network, addr = "unix", filepath.Join(args[2], args[3])
		}
		c, err := net.DialTimeout(network, addr, 3*time.Second)
		if err != nil {
			return fail(err)
		}
		defer c.Close()
		if _, err := c.Write([]byte("leak")); err != nil {
			return fail(err)
		}
		return ok()
	case "listen": // listen NETWORK ADDRESS
		l, err := net.Listen(args[1], args[2])
		if err != nil {
			return fail(err)
		}
		l.Close()
		return ok()
	case "loopback": // listen on 127.0.0.1 and dial it: a private loopback works
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return fail(err)
		}
		defer l.Close()
		go func() {
			if c, err := l.Accept(); err == nil {
				c.Write([]byte("hi"))
				c.Close()
			}
		}()
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			return fail(err)
		}
		b := make([]byte, 2)
		if _, err := c.Read(b); err != nil || string(b) != "hi" {
			return fail(fmt.Errorf("read %q: %v", b, err))
		}
		return ok()
	case "socketpair": // socketpair TYPE (stream|dgram)
		typ := unix.SOCK_STREAM
		if args[1] == "dgram" {
			typ = unix.SOCK_DGRAM
		}
		fds, err := unix.Socketpair(unix.AF_UNIX, typ, 0)
		if err != nil {
			return fail(err)
		}
		unix.Close(fds[0])
		unix.Close(fds[1])
		return ok()
	case "kill": // kill PID SIGNAL
		pid, _ := strconv.Atoi(args[1])
		sig, _ := strconv.Atoi(args[2])
		if err := syscall.Kill(pid, syscall.Signal(sig)); err != nil {
			return fail(err)
		}
		return ok()
	case "ptrace": // ptrace PID: attach (and detach)
		pid, _ := strconv.Atoi(args[1])
		runtime.LockOSThread()
		if err := unix.PtraceAttach(pid); err != nil {
			return fail(err)
		}
		var ws unix.WaitStatus
		unix.Wait4(pid, &ws, 0, nil)
		unix.PtraceDetach(pid)
		return ok()
	case "shm": // create a SysV shared memory segment
		id, err := unix.SysvShmGet(unix.IPC_PRIVATE, 4096, unix.IPC_CREAT|0o600)
		if err != nil {
			return fail(err)
		}
		unix.SysvShmCtl(id, unix.IPC_RMID, nil)
		return ok()
	case "tiocsti": // push a byte into standard input's terminal
		b := byte('x')
		_, _, e := unix.Syscall(unix.SYS_IOCTL, 0, unix.TIOCSTI, uintptr(unsafePointer(&b)))
		fmt.Println("errno", int(e))
		return 0
	case "io_uring":
		params := make([]byte, 120)
		fd, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafePointer(&params[0])), 0)
		if e != 0 {
			return fail(e)
		}
		unix.Close(int(fd))
		return ok()
	case "open-wait": // open-wait DIR NAME: open DIR/NAME for reading (a FIFO blocks)
		f, err := os.Open(filepath.Join(args[1], args[2]))
		if err != nil {
			return fail(err)
		}
		f.Close()
		return ok()
	case "ignore-term": // ignore-term [READY]: ignore SIGTERM and sleep
		signal.Ignore(syscall.SIGTERM)
		if len(args) > 1 {
			os.WriteFile(args[1], []byte("ready"), 0o644)
		}
		time.Sleep(time.Hour)
	case "tempdir": // tempdir NAME: print the temporary folder and write NAME in it
		dir := os.TempDir()
		if err := os.WriteFile(filepath.Join(dir, args[1]), []byte("x"), 0o644); err != nil {
			return fail(err)
		}
		fmt.Println(dir)
	case "setsid-sleep": // start a grandchild in its own session, print its pid as the machine sees it, exit
		cmd := exec.Command(os.Args[0], "self-sleep")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		out, err := cmd.StdoutPipe()
		if err != nil {
			return fail(err)
		}
		if err := cmd.Start(); err != nil {
			return fail(err)
		}
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil {
			return fail(err)
		}
		fmt.Print(line)
	case "self-sleep":
		// /proc is the machine's, so /proc/self names this process by
		// the machine's pid even inside a pid namespace.
		self, err := os.Readlink("/proc/self")
		if err != nil {
			return fail(err)
		}
		fmt.Println(self)
		time.Sleep(time.Hour)
	default:
		return 2
	}
	return 0
}
