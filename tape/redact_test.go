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
		{`echo ${GITHUB_TOKEN:-ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123}`, "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123"},
		{`echo ${TOKEN:-x} --password=hunter2`, "hunter2"},
	} {
		got := Redact(c.in)
		if strings.Contains(got, c.secret) || !strings.Contains(got, Redacted) {
			t.Errorf("Redact(%q) = %q", c.in, got)
		}
		if json.Valid([]byte(c.in)) && !json.Valid([]byte(got)) {
			t.Errorf("Redact(%q) = %q: no longer JSON", c.in, got)
		}
	}
	for _, s := range []string{`echo "token: ${GITHUB_TOKEN}"`, `echo ${GITHUB_TOKEN:-none}`, `echo "${API_KEY:=unset}"`,
		`echo ${SECRET_KEY:0:4}`, `echo ${DB_PASSWORD-none} ${NPM_TOKEN:+set}`, `test -n "${AWS_SECRET_ACCESS_KEY:?missing}"`, `curl -H "Authorization: Bearer $TOKEN" x`, "git log --oneline", "cat README.md | head -n 3", "http POST x.example token=@.env", `{"path":"src/a.go"}`} {
		if got := Redact(s); got != s {
			t.Errorf("Redact(%q) = %q", s, got)
		}
	}
}

// TestMayHoldSecret: the look before the pattern never passes over a
// line the pattern matches (one sample or more of each alternative, in
// any case, inside other text), and passes over ordinary lines.
func TestMayHoldSecret(t *testing.T) {
	samples := []string{
		"Authorization: Bearer abc", "authorization: basic Zm9v", "AUTHORIZATION:token x1",
		"password=x", "PASSWD: y", "pwd=z", "secret='s'", "Token: t", "api_key=k", "ApiKey=k", "api-key=k",
		"access_key=a", "accesskey=a", "client_secret=c", "client-secret=c", "private_key=p", "privateKey:p",
		"https://u:p@h", "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ", "GHO_abcdefghijklmnopqrst", "github_pat_ABCDEFGHIJKLMNOPQRSTU",
		"AKIAABCDEFGHIJKLMNOP", "akiaabcdefghijklmnop", "sk-abcdefghijklmnopqrstu", "xoxb-1234567890", "glpat-abcdefghijklmnopqrst",
		"npm_abcdefghijklmnopqrstuvwxyz0123456789", "-----BEGIN RSA PRIVATE KEY-----\nx\n-----END RSA PRIVATE KEY-----",
		"api\u212aey=x", "ſecret=x", // the pattern folds K and S to these
	}
	re := secretShapes()
	for _, s := range samples {
		for _, in := range []string{s, "echo " + s + " done", `{"a":"` + s + `"}`, strings.ToUpper(s), strings.ToLower(s)} {
			if re.MatchString(in) && !mayHoldSecret(in) {
				t.Errorf("mayHoldSecret(%q) = false, but the pattern matches it", in)
			}
			if re.Match([]byte(in)) && !mayHoldSecret([]byte(in)) {
				t.Errorf("mayHoldSecret([]byte(%q)) = false, but the pattern matches it", in)
			}
		}
		if !re.MatchString(s) {
			t.Errorf("sample %q: the pattern does not match it", s)
		}
	}
	for _, s := range []string{`{"file_path":"README.md"}`, "cat README.md | grep hello", "go test ./...", "git log --oneline -n 5"} {
		if mayHoldSecret(s) {
			t.Errorf("mayHoldSecret(%q) = true: the look passes over nothing", s)
		}
	}
}
