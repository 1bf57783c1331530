package run

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoCacheProg: admit's cache program speaks cmd/go's protocol: it
// declares get, put and close; answers a get from the person's cache
// (read only) when the private one misses; puts into the private one
// only, where the next get finds it first; and misses what neither has.
func TestGoCacheProg(t *testing.T) {
	private, person := t.TempDir(), t.TempDir()
	action := make([]byte, 32)
	output := make([]byte, 32)
	for i := range action {
		action[i], output[i] = byte(i+1), byte(0xa0+i%16)
	}
	body := []byte("compiled package")
	// An entry of the person's, in Go's own format.
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(writeAtomic(cacheFile(person, output, "d"), body))
	must(writeAtomic(cacheFile(person, action, "a"), fmt.Appendf(nil, "v1 %x %x %20d %20d\n", action, output, len(body), 1)))
	personBefore := listTree(t, person)

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() { done <- goCacheProg(inR, outW, private, person); outW.Close() }()
	dec := json.NewDecoder(bufio.NewReader(outR))
	read := func() cacheProgResponse {
		t.Helper()
		var r cacheProgResponse
		must(dec.Decode(&r))
		return r
	}
	send := func(v any, b64 string) {
		t.Helper()
		line, _ := json.Marshal(v)
		line = append(line, '\n')
		if b64 != "" {
			line = append(line, []byte(`"`+b64+`"`+"\n")...)
		}
		_, err := inW.Write(line)
		must(err)
	}
	if hello := read(); strings.Join(hello.KnownCommands, ",") != "get,put,close" {
		t.Fatalf("hello: %+v", hello)
	}
	send(cacheProgRequest{ID: 1, Command: "get", ActionID: action}, "")
	r := read()
	if r.ID != 1 || r.Miss || r.DiskPath != cacheFile(person, output, "d") || r.Size != int64(len(body)) {
		t.Fatalf("get from the person's cache: %+v", r)
	}
	other := make([]byte, 32)
	other[0] = 0xee
	send(cacheProgRequest{ID: 2, Command: "get", ActionID: other}, "")
	if r := read(); !r.Miss {
		t.Fatalf("a get of nothing: %+v", r)
	}
	newBody := []byte("the run's own")
	send(cacheProgRequest{ID: 3, Command: "put", ActionID: action, OutputID: other, BodySize: int64(len(newBody))}, base64.StdEncoding.EncodeToString(newBody))
	r = read()
	if r.Err != "" || !strings.HasPrefix(r.DiskPath, private+string(filepath.Separator)) {
		t.Fatalf("put: %+v", r)
	}
	send(cacheProgRequest{ID: 4, Command: "get", ActionID: action}, "")
	if r := read(); r.DiskPath != cacheFile(private, other, "d") {
		t.Fatalf("the private put is not found first: %+v", r)
	}
	if b, _ := os.ReadFile(cacheFile(private, other, "d")); string(b) != string(newBody) {
		t.Fatalf("the private body: %q", b)
	}
	send(cacheProgRequest{ID: 5, Command: "close"}, "")
	if r := read(); r.ID != 5 {
		t.Fatalf("close: %+v", r)
	}
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
	if after := listTree(t, person); after != personBefore {
		t.Fatalf("the person's cache changed:\n%s\n%s", personBefore, after)
	}
}

func listTree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil {
			fmt.Fprintf(&b, "%s %d %d\n", p, info.Size(), info.ModTime().UnixNano())
		}
		return nil
	})
	return b.String()
}
