package rpc

import (
	"strconv"

	"github.com/go-json-experiment/json/jsontext"

	"admit/gate"
)

// appendVerdict appends v as JSON, byte for byte what the protocol's
// encoder makes of it (invalid UTF-8 becomes U+FFFD), without reflection:
// every decision is marshalled once, on the read loop, for its
// notification and its reply.
func appendVerdict(b []byte, v *gate.Verdict) []byte {
	str := func(b []byte, key, s string) []byte {
		b = append(b, key...)
		b, _ = jsontext.AppendQuote(b, s) // the error is invalid UTF-8, already replaced
		return b
	}
	b = str(b, `{"id":`, v.ID)
	b = str(b, `,"verdict":`, string(v.Verdict))
	b = append(b, `,"allowed":`...)
	b = strconv.AppendBool(b, v.Allowed)
	b = str(b, `,"mode":`, string(v.Mode))
	b = str(b, `,"rule":`, string(v.Rule))
	b = str(b, `,"reason":`, v.Reason)
	if v.Kind != "" {
		b = str(b, `,"kind":`, v.Kind)
	}
	if len(v.Targets) > 0 {
		b = append(b, `,"targets":[`...)
		for i, t := range v.Targets {
			if i > 0 {
				b = append(b, ',')
			}
			b = str(b, "", t)
		}
		b = append(b, ']')
	}
	for _, f := range [...]struct{ key, val string }{
		{`,"toolError":`, v.ToolError}, {`,"decidedBy":`, string(v.DecidedBy)}, {`,"session":`, v.Session},
		{`,"agent":`, v.Agent}, {`,"tool":`, v.Tool}, {`,"summary":`, v.Summary}, {`,"policyTrust":`, v.PolicyTrust},
		{`,"outcome":`, string(v.Outcome)}, {`,"remedy":`, v.Remedy}, {`,"handle":`, v.Handle},
		{`,"question":`, v.Question},
	} {
		if f.val != "" {
			b = str(b, f.key, f.val)
		}
	}
	if v.WouldAsk {
		b = append(b, `,"wouldAsk":true`...)
	}
	return append(b, '}')
}
