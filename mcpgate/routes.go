package mcpgate

import (
	"encoding/json"
	"strings"

	"admit/internal/mcpwire"
)

// methodToolPrefix starts the tool name a method other than tools/call is
// judged as: mcp:resources/read, mcp:sampling/createMessage. MCP tool
// names have no colon, so no server's tool can be one of these.
const methodToolPrefix = "mcp:"

// routeKind says how the gateway treats a request.
type routeKind int

const (
	pass     routeKind = iota // the lifecycle: relayed without a decision
	decided                   // judged as mcp:METHOD, which every session grants
	asks                      // judged as mcp:METHOD, which always asks a person
	toolCall                  // tools/call: judged as the tool it names
	unknown                   // judged as mcp:METHOD, which nothing grants: refused
)

// clientRoutes are the requests a client sends a server (MCP 2025-06-18).
// Only initialize and ping carry nothing to judge; listing is judged too,
// so the tape shows everything the client learnt.
var clientRoutes = map[string]routeKind{
	"initialize":               pass,
	"ping":                     pass,
	"tools/call":               toolCall,
	"tools/list":               decided,
	"resources/list":           decided,
	"resources/templates/list": decided,
	"resources/read":           decided,
	"resources/subscribe":      decided,
	"resources/unsubscribe":    decided,
	"prompts/list":             decided,
	"prompts/get":              decided,
	"completion/complete":      decided,
	"logging/setLevel":         decided,
}

// serverRoutes are the requests a server sends its client: sampling and
// elicitation make the client's model or person act on the server's
// behalf, so a person says yes first.
var serverRoutes = map[string]routeKind{
	"ping":                   pass,
	"roots/list":             decided,
	"sampling/createMessage": asks,
	"elicitation/create":     asks,
}

// route is how one request is judged.
type route struct {
	kind   routeKind
	method string // as the tables spell it; as sent (trimmed) for an unknown one
}

// routeOf finds a method's route. Methods are matched without case and
// surrounding space, as a lenient server would read them, so a spelling
// cannot slip a request past its judgment.
func routeOf(from side, method string) route {
	table := clientRoutes
	if from == fromServer {
		table = serverRoutes
	}
	m := strings.TrimSpace(method)
	for name, kind := range table {
		if strings.EqualFold(name, m) {
			return route{kind, name}
		}
	}
	return route{unknown, m}
}

// methodTools are the tool names of the methods the gateway's session
// grants, and those of them that always ask a person.
func methodTools() (granted, ask []string) {
	for _, table := range []map[string]routeKind{clientRoutes, serverRoutes} {
		for name, kind := range table {
			switch kind {
			case decided:
				granted = append(granted, methodToolPrefix+name)
			case asks:
				granted = append(granted, methodToolPrefix+name)
				ask = append(ask, methodToolPrefix+name)
			}
		}
	}
	return granted, ask
}

// judged is the tool and arguments a request is decided as, or the error
// that answers a request whose params cannot be judged.
func (r route) judged(params json.RawMessage) (string, json.RawMessage, *mcpwire.Error) {
	switch r.kind {
	case toolCall:
		var p map[string]json.RawMessage
		var name string
		if json.Unmarshal(params, &p) != nil || json.Unmarshal(p["name"], &name) != nil || strings.TrimSpace(name) == "" {
			return "", nil, &mcpwire.Error{Code: mcpwire.InvalidParams, Message: "tools/call: params.name must name a tool"}
		}
		if strings.HasPrefix(strings.ToLower(strings.TrimSpace(name)), methodToolPrefix) {
			// A name in the gateway's own space is no server's tool (the
			// session drops such names): judged under a name nothing grants.
			name = methodToolPrefix + "tools/call/" + name
		}
		return name, p["arguments"], nil
	case decided, asks, unknown:
		tool := methodToolPrefix + r.method
		if strings.HasPrefix(r.method, "resources/") && r.method != "resources/list" && r.method != "resources/templates/list" {
			args, err := resourceArgs(r.method, params)
			return tool, args, err
		}
		return tool, params, nil
	}
	return "", nil, &mcpwire.Error{Code: mcpwire.InvalidRequest, Message: "no route"}
}

// resourceArgs are the arguments a resource request is judged by: a
// file: URI (or a URI with no scheme, which reads as a path) under "uri",
// judged as a path like any tool's; a URI of another scheme under
// "resource", where the session's grant of the method decides (its value
// is still judged if it reads as a path).
func resourceArgs(method string, params json.RawMessage) (json.RawMessage, *mcpwire.Error) {
	var p struct {
		URI *string `json:"uri"`
	}
	if json.Unmarshal(params, &p) != nil || p.URI == nil {
		return nil, &mcpwire.Error{Code: mcpwire.InvalidParams, Message: method + ": params.uri must be a string"}
	}
	key := "resource"
	if u := strings.ToLower(strings.TrimSpace(*p.URI)); strings.HasPrefix(u, "file:") || !hasScheme(u) {
		key = "uri"
	}
	args, _ := json.Marshal(map[string]string{key: *p.URI})
	return args, nil
}

// hasScheme reports whether u starts with an RFC 3986 scheme and a colon.
func hasScheme(u string) bool {
	i := strings.IndexByte(u, ':')
	if i < 1 {
		return false
	}
	for k := 0; k < i; k++ {
		c := u[k]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || k > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return true
}
