package run

import (
	"bufio"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Go's build cache for a run of code: the run's GOCACHE is private
// (caches.go), which alone would make every confined go test compile
// the standard library again. So where Go takes a cache program
// (GOCACHEPROG, Go 1.24 and later), the run's go is pointed at this one:
// admit itself, started by go inside the run's walls with goCacheProgArg.
// It answers from the run's private cache, else from the person's
// (ADMIT_GOCACHE_READ, which the walls let it read and never write), and
// puts only into the private one. Entries are in Go's own on-disk format
// (cmd/go/internal/cache: "<2 hex>/<action hex>-a" holding "v1 <action>
// <output> <size> <time>", the output in "<2 hex>/<output hex>-d").

// goCacheProgArg is the argument that makes this binary the cache program.
const goCacheProgArg = "admit-gocacheprog"

// goCacheReadVar names the person's build cache, read only.
const goCacheReadVar = "ADMIT_GOCACHE_READ"

func init() {
	if len(os.Args) == 2 && os.Args[1] == goCacheProgArg {
		os.Exit(goCacheProg(os.Stdin, os.Stdout, os.Getenv("GOCACHE"), os.Getenv(goCacheReadVar)))
	}
}

// cacheProgRequest and cacheProgResponse are cmd/go/internal/cacheprog's
// Request and Response.
type cacheProgRequest struct {
	ID       int64
	Command  string
	ActionID []byte `json:",omitempty"`
	OutputID []byte `json:",omitempty"`
	BodySize int64  `json:",omitempty"`
}

type cacheProgResponse struct {
	ID            int64
	Err           string     `json:",omitempty"`
	KnownCommands []string   `json:",omitempty"`
	Miss          bool       `json:",omitempty"`
	OutputID      []byte     `json:",omitempty"`
	Size          int64      `json:",omitempty"`
	Time          *time.Time `json:",omitempty"`
	DiskPath      string     `json:",omitempty"`
}

// goCacheProg serves go's requests on in and out until close or the end of
// input; private is where puts go (and is read first), person the cache
// that is only read ("" is none). It returns the exit status.
func goCacheProg(in io.Reader, out io.Writer, private, person string) int {
	if !filepath.IsAbs(private) {
		fmt.Fprintln(os.Stderr, "admit-gocacheprog: GOCACHE is not an absolute path")
		return 2
	}
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	reply := func(r cacheProgResponse) bool {
		if enc.Encode(r) != nil || w.Flush() != nil {
			return false
		}
		return true
	}
	if !reply(cacheProgResponse{KnownCommands: []string{"get", "put", "close"}}) {
		return 1
	}
	dec := json.NewDecoder(bufio.NewReader(in))
	for {
		var req cacheProgRequest
		if err := dec.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return 0
			}
			fmt.Fprintln(os.Stderr, "admit-gocacheprog:", err)
			return 1
		}
		res := cacheProgResponse{ID: req.ID}
		switch req.Command {
		case "get":
			res = cacheGet(req, private, person)
		case "put":
			var body []byte
			if req.BodySize > 0 {
				var b64 string
				if err := dec.Decode(&b64); err != nil {
					fmt.Fprintln(os.Stderr, "admit-gocacheprog: body:", err)
					return 1
				}
				b, err := base64.StdEncoding.DecodeString(b64)
				if err != nil {
					fmt.Fprintln(os.Stderr, "admit-gocacheprog: body:", err)
					return 1
				}
				body = b
			}
			res = cachePut(req, body, private)
		case "close":
			reply(res)
			return 0
		default:
			res.Err = "unknown command " + strconv.Quote(req.Command)
		}
		if !reply(res) {
			return 1
		}
	}
}

// cacheFile is where Go keeps id's entry of kind ("a" or "d") under dir.
func cacheFile(dir string, id []byte, kind string) string {
	return filepath.Join(dir, fmt.Sprintf("%02x", id[0]), hex.EncodeToString(id)+"-"+kind)
}

func cacheGet(req cacheProgRequest, dirs ...string) cacheProgResponse {
	res := cacheProgResponse{ID: req.ID, Miss: true}
	if len(req.ActionID) == 0 {
		return res
	}
	for _, dir := range dirs {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		out, size, tm, ok := readCacheEntry(cacheFile(dir, req.ActionID, "a"), req.ActionID)
		if !ok {
			continue
		}
		path := cacheFile(dir, out, "d")
		if info, err := os.Stat(path); err != nil || !info.Mode().IsRegular() || info.Size() != size {
			continue
		}
		t := time.Unix(0, tm)
		return cacheProgResponse{ID: req.ID, OutputID: out, Size: size, Time: &t, DiskPath: path}
	}
	return res
}

// readCacheEntry reads an action entry of Go's disk cache.
func readCacheEntry(path string, action []byte) (out []byte, size, tm int64, ok bool) {
	b, err := readRegular(path, 256)
	if err != nil {
		return nil, 0, 0, false
	}
	f := strings.Fields(string(b))
	if len(f) != 5 || f[0] != "v1" || f[1] != hex.EncodeToString(action) {
		return nil, 0, 0, false
	}
	out, err = hex.DecodeString(f[2])
	if err != nil || len(out) == 0 {
		return nil, 0, 0, false
	}
	size, err1 := strconv.ParseInt(f[3], 10, 64)
	tm, err2 := strconv.ParseInt(f[4], 10, 64)
	if err1 != nil || err2 != nil || size < 0 {
		return nil, 0, 0, false
	}
	return out, size, tm, true
}

func cachePut(req cacheProgRequest, body []byte, dir string) cacheProgResponse {
	res := cacheProgResponse{ID: req.ID}
	if len(req.ActionID) == 0 || len(req.OutputID) == 0 || int64(len(body)) != req.BodySize {
		res.Err = "put: an action id, an output id and the whole body are needed"
		return res
	}
	data := cacheFile(dir, req.OutputID, "d")
	entry := fmt.Sprintf("v1 %x %x %20d %20d\n", req.ActionID, req.OutputID, len(body), time.Now().UnixNano())
	if err := writeAtomic(data, body); err != nil {
		res.Err = err.Error()
		return res
	}
	if err := writeAtomic(cacheFile(dir, req.ActionID, "a"), []byte(entry)); err != nil {
		res.Err = err.Error()
		return res
	}
	res.DiskPath = data
	return res
}

// writeAtomic writes a file whole, through a temporary file and a rename.
func writeAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".put-")
	if err != nil {
		return err
	}
	_, werr := f.Write(b)
	if err := errors.Join(werr, f.Close()); err != nil {
		os.Remove(f.Name())
		return err
	}
	return os.Rename(f.Name(), path)
}
