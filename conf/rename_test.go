package conf

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestCommandRenames(t *testing.T) {
	dir := t.TempDir()
	path := writeConf(t, dir, "t.conf", "rename-command flushall myflush\n"+
		"rename-command CONFIG \"\"\n"+
		"memcached-rename-command flush_all \"\"\n"+
		"memcached-rename-command lru_crawler crawl\n")
	c, err := Load([]string{path, "--rename-command", "get", "g2", "--rename-command", "set s2",
		"--memcached-rename-command", "shutdown", "stop"},
		[]string{`TANDEM_RENAME_COMMAND=debug ""`, `TANDEM_MEMCACHED_RENAME_COMMAND=verbosity v`})
	if err != nil {
		t.Fatal(err)
	}
	pairs := func(port string) [][2]string {
		var out [][2]string
		for _, r := range c.CommandRenames(port) {
			out = append(out, [2]string{r.Old, r.New})
		}
		return out
	}
	// File lines, then the environment, then the flags: the order they apply.
	if got, want := pairs(PortRedis), [][2]string{{"flushall", "myflush"}, {"CONFIG", ""}, {"debug", ""}, {"get", "g2"}, {"set", "s2"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("redis renames = %q, want %q", got, want)
	}
	if got, want := pairs(PortMemcached), [][2]string{{"flush_all", ""}, {"lru_crawler", "crawl"}, {"verbosity", "v"}, {"shutdown", "stop"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("memcached renames = %q, want %q", got, want)
	}
	if len(c.Warnings()) != 0 {
		t.Errorf("warnings: %q", c.Warnings())
	}
	// Start-up only, as in redis: not a CONFIG GET/SET name.
	if got := c.Get("rename-command"); len(got) != 0 {
		t.Errorf("CONFIG GET rename-command = %q", got)
	}
	if err := c.Set([2]string{"rename-command", "get x"}); err == nil || !strings.Contains(err.Error(), "Unknown option") {
		t.Errorf("CONFIG SET rename-command: %v", err)
	}

	// A front-end's refusal is worded at the asking line.
	err = c.CommandRenames(PortRedis)[0].Fail(ReasonRenameNoSuchCommand)
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("Fail = %T", err)
	}
	want := fatalHeader + "\nReading the configuration file, at line 1 (" + path + ")\n>>> 'rename-command flushall myflush'\n" + ReasonRenameNoSuchCommand
	if err.Error() != want {
		t.Errorf("Fail:\n%s\nwant:\n%s", err, want)
	}
	err = c.CommandRenames(PortRedis)[3].Fail(ReasonRenameTargetExists)
	if want := fatalHeader + "\nReading the command line, at flag --rename-command\n>>> '--rename-command get g2'\n" + ReasonRenameTargetExists; err.Error() != want {
		t.Errorf("Fail:\n%s\nwant:\n%s", err, want)
	}
}

func TestMemcachedDisableFlushAll(t *testing.T) {
	c := mustLoad(t, nil, nil)
	if c.MemcachedDisableFlushAll() {
		t.Error("default: flush_all disabled")
	}
	c = mustLoad(t, []string{"--memcached-disable-flush-all", "yes"}, nil)
	if !c.MemcachedDisableFlushAll() {
		t.Error("--memcached-disable-flush-all yes: not disabled")
	}
	// Immutable: memcached -F is a start-up switch.
	if err := c.Set([2]string{"memcached-disable-flush-all", "no"}); err == nil {
		t.Error("CONFIG SET memcached-disable-flush-all succeeded")
	}
}
