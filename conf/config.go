package conf

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Config holds every directive's current value. It is safe for concurrent
// use: readers load an immutable snapshot with one atomic load (no lock, no
// shared-cache-line writes, so event loops can call the typed getters on
// every request), and CONFIG SET builds a new snapshot and swaps it in, so a
// reader sees either all the pairs of a CONFIG SET or none of them.
type Config struct {
	cur atomic.Pointer[snapshot]

	mu        sync.Mutex // serialises Set and guards the fields below
	callbacks map[int][]func(*Config)
	appliers  []applier // OnApply, in registration order
	file      string    // absolute path of the config file, "" if none
	warnings  []string  // what Load ignored, for the log

	loading atomic.Pointer[func() bool] // SetLoadingCheck's
}

// SetLoadingCheck tells the configuration how to know that the data loads
// at start, when CONFIG SET refuses appendonly, dir and
// repl-diskless-load with LOADING, as Redis.
func (c *Config) SetLoadingCheck(loading func() bool) { c.loading.Store(&loading) }

func (c *Config) loadingNow() bool {
	f := c.loading.Load()
	return f != nil && (*f)()
}

// snapshot is one immutable set of values. Slices in it are never modified
// after the snapshot is published; a change builds new ones.
type snapshot struct {
	num     [numDirectives]int64  // kindInt, kindMemory, kindBool, kindEnum, notify-keyspace-events
	str     [numDirectives]string // kindString
	save    []SaveRule
	bind    []string
	obuf    [numClientClasses]BufferLimit
	renames []CommandRename // rename-command, memcached-rename-command (rename.go)
	origin  [numDirectives]Origin

	aclUsers []ACLUser // user lines (acl.go)
}

// defaults is the snapshot of the table's defaults, built once.
var defaults = func() *snapshot {
	s := &snapshot{}
	for id := range table {
		d := &table[id]
		args := []string{d.def}
		if d.is(multiArg) {
			args, _ = splitArgs(d.def)
		}
		if r := d.apply(s, id, args, nil); r != "" {
			panic(fmt.Sprintf("conf: default of %s: %s", d.name, r))
		}
	}
	return s
}()

// Default returns a Config holding every directive's default.
func Default() *Config {
	c := &Config{callbacks: map[int][]func(*Config){}}
	s := *defaults
	c.cur.Store(&s)
	return c
}

func (c *Config) load() *snapshot { return c.cur.Load() }

// Get returns the name/value pairs CONFIG GET replies with. A pattern
// without * ? [ is looked up as a name or alias (case-insensitively) and
// reported as spelled by the caller, as redis does; other patterns are
// matched (redis glob rules, case-insensitive) against every name and alias.
// Several patterns may be given; a directive name appears once. Pairs come
// in table order within a pattern, patterns in the order given.
func (c *Config) Get(patterns ...string) [][2]string {
	s := c.load()
	var out [][2]string
	seen := map[string]bool{}
	add := func(key string, id int) {
		l := strings.ToLower(key)
		if seen[l] {
			return
		}
		seen[l] = true
		out = append(out, [2]string{key, table[id].format(s, id)})
	}
	for _, p := range patterns {
		if !strings.ContainsAny(p, "[*?") {
			if id, _, ok := lookup(p); ok {
				add(p, id)
			}
			continue
		}
		for id := range table {
			d := &table[id]
			if d.is(hidden) {
				continue
			}
			for _, name := range []string{d.name, d.alias} {
				if name != "" && globMatch(p, name, true) {
					add(name, id)
				}
			}
		}
	}
	return out
}

// Value returns one directive's value as CONFIG GET shows it.
func (c *Config) Value(name string) (string, bool) {
	id, _, ok := lookup(name)
	if !ok {
		return "", false
	}
	return table[id].format(c.load(), id), true
}

// Origin tells where a directive's current value came from; for example
// cmd/tandem computes a default maxmemory only when Origin("maxmemory") is
// FromDefault. Unknown names report FromDefault.
func (c *Config) Origin(name string) Origin {
	id, _, ok := lookup(name)
	if !ok {
		return FromDefault
	}
	return c.load().origin[id]
}

// ConfigFile is the absolute path of the configuration file Load read, or ""
// (INFO's config_file).
func (c *Config) ConfigFile() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.file
}

// Warnings lists what Load accepted but ignored (redis directives Tandem does
// not implement, unknown TANDEM_ variables), one sentence each, for the log.
func (c *Config) Warnings() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.warnings...)
}

// Pairs turns CONFIG SET's arguments (after "CONFIG SET") into pairs. An odd
// count is redis's "ERR syntax error".
func Pairs(args []string) ([][2]string, error) {
	if len(args)%2 != 0 {
		return nil, errors.New(errSyntax)
	}
	pairs := make([][2]string, 0, len(args)/2)
	for i := 0; i < len(args); i += 2 {
		pairs = append(pairs, [2]string{args[i], args[i+1]})
	}
	return pairs, nil
}

// Set applies CONFIG SET name value [name value ...] for a remote client;
// see SetFrom.
func (c *Config) Set(pairs ...[2]string) error { return c.SetFrom(false, pairs...) }

// SetFrom applies CONFIG SET name value [name value ...] all or nothing, as
// redis 7.0: every name is checked first (unknown, immutable, protected,
// given twice), then every value is parsed into a new snapshot, which is
// published only if all parse. local tells whether the client is local
// (loopback or unix socket), for enable-protected-configs "local". The error
// text is redis's reply, "ERR ..." included. An applier (OnApply) may then
// refuse the values for what they name (a certificate that does not load).
// After publishing, the OnChange callbacks of each directive whose value
// changed run on this goroutine.
func (c *Config) SetFrom(local bool, pairs ...[2]string) error {
	ids := make([]int, len(pairs))
	spelled := make([]string, len(pairs))
	cur := c.load()
	allowProtected := ProtectedAction(cur.num[dEnableProtectedConfigs]).Allows(local)

	// Names first, with redis's precedence: the first unknown name wins over
	// anything else; otherwise the first immutable, protected or repeated one.
	var unknown, failName, failReason string
	hasUnknown := false
	for i, p := range pairs {
		id, sp, ok := lookup(p[0])
		if !ok {
			if !hasUnknown && failReason == "" {
				unknown, hasUnknown = p[0], true
			}
			continue
		}
		if hasUnknown || failReason != "" {
			continue
		}
		d := &table[id]
		switch {
		case !d.is(mutable):
			failName, failReason = p[0], reasonImmutable
		case d.is(protected) && !allowProtected:
			failName, failReason = p[0], reasonProtected
		case d.is(denyLoading) && c.loadingNow():
			failName, failReason = p[0], ErrLoading
		}
		for j := 0; j < i && failReason == ""; j++ {
			if spelled[j] == sp {
				failName, failReason = p[0], reasonDuplicate
			}
		}
		ids[i], spelled[i] = id, sp
	}
	if hasUnknown {
		return fmt.Errorf(errUnknownOption, unknown)
	}
	if failReason == ErrLoading {
		return errors.New(ErrLoading)
	}
	if failReason != "" {
		return fmt.Errorf(errSetFailed, failName, failReason)
	}

	c.mu.Lock()
	cur = c.load()
	next := *cur
	for i, p := range pairs {
		d := &table[ids[i]]
		args := []string{p[1]}
		if d.is(multiArg) {
			// CONFIG SET splits on single spaces (redis sdssplitlen), so
			// doubled spaces make empty words, which the parsers refuse.
			args = nil
			if p[1] != "" {
				args = strings.Split(p[1], " ")
			}
		}
		if r := d.apply(&next, ids[i], args, nil); r != "" {
			c.mu.Unlock()
			return fmt.Errorf(errSetFailed, spelled[i], r)
		}
		next.origin[ids[i]] = FromConfigSet
	}
	commits, err := c.apply(cur, &next, ids)
	if err != nil {
		c.mu.Unlock()
		return err
	}
	var changed []int
	for id := range table {
		if table[id].format(cur, id) != table[id].format(&next, id) {
			changed = append(changed, id)
		}
	}
	c.cur.Store(&next)
	for _, commit := range commits {
		commit()
	}
	var run []func(*Config)
	for _, id := range changed {
		run = append(run, c.callbacks[id]...)
	}
	c.mu.Unlock()

	for _, fn := range run {
		fn(c)
	}
	return nil
}

// OnChange registers fn to run after a successful Set that changed the
// directive name (or its alias); e.g. the engine applies a new maxmemory.
// fn runs on the goroutine that called Set, after the new values are
// visible, outside any lock: it reads the value from c and may call Set.
// Callbacks of concurrent Sets may interleave; each sees the latest values.
// It panics on an unknown name, which is a programming error.
func (c *Config) OnChange(name string, fn func(c *Config)) {
	id, _, ok := lookup(name)
	if !ok {
		panic("conf: OnChange of unknown directive " + name)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.callbacks[id] = append(c.callbacks[id], fn)
}

// An applier is one OnApply registration.
type applier struct {
	ids []int
	fn  func(next *Config) (commit func(), err error)
}

// OnApply registers fn as the applier of the directives names, as Redis's
// apply functions (applyTlsCfg): the one place that may refuse a CONFIG
// SET for what its values mean outside conf, such as a certificate file
// that does not load. A Set that gives one of names a new value, or names
// a volatile one at all (a file path: the file may have changed), calls
// fn once, after every value parsed and before any is published; next
// shows the values the Set would publish (read it only: no Set, no
// OnChange). fn must change nothing: it checks (loads the files) and
// returns commit, which makes the values take effect, or an error, which
// refuses the whole Set with redis's "ERR CONFIG SET failed (possibly
// related to argument '<name>') - <err>", naming the first of names the
// Set gave; the old values then stay, and so does what they configured.
// When every applier of a Set agreed, the values are published and the
// commits run, in registration order, under the Set's lock (so two Sets
// never commit out of order), before the OnChange callbacks. Appliers are
// not run at Load: the composition root applies the loaded values itself.
// It panics on an unknown name.
func (c *Config) OnApply(names []string, fn func(next *Config) (commit func(), err error)) {
	a := applier{fn: fn}
	for _, name := range names {
		id, _, ok := lookup(name)
		if !ok {
			panic("conf: OnApply of unknown directive " + name)
		}
		a.ids = append(a.ids, id)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.appliers = append(c.appliers, a)
}

// apply runs the appliers a Set from cur to next (ids: the directives in
// the Set's order) concerns, and returns their commits; under c.mu.
func (c *Config) apply(cur, next *snapshot, ids []int) ([]func(), error) {
	var commits []func()
	var view *Config
	for _, a := range c.appliers {
		first := -1
		for _, id := range ids {
			d := &table[id]
			if slices.Contains(a.ids, id) && (d.is(volatile) || d.format(cur, id) != d.format(next, id)) {
				first = id
				break
			}
		}
		if first < 0 {
			continue
		}
		if view == nil {
			view = &Config{}
			view.cur.Store(next)
		}
		commit, err := a.fn(view)
		if err != nil {
			return nil, fmt.Errorf(errSetFailed, table[first].name, err.Error())
		}
		if commit != nil {
			commits = append(commits, commit)
		}
	}
	return commits, nil
}

// DirectiveInfo describes a directive for help texts and documentation.
type DirectiveInfo struct {
	Name    string
	Alias   string // "" when none
	Default string // as CONFIG GET shows it
	Mutable bool   // CONFIG SET may change it
	Env     string // the environment variable that sets it
}

// Directives lists every directive in table order.
func Directives() []DirectiveInfo {
	out := make([]DirectiveInfo, 0, numDirectives)
	for id := range table {
		d := &table[id]
		out = append(out, DirectiveInfo{
			Name: d.name, Alias: d.alias, Default: d.format(defaults, id),
			Mutable: d.is(mutable), Env: envName(d.name),
		})
	}
	return out
}
