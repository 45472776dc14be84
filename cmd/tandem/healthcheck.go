package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/node"
)

// healthcheck is `tandem healthcheck [config-file] [--directive value ...]`:
// exit 0 when the running server answers, 1 when it does not, 2 when the
// configuration cannot be read. Container images without a shell use it
// as their HEALTHCHECK.
//
// What it checks: the Redis port answers PING with +PONG (after AUTH with
// the default user's password when one is set: -NOAUTH or -WRONGPASS is
// unhealthy), and the memcached port, when on, answers "version" (a
// VERSION line, or CLIENT_ERROR when the port wants a login, which proves
// it is served; a SERVER_ERROR such as protected mode's refusal, or
// silence, is unhealthy).
//
// Where it learns the port and the password: from the health file the
// running server writes in its data directory (node.HealthFileName, mode
// 0600, removed on a clean stop), and only when there is none (or it
// cannot be read) from the configuration sources the server reads (file,
// TANDEM_* environment, flags given here). Why a file: a Dockerfile
// HEALTHCHECK's command line is fixed in the image and cannot see the
// flags given after the image name (`podman run img --port 17679
// --requirepass pw`), nor a CONFIG SET requirepass made later; parsing
// "the same args as the server" is impossible for it. The server knows its
// effective port and password, so it says them; the data directory is
// where to look because the image fixes it (TANDEM_DIR=/data) and the
// server's user owns it. The configuration is still read first, to find
// that directory, so `tandem healthcheck --dir /elsewhere` follows a server
// started with --dir /elsewhere.
func healthcheck(args, environ []string) int {
	cfg, err := conf.Load(args, environ)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	h, err := node.ReadHealth(cfg.Dir())
	if err != nil {
		h = node.HealthOf(cfg)
	}
	if err := checkRedis(h.Addr, h.Password); err != nil {
		fmt.Fprintln(os.Stderr, "unhealthy: redis port", h.Addr+":", err)
		return 1
	}
	if h.MemcachedAddr != "" {
		if err := checkMemcached(h.MemcachedAddr); err != nil {
			fmt.Fprintln(os.Stderr, "unhealthy: memcached port", h.MemcachedAddr+":", err)
			return 1
		}
	}
	fmt.Println("healthy")
	return 0
}

const healthTimeout = 2 * time.Second

// checkRedis sends [AUTH password] PING to addr and wants +PONG.
func checkRedis(addr, password string) error {
	c, r, err := dialHealth(addr)
	if err != nil {
		return err
	}
	defer c.Close()
	req := "*1\r\n$4\r\nPING\r\n"
	if password != "" {
		req = fmt.Sprintf("*2\r\n$4\r\nAUTH\r\n$%d\r\n%s\r\n", len(password), password) + req
	}
	if _, err := c.Write([]byte(req)); err != nil {
		return err
	}
	if password != "" {
		if line, err := r.ReadString('\n'); err != nil || line != "+OK\r\n" {
			return fmt.Errorf("AUTH: %q %v", strings.TrimSpace(line), err)
		}
	}
	if line, err := r.ReadString('\n'); err != nil || line != "+PONG\r\n" {
		return fmt.Errorf("PING: %q %v", strings.TrimSpace(line), err)
	}
	return nil
}

// checkMemcached sends "version" to addr and wants a VERSION or
// CLIENT_ERROR line.
func checkMemcached(addr string) error {
	c, r, err := dialHealth(addr)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.Write([]byte("version\r\n")); err != nil {
		return err
	}
	line, err := r.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "VERSION ") && !strings.HasPrefix(line, "CLIENT_ERROR ") {
		return fmt.Errorf("version: %q %v", strings.TrimSpace(line), err)
	}
	return nil
}

func dialHealth(addr string) (net.Conn, *bufio.Reader, error) {
	c, err := net.DialTimeout("tcp", addr, healthTimeout)
	if err != nil {
		return nil, nil, err
	}
	_ = c.SetDeadline(time.Now().Add(healthTimeout))
	return c, bufio.NewReader(c), nil
}
