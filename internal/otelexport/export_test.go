package otelexport_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/plog/plogotlp"

	"admit/gate"
	"admit/internal/otelexport"
	"admit/policy"
	"admit/tape"
)

// receiver is an OTLP/HTTP logs endpoint built from the collector's own
// pdata packages (plogotlp): what a collector's OTLP receiver decodes.
// A real collector binary is too heavy to build on this machine's test
// runs (docs/teams.md says so). It can be stopped and started on the
// same address.
type receiver struct {
	addr string
	mu   sync.Mutex
	ids  map[string]int
	body strings.Builder
	srv  *http.Server
}

func (r *receiver) start(t *testing.T) {
	t.Helper()
	addr := r.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	var l net.Listener
	var err error
	for range 50 { // the port may linger a moment after a stop
		if l, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	r.addr = l.Addr().String()
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/logs", func(w http.ResponseWriter, q *http.Request) {
		data, _ := io.ReadAll(q.Body)
		req := plogotlp.NewExportRequest()
		if err := req.UnmarshalProto(data); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		rls := req.Logs().ResourceLogs()
		for i := 0; i < rls.Len(); i++ {
			sls := rls.At(i).ScopeLogs()
			for j := 0; j < sls.Len(); j++ {
				lrs := sls.At(j).LogRecords()
				for k := 0; k < lrs.Len(); k++ {
					lr := lrs.At(k)
					if v, ok := lr.Attributes().Get("admit.id"); ok {
						r.ids[v.Str()]++
					}
					r.body.WriteString(lr.Body().AsString())
					r.body.WriteString(attrsText(lr.Attributes().AsRaw()))
				}
			}
		}
		r.mu.Unlock()
		out, _ := plogotlp.NewExportResponse().MarshalProto()
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out)
	})
	mux.HandleFunc("/v1/metrics", func(w http.ResponseWriter, q *http.Request) {
		io.Copy(io.Discard, q.Body)
		w.Header().Set("Content-Type", "application/x-protobuf")
	})
	r.srv = &http.Server{Handler: mux}
	go r.srv.Serve(l)
}

func (r *receiver) stop() { r.srv.Close() }

func attrsText(m map[string]any) string {
	var b strings.Builder
	for k, v := range m {
		b.WriteString(k)
		b.WriteString("=")
		if s, ok := v.(string); ok {
			b.WriteString(s)
		}
		b.WriteString(" ")
	}
	return b.String()
}

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

// TestExportAcrossOutage: a few hundred decisions, the receiver stopped
// part way and started again: every decision is on the tape, every one
// the receiver got is one of them (none twice), what was not sent is
// counted, and no secret value is on the tape or in the export.
func TestExportAcrossOutage(t *testing.T) {
	r := &receiver{ids: map[string]int{}}
	r.start(t)
	x, err := otelexport.New(otelexport.Config{Endpoint: "http://" + r.addr, Retry: time.Second, Metrics: true})
	if err != nil {
		t.Fatal(err)
	}
	g, tp := exportGate(t, x)
	const n = 300
	for i := range n {
		switch i {
		case 100:
			// Let the first hundred go, then take the collector away.
			waitFor(t, func() bool { return x.Stats().Sent+x.Stats().Failed >= 100 })
			r.stop()
		case 200:
			waitFor(t, func() bool { return x.Stats().Failed >= 1 })
			r.start(t)
		}
		if _, err := g.Check(context.Background(), gate.CheckParams{Tool: "bash", Command: lines[i%len(lines)], Context: []byte(`{"agent":"test-agent"}`)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	x.Close(ctx)
	r.stop()
	st := x.Stats()
	t.Logf("export: %+v, receiver got %d", st, len(r.ids))

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
	for id, c := range r.ids {
		if !onTape[id] || c != 1 {
			t.Errorf("exported %s %d times; on the tape: %v", id, c, onTape[id])
		}
	}
	if st.Sent != int64(len(r.ids)) || st.Sent+st.Failed+st.Dropped != n || st.Failed == 0 || st.Sent < 200 {
		t.Errorf("counts: %+v, receiver %d", st, len(r.ids))
	}
	data, _ := os.ReadFile(tp)
	for _, s := range []string{secretFile, secretToken} {
		if strings.Contains(string(data), s) {
			t.Errorf("the tape holds %q", s)
		}
		if strings.Contains(r.body.String(), s) {
			t.Errorf("the export holds %q", s)
		}
	}
	if !strings.Contains(r.body.String(), "admit.rule=") || !strings.Contains(r.body.String(), "test-agent") {
		t.Errorf("the export lacks the record's fields: %.300s", r.body.String())
	}
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// BenchmarkCheckExport is a decision with no export, with the collector
// up, and with it down (nothing listens): the decision does not wait for
// the export.
func BenchmarkCheckExport(b *testing.B) {
	for _, c := range []string{"none", "up", "down"} {
		b.Run(c, func(b *testing.B) {
			var x *otelexport.Exporter
			switch c {
			case "up":
				r := &receiver{ids: map[string]int{}}
				r.start(&testing.T{})
				defer r.stop()
				x, _ = otelexport.New(otelexport.Config{Endpoint: "http://" + r.addr, Queue: 1 << 16})
			case "down":
				l, _ := net.Listen("tcp", "127.0.0.1:0")
				addr := l.Addr().String()
				l.Close()
				x, _ = otelexport.New(otelexport.Config{Endpoint: "http://" + addr, Queue: 1 << 16})
			}
			var ex gate.Exporter
			if x != nil {
				ex = x
				defer x.Close(context.Background())
			}
			g, _ := exportGate(b, ex)
			defer g.Close()
			p := gate.CheckParams{Tool: "bash", Command: "cat a.txt"}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := g.Check(context.Background(), p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
