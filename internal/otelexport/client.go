package otelexport

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// poster sends one signal's requests (logs or metrics) to its OTLP/HTTP
// endpoint as protobuf.
type poster struct {
	url     string
	headers map[string]string
	timeout time.Duration
	gzip    bool
	client  *http.Client
}

// newPoster reads the signal's endpoint as OTLP's exporter specification
// says: the configured base URL with path added, else
// OTEL_EXPORTER_OTLP_<SIGNAL>_ENDPOINT as it stands, else
// OTEL_EXPORTER_OTLP_ENDPOINT with path added, else localhost:4318;
// headers, timeout, compression and certificates the signal's variable
// first, then the general one. A value that cannot be read is an error
// naming the variable. Proxy variables are not used: an agent may set a
// hook's environment, and it must not be able to route the decisions
// through a host of its choosing.
func newPoster(cfg Config, getenv func(string) string, signal, path string) (*poster, error) {
	env := func(name string) (string, string) {
		specific := "OTEL_EXPORTER_OTLP_" + signal + "_" + name
		if v := getenv(specific); v != "" {
			return specific, v
		}
		general := "OTEL_EXPORTER_OTLP_" + name
		return general, getenv(general)
	}
	p := &poster{timeout: 10 * time.Second, headers: map[string]string{}}
	switch specific := "OTEL_EXPORTER_OTLP_" + signal + "_ENDPOINT"; {
	case cfg.Endpoint != "":
		p.url = strings.TrimRight(cfg.Endpoint, "/") + path
	case getenv(specific) != "":
		p.url = getenv(specific)
	case getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "":
		p.url = strings.TrimRight(getenv("OTEL_EXPORTER_OTLP_ENDPOINT"), "/") + path
	default:
		p.url = "http://localhost:4318" + path
	}
	if u, err := url.Parse(p.url); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("export endpoint %q: want an http:// or https:// URL with a host", p.url)
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_" + signal + "_HEADERS"} {
		if err := parseHeaders(name, getenv(name), p.headers); err != nil {
			return nil, err
		}
	}
	for k, v := range cfg.Headers {
		p.headers[k] = v
	}
	if name, v := env("TIMEOUT"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms <= 0 {
			return nil, fmt.Errorf("%s: want a positive number of milliseconds, got %q", name, v)
		}
		p.timeout = time.Duration(ms) * time.Millisecond
	}
	switch name, v := env("COMPRESSION"); v {
	case "", "none":
	case "gzip":
		p.gzip = true
	default:
		return nil, fmt.Errorf("%s: want gzip or none, got %q", name, v)
	}
	tlsConf, err := tlsConfig(env)
	if err != nil {
		return nil, err
	}
	p.client = &http.Client{Transport: &http.Transport{
		Proxy: nil, TLSClientConfig: tlsConf, ForceAttemptHTTP2: true,
		MaxIdleConns: 2, IdleConnTimeout: 90 * time.Second, TLSHandshakeTimeout: 10 * time.Second,
	}}
	return p, nil
}

// parseHeaders adds the headers of an OTEL_EXPORTER_OTLP_*HEADERS value
// ("key=value,key=value", values percent-encoded) to into.
func parseHeaders(name, value string, into map[string]string) error {
	if value == "" {
		return nil
	}
	for pair := range strings.SplitSeq(value, ",") {
		k, v, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return fmt.Errorf("%s: want key=value pairs separated by commas, got %q", name, pair)
		}
		dv, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("%s: the value of %s: %w", name, k, err)
		}
		into[k] = dv
	}
	return nil
}

// tlsConfig reads the certificate variables: a CA file to trust, and a
// client certificate with its key; nil when none is set.
func tlsConfig(env func(string) (string, string)) (*tls.Config, error) {
	caName, ca := env("CERTIFICATE")
	certName, cert := env("CLIENT_CERTIFICATE")
	keyName, key := env("CLIENT_KEY")
	if ca == "" && cert == "" && key == "" {
		return nil, nil
	}
	c := &tls.Config{MinVersion: tls.VersionTLS12}
	if ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", caName, err)
		}
		c.RootCAs = x509.NewCertPool()
		if !c.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s: no PEM certificate in %s", caName, ca)
		}
	}
	if cert != "" || key != "" {
		if cert == "" || key == "" {
			return nil, fmt.Errorf("%s and %s: set both or neither", certName, keyName)
		}
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("%s, %s: %w", certName, keyName, err)
		}
		c.Certificates = []tls.Certificate{pair}
	}
	return c, nil
}

// post sends one request; any answer but a 2xx is an error.
func (p *poster) post(ctx context.Context, body []byte) error {
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	if p.gzip {
		var z bytes.Buffer
		w := gzip.NewWriter(&z)
		w.Write(body)
		if err := w.Close(); err != nil {
			return err
		}
		body = z.Bytes()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	for k, v := range p.headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("User-Agent", "admit-otlp")
	if p.gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	// Read what the collector says (a partial success, or why not), so
	// the connection can be used again.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("the collector at %s answered %s", p.url, resp.Status)
	}
	return nil
}

func (p *poster) close() { p.client.CloseIdleConnections() }

// resourceAttrs are the attributes every request's resource carries:
// OTEL_RESOURCE_ATTRIBUTES, then host.name, then service.name=admit,
// each later one winning (as the SDK's detectors did). A pair that
// cannot be read is left out, as the SDK left it.
func resourceAttrs(getenv func(string) string) []attr {
	var attrs []attr
	set := func(k, v string) {
		for i := range attrs {
			if attrs[i].key == k {
				attrs[i].str = v
				return
			}
		}
		attrs = append(attrs, stringAttr(k, v))
	}
	for pair := range strings.SplitSeq(getenv("OTEL_RESOURCE_ATTRIBUTES"), ",") {
		k, v, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		dv, err := url.PathUnescape(strings.TrimSpace(v))
		if ok && k != "" && err == nil {
			set(k, dv)
		}
	}
	if host, err := os.Hostname(); err == nil {
		set("host.name", host)
	}
	set("service.name", "admit")
	return attrs
}
