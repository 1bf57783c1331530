package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"admit/tape"
)

// admit tape --verify is the door a person checks the tape through: an
// intact tape passes; an edited last line, a cut, a missing head and a
// missing tape all fail (exit 1) with a message that names what is wrong.
func TestTapeVerifyCommand(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tape.jsonl")
	tp, err := tape.Open(path, tape.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if err := tp.Append(context.Background(), &tape.Record{ID: fmt.Sprint("c-", i), Verdict: "deny", Rule: "forbidden-flag"}); err != nil {
			t.Fatal(err)
		}
	}
	tp.Close()
	intact, _ := os.ReadFile(path)
	head, _ := os.ReadFile(path + tape.HeadSuffix)

	verify := func(p string) (int, string) {
		code, out, errs := runAdmit(t, nil, "tape", "--verify", "--path", p)
		return code, out + errs
	}
	if code, out := verify(path); code != 0 || !strings.Contains(out, "5 records, chain intact") {
		t.Fatalf("intact tape: exit %d, %s", code, out)
	}
	lines := bytes.SplitAfter(intact, []byte("\n"))
	for _, c := range []struct {
		name, want string
		tape, head []byte
	}{
		{"last line edited", "the last record was changed", bytes.Replace(intact, []byte(`"c-4"`), []byte(`"c-9"`), 1), head},
		{"last line removed", "records were cut from the end", bytes.Join(lines[:4], nil), head},
		{"head removed", "the head is missing", intact, nil},
	} {
		if err := os.WriteFile(path, c.tape, 0o600); err != nil {
			t.Fatal(err)
		}
		if c.head == nil {
			os.Remove(path + tape.HeadSuffix)
		}
		if code, out := verify(path); code != 1 || !strings.Contains(out, c.want) {
			t.Errorf("%s: exit %d, %s; want exit 1 and %q", c.name, code, out, c.want)
		}
		os.WriteFile(path, intact, 0o600)
		os.WriteFile(path+tape.HeadSuffix, head, 0o600)
	}
	if code, out := verify(filepath.Join(dir, "none.jsonl")); code != 1 || !strings.Contains(out, "no tape") {
		t.Errorf("missing tape: exit %d, %s", code, out)
	}
}
