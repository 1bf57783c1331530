package shell

import (
	"slices"
	"strings"
	"testing"
)

// fakeValues knows a few outputs: pwd is dir (a value of the working
// folder), "echo TEXT" prints TEXT, "true" prints nothing, "date" a
// shape of digits that may change.
type fakeValues struct{ dir string }

func (f fakeValues) Value(argv []string) (Value, bool) {
	switch {
	case len(argv) == 1 && argv[0] == "pwd":
		return Value{Text: f.dir, Cwd: true}, true
	case len(argv) == 2 && argv[0] == "echo":
		return Value{Text: argv[1]}, true
	case len(argv) == 1 && argv[0] == "true":
		return Value{}, true
	case len(argv) == 1 && argv[0] == "date":
		return Value{Text: "20261203", Shape: func(s string) bool { return strings.Trim(s, "0123456789") == "" }}, true
	}
	return Value{}, false
}

func TestKnownSubstitutions(t *testing.T) {
	p := NewParser(home)
	p.Values = fakeValues{dir: "/w"}
	for _, tc := range []struct {
		line string
		prof Profile
		want []string // the last command's argv; nil: refused
	}{
		{"echo $(pwd)", Analyze, []string{"echo", "/w"}},
		{`cd "$(pwd)"`, Portable, []string{"cd", "/w"}},
		{`ls "$(pwd)/src"`, Fish, []string{"ls", "/w/src"}},
		{`ls $(pwd)/src`, Zsh, []string{"ls", "/w/src"}},
		{`echo -j$(echo 4)`, Portable, []string{"echo", "-j4"}},
		{`rec $(echo 'a b')`, Analyze, nil},
		{`rec "$(echo 'a b')"`, Portable, []string{"rec", "a b"}},
		{`rec $(echo '*')`, Analyze, nil},
		{`rec "$(echo '*')"`, Analyze, []string{"rec", "*"}},
		{`rec $(true)`, Analyze, nil},
		{`rec x$(true)`, Portable, nil},
		{`rec "$(true)"`, Portable, []string{"rec", ""}},
		{`cd src && ls $(pwd)`, Analyze, nil},
		{`pushd src; ls "$(pwd)"`, Analyze, nil},
		{`cd src && ls $(echo x)`, Analyze, []string{"ls", "x"}},
		{`export X=1; ls $(echo x)`, Analyze, nil},
		{"echo `pwd`", Analyze, nil},
		{"echo $(unknown)", Portable, nil},
		{"echo $(unknown)", Fish, nil},
		{"echo (pwd)", Fish, nil},
		{"echo $(pwd; true)", Analyze, nil},
		{"echo $(pwd >x)", Analyze, nil},
		{"echo $(X=1 pwd)", Analyze, nil},
		{"echo $($(echo pwd))", Analyze, nil},
		{"pwd(){ true; }; echo $(pwd)", Analyze, nil},
		{"echo $(pwd)", Refuse, nil},
		{"echo x > $(pwd)/o", Analyze, nil},
		{"mkdir out/$(date)", Portable, []string{"mkdir", "out/20261203"}},
		{"ls $(date)/x", Analyze, nil},
		{"ls $(date)$(date)", Analyze, nil},
	} {
		script, prob := p.Parse(tc.line, tc.prof)
		if tc.want == nil {
			if prob == nil {
				t.Errorf("%s: Parse(%q) admitted %q, want refused", tc.prof, tc.line, script.Commands[len(script.Commands)-1].Argv)
			}
			continue
		}
		if prob != nil {
			t.Errorf("%s: Parse(%q): %s", tc.prof, tc.line, prob.Reason)
			continue
		}
		last := script.Commands[len(script.Commands)-1]
		if !slices.Equal(last.Argv, tc.want) {
			t.Errorf("%s: Parse(%q) = %q, want %q", tc.prof, tc.line, last.Argv, tc.want)
		}
		if last.Valued == nil || len(last.Valued.Commands) == 0 {
			t.Errorf("%s: Parse(%q): the substitution's command is not kept to be judged", tc.prof, tc.line)
		}
	}
}

func TestVaryingWord(t *testing.T) {
	p := NewParser(home)
	p.Values = fakeValues{dir: "/w"}
	script, prob := p.Parse("cp a.txt out/run-$(date).log", Analyze)
	if prob != nil {
		t.Fatal(prob.Reason)
	}
	v := script.Commands[0].Valued
	if v == nil || len(v.Varying) != 1 {
		t.Fatalf("Valued = %+v, want one varying word", v)
	}
	got := v.Varying[0]
	if got.Index != 2 || got.Dir != "out/" || got.Prefix != "run-" || got.Suffix != ".log" || !got.Shape("1") || got.Shape("x") {
		t.Errorf("Varying = %+v", got)
	}
	// Without Values every substitution stays a dynamic word.
	p.Values = nil
	if _, prob := p.Parse("echo $(pwd)", Analyze); prob == nil || prob.Rule != "dynamic-word" {
		t.Errorf("without Values: %v, want dynamic-word", prob)
	}
}

func TestProcessSubstitution(t *testing.T) {
	p := NewParser(home)
	for _, prof := range []Profile{Analyze, BashInteractive, Zsh} {
		script, prob := p.Parse("diff <(git show HEAD:a.txt | sort) <(sort a.txt) > out", prof)
		if prob != nil {
			t.Fatalf("%s: %s", prof, prob.Reason)
		}
		var got []string
		for _, c := range script.Commands {
			got = append(got, c.Joiner+" "+strings.Join(c.Argv, " "))
		}
		want := []string{" git show HEAD:a.txt", "| sort", "| sort a.txt", "| diff /dev/stdin /dev/stdin"}
		if !slices.Equal(got, want) {
			t.Errorf("%s: commands %q, want %q", prof, got, want)
		}
		if last := script.Commands[len(script.Commands)-1]; len(last.Redirects) != 1 || last.Redirects[0].Target != "out" {
			t.Errorf("%s: the command's own redirection is lost: %+v", prof, last.Redirects)
		}
		if !slices.Contains(script.ShellOnly, "process substitution") {
			t.Errorf("%s: ShellOnly = %q: admit's runner does not make the pipes", prof, script.ShellOnly)
		}
	}
	for _, prof := range []Profile{Fish, Portable, Refuse} {
		if _, prob := p.Parse("diff <(sort a.txt) b.txt", prof); prob == nil {
			t.Errorf("%s admitted a process substitution", prof)
		}
	}
}
