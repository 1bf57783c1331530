package gate

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"admit/policy"
	"admit/policy/rule"
	"admit/tape"
	"admit/workspace"
)

// maxFileBytes bounds what admit/read returns: a model's context is the
// limit that matters, and a larger file is better read in parts by a shell.
const maxFileBytes = 4 << 20

// FileResult is a file tool's answer: the verdict, and what was read or
// written when it was admitted.
type FileResult struct {
	Verdict
	Content  *string `json:"content,omitempty"`
	Hash     string  `json:"hash,omitempty"`
	Size     int64   `json:"size,omitempty"`
	Verified *bool   `json:"verified,omitempty"`
	Detail   string  `json:"detail,omitempty"`
}

// ReadParams are admit/read's params.
type ReadParams struct {
	Session string `json:"session,omitempty"`
	Path    string `json:"path"`
	Cwd     string `json:"cwd,omitempty"`
}

// Read reads a file through the door: the text, its hash, and an
// observation that remembers the hash, so a later edit is bound to these
// bytes.
func (g *Gate) Read(ctx context.Context, p ReadParams) (FileResult, error) {
	if p.Path == "" {
		return FileResult{}, &ParamError{"path", "required"}
	}
	args, _ := json.Marshal(map[string]string{"path": p.Path})
	d, err := g.Decide(ctx, CheckParams{Session: p.Session, Tool: readTool, Args: args, Cwd: p.Cwd}, nil)
	if err != nil {
		return FileResult{}, err
	}
	res := FileResult{Verdict: d.Verdict}
	if !d.Verdict.Allowed || len(d.Decision.Reads) != 1 {
		if d.Verdict.Allowed {
			res.Detail = "not a regular file: list a folder with a shell tool"
		}
		return res, nil
	}
	path := d.Decision.Reads[0]
	content, hash, err := workspace.ReadFile(path, maxFileBytes)
	if err != nil {
		res.Detail = err.Error()
		return res, nil
	}
	d.session.obs.RecordFileHash(path, hash)
	text := string(content)
	res.Content, res.Hash, res.Size = &text, hash, int64(len(content))
	return res, nil
}

// EditParams are admit/edit's params.
type EditParams struct {
	Session    string `json:"session,omitempty"`
	Path       string `json:"path"`
	OldText    string `json:"oldText"`
	NewText    string `json:"newText"`
	ReplaceAll bool   `json:"replaceAll,omitempty"`
	ExpectHash string `json:"expectHash"`
	Cwd        string `json:"cwd,omitempty"`
}

// Edit replaces text in a file whose bytes are the ones the agent read.
func (g *Gate) Edit(ctx context.Context, p EditParams) (FileResult, error) {
	switch {
	case p.Path == "":
		return FileResult{}, &ParamError{"path", "required"}
	case p.ExpectHash == "":
		return FileResult{}, &ParamError{"expectHash", "required: the hash admit/read returned"}
	case p.OldText == "":
		return FileResult{}, &ParamError{"oldText", "required and not empty"}
	}
	var next []byte
	args, _ := json.Marshal(map[string]any{"path": p.Path, "oldText": len(p.OldText), "newText": len(p.NewText), "replaceAll": p.ReplaceAll, "expectHash": p.ExpectHash})
	d, err := g.Decide(ctx, CheckParams{Session: p.Session, Tool: editTool, Args: args, Cwd: p.Cwd}, func(d *policy.Decision) {
		content := bindToRead(g, p.Session, d, p.ExpectHash)
		if content == nil {
			return
		}
		out, _, err := workspace.ApplyEdit(string(content), p.OldText, p.NewText, p.ReplaceAll)
		if err != nil {
			*d = refusal(*d, "edit-mismatch", err.Error(), "Read the file again and quote oldText exactly.")
			return
		}
		next = []byte(out)
	})
	if err != nil {
		return FileResult{}, err
	}
	return g.commitWrite(ctx, d, next), nil
}

// WriteParams are admit/write's params.
type WriteParams struct {
	Session    string `json:"session,omitempty"`
	Path       string `json:"path"`
	Content    string `json:"content"`
	ExpectHash string `json:"expectHash,omitempty"`
	Cwd        string `json:"cwd,omitempty"`
}

// Write writes a whole file: a new one (its folder listed), or one
// replacing bytes the agent read.
func (g *Gate) Write(ctx context.Context, p WriteParams) (FileResult, error) {
	if p.Path == "" {
		return FileResult{}, &ParamError{"path", "required"}
	}
	args, _ := json.Marshal(map[string]any{"path": p.Path, "content": len(p.Content), "expectHash": p.ExpectHash})
	d, err := g.Decide(ctx, CheckParams{Session: p.Session, Tool: writeTool, Args: args, Cwd: p.Cwd}, func(d *policy.Decision) {
		if len(d.Writes) != 1 {
			return
		}
		if _, err := os.Lstat(d.Writes[0]); os.IsNotExist(err) {
			if p.ExpectHash != "" {
				*d = refusal(*d, "stale-observation", "the file no longer exists, but expectHash names content that was read", "List the folder and read again.")
			}
			return
		}
		if p.ExpectHash == "" {
			*d = refusal(*d, "stale-observation", "the file exists: replacing it needs expectHash, the hash admit/read returned", "Read the file first and pass its hash.")
			return
		}
		bindToRead(g, p.Session, d, p.ExpectHash)
	})
	if err != nil {
		return FileResult{}, err
	}
	return g.commitWrite(ctx, d, []byte(p.Content)), nil
}

// bindToRead refuses a change unless expectHash is both the hash the
// session read and the file's hash now; it returns the current bytes.
func bindToRead(g *Gate, sessionID string, d *policy.Decision, expectHash string) []byte {
	if len(d.Writes) != 1 {
		*d = refusal(*d, "no-target", "the file tools change exactly one file", "")
		return nil
	}
	path := d.Writes[0]
	s, err := g.session(sessionID)
	if err != nil {
		*d = refusal(*d, "unobserved-target", err.Error(), "")
		return nil
	}
	if read, ok := s.obs.Hash(path); !ok || read != expectHash {
		*d = refusal(*d, "unobserved-target", fmt.Sprintf("expectHash %s is not the hash this session read for the file", short(expectHash)), "Read the file with admit/read and pass the hash it returns.")
		return nil
	}
	content, now, err := workspace.ReadFile(path, maxFileBytes)
	if err != nil {
		*d = refusal(*d, "stale-observation", err.Error(), "")
		return nil
	}
	if now != expectHash {
		*d = refusal(*d, "stale-observation", "the file changed since it was read (hash "+short(now)+", expected "+short(expectHash)+")", "Read the file again, then retry the change.")
		return nil
	}
	return content
}

func refusal(d policy.Decision, r rule.Rule, reason, hint string) policy.Decision {
	d.Allowed, d.Ask, d.Rule, d.Reason, d.Hint = false, false, r, reason, hint
	return d
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// commitWrite writes an admitted change atomically, reads it back, and
// tapes the outcome. A failed change stays failed on the tape.
func (g *Gate) commitWrite(ctx context.Context, d *Decided, data []byte) FileResult {
	res := FileResult{Verdict: d.Verdict}
	if d.Verdict.Verdict != rule.Allow || len(d.Decision.Writes) != 1 {
		return res
	}
	path := d.Decision.Writes[0]
	// A new file may sit in new folders: the policy admitted them when the
	// nearest existing folder was listed.
	err := os.MkdirAll(filepath.Dir(path), 0o755)
	var hash string
	if err == nil {
		hash, err = workspace.WriteAtomic(path, data)
	}
	ok := err == nil
	res.Verified = &ok
	if err != nil {
		res.Detail = "write failed: " + err.Error()
	} else {
		res.Hash, res.Size, res.Detail = hash, int64(len(data)), "readback confirmed "+short(hash)
		d.session.obs.RecordFileHash(path, hash)
	}
	g.retape(ctx, d, func(r *tape.Record) {
		r.Rule, r.Verified, r.Detail = "write-result", res.Verified, res.Detail
	})
	return res
}
