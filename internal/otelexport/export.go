// Package otelexport sends the gate's decisions where the team looks: each
// tape record as an OpenTelemetry log record, and counts of decisions by
// outcome, rule, agent and tool as a metric, over OTLP/HTTP (protobuf) to a
// collector. The messages are written by hand (otlp.go), not with the
// OpenTelemetry SDK, whose packages every admit process paid for at start.
// The standard OTEL_* variables are honoured (endpoints, headers, timeout,
// compression, certificates, resource attributes); an endpoint the
// configuration names wins over them.
//
// The tape stays the source of truth: the gate hands a record over only
// once it is on the tape (gate.Exporter). Export never blocks the
// decision: the record goes into a bounded queue that one goroutine
// drains, and a record the queue has no room for is dropped and counted.
// Records go in batches; a batch that cannot be sent is sent again with
// backoff for a bounded time; what could not be sent is counted too, and
// Stats says so (admit/state). Only the tape's own
// fields leave the machine, redacted (tape.Redact), never the
// decision's facts. See docs/teams.md.
package otelexport

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"admit/tape"
)

// Config says where decisions go.
type Config struct {
	// Endpoint is the collector's OTLP/HTTP base URL
	// (http://127.0.0.1:4318); "" leaves it to the OTEL_* variables.
	Endpoint string
	Headers  map[string]string
	Metrics  bool
	// Queue bounds the records waiting to be sent (default 4096, or
	// OTEL_BLRP_MAX_QUEUE_SIZE; at most 65536).
	Queue int
	// Batch is the most records one request carries (default 512, or
	// OTEL_BLRP_MAX_EXPORT_BATCH_SIZE).
	Batch int
	// Linger is how long a batch that is not full waits for more records
	// (default 1 s, or OTEL_BLRP_SCHEDULE_DELAY in milliseconds).
	Linger time.Duration
	// Retry bounds the backoff of one batch (default 30 s in all); a
	// batch that still cannot be sent counts its records as failed.
	Retry time.Duration
	// MetricInterval is how often counts are sent (default 60 s, or
	// OTEL_METRIC_EXPORT_INTERVAL in milliseconds).
	MetricInterval time.Duration
	Logger         *slog.Logger
}

// maxQueue bounds the memory a queue may take, whatever the variables say.
const maxQueue = 1 << 16

// fromEnv fills what c leaves unset from the standard batch variables;
// a value that is not a positive number is an error naming the variable.
func (c *Config) fromEnv(getenv func(string) string) error {
	num := func(name string, dst *int) error {
		v := getenv(name)
		if v == "" || *dst > 0 {
			return nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return fmt.Errorf("%s: want a positive whole number, got %q", name, v)
		}
		*dst = n
		return nil
	}
	var delay, interval int
	if err := errors.Join(num("OTEL_BLRP_MAX_QUEUE_SIZE", &c.Queue), num("OTEL_BLRP_MAX_EXPORT_BATCH_SIZE", &c.Batch),
		num("OTEL_BLRP_SCHEDULE_DELAY", &delay), num("OTEL_METRIC_EXPORT_INTERVAL", &interval)); err != nil {
		return err
	}
	if c.Linger <= 0 && delay > 0 {
		c.Linger = time.Duration(delay) * time.Millisecond
	}
	if c.MetricInterval <= 0 && interval > 0 {
		c.MetricInterval = time.Duration(interval) * time.Millisecond
	}
	return nil
}

// Stats are the export's counts since it started.
type Stats struct {
	Endpoint  string `json:"endpoint,omitempty"`
	Queued    int64  `json:"queued"`  // waiting to be sent
	Sent      int64  `json:"sent"`    // accepted by the collector
	Failed    int64  `json:"failed"`  // refused or unreachable after every retry
	Dropped   int64  `json:"dropped"` // no room in the queue, or still queued when the gate closed
	Retries   int64  `json:"retries"` // requests sent again after a failure
	LastError string `json:"lastError,omitempty"`
}

// Exporter is the running export. Its methods are safe for concurrent use.
type Exporter struct {
	cfg      Config
	queue    chan tape.Record
	resource []attr
	logs     *poster
	metrics  *poster  // nil without metrics
	batch    [][]byte // the next batch's encoded log records (only run's goroutine)
	line     []byte   // add's buffer for a record's line (only run's goroutine)
	counts   map[countKey]int64
	start    time.Time    // the counts' start
	pending  atomic.Int64 // records taken from the queue, not yet sent or failed
	sent     atomic.Int64
	failed   atomic.Int64
	dropped  atomic.Int64
	retries  atomic.Int64
	lastErr  atomic.Pointer[string]
	stop     chan struct{}
	// abort ends a send still retrying once Close's time is up.
	abort    context.Context
	cancel   context.CancelFunc
	done     sync.WaitGroup
	closeOne sync.Once
}

// countKey is what the admit.decisions counter counts by.
type countKey struct{ outcome, rule, agent, tool, verdict string }

// New starts an export to cfg's collector. Nothing is sent yet: the
// connection is made with the first batch.
func New(cfg Config) (*Exporter, error) {
	if err := cfg.fromEnv(os.Getenv); err != nil {
		return nil, err
	}
	if cfg.Queue <= 0 {
		cfg.Queue = 4096
	}
	cfg.Queue = min(cfg.Queue, maxQueue)
	if cfg.Batch <= 0 {
		cfg.Batch = 512
	}
	cfg.Batch = min(cfg.Batch, cfg.Queue)
	if cfg.Linger <= 0 {
		cfg.Linger = time.Second
	}
	if cfg.Retry <= 0 {
		cfg.Retry = 30 * time.Second
	}
	if cfg.MetricInterval <= 0 {
		cfg.MetricInterval = time.Minute
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	e := &Exporter{cfg: cfg, queue: make(chan tape.Record, cfg.Queue), stop: make(chan struct{}),
		resource: resourceAttrs(os.Getenv), start: time.Now()}
	var err error
	if e.logs, err = newPoster(cfg, os.Getenv, "LOGS", "/v1/logs"); err != nil {
		return nil, err
	}
	if cfg.Metrics {
		if e.metrics, err = newPoster(cfg, os.Getenv, "METRICS", "/v1/metrics"); err != nil {
			return nil, err
		}
		e.counts = map[countKey]int64{}
	}
	e.abort, e.cancel = context.WithCancel(context.Background())
	e.done.Add(1)
	go e.run()
	return e, nil
}

// Export queues rec for sending and returns at once; with no room left
// it is dropped and counted. The record is copied.
func (e *Exporter) Export(rec *tape.Record) {
	r := *rec
	r.Facts = nil // what a decision rested on stays on the machine
	select {
	case e.queue <- r:
	default:
		e.dropped.Add(1)
	}
}

// Stats are the counts so far.
func (e *Exporter) Stats() Stats {
	s := Stats{Endpoint: e.cfg.Endpoint, Queued: int64(len(e.queue)) + e.pending.Load(), Sent: e.sent.Load(), Failed: e.failed.Load(),
		Dropped: e.dropped.Load(), Retries: e.retries.Load()}
	if p := e.lastErr.Load(); p != nil {
		s.LastError = *p
	}
	return s
}

// Close sends what is queued and the counts, waiting at most until ctx
// ends, then stops; what is still queued then is counted as dropped.
// A failure to send is counted, not returned.
func (e *Exporter) Close(ctx context.Context) error {
	e.closeOne.Do(func() {
		close(e.stop)
		finished := make(chan struct{})
		go func() { e.done.Wait(); close(finished) }()
		select {
		case <-finished:
		case <-ctx.Done():
			e.cancel() // the batch being retried fails now
			<-finished
		}
		e.cancel()
		e.dropped.Add(int64(len(e.queue)))
		e.logs.close()
		if e.metrics != nil {
			e.metrics.close()
		}
	})
	return nil
}

// run drains the queue into batches until Close: a batch goes when it is
// full or has lingered long enough; on Close what is left goes at once,
// unless Close's time is up, when the rest stays queued (and is counted
// as dropped).
func (e *Exporter) run() {
	defer e.done.Done()
	var linger, counting <-chan time.Time
	if e.metrics != nil {
		tick := time.NewTicker(e.cfg.MetricInterval)
		defer tick.Stop()
		counting = tick.C
	}
	for {
		select {
		case <-counting:
			e.sendCounts()
		case r := <-e.queue:
			e.add(&r)
			if len(e.batch) >= e.cfg.Batch {
				e.send()
				linger = nil
			} else if linger == nil {
				linger = time.After(e.cfg.Linger)
			}
		case <-linger:
			e.send()
			linger = nil
		case <-e.stop:
			for e.abort.Err() == nil {
				select {
				case r := <-e.queue:
					e.add(&r)
					if len(e.batch) >= e.cfg.Batch {
						e.send()
					}
					continue
				default:
				}
				break
			}
			e.send()
			if e.abort.Err() == nil {
				e.sendCounts()
			}
			return
		}
	}
}

// send hands the batch to the exporter, again with backoff while it
// fails (200 ms doubling to 5 s, with jitter), until cfg.Retry has passed
// or Close gives up; then its records count as failed. Once Close is
// called a batch gets one more try, not a backoff: a gate of one call
// (a hook) must not end later because the collector is down.
func (e *Exporter) send() {
	recs := e.batch
	e.batch = nil
	if len(recs) == 0 {
		return
	}
	n := int64(len(recs))
	body := logsRequest(e.resource, scopeName, recs)
	deadline := time.Now().Add(e.cfg.Retry)
	wait := 200 * time.Millisecond
	for {
		err := e.abort.Err()
		if err == nil {
			if err = e.logs.post(e.abort, body); err == nil {
				e.pending.Add(-n)
				e.sent.Add(n)
				return
			}
		}
		msg := err.Error()
		e.lastErr.Store(&msg)
		pause := wait/2 + rand.N(wait/2+1)
		if e.abort.Err() != nil || e.stopping() || time.Now().Add(pause).After(deadline) {
			e.pending.Add(-n)
			e.failed.Add(n)
			e.cfg.Logger.Warn("decisions not exported", "records", n, "err", err)
			return
		}
		e.retries.Add(1)
		select {
		case <-time.After(pause):
		case <-e.abort.Done():
		case <-e.stop:
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// stopping says whether Close was called.
func (e *Exporter) stopping() bool {
	select {
	case <-e.stop:
		return true
	default:
		return false
	}
}

// scopeName is the instrumentation scope of the records and the counter.
const scopeName = "admit/decisions"

// add turns a tape record into a log record of the next batch, and counts it.
func (e *Exporter) add(r *tape.Record) {
	lr := logRecord{time: r.Time, observed: time.Now(), eventName: "admit.decision", severity: severityInfo, severityText: "INFO"}
	if r.Verdict == "deny" {
		lr.severity, lr.severityText = severityWarn, "WARN"
	}
	e.line = tape.AppendEncoded(e.line[:0], r)
	lr.body = tape.Redact(string(e.line))
	agent := agentOf(r)
	lr.attrs = []attr{
		stringAttr("admit.id", r.ID), stringAttr("admit.session", r.Session), stringAttr("admit.mode", string(r.Mode)),
		stringAttr("admit.verdict", string(r.Verdict)), {key: "admit.allowed", isBool: true, b: r.Allowed}, stringAttr("admit.rule", string(r.Rule)),
		stringAttr("admit.outcome", string(r.Outcome)), stringAttr("admit.tool", r.Tool), stringAttr("admit.decided_by", string(r.DecidedBy)),
		stringAttr("admit.policy", r.Policy), stringAttr("admit.agent", agent),
	}
	if r.Command != "" {
		lr.attrs = append(lr.attrs, stringAttr("admit.command", tape.Redact(r.Command)))
	}
	if r.Reason != "" {
		lr.attrs = append(lr.attrs, stringAttr("admit.reason", tape.Redact(r.Reason)))
	}
	e.pending.Add(1)
	e.batch = append(e.batch, lr.appendTo(nil))
	if e.counts != nil && r.Outcome != "" {
		e.counts[countKey{string(r.Outcome), string(r.Rule), agent, r.Tool, string(r.Verdict)}]++
	}
}

// sendCounts sends the counts so far, once: they are cumulative, so a
// failed send is made good by the next.
func (e *Exporter) sendCounts() {
	if len(e.counts) == 0 {
		return
	}
	points := make([]point, 0, len(e.counts))
	for k, n := range e.counts {
		points = append(points, point{count: n, attrs: []attr{stringAttr("outcome", k.outcome), stringAttr("rule", k.rule),
			stringAttr("agent", k.agent), stringAttr("tool", k.tool), stringAttr("verdict", k.verdict)}})
	}
	body := sumRequest(e.resource, scopeName, "admit.decisions", "decisions of the gate, by outcome, rule, agent and tool", e.start, time.Now(), points)
	if err := e.metrics.post(e.abort, body); err != nil {
		e.cfg.Logger.Warn("decision counts not exported", "err", err)
	}
}

// agentOf is the agent a record's context names.
func agentOf(r *tape.Record) string {
	const key = `"agent":"`
	s := string(r.Context)
	i := strings.Index(s, key)
	if i < 0 {
		return ""
	}
	s = s[i+len(key):]
	if j := strings.IndexByte(s, '"'); j >= 0 {
		return s[:j]
	}
	return ""
}
