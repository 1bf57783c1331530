module admit

go 1.26.0

require (
	github.com/creack/pty v1.1.24
	github.com/fsnotify/fsnotify v1.10.1
	github.com/go-json-experiment/json v0.0.0-20260623181947-01eb4420fa68
	github.com/landlock-lsm/go-landlock v0.11.2
	go.lsp.dev/jsonrpc2 v1.0.1
	go.lsp.dev/protocol v1.0.1
	go.lsp.dev/uri v1.0.1
	golang.org/x/sys v0.49.0
	golang.org/x/term v0.46.0
	mvdan.cc/sh/v3 v3.14.1
)

require kernel.org/pub/linux/libs/security/libcap/psx v1.2.78 // indirect
