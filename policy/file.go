package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"admit/internal/strictjson"
	"admit/policy/rules"
)

// File is the workspace policy file, .admit/policy.json. It is versioned
// with the project, so it may name tools and programs but may not switch
// the gate off or widen the effect mode: those stay the person's settings.
type File struct {
	Label      string           `json:"label,omitempty"`
	Allow      []string         `json:"allow,omitempty"`
	NeedsHuman []string         `json:"needsHuman,omitempty"`
	Mutators   []string         `json:"mutators,omitempty"`
	ShellTools []string         `json:"shellTools,omitempty"`
	Headless   bool             `json:"headless,omitempty"` // nobody is at the keyboard: what needs a person is refused
	Bounds     map[string]int64 `json:"bounds,omitempty"`   // for opened sessions
	Programs   json.RawMessage  `json:"programs,omitempty"` // extends the program tables; see docs/policy.md
	// Rules are the repository's ask and deny rules over commands (an
	// allow rule here is an error: only the person's rules allow).
	Rules  *rules.File `json:"rules,omitempty"`
	Schema string      `json:"$schema,omitempty"`
}

// FileError is a policy file that cannot be used; it names the line and the
// field, and the gate stays closed rather than open.
type FileError struct {
	Path  string
	Line  int
	Field string
	Err   error
}

func (e *FileError) Error() string {
	where := e.Path
	if e.Line > 0 {
		where = fmt.Sprintf("%s:%d", e.Path, e.Line)
	}
	if e.Field != "" {
		return fmt.Sprintf("%s: %s: %v", where, e.Field, e.Err)
	}
	return fmt.Sprintf("%s: %v", where, e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

// ParseFile decodes and validates a policy file. Unknown fields are errors,
// so a misspelt key does not silently leave a tool ungated.
func ParseFile(path string, data []byte) (*File, error) {
	var f File
	fail := func(off int64, field string, err error) error {
		return &FileError{Path: path, Line: lineAt(data, off), Field: field, Err: err}
	}
	if err := strictjson.Decode(data, &f); err != nil {
		var e *strictjson.Error
		if !errors.As(err, &e) {
			return nil, fail(0, "", err)
		}
		return nil, fail(e.Offset, e.Field, errors.New(e.Msg))
	}
	for _, l := range []struct {
		name string
		list []string
	}{{"allow", f.Allow}, {"needsHuman", f.NeedsHuman}, {"mutators", f.Mutators}, {"shellTools", f.ShellTools}} {
		if err := checkPatterns(l.name, l.list); err != nil {
			return nil, fail(fieldOffset(data, l.name), "", err)
		}
	}
	if err := checkSweeping("allow", f.Allow); err != nil {
		return nil, fail(fieldOffset(data, "allow"), "", err)
	}
	if f.Rules != nil {
		if _, err := f.Rules.Set("rules", false); err != nil {
			return nil, fail(fieldOffset(data, "rules"), "", err)
		}
	}
	if _, err := DefaultBounds().Override(f.Bounds); err != nil {
		return nil, fail(fieldOffset(data, "bounds"), "bounds", err)
	}
	return &f, nil
}

func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

func fieldOffset(data []byte, name string) int64 {
	return int64(max(bytes.Index(data, []byte(`"`+name+`"`)), 0))
}

// DefaultFile is the built-in policy of the editor's default session when
// the workspace has no policy file: the read, edit and shell tools of the
// common coding agents, edits as mutators, and network tools that ask a
// person. It is written down in the README.
func DefaultFile() *File {
	return &File{
		Label: "default",
		Allow: []string{
			// reading and searching
			"read_file", "Read", "view", "list_dir", "list_directory", "LS", "Glob", "glob", "Grep", "grep",
			"grep_search", "file_search", "codebase_search", "search_files", "find_files", "read_many_files",
			"get_file_info", "NotebookRead",
			// editing
			"write_file", "Write", "Edit", "MultiEdit", "edit_file", "create_file", "str_replace_editor",
			"str_replace_based_edit_tool", "replace", "replace_string_in_file", "insert_edit_into_file",
			"NotebookEdit", "delete_file", "move_file", "create_directory",
			// shells (judged by the command policy)
			"bash", "Bash", "shell", "run_in_terminal", "execute_command", "run_command", "run_shell_command",
			// planning and bookkeeping: no file system, no network
			"TodoWrite", "TodoRead", "Task", "ExitPlanMode", "write_todos", "think",
			// the person's consent or answer (Gemini CLI's and the Copilot
			// CLI's exit_plan_mode, the Copilot CLI's ask_user): a hook
			// never answers them allow, it leaves them to the host's prompt
			"exit_plan_mode", "ask_user",
			// Gemini CLI's names
			"search_file_content",
			// network: allowed only with a person's approval
			"WebFetch", "web_fetch", "fetch", "WebSearch", "web_search", "google_web_search",
			// VS Code's tools that run code admit cannot read (a task of
			// tasks.json, a notebook cell, an editor command, an
			// extension's install): allowed only with a person's approval
			"run_task", "create_and_run_task", "run_notebook_cell", "run_vscode_command", "install_extension",
		},
		Mutators: []string{
			"write_file", "Write", "Edit", "MultiEdit", "edit_file", "create_file", "str_replace_editor",
			"str_replace_based_edit_tool", "replace", "replace_string_in_file", "insert_edit_into_file",
			"NotebookEdit", "delete_file", "move_file", "create_directory",
		},
		NeedsHuman: []string{"WebFetch", "web_fetch", "fetch", "WebSearch", "web_search", "google_web_search",
			"run_task", "create_and_run_task", "run_notebook_cell", "run_vscode_command", "install_extension"},
		ShellTools: DefaultShellTools(),
	}
}
