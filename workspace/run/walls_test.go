package run

import (
	"slices"
	"strings"
	"testing"
)

// TestWallsByKernel: which walls a run has, and which it misses, on the
// kernels admit meets, from Landlock's ABI, seccomp and namespaces.
func TestWallsByKernel(t *testing.T) {
	for _, tc := range []struct {
		note    string
		l       layout
		missing []string
		by      map[string]string
	}{
		{"6.18-like, judged", layout{abi: 7, seccomp: true}, nil,
			map[string]string{WallNetTCP: "seccomp+landlock", WallNetUDP: "seccomp", WallSignals: "landlock", WallFSMetadata: ""}},
		{"6.18-like, code in the confiner", layout{abi: 7, seccomp: true, code: true, confiner: true, netns: true}, nil,
			map[string]string{WallNetUDP: "network-namespace", WallProtected: "mount-namespace", WallSignals: "landlock+pid-namespace"}},
		{"Ubuntu 24.04 (6.8, ABI 4), judged, no namespaces", layout{abi: 4, seccomp: true}, []string{WallSignals},
			map[string]string{WallNetTCP: "seccomp+landlock"}},
		{"ABI 4, judged, in the confiner", layout{abi: 4, seccomp: true, confiner: true, netns: true}, nil,
			map[string]string{WallSignals: "pid-namespace"}},
		{"Debian 12 (6.1, ABI 3), code, no namespaces", layout{abi: 3, seccomp: true, code: true}, []string{WallFSMetadata, WallSignals},
			map[string]string{WallProtected: "landlock", WallFSWrite: "landlock"}},
		{"ABI 2: truncate through seccomp", layout{abi: 2, seccomp: true, confiner: true, netns: true}, nil,
			map[string]string{WallFSWrite: "landlock+seccomp+mount-namespace"}},
		{"ABI 10 without seccomp", layout{abi: 10}, []string{WallIPC},
			map[string]string{WallNetTCP: "landlock", WallNetUDP: "landlock", WallUnixSockets: "landlock"}},
		{"ABI 7 without seccomp", layout{abi: 7}, []string{WallNetUDP, WallUnixSockets, WallIPC},
			map[string]string{WallNetTCP: "landlock"}},
		{"no Landlock", layout{seccomp: true}, []string{WallFSRead, WallFSWrite, WallSignals, WallPtrace}, nil},
		{"network open", layout{abi: 7, seccomp: true, network: true}, nil, nil},
	} {
		t.Run(tc.note, func(t *testing.T) {
			walls, missing := tc.l.walls()
			if !slices.Equal(missing, tc.missing) {
				t.Errorf("missing %v, want %v", missing, tc.missing)
			}
			for name, by := range tc.by {
				i := slices.IndexFunc(walls, func(w Wall) bool { return w.Name == name })
				if i < 0 || walls[i].By != by {
					t.Errorf("%s: %+v, want by %q", name, walls, by)
				}
			}
			if tc.l.network {
				for _, w := range walls {
					if strings.HasPrefix(w.Name, "net-") && !w.Open {
						t.Errorf("%s not open", w.Name)
					}
				}
			}
		})
	}
}
