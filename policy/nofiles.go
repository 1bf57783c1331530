package policy

import (
	"errors"
	"io/fs"

	"admit/policy/command"
)

// errNoFiles is what noFiles answers for every path.
var errNoFiles = errors.New("no file system was given to resolve paths with")

// noFiles is the file system of an Env that names none: nothing resolves,
// and every walk reports itself incomplete, so each path is refused.
type noFiles struct{}

func (noFiles) Resolve(string) (command.Resolved, error) { return command.Resolved{}, errNoFiles }
func (noFiles) LinksOutside(string) []string             { return []string{errNoFiles.Error()} }
func (noFiles) SplitNames(string) []string               { return []string{errNoFiles.Error()} }
func (noFiles) OptionNames(string) []string              { return []string{errNoFiles.Error()} }
func (noFiles) GitExec(string) string                    { return errNoFiles.Error() }
func (noFiles) GitConfigFiles(string) []string           { return nil }
func (noFiles) CargoExec(string) string                  { return errNoFiles.Error() }
func (noFiles) ReadDir(string) ([]fs.DirEntry, error)    { return nil, errNoFiles }
