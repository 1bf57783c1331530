package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"admit/gate"
	"admit/internal/mcpwire"
	"admit/internal/strictjson"
	"admit/policy"
	"admit/policy/rule"
)

// maxListing bounds a folder's listing: past it the model is told to
// search instead.
const maxListing = 1000

// tool is one of admit's MCP tools: its definition for tools/list, and
// what a call does through the door.
type tool struct {
	def  map[string]any
	call func(s *server, ctx context.Context, session string, args json.RawMessage) result
}

// tools are admit's tools by name. The names are MCP's (letters, no
// slash); each acts through the admit/* method it is named after.
var tools = map[string]tool{
	"read": {
		def: def("read", "Read a file or list a folder",
			"Read a file of the workspace (its text), or list a folder (its entries, a folder's ending in /). Judged by admit as a read of that path: a path outside the workspace is refused. A later edit or write of the file is bound to the bytes read here.",
			props(map[string]any{"path": str("The file or folder to read: relative to the workspace folder, or absolute.")}, "path"),
			map[string]any{"readOnlyHint": true, "openWorldHint": false}),
		call: (*server).read,
	},
	"search": {
		def: def("search", "Search the workspace",
			"Search files for a pattern (grep -rnI over the workspace, .git excluded), run by admit confined and taped. Prints path:line:text for each matching line.",
			props(map[string]any{
				"pattern":      str("The regular expression to look for (a fixed string with fixedStrings)."),
				"path":         str("The file or folder to search, relative to the workspace folder (default: the whole workspace folder)."),
				"fixedStrings": boolean("Match the pattern as a fixed string, not a regular expression."),
				"ignoreCase":   boolean("Match without regard to case."),
				"include":      str("Only search files whose name matches this glob (for example *.go)."),
			}, "pattern"),
			map[string]any{"readOnlyHint": true, "openWorldHint": false}),
		call: (*server).search,
	},
	"edit": {
		def: def("edit", "Edit a file",
			"Replace text in a file read with the read tool in this session: oldText must occur exactly once (or pass replaceAll). Judged by admit as a write: refused outside the workspace, on protected paths, in read-only mode, or when the file changed since it was read.",
			props(map[string]any{
				"path":       str("The file to change."),
				"oldText":    str("The exact text to replace, as read."),
				"newText":    str("The text to put in its place."),
				"replaceAll": boolean("Replace every occurrence of oldText."),
				"expectHash": str("The hash of the version read (default: the one this session read last)."),
			}, "path", "oldText", "newText"),
			map[string]any{"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": false}),
		call: (*server).edit,
	},
	"write": {
		def: def("write", "Write a file",
			"Write a whole file: a new one (read its folder first, with the read tool), or one read in this session, replacing its content. Judged by admit as a write: refused outside the workspace, on protected paths, in read-only mode, or when the file changed since it was read.",
			props(map[string]any{
				"path":       str("The file to write."),
				"content":    str("The file's new content."),
				"expectHash": str("The hash of the version read (default: the one this session read last)."),
			}, "path", "content"),
			map[string]any{"readOnlyHint": false, "destructiveHint": true, "idempotentHint": true, "openWorldHint": false}),
		call: (*server).write,
	},
	"run": {
		def: def("run", "Run a command",
			"Run a command line (pipelines, && and || lists, redirections), judged by admit's command policy first, then run without a system shell, confined, and its effects verified. Prints the exit code, the output and what changed.",
			props(map[string]any{
				"command":   str("The command line."),
				"cwd":       str("The folder to run in, relative to the workspace folder (default: the workspace folder)."),
				"timeoutMs": map[string]any{"type": "integer", "minimum": 1, "description": "Stop the command after this many milliseconds (at most admit's own bound)."},
			}, "command"),
			map[string]any{"readOnlyHint": false, "destructiveHint": true, "openWorldHint": true}),
		call: (*server).run,
	},
}

func def(name, title, desc string, schema, annotations map[string]any) map[string]any {
	annotations["title"] = title
	return map[string]any{"name": name, "title": title, "description": desc, "inputSchema": schema, "annotations": annotations}
}

func props(p map[string]any, required ...string) map[string]any {
	return map[string]any{"type": "object", "properties": p, "required": required, "additionalProperties": false}
}

func str(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
func boolean(desc string) map[string]any {
	return map[string]any{"type": "boolean", "description": desc}
}

// toolList is tools/list's answer, in a stable order.
func toolList() []map[string]any {
	names := make([]string, 0, len(tools))
	for n := range tools {
		names = append(names, n)
	}
	slices.Sort(names)
	out := make([]map[string]any, 0, len(names))
	for _, n := range names {
		out = append(out, tools[n].def)
	}
	return out
}

// capsOf is the session's capability set: admit's own tools, which every
// session grants, and nothing else.
func capsOf(label string) policy.CapsSpec { return policy.CapsSpec{Label: label} }

// result is a tools/call result.
type result struct {
	Content    []content `json:"content"`
	Structured any       `json:"structuredContent,omitempty"`
	IsError    bool      `json:"isError,omitempty"`
}

type content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func text(s string) result { return result{Content: []content{{"text", s}}} }

// failure is a tool result that says the call did not do its work.
func failure(s string) result { r := text(s); r.IsError = true; return r }

// refused is a refusal: the verdict's toolError, which the model reads,
// and, when admit decided alone, a line saying so.
func (s *server) refused(v gate.Verdict) result {
	body := v.ToolError
	if body == "" {
		body = policy.ToolError(v.Rule, v.Reason, v.Remedy)
	}
	r := failure(body)
	if s.cfg.Alone != "" {
		r.Content = append(r.Content, content{"text", "admit decided alone (" + s.cfg.Alone + "): nobody could be asked."})
	}
	r.Structured = map[string]any{"verdict": v.Verdict, "rule": v.Rule, "reason": v.Reason, "outcome": v.Outcome, "id": v.ID}
	return r
}

// toolCall answers one tools/call: an unknown tool or params that are not
// a call are protocol errors; everything else is a tool result.
func (s *server) toolCall(ctx context.Context, m *mcpwire.Message) []byte {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil || p.Name == "" {
		return mcpwire.Response(m.ID, nil, &mcpwire.Error{Code: mcpwire.InvalidParams, Message: "tools/call: params.name must name a tool"})
	}
	t, ok := tools[p.Name]
	if !ok {
		return mcpwire.Response(m.ID, nil, &mcpwire.Error{Code: mcpwire.InvalidParams, Message: fmt.Sprintf("tools/call: unknown tool %q; admit's tools are read, search, edit, write and run", p.Name)})
	}
	if len(p.Arguments) == 0 || string(p.Arguments) == "null" {
		p.Arguments = json.RawMessage("{}")
	}
	session, err := s.ensureSession(ctx)
	if err != nil {
		return mcpwire.Response(m.ID, failure(policy.ToolError("admit-unavailable", "admit could not open its session, so nothing was done: "+err.Error(), "")), nil)
	}
	return mcpwire.Response(m.ID, t.call(s, ctx, session, p.Arguments), nil)
}

// decode reads a tool's arguments strictly: a misspelt or unknown
// argument is an error naming it, not a silent default.
func decode(name string, raw json.RawMessage, v any) *result {
	if err := strictjson.Decode(raw, v); err != nil {
		msg := err.Error()
		if e := (*strictjson.Error)(nil); errors.As(err, &e) && e.Field != "" {
			msg = "argument " + msg
		}
		r := failure(fmt.Sprintf("%s: bad arguments (%s); nothing was done. The tool's inputSchema lists what it takes.", name, msg))
		return &r
	}
	return nil
}

// unavailable is the result of a call the door could not decide.
func unavailable(err error) result {
	var pe *gate.ParamError
	if errors.As(err, &pe) {
		return failure("bad arguments: " + pe.Error() + "; nothing was done")
	}
	return failure(policy.ToolError("admit-unavailable", "admit could not decide this call, so nothing was done: "+err.Error(), ""))
}

func (s *server) read(ctx context.Context, session string, raw json.RawMessage) result {
	var a struct {
		Path string `json:"path"`
	}
	if r := decode("read", raw, &a); r != nil {
		return *r
	}
	res, err := s.cfg.Door.Read(ctx, gate.ReadParams{Session: session, Path: a.Path})
	if err != nil {
		return unavailable(err)
	}
	if !res.Allowed {
		return s.refused(res.Verdict)
	}
	if res.Content != nil {
		s.remember(a.Path, res.Targets, res.Hash)
		r := text(*res.Content)
		r.Structured = map[string]any{"path": first(res.Targets), "hash": res.Hash, "size": res.Size}
		return r
	}
	if len(res.Targets) == 1 {
		if fi, err := os.Stat(res.Targets[0]); err == nil && fi.IsDir() {
			return listing(res.Targets[0])
		}
	}
	return failure("read " + a.Path + ": " + res.Detail)
}

// listing lists a folder admit admitted reading.
func listing(dir string) result {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return failure("listing " + dir + ": " + err.Error())
	}
	var b strings.Builder
	for i, e := range entries {
		if i == maxListing {
			fmt.Fprintf(&b, "... and %d more entries: use search, or read a subfolder\n", len(entries)-maxListing)
			break
		}
		b.WriteString(e.Name())
		if e.IsDir() {
			b.WriteByte('/')
		}
		b.WriteByte('\n')
	}
	if len(entries) == 0 {
		b.WriteString("(empty folder)\n")
	}
	r := text(b.String())
	r.Structured = map[string]any{"path": dir, "entries": len(entries)}
	return r
}

func (s *server) edit(ctx context.Context, session string, raw json.RawMessage) result {
	var a struct {
		Path       string `json:"path"`
		OldText    string `json:"oldText"`
		NewText    string `json:"newText"`
		ReplaceAll bool   `json:"replaceAll"`
		ExpectHash string `json:"expectHash"`
	}
	if r := decode("edit", raw, &a); r != nil {
		return *r
	}
	if a.ExpectHash == "" {
		a.ExpectHash = s.hashOf(a.Path)
		if a.ExpectHash == "" {
			return failure("edit " + a.Path + ": read the file with the read tool first; an edit is bound to the bytes read. Nothing was done.")
		}
	}
	res, err := s.cfg.Door.Edit(ctx, gate.EditParams{Session: session, Path: a.Path, OldText: a.OldText, NewText: a.NewText, ReplaceAll: a.ReplaceAll, ExpectHash: a.ExpectHash})
	if err != nil {
		return unavailable(err)
	}
	return s.changed("edited", a.Path, res)
}

func (s *server) write(ctx context.Context, session string, raw json.RawMessage) result {
	var a struct {
		Path       string `json:"path"`
		Content    string `json:"content"`
		ExpectHash string `json:"expectHash"`
	}
	if r := decode("write", raw, &a); r != nil {
		return *r
	}
	if a.ExpectHash == "" {
		a.ExpectHash = s.hashOf(a.Path)
	}
	res, err := s.cfg.Door.Write(ctx, gate.WriteParams{Session: session, Path: a.Path, Content: a.Content, ExpectHash: a.ExpectHash})
	if err != nil {
		return unavailable(err)
	}
	return s.changed("wrote", a.Path, res)
}

// changed is the result of an edit or a write.
func (s *server) changed(verb, path string, res gate.FileResult) result {
	if res.Verdict.Verdict != rule.Allow {
		return s.refused(res.Verdict)
	}
	if res.Verified == nil || !*res.Verified {
		return failure(fmt.Sprintf("%s: not %s: %s", path, verb, res.Detail))
	}
	s.remember(path, res.Targets, res.Hash)
	r := text(fmt.Sprintf("%s %s (%d bytes): %s", verb, first(res.Targets), res.Size, res.Detail))
	r.Structured = map[string]any{"path": first(res.Targets), "hash": res.Hash, "size": res.Size, "verified": true}
	return r
}

func (s *server) run(ctx context.Context, session string, raw json.RawMessage) result {
	var a struct {
		Command   string `json:"command"`
		Cwd       string `json:"cwd"`
		TimeoutMs int64  `json:"timeoutMs"`
	}
	if r := decode("run", raw, &a); r != nil {
		return *r
	}
	if strings.TrimSpace(a.Command) == "" {
		return failure("run: command must be a command line; nothing was run")
	}
	res, err := s.cfg.Door.Run(ctx, gate.RunParams{Session: session, Command: a.Command, Cwd: a.Cwd, TimeoutMs: a.TimeoutMs}, gate.RunOptions{Env: s.cfg.Env})
	if err != nil {
		return unavailable(err)
	}
	return s.ran(res, "")
}

func (s *server) search(ctx context.Context, session string, raw json.RawMessage) result {
	var a struct {
		Pattern      string `json:"pattern"`
		Path         string `json:"path"`
		FixedStrings bool   `json:"fixedStrings"`
		IgnoreCase   bool   `json:"ignoreCase"`
		Include      string `json:"include"`
	}
	if r := decode("search", raw, &a); r != nil {
		return *r
	}
	if a.Pattern == "" {
		return failure("search: pattern must not be empty; nothing was searched")
	}
	if a.Path == "" {
		a.Path = "."
	}
	// An argv, judged word for word as grep's: no shell reads the pattern,
	// and -e and -- keep a pattern or path that starts with - from being
	// taken as an option.
	argv := []string{"grep", "-rnI", "--exclude-dir=.git"}
	if a.FixedStrings {
		argv = append(argv, "-F")
	}
	if a.IgnoreCase {
		argv = append(argv, "-i")
	}
	if a.Include != "" {
		argv = append(argv, "--include="+a.Include)
	}
	argv = append(argv, "-e", a.Pattern, "--", a.Path)
	res, err := s.cfg.Door.Run(ctx, gate.RunParams{Session: session, Argv: argv}, gate.RunOptions{Env: s.cfg.Env})
	if err != nil {
		return unavailable(err)
	}
	if res.Verdict.Verdict == rule.Allow && res.Ran && res.ExitCode == 1 && res.Stderr == "" {
		return s.ran(res, "no match")
	}
	return s.ran(res, "")
}

// ran is the result of a run: refused, not run, or its exit code, output
// and what it changed. A command that ran and failed is still a result
// the model reads, not a tool error; a run admit could not carry out is.
func (s *server) ran(res gate.RunResult, note string) result {
	if res.Verdict.Verdict != rule.Allow {
		return s.refused(res.Verdict)
	}
	if !res.Ran {
		return failure("not run: " + res.Detail)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "exit code %d", res.ExitCode)
	if res.Confinement != "" {
		fmt.Fprintf(&b, " (confined: %s)", res.Confinement)
	}
	if res.TimedOut {
		b.WriteString(", stopped at its timeout")
	}
	b.WriteByte('\n')
	if note != "" {
		b.WriteString(note + "\n")
	}
	if res.Stdout != "" {
		b.WriteString(res.Stdout)
		if !strings.HasSuffix(res.Stdout, "\n") {
			b.WriteByte('\n')
		}
	}
	if res.Stderr != "" {
		b.WriteString("stderr:\n" + res.Stderr)
		if !strings.HasSuffix(res.Stderr, "\n") {
			b.WriteByte('\n')
		}
	}
	if res.Truncated {
		b.WriteString("(output cut at admit's bound)\n")
	}
	e := res.Effects
	if n := len(e.Added) + len(e.Removed) + len(e.Changed); n > 0 {
		fmt.Fprintf(&b, "changed: %s\n", strings.Join(slices.Concat(prefixed("+", e.Added), prefixed("-", e.Removed), prefixed("~", e.Changed)), " "))
	}
	if !res.Verified {
		b.WriteString("not verified: " + res.Detail + "\n")
	}
	r := text(b.String())
	r.IsError = res.Err != nil && res.ExitCode < 0
	r.Structured = map[string]any{"exitCode": res.ExitCode, "stdout": res.Stdout, "stderr": res.Stderr, "truncated": res.Truncated, "effects": res.Effects, "verified": res.Verified, "detail": res.Detail, "confinement": res.Confinement}
	return r
}

func prefixed(p string, list []string) []string {
	out := make([]string, len(list))
	for i, x := range list {
		out[i] = p + x
	}
	return out
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// remember keeps the hash this session read or wrote for a path, under
// the name the model gave and the one admit resolved, so the next edit or
// write is bound to it without the model carrying hashes.
func (s *server) remember(path string, targets []string, hash string) {
	if hash == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hashes[s.key(path)] = hash
	if len(targets) == 1 {
		s.hashes[targets[0]] = hash
	}
}

func (s *server) hashOf(path string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hashes[s.key(path)]
}

// key is a path made absolute against the session's folder, as a lookup
// key only: admit resolves the path itself when it decides.
func (s *server) key(path string) string {
	if !filepath.IsAbs(path) {
		path = filepath.Join(s.cfg.Cwd, path)
	}
	return filepath.Clean(path)
}
