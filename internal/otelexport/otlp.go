package otelexport

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
)

// The SDK's OTLP exporters (otlploghttp, otlpmetrichttp) link grpc and
// protobuf into every admit process, export or not, and their package
// initialisation is most of a hook's start-up (docs/teams.md). So the
// SDK's records and metrics go out through this file instead: OTLP/HTTP
// with its JSON encoding (which every OTLP/HTTP receiver takes), and the
// same OTEL_EXPORTER_OTLP_* variables.

// signal is where one kind of data goes: logs or metrics.
type signal struct {
	url      string
	headers  map[string]string
	timeout  time.Duration
	compress bool
	client   *http.Client
}

// newSignal resolves a signal's endpoint, headers, timeout, compression
// and TLS from the configuration and the standard variables (the
// signal's own first, then the general one). path is "/v1/logs" or
// "/v1/metrics", name "LOGS" or "METRICS".
func newSignal(cfg Config, name, path string, getenv func(string) string) (*signal, error) {
	env := func(key string) (string, string) {
		for _, k := range []string{"OTEL_EXPORTER_OTLP_" + name + "_" + key, "OTEL_EXPORTER_OTLP_" + key} {
			if v := strings.TrimSpace(getenv(k)); v != "" {
				return k, v
			}
		}
		return "", ""
	}
	s := &signal{headers: map[string]string{}, timeout: 10 * time.Second}
	switch k, v := env("ENDPOINT"); {
	case cfg.Endpoint != "":
		s.url = strings.TrimRight(cfg.Endpoint, "/") + path
	case k == "OTEL_EXPORTER_OTLP_"+name+"_ENDPOINT":
		s.url = v // the signal's own endpoint is used as it is
	case v != "":
		s.url = strings.TrimRight(v, "/") + path
	default:
		s.url = "https://localhost:4318" + path
	}
	u, err := url.Parse(s.url)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("otlp %s endpoint %q: want an http:// or https:// URL", strings.ToLower(name), s.url)
	}
	if k, v := env("HEADERS"); v != "" {
		for _, kv := range strings.Split(v, ",") {
			key, val, ok := strings.Cut(kv, "=")
			key, kerr := url.QueryUnescape(strings.TrimSpace(key))
			val, verr := url.QueryUnescape(strings.TrimSpace(val))
			if !ok || key == "" || kerr != nil || verr != nil {
				return nil, fmt.Errorf("%s: want key=value pairs separated by commas, got %q", k, v)
			}
			s.headers[key] = val
		}
	}
	for k, v := range cfg.Headers {
		s.headers[k] = v
	}
	if k, v := env("TIMEOUT"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms <= 0 {
			return nil, fmt.Errorf("%s: want a positive number of milliseconds, got %q", k, v)
		}
		s.timeout = time.Duration(ms) * time.Millisecond
	}
	switch k, v := env("COMPRESSION"); v {
	case "", "none":
	case "gzip":
		s.compress = true
	default:
		return nil, fmt.Errorf("%s: want gzip or none, got %q", k, v)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if tr.TLSClientConfig, err = tlsConfig(env); err != nil {
		return nil, err
	}
	s.client = &http.Client{Transport: tr}
	return s, nil
}

// tlsConfig reads the certificate variables: a CA file to trust, and a
// client certificate with its key.
func tlsConfig(env func(string) (string, string)) (*tls.Config, error) {
	c := &tls.Config{MinVersion: tls.VersionTLS12}
	if k, v := env("CERTIFICATE"); v != "" {
		pem, err := os.ReadFile(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		c.RootCAs = x509.NewCertPool()
		if !c.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s: %s holds no PEM certificate", k, v)
		}
	}
	kc, cert := env("CLIENT_CERTIFICATE")
	kk, key := env("CLIENT_KEY")
	switch {
	case cert != "" && key != "":
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("%s and %s: %w", kc, kk, err)
		}
		c.Certificates = []tls.Certificate{pair}
	case cert != "" || key != "":
		return nil, errors.New("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and OTEL_EXPORTER_OTLP_CLIENT_KEY go together")
	}
	return c, nil
}

// post sends one OTLP/JSON request; anything but a 2xx answer is an error
// that says what the receiver answered.
func (s *signal) post(ctx context.Context, body []byte) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	if s.compress {
		var z bytes.Buffer
		w := gzip.NewWriter(&z)
		w.Write(body)
		w.Close()
		body = z.Bytes()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "admit-otlp-json")
	if s.compress {
		req.Header.Set("Content-Encoding", "gzip")
	}
	for k, v := range s.headers {
		req.Header.Set(k, v)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s: %s: %s", s.url, resp.Status, bytes.TrimSpace(msg))
	}
	return nil
}

// logsOut is the logs exporter: sdklog.Exporter over OTLP/HTTP JSON.
type logsOut struct{ s *signal }

func (l logsOut) Export(ctx context.Context, recs []sdklog.Record) error {
	if len(recs) == 0 {
		return nil
	}
	return l.s.post(ctx, encodeLogs(recs))
}
func (l logsOut) Shutdown(context.Context) error   { l.s.client.CloseIdleConnections(); return nil }
func (l logsOut) ForceFlush(context.Context) error { return nil }

// metricsOut is the metrics exporter: sdkmetric.Exporter over OTLP/HTTP
// JSON, for the sums admit counts with (other kinds are not sent).
type metricsOut struct{ s *signal }

func (metricsOut) Temporality(k sdkmetric.InstrumentKind) metricdata.Temporality {
	return sdkmetric.DefaultTemporalitySelector(k)
}
func (metricsOut) Aggregation(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
	return sdkmetric.DefaultAggregationSelector(k)
}
func (m metricsOut) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	body, n := encodeMetrics(rm)
	if n == 0 {
		return nil
	}
	return m.s.post(ctx, body)
}
func (m metricsOut) ForceFlush(context.Context) error { return nil }
func (m metricsOut) Shutdown(context.Context) error   { m.s.client.CloseIdleConnections(); return nil }

// The OTLP JSON shapes (opentelemetry-proto's JSON mapping: 64-bit
// integers and times as strings, enums as numbers, ids in hex).
type (
	jsonKV struct {
		Key   string    `json:"key"`
		Value jsonValue `json:"value"`
	}
	jsonValue struct {
		String *string     `json:"stringValue,omitempty"`
		Bool   *bool       `json:"boolValue,omitempty"`
		Int    *string     `json:"intValue,omitempty"`
		Double *float64    `json:"doubleValue,omitempty"`
		Bytes  *string     `json:"bytesValue,omitempty"`
		Array  *jsonValues `json:"arrayValue,omitempty"`
		KVList *jsonKVList `json:"kvlistValue,omitempty"`
	}
	jsonValues struct {
		Values []jsonValue `json:"values"`
	}
	jsonKVList struct {
		Values []jsonKV `json:"values"`
	}
	jsonResource struct {
		Attributes []jsonKV `json:"attributes,omitempty"`
	}
	jsonScope struct {
		Name    string `json:"name,omitempty"`
		Version string `json:"version,omitempty"`
	}
)

func value(v attribute.Value) jsonValue {
	var j jsonValue
	switch v.Type() {
	case attribute.STRING:
		s := v.AsString()
		j.String = &s
	case attribute.BOOL:
		b := v.AsBool()
		j.Bool = &b
	case attribute.INT64:
		s := strconv.FormatInt(v.AsInt64(), 10)
		j.Int = &s
	case attribute.FLOAT64:
		f := v.AsFloat64()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			s := strconv.FormatFloat(f, 'g', -1, 64) // JSON has no number for it
			j.String = &s
		} else {
			j.Double = &f
		}
	case attribute.BYTESLICE:
		s := base64.StdEncoding.EncodeToString(v.AsByteSlice())
		j.Bytes = &s
	case attribute.BOOLSLICE, attribute.INT64SLICE, attribute.FLOAT64SLICE, attribute.STRINGSLICE, attribute.SLICE:
		var vs []jsonValue
		switch v.Type() {
		case attribute.BOOLSLICE:
			for _, b := range v.AsBoolSlice() {
				vs = append(vs, value(attribute.BoolValue(b)))
			}
		case attribute.INT64SLICE:
			for _, n := range v.AsInt64Slice() {
				vs = append(vs, value(attribute.Int64Value(n)))
			}
		case attribute.FLOAT64SLICE:
			for _, f := range v.AsFloat64Slice() {
				vs = append(vs, value(attribute.Float64Value(f)))
			}
		case attribute.STRINGSLICE:
			for _, s := range v.AsStringSlice() {
				vs = append(vs, value(attribute.StringValue(s)))
			}
		default:
			for _, e := range v.AsSlice() {
				vs = append(vs, value(e))
			}
		}
		j.Array = &jsonValues{Values: vs}
	case attribute.MAP:
		j.KVList = &jsonKVList{Values: kvs(v.AsMap())}
	case attribute.EMPTY:
	default:
		s := v.Emit()
		j.String = &s
	}
	return j
}

func kvs(in []attribute.KeyValue) []jsonKV {
	out := make([]jsonKV, 0, len(in))
	for _, kv := range in {
		out = append(out, jsonKV{Key: string(kv.Key), Value: value(kv.Value)})
	}
	return out
}

func res(r *resource.Resource) jsonResource {
	if r == nil {
		return jsonResource{}
	}
	return jsonResource{Attributes: kvs(r.Attributes())}
}

func nanos(t time.Time) string {
	if t.IsZero() {
		return "0"
	}
	return strconv.FormatInt(t.UnixNano(), 10)
}

type jsonLogRecord struct {
	Time       string     `json:"timeUnixNano"`
	Observed   string     `json:"observedTimeUnixNano"`
	Severity   int        `json:"severityNumber,omitempty"`
	SevText    string     `json:"severityText,omitempty"`
	Body       *jsonValue `json:"body,omitempty"`
	Attributes []jsonKV   `json:"attributes,omitempty"`
	Dropped    int        `json:"droppedAttributesCount,omitempty"`
	Flags      uint32     `json:"flags,omitempty"`
	TraceID    string     `json:"traceId,omitempty"`
	SpanID     string     `json:"spanId,omitempty"`
	EventName  string     `json:"eventName,omitempty"`
}

// encodeLogs is an ExportLogsServiceRequest in OTLP JSON, records grouped
// by resource and scope in the order they came.
func encodeLogs(recs []sdklog.Record) []byte {
	type scopeLogs struct {
		Scope      jsonScope       `json:"scope"`
		LogRecords []jsonLogRecord `json:"logRecords"`
	}
	type resourceLogs struct {
		Resource  jsonResource `json:"resource"`
		ScopeLogs []*scopeLogs `json:"scopeLogs"`
		res       *resource.Resource
	}
	var out []*resourceLogs
	for i := range recs {
		r := &recs[i]
		var rl *resourceLogs
		for _, x := range out {
			if x.res == r.Resource() || x.res != nil && r.Resource() != nil && x.res.Equal(r.Resource()) {
				rl = x
			}
		}
		if rl == nil {
			rl = &resourceLogs{Resource: res(r.Resource()), res: r.Resource()}
			out = append(out, rl)
		}
		sc := r.InstrumentationScope()
		var sl *scopeLogs
		for _, x := range rl.ScopeLogs {
			if x.Scope.Name == sc.Name && x.Scope.Version == sc.Version {
				sl = x
			}
		}
		if sl == nil {
			sl = &scopeLogs{Scope: jsonScope{Name: sc.Name, Version: sc.Version}}
			rl.ScopeLogs = append(rl.ScopeLogs, sl)
		}
		lr := jsonLogRecord{Time: nanos(r.Timestamp()), Observed: nanos(r.ObservedTimestamp()), Severity: int(r.Severity()),
			SevText: r.SeverityText(), Dropped: r.DroppedAttributes(), Flags: uint32(r.TraceFlags()), EventName: r.EventName()}
		if b := r.Body(); b.Type() != attribute.EMPTY {
			v := value(b)
			lr.Body = &v
		}
		r.WalkAttributes(func(kv attribute.KeyValue) bool {
			lr.Attributes = append(lr.Attributes, jsonKV{Key: string(kv.Key), Value: value(kv.Value)})
			return true
		})
		if id := r.TraceID(); id.IsValid() {
			lr.TraceID = hex.EncodeToString(id[:])
		}
		if id := r.SpanID(); id.IsValid() {
			lr.SpanID = hex.EncodeToString(id[:])
		}
		sl.LogRecords = append(sl.LogRecords, lr)
	}
	b, _ := json.Marshal(struct {
		ResourceLogs []*resourceLogs `json:"resourceLogs"`
	}{out})
	return b
}

// encodeMetrics is an ExportMetricsServiceRequest in OTLP JSON with the
// integer and float sums of rm (admit records nothing else), and how many
// metrics it holds.
func encodeMetrics(rm *metricdata.ResourceMetrics) ([]byte, int) {
	type point struct {
		Attributes []jsonKV `json:"attributes,omitempty"`
		Start      string   `json:"startTimeUnixNano"`
		Time       string   `json:"timeUnixNano"`
		AsInt      *string  `json:"asInt,omitempty"`
		AsDouble   *float64 `json:"asDouble,omitempty"`
	}
	type sum struct {
		DataPoints  []point `json:"dataPoints"`
		Temporality int     `json:"aggregationTemporality"`
		Monotonic   bool    `json:"isMonotonic"`
	}
	type metric struct {
		Name        string `json:"name"`
		Description string `json:"description,omitempty"`
		Unit        string `json:"unit,omitempty"`
		Sum         *sum   `json:"sum"`
	}
	type scopeMetrics struct {
		Scope   jsonScope `json:"scope"`
		Metrics []metric  `json:"metrics"`
	}
	temporality := func(t metricdata.Temporality) int {
		switch t {
		case metricdata.DeltaTemporality:
			return 1
		case metricdata.CumulativeTemporality:
			return 2
		}
		return 0
	}
	var scopes []scopeMetrics
	n := 0
	for _, sm := range rm.ScopeMetrics {
		s := scopeMetrics{Scope: jsonScope{Name: sm.Scope.Name, Version: sm.Scope.Version}}
		for _, m := range sm.Metrics {
			out := metric{Name: m.Name, Description: m.Description, Unit: m.Unit}
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				out.Sum = &sum{Temporality: temporality(d.Temporality), Monotonic: d.IsMonotonic}
				for _, p := range d.DataPoints {
					n := strconv.FormatInt(p.Value, 10)
					out.Sum.DataPoints = append(out.Sum.DataPoints, point{Attributes: kvs(p.Attributes.ToSlice()), Start: nanos(p.StartTime), Time: nanos(p.Time), AsInt: &n})
				}
			case metricdata.Sum[float64]:
				out.Sum = &sum{Temporality: temporality(d.Temporality), Monotonic: d.IsMonotonic}
				for _, p := range d.DataPoints {
					f := p.Value
					out.Sum.DataPoints = append(out.Sum.DataPoints, point{Attributes: kvs(p.Attributes.ToSlice()), Start: nanos(p.StartTime), Time: nanos(p.Time), AsDouble: &f})
				}
			default:
				continue
			}
			s.Metrics = append(s.Metrics, out)
			n++
		}
		if len(s.Metrics) > 0 {
			scopes = append(scopes, s)
		}
	}
	type resourceMetrics struct {
		Resource     jsonResource   `json:"resource"`
		ScopeMetrics []scopeMetrics `json:"scopeMetrics"`
	}
	var all []resourceMetrics
	if len(scopes) > 0 {
		all = append(all, resourceMetrics{Resource: res(rm.Resource), ScopeMetrics: scopes})
	}
	b, _ := json.Marshal(struct {
		ResourceMetrics []resourceMetrics `json:"resourceMetrics"`
	}{all})
	return b, n
}
