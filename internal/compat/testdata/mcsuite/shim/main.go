// Command shim stands in for the programs memcached's own Perl test suite
// (t/*.t with t/lib/MemcachedTest.pm) runs from its build directory, so
// that the suite can start Tandem where it would start memcached-debug.
// memcached_suite_test.go in internal/compat builds it once and links it
// under three names; the name it is run as picks the part it plays:
//
//	timedrun ARGS...      MemcachedTest runs "timedrun 600 memcached-debug
//	                      ARGS": the shim drops the time limit and executes
//	                      the rest, so the pid the suite signals is the
//	                      server's own (the test's process group and a
//	                      parent-death signal bound its life instead).
//	memcached-debug ARGS  memcached's command line, started as the server
//	                      MCSUITE_TARGET names: "tandem" (the binary in
//	                      MCSUITE_TANDEM) with the flags translated, or
//	                      "memcached" (MCSUITE_MEMCACHED) as it is but for
//	                      the debug-build-only option relaxed_privileges.
//	saslpasswd2 ARGS      Cyrus SASL's tool, as binary-sasl.t runs it to add
//	                      a user: the shim adds the same user to the running
//	                      Tandem with ACL SETUSER on its Redis port.
//
// Each server's output goes to a log file in MCSUITE_WORK: the suite's
// standard output is its TAP stream.
package main

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

func main() {
	var err error
	switch name := filepath.Base(os.Args[0]); name {
	case "timedrun":
		err = timedrun(os.Args[1:])
	case "memcached-debug":
		err = memcachedDebug(os.Args[1:])
	case "saslpasswd2":
		err = saslpasswd2(os.Args[1:])
	default:
		err = fmt.Errorf("run as timedrun, memcached-debug or saslpasswd2, not %q", name)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcsuite shim:", err)
		os.Exit(1)
	}
}

// timedrun executes its command after the time limit: exec keeps the pid.
func timedrun(args []string) error {
	if len(args) < 2 {
		return errors.New("usage: timedrun SECONDS COMMAND [ARGS...]")
	}
	path, args := args[1], args[1:]
	return syscall.Exec(path, args, os.Environ())
}

// helpText is what "memcached-debug -h" prints for Tandem. MemcachedTest
// reads features from it: "sasl" says SASL is there (binary-sasl.t), and
// the lines it must not have keep the suite off what Tandem lacks: no
// "unix-socket" (so every test connects over TCP), no "ext_path"
// (extstore), "proxy_config", "enable-ssl" or "no_drop_privileges".
const helpText = `memcached 1.6.18
(Tandem's memcached port, started by memcached_suite_test.go's shim)
-p, --port=<num>          TCP port to listen on
-U, --udp-port=<num>      accepted, ignored: Tandem has no UDP
-l, --listen=<addr>       interface to listen on
-B, --protocol=<name>     memcached-binding-protocol: auto, ascii or binary
-S, --enable-sasl         turn on Sasl authentication (requirepass; users from saslpasswd2)
-m, --memory-limit=<num>  item memory in megabytes (maxmemory)
-M, --disable-evictions   return error on memory exhausted (noeviction)
-c, --conn-limit=<num>    max simultaneous connections (maxclients)
-I, --max-item-size=<num> item size maximum (item-size-max)
-b, --listen-backlog=<num> backlog queue limit (tcp-backlog)
-A, --enable-shutdown     enable the shutdown command
-F, --disable-flush-all   disable flush_all
-C, --disable-cas         accepted, ignored: Tandem always keeps CAS values
`

// memcachedDebug starts the server under test in place of memcached-debug.
func memcachedDebug(args []string) error {
	target := os.Getenv("MCSUITE_TARGET")
	for _, a := range args {
		if a == "-h" || a == "--help" {
			if target == "memcached" {
				return execServer(os.Getenv("MCSUITE_MEMCACHED"), []string{"-h"}, filterHelp, "")
			}
			fmt.Print(helpText)
			return nil
		}
	}
	switch target {
	case "tandem":
		argv, err := tandemArgs(args)
		if err != nil {
			return err
		}
		return execServer(os.Getenv("MCSUITE_TANDEM"), argv, nil, logPath("tandem"))
	case "memcached":
		return execServer(os.Getenv("MCSUITE_MEMCACHED"), memcachedArgs(args), nil, logPath("memcached"))
	}
	return fmt.Errorf("MCSUITE_TARGET is %q, not tandem or memcached", target)
}

// filterHelp drops the unix-socket line of memcached's help, so that the
// reference run connects over TCP as the Tandem run does.
func filterHelp(line string) bool { return !strings.Contains(line, "unix-socket") }

// memcachedArgs is the real memcached's command line: relaxed_privileges
// exists only in memcached-debug (MEMCACHED_DEBUG builds).
func memcachedArgs(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if args[i] == "-o" && i+1 < len(args) {
			var keep []string
			for _, o := range strings.Split(args[i+1], ",") {
				if o != "relaxed_privileges" {
					keep = append(keep, o)
				}
			}
			i++
			if len(keep) > 0 {
				out = append(out, "-o", strings.Join(keep, ","))
			}
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// flagsWithValue are memcached's short options that take an argument.
const flagsWithValue = "apsUmcluPfntDRbBIYeoN"

// ignoredOptions are -o options with nothing to translate: memcached's
// slab allocator and its "modern" defaults, and debug-build privileges.
var ignoredOptions = map[string]bool{
	"no_modern": true, "modern": true, "relaxed_privileges": true,
	"slab_chunk_max": true, "slab_reassign": true, "slab_automove": true,
	"lru_crawler": true, "lru_maintainer": true, "hash_algorithm": true,
}

// tandemArgs translates memcached's command line into Tandem's directives.
// A flag with no Tandem counterpart that would change what a test sees is
// an error, so the test fails visibly instead of testing something else.
func tandemArgs(args []string) ([]string, error) {
	work := os.Getenv("MCSUITE_WORK")
	if work == "" {
		return nil, errors.New("MCSUITE_WORK is not set")
	}
	d := map[string]string{
		"port": "0", "bind": "127.0.0.1", "save": "", "dir": work,
		// memcached's defaults: 64 megabytes, 1024 connections.
		"maxmemory": "64mb", "maxclients": "1024",
	}
	sasl := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || len(a) < 2 || strings.HasPrefix(a, "--") {
			return nil, fmt.Errorf("unsupported argument %q", a)
		}
		if strings.Trim(a[1:], "v") == "" { // -v, -vv, -vvv: verbosity
			continue
		}
		flag, val := a[1], a[2:]
		if strings.IndexByte(flagsWithValue, flag) >= 0 && val == "" {
			if i+1 == len(args) {
				return nil, fmt.Errorf("%s needs a value", a)
			}
			i++
			val = args[i]
		} else if len(a) != 2 && strings.IndexByte(flagsWithValue, flag) < 0 {
			return nil, fmt.Errorf("unsupported argument %q", a)
		}
		switch flag {
		case 'p':
			d["memcached-port"] = val
		case 'l':
			d["bind"] = val
		case 'U', 'u', 't':
			// UDP (Tandem has none), the user to run as, worker threads.
		case 'B':
			if val != "auto" && val != "binary" && val != "ascii" {
				return nil, fmt.Errorf("invalid -B %q", val)
			}
			d["memcached-binding-protocol"] = val
		case 'm':
			d["maxmemory"] = val + "mb"
		case 'M':
			d["maxmemory-policy"] = "noeviction"
		case 'c':
			d["maxclients"] = val
		case 'I':
			n, err := memcachedSize(val)
			if err != nil {
				return nil, err
			}
			d["item-size-max"] = strconv.FormatInt(n, 10)
		case 'b':
			d["tcp-backlog"] = val
		case 'A':
			d["memcached-enable-shutdown"] = "yes"
		case 'F':
			d["memcached-disable-flush-all"] = "yes"
		case 'W':
			d["memcached-disable-watch"] = "yes"
		case 'C':
			// CAS cannot be turned off in Tandem: the tests that check
			// memcached without CAS fail, and are listed as such.
		case 'S':
			sasl = true
		case 'o':
			for _, o := range strings.Split(val, ",") {
				name, v, _ := strings.Cut(o, "=")
				if name == "watcher_logbuf_size" { // kilobytes, as memcached reads it
					n, err := strconv.Atoi(v)
					if err != nil || n <= 0 {
						return nil, fmt.Errorf("invalid -o %s", o)
					}
					d["memcached-watcher-logbuf-size"] = strconv.Itoa(n << 10)
					continue
				}
				if !ignoredOptions[name] {
					return nil, fmt.Errorf("-o %s has no Tandem counterpart", o)
				}
			}
		default:
			return nil, fmt.Errorf("-%c has no Tandem counterpart", flag)
		}
	}
	if sasl {
		// memcached -S: every binary command but the SASL ones and Version
		// needs a login. Tandem's counterpart is requirepass; the users
		// binary-sasl.t creates come in through the Redis port.
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		pass := "mcsuite-" + strconv.Itoa(os.Getpid())
		d["port"], d["requirepass"] = strconv.Itoa(port), pass
		state := fmt.Sprintf("127.0.0.1:%d %s\n", port, pass)
		if err := os.WriteFile(filepath.Join(work, "sasl-server"), []byte(state), 0o600); err != nil {
			return nil, err
		}
	}
	var argv []string
	for k, v := range d {
		argv = append(argv, "--"+k, v)
	}
	return argv, nil
}

// memcachedSize reads -I as memcached does: a number of bytes, or of
// kilobytes, megabytes or gigabytes with k, m or g (powers of 1024, where
// Tandem's directives, like redis.conf, read "512k" as 512000).
func memcachedSize(arg string) (int64, error) {
	s, shift := arg, 0
	if s != "" {
		switch s[len(s)-1] {
		case 'k', 'K':
			shift = 10
		case 'm', 'M':
			shift = 20
		case 'g', 'G':
			shift = 30
		}
	}
	if shift > 0 {
		s = s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("invalid -I %q", arg)
	}
	return n << shift, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func logPath(name string) string {
	return filepath.Join(os.Getenv("MCSUITE_WORK"), fmt.Sprintf("%s-%d.log", name, os.Getpid()))
}

// execServer replaces the shim with bin. With a filter, bin runs as a child
// and only the lines the filter keeps reach standard output. Otherwise its
// output goes to logFile, and it gets SIGKILL when its parent (the Perl
// test) dies, as timedrun would stop it.
func execServer(bin string, args []string, filter func(string) bool, logFile string) error {
	if bin == "" {
		return errors.New("the server's binary is not set (MCSUITE_TANDEM or MCSUITE_MEMCACHED)")
	}
	if filter != nil {
		return filtered(bin, args, filter)
	}
	f, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	fmt.Fprintf(f, "mcsuite shim: %s %s\n", bin, strings.Join(args, " "))
	// The parent-death signal is a property of the calling thread, and
	// survives execve: set it and exec from one locked thread.
	runtime.LockOSThread()
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0); e != 0 {
		return e
	}
	for _, fd := range []int{1, 2} {
		if err := syscall.Dup2(int(f.Fd()), fd); err != nil {
			return err
		}
	}
	return syscall.Exec(bin, append([]string{bin}, args...), os.Environ())
}

func filtered(bin string, args []string, keep func(string) bool) error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	p, err := os.StartProcess(bin, append([]string{bin}, args...), &os.ProcAttr{Files: []*os.File{os.Stdin, w, os.Stderr}})
	w.Close()
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if keep(sc.Text()) {
			fmt.Println(sc.Text())
		}
	}
	st, err := p.Wait()
	if err != nil {
		return err
	}
	if !st.Success() {
		return fmt.Errorf("%s -h: %v", bin, st)
	}
	return nil
}

// saslpasswd2 adds a user as "saslpasswd2 [-a app] [-u realm] [-c] [-p]
// USER" does, the password read from standard input; -u REALM makes the
// login name USER@REALM, the form binary-sasl.t authenticates with.
func saslpasswd2(args []string) error {
	var user, realm string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-a", "-u", "-f":
			if i+1 == len(args) {
				return fmt.Errorf("%s needs a value", args[i])
			}
			if args[i] == "-u" {
				realm = args[i+1]
			}
			i++
		case "-c", "-p", "-n":
		default:
			user = args[i]
		}
	}
	if user == "" {
		return errors.New("usage: saslpasswd2 [-a app] [-u realm] [-c] [-p] user")
	}
	if realm != "" {
		user += "@" + realm
	}
	pw, err := bufio.NewReader(os.Stdin).ReadString('\n')
	if err != nil && pw == "" {
		return fmt.Errorf("reading the password: %v", err)
	}
	pw = strings.TrimRight(pw, "\r\n")
	state, err := os.ReadFile(filepath.Join(os.Getenv("MCSUITE_WORK"), "sasl-server"))
	if err != nil {
		return fmt.Errorf("no Tandem started with -S: %v", err)
	}
	addr, pass, _ := strings.Cut(strings.TrimSpace(string(state)), " ")
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	r := bufio.NewReader(c)
	for _, cmd := range [][]string{
		{"AUTH", pass},
		{"ACL", "SETUSER", user, "reset", "on", ">" + pw, "~*", "&*", "+@all"},
	} {
		fmt.Fprint(c, resp(cmd))
		line, err := r.ReadString('\n')
		if err != nil {
			return err
		}
		if line != "+OK\r\n" {
			return fmt.Errorf("%s: %q", cmd[0], line)
		}
	}
	return nil
}

func resp(args []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b.String()
}
