package otelexport_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// collectorBinary is a real OpenTelemetry Collector (testdata/collector:
// the collector's OTLP receiver and contrib's file exporter, in a module
// of its own). Building it takes minutes on a fresh machine, so the
// binary is kept in a cache named by its sources and the Go version:
// $ADMIT_COLLECTOR_CACHE, else the user's cache folder. -short skips
// what needs it when it is not built yet.
func collectorBinary(t testing.TB) string {
	t.Helper()
	src, err := filepath.Abs(filepath.Join("testdata", "collector"))
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	fmt.Fprintln(h, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	for _, name := range []string{"go.mod", "go.sum", "main.go"} {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%s %d\n", name, len(data))
		h.Write(data)
	}
	dir := os.Getenv("ADMIT_COLLECTOR_CACHE")
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			t.Fatalf("no cache folder for the collector (set ADMIT_COLLECTOR_CACHE): %v", err)
		}
		dir = filepath.Join(base, "admit-test-collector")
	}
	bin := filepath.Join(dir, "collector-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	if testing.Short() {
		t.Skipf("the test collector is not built yet (%s); go test without -short builds it once", bin)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := fmt.Sprintf("%s.%d.tmp", bin, os.Getpid())
	start := time.Now()
	cmd := exec.Command(goTool(), "build", "-trimpath", "-buildvcs=false", "-o", tmp, ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		os.Remove(tmp)
		t.Fatalf("building the test collector in %s: %v\n%s", src, err, out)
	}
	if err := os.Rename(tmp, bin); err != nil {
		t.Fatal(err)
	}
	t.Logf("built the test collector in %s (%s)", time.Since(start).Round(time.Second), bin)
	return bin
}

// goTool is the go command of the toolchain running the tests.
func goTool() string {
	if p := filepath.Join(runtime.GOROOT(), "bin", "go"); runtime.GOROOT() != "" {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return "go"
}

// collector is one run of the real collector: OTLP/HTTP on addr, logs
// and metrics written as OTLP JSON lines to its own files.
type collector struct {
	bin, addr, dir string
	cmd            *exec.Cmd
	exited         chan error
	logs, metrics  []string // the files of every run so far
}

func newCollector(t testing.TB) *collector {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return &collector{bin: collectorBinary(t), addr: addr, dir: t.TempDir()}
}

// start runs the collector and waits until its receiver answers. Each
// run writes files of its own, so a restart cannot truncate what the
// previous run wrote.
func (c *collector) start(t testing.TB) {
	t.Helper()
	run := len(c.logs)
	logs := filepath.Join(c.dir, fmt.Sprintf("logs-%d.jsonl", run))
	metrics := filepath.Join(c.dir, fmt.Sprintf("metrics-%d.jsonl", run))
	conf := filepath.Join(c.dir, fmt.Sprintf("config-%d.yaml", run))
	yaml := fmt.Sprintf(`receivers:
  otlp:
    protocols:
      http:
        endpoint: %q
exporters:
  file/logs:
    path: %q
    flush_interval: 100ms
  file/metrics:
    path: %q
    flush_interval: 100ms
service:
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
  pipelines:
    logs:
      receivers: [otlp]
      exporters: [file/logs]
    metrics:
      receivers: [otlp]
      exporters: [file/metrics]
`, c.addr, logs, metrics)
	if err := os.WriteFile(conf, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	c.logs, c.metrics = append(c.logs, logs), append(c.metrics, metrics)
	out, err := os.Create(filepath.Join(c.dir, fmt.Sprintf("collector-%d.log", run)))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	c.cmd = exec.Command(c.bin, "--config", "file:"+conf)
	c.cmd.Stdout, c.cmd.Stderr = out, out
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- c.cmd.Wait() }()
	for deadline := time.Now().Add(60 * time.Second); ; {
		select {
		case err := <-exited:
			data, _ := os.ReadFile(out.Name())
			t.Fatalf("the collector exited: %v\n%s", err, data)
		default:
		}
		if conn, err := net.DialTimeout("tcp", c.addr, time.Second); err == nil {
			conn.Close()
			break
		}
		if time.Now().After(deadline) {
			_ = c.cmd.Process.Kill()
			<-exited
			t.Fatal("the collector did not listen within 60 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.exited = exited
}

// stop ends the collector as its service manager would (SIGTERM), which
// flushes its files, and waits for it.
func (c *collector) stop(t testing.TB) {
	t.Helper()
	if c.cmd == nil {
		return
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.exited:
	case <-time.After(30 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.exited
		t.Error("the collector did not stop within 30 s of SIGTERM")
	}
	c.cmd = nil
}

// exported are the log records the collector wrote, by admit.id, with
// every file's raw text.
func (c *collector) exported(t testing.TB) (ids map[string]int, raw string) {
	t.Helper()
	ids = map[string]int{}
	for _, path := range c.logs {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("the collector's file: %v", err)
		}
		raw += string(data)
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var req otlpLogs
			if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
				t.Fatalf("%s: a line that is not OTLP JSON: %v", path, err)
			}
			for _, rl := range req.ResourceLogs {
				for _, sl := range rl.ScopeLogs {
					for _, lr := range sl.LogRecords {
						for _, a := range lr.Attributes {
							if a.Key == "admit.id" {
								ids[a.Value.StringValue]++
							}
						}
					}
				}
			}
		}
	}
	return ids, raw
}

// otlpLogs is the part of OTLP's JSON encoding of logs the test reads.
type otlpLogs struct {
	ResourceLogs []struct {
		ScopeLogs []struct {
			LogRecords []struct {
				Attributes []struct {
					Key   string `json:"key"`
					Value struct {
						StringValue string `json:"stringValue"`
					} `json:"value"`
				} `json:"attributes"`
			} `json:"logRecords"`
		} `json:"scopeLogs"`
	} `json:"resourceLogs"`
}
