package metrics

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

func TestCheckExposure(t *testing.T) {
	for _, c := range []struct {
		bind, password string
		protected      bool
		refused        bool
	}{
		{"127.0.0.1", "", true, false},
		{"::1", "", true, false},
		{"localhost", "", true, false},
		{"127.0.0.2", "", true, false},
		{"0.0.0.0", "", true, true},
		{"*", "", true, true},
		{"::", "", true, true},
		{"10.1.2.3", "", true, true},
		{"0.0.0.0", "tok", true, false},
		{"0.0.0.0", "", false, false}, // no password, protected-mode no: open anyway
	} {
		err := CheckExposure(c.bind, c.password, c.protected)
		if (err != nil) != c.refused {
			t.Errorf("CheckExposure(%q, %q, %v) = %v, refused want %v", c.bind, c.password, c.protected, err, c.refused)
		}
	}
}

// TestHealthzReason: /healthz answers 503 and the reason when the node is
// not healthy, 200 "ok" when it is.
func TestHealthzReason(t *testing.T) {
	ok, reason := false, "loading the dump"
	h := Handler("", prometheus.NewRegistry(), func() (bool, string) { return ok, reason })
	get := func() (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil))
		b, _ := io.ReadAll(rec.Body)
		return rec.Code, string(b)
	}
	if code, body := get(); code != http.StatusServiceUnavailable || strings.TrimSpace(body) != reason {
		t.Errorf("unhealthy: %d %q", code, body)
	}
	ok = true
	if code, body := get(); code != http.StatusOK || body != "ok\n" {
		t.Errorf("healthy: %d %q", code, body)
	}
}
