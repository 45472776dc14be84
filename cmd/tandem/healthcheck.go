package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/tandemkv/tandem/conf"
)

// healthcheck is `tandem healthcheck [--port N ...]`: it reads the same
// configuration as the server (file, environment, flags), sends PING to the
// Redis port on loopback and exits 0 on +PONG. Container images without a
// shell use it as their HEALTHCHECK.
func healthcheck(args, environ []string) int {
	cfg, err := conf.Load(args, environ)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(cfg.Port()))
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		fmt.Fprintln(os.Stderr, "unhealthy:", err)
		return 1
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	req := "PING\r\n"
	if pass := cfg.RequirePass(); pass != "" {
		req = fmt.Sprintf("*2\r\n$4\r\nAUTH\r\n$%d\r\n%s\r\nPING\r\n", len(pass), pass)
	}
	if _, err := c.Write([]byte(req)); err != nil {
		fmt.Fprintln(os.Stderr, "unhealthy:", err)
		return 1
	}
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err == nil && cfg.RequirePass() != "" {
		line, err = r.ReadString('\n')
	}
	if err != nil || line != "+PONG\r\n" {
		fmt.Fprintf(os.Stderr, "unhealthy: %q %v\n", line, err)
		return 1
	}
	fmt.Println("healthy")
	return 0
}
