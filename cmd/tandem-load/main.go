package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
)

// Exit statuses.
const (
	exitOK         = 0
	exitFailed     = 1 // the run could not be made
	exitUsage      = 2
	exitReplyError = 3 // the run was made, but some replies were errors
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseOptions(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintln(stderr, "tandem-load:", err)
		return exitUsage
	}
	addr, err := loopbackAddr(o.addr)
	if err != nil {
		fmt.Fprintln(stderr, "tandem-load:", err)
		return exitUsage
	}
	if o.procs > 0 {
		runtime.GOMAXPROCS(o.procs)
	}
	if o.flush {
		if err := flush(o, addr); err != nil {
			fmt.Fprintln(stderr, "tandem-load: flush:", err)
			return exitFailed
		}
	}
	ws, err := dialAll(o, addr)
	if err != nil {
		fmt.Fprintln(stderr, "tandem-load:", err)
		return exitFailed
	}
	defer func() {
		for _, w := range ws {
			w.conn.Close()
		}
	}()

	rep := newReport(o, addr)
	if o.csv {
		writeCSVHeader(stdout)
	}
	for _, ph := range o.phases {
		st, elapsed := runPhase(ws, ph, o)
		rep.Phases = append(rep.Phases, phaseResultOf(ph, &st, elapsed))
		p := &rep.Phases[len(rep.Phases)-1]
		switch {
		case o.csv:
			p.writeCSV(stdout)
		case !o.json:
			p.writeText(stdout)
		}
	}
	if o.json {
		if err := rep.writeJSON(stdout); err != nil {
			fmt.Fprintln(stderr, "tandem-load:", err)
			return exitFailed
		}
	}
	for _, p := range rep.Phases {
		if p.Errors > 0 {
			return exitReplyError
		}
	}
	return exitOK
}
