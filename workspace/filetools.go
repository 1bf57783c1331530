package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"admit/internal/sysfile"
)

// nonBlock opens FIFOs and devices without waiting for a peer, so that
// refusing a non-regular file never hangs; it changes nothing for a
// regular file.
const nonBlock = sysfile.NonBlock

var (
	// ErrNotRegular is returned for a path that is not a regular file.
	ErrNotRegular = errors.New("workspace: not a regular file")
	// ErrTooLarge is returned for a file over the read bound.
	ErrTooLarge = errors.New("workspace: file over the size bound")
	// ErrSymlink is returned by WriteAtomic for a path whose final
	// component is a symlink: the path must be resolved first.
	ErrSymlink = errors.New("workspace: final component is a symlink")
	// ErrEmptyOldText is returned by ApplyEdit for an empty oldText.
	ErrEmptyOldText = errors.New("workspace: oldText is empty")
	// ErrNoMatch is returned by ApplyEdit when oldText does not occur.
	ErrNoMatch = errors.New("workspace: oldText not found")
	// ErrAmbiguous is returned by ApplyEdit when oldText occurs more than
	// once and replaceAll is false.
	ErrAmbiguous = errors.New("workspace: oldText occurs more than once")
	// ErrUnverified is returned by WriteAtomic when the file read back
	// differs from what was written.
	ErrUnverified = errors.New("workspace: readback does not match what was written")
)

// HashBytes is the hash admit uses for file contents: SHA-256, lower-case
// hex.
func HashBytes(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// ReadFile reads the regular file at path (which should be resolved; a
// final symlink is refused rather than followed) and returns its content
// and HashBytes of it. A file over maxBytes is ErrTooLarge, naming the
// path and the bound; a FIFO, device, socket or folder is ErrNotRegular.
func ReadFile(path string, maxBytes int64) (content []byte, hash string, err error) {
	f, err := sysfile.OpenNoFollow(path, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, "", fmt.Errorf("%w: %s", ErrSymlink, path)
		}
		return nil, "", fmt.Errorf("workspace: read %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, "", fmt.Errorf("workspace: read %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, "", fmt.Errorf("%w: %s is %s", ErrNotRegular, path, kindOf(fi.Mode()))
	}
	if fi.Size() > maxBytes {
		return nil, "", fmt.Errorf("%w: %s is %d bytes, the bound is %d", ErrTooLarge, path, fi.Size(), maxBytes)
	}
	// The file may grow between Stat and Read: read one byte past the
	// bound to notice.
	content, err = io.ReadAll(io.LimitReader(f, maxBytes+1))
	if err != nil {
		return nil, "", fmt.Errorf("workspace: read %s: %w", path, err)
	}
	if int64(len(content)) > maxBytes {
		return nil, "", fmt.Errorf("%w: %s is over %d bytes", ErrTooLarge, path, maxBytes)
	}
	return content, HashBytes(content), nil
}

// kindOf names a non-regular file type for error messages.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// ApplyEdit replaces oldText by newText in content and returns the result
// and the number of replacements. oldText must not be empty and must
// occur exactly once, unless replaceAll is set (then at least once).
func ApplyEdit(content, oldText, newText string, replaceAll bool) (string, int, error) {
	if oldText == "" {
		return "", 0, ErrEmptyOldText
	}
	n := strings.Count(content, oldText)
	switch {
	case n == 0:
		return "", 0, fmt.Errorf("%w: %q", ErrNoMatch, shortPrefix(oldText))
	case n > 1 && !replaceAll:
		return "", 0, fmt.Errorf("%w: %q occurs %d times; add context to make it unique or set replaceAll", ErrAmbiguous, shortPrefix(oldText), n)
	}
	if replaceAll {
		return strings.ReplaceAll(content, oldText, newText), n, nil
	}
	return strings.Replace(content, oldText, newText, 1), 1, nil
}

// shortPrefix quotes at most 60 bytes of s in error messages, cut on a
// rune boundary.
func shortPrefix(s string) string {
	const max = 60
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// WriteAtomic replaces the file at path with data so that a reader sees
// either the old content or the new, never a mix: it writes a temporary
// file in the same folder (created 0600, then given the original file's
// permission bits or 0644 for a new file), fsyncs it, renames it over
// path, fsyncs the folder, then reads the file back and compares hashes.
//
// path must already be resolved: a final symlink is ErrSymlink (a write
// never follows a link, in or out of the roots) and an existing
// non-regular file is ErrNotRegular. A readback that differs is
// ErrUnverified; the new file is in place then, so callers must report the
// change as failed, not retry it as new. The hash returned is that of
// data.
func WriteAtomic(path string, data []byte) (hash string, err error) {
	mode := fs.FileMode(0o644)
	fi, err := os.Lstat(path)
	switch {
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		return "", fmt.Errorf("%w: %s", ErrSymlink, path)
	case err == nil && !fi.Mode().IsRegular():
		return "", fmt.Errorf("%w: %s is %s", ErrNotRegular, path, kindOf(fi.Mode()))
	case err == nil:
		mode = fi.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("workspace: write %s: %w", path, err)
	}
	if err := sysfile.WriteAtomic(path, data, mode); err != nil {
		return "", fmt.Errorf("workspace: write %s: %w", path, err)
	}
	want := HashBytes(data)
	_, got, err := ReadFile(path, int64(len(data)))
	if err != nil {
		return "", fmt.Errorf("%w: %s: %w", ErrUnverified, path, err)
	}
	if got != want {
		return "", fmt.Errorf("%w: %s has hash %s, wrote %s", ErrUnverified, path, got, want)
	}
	return want, nil
}
