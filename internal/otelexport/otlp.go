package otelexport

import (
	"encoding/binary"
	"time"
)

// The OTLP messages the export sends, in protobuf's wire format, written
// by hand (opentelemetry-proto's logs/v1, metrics/v1, common/v1 and
// resource/v1; the field numbers are theirs). Linking the OpenTelemetry
// SDK and the generated code for these few messages cost every admit
// process, a hook deciding alone included, about 1.5 ms of package
// initialisation and 18 MB of binary (docs/teams.md).

// Protobuf wire types.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
)

func appendTag(b []byte, field, wire int) []byte {
	return binary.AppendUvarint(b, uint64(field)<<3|uint64(wire))
}

func appendVarint(b []byte, field int, v uint64) []byte {
	return binary.AppendUvarint(appendTag(b, field, wireVarint), v)
}

func appendFixed64(b []byte, field int, v uint64) []byte {
	return binary.LittleEndian.AppendUint64(appendTag(b, field, wireFixed64), v)
}

func appendBytes(b []byte, field int, p []byte) []byte {
	b = binary.AppendUvarint(appendTag(b, field, wireBytes), uint64(len(p)))
	return append(b, p...)
}

func appendString(b []byte, field int, s string) []byte {
	b = binary.AppendUvarint(appendTag(b, field, wireBytes), uint64(len(s)))
	return append(b, s...)
}

// appendNonEmpty leaves out an empty string, as proto3 does for a field
// outside a oneof.
func appendNonEmpty(b []byte, field int, s string) []byte {
	if s == "" {
		return b
	}
	return appendString(b, field, s)
}

// attr is an attribute: a key with a string value, or a bool one.
type attr struct {
	key    string
	str    string
	isBool bool
	b      bool
}

func stringAttr(key, value string) attr { return attr{key: key, str: value} }

// appendAnyValue writes an AnyValue; its value is a oneof, so an empty
// string is still written (it says the value is a string).
func appendAnyValue(b []byte, a attr) []byte {
	if a.isBool {
		var v uint64
		if a.b {
			v = 1
		}
		return appendVarint(b, 2, v) // bool_value
	}
	return appendString(b, 1, a.str) // string_value
}

// appendAttrs writes each attribute as a KeyValue in field.
func appendAttrs(b []byte, field int, attrs []attr) []byte {
	var kv, val []byte
	for _, a := range attrs {
		val = appendAnyValue(val[:0], a)
		kv = appendString(kv[:0], 1, a.key)
		kv = appendBytes(kv, 2, val)
		b = appendBytes(b, field, kv)
	}
	return b
}

// unixNano is t as OTLP's fixed64 time, 0 for the zero time.
func unixNano(t time.Time) uint64 {
	if t.IsZero() {
		return 0
	}
	return uint64(t.UnixNano())
}

// Severity numbers (logs/v1 SeverityNumber).
const (
	severityInfo = 9
	severityWarn = 13
)

// logRecord is one LogRecord of a batch.
type logRecord struct {
	time, observed time.Time
	severity       int
	severityText   string
	eventName      string
	body           string
	attrs          []attr
}

func (r *logRecord) appendTo(b []byte) []byte {
	if t := unixNano(r.time); t != 0 {
		b = appendFixed64(b, 1, t)
	}
	b = appendVarint(b, 2, uint64(r.severity))
	b = appendNonEmpty(b, 3, r.severityText)
	b = appendBytes(b, 5, appendAnyValue(nil, stringAttr("", r.body)))
	b = appendAttrs(b, 6, r.attrs)
	if t := unixNano(r.observed); t != 0 {
		b = appendFixed64(b, 11, t)
	}
	return appendNonEmpty(b, 12, r.eventName)
}

// scopeMessage is a ScopeLogs or ScopeMetrics: the InstrumentationScope
// (field 1) and the scope's encoded items (field 2).
func scopeMessage(scope string, items [][]byte) []byte {
	s := appendBytes(nil, 1, appendString(nil, 1, scope)) // InstrumentationScope.name
	for _, it := range items {
		s = appendBytes(s, 2, it)
	}
	return s
}

// logsRequest is an ExportLogsServiceRequest of one resource and one scope
// holding the encoded LogRecords.
func logsRequest(resource []attr, scope string, records [][]byte) []byte {
	rl := appendBytes(nil, 1, appendAttrs(nil, 1, resource)) // ResourceLogs.resource
	rl = appendBytes(rl, 2, scopeMessage(scope, records))    // ResourceLogs.scope_logs
	return appendBytes(nil, 1, rl)                           // resource_logs
}

// point is one cumulative count of a monotonic sum.
type point struct {
	attrs []attr
	count int64
}

// Aggregation temporality (metrics/v1 AggregationTemporality).
const temporalityCumulative = 2

// sumRequest is an ExportMetricsServiceRequest of one monotonic,
// cumulative integer sum, counted since start.
func sumRequest(resource []attr, scope, name, description string, start, now time.Time, points []point) []byte {
	var sum []byte
	for _, p := range points {
		dp := appendAttrs(nil, 7, p.attrs)
		dp = appendFixed64(dp, 2, unixNano(start))
		dp = appendFixed64(dp, 3, unixNano(now))
		dp = appendFixed64(dp, 6, uint64(p.count)) // as_int, sfixed64
		sum = appendBytes(sum, 1, dp)
	}
	sum = appendVarint(sum, 2, temporalityCumulative)
	sum = appendVarint(sum, 3, 1) // is_monotonic
	m := appendString(nil, 1, name)
	m = appendNonEmpty(m, 2, description)
	m = appendBytes(m, 7, sum)
	rm := appendBytes(nil, 1, appendAttrs(nil, 1, resource))  // ResourceMetrics.resource
	rm = appendBytes(rm, 2, scopeMessage(scope, [][]byte{m})) // ResourceMetrics.scope_metrics
	return appendBytes(nil, 1, rm)                            // resource_metrics
}
