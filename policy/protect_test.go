package policy_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"admit/policy"
)

// A hostile agent's structured writes (write_file, edit_file) to the
// gate's own files, nested policies, protected names in other spellings,
// through links, and to the person's own places: refused or asked; the
// ordinary writes next to them stay allowed.
func TestProtectedToolWrites(t *testing.T) {
	w := newToolWorld(t)
	for _, p := range []string{"ws/sub/x.txt", "ws/node_modules/x/index.js", "home/.config/admit/rules.json", "home/.claude/settings.json"} {
		full := filepath.Join(filepath.Dir(w.root), p)
		must(t, os.MkdirAll(filepath.Dir(full), 0o755))
		must(t, os.WriteFile(full, []byte("x\n"), 0o644))
	}
	must(t, os.Symlink(".admit", filepath.Join(w.root, "cfg")))
	must(t, os.Mkdir(filepath.Join(w.root, "plain"), 0o755))
	for _, d := range []string{"", "sub", "node_modules", "node_modules/x", "docs", "src", ".git", "plain"} {
		w.obs.RecordDir(filepath.Join(w.root, d))
	}
	for _, d := range []string{"", ".config", ".config/admit", ".claude"} {
		w.obs.RecordDir(filepath.Join(w.home, d))
	}
	// The session may also write the home folder: the person's own
	// places in it are refused all the same.
	caps, err := policy.NewCaps(policy.CapsSpec{
		Label: "task", Allow: []string{"write_file", "edit_file"}, Mutators: []string{"write_file", "edit_file"},
		WriteRoots: []string{w.root, w.home},
	}, func(p string) (string, error) { return filepath.EvalSymlinks(p) })
	must(t, err)
	env := *w.env
	env.Caps = caps
	// a link named .admit, made after the fixture: it leads to plain/
	must(t, os.Symlink("plain", filepath.Join(w.root, "sub", ".admit")))

	for _, c := range []struct{ note, path, want string }{
		{"the policy in upper case", ".ADMIT/policy.json", "protected-path"},
		{"a nested policy", "sub/.admit/policy.json", "protected-path"},
		{"a package's policy", "node_modules/x/.admit/policy.json", "protected-path"},
		{"a trailing dot", ".admit./policy.json", "protected-path"},
		{"path noise", "./.admit//policy.json", "protected-path"},
		{"a file URI in another case", "file://" + w.root + "/.Admit/policy.json", "protected-path"},
		{"a short name", "ADMIT~1/policy.json", "protected-path"},
		{"a link into .admit", "cfg/policy.json", "protected-path"},
		{"a link named .admit leading elsewhere", "sub/.admit/policy.json", "protected-path"},
		{"git hooks in another case", ".Git/hooks/pre-commit", "ask:protected-path"},
		{"a hook manager's local override", "lefthook-local.yml", "ask:protected-path"},
		{"Copilot's repository hooks", ".github/hooks/admit.json", "ask:protected-path"},
		{"the person's rules", "~/.config/admit/rules.json", "protected-path"},
		{"the person's agent settings", "~/.claude/settings.json", "protected-path"},
		{"an ordinary file", "src/admit.go", "allowed"},
		{"a name like .admit", "docs/.admitted", "allowed"},
		{"a new file in a package", "node_modules/x/new.js", "allowed"},
	} {
		t.Run(c.note, func(t *testing.T) {
			args, _ := json.Marshal(map[string]string{"path": c.path, "content": "x"})
			d := policy.Decide(policy.Call{Tool: "write_file", Args: args, Cwd: w.root}, &env)
			got := string(d.Rule)
			if d.Ask {
				got = "ask:" + got
			}
			if got != c.want {
				t.Fatalf("write_file %s: got %s (%s), want %s", c.path, got, d.Reason, c.want)
			}
			if strings.HasPrefix(c.want, "protected") && !strings.Contains(d.Reason, "protected") {
				t.Errorf("reason %q does not say why", d.Reason)
			}
		})
	}
}
