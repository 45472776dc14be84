package tlsserver

import (
	"container/list"
	"crypto/rand"
	"crypto/tls"
	"sync"
	"time"
)

// tls-session-caching asks OpenSSL for a server-side session cache of
// tls-session-cache-size sessions (0: no bound) kept
// tls-session-cache-timeout seconds, resumed by session ID (TLS 1.2) or
// by a ticket (TLS 1.2 and 1.3). Go's server resumes only by ticket,
// and its own tickets are the encrypted session itself, which no size or
// timeout reaches. So the cache is kept here, as OpenSSL's: the ticket
// handed to the client (tls.Config.WrapSession) is a random key into it,
// and a ticket presented (UnwrapSession) resumes only while its session
// is in the cache. A client that offers only a session ID, no ticket,
// gets a full handshake. The timeout counts from when a ticket was
// issued, and a new configuration (CONFIG SET of a TLS directive) starts
// with an empty cache, as a new OpenSSL context does.

// sessionCache is one configuration's cache of sessions.
type sessionCache struct {
	size int           // most sessions kept; 0: no bound
	ttl  time.Duration // how long a session may be resumed
	now  func() time.Time

	mu    sync.Mutex
	byKey map[string]*list.Element // of *cachedSession
	order list.List                // oldest first: issue time order
}

type cachedSession struct {
	key    string
	state  []byte // tls.SessionState.Bytes
	issued time.Time
}

// sessionKeyLen is the length of a ticket: a random key, 128 bits.
const sessionKeyLen = 16

func newSessionCache(size int, ttl time.Duration) *sessionCache {
	return &sessionCache{size: size, ttl: ttl, now: time.Now, byKey: map[string]*list.Element{}}
}

// install makes cfg resume through c.
func (c *sessionCache) install(cfg *tls.Config) {
	cfg.WrapSession = c.wrap
	cfg.UnwrapSession = c.unwrap
}

// wrap implements tls.Config.WrapSession: it keeps the session and
// returns its key as the ticket.
func (c *sessionCache) wrap(_ tls.ConnectionState, ss *tls.SessionState) ([]byte, error) {
	state, err := ss.Bytes()
	if err != nil {
		return nil, err
	}
	key := make([]byte, sessionKeyLen)
	_, _ = rand.Read(key) // never fails (crypto/rand)
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.expire(now)
	c.byKey[string(key)] = c.order.PushBack(&cachedSession{key: string(key), state: state, issued: now})
	for c.size > 0 && c.order.Len() > c.size {
		c.remove(c.order.Front())
	}
	return key, nil
}

// unwrap implements tls.Config.UnwrapSession: the session a ticket
// names, or nil (a full handshake) when it is not, or no longer, cached.
func (c *sessionCache) unwrap(ticket []byte, _ tls.ConnectionState) (*tls.SessionState, error) {
	c.mu.Lock()
	c.expire(c.now())
	e, ok := c.byKey[string(ticket)]
	var state []byte
	if ok {
		state = e.Value.(*cachedSession).state
	}
	c.mu.Unlock()
	if !ok {
		return nil, nil
	}
	ss, err := tls.ParseSessionState(state)
	if err != nil {
		return nil, nil // not ours after all: handshake in full
	}
	return ss, nil
}

// expire drops the sessions older than the timeout; under c.mu.
func (c *sessionCache) expire(now time.Time) {
	for e := c.order.Front(); e != nil && now.Sub(e.Value.(*cachedSession).issued) >= c.ttl; e = c.order.Front() {
		c.remove(e)
	}
}

func (c *sessionCache) remove(e *list.Element) {
	delete(c.byKey, e.Value.(*cachedSession).key)
	c.order.Remove(e)
}

// len is the number of sessions cached.
func (c *sessionCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
