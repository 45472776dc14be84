package tlsserver_test

import (
	"context"
	"crypto/tls"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tandemkv/tandem/internal/realserver"
	"github.com/tandemkv/tandem/node"
	"github.com/tandemkv/tandem/node/nodetest"
)

// tlsFiles are the directives both servers use: the fixtures' server
// certificate, the client one they show when they dial, the CA.
func tlsFiles(t *testing.T) []string {
	return []string{"--tls-cert-file", fixture(t, "server.crt"), "--tls-key-file", fixture(t, "server.key"),
		"--tls-client-cert-file", fixture(t, "client.crt"), "--tls-client-key-file", fixture(t, "client.key"),
		"--tls-ca-cert-file", fixture(t, "ca.crt")}
}

// startRedisTLSWith runs redis-server on a TLS port only, with extra
// directives, and returns a TLS client and its port.
func startRedisTLSWith(t *testing.T, extra ...string) (*redis.Client, int) {
	t.Helper()
	bin := realserver.Path(t, realserver.Redis)
	port, dir := freePort(t), t.TempDir()
	args := append([]string{"--port", "0", "--tls-port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
		"--dir", dir, "--logfile", filepath.Join(dir, "log"), "--repl-diskless-sync-delay", "0"}, tlsFiles(t)...)
	cmd := exec.Command(bin, append(args, extra...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port), TLSConfig: tlsClient(t), MaxRetries: -1, Protocol: 2})
	t.Cleanup(func() { c.Close() })
	for deadline := time.Now().Add(10 * time.Second); c.Ping(context.Background()).Err() != nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("redis-server with TLS did not start")
		}
	}
	return c, port
}

// tlsClient trusts the fixtures' CA and shows their client certificate
// (both servers verify clients: tls-auth-clients yes).
func tlsClient(t *testing.T) *tls.Config {
	cfg := fixtureClient(t)
	cert, err := tls.LoadX509KeyPair(fixture(t, "client.crt"), fixture(t, "client.key"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Certificates = []tls.Certificate{cert}
	return cfg
}

// startTandemTLS runs a Tandem node with a TLS port only and the
// fixtures, and returns a TLS client and its TLS port.
func startTandemTLS(t *testing.T, extra ...string) (*redis.Client, int) {
	t.Helper()
	port := freePort(t)
	args := append([]string{"--port", "0", "--tls-port", strconv.Itoa(port), "--memcached-port", "0",
		"--save", "", "--dir", t.TempDir(), "--repl-diskless-sync-delay", "0"}, tlsFiles(t)...)
	nodetest.Start(t, append(args, extra...), func(*node.Node) bool {
		c, err := tls.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port), tlsClient(t))
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port), TLSConfig: tlsClient(t), MaxRetries: -1, Protocol: 2})
	t.Cleanup(func() { c.Close() })
	return c, port
}

// waitReplicated waits until the replica has key with value.
func waitReplicated(t *testing.T, replica *redis.Client, key, value string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if v, _ := replica.Get(context.Background(), key).Result(); v == value {
			return
		}
		if time.Now().After(deadline) {
			info, _ := replica.Info(context.Background(), "replication").Result()
			t.Fatalf("%s did not reach the replica\n%s", key, info)
		}
	}
}

// TestReplicationOverTLS: with tls-replication yes, a Tandem replica
// reaches a TLS-only redis-server 7.0 master, and a TLS-only redis-server
// replica reaches a Tandem master's TLS port, each verifying the other's
// certificate (and showing its client one): full sync, then the stream.
func TestReplicationOverTLS(t *testing.T) {
	ctx := context.Background()
	t.Run("tandem replica of redis-server", func(t *testing.T) {
		master, mport := startRedisTLSWith(t)
		master.Set(ctx, "before", "1", 0)
		replica, _ := startTandemTLS(t, "--tls-replication", "yes")
		if err := replica.Do(ctx, "REPLICAOF", "127.0.0.1", strconv.Itoa(mport)).Err(); err != nil {
			t.Fatal(err)
		}
		waitReplicated(t, replica, "before", "1")
		master.Set(ctx, "after", "2", 0)
		waitReplicated(t, replica, "after", "2")
	})
	t.Run("redis-server replica of tandem", func(t *testing.T) {
		master, mport := startTandemTLS(t)
		master.Set(ctx, "before", "1", 0)
		replica, _ := startRedisTLSWith(t, "--tls-replication", "yes", "--replicaof", "127.0.0.1", strconv.Itoa(mport))
		waitReplicated(t, replica, "before", "1")
		master.Set(ctx, "after", "2", 0)
		waitReplicated(t, replica, "after", "2")
	})
	t.Run("plain tandem replica refused by a TLS master", func(t *testing.T) {
		_, mport := startRedisTLSWith(t)
		replica, _ := startTandemTLS(t) // tls-replication no: a plain connection to a TLS port
		replica.Do(ctx, "REPLICAOF", "127.0.0.1", strconv.Itoa(mport))
		time.Sleep(time.Second)
		info, _ := replica.Info(ctx, "replication").Result()
		if !strings.Contains(info, "master_link_status:down") {
			t.Errorf("a plain link to a TLS master came up:\n%s", info)
		}
	})
}
