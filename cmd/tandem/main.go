// Command tandem runs the Tandem cache server: the Redis protocol and the
// memcached protocol over one keyspace.
//
//	tandem [config-file] [--directive value ...]
//
// Directives are redis.conf's (plus memcached-port and Tandem's own), from a
// file, from TANDEM_<DIRECTIVE> environment variables and from flags.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/memproto"
	"github.com/tandemkv/tandem/node"
	"github.com/tandemkv/tandem/resp"
)

// version is Tandem's own version, set at build time with -ldflags.
var version = "0.1.0-dev"

// commit is the source revision, set at build time with -ldflags; when
// empty the node reads the one the go command recorded (vcs.revision).
var commit = ""

func main() {
	os.Exit(run(os.Args[1:], os.Environ()))
}

func run(args, environ []string) int {
	if len(args) > 0 && args[0] == "healthcheck" {
		return healthcheck(args[1:], environ)
	}
	cfg, err := conf.Load(args, environ)
	switch {
	case errors.Is(err, conf.ErrHelp):
		fmt.Println("Usage: tandem [/path/to/tandem.conf] [--directive value ...]\n" +
			"Directives are redis.conf's plus memcached-port; environment TANDEM_<DIRECTIVE> works too.")
		return 0
	case errors.Is(err, conf.ErrVersion):
		fmt.Printf("Tandem v=%s (Redis protocol %s, memcached protocol 1.6)\n", version, resp.Version)
		return 0
	case err != nil:
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// rename-command and memcached-rename-command name commands only the
	// front-ends know; a refused one stops start-up as a config error.
	for _, check := range []func(*conf.Config) error{resp.CheckRenames, memproto.CheckRenames} {
		if err := check(cfg); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	log := newLogger(cfg)
	for _, w := range cfg.Warnings() {
		log.Warn(w)
	}
	n := node.New(node.Options{Config: cfg, Logger: log, Version: version, Commit: commit, Environ: environ})
	if p := cfg.PidFile(); p != "" {
		// As redis-server: best effort, removed at exit.
		if err := os.WriteFile(p, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
			log.Warn("Failed to write PID file", "err", err)
		} else {
			defer os.Remove(p)
		}
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	return n.Run(sigs)
}
