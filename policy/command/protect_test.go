package command

import "testing"

func TestProtectFoldsCase(t *testing.T) {
	roots := []string{"/w"}
	for _, p := range []string{"/w/.ADMIT/policy.json", "/w/.Admit/x", "/w/.GIT/config", "/w/.VSCode/settings.json", "/w/.vſcode/tasks.json", "/w/.ENVRC", "/w/.GitHub/Workflows/ci.yml"} {
		if pr := Protect(p, roots); !pr.Protected {
			t.Errorf("Protect(%q) = %+v, want protected", p, pr)
		}
	}
	if pr := Protect("/w/.ADMIT/policy.json", roots); pr.Ask {
		t.Errorf(".ADMIT must be refused, not asked: %+v", pr)
	}
	for _, p := range []string{"/w/src/a.go", "/w/Admit/x", "/w/gitconfig"} {
		if pr := Protect(p, roots); pr.Protected {
			t.Errorf("Protect(%q) = %+v, want not protected", p, pr)
		}
	}
}
