package main

// Blank imports pin the design's dependencies in go.mod until the packages
// that use them land; remove each as its real importer appears.
import (
	_ "github.com/fsnotify/fsnotify"
	_ "github.com/landlock-lsm/go-landlock/landlock"
	_ "go.lsp.dev/jsonrpc2"
	_ "go.lsp.dev/protocol"
	_ "mvdan.cc/sh/v3/interp"
	_ "mvdan.cc/sh/v3/syntax"
)
