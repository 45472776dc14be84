package compat

import (
	"bufio"
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRedisExporterSeries: Debian's prometheus-redis-exporter, the one
// most Redis dashboards read, scraping redis-server and Tandem after the
// same commands: every metric family it makes of redis-server it makes of
// Tandem, with at least as many series, and its log against Tandem has
// no error or warning (an unknown command it sends, a field it cannot
// parse).
func TestRedisExporterSeries(t *testing.T) {
	bin, err := exec.LookPath("prometheus-redis-exporter")
	if err != nil {
		t.Fatalf("prometheus-redis-exporter (Debian's package, installed by scripts/test.sh): %v", err)
	}
	load := mbs("CONFIG SET slowlog-log-slower-than 0", "CONFIG SET latency-monitor-threshold 1",
		"SET s 1", "GET s", "GET missing", "HSET h f v", "LPUSH l a b", "SADD st x", "ZADD z 1 m",
		"XADD x * f v", "PFADD hll a", "EXPIRE s 1000", "DEBUG SLEEP 0.002", "SELECT 1", "SET other 1",
		"CONFIG SET slowlog-log-slower-than 10000", "CONFIG SET latency-monitor-threshold 0")
	scrape := func(name, addr string) (fams map[string]int, log string) {
		t.Helper()
		if err := flushRedis(addr); err != nil {
			t.Fatal(err)
		}
		for _, c := range []string{"LATENCY RESET", "SLOWLOG RESET", "CONFIG RESETSTAT"} {
			if _, err := controlFor(addr).roundTrip(cmd(strings.Fields(c)...)); err != nil {
				t.Fatal(err)
			}
		}
		playRedis(addr, redisCase{name: "exporter load", cmds: load}, 2, oneByOne, 1)
		ports, err := freePorts(1)
		if err != nil {
			t.Fatal(err)
		}
		logFile := filepath.Join(t.TempDir(), name+".log")
		lf, err := os.Create(logFile)
		if err != nil {
			t.Fatal(err)
		}
		defer lf.Close()
		listen := "127.0.0.1:" + strconv.Itoa(ports[0])
		ex := exec.Command(bin, "--redis.addr", "redis://"+addr, "--web.listen-address", listen)
		ex.Stdout, ex.Stderr = lf, lf
		if err := ex.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { ex.Process.Kill(); ex.Wait() }()
		var body []byte
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			res, err := http.Get("http://" + listen + "/metrics")
			if err == nil {
				var b bytes.Buffer
				_, err = b.ReadFrom(res.Body)
				res.Body.Close()
				if err == nil && res.StatusCode == http.StatusOK {
					body = b.Bytes()
					break
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("the exporter against %s serves no metrics: %v", name, err)
			}
		}
		fams = map[string]int{}
		sc := bufio.NewScanner(bytes.NewReader(body))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if !strings.HasPrefix(line, "redis_") {
				continue
			}
			fams[strings.FieldsFunc(line, func(r rune) bool { return r == '{' || r == ' ' })[0]]++
		}
		logged, _ := os.ReadFile(logFile)
		return fams, string(logged)
	}
	ref, _ := scrape("redis-server", refRedis)
	sut, sutLog := scrape("tandem", sutRedis)
	refN, sutN := 0, 0
	for f, n := range ref {
		refN += n
		if sut[f] == 0 {
			t.Errorf("family %s (%d series from redis-server) missing from Tandem's", f, n)
		}
	}
	for _, n := range sut {
		sutN += n
	}
	if sutN < refN {
		t.Errorf("Tandem: %d series, redis-server %d", sutN, refN)
	}
	if refN < 150 {
		t.Errorf("redis-server gave only %d series: the exporter did not read it", refN)
	}
	if up := sut["redis_up"]; up != 1 {
		t.Errorf("redis_up series for Tandem: %d", up)
	}
	for _, l := range strings.Split(sutLog, "\n") {
		if strings.Contains(l, "level=error") || strings.Contains(l, "level=warn") || strings.Contains(l, "ERR ") {
			t.Errorf("exporter log against Tandem: %s", l)
		}
	}
	t.Logf("series: redis-server %d, Tandem %d", refN, sutN)
}
