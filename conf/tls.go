package conf

import (
	"crypto/tls"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// TLS directives, with Redis's names: tls-port (and Tandem's
// memcached-tls-port), the certificate files, tls-auth-clients and the
// protocol and cipher policies. Go's crypto/tls serves them (package
// server/tlsserver); what Go cannot honour is refused here, never
// silently weakened:
//
//   - tls-protocols lists TLSv1, TLSv1.1, TLSv1.2, TLSv1.3 (default
//     "TLSv1.2 TLSv1.3", as Redis); Go enables a range, so the list must
//     be contiguous.
//   - tls-ciphers (TLS 1.2 and older) is a colon-separated list of
//     OpenSSL names (ECDHE-RSA-AES128-GCM-SHA256) or IANA names
//     (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256) of the suites Go
//     implements as secure, or DEFAULT; OpenSSL's other keywords and
//     exclusions (HIGH, !aNULL) are refused.
//   - tls-ciphersuites (TLS 1.3): Go always offers its three TLS 1.3
//     suites, so only a list naming all three (or empty) is accepted.
//   - tls-prefer-server-ciphers is accepted and has no effect: Go's
//     server orders suites itself (by hardware AES support).
//   - tls-dh-params-file must name a PEM file of DH parameters of at
//     least 2048 bits (as OpenSSL's default security level) and is not
//     used: Go's crypto/tls has no finite-field DHE, only ECDHE.
//   - tls-session-caching, -size and -timeout: as Redis with OpenSSL 3,
//     clients resume by session ticket under yes and no alike; a ticket
//     lives tls-session-cache-timeout seconds under yes, OpenSSL's two
//     hours under no or with 0; the size bounds OpenSSL's session-ID
//     cache, which Go has not, and is accepted without effect.
//   - tls-replication and tls-cluster are accepted and shown and make TLS
//     configured as in Redis (certificates and CAs required and loaded,
//     even without a TLS port); Tandem has no replication or cluster for
//     them to act on yet, and keeps tls-client-cert-file/-key-file loaded
//     for the day it dials.
//
// A CONFIG SET of any of TLSDirectives rebuilds the whole TLS
// configuration before the values are published (the applier node/tls.go
// registers with OnApply); if it cannot be built the Set fails with
// ErrTLSUpdate's text, as Redis's, and the old values and certificates
// stay in force.

// TLSAuth is tls-auth-clients.
type TLSAuth int

// tls-auth-clients values, in tlsAuthNames' order (Redis's).
const (
	TLSAuthNo       TLSAuth = iota // no client certificate asked for
	TLSAuthYes                     // a certificate signed by the CA is required
	TLSAuthOptional                // asked for; verified when given
)

var tlsAuthNames = []string{"no", "yes", "optional"}

// tlsVersions are tls-protocols' words, oldest first.
var tlsVersions = []struct {
	name string
	v    uint16
}{{"TLSv1", tls.VersionTLS10}, {"TLSv1.1", tls.VersionTLS11}, {"TLSv1.2", tls.VersionTLS12}, {"TLSv1.3", tls.VersionTLS13}}

// parseTLSProtocols returns the version range a tls-protocols value
// enables, or a reason.
func parseTLSProtocols(s string) (lo, hi uint16, reason string) {
	words := strings.Fields(s)
	if len(words) == 0 {
		return tls.VersionTLS12, tls.VersionTLS13, ""
	}
	first, last := len(tlsVersions), -1
	var on [4]bool
	for _, w := range words {
		i := 0
		for i < len(tlsVersions) && !strings.EqualFold(tlsVersions[i].name, w) {
			i++
		}
		if i == len(tlsVersions) {
			return 0, 0, fmt.Sprintf("Invalid tls-protocols %q: use TLSv1, TLSv1.1, TLSv1.2, TLSv1.3", w)
		}
		on[i] = true
		first, last = min(first, i), max(last, i)
	}
	for i := first; i <= last; i++ {
		if !on[i] {
			return 0, 0, "tls-protocols must be a contiguous range of versions (Go enables a minimum to a maximum)"
		}
	}
	return tlsVersions[first].v, tlsVersions[last].v, ""
}

func checkTLSProtocols(s string) string { _, _, r := parseTLSProtocols(s); return r }

// openSSLCiphers maps OpenSSL's names of the TLS 1.2 suites Go implements
// to Go's identifiers.
var openSSLCiphers = map[string]uint16{
	"ECDHE-ECDSA-AES128-GCM-SHA256": tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	"ECDHE-RSA-AES128-GCM-SHA256":   tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	"ECDHE-ECDSA-AES256-GCM-SHA384": tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	"ECDHE-RSA-AES256-GCM-SHA384":   tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	"ECDHE-ECDSA-CHACHA20-POLY1305": tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	"ECDHE-RSA-CHACHA20-POLY1305":   tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
	"ECDHE-ECDSA-AES128-SHA":        tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA,
	"ECDHE-RSA-AES128-SHA":          tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA,
	"ECDHE-ECDSA-AES256-SHA":        tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA,
	"ECDHE-RSA-AES256-SHA":          tls.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA,
	"AES128-GCM-SHA256":             tls.TLS_RSA_WITH_AES_128_GCM_SHA256,
	"AES256-GCM-SHA384":             tls.TLS_RSA_WITH_AES_256_GCM_SHA384,
	"AES128-SHA":                    tls.TLS_RSA_WITH_AES_128_CBC_SHA,
	"AES256-SHA":                    tls.TLS_RSA_WITH_AES_256_CBC_SHA,
}

// parseTLSCiphers returns the suites a tls-ciphers value names (nil: Go's
// defaults), or a reason.
func parseTLSCiphers(s string) (ids []uint16, reason string) {
	for _, w := range strings.Split(s, ":") {
		w = strings.TrimSpace(w)
		if w == "" || strings.EqualFold(w, "DEFAULT") {
			continue
		}
		id, ok := openSSLCiphers[strings.ToUpper(w)]
		if !ok {
			for _, cs := range tls.CipherSuites() {
				if strings.EqualFold(cs.Name, w) && slices.Contains(cs.SupportedVersions, tls.VersionTLS12) {
					id, ok = cs.ID, true
				}
			}
		}
		if !ok {
			return nil, fmt.Sprintf("Invalid tls-ciphers %q: name TLS 1.2 suites (ECDHE-RSA-AES128-GCM-SHA256 or TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256) or DEFAULT", w)
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids, ""
}

func checkTLSCiphers(s string) string { _, r := parseTLSCiphers(s); return r }

// tls13Suites are the TLS 1.3 suites Go always offers.
var tls13Suites = []string{"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"}

func checkTLSCiphersuites(s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	var named []string
	for _, w := range strings.Split(s, ":") {
		w = strings.ToUpper(strings.TrimSpace(w))
		if !slices.Contains(tls13Suites, w) {
			return fmt.Sprintf("Invalid tls-ciphersuites %q: TLS 1.3 suites are %s", w, strings.Join(tls13Suites, ":"))
		}
		named = append(named, w)
	}
	for _, w := range tls13Suites {
		if !slices.Contains(named, w) {
			return "Go's TLS 1.3 always offers " + strings.Join(tls13Suites, ":") + "; a narrower tls-ciphersuites cannot be honoured"
		}
	}
	return ""
}

// validateTLS checks the TLS directives as a whole: distinct ports, and a
// certificate and key when a TLS port is set. (port 0 with a TLS port
// serves TLS only, as Redis.)
func validateTLS(s *snapshot) string {
	tp, mtp := s.num[dTLSPort], s.num[dMemcachedTLSPort]
	for _, p := range []int64{tp, mtp} {
		if p != 0 && (p == s.num[dPort] || p == s.num[dMemcachedPort]) {
			return "tls-port and memcached-tls-port must differ from port and memcached-port"
		}
	}
	if tp != 0 && tp == mtp {
		return "tls-port and memcached-tls-port must differ"
	}
	if tlsEnabled(s) && (s.str[dTLSCertFile] == "" || s.str[dTLSKeyFile] == "") {
		return "a TLS port, tls-replication or tls-cluster needs tls-cert-file and tls-key-file"
	}
	return ""
}

// tlsEnabled is Redis's condition for configuring TLS: a TLS port,
// tls-replication or tls-cluster.
func tlsEnabled(s *snapshot) bool {
	return s.num[dTLSPort] != 0 || s.num[dMemcachedTLSPort] != 0 || s.num[dTLSReplication] != 0 || s.num[dTLSCluster] != 0
}

// TLSEnabled reports whether TLS is to be configured: a TLS port,
// tls-replication or tls-cluster, as in Redis. Without it a CONFIG SET
// of a TLS file loads nothing and is accepted, as in Redis.
func (c *Config) TLSEnabled() bool { return tlsEnabled(c.load()) }

// ErrTLSUpdate is the reason Redis gives when a CONFIG SET leaves a TLS
// configuration that cannot be built; the cause goes to the log.
var ErrTLSUpdate = errors.New("Unable to update TLS configuration. Check server logs.")

// TLSPort is the Redis TLS listener's port; 0 disables it.
func (c *Config) TLSPort() int { return int(c.load().num[dTLSPort]) }

// MemcachedTLSPort is the memcached TLS listener's port; 0 disables it.
func (c *Config) MemcachedTLSPort() int { return int(c.load().num[dMemcachedTLSPort]) }

// TLSFiles are the files TLS reads, and the passes of their keys.
type TLSFiles struct {
	Cert, Key, KeyPass                   string // the server's certificate chain and key (PEM), the key's pass
	ClientCert, ClientKey, ClientKeyPass string // the certificate Tandem shows when it dials; "": the server's
	CAFile, CADir                        string // the CAs that sign client (and peer) certificates
	DHParams                             string // tls-dh-params-file: checked, not used
}

// TLSFiles returns tls-cert-file, tls-key-file, tls-key-file-pass, the
// tls-client-* files, tls-ca-cert-file, tls-ca-cert-dir and
// tls-dh-params-file.
func (c *Config) TLSFiles() TLSFiles {
	s := c.load()
	return TLSFiles{Cert: s.str[dTLSCertFile], Key: s.str[dTLSKeyFile], KeyPass: s.str[dTLSKeyFilePass],
		ClientCert: s.str[dTLSClientCertFile], ClientKey: s.str[dTLSClientKeyFile], ClientKeyPass: s.str[dTLSClientKeyFilePass],
		CAFile: s.str[dTLSCACertFile], CADir: s.str[dTLSCACertDir], DHParams: s.str[dTLSDHParamsFile]}
}

// TLSSessionCache is tls-session-caching, tls-session-cache-size and
// tls-session-cache-timeout.
func (c *Config) TLSSessionCache() (on bool, size int, timeout time.Duration) {
	s := c.load()
	return s.num[dTLSSessionCaching] != 0, int(s.num[dTLSSessionCacheSize]), time.Duration(s.num[dTLSSessionCacheTimeout]) * time.Second
}

// TLSPeers reports tls-replication or tls-cluster: connections Tandem
// would dial to its peers are TLS, verified with the CAs.
func (c *Config) TLSPeers() bool {
	s := c.load()
	return s.num[dTLSReplication] != 0 || s.num[dTLSCluster] != 0
}

// TLSAuthClients is tls-auth-clients.
func (c *Config) TLSAuthClients() TLSAuth { return TLSAuth(c.load().num[dTLSAuthClients]) }

// TLSVersions is the range tls-protocols enables.
func (c *Config) TLSVersions() (lo, hi uint16) {
	lo, hi, _ = parseTLSProtocols(c.load().str[dTLSProtocols])
	return lo, hi
}

// TLSCipherSuites are the TLS 1.2 suites tls-ciphers names; nil: Go's
// defaults.
func (c *Config) TLSCipherSuites() []uint16 {
	ids, _ := parseTLSCiphers(c.load().str[dTLSCiphers])
	return ids
}

// TLSDirectives are the names whose change rebuilds the TLS configuration
// (for OnApply). tls-auth-clients is one (Redis reads it per connection;
// here it is part of the configuration a handshake uses), and so are the
// ports' companions tls-replication and tls-cluster, which decide whether
// TLS is configured at all.
var TLSDirectives = []string{"tls-cert-file", "tls-key-file", "tls-key-file-pass", "tls-client-cert-file",
	"tls-client-key-file", "tls-client-key-file-pass", "tls-ca-cert-file", "tls-ca-cert-dir", "tls-dh-params-file",
	"tls-auth-clients", "tls-protocols", "tls-ciphers", "tls-ciphersuites", "tls-prefer-server-ciphers",
	"tls-session-caching", "tls-session-cache-size", "tls-session-cache-timeout", "tls-replication", "tls-cluster"}
