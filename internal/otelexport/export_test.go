package otelexport_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"admit/gate"
	"admit/internal/otelexport"
	"admit/policy"
	"admit/tape"
)

const secretFile, secretToken = "SECRETVALUE-12345", "tokSECRET999888"

func exportGate(t testing.TB, x gate.Exporter) (*gate.Gate, string) {
	dir := t.TempDir()
	root := filepath.Join(dir, "ws")
	os.MkdirAll(root, 0o755)
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644)
	os.WriteFile(filepath.Join(root, ".env"), []byte("API_KEY="+secretFile+"\n"), 0o600)
	tp := filepath.Join(dir, "tape.jsonl")
	g, err := gate.Open(gate.Options{Dirs: []string{root}, Home: t.TempDir(), Bounds: policy.DefaultBounds(), Headless: true,
		TapePath: tp, TapeRequired: true, Tape: tape.Options{Sync: tape.SyncNone}, Exporter: x,
		Trust: gate.NewTrustStore(t.TempDir()), Rules: gate.NewRuleStore(t.TempDir(), root)})
	if err != nil {
		t.Fatal(err)
	}
	return g, tp
}

var lines = []string{"cat a.txt", "cat .env", "curl -H 'Authorization: Bearer " + secretToken + "' https://example.com", "ls", "rm a.txt"}

// TestExportAcrossOutage: a few hundred decisions through the gate, the
// real collector stopped a third of the way and started again a third
// later: every decision is on the tape, and every one reached the
// collector's file exactly once (the batch that failed while it was down
// was sent again), with the counts in the gate's state, and no secret
// value on the tape or in the collector's files.
func TestExportAcrossOutage(t *testing.T) {
	c := newCollector(t)
	c.start(t)
	defer c.stop(t)
	x, err := otelexport.New(otelexport.Config{Endpoint: "http://" + c.addr, Batch: 32, Linger: 20 * time.Millisecond,
		Retry: 2 * time.Minute, Metrics: true, MetricInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	g, tp := exportGate(t, x)
	const n = 300
	for i := range n {
		switch i {
		case 100:
			// The first hundred are at the collector; then it goes away.
			waitFor(t, func() bool { return x.Stats().Sent >= 100 })
			c.stop(t)
		case 200:
			// A batch failed and is being retried: the collector comes back.
			waitFor(t, func() bool { return x.Stats().Retries >= 1 })
			if st := g.State().Export; st == nil || st.LastError == "" || st.Queued == 0 {
				t.Errorf("while the collector is down the state shows %+v", st)
			}
			c.start(t)
		}
		if _, err := g.Check(context.Background(), gate.CheckParams{Tool: "bash", Command: lines[i%len(lines)], Context: []byte(`{"agent":"test-agent"}`)}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, func() bool { return x.Stats().Sent >= n })
	time.Sleep(300 * time.Millisecond) // a metrics interval or two
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := x.Close(ctx); err != nil {
		t.Errorf("closing the export: %v", err)
	}
	c.stop(t) // flushes the files
	st := x.Stats()
	t.Logf("export: %+v", st)

	recs, err := tape.Query(tp, tape.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	onTape := map[string]bool{}
	for _, rec := range recs {
		onTape[rec.ID] = true
	}
	if len(recs) != n || len(onTape) != n {
		t.Fatalf("tape: %d records, %d ids; want %d", len(recs), len(onTape), n)
	}
	ids, raw := c.exported(t)
	for id := range onTape {
		if ids[id] != 1 {
			t.Errorf("decision %s is %d times in the collector's files", id, ids[id])
		}
	}
	if len(ids) != n {
		t.Errorf("the collector's files hold %d decisions, the tape %d", len(ids), n)
	}
	if st.Sent != n || st.Failed != 0 || st.Dropped != 0 || st.Queued != 0 || st.Retries == 0 {
		t.Errorf("counts: %+v", st)
	}
	data, _ := os.ReadFile(tp)
	for _, s := range []string{secretFile, secretToken} {
		if strings.Contains(string(data), s) {
			t.Errorf("the tape holds %q", s)
		}
		if strings.Contains(raw, s) {
			t.Errorf("the collector's files hold %q", s)
		}
	}
	for _, want := range []string{`"admit.rule"`, `"admit.outcome"`, "test-agent", "admit.decision"} {
		if !strings.Contains(raw, want) {
			t.Errorf("the exported records lack %s: %.300s", want, raw)
		}
	}
	var metrics string
	for _, p := range c.metrics {
		data, _ := os.ReadFile(p)
		metrics += string(data)
	}
	if !strings.Contains(metrics, `"admit.decisions"`) || !strings.Contains(metrics, "test-agent") {
		t.Errorf("the collector's metrics lack admit.decisions by agent: %.300s", metrics)
	}
}

// TestExportCountsWhatCouldNotBeSent: with nothing listening, a batch
// is retried until its bound and then counted as failed, and a queue
// with no room drops and counts; the gate's state shows both, and every
// decision is still on the tape.
func TestExportCountsWhatCouldNotBeSent(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	x, err := otelexport.New(otelexport.Config{Endpoint: "http://" + addr, Queue: 4, Batch: 2, Linger: time.Millisecond, Retry: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	g, tp := exportGate(t, x)
	const n = 40
	for i := range n {
		if _, err := g.Check(context.Background(), gate.CheckParams{Tool: "bash", Command: lines[i%len(lines)]}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, func() bool { st := x.Stats(); return st.Queued == 0 && st.Failed > 0 })
	st := g.State().Export
	if st == nil || st.Sent != 0 || st.Failed == 0 || st.Dropped == 0 || st.Failed+st.Dropped != n || st.Retries == 0 || st.LastError == "" {
		t.Errorf("state's export: %+v", st)
	}
	g.Close()
	x.Close(context.Background())
	recs, err := tape.Query(tp, tape.Filter{})
	if err != nil || len(recs) != n {
		t.Fatalf("tape: %d records, %v; want %d", len(recs), err, n)
	}
}

// TestExportCloseTriesOnce: what is still queued when the export closes
// gets one try each, no backoff, however long Close may wait: a hook's
// process ends as soon with the collector down as with it up.
func TestExportCloseTriesOnce(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	x, err := otelexport.New(otelexport.Config{Endpoint: "http://" + addr, Linger: time.Hour, Retry: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b", "c"} {
		x.Export(&tape.Record{ID: id, Tool: "bash"})
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	x.Close(ctx)
	if st := x.Stats(); st.Failed != 3 || st.Retries != 0 || st.Queued != 0 || st.Dropped != 0 {
		t.Errorf("after Close: %+v", st)
	}
}

// TestExportSettingsFromEnvironment: the standard batch variables set
// the bounds; a value that is not a number is refused, naming it.
func TestExportSettingsFromEnvironment(t *testing.T) {
	t.Setenv("OTEL_BLRP_MAX_QUEUE_SIZE", "three")
	if _, err := otelexport.New(otelexport.Config{Endpoint: "http://127.0.0.1:1"}); err == nil || !strings.Contains(err.Error(), "OTEL_BLRP_MAX_QUEUE_SIZE") || !strings.Contains(err.Error(), `"three"`) {
		t.Errorf("a queue size of three: %v", err)
	}
	t.Setenv("OTEL_BLRP_MAX_QUEUE_SIZE", "2")
	x, err := otelexport.New(otelexport.Config{Endpoint: "http://127.0.0.1:1", Retry: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close(context.Background())
	rec := tape.Record{ID: "r", Tool: "bash"}
	for range 50 {
		x.Export(&rec)
	}
	if st := x.Stats(); st.Dropped == 0 || st.Queued > 2+2 {
		t.Errorf("a queue of 2 took 50: %+v", st)
	}
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(120 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// BenchmarkCheckExport is a decision through the gate with no export,
// exporting to the real collector, and with the collector down (nothing
// listens, every batch retried): the decision does not wait for the
// export, so the three are alike.
func BenchmarkCheckExport(b *testing.B) {
	for _, c := range []string{"none", "up", "down"} {
		b.Run(c, func(b *testing.B) {
			var x *otelexport.Exporter
			var err error
			switch c {
			case "up":
				col := newCollector(b)
				col.start(b)
				defer col.stop(b)
				x, err = otelexport.New(otelexport.Config{Endpoint: "http://" + col.addr, Queue: 1 << 16})
			case "down":
				l, _ := net.Listen("tcp", "127.0.0.1:0")
				addr := l.Addr().String()
				l.Close()
				x, err = otelexport.New(otelexport.Config{Endpoint: "http://" + addr, Queue: 1 << 16})
			}
			if err != nil {
				b.Fatal(err)
			}
			var ex gate.Exporter
			if x != nil {
				ex = x
			}
			g, _ := exportGate(b, ex)
			p := gate.CheckParams{Tool: "bash", Command: "cat a.txt"}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := g.Check(context.Background(), p); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if x != nil {
				st := x.Stats()
				b.ReportMetric(float64(st.Sent), "sent")
				b.ReportMetric(float64(st.Retries), "retries")
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				x.Close(ctx)
				cancel()
			}
			g.Close()
		})
	}
}

// TestExportEndpointFromEnvironment: the signal's own variables win over
// the general ones and the configured endpoint over both; headers, gzip
// and the content type reach the collector; a value that cannot be read
// is an error naming its variable.
func TestExportEndpointFromEnvironment(t *testing.T) {
	type got struct{ path, team, enc, ctype string }
	seen := make(chan got, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			z, err := gzip.NewReader(r.Body)
			if err != nil {
				t.Errorf("a gzip body that is not gzip: %v", err)
				return
			}
			body = z
		}
		data, _ := io.ReadAll(body)
		if !bytes.Contains(data, []byte("admit.decision")) {
			t.Errorf("%s: the request holds no decision: %q", r.URL.Path, data)
		}
		seen <- got{r.URL.Path, r.Header.Get("X-Team"), r.Header.Get("Content-Encoding"), r.Header.Get("Content-Type")}
	}))
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	t.Setenv("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", srv.URL+"/custom/logs")
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-team=general")
	t.Setenv("OTEL_EXPORTER_OTLP_LOGS_HEADERS", "x-team=web%20ui")
	t.Setenv("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip")
	x, err := otelexport.New(otelexport.Config{Linger: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	x.Export(&tape.Record{ID: "a", Tool: "bash"})
	select {
	case g := <-seen:
		if g != (got{"/custom/logs", "web ui", "gzip", "application/x-protobuf"}) {
			t.Errorf("the collector saw %+v", g)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("nothing reached the collector")
	}
	x.Close(context.Background())

	for name, value := range map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "soon", "OTEL_EXPORTER_OTLP_COMPRESSION": "zstd",
		"OTEL_EXPORTER_OTLP_LOGS_HEADERS": "no-equals-sign", "OTEL_METRIC_EXPORT_INTERVAL": "-5"} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(name, value)
			_, err := otelexport.New(otelexport.Config{Endpoint: srv.URL, Metrics: true})
			if err == nil || !strings.Contains(err.Error(), name) {
				t.Errorf("%s=%s: %v", name, value, err)
			}
		})
	}
}
