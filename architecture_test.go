package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the package list of docs/architecture.md")

// pkg is what go list says of one package: its path and what it imports.
type pkg struct {
	ImportPath string
	Imports    []string
}

const (
	module      = "admit"
	listBegin   = "<!-- packages: go test . -run TestArchitecture -update rewrites this list -->"
	listEnd     = "<!-- end of packages -->"
	archDocPath = "docs/architecture.md"
)

// The package list of docs/architecture.md is every package of the module
// with every package of the module it imports, as go list sees them, and
// the arrows keep to the layout's rules.
func TestArchitecture(t *testing.T) {
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	slices.SortFunc(pkgs, func(a, b pkg) int { return strings.Compare(a.ImportPath, b.ImportPath) })

	for _, p := range pkgs {
		for _, imp := range p.Imports {
			if why := forbidden(p.ImportPath, imp); why != "" {
				t.Errorf("%s imports %s: %s", p.ImportPath, imp, why)
			}
		}
	}

	var list strings.Builder
	list.WriteString("```\n")
	for _, p := range pkgs {
		var own []string
		for _, imp := range p.Imports {
			if imp == module || strings.HasPrefix(imp, module+"/") {
				own = append(own, short(imp))
			}
		}
		if len(own) == 0 {
			fmt.Fprintf(&list, "%s\n", short(p.ImportPath))
			continue
		}
		fmt.Fprintf(&list, "%s ──► %s\n", short(p.ImportPath), strings.Join(own, ", "))
	}
	list.WriteString("```\n")

	doc, err := os.ReadFile(archDocPath)
	if err != nil {
		t.Fatal(err)
	}
	head, rest, ok1 := strings.Cut(string(doc), listBegin+"\n")
	_, tail, ok2 := strings.Cut(rest, listEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s: no list between %q and %q", archDocPath, listBegin, listEnd)
	}
	want := head + listBegin + "\n" + list.String() + listEnd + tail
	if want == string(doc) {
		return
	}
	if *update {
		if err := os.WriteFile(archDocPath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's package list is not what go list says; run go test . -run TestArchitecture -update and review the diff. go list says:\n%s", archDocPath, list.String())
}

// short is a package's path without the module's name ("." for the root).
func short(path string) string {
	if path == module {
		return "."
	}
	return strings.TrimPrefix(path, module+"/")
}

// forbidden says why from may not import imp, or "" when it may: the
// transport's libraries are rpc's alone (and its test editor's), and the decision's packages never
// reach up to the transport or the commands.
func forbidden(from, imp string) string {
	under := func(p, dir string) bool { return p == module+"/"+dir || strings.HasPrefix(p, module+"/"+dir+"/") }
	switch {
	case strings.HasPrefix(imp, "go.lsp.dev/") && !under(from, "rpc"):
		return "only rpc (and its test editor) speaks the transport"
	case under(imp, "internal/cli") && from != module:
		return "the commands are main's alone"
	case under(imp, "rpc") && !slices.Contains([]string{"internal/cli", "internal/bench", "rpc/rpctest"}, short(from)):
		return "only the commands and the test editor reach the transport"
	case (under(from, "policy") || under(from, "workspace") || under(from, "approvals") || under(from, "hook") || under(from, "gate") || under(from, "tape")) && (under(imp, "rpc") || under(imp, "internal/cli")):
		return "the decision's packages never import the server"
	case under(from, "policy") && (under(imp, "gate") || under(imp, "tape")):
		return "the policy is pure: it never reaches the gate or the tape's files"
	}
	return ""
}

// TestBinaryLinksNoTesting: the admit binary reads the case corpus (admit
// bench) but links no test framework, and writes OTLP itself: package
// testing, grpc and protobuf register nothing a person needs, and their
// package initialisation runs at every start, a hook's included.
func TestBinaryLinksNoTesting(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		for _, heavy := range []string{"testing", "google.golang.org/grpc", "google.golang.org/protobuf", "go.opentelemetry.io"} {
			if p == heavy || strings.HasPrefix(p, heavy+"/") {
				t.Errorf("the admit binary links %s (go list -deps . | grep %s; and go mod why -m to see through what)", p, heavy)
			}
		}
	}
}
