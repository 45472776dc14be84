package metrics_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestDashboardNamesExist: every metric name the Grafana dashboard
// queries is a family a running node exposes, so a renamed metric cannot
// leave a panel empty.
func TestDashboardNamesExist(t *testing.T) {
	b, err := os.ReadFile("../deploy/grafana/dashboards/tandem.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatal(err)
	}
	td := startTandem(t)
	// A command, so the per-command families have a series.
	rc := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(td.port), Protocol: 2})
	defer rc.Close()
	if err := rc.Ping(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	fams := td.scrape(t, "")
	name := regexp.MustCompile(`\b(?:tandem|go|process)_[a-z_]+\b`)
	queried := 0
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			for _, m := range name.FindAllString(tg.Expr, -1) {
				queried++
				if fams[m] == nil {
					t.Errorf("panel %q queries %s, which the node does not expose", p.Title, m)
				}
			}
		}
	}
	if queried < 30 {
		t.Errorf("the dashboard queries %d metric names; expected a panel on each family group", queried)
	}
}

// TestPrometheusConfig: promtool accepts deploy/prometheus.yml, its token
// file pointed at a file that exists here (compose mounts the secret).
func TestPrometheusConfig(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatal("promtool not found on PATH: apt-get install prometheus (scripts/test.sh does); this test fails, it never skips")
	}
	b, err := os.ReadFile("../deploy/prometheus.yml")
	if err != nil {
		t.Fatal(err)
	}
	const secret = "/run/secrets/tandem_metrics_password"
	if !strings.Contains(string(b), secret) {
		t.Fatalf("prometheus.yml does not read the token from %s", secret)
	}
	dir := t.TempDir()
	token := filepath.Join(dir, "token")
	if err := os.WriteFile(token, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte(strings.ReplaceAll(string(b), secret, token)), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(promtool, "check", "config", cfg).CombinedOutput(); err != nil {
		t.Fatalf("promtool check config: %v\n%s", err, out)
	}
}
