package gate

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"admit/internal/sysfile"
	"admit/policy"
)

// TrustStore records the policy files the person trusted, one file per
// trusted version, named by policy.Sum (path and content), in a folder of
// the person's outside every workspace. A tool call can never write there
// (policy/command's Protect names it), and a changed policy file has
// another sum, so it is untrusted again until the person looks at it.
type TrustStore struct {
	dir string
}

// NewTrustStore keeps trust records in dir.
func NewTrustStore(dir string) *TrustStore { return &TrustStore{dir: dir} }

// DefaultTrustDir is $XDG_DATA_HOME/admit/trust, else
// ~/.local/share/admit/trust: the person's data, like direnv's allow list.
func DefaultTrustDir() (string, error) {
	base := os.Getenv("XDG_DATA_HOME")
	if !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no folder for trust records: %w", err)
		}
		base = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(base, "admit", "trust"), nil
}

// Dir is where the records are kept.
func (t *TrustStore) Dir() string { return t.dir }

// Trusted reports whether the version sum was trusted.
func (t *TrustStore) Trusted(sum string) bool {
	if t == nil || !validSum(sum) {
		return false
	}
	fi, err := os.Lstat(filepath.Join(t.dir, sum))
	return err == nil && fi.Mode().IsRegular()
}

// trustRecord is what a record file holds: which file it was, for a person
// who looks in the folder.
type trustRecord struct {
	Path string `json:"path"`
	Sum  string `json:"sum"`
}

// Trust records that the person trusted the version sum of the file at
// path.
func (t *TrustStore) Trust(path, sum string) error {
	if !validSum(sum) {
		return fmt.Errorf("trust: %q is not a policy file's sum", sum)
	}
	if err := os.MkdirAll(t.dir, 0o700); err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	data, _ := json.Marshal(trustRecord{Path: path, Sum: sum})
	if err := sysfile.WriteAtomic(filepath.Join(t.dir, sum), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	return nil
}

// Distrust removes the record of the version sum, if there is one.
func (t *TrustStore) Distrust(sum string) error {
	if !validSum(sum) {
		return fmt.Errorf("trust: %q is not a policy file's sum", sum)
	}
	if err := os.Remove(filepath.Join(t.dir, sum)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("trust: %w", err)
	}
	return nil
}

// validSum reports whether s looks like policy.Sum's output: 64 lowercase
// hex digits, so it can never name a path.
func validSum(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !('0' <= s[i] && s[i] <= '9' || 'a' <= s[i] && s[i] <= 'f') {
			return false
		}
	}
	return true
}

// PolicyReview is what a person needs to decide whether to trust the
// workspace's policy file: its text, the built-in policy it is compared
// with, and what it would widen, in words.
type PolicyReview struct {
	Path    string       `json:"path"` // "" when the built-in policy is in force
	Sum     string       `json:"sum,omitempty"`
	Trust   policy.Trust `json:"trust"`
	Widens  []string     `json:"widens"`
	Content string       `json:"content,omitempty"`
	BuiltIn string       `json:"builtIn"` // the built-in policy, as a policy file
}

// ReviewPolicy reads the policy file in force again and says what it
// widens.
func (g *Gate) ReviewPolicy() PolicyReview {
	lp := g.loadPolicy(g.cfg.Roots.List())
	builtIn, _ := json.MarshalIndent(policy.DefaultFile(), "", "  ")
	r := PolicyReview{Path: lp.path, Sum: lp.sum, Trust: lp.trust, Widens: lp.widens, BuiltIn: string(builtIn) + "\n"}
	if r.Widens == nil {
		r.Widens = []string{}
	}
	if lp.path != "" {
		if data, err := os.ReadFile(lp.path); err == nil && policy.Sum(lp.path, data) == lp.sum {
			r.Content = string(data)
		}
	}
	return r
}

// TrustPolicy records that the person trusted the policy file at path in
// the version sum, as ReviewPolicy showed it. A file that changed since is
// not trusted: the person must look again.
func (g *Gate) TrustPolicy(path, sum string) error {
	if g.cfg.Trust == nil {
		return &ParamError{"sum", "this gate keeps no trust records (nobody to ask)"}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return &ParamError{"path", fmt.Sprintf("%q cannot be read: %v", path, err)}
	}
	if got := policy.Sum(path, data); got != sum {
		return &ParamError{"sum", fmt.Sprintf("the file %s changed since it was shown (sum %.12s, shown %.12s): review it again", path, got, sum)}
	}
	if lp := g.loadPolicy(g.cfg.Roots.List()); lp.path != path {
		return &ParamError{"path", fmt.Sprintf("%q is not the policy file in force (%q)", path, lp.path)}
	}
	if err := g.cfg.Trust.Trust(path, sum); err != nil {
		return err
	}
	g.forgetPolicy()
	g.loadPolicy(g.cfg.Roots.List())
	return nil
}

// DistrustPolicy takes the person's trust back from the file in force.
func (g *Gate) DistrustPolicy() error {
	lp := g.loadPolicy(g.cfg.Roots.List())
	if lp.sum == "" || g.cfg.Trust == nil {
		return nil
	}
	if err := g.cfg.Trust.Distrust(lp.sum); err != nil {
		return err
	}
	g.forgetPolicy()
	g.loadPolicy(g.cfg.Roots.List())
	return nil
}
