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
// Sending retries with backoff (the SDK's); what could not be sent is
// counted too, and Stats says so (admit/state). Only the tape's own
// fields leave the machine, redacted (tape.Redact), never the
// decision's facts. See docs/teams.md.
package otelexport

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
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
	// Queue bounds the records waiting to be sent (default 4096).
	Queue int
	// Retry bounds the backoff of one send (default 30 s in all); a send
	// that still fails counts its records as failed.
	Retry time.Duration
	// MetricInterval is how often counts are sent (default 10 s, or
	// OTEL_METRIC_EXPORT_INTERVAL).
	MetricInterval time.Duration
	Logger         *slog.Logger
}

// Stats are the export's counts since it started.
type Stats struct {
	Endpoint  string `json:"endpoint,omitempty"`
	Queued    int64  `json:"queued"`  // waiting to be sent
	Sent      int64  `json:"sent"`    // accepted by the collector
	Failed    int64  `json:"failed"`  // sent, and refused or unreachable after retries
	Dropped   int64  `json:"dropped"` // no room in the queue
	LastError string `json:"lastError,omitempty"`
}

// Exporter is the running export. Its methods are safe for concurrent use.
type Exporter struct {
	cfg      Config
	queue    chan tape.Record
	logs     *sdklog.LoggerProvider
	logger   otellog.Logger
	meters   *sdkmetric.MeterProvider
	counter  metric.Int64Counter
	sent     atomic.Int64
	failed   atomic.Int64
	dropped  atomic.Int64
	lastErr  atomic.Pointer[string]
	stop     chan struct{}
	done     sync.WaitGroup
	closeOne sync.Once
}

// New starts an export to cfg's collector. Nothing is sent yet: the
// connection is made with the first record.
func New(cfg Config) (*Exporter, error) {
	if cfg.Queue <= 0 {
		cfg.Queue = 4096
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
	e := &Exporter{cfg: cfg, queue: make(chan tape.Record, cfg.Queue), stop: make(chan struct{})}
	lopts := []otlploghttp.Option{otlploghttp.WithRetry(otlploghttp.RetryConfig{
		Enabled: true, InitialInterval: 200 * time.Millisecond, MaxInterval: 5 * time.Second, MaxElapsedTime: cfg.Retry,
	})}
	if cfg.Endpoint != "" {
		lopts = append(lopts, otlploghttp.WithEndpointURL(strings.TrimRight(cfg.Endpoint, "/")+"/v1/logs"))
	}
	if len(cfg.Headers) > 0 {
		lopts = append(lopts, otlploghttp.WithHeaders(cfg.Headers))
	}
	lexp, err := otlploghttp.New(ctx, lopts...)
	if err != nil {
		return nil, fmt.Errorf("otlp logs exporter: %w", err)
	}
	// One record at a time through a counting exporter: the queue in
	// front is the only buffer, so every record is counted once.
	e.logs = sdklog.NewLoggerProvider(sdklog.WithResource(res), sdklog.WithProcessor(sdklog.NewSimpleProcessor(&counting{inner: lexp, e: e})))
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
			_ = e.logs.Shutdown(ctx)
			return nil, fmt.Errorf("otlp metrics exporter: %w", err)
		}
		var ropts []sdkmetric.PeriodicReaderOption
		if cfg.MetricInterval > 0 {
			ropts = append(ropts, sdkmetric.WithInterval(cfg.MetricInterval))
		}
		e.meters = sdkmetric.NewMeterProvider(sdkmetric.WithResource(res), sdkmetric.WithReader(sdkmetric.NewPeriodicReader(mexp, ropts...)))
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
	s := Stats{Endpoint: e.cfg.Endpoint, Queued: int64(len(e.queue)), Sent: e.sent.Load(), Failed: e.failed.Load(), Dropped: e.dropped.Load()}
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
		}
		err = errors.Join(e.logs.Shutdown(ctx), e.shutdownMeters(ctx))
		<-finished
		e.dropped.Add(int64(len(e.queue)))
	})
	return err
}

func (e *Exporter) shutdownMeters(ctx context.Context) error {
	if e.meters == nil {
		return nil
	}
	return e.meters.Shutdown(ctx)
}

// run drains the queue until Close, then sends what is left.
func (e *Exporter) run() {
	defer e.done.Done()
	for {
		select {
		case r := <-e.queue:
			e.emit(&r)
		case <-e.stop:
			for {
				select {
				case r := <-e.queue:
					e.emit(&r)
				default:
					return
				}
			}
		}
	}
}

// emit sends one record (the SimpleProcessor exports it before Emit
// returns) and counts it.
func (e *Exporter) emit(r *tape.Record) {
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
	line, _ := tape.Encode(r)
	lr.SetBody(attribute.StringValue(tape.Redact(string(line))))
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
	e.logger.Emit(ctx, lr)
	if e.counter != nil && r.Outcome != "" {
		e.counter.Add(ctx, 1, metric.WithAttributes(attribute.String("outcome", string(r.Outcome)), attribute.String("rule", string(r.Rule)),
			attribute.String("agent", agent), attribute.String("tool", r.Tool), attribute.String("verdict", string(r.Verdict))))
	}
}

// counting counts what the collector took and what it did not.
type counting struct {
	inner sdklog.Exporter
	e     *Exporter
}

func (c *counting) Export(ctx context.Context, recs []sdklog.Record) error {
	err := c.inner.Export(ctx, recs)
	if err != nil {
		c.e.failed.Add(int64(len(recs)))
		msg := err.Error()
		c.e.lastErr.Store(&msg)
		c.e.cfg.Logger.Warn("decisions not exported", "records", len(recs), "err", err)
		return nil // counted and logged here; the SDK's global handler would print it again
	}
	c.e.sent.Add(int64(len(recs)))
	return nil
}

func (c *counting) Shutdown(ctx context.Context) error   { return c.inner.Shutdown(ctx) }
func (c *counting) ForceFlush(ctx context.Context) error { return c.inner.ForceFlush(ctx) }

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
