package tape

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRedact: a credential in a command line or in a tool's arguments is
// replaced, the word that named it kept, JSON kept valid, and an ordinary
// line left alone.
func TestRedact(t *testing.T) {
	for _, c := range []struct{ in, secret string }{
		{`curl -H 'Authorization: Bearer abcdef123456' https://x`, "abcdef123456"},
		{`mysql --password=hunter2 db`, "hunter2"},
		{`git clone https://bob:s3cr3tpass@example.com/r.git`, "s3cr3tpass"},
		{`echo ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123`, "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123"},
		{`export AWS_ACCESS_KEY_ID=AKIAABCDEFGHIJKLMNOP`, "AKIAABCDEFGHIJKLMNOP"},
		{`{"command":"deploy --api-key=k-9f8e7d6c5b"}`, "k-9f8e7d6c5b"},
		{`{"token": "tok_live_998877"}`, "tok_live_998877"},
	} {
		got := Redact(c.in)
		if strings.Contains(got, c.secret) || !strings.Contains(got, Redacted) {
			t.Errorf("Redact(%q) = %q", c.in, got)
		}
		if json.Valid([]byte(c.in)) && !json.Valid([]byte(got)) {
			t.Errorf("Redact(%q) = %q: no longer JSON", c.in, got)
		}
	}
	for _, s := range []string{`echo "token: ${GITHUB_TOKEN}"`, `curl -H "Authorization: Bearer $TOKEN" x`, "git log --oneline", "cat README.md | head -n 3", "http POST x.example token=@.env", `{"path":"src/a.go"}`} {
		if got := Redact(s); got != s {
			t.Errorf("Redact(%q) = %q", s, got)
		}
	}
}
