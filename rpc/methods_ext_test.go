package rpc

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The extension names every method in one table (extension/src/protocol.ts):
// the part before "server to client" must be exactly the methods this server
// answers, and the rest exactly the ones it sends, so that a method renamed
// or added on one side fails here rather than in a person's editor.
func TestExtensionMethodNames(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "extension", "src", "protocol.ts"))
	if err != nil {
		t.Fatal(err)
	}
	table := regexp.MustCompile(`(?s)export const Methods = \{(.*?)\} as const;`).FindSubmatch(src)
	if table == nil {
		t.Fatal("extension/src/protocol.ts: no `export const Methods = {...} as const` table")
	}
	toServer, toClient, found := strings.Cut(string(table[1]), "// server to client")
	if !found {
		t.Fatal(`extension/src/protocol.ts: the Methods table has no "// server to client" part`)
	}
	names := func(s string) []string {
		var out []string
		for _, m := range regexp.MustCompile(`'(admit/[A-Za-z]+)'`).FindAllStringSubmatch(s, -1) {
			out = append(out, m[1])
		}
		slices.Sort(out)
		return out
	}
	var served []string
	for name := range methods {
		served = append(served, name)
	}
	slices.Sort(served)
	if got := names(toServer); !slices.Equal(got, served) {
		t.Errorf("the extension calls %v\nthe server answers %v", got, served)
	}
	if got, sent := names(toClient), sentMethods(t); !slices.Equal(got, sent) {
		t.Errorf("the extension expects %v from the server\nthe server sends %v", got, sent)
	}
}

// sentMethods are the admit/* names this package's own code calls or
// notifies the client with.
func sentMethods(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	// The server's sends: s.conn's calls and notifications, and the outbox's.
	send := regexp.MustCompile(`(?:Call\(ctx, s\.conn, |\.conn\.Notify\([^,]+, |\.out\.notify\()"(admit/[A-Za-z]+)"`)
	seen := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range send.FindAllSubmatch(b, -1) {
			seen[string(m[1])] = true
		}
	}
	var out []string
	for name := range seen {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}
