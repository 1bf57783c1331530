package connect

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// kindName names a JSON kind for messages.
func kindName(k byte) string {
	return map[byte]string{'{': "an object", '[': "a list", '"': "a string", '0': "a number", 't': "true", 'f': "false", 'n': "null"}[k]
}

// maxSteps bounds the edits of one file: each step changes one thing, and
// a configuration needs a handful. Past it the edit is a bug, not a file.
const maxSteps = 500

// unitRef is one of admit's entries in an event's list: index in the list
// and, for groups, the handler's index in the group's hooks.
type unitRef struct{ index, handler int }

// eventList is the list of event ev's entries, or nil when there is none
// yet; an error when the file holds something else there.
func (f *fileSpec) eventList(hooks *node, ev string) (*node, error) {
	if f.shape == shapeList {
		return hooks, nil
	}
	arr := hooks.get(ev)
	if arr != nil && arr.kind != '[' {
		return nil, fmt.Errorf("hooks.%s is %s, not a list", ev, kindName(arr.kind))
	}
	return arr, nil
}

// hooksNode is the file's hooks member, nil when there is none.
func (f *fileSpec) hooksNode(root *node) (*node, error) {
	h := root.get("hooks")
	want := byte('{')
	if f.shape == shapeList {
		want = '['
	}
	if h != nil && h.kind != want {
		return nil, fmt.Errorf("hooks is %s, not %s", kindName(h.kind), kindName(want))
	}
	return h, nil
}

// isAdmit says whether entry n runs admit hook host (for the list shape:
// for event ev).
func (f *fileSpec) isAdmit(n *node, host, ev string) bool {
	if n.kind != '{' {
		return false
	}
	if f.shape == shapeList {
		if t := n.get("trigger"); t == nil || t.kind != '"' || t.str != ev {
			return false
		}
	}
	inv, ok := f.command(n)
	return ok && inv.admitFor(host)
}

// units are admit's entries for ev in list arr.
func (f *fileSpec) units(arr *node, host, ev string) []unitRef {
	var refs []unitRef
	if arr == nil {
		return nil
	}
	for i, e := range arr.elems {
		if f.shape != shapeGroups {
			if f.isAdmit(e, host, ev) {
				refs = append(refs, unitRef{i, -1})
			}
			continue
		}
		if hs := e.get("hooks"); e.kind == '{' && hs != nil && hs.kind == '[' {
			for j, h := range hs.elems {
				if f.isAdmit(h, host, ev) {
					refs = append(refs, unitRef{i, j})
				}
			}
		}
	}
	return refs
}

func (f *fileSpec) unit(arr *node, r unitRef) *node {
	if r.handler < 0 {
		return arr.elems[r.index]
	}
	return arr.elems[r.index].get("hooks").elems[r.handler]
}

// groupAllAdmit says whether every handler of group g is admit's (and it
// has one): the group is then admit's too.
func (f *fileSpec) groupAllAdmit(g *node, host, ev string) bool {
	hs := g.get("hooks")
	if g.kind != '{' || hs == nil || hs.kind != '[' || len(hs.elems) == 0 {
		return false
	}
	for _, h := range hs.elems {
		if !f.isAdmit(h, host, ev) {
			return false
		}
	}
	return true
}

// listAllAdmit says whether every entry of ev's list is admit's.
func (f *fileSpec) listAllAdmit(arr *node, host, ev string) bool {
	if arr == nil || arr.kind != '[' || len(arr.elems) == 0 {
		return false
	}
	for _, e := range arr.elems {
		if f.shape == shapeGroups && !f.groupAllAdmit(e, host, ev) || f.shape != shapeGroups && !f.isAdmit(e, host, ev) {
			return false
		}
	}
	return true
}

// hooksAllAdmit says whether the hooks member holds admit's entries and
// nothing else, so that undoing removes it whole.
func (f *fileSpec) hooksAllAdmit(hooks *node, host string) bool {
	if hooks.len() == 0 {
		return false
	}
	if f.shape == shapeList {
		for _, e := range hooks.elems {
			if !slices.ContainsFunc(f.events, func(ev string) bool { return f.isAdmit(e, host, ev) }) {
				return false
			}
		}
		return true
	}
	for _, m := range hooks.members {
		if !slices.Contains(f.events, m.key) || !f.listAllAdmit(m.val, host, m.key) {
			return false
		}
	}
	return true
}

// wrap is what goes into an event's list for entry e: e itself, or a
// group holding it.
func (f *fileSpec) wrap(e obj) obj {
	if f.shape == shapeGroups {
		return obj{{"matcher", f.matcher}, {"hooks", []any{e}}}
	}
	return e
}

// open parses a configuration for editing; an absent or blank file is the
// format's skeleton.
func (f *fileSpec) open(src []byte) (*doc, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		src = skeletonText(f.skeleton)
	}
	d, err := newDoc(src, f.comments)
	if err != nil {
		return nil, err
	}
	if d.root.kind != '{' {
		return nil, fmt.Errorf("the file holds %s, not an object", kindName(d.root.kind))
	}
	return d, nil
}

// connect returns src with admit's entries for host added or brought up
// to date, pointing at t; everything else stays as it was. It changes one
// thing at a time, parsing again after each, until nothing is left to do.
func (f *fileSpec) connect(host string, src []byte, t target) ([]byte, error) {
	if f.shape == shapeTOMLBlock {
		return f.tomlConnect(src, t)
	}
	if f.shape == shapeScript {
		if len(src) > 0 {
			if _, ok := f.parseScript(src, host); !ok {
				return nil, fmt.Errorf("it is another hook, not admit's: admit does not replace it (move it away, or run it from admit's place yourself)")
			}
		}
		return []byte(f.script(t)), nil
	}
	d, err := f.open(src)
	if err != nil {
		return nil, err
	}
	for range maxSteps {
		changed, err := f.connectStep(d, host, t)
		if err != nil {
			return nil, err
		}
		if !changed {
			return d.src, nil
		}
	}
	return nil, fmt.Errorf("connect: the edit of %s did not settle after %d steps; nothing is written", host, maxSteps)
}

// connectStep makes the next change connect needs, and says whether there
// was one.
func (f *fileSpec) connectStep(d *doc, host string, t target) (bool, error) {
	hooks, err := f.hooksNode(d.root)
	if err != nil {
		return false, err
	}
	if hooks == nil {
		empty := any(obj{})
		if f.shape == shapeList {
			empty = []any{}
		}
		return true, d.insert(d.root, "hooks", empty)
	}
	for _, ev := range f.events {
		want := f.entry(ev, t)
		arr, err := f.eventList(hooks, ev)
		if err != nil {
			return false, err
		}
		if arr == nil {
			return true, d.insert(hooks, ev, []any{f.wrap(want)})
		}
		refs := f.units(arr, host, ev)
		if len(refs) == 0 {
			return true, d.insert(arr, "", f.wrap(want))
		}
		// The entry is brought to want member by member, found again by
		// its place after each edit: halfway (the command replaced, an
		// old "args" not yet removed) it may not read as admit's.
		changed := false
		for range maxSteps {
			hooks, _ := f.hooksNode(d.root)
			arr, _ := f.eventList(hooks, ev)
			step, err := conform(d, f.unit(arr, refs[0]), want, f.owned)
			if err != nil {
				return false, err
			}
			if !step {
				break
			}
			changed = true
		}
		if changed {
			return true, nil
		}
		if len(refs) > 1 {
			// admit twice would judge each call twice: keep the first.
			return true, f.removeUnit(d, arr, refs[len(refs)-1], refs[0].index, host, ev)
		}
	}
	return false, nil
}

// conform brings entry n to want, one member at a time: a member of want
// missing or different is set, a key admit owns that want lacks is
// removed, and the person's other keys stay.
func conform(d *doc, n *node, want obj, owned []string) (bool, error) {
	for _, m := range want {
		got := n.get(m.k)
		switch {
		case got == nil:
			return true, d.insert(n, m.k, m.v)
		case !equal(got, m.v):
			return true, d.replace(got, m.v)
		}
	}
	for _, k := range owned {
		if _, ok := want.get(k); !ok {
			if i := n.index(k); i >= 0 {
				return true, d.remove(n, i)
			}
		}
	}
	return false, nil
}

// removeUnit takes one of admit's entries out of arr: its whole group when
// the group is admit's alone and is not the group keep (the index of the
// group that holds the entry kept), else the entry.
func (f *fileSpec) removeUnit(d *doc, arr *node, r unitRef, keep int, host, ev string) error {
	if r.handler < 0 {
		return d.remove(arr, r.index)
	}
	g := arr.elems[r.index]
	if r.index != keep && f.groupAllAdmit(g, host, ev) {
		return d.remove(arr, r.index)
	}
	return d.remove(g.get("hooks"), r.handler)
}

// disconnect returns src without admit's entries for host, and whether
// what is left is the format's skeleton alone (an empty configuration, as
// good as no file). It removes the largest part that is admit's alone
// first (the hooks member, an event, a group), so that undoing a connect
// gives back the bytes the connect started from.
func (f *fileSpec) disconnect(host string, src []byte) ([]byte, bool, error) {
	if f.shape == shapeTOMLBlock {
		return f.tomlDisconnect(src)
	}
	if f.shape == shapeScript {
		if len(src) == 0 {
			return src, true, nil
		}
		if _, ok := f.parseScript(src, host); ok {
			return nil, true, nil
		}
		return src, false, nil
	}
	if len(bytes.TrimSpace(src)) == 0 {
		return src, true, nil
	}
	d, err := f.open(src)
	if err != nil {
		return nil, false, err
	}
	for range maxSteps {
		changed, err := f.disconnectStep(d, host)
		if err != nil {
			return nil, false, err
		}
		if !changed {
			return d.src, f.skeletonOnly(d.root), nil
		}
	}
	return nil, false, fmt.Errorf("connect: undoing %s did not settle after %d steps; nothing is written", host, maxSteps)
}

func (f *fileSpec) disconnectStep(d *doc, host string) (bool, error) {
	hooks, err := f.hooksNode(d.root)
	if err != nil || hooks == nil {
		return false, err
	}
	if f.hooksAllAdmit(hooks, host) {
		return true, d.remove(d.root, d.root.index("hooks"))
	}
	if f.shape != shapeList {
		for _, ev := range f.events {
			if arr := hooks.get(ev); f.listAllAdmit(arr, host, ev) {
				return true, d.remove(hooks, hooks.index(ev))
			}
		}
	}
	for _, ev := range f.events {
		arr, err := f.eventList(hooks, ev)
		if err != nil {
			return false, err
		}
		if refs := f.units(arr, host, ev); len(refs) > 0 {
			return true, f.removeUnit(d, arr, refs[0], -1, host, ev)
		}
	}
	return false, nil
}

// skeletonOnly says whether root holds nothing but the skeleton's members.
func (f *fileSpec) skeletonOnly(root *node) bool {
	for _, m := range root.members {
		v, ok := f.skeleton.get(m.key)
		if !ok || !equal(m.val, v) {
			return false
		}
	}
	return true
}

// inspect lists admit's entries for host in src, per event; an error when
// src does not parse.
func (f *fileSpec) inspect(host string, src []byte) (map[string][]invocation, error) {
	if f.shape == shapeTOMLBlock {
		return f.tomlInspect(host, src)
	}
	found := map[string][]invocation{}
	if f.shape == shapeScript {
		if len(src) > 0 {
			if inv, ok := f.parseScript(src, host); ok {
				found[f.events[0]] = []invocation{inv}
			}
		}
		return found, nil
	}
	if len(bytes.TrimSpace(src)) == 0 {
		return found, nil
	}
	d, err := f.open(src)
	if err != nil {
		return nil, err
	}
	hooks, err := f.hooksNode(d.root)
	if err != nil || hooks == nil {
		return found, err
	}
	for _, ev := range f.events {
		arr, err := f.eventList(hooks, ev)
		if err != nil {
			return nil, err
		}
		for _, r := range f.units(arr, host, ev) {
			inv, _ := f.command(f.unit(arr, r))
			found[ev] = append(found[ev], inv)
		}
	}
	return found, nil
}

// parseScript reads a hook script: a "#!" line, then one command (blank
// lines and comments aside) that runs admit hook host. Anything more is
// not admit's script.
func (f *fileSpec) parseScript(src []byte, host string) (invocation, bool) {
	if f.parse != nil {
		return f.parse(src, host)
	}
	return parseScript(src, host)
}

func parseScript(src []byte, host string) (invocation, bool) {
	lines := strings.Split(string(src), "\n")
	if !strings.HasPrefix(lines[0], "#!") {
		return invocation{}, false
	}
	var cmd []string
	for _, l := range lines[1:] {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			cmd = append(cmd, l)
		}
	}
	if len(cmd) != 1 {
		return invocation{}, false
	}
	inv, ok := parseCommand(cmd[0])
	return inv, ok && inv.admitFor(host)
}
