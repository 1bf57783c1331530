package command

import "testing"

// TestGitPrintsSetting: what each URL- or setting-printing form shows of
// a credential GitCredentials names.
func TestGitPrintsSetting(t *testing.T) {
	for _, tc := range []struct {
		p    gitPrinted
		cred string
		want bool
	}{
		{gitPrinted{ok: true, urls: true}, "remote.origin.url", true},
		{gitPrinted{ok: true, urls: true}, "remote.origin.pushurl", true},
		{gitPrinted{ok: true, urls: true}, "url.*.insteadof", true},
		{gitPrinted{ok: true, urls: true}, "http.extraheader", false},
		{gitPrinted{ok: true, all: true}, "http.extraheader", true},
		{gitPrinted{ok: true, all: true, nameOnly: true}, "remote.origin.url", false},
		{gitPrinted{ok: true, all: true, nameOnly: true}, "url.*.insteadof", true},
		{gitPrinted{ok: true, names: []string{"Remote.origin.URL"}}, "remote.origin.url", true},
		{gitPrinted{ok: true, names: []string{"remote.Origin.url"}}, "remote.origin.url", false},
		{gitPrinted{ok: true, names: []string{"remote.upstream.url"}}, "remote.origin.url", false},
		{gitPrinted{ok: true, names: []string{"core.bare"}}, "remote.origin.url", false},
		{gitPrinted{ok: true, names: []string{"url.https://x@y/.insteadof"}}, "url.*.insteadof", true},
		{gitPrinted{ok: true, names: []string{"http.extraheader"}, anySub: true}, "http.https://github.com/.extraheader", true},
		{gitPrinted{ok: true, names: []string{"http.extraheader"}}, "http.https://github.com/.extraheader", false},
		{gitPrinted{ok: true, names: []string{"http"}, anySub: true}, "http.https://github.com/.extraheader", true},
		{gitPrinted{ok: true, names: []string{"core"}, anySub: true}, "http.https://github.com/.extraheader", false},
	} {
		if got := gitPrintsSetting(tc.p, tc.cred); got != tc.want {
			t.Errorf("%+v of %s: %v, want %v", tc.p, tc.cred, got, tc.want)
		}
	}
	for n, want := range map[string][3]string{
		"remote.origin.url":                    {"remote", "origin", "url"},
		"core.bare":                            {"core", "", "bare"},
		"http.https://github.com/.extraheader": {"http", "https://github.com/", "extraheader"},
		"Remote.X.URL":                         {"remote", "X", "url"},
	} {
		if s, sub, k := splitSetting(n); [3]string{s, sub, k} != want {
			t.Errorf("splitSetting(%q) = %q %q %q, want %q", n, s, sub, k, want)
		}
	}
}
