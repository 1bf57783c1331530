package command

import (
	"fmt"
	"net"
	"strings"

	"admit/policy/rule"
)

// A secret or the workspace sent off the machine, by any program that
// sends: the files its sending options name (curl -d @F, -T F, -F x=@F,
// wget --post-file F, an httpie item x=@F), the local sources of a copy to
// a host (scp, rsync, rclone, aws s3 cp), and what it reads on standard
// input when it sends that (nc, ssh, curl -d @-): a file redirected in, or
// the files the commands before it in a pipeline name (tar czf - . |
// curl --data-binary @- ...). A payload is a secret when the secret
// patterns name it, and the workspace when it is a root or a folder that
// holds one. A send to this machine itself (localhost) is no exfiltration;
// the secret is then judged as a read (secret-read).

// senders are the programs that send data to another host, and how each
// says what it sends.
var senders = map[string]senderKind{
	"curl": sendCurl, "wget": sendWget, "http": sendHttpie, "https": sendHttpie, "xh": sendHttpie, "xhs": sendHttpie,
	"scp": sendCopy, "rsync": sendCopy, "rclone": sendCopy, "sftp": sendStdin, "ftp": sendStdin, "lftp": sendStdin,
	"nc": sendStdin, "ncat": sendStdin, "netcat": sendStdin, "socat": sendSocat, "telnet": sendStdin, "ssh": sendStdin,
	"croc": sendFiles, "wormhole": sendFiles, "ffsend": sendFiles, "transfer": sendFiles, "smbclient": sendStdin,
	"aws": sendCloud, "gsutil": sendCloud, "gcloud": sendCloud, "az": sendCloud, "s3cmd": sendCloud, "mc": sendCloud,
}

var senderFilter = filterOf(senders)

type senderKind uint8

const (
	sendCurl   senderKind = iota + 1
	sendWget              // --post-file, --body-file
	sendHttpie            // items x=@F, x:=@F, x@F, @F; standard input
	sendCopy              // SOURCES... HOST:DEST
	sendStdin             // what standard input holds
	sendSocat             // FILE:F / OPEN:F addresses, or standard input
	sendFiles             // every operand is sent
	sendCloud             // SOURCES... URL of a bucket (s3://, gs://)
)

// exfiltration judges a sender, name being path.Base(argv[0]) (danger's);
// it reports whether it refused.
func (j *judge) exfiltration(argv []string, name string) bool {
	kind, ok := senderKind(0), false
	if senderFilter.mayHave(name) {
		kind, ok = senders[name]
	}
	if !ok {
		return false
	}
	args := argv[1:]
	var files []string
	stdin := false
	remote := true
	switch kind {
	case sendCurl:
		files, stdin = curlPayload(args)
		remote = anyRemoteURL(args)
	case sendWget:
		for i, a := range args {
			for _, o := range []string{"--post-file", "--body-file"} {
				if v, ok := strings.CutPrefix(a, o+"="); ok {
					files = append(files, v)
				} else if a == o && i+1 < len(args) {
					files = append(files, args[i+1])
				}
			}
		}
		remote = anyRemoteURL(args)
	case sendHttpie:
		for _, a := range args {
			if strings.HasPrefix(a, "-") {
				continue
			}
			if f, ok := strings.CutPrefix(a, "@"); ok {
				files = append(files, f)
			} else if i := strings.IndexByte(a, '@'); i > 0 && !strings.Contains(a[:i], "/") {
				files = append(files, strings.TrimPrefix(a[i+1:], "@"))
			}
		}
		stdin, remote = true, anyRemoteURL(args)
	case sendCopy:
		ops := nonOptions(args)
		if len(ops) < 2 || !remoteSpec(ops[len(ops)-1]) {
			return false // a copy into this machine: judged as the program it is
		}
		files = ops[:len(ops)-1]
	case sendCloud:
		ops := nonOptions(args)
		if len(ops) < 2 || !strings.Contains(ops[len(ops)-1], "://") {
			return false
		}
		files = ops[:len(ops)-1]
	case sendFiles:
		files = nonOptions(args)
	case sendSocat:
		for _, a := range args {
			for _, pre := range []string{"FILE:", "OPEN:", "GOPEN:", "CREATE:"} {
				if strings.HasPrefix(strings.ToUpper(a), pre) {
					files = append(files, strings.SplitN(a[len(pre):], ",", 2)[0])
				}
			}
		}
		stdin = true
	case sendStdin:
		stdin = true
		if ops := nonOptions(args); len(ops) > 0 && localHost(ops[0][strings.LastIndexByte(ops[0], '@')+1:]) {
			remote = false
		}
	}
	if !remote {
		return false
	}
	for _, f := range files {
		if j.payload(argv, argv[0], f) {
			return true
		}
	}
	if stdin {
		return j.stdinPayload(argv)
	}
	return false
}

// curlPayload is what curl sends from files: the @FILE of -d, --data,
// --data-binary, --data-ascii, --data-urlencode (also NAME@FILE), --json,
// the @FILE and <FILE of -F and --form values, the file of -T and
// --upload-file, and its options file (-K); stdin is true when one of
// them is standard input (@-, -T -).
func curlPayload(args []string) (files []string, stdin bool) {
	add := func(opt, v string) {
		switch opt {
		case "-T", "--upload-file":
			if v == "-" || v == "." {
				stdin = true
			} else {
				files = append(files, v)
			}
			return
		case "-K", "--config":
			files = append(files, v)
			return
		case "-F", "--form":
			if _, val, ok := strings.Cut(v, "="); ok {
				v = val
				if f, ok := strings.CutPrefix(v, "<"); ok {
					v = "@" + f
				}
				v, _, _ = strings.Cut(v, ";")
			}
		case "--data-urlencode":
			if i := strings.IndexByte(v, '@'); i > 0 {
				v = v[i:]
			}
		}
		if f, ok := strings.CutPrefix(v, "@"); ok {
			if f == "-" {
				stdin = true
			} else {
				files = append(files, f)
			}
		}
	}
	long := " --data --data-binary --data-ascii --data-urlencode --json --form --upload-file --config "
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return
		case strings.HasPrefix(a, "--"):
			if strings.Contains(long, " "+a+" ") && i+1 < len(args) {
				add(a, args[i+1])
				i++
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for k := 1; k < len(a); k++ {
				c := a[k]
				if strings.IndexByte("dFTK", c) < 0 {
					if strings.IndexByte("XHAeEoubcCrmwxyYzUQ", c) >= 0 {
						// another option with a value: the rest is its value
						if k == len(a)-1 {
							i++
						}
						break
					}
					continue
				}
				opt := "-" + string(c)
				if k+1 < len(a) {
					add(opt, a[k+1:])
				} else if i+1 < len(args) {
					add(opt, args[i+1])
					i++
				}
				break
			}
		}
	}
	return
}

// anyRemoteURL reports whether an operand of a web client names a host
// other than this machine; with no URL at all it is taken as remote.
func anyRemoteURL(args []string) bool {
	seen := false
	for _, a := range args {
		if strings.HasPrefix(a, "-") || strings.HasPrefix(a, "@") || strings.Contains(a, "=") && !strings.Contains(a, "://") {
			continue // an option, a file to send, a field
		}
		host := a
		if _, rest, ok := strings.Cut(a, "://"); ok {
			host = rest
		} else if !strings.Contains(a, ".") && !strings.HasPrefix(a, "localhost") && !strings.HasPrefix(a, ":") {
			continue // not a URL (a method, a header value)
		}
		host, _, _ = strings.Cut(host, "/")
		if at := strings.LastIndexByte(host, '@'); at >= 0 {
			host = host[at+1:]
		}
		seen = true
		if !localHost(host) {
			return true
		}
	}
	return !seen
}

// localHost reports a host (with an optional :port) that is this machine.
func localHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	} else if strings.HasPrefix(hostport, ":") {
		return true // :3000, httpie's localhost
	}
	host = strings.Trim(host, "[]")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.IsLoopback() || ip.IsUnspecified())
}

// remoteSpec reports a copy's destination on another host: HOST:PATH,
// USER@HOST:PATH, HOST::MODULE or a URL, the host not this machine.
func remoteSpec(w string) bool {
	if strings.Contains(w, "://") {
		_, rest, _ := strings.Cut(w, "://")
		host, _, _ := strings.Cut(rest, "/")
		return !localHost(host[strings.LastIndexByte(host, '@')+1:])
	}
	i := strings.IndexByte(w, ':')
	if i <= 0 || strings.Contains(w[:i], "/") {
		return false
	}
	host := w[:i]
	host = host[strings.LastIndexByte(host, '@')+1:]
	return !localHost(host)
}

// payload refuses a file word a sender sends off the machine when it is
// a secret or the workspace; it reports whether it refused.
func (j *judge) payload(argv []string, prog, word string) bool {
	if word == "" || word == "-" || remoteSpec(word) || strings.Contains(word, "://") {
		return false
	}
	abs := j.cleanAbs(word)
	resolved := abs
	if r, ok := j.quietResolve(word); ok {
		resolved = r.Path
	}
	s := j.c.secrets()
	for _, p := range []string{resolved, abs} {
		if pat := s.Secret(p); pat != "" {
			j.dangerRefuse(rule.SecretExfiltration, argv, fmt.Sprintf("%s sends %q off the machine, which the secrets pattern %q names", prog, word, pat),
				"do not send secrets anywhere; ask the user to move them themselves")
			return true
		}
		for _, root := range j.c.Roots {
			if p == root || p == "/" || strings.HasPrefix(root, p+"/") {
				j.dangerRefuse(rule.WorkspaceExfiltration, argv, fmt.Sprintf("%s copies %q, the workspace (%s), to another host", prog, word, root),
					"do not copy the workspace off the machine; ask the user to do it")
				return true
			}
		}
	}
	return false
}

// stdinPayload refuses a sender whose standard input is a secret or the
// workspace: a file redirected in, or the files the commands before it
// in its pipeline name. It reports whether it refused.
func (j *judge) stdinPayload(argv []string) bool {
	for _, r := range j.redirs {
		if r.Fd == 0 && r.Read && r.Target != "" {
			return j.payload(argv, argv[0], r.Target)
		}
		if r.Fd == 0 && strings.HasPrefix(r.Op, "<<") {
			return false // a here-document: the line shows what is sent
		}
	}
	if j.cmd >= len(j.line) || j.line[j.cmd].Joiner != "|" {
		return false
	}
	for k := j.cmd - 1; k >= 0 && k < len(j.line); k-- {
		up := j.line[k]
		for _, w := range up.Argv[1:] {
			if strings.HasPrefix(w, "-") && w != "-" {
				if _, v, ok := strings.Cut(w, "="); ok {
					w = v
				} else {
					continue
				}
			}
			if r, ok := j.quietResolve(w); ok && (r.Exists || j.c.secrets().Secret(r.Path) != "") && j.payload(argv, argv[0]+" (from "+up.Argv[0]+" through the pipe)", w) {
				return true
			}
		}
		for _, r := range up.Redirects {
			if r.Fd == 0 && r.Read && r.Target != "" && j.payload(argv, argv[0]+" (from "+up.Argv[0]+" through the pipe)", r.Target) {
				return true
			}
		}
		if j.line[k].Joiner != "|" {
			break
		}
	}
	return false
}
