package conf

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrHelp and ErrVersion are returned by Load when the first argument asks
// for help (-h, --help) or the version (-v, --version), as redis-server
// checks its first argument; cmd/tandem prints them and exits.
var (
	ErrHelp    = errors.New("conf: help requested")
	ErrVersion = errors.New("conf: version requested")
)

// envPrefix starts the environment variables Load reads.
const envPrefix = "TANDEM_"

// maxIncludeDepth bounds nested includes; redis has no bound and loops.
const maxIncludeDepth = 16

// LoadError is a start-up configuration error. Its text follows
// redis-server's fatal config error:
//
//	*** FATAL CONFIG FILE ERROR ***
//	Reading the configuration file, at line 2 (tandem.conf)
//	>>> 'maxmemory "1xb"'
//	argument must be a memory value
//
// with "Reading the command line, at flag --maxmemory" for a flag and
// "Reading the environment, at variable TANDEM_MAXMEMORY" for a variable.
type LoadError struct {
	Source Origin // FromFile, FromEnv or FromFlag; FromDefault for a check of the whole result
	File   string // FromFile: the file, as named
	Line   int    // FromFile: 1-based line number; 0 when the file itself failed
	Name   string // FromFlag: "--maxmemory"; FromEnv: "TANDEM_MAXMEMORY"
	Text   string // the offending line, flag or variable as written
	Reason string // why, in redis's words where redis has them
}

func (e *LoadError) Error() string {
	var b strings.Builder
	b.WriteString(fatalHeader + "\n")
	switch {
	case e.Source == FromFile && e.Line > 0:
		fmt.Fprintf(&b, "Reading the configuration file, at line %d (%s)\n", e.Line, e.File)
	case e.Source == FromFlag:
		fmt.Fprintf(&b, "Reading the command line, at flag %s\n", e.Name)
	case e.Source == FromEnv:
		fmt.Fprintf(&b, "Reading the environment, at variable %s\n", e.Name)
	}
	if e.Text != "" {
		fmt.Fprintf(&b, ">>> '%s'\n", e.Text)
	}
	b.WriteString(e.Reason)
	return b.String()
}

// Load builds the configuration the way redis-server does, from its
// command-line arguments (os.Args[1:]) and environment (os.Environ()):
//
//  1. defaults (the directive table);
//  2. the configuration file: the first argument when it does not start
//     with "--", or --config FILE; redis.conf syntax, with include;
//  3. the environment: TANDEM_<DIRECTIVE>, upper case, dashes as
//     underscores (TANDEM_MAXMEMORY=1gb, TANDEM_SAVE="900 1 300 10");
//  4. the flags: --directive value..., each taking the words up to the next
//     "--" (--save 900 1 300 10, --save "900 1", --save alone clears).
//
// Later layers override earlier ones: flags are the most explicit, the
// environment suits containers, the file is the base. Within a layer the
// last line wins, except save lines, which accumulate as in redis.conf; the
// first save of a layer replaces the rules of the layers below (redis would
// add command-line rules to the file's).
//
// Unknown TANDEM_ variables are not errors (platforms inject their own, e.g.
// Kubernetes' TANDEM_SERVICE_HOST and TANDEM_PORT=tcp://...); they are
// listed by Warnings.
func Load(args []string, environ []string) (*Config, error) {
	if len(args) > 0 {
		switch args[0] {
		case "-h", "--help":
			return nil, ErrHelp
		case "-v", "--version":
			return nil, ErrVersion
		}
	}
	file, flags, err := parseFlags(args)
	if err != nil {
		return nil, err
	}

	c := Default()
	s := *c.load()
	ld := &loader{s: &s, inertAt: map[int]string{}, warned: map[string]bool{}}

	if file != "" {
		abs, err := filepath.Abs(file)
		if err != nil {
			abs = file
		}
		c.file = abs
		if err := ld.file(file, &layerState{}, FromFile, 0); err != nil {
			return nil, err
		}
	}

	envLayer := &layerState{}
	for _, kv := range environ {
		if err := ld.env(kv, envLayer); err != nil {
			return nil, err
		}
	}

	flagLayer := &layerState{}
	for _, f := range flags {
		if err := ld.flag(f, flagLayer); err != nil {
			return nil, err
		}
	}

	if r := validate(&s); r != "" {
		return nil, &LoadError{Source: FromDefault, Reason: r}
	}
	c.warnings = append(ld.warnings, ld.inertWarnings()...)
	c.cur.Store(&s)
	return c, nil
}

// validate checks what no single directive can: the result as a whole.
func validate(s *snapshot) string {
	if f := s.str[dLogFile]; f != "" {
		// As redis: a log file that cannot be opened stops start-up
		// (logging elsewhere would hide every later message).
		fh, err := os.OpenFile(f, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return fmt.Sprintf(reasonLogFile, strerror(err))
		}
		fh.Close()
	}
	port, mport := s.num[dPort], s.num[dMemcachedPort]
	if len(s.bind) == 0 && (port != 0 || mport != 0) {
		return reasonNoListener
	}
	if port != 0 && port == mport {
		return reasonSamePorts
	}
	if m := s.num[dMetricsPort]; m != 0 && (m == port || m == mport || m == s.num[dTLSPort] || m == s.num[dMemcachedTLSPort]) {
		return reasonMetricsPort
	}
	return validateTLS(s)
}

// cmdFlag is one --directive with its values, as typed.
type cmdFlag struct {
	name   string   // "maxmemory"
	values []string // one word per argument
	text   string   // for error messages: --maxmemory 1xb
}

// parseFlags splits redis-server style arguments into the config file and
// the flags. A flag takes the following arguments up to the next one
// starting with "--"; its first value may itself start with "--"
// (--requirepass --secret), except for --save, which alone means save "".
// "--port 6380" as one argument is a name and a value, as in redis.
func parseFlags(args []string) (file string, flags []cmdFlag, err error) {
	i := 0
	if len(args) > 0 && !strings.HasPrefix(args[0], "--") {
		file, i = args[0], 1
	}
	for i < len(args) {
		a := args[i]
		i++
		if !strings.HasPrefix(a, "--") {
			return "", nil, &LoadError{Source: FromFlag, Name: a, Text: a, Reason: reasonFlagNoName}
		}
		words, ok := splitArgs(a[2:])
		if !ok || len(words) == 0 {
			return "", nil, &LoadError{Source: FromFlag, Name: a, Text: a, Reason: reasonBadDirective}
		}
		f := cmdFlag{name: strings.ToLower(words[0]), values: words[1:]}
		if len(f.values) == 0 && i < len(args) {
			if f.name == "save" && strings.HasPrefix(args[i], "--") {
				f.values = []string{""}
			} else {
				f.values = append(f.values, args[i])
				i++
			}
		} else if len(f.values) == 0 && f.name == "save" {
			f.values = []string{""}
		}
		for i < len(args) && !strings.HasPrefix(args[i], "--") {
			f.values = append(f.values, args[i])
			i++
		}
		f.text = "--" + words[0]
		for _, v := range f.values {
			f.text += " " + quoteIfNeeded(v)
		}
		if f.name == "config" {
			if len(f.values) != 1 {
				return "", nil, &LoadError{Source: FromFlag, Name: "--" + words[0], Text: f.text, Reason: reasonConfigArgs}
			}
			if file != "" {
				return "", nil, &LoadError{Source: FromFlag, Name: "--" + words[0], Text: f.text, Reason: reasonConfigTwice}
			}
			file = f.values[0]
			continue
		}
		flags = append(flags, f)
	}
	return file, flags, nil
}

func quoteIfNeeded(v string) string {
	if v == "" || strings.ContainsAny(v, " \t\"'\\") {
		return strconv.Quote(v)
	}
	return v
}

// loader applies layers to one snapshot.
type loader struct {
	s        *snapshot
	warnings []string
	inertAt  map[int]string  // inert directives given, and where (the last place)
	warned   map[string]bool // deprecated directives already warned about
}

// directive applies one directive with its arguments; it returns the reason
// when refused. resplit is true when args came one per word from a file line
// or flags: a multi-word directive given one word then splits it, so that
// save "900 1 300 10" and --save "900 1" work, as in redis 7.0.
func (ld *loader) directive(name string, args []string, origin Origin, layer *layerState, resplit bool, where string) string {
	name = strings.ToLower(name)
	id, _, ok := lookup(name)
	if !ok {
		if why := deprecatedDirectives[name]; why != "" && len(args) == 1 {
			if !ld.warned[name] {
				ld.warned[name] = true
				ld.warnings = append(ld.warnings, fmt.Sprintf("'%s' (%s) has no effect: %s", name, where, why))
			}
			return ""
		}
		if name == "sentinel" && len(args) > 0 {
			return reasonSentinelLine // sentinel's own settings, as redis words it
		}
		if why, ok := unsupportedDirectives[name]; ok {
			return why
		}
		return reasonBadDirective
	}
	d := &table[id]
	if !d.is(multiArg) && len(args) != 1 {
		return reasonWrongArgs
	}
	if d.is(multiArg) && resplit && len(args) == 1 && args[0] != "" {
		words, ok := splitArgs(args[0])
		if !ok {
			return reasonUnbalanced
		}
		args = words
	}
	if r := d.apply(ld.s, id, args, layer); r != "" {
		return r
	}
	ld.s.origin[id] = origin
	if d.inert != "" {
		ld.inertAt[id] = where
	}
	return ""
}

// inertWarnings reports, once each in table order, the inert directives
// given a value other than their default: what Tandem will not do.
func (ld *loader) inertWarnings() []string {
	var out []string
	for id := range table {
		where, ok := ld.inertAt[id]
		d := &table[id]
		if !ok || d.format(ld.s, id) == d.format(defaults, id) {
			continue
		}
		out = append(out, fmt.Sprintf("'%s' (%s) has no effect in Tandem: %s", d.name, where, d.inert))
	}
	return out
}

// file applies a configuration file (redis.conf syntax) and its includes.
func (ld *loader) file(path string, layer *layerState, origin Origin, depth int) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return &LoadError{Source: FromFile, File: path, Reason: openFailure(path, err)}
	}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.Trim(line, " \t\r\n")
		if line == "" || line[0] == '#' {
			continue
		}
		fail := func(reason string) error {
			return &LoadError{Source: FromFile, File: path, Line: i + 1, Text: line, Reason: reason}
		}
		words, ok := splitArgs(line)
		if !ok {
			return fail(reasonUnbalanced)
		}
		if len(words) == 0 {
			continue
		}
		if strings.EqualFold(words[0], "include") && len(words) == 2 {
			if err := ld.include(words[1], layer, origin, depth, fail); err != nil {
				return err
			}
			continue
		}
		at := LoadError{Source: FromFile, File: path, Line: i + 1, Text: line}
		if handled, r := ld.renameDirective(strings.ToLower(words[0]), words[1:], false, at); handled {
			if r != "" {
				return fail(r)
			}
			continue
		}
		where := fmt.Sprintf("line %d of %s", i+1, path)
		if r := ld.directive(words[0], words[1:], origin, layer, true, where); r != "" {
			return fail(r)
		}
	}
	return nil
}

// include applies "include path" like redis: a path with * ? [ is a glob
// whose matches are read in order and may match nothing; any other path
// must open. Relative paths are relative to the working directory, as in
// redis.
func (ld *loader) include(path string, layer *layerState, origin Origin, depth int, fail func(string) error) error {
	if depth+1 > maxIncludeDepth {
		return fail(reasonIncludeDepth)
	}
	paths := []string{path}
	if strings.ContainsAny(path, "*?[") {
		m, err := filepath.Glob(path)
		if err != nil {
			return fail(fmt.Sprintf("bad include pattern '%s': %v", path, err))
		}
		paths = m
	}
	for _, p := range paths {
		if err := ld.file(p, layer, origin, depth+1); err != nil {
			var le *LoadError
			if errors.As(err, &le) && le.Line == 0 {
				return fail(le.Reason) // the include line is the useful context
			}
			return err
		}
	}
	return nil
}

// openFailure words a file error as redis does.
func openFailure(path string, err error) string {
	return fmt.Sprintf("Fatal error, can't open config file '%s': %v", path, errnoText(err))
}

// strerror words a file error as C's strerror: "Permission denied".
func strerror(err error) string {
	t := errnoText(err).Error()
	if t != "" && t[0] >= 'a' && t[0] <= 'z' {
		t = string(t[0]-'a'+'A') + t[1:]
	}
	return t
}

// errnoText is the system error of a file operation without the
// operation and path, as C's strerror gives it.
func errnoText(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// env applies one KEY=VALUE of the environment if KEY is TANDEM_<DIRECTIVE>.
func (ld *loader) env(kv string, layer *layerState) error {
	key, value, ok := strings.Cut(kv, "=")
	if !ok || !strings.HasPrefix(key, envPrefix) || len(key) == len(envPrefix) {
		return nil
	}
	name := strings.ToLower(strings.ReplaceAll(key[len(envPrefix):], "_", "-"))
	fail := func(reason string) error {
		return &LoadError{Source: FromEnv, Name: key, Text: kv, Reason: reason}
	}
	if handled, r := ld.renameDirective(name, []string{value}, true, LoadError{Source: FromEnv, Name: key, Text: kv}); handled {
		if r != "" {
			return fail(r)
		}
		return nil
	}
	id, _, known := lookup(name)
	switch {
	case !known && !knownElsewhere(name):
		ld.warnings = append(ld.warnings, fmt.Sprintf("ignoring environment variable %s: no directive '%s'", key, name))
		return nil
	case known && (id == dPort || id == dMemcachedPort) && strings.Contains(value, "://"):
		ld.warnings = append(ld.warnings, fmt.Sprintf("ignoring environment variable %s=%s: a service link (Kubernetes?), not a port", key, value))
		return nil
	}
	args := []string{value}
	if known && table[id].is(multiArg) && value != "" {
		var ok bool
		if args, ok = splitArgs(value); !ok {
			return fail(reasonUnbalanced)
		}
	}
	if r := ld.directive(name, args, FromEnv, layer, false, "environment variable "+key); r != "" {
		return fail(r)
	}
	return nil
}

// flag applies one command-line flag; --include FILE reads a file into the
// flag layer.
func (ld *loader) flag(f cmdFlag, layer *layerState) error {
	fail := func(reason string) error {
		return &LoadError{Source: FromFlag, Name: "--" + f.name, Text: f.text, Reason: reason}
	}
	if f.name == "include" && len(f.values) == 1 {
		return ld.include(f.values[0], layer, FromFlag, 0, fail)
	}
	if handled, r := ld.renameDirective(f.name, f.values, true, LoadError{Source: FromFlag, Name: "--" + f.name, Text: f.text}); handled {
		if r != "" {
			return fail(r)
		}
		return nil
	}
	if r := ld.directive(f.name, f.values, FromFlag, layer, true, "flag --"+f.name); r != "" {
		return fail(r)
	}
	return nil
}

// envName is the environment variable of a directive: maxmemory-policy is
// TANDEM_MAXMEMORY_POLICY.
func envName(directive string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(directive, "-", "_"))
}
