package cli

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestPersonSettingsExport: the person's settings file's export sends
// what admit check decides to their collector (the OTLP/HTTP request
// carries the redacted command), and an export the file gets wrong is a
// configuration error naming the field.
func TestPersonSettingsExport(t *testing.T) {
	var mu sync.Mutex
	var bodies bytes.Buffer
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		if r.URL.Path == "/v1/logs" {
			mu.Lock()
			bodies.Write(data)
			mu.Unlock()
		}
		w.Header().Set("Content-Type", "application/x-protobuf") // an empty answer is an empty OTLP response
	})}
	go srv.Serve(l)
	defer srv.Close()

	ws := testWorkspace(t)
	config := t.TempDir()
	settings := filepath.Join(config, "admit", "settings.json")
	write := func(body string) {
		if err := os.MkdirAll(filepath.Dir(settings), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(settings, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"XDG_CONFIG_HOME=" + config, "OTEL_EXPORTER_OTLP_ENDPOINT=", "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT="}

	write(`{"export": {"endpoint": "http://` + l.Addr().String() + `", "metrics": false}}`)
	code, _, stderr := runAdmit(t, env, "check", "--root", ws, "-c", "grep exported-marker-41 a.txt")
	if code != 1 && code != 0 {
		t.Fatalf("admit check: exit %d: %s", code, stderr)
	}
	mu.Lock()
	got := bodies.String()
	mu.Unlock()
	if !strings.Contains(got, "exported-marker-41") || !strings.Contains(got, "admit.rule") {
		t.Errorf("the collector got no record of the decision: %q", got)
	}

	write(`{"export": {"endpoint": "ftp://collector.example"}}`)
	code, _, stderr = runAdmit(t, env, "check", "--root", ws, "-c", "cat a.txt")
	if code != exitConfig || !strings.Contains(stderr, "export.endpoint") || !strings.Contains(stderr, "ftp://collector.example") {
		t.Errorf("an ftp endpoint: exit %d, %s", code, stderr)
	}
}
