package shell

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// globTree makes a folder with names that trip pattern expansion up:
// hidden files, spaces, braces, brackets, dashes, quotes, a newline, a
// subfolder and a link to one.
func globTree(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"a.go", "b.go", ".hidden.go", "c d.go", "{x,y}.go", "x-rf.go", "[ab].go", "a*b",
		"qu'ote.go", "new\nline.go", "ü.go", "sub/one.go", "sub/two.txt", "sub/.h.txt", "sub/deep/three.go", "B.GO"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("sub", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// expandLine parses line and expands its one command's patterns in dir.
func expandLine(t *testing.T, p *Parser, line, dir string) ([]string, bool) {
	t.Helper()
	script, prob := p.Parse(line, Analyze)
	if prob != nil || len(script.Commands) != 1 || len(script.Commands[0].Redirects) != 0 {
		return nil, false
	}
	c := script.Commands[0]
	if err := ExpandPatterns(&c, dir, &Walk{ReadDir: os.ReadDir}); err != nil {
		t.Errorf("%q: %v", line, err)
		return nil, false
	}
	return c.Argv, true
}

// Patterns expand to what bash passes, in a folder of awkward names.
func TestPatternsAgainstBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir := globTree(t)
	p := NewParser(home)
	fixed := []string{
		`cmd *.go`, `cmd '*'.go`, `cmd \*.go`, `cmd "*.go"`, `cmd [ab].go`, `cmd "[ab]".go`, `cmd sub/*`, `cmd */*.go`,
		`cmd .*.go`, `cmd *.{go,txt}`, `cmd {a,b}.go*`, `cmd *nomatch*`, `cmd a\*b`, `cmd "a*"b`, `cmd a*b`, `cmd [!a]*.go`,
		`cmd [[:upper:]]*`, `cmd *\ d.go`, `cmd ./*.go`, `cmd link/*`, `cmd sub/*/*.go`, `cmd -x *.txt sub/*.txt`,
		`cmd ~/nope*`, `cmd *'` + "\n" + `'*`, `cmd ?.go`, `cmd ??.go`, `cmd *.GO`, `cmd qu\'*`, `cmd \{x,y\}*`, `cmd '{x,y}'*`,
		`cmd x=*.go`, `cmd --include=*.go *.go`, `cmd sub/.*`, `cmd [`, `cmd [a`, `cmd a]`, `cmd *[`, `cmd sub/*.{txt,go} *.go`,
	}
	pieces := []string{"*", "?", "[ab]", "[!a]", "'*'", `\*`, ".", "go", "sub/", "{go,txt}", "a", "b", "-", "'", `"`, " ", `\`, "[", "]", "~", "x="}
	rng := rand.New(rand.NewPCG(3, 4))
	lines := fixed
	for range 600 {
		var b strings.Builder
		b.WriteString("cmd ")
		for range 1 + rng.IntN(6) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		lines = append(lines, b.String())
	}
	checked := 0
	for _, line := range lines {
		got, ok := expandLine(t, p, line, dir)
		if !ok {
			continue
		}
		want, ok := bashArgv(t, bash, dir, "export LC_ALL=C.UTF-8\n"+line)
		if !ok {
			t.Errorf("%q: bash ran nothing, admit built %q", line, got)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: bash built %q, admit built %q", line, want, got)
		}
		checked++
	}
	if checked < len(fixed) {
		t.Errorf("only %d lines checked", checked)
	}
	t.Logf("%d lines with patterns checked against bash", checked)
}

func TestExpandPatternsBounds(t *testing.T) {
	dir := t.TempDir()
	for i := range MaxMatches + 1 {
		if err := os.WriteFile(filepath.Join(dir, strings.Repeat("f", 1+i%7)+string(rune('a'+i%26))+string(rune('a'+i/26))), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := NewParser(home)
	script, _ := p.Parse("ls *", Analyze)
	c := script.Commands[0]
	if err := ExpandPatterns(&c, dir, &Walk{ReadDir: os.ReadDir}); !errors.Is(err, ErrTooManyMatches) {
		t.Errorf("%d matches: %v", MaxMatches+1, err)
	}
	if c.Argv[1] != "*" {
		t.Errorf("a failed expansion changed the command: %q", c.Argv)
	}
	// A folder the reader refuses on the way to a match refuses the
	// expansion: bash would read it, and the word as written would be
	// judged as a path that is not the one bash gives.
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "x.go"), nil, 0o644)
	refuseSub := func(d string) ([]os.DirEntry, error) {
		if strings.HasSuffix(d, "/sub") {
			return nil, os.ErrPermission
		}
		return os.ReadDir(d)
	}
	script, _ = p.Parse("ls sub/*.go", Analyze)
	c = script.Commands[0]
	if err := ExpandPatterns(&c, dir, &Walk{ReadDir: refuseSub}); !errors.Is(err, ErrUnreadable) || c.Argv[1] != "sub/*.go" {
		t.Errorf("expansion through a refused folder: %q, %v", c.Argv, err)
	}
	script, _ = p.Parse("ls *.go", Analyze)
	c = script.Commands[0]
	refuseAll := func(string) ([]os.DirEntry, error) { return nil, os.ErrPermission }
	if err := ExpandPatterns(&c, dir, &Walk{ReadDir: refuseAll}); err == nil {
		t.Errorf("expansion in a refused folder: %q", c.Argv)
	}
}

// GlobOptions move with the words after an expanded pattern.
func TestExpandPatternsMovesGlobOptions(t *testing.T) {
	dir := globTree(t)
	p := NewParser(home)
	script, prob := p.Parse("grep -n x *.go --include=*.go", Analyze)
	if prob != nil {
		t.Fatal(prob)
	}
	c := script.Commands[0]
	if err := ExpandPatterns(&c, dir, &Walk{ReadDir: os.ReadDir}); err != nil {
		t.Fatal(err)
	}
	if i := c.GlobOptions; len(i) != 1 || c.Argv[i[0]] != "--include=*.go" {
		t.Errorf("argv %q, glob options %v", c.Argv, i)
	}
}

// A name that would read as an option refuses the expansion.
func TestExpandPatternsOptionNames(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"-rf", "file"} {
		os.WriteFile(filepath.Join(dir, n), nil, 0o644)
	}
	p := NewParser(home)
	for line, want := range map[string]error{"rm -- f*": nil, "rm *": ErrOptionName, "rm ./*": nil, "rm -*": ErrOptionName, "rm -x*": nil} {
		script, _ := p.Parse(line, Analyze)
		c := script.Commands[0]
		if err := ExpandPatterns(&c, dir, &Walk{ReadDir: os.ReadDir}); !errors.Is(err, want) || err != nil && want == nil {
			t.Errorf("%s beside -rf: %q, %v", line, c.Argv, err)
		}
	}
}

// FuzzExpandPatterns expands whatever lines parse with patterns, in a
// folder of awkward names: nothing panics, every name is one the folder
// has (or the word as written, when nothing matched), none reads as an
// option, and hidden names come only from a pattern that spells the dot.
func FuzzExpandPatterns(f *testing.F) {
	for _, line := range []string{`ls *.go`, `cat sub/* .*`, `x [!a]* ?.go`, `x */*/*.go`, `x {a,b}*`, `x '*'*`, `x \*`, `x ~/*`, `x ../*`, `x link/*.txt`} {
		f.Add(line)
	}
	dir := globTree(f) // a zero testing.T would leave its temporary folder behind
	p := NewParser(home)
	// As the gate reads: folders inside the tree only.
	inside := func(d string) ([]os.DirEntry, error) {
		if d = filepath.Clean(d); d != dir && !strings.HasPrefix(d, dir+"/") {
			return nil, os.ErrPermission
		}
		return os.ReadDir(d)
	}
	f.Fuzz(func(t *testing.T, line string) {
		script, prob := p.Parse(line, Analyze)
		if prob != nil {
			return
		}
		for _, c := range script.Commands {
			before := slices.Clone(c.Argv)
			pats := slices.Clone(c.Patterns)
			err := ExpandPatterns(&c, dir, &Walk{ReadDir: inside})
			if err != nil {
				if !slices.Equal(c.Argv, before) {
					t.Fatalf("%q: a failed expansion changed argv to %q", line, c.Argv)
				}
				continue
			}
			if len(pats) == 0 {
				if !slices.Equal(c.Argv, before) {
					t.Fatalf("%q: no pattern, yet argv changed to %q", line, c.Argv)
				}
				continue
			}
			for _, name := range c.Argv[pats[0].Index:] {
				if slices.Contains(before, name) {
					continue // a word as written
				}
				full := name
				if !filepath.IsAbs(name) {
					full = filepath.Join(dir, name)
				}
				if _, err := os.Lstat(full); err != nil {
					t.Fatalf("%q: expanded to %q, which is not in the folder", line, name)
				}
				if strings.HasPrefix(name, "-") {
					t.Fatalf("%q: expanded to the option-like %q", line, name)
				}
			}
		}
	})
}

// linkTree is a workspace with symlinks that lead out of it (to a folder
// beside it and to /), a link that stays inside, and the reader the gate
// uses: a folder outside the workspace is not listed.
func linkTree(t *testing.T) (ws string, readDir func(string) ([]os.DirEntry, error)) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws = filepath.Join(base, "ws")
	for _, name := range []string{"ws/src/a.go", "ws/src/sub/b.go", "ws/notes.txt", "outside/secret", "outside/etc/shadow"} {
		p := filepath.Join(base, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"up": "/", "out": filepath.Join(base, "outside"), "rel": "../outside", "in": "src"} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	readDir = func(d string) ([]os.DirEntry, error) {
		r, err := filepath.EvalSymlinks(d)
		if err != nil {
			return nil, err
		}
		if r != ws && !strings.HasPrefix(r, ws+"/") {
			return nil, errors.New("outside the workspace")
		}
		return os.ReadDir(r)
	}
	return ws, readDir
}

// A pattern that bash expands through a link leading out of the
// workspace is refused, not left as the word as written: bash gives
// out/secret for o*/secret, and the gate must not judge "o*/secret".
func TestExpandPatternsThroughLinksOut(t *testing.T) {
	ws, readDir := linkTree(t)
	p := NewParser(home)
	if bash, err := exec.LookPath("bash"); err == nil {
		// bash follows the link: the names it gives are outside.
		got, ok := bashArgv(t, bash, ws, "cmd o*/secret")
		if !ok || !slices.Equal(got, []string{"cmd", "out/secret"}) {
			t.Fatalf("bash expanded o*/secret to %q; the test's premise is that it follows the link", got)
		}
	}
	cases := []struct {
		line string
		want error    // nil: expanded
		argv []string // when expanded
	}{
		{"cat u*/etc/shadow", ErrUnreadable, nil},
		{"cat o*/secret", ErrUnreadable, nil},
		{"tee -a u*/tmp/x", ErrUnreadable, nil},
		{"cat */secret", ErrUnreadable, nil},
		{"cat [o]ut/*", ErrUnreadable, nil},
		{"cat out/*", ErrUnreadable, nil},
		{"cat r?l/etc/*", ErrUnreadable, nil},
		{"cat ./o*/secret", ErrUnreadable, nil},
		// The link itself, as a name: the command policy judges it.
		{"ls o*", nil, []string{"ls", "out"}},
		// Links that do not match the pattern are not on the way.
		{"cat s*/*.go", nil, []string{"cat", "src/a.go"}},
		{"cat src/*/*.go", nil, []string{"cat", "src/sub/b.go"}},
		// A link that stays inside is followed, as bash does.
		{"cat i*/*.go", nil, []string{"cat", "in/a.go"}},
		{"cat *.txt", nil, []string{"cat", "notes.txt"}},
	}
	for _, c := range cases {
		script, prob := p.Parse(c.line, Analyze)
		if prob != nil {
			t.Fatalf("%s: %v", c.line, prob)
		}
		cmd := script.Commands[0]
		before := slices.Clone(cmd.Argv)
		err := ExpandPatterns(&cmd, ws, &Walk{ReadDir: readDir})
		switch {
		case c.want != nil && !errors.Is(err, c.want):
			t.Errorf("%s: got %q, %v; want %v", c.line, cmd.Argv, err, c.want)
		case c.want != nil && !slices.Equal(cmd.Argv, before):
			t.Errorf("%s: a refused expansion changed argv to %q", c.line, cmd.Argv)
		case c.want == nil && (err != nil || !slices.Equal(cmd.Argv, c.argv)):
			t.Errorf("%s: got %q, %v; want %q", c.line, cmd.Argv, err, c.argv)
		}
	}
}

// The walk is bounded for the line as a whole: folders read, names
// listed and components of one pattern.
func TestExpandPatternsWalkBound(t *testing.T) {
	dir := t.TempDir()
	for i := range 40 {
		if err := os.MkdirAll(filepath.Join(dir, fmt.Sprintf("d%02d", i), "x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p := NewParser(home)
	expandAll := func(line string, w *Walk) error {
		script, prob := p.Parse(line, Analyze)
		if prob != nil {
			t.Fatalf("%s: %v", line, prob)
		}
		for i := range script.Commands {
			if err := ExpandPatterns(&script.Commands[i], dir, w); err != nil {
				return err
			}
		}
		return nil
	}
	if err := expandAll("ls */x/*", &Walk{ReadDir: os.ReadDir}); err != nil {
		t.Fatalf("within the default bound: %v", err)
	}
	w := &Walk{ReadDir: os.ReadDir, MaxReads: 150}
	if err := expandAll("ls */x/*", w); err != nil {
		t.Fatalf("one pattern, 150 reads: %v (%d reads)", err, w.Reads())
	}
	// The same walk serves the next command of the line: its budget is
	// spent.
	err := expandAll("ls */x/*; ls */x/*", &Walk{ReadDir: os.ReadDir, MaxReads: 150})
	if !errors.Is(err, ErrWalkBound) {
		t.Errorf("two patterns over 150 reads: %v", err)
	}
	if err := expandAll("ls */x/*", &Walk{ReadDir: os.ReadDir, MaxEntries: 30}); !errors.Is(err, ErrWalkBound) {
		t.Errorf("more than 30 names: %v", err)
	}
	deep := "ls " + strings.Repeat("*/", MaxPatternComponents) + "x"
	if err := expandAll(deep, &Walk{ReadDir: os.ReadDir}); !errors.Is(err, ErrWalkBound) {
		t.Errorf("%d components: %v", MaxPatternComponents+1, err)
	}
}
