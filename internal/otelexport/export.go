// Package otelexport sends the gate's decisions where the team looks: each
// tape record as an OpenTelemetry log record, and counts of decisions by
// outcome, rule, agent and tool as metrics, over OTLP/HTTP to a collector,
// with the OpenTelemetry Go SDK and its exporters. The standard OTEL_*
// variables are honoured (endpoint, headers, timeout, resource
// attributes); an endpoint the configuration names wins over them.
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

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	otellog "go.opentelemetry.io/otel/log"
	"go.opentelemetry.io/otel/metric"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"

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
	// MetricInterval is how often counts are sent (default 10 s, or
	// OTEL_METRIC_EXPORT_INTERVAL).
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
	var delay int
	if err := errors.Join(num("OTEL_BLRP_MAX_QUEUE_SIZE", &c.Queue), num("OTEL_BLRP_MAX_EXPORT_BATCH_SIZE", &c.Batch),
		num("OTEL_BLRP_SCHEDULE_DELAY", &delay)); err != nil {
		return err
	}
	if c.Linger <= 0 && delay > 0 {
		c.Linger = time.Duration(delay) * time.Millisecond
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
	cfg     Config
	queue   chan tape.Record
	logs    *sdklog.LoggerProvider
	logger  otellog.Logger
	out     sdklog.Exporter
	batch   *collect
	line    []byte // add's buffer for a record's line (only run's goroutine adds)
	meters  *sdkmetric.MeterProvider
	counter metric.Int64Counter
	pending atomic.Int64 // records taken from the queue, not yet sent or failed
	sent    atomic.Int64
	failed  atomic.Int64
	dropped atomic.Int64
	retries atomic.Int64
	lastErr atomic.Pointer[string]
	stop    chan struct{}
	// abort ends a send still retrying once Close's time is up.
	abort    context.Context
	cancel   context.CancelFunc
	done     sync.WaitGroup
	closeOne sync.Once
}

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
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	ctx := context.Background()
	res, err := resource.New(ctx, resource.WithFromEnv(), resource.WithHost(),
		resource.WithAttributes(semconv.ServiceName("admit")))
	if err != nil && res == nil {
		return nil, fmt.Errorf("otel resource: %w", err)
	}
	e := &Exporter{cfg: cfg, queue: make(chan tape.Record, cfg.Queue), stop: make(chan struct{}), batch: &collect{}}
	e.abort, e.cancel = context.WithCancel(ctx)
	// The SDK's own retry only covers some answers (429, 503), not a
	// collector that is down: send retries every failure itself.
	lopts := []otlploghttp.Option{otlploghttp.WithRetry(otlploghttp.RetryConfig{Enabled: false})}
	if cfg.Endpoint != "" {
		lopts = append(lopts, otlploghttp.WithEndpointURL(strings.TrimRight(cfg.Endpoint, "/")+"/v1/logs"))
	}
	if len(cfg.Headers) > 0 {
		lopts = append(lopts, otlploghttp.WithHeaders(cfg.Headers))
	}
	if e.out, err = otlploghttp.New(ctx, lopts...); err != nil {
		return nil, fmt.Errorf("otlp logs exporter: %w", err)
	}
	// The logger only builds records (resource, scope, limits); collect
	// keeps them for the next batch, which send hands to the exporter.
	e.logs = sdklog.NewLoggerProvider(sdklog.WithResource(res), sdklog.WithProcessor(e.batch))
	e.logger = e.logs.Logger("admit/decisions")
	if cfg.Metrics {
		mopts := []otlpmetrichttp.Option{}
		if cfg.Endpoint != "" {
			mopts = append(mopts, otlpmetrichttp.WithEndpointURL(strings.TrimRight(cfg.Endpoint, "/")+"/v1/metrics"))
		}
		if len(cfg.Headers) > 0 {
			mopts = append(mopts, otlpmetrichttp.WithHeaders(cfg.Headers))
		}
		mexp, err := otlpmetrichttp.New(ctx, mopts...)
		if err != nil {
			_ = e.out.Shutdown(ctx)
			return nil, fmt.Errorf("otlp metrics exporter: %w", err)
		}
		var ropts []sdkmetric.PeriodicReaderOption
		if cfg.MetricInterval > 0 {
			ropts = append(ropts, sdkmetric.WithInterval(cfg.MetricInterval))
		}
		e.meters = sdkmetric.NewMeterProvider(sdkmetric.WithResource(res), sdkmetric.WithReader(sdkmetric.NewPeriodicReader(quietMetrics{mexp, cfg.Logger}, ropts...)))
		e.counter, err = e.meters.Meter("admit/decisions").Int64Counter("admit.decisions", metric.WithDescription("decisions of the gate, by outcome, rule, agent and tool"))
		if err != nil {
			return nil, err
		}
	}
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

// Close sends what is queued, waiting at most until ctx ends, then stops;
// what is still queued then is counted as dropped.
func (e *Exporter) Close(ctx context.Context) error {
	var err error
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
		err = errors.Join(e.logs.Shutdown(ctx), e.out.Shutdown(ctx), e.shutdownMeters(ctx))
	})
	return err
}

func (e *Exporter) shutdownMeters(ctx context.Context) error {
	if e.meters == nil {
		return nil
	}
	return e.meters.Shutdown(ctx)
}

// run drains the queue into batches until Close: a batch goes when it is
// full or has lingered long enough; on Close what is left goes at once,
// unless Close's time is up, when the rest stays queued (and is counted
// as dropped).
func (e *Exporter) run() {
	defer e.done.Done()
	var linger <-chan time.Time
	for {
		select {
		case r := <-e.queue:
			e.add(&r)
			if len(e.batch.recs) >= e.cfg.Batch {
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
					if len(e.batch.recs) >= e.cfg.Batch {
						e.send()
					}
					continue
				default:
				}
				break
			}
			e.send()
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
	recs := e.batch.recs
	e.batch.recs = nil
	if len(recs) == 0 {
		return
	}
	n := int64(len(recs))
	deadline := time.Now().Add(e.cfg.Retry)
	wait := 200 * time.Millisecond
	for {
		err := e.abort.Err()
		if err == nil {
			if err = e.out.Export(e.abort, recs); err == nil {
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

// add turns a tape record into a log record of the next batch, and counts it.
func (e *Exporter) add(r *tape.Record) {
	ctx := context.Background()
	var lr otellog.Record
	lr.SetTimestamp(r.Time)
	lr.SetObservedTimestamp(time.Now())
	lr.SetEventName("admit.decision")
	sev, text := otellog.SeverityInfo, "INFO"
	if r.Verdict == "deny" {
		sev, text = otellog.SeverityWarn, "WARN"
	}
	lr.SetSeverity(sev)
	lr.SetSeverityText(text)
	e.line = tape.AppendEncoded(e.line[:0], r)
	lr.SetBody(attribute.StringValue(tape.Redact(string(e.line))))
	agent := agentOf(r)
	attrs := []attribute.KeyValue{
		attribute.String("admit.id", r.ID), attribute.String("admit.session", r.Session), attribute.String("admit.mode", string(r.Mode)),
		attribute.String("admit.verdict", string(r.Verdict)), attribute.Bool("admit.allowed", r.Allowed), attribute.String("admit.rule", string(r.Rule)),
		attribute.String("admit.outcome", string(r.Outcome)), attribute.String("admit.tool", r.Tool), attribute.String("admit.decided_by", string(r.DecidedBy)),
		attribute.String("admit.policy", r.Policy), attribute.String("admit.agent", agent),
	}
	if r.Command != "" {
		attrs = append(attrs, attribute.String("admit.command", tape.Redact(r.Command)))
	}
	if r.Reason != "" {
		attrs = append(attrs, attribute.String("admit.reason", tape.Redact(r.Reason)))
	}
	lr.AddAttributes(attrs...)
	e.pending.Add(1)
	e.logger.Emit(ctx, lr) // collect.OnEmit, at once
	if e.counter != nil && r.Outcome != "" {
		e.counter.Add(ctx, 1, metric.WithAttributes(attribute.String("outcome", string(r.Outcome)), attribute.String("rule", string(r.Rule)),
			attribute.String("agent", agent), attribute.String("tool", r.Tool), attribute.String("verdict", string(r.Verdict))))
	}
}

// quietMetrics logs a failed send of the counts to the export's logger,
// not to the SDK's global handler (which prints to stderr, where a
// hook's host reads its answer's reason); the next interval sends the
// counts again, as they are cumulative.
type quietMetrics struct {
	sdkmetric.Exporter
	log *slog.Logger
}

func (q quietMetrics) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	if err := q.Exporter.Export(ctx, rm); err != nil {
		q.log.Warn("decision counts not exported", "err", err)
	}
	return nil
}

// collect is the logger's processor: it keeps each record for the next
// batch. Only run's goroutine emits, so it needs no lock.
type collect struct{ recs []sdklog.Record }

func (c *collect) Enabled(context.Context, sdklog.EnabledParameters) bool { return true }
func (c *collect) OnEmit(_ context.Context, r *sdklog.Record) error {
	c.recs = append(c.recs, r.Clone())
	return nil
}
func (c *collect) Shutdown(context.Context) error   { return nil }
func (c *collect) ForceFlush(context.Context) error { return nil }

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
