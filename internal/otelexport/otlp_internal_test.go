package otelexport

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"admit/tape"
)

// The endpoint, headers, timeout and compression come from the
// configuration and the standard variables, the signal's own first; a
// bad value is an error naming the variable.
func TestSignalFromEnv(t *testing.T) {
	for _, c := range []struct {
		name    string
		cfg     Config
		env     map[string]string
		url     string
		headers map[string]string
		timeout time.Duration
		err     string
	}{
		{name: "default", url: "https://localhost:4318/v1/logs", timeout: 10 * time.Second},
		{name: "configured wins", cfg: Config{Endpoint: "http://c:4318/", Headers: map[string]string{"x-team": "web"}},
			env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://other:1", "OTEL_EXPORTER_OTLP_HEADERS": "x-team=ops,a=b%20c"},
			url: "http://c:4318/v1/logs", headers: map[string]string{"x-team": "web", "a": "b c"}, timeout: 10 * time.Second},
		{name: "general endpoint gets the path", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://g:4318", "OTEL_EXPORTER_OTLP_TIMEOUT": "2500"},
			url: "http://g:4318/v1/logs", timeout: 2500 * time.Millisecond},
		{name: "the signal's endpoint as it is", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://g:4318", "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": "http://l:9/logs"},
			url: "http://l:9/logs", timeout: 10 * time.Second},
		{name: "bad headers", env: map[string]string{"OTEL_EXPORTER_OTLP_LOGS_HEADERS": "novalue"}, err: "OTEL_EXPORTER_OTLP_LOGS_HEADERS"},
		{name: "bad timeout", env: map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "soon"}, err: `OTEL_EXPORTER_OTLP_TIMEOUT: want a positive number of milliseconds, got "soon"`},
		{name: "bad compression", env: map[string]string{"OTEL_EXPORTER_OTLP_COMPRESSION": "zstd"}, err: "OTEL_EXPORTER_OTLP_COMPRESSION"},
		{name: "bad endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "localhost:4318"}, err: "want an http:// or https:// URL"},
		{name: "key without certificate", env: map[string]string{"OTEL_EXPORTER_OTLP_CLIENT_KEY": "/k.pem"}, err: "go together"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := newSignal(c.cfg, "LOGS", "/v1/logs", func(k string) string { return c.env[k] })
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("newSignal = %v, want an error with %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.url != c.url || s.timeout != c.timeout || len(s.headers) != len(c.headers) {
				t.Fatalf("signal = %s %v %v, want %s %v %v", s.url, s.timeout, s.headers, c.url, c.timeout, c.headers)
			}
			for k, v := range c.headers {
				if s.headers[k] != v {
					t.Errorf("header %s = %q, want %q", k, s.headers[k], v)
				}
			}
		})
	}
}

// A decision reaches a receiver as an OTLP/JSON log record (gzipped when
// asked), with its event name, body and attributes, and the counts as a
// cumulative sum.
func TestOTLPJSON(t *testing.T) {
	var mu sync.Mutex
	got := map[string][]byte{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			z, err := gzip.NewReader(r.Body)
			if err != nil {
				t.Error(err)
				return
			}
			body = z
		}
		data, _ := io.ReadAll(body)
		if ct := r.Header.Get("Content-Type"); ct != "application/json" || r.Header.Get("x-team") != "web" {
			t.Errorf("%s: content type %q, x-team %q", r.URL.Path, ct, r.Header.Get("x-team"))
		}
		mu.Lock()
		got[r.URL.Path] = append(got[r.URL.Path], data...)
		mu.Unlock()
	}))
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip")
	x, err := New(Config{Endpoint: srv.URL, Headers: map[string]string{"x-team": "web"}, Metrics: true, Linger: time.Millisecond, MetricInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	x.Export(&tape.Record{ID: "c-1", Verdict: "deny", Rule: "forbidden-flag", Outcome: "deny", Tool: "bash", Command: "git push --force",
		Context: []byte(`{"agent":"test-agent"}`), Time: time.Unix(1700000000, 5)})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := x.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if st := x.Stats(); st.Sent != 1 {
		t.Fatalf("stats %+v", st)
	}
	var logs struct {
		ResourceLogs []struct {
			Resource struct {
				Attributes []jsonKV `json:"attributes"`
			} `json:"resource"`
			ScopeLogs []struct {
				Scope      jsonScope `json:"scope"`
				LogRecords []struct {
					Time       string    `json:"timeUnixNano"`
					Severity   int       `json:"severityNumber"`
					Body       jsonValue `json:"body"`
					Attributes []jsonKV  `json:"attributes"`
					EventName  string    `json:"eventName"`
				} `json:"logRecords"`
			} `json:"scopeLogs"`
		} `json:"resourceLogs"`
	}
	if err := json.Unmarshal(got["/v1/logs"], &logs); err != nil {
		t.Fatalf("logs: %v: %s", err, got["/v1/logs"])
	}
	lr := logs.ResourceLogs[0].ScopeLogs[0].LogRecords[0]
	attrs := map[string]string{}
	for _, kv := range lr.Attributes {
		if kv.Value.String != nil {
			attrs[kv.Key] = *kv.Value.String
		}
	}
	if lr.EventName != "admit.decision" || lr.Time != "1700000000000000005" || lr.Severity != 13 || lr.Body.String == nil ||
		!strings.Contains(*lr.Body.String, `"id":"c-1"`) || attrs["admit.rule"] != "forbidden-flag" || attrs["admit.agent"] != "test-agent" ||
		logs.ResourceLogs[0].ScopeLogs[0].Scope.Name != "admit/decisions" {
		t.Errorf("log record: %s", got["/v1/logs"])
	}
	if m := string(got["/v1/metrics"]); !strings.Contains(m, `"name":"admit.decisions"`) || !strings.Contains(m, `"asInt":"1"`) ||
		!strings.Contains(m, `"aggregationTemporality":2`) || !strings.Contains(m, "test-agent") {
		t.Errorf("metrics: %s", m)
	}
}
