// Package workspace is where admit touches the file system: the workspace
// roots, path resolution, the fsnotify watcher, per-session observations
// and the file tools' core (bounded reads, exact edits, atomic writes with
// readback). Decisions live in package policy; this package only answers
// questions about the disk, the way the kernel and git would see it.
//
// Where to start:
//
//   - Roots holds the write roots, stored symlink-resolved.
//   - Resolver implements command.FS: Resolve walks a path component by
//     component with lstat as the kernel does, LinksOutside finds symlinks
//     that lead out of the roots, GitExec finds git configuration that
//     would make git run a program.
//   - Observations implements command.Observations for one session; it
//     checks a file's current state at decide time, so correctness never
//     depends on the watcher.
//   - Watcher watches the roots recursively, pushes staleness early, keeps
//     a count of escaping symlinks for the state, and feeds subscribers.
//   - ReadFile, ApplyEdit and WriteAtomic are the core of admit/read,
//     admit/edit and admit/write.
package workspace
