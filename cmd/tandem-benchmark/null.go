package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"strconv"

	"github.com/tandemkv/tandem/internal/nullserver"
)

// runNull is tandem-benchmark null: the null server until a signal.
func runNull(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tandem-benchmark null", flag.ContinueOnError)
	port := fs.Int("p", 6390, "port")
	bind := fs.String("bind", "127.0.0.1", "address")
	size := fs.Int("d", 100, "bytes of a GET's reply until the first SET (then the last SET's value size)")
	if err := parseFlags(fs, args, stderr, false); err != nil {
		return usageErr(stderr, "null", err)
	}
	addr := net.JoinHostPort(*bind, strconv.Itoa(*port))
	s, err := nullserver.Start(nullserver.Options{Addr: addr, ValueSize: *size})
	if err != nil {
		fmt.Fprintln(stderr, "tandem-benchmark null:", err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "null server on %s (a benchmark fixture: nothing is stored)\n", addr)
	// main's signal handler ends the process.
	if err := s.Wait(); err != nil {
		fmt.Fprintln(stderr, "tandem-benchmark null:", err)
		return exitFailed
	}
	_ = s.Stop(context.Background())
	return exitOK
}
