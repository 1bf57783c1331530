package gate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"

	"admit/workspace"
)

// A repository can switch off the person's own hooks: Copilot reads
// "disableAllHooks": true from the repository's .github/copilot settings
// (every hook from every source but policy hooks), and Claude Code from
// the project's .claude settings. admit's hook is then never called, so
// the person must be told: the state names each such file.

// HooksOff is one repository file that switches the agents' hooks off.
type HooksOff struct {
	Agent   string `json:"agent"`
	File    string `json:"file"`
	Setting string `json:"setting"`
}

// hookSwitches are the files, relative to a root, whose setting switches
// an agent's hooks off.
var hookSwitches = []struct{ agent, rel, key string }{
	{"copilot", ".github/copilot/settings.json", "disableAllHooks"},
	{"copilot", ".github/copilot/settings.local.json", "disableAllHooks"},
	{"claude-code", ".claude/settings.json", "disableAllHooks"},
	{"claude-code", ".claude/settings.local.json", "disableAllHooks"},
}

// hooksOffCache keeps what each file said, by its stamp: the state is read
// often, the files rarely change.
type hooksOffCache struct {
	// mu guards seen.
	mu   sync.Mutex
	seen map[string]hooksOffEntry
}

type hooksOffEntry struct {
	stamp workspace.Stamp
	off   bool
}

// hooksOff lists the files of the roots that switch an agent's hooks off.
func (g *Gate) hooksOff() []HooksOff {
	var out []HooksOff
	for _, root := range g.cfg.Roots.List() {
		for _, sw := range hookSwitches {
			path := filepath.Join(root, sw.rel)
			if g.offCache.says(path, sw.key) {
				out = append(out, HooksOff{Agent: sw.agent, File: path, Setting: sw.key + ": true"})
			}
		}
	}
	return out
}

// says reports whether the JSON file at path sets key to true.
func (c *hooksOffCache) says(path, key string) bool {
	st, ok := workspace.StampOf(path)
	if !ok {
		return false
	}
	c.mu.Lock()
	e, cached := c.seen[path]
	c.mu.Unlock()
	if cached && e.stamp == st {
		return e.off
	}
	off := false
	if data, err := os.ReadFile(path); err == nil && len(data) < 1<<20 {
		var m map[string]json.RawMessage
		if json.Unmarshal(data, &m) == nil {
			off = string(m[key]) == "true"
		}
	}
	c.mu.Lock()
	if c.seen == nil {
		c.seen = map[string]hooksOffEntry{}
	}
	c.seen[path] = hooksOffEntry{stamp: st, off: off}
	c.mu.Unlock()
	return off
}
