package policy

import "testing"

// TestShapeFits: a command with substitutions fits the argv its words
// become, and no other.
func TestShapeFits(t *testing.T) {
	wc := Shape{Argv: []string{"wc", "-l", "$(git ls-files)"}, Substituted: []int{2}}
	two := Shape{Argv: []string{"cat", "$(a)", "--", "$(b)", "x"}, Substituted: []int{1, 3}}
	for _, c := range []struct {
		s    Shape
		argv []string
		want bool
	}{
		{wc, []string{"wc", "-l"}, true},
		{wc, []string{"wc", "-l", "a.txt", "b c"}, true},
		{wc, []string{"wc", "-l", "$(git ls-files)"}, true},
		{wc, []string{"wc", "a.txt"}, false},
		{wc, []string{"cat", "-l", "a.txt"}, false},
		{wc, []string{"wc"}, false},
		{two, []string{"cat", "--", "x"}, true},
		{two, []string{"cat", "p", "q", "--", "r", "x"}, true},
		{two, []string{"cat", "p", "--", "--", "x", "x"}, true},
		{two, []string{"cat", "p", "q", "r", "x"}, false},
		{two, []string{"cat", "--", "r"}, false},
		{Shape{Argv: []string{"ls"}}, []string{"ls"}, true},
		{Shape{Argv: []string{"ls"}}, []string{"ls", "x"}, false},
	} {
		if got := c.s.Fits(c.argv); got != c.want {
			t.Errorf("%q fits %q: %v, want %v", c.s.Argv, c.argv, got, c.want)
		}
	}
}
