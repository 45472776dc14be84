package metrics

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Server is the HTTP listener of /metrics and /healthz.
type Server struct {
	ln  net.Listener
	srv *http.Server
}

// HealthFunc reports whether the node serves; reason says why not.
type HealthFunc func() (ok bool, reason string)

// Listen listens on addr and serves reg's metrics at /metrics (behind
// password when it is not "") and health at /healthz.
func Listen(addr, password string, reg *prometheus.Registry, health HealthFunc) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Server{ln: ln, srv: &http.Server{Handler: Handler(password, reg, health), ReadHeaderTimeout: 10 * time.Second}}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the server, letting scrapes in flight finish until ctx ends.
func (s *Server) Close(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Handler serves /metrics and /healthz.
func Handler(password string, reg *prometheus.Registry, health HealthFunc) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", requireToken(password, promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg})))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		ok, reason := health()
		if !ok {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintln(w, reason)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	return mux
}

// requireToken passes requests that carry password as a bearer token or
// a basic-auth password; every request when password is "".
func requireToken(password string, next http.Handler) http.Handler {
	if password == "" {
		return next
	}
	want := []byte(password)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !tokenOK(r, want) {
			w.Header().Set("WWW-Authenticate", `Basic realm="tandem metrics", charset="UTF-8"`)
			http.Error(w, "metrics-password required", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// tokenOK compares the request's credentials with want in constant time.
func tokenOK(r *http.Request, want []byte) bool {
	var got string
	if _, pass, ok := r.BasicAuth(); ok {
		got = pass
	} else if h := r.Header.Get("Authorization"); len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		got = strings.TrimSpace(h[7:])
	} else {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(got), want) == 1
}

// CheckExposure is the rule a metrics port starts under: bound beyond
// loopback without a metrics-password, it is refused while the data
// ports are protected (a password is set, or protected mode refuses
// remote clients), since it would hand anyone what the ports keep from
// them (key counts, command mix, memory). A loopback bind, a password, or
// a server open to all anyway (no password, protected-mode no) is allowed.
func CheckExposure(bind, password string, dataProtected bool) error {
	if password != "" || !dataProtected || IsLoopback(bind) {
		return nil
	}
	return fmt.Errorf("metrics-bind %s is not a loopback address and metrics-password is empty while the data ports are protected (requirepass or protected-mode): set metrics-password, or bind the metrics port to 127.0.0.1", bind)
}

// IsLoopback reports whether a listen host is a loopback address
// ("localhost", 127.0.0.0/8, ::1); "", "*", 0.0.0.0 and :: are every
// interface.
func IsLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}
