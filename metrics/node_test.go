package metrics_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bradfitz/gomemcache/memcache"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/redis/go-redis/v9"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/node"
	"github.com/tandemkv/tandem/node/nodetest"
)

// tandem is a running node with both ports and the metrics endpoint.
type tandem struct {
	n                   *node.Node
	port, mport, mxPort int
	dir                 string
}

var freePort = nodetest.FreePort

// startTandem runs a node as the binary does; extra are more --directive
// value arguments.
func startTandem(t testing.TB, extra ...string) *tandem {
	t.Helper()
	td := &tandem{port: freePort(t), mport: freePort(t), mxPort: freePort(t), dir: t.TempDir()}
	args := []string{"--port", strconv.Itoa(td.port), "--memcached-port", strconv.Itoa(td.mport),
		"--metrics-port", strconv.Itoa(td.mxPort), "--save", "", "--dir", td.dir, "--maxmemory", "64mb"}
	td.n = nodetest.Start(t, append(args, extra...), nil)
	return td
}

func (td *tandem) url(path string) string {
	return "http://127.0.0.1:" + strconv.Itoa(td.mxPort) + path
}

// get fetches path with the Authorization header auth ("" for none).
func (td *tandem) get(t testing.TB, path, auth string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", td.url(path), nil)
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, b
}

// scrape fetches and parses /metrics.
func (td *tandem) scrape(t testing.TB, auth string) map[string]*dto.MetricFamily {
	t.Helper()
	code, body := td.get(t, "/metrics", auth)
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d %s", code, body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return fams
}

// lookup is the value of the series of family name with exactly labels
// (name=value pairs), and whether there is one.
func lookup(fams map[string]*dto.MetricFamily, name string, labels ...string) (float64, bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.Metric {
		if len(m.Label) != len(labels)/2 {
			continue
		}
		for i := 0; i < len(labels); i += 2 {
			found := false
			for _, l := range m.Label {
				if l.GetName() == labels[i] && l.GetValue() == labels[i+1] {
					found = true
				}
			}
			if !found {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Untyped != nil:
			return m.Untyped.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true // a histogram's value here is its count
		}
	}
	return 0, false
}

// value is lookup's value; it fails t when there is no such series.
func value(t testing.TB, fams map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	t.Helper()
	v, ok := lookup(fams, name, labels...)
	if !ok {
		t.Fatalf("no series %s%v", name, labels)
	}
	return v
}

// TestScrapeMovesWithTraffic runs commands on both ports and checks the
// series they move, by name, labels and type.
func TestScrapeMovesWithTraffic(t *testing.T) {
	td := startTandem(t)
	ctx := context.Background()
	rc := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(td.port), Protocol: 2})
	defer rc.Close()
	if err := rc.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	before := td.scrape(t, "")

	const n = 7
	for i := 0; i < n; i++ {
		if err := rc.Set(ctx, "k"+strconv.Itoa(i), "v", time.Hour).Err(); err != nil {
			t.Fatal(err)
		}
	}
	rc.Set(ctx, "plain", "v", 0)
	rc.Get(ctx, "k0")
	rc.Get(ctx, "missing")
	if err := rc.LPush(ctx, "k1", "x").Err(); err == nil { // WRONGTYPE: a failed call
		t.Fatal("LPUSH on a string succeeded")
	}
	rc.Do(ctx, "get") // wrong arity: rejected
	rc.Publish(ctx, "ch", "hello")

	mc := memcache.New("127.0.0.1:" + strconv.Itoa(td.mport))
	for i := 0; i < n; i++ {
		if err := mc.Set(&memcache.Item{Key: "m" + strconv.Itoa(i), Value: []byte("v")}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := mc.Get("m0"); err != nil {
		t.Fatal(err)
	}
	if _, err := mc.Get("nope"); err != memcache.ErrCacheMiss {
		t.Fatalf("get of a missing key: %v", err)
	}
	after := td.scrape(t, "")

	// delta is how far a series moved; a command never called has no
	// series before its first call.
	delta := func(name string, labels ...string) float64 {
		t.Helper()
		b, _ := lookup(before, name, labels...)
		return value(t, after, name, labels...) - b
	}
	check := func(what string, got, want float64) {
		t.Helper()
		if got != want {
			t.Errorf("%s: %v, want %v", what, got, want)
		}
	}
	check("resp set calls", delta("tandem_commands_total", "protocol", "resp", "command", "set"), n+1)
	check("resp get calls", delta("tandem_commands_total", "protocol", "resp", "command", "get"), 2)
	check("resp lpush failed", delta("tandem_commands_failed_total", "protocol", "resp", "command", "lpush"), 1)
	check("resp get rejected", delta("tandem_commands_rejected_total", "protocol", "resp", "command", "get"), 1)
	check("memcached set", delta("tandem_commands_total", "protocol", "memcached", "command", "set"), n)
	check("memcached get", delta("tandem_commands_total", "protocol", "memcached", "command", "get"), 2)
	check("memcached get hits", delta("tandem_memcached_hits_total", "command", "get"), 1)
	check("memcached get misses", delta("tandem_memcached_misses_total", "command", "get"), 1)
	check("pubsub published", delta("tandem_pubsub_messages_published_total"), 1)
	check("resp set latency count", delta("tandem_command_latency_seconds", "protocol", "resp", "command", "set"), n+1)
	check("memcached set latency count", delta("tandem_command_latency_seconds", "protocol", "memcached", "command", "set"), n)
	check("keys db0", value(t, after, "tandem_keys", "db", "0"), 2*n+1)
	check("expiring db0", value(t, after, "tandem_keys_expiring", "db", "0"), n)
	check("keys db1", value(t, after, "tandem_keys", "db", "1"), 0)
	check("resp connections", value(t, after, "tandem_connections", "protocol", "resp"), 1)
	check("no TLS connections", value(t, after, "tandem_tls_connections", "protocol", "resp"), 0)
	if d := delta("tandem_keyspace_hits_total"); d < 2 { // GET k0 and memcached get m0, at least
		t.Errorf("keyspace hits moved by %v", d)
	}
	if d := delta("tandem_keyspace_misses_total"); d < 2 {
		t.Errorf("keyspace misses moved by %v", d)
	}
	if d := delta("tandem_error_replies_total", "protocol", "resp"); d != 2 {
		t.Errorf("resp error replies moved by %v, want 2", d)
	}
	if v := value(t, after, "tandem_memory_used_bytes"); v <= value(t, before, "tandem_memory_used_bytes") {
		t.Errorf("used memory did not grow: %v", v)
	}
	check("maxmemory", value(t, after, "tandem_memory_max_bytes"), 64<<20)
	check("policy", value(t, after, "tandem_maxmemory_policy_info", "policy", "allkeys-s3fifo"), 1)
	check("evicted by the policy in force", value(t, after, "tandem_evicted_keys_total", "policy", "allkeys-s3fifo"), 0)
	if value(t, after, "tandem_connections", "protocol", "memcached") < 1 {
		t.Error("no memcached connection counted")
	}
	for name, typ := range map[string]dto.MetricType{
		"tandem_commands_total": dto.MetricType_COUNTER, "tandem_keys": dto.MetricType_GAUGE,
		"tandem_command_duration_seconds_total": dto.MetricType_COUNTER,
		"tandem_command_latency_seconds":        dto.MetricType_HISTOGRAM,
		"go_goroutines":                         dto.MetricType_GAUGE, "go_gc_duration_seconds": dto.MetricType_SUMMARY,
		"process_resident_memory_bytes": dto.MetricType_GAUGE, "tandem_rdb_last_bgsave_success": dto.MetricType_GAUGE,
	} {
		if f := after[name]; f == nil || f.GetType() != typ {
			t.Errorf("%s: family %v, want type %v", name, f, typ)
		}
	}
	for name := range after {
		if !strings.HasPrefix(name, "tandem_") && !strings.HasPrefix(name, "go_") && !strings.HasPrefix(name, "process_") &&
			name != "promhttp_metric_handler_errors_total" {
			t.Errorf("family %s outside tandem_, go_, process_ and promhttp's own", name)
		}
	}
	if code, body := td.get(t, "/healthz", ""); code != http.StatusOK || string(body) != "ok\n" {
		t.Errorf("/healthz: %d %q", code, body)
	}
}

// TestPromtoolCheckMetrics: promtool, Prometheus's own linter, finds
// nothing to say about a scrape that has every family populated.
func TestPromtoolCheckMetrics(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatal("promtool not found on PATH: apt-get install prometheus (scripts/test.sh does); this test fails, it never skips")
	}
	td := startTandem(t)
	ctx := context.Background()
	rc := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(td.port), Protocol: 2})
	defer rc.Close()
	rc.Set(ctx, "a", "1", time.Minute)
	rc.Get(ctx, "a")
	rc.Incr(ctx, "a")
	mc := memcache.New("127.0.0.1:" + strconv.Itoa(td.mport))
	_ = mc.Set(&memcache.Item{Key: "b", Value: []byte("2")})
	_, body := td.get(t, "/metrics", "")
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(body)
	out, err := cmd.CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) != 0 {
		t.Fatalf("promtool check metrics: %v\n%s", err, out)
	}
}

// TestMetricsPassword: /metrics wants the password as a bearer token or a
// basic-auth password; /healthz answers without it.
func TestMetricsPassword(t *testing.T) {
	td := startTandem(t, "--metrics-password", "s3cret")
	basic := func(user, pass string) string {
		req, _ := http.NewRequest("GET", "/", nil)
		req.SetBasicAuth(user, pass)
		return req.Header.Get("Authorization")
	}
	for _, c := range []struct {
		auth string
		want int
	}{
		{"", http.StatusUnauthorized},
		{"Bearer wrong", http.StatusUnauthorized},
		{"Bearer s3cre", http.StatusUnauthorized},
		{"Bearer s3cret", http.StatusOK},
		{"bearer s3cret", http.StatusOK},
		{basic("prometheus", "s3cret"), http.StatusOK},
		{basic("s3cret", ""), http.StatusUnauthorized},
		{"Token s3cret", http.StatusUnauthorized},
	} {
		if code, _ := td.get(t, "/metrics", c.auth); code != c.want {
			t.Errorf("Authorization %q: %d, want %d", c.auth, code, c.want)
		}
	}
	if code, _ := td.get(t, "/healthz", ""); code != http.StatusOK {
		t.Errorf("/healthz without credentials: %d", code)
	}
}

// TestHealthzMisconf: after a failed BGSAVE with save rules and
// stop-writes-on-bgsave-error, /healthz answers 503 with the reason.
func TestHealthzMisconf(t *testing.T) {
	td := startTandem(t, "--save", "3600 1")
	ctx := context.Background()
	rc := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(td.port), Protocol: 2})
	defer rc.Close()
	rc.Set(ctx, "k", "v", 0)
	// The data directory becomes a file: the save cannot create its
	// temporary dump there.
	if err := os.RemoveAll(td.dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(td.dir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Remove(td.dir) })
	rc.BgSave(ctx)
	var code int
	var body []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if code, body = td.get(t, "/healthz", ""); code != http.StatusOK {
			break
		}
	}
	if code != http.StatusServiceUnavailable || !strings.HasPrefix(string(body), "MISCONF") {
		t.Fatalf("/healthz after a failed BGSAVE: %d %q", code, body)
	}
	fams := td.scrape(t, "")
	if v := value(t, fams, "tandem_rdb_last_bgsave_success"); v != 0 {
		t.Errorf("tandem_rdb_last_bgsave_success %v after a failed BGSAVE", v)
	}
}

// TestExposedWithoutPasswordRefusesStart: a metrics port beyond loopback
// with requirepass set and no metrics-password stops start-up.
func TestExposedWithoutPasswordRefusesStart(t *testing.T) {
	cfg, err := conf.Load([]string{"--port", strconv.Itoa(freePort(t)), "--memcached-port", "0",
		"--metrics-port", strconv.Itoa(freePort(t)), "--metrics-bind", "0.0.0.0", "--requirepass", "pw",
		"--save", "", "--dir", t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	n := node.New(node.Options{Config: cfg, Logger: slog.New(slog.NewTextHandler(&log, nil)),
		Environ: []string{"GOGC=100", "GOMEMLIMIT=4GiB"}})
	done := make(chan int, 1)
	go func() { done <- n.Run(make(chan os.Signal)) }()
	select {
	case code := <-done:
		if code != 1 || !strings.Contains(log.String(), "metrics-password") {
			t.Fatalf("Run exited %d; log:\n%s", code, log.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not refuse to start")
	}
}
