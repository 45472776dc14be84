package resp

import (
	"strconv"
	"strings"
	"testing"
)

// infoHeaders returns the section headers of an INFO text, in order.
func infoHeaders(text string) []string {
	var h []string
	for _, line := range strings.Split(text, "\r\n") {
		if strings.HasPrefix(line, "# ") {
			h = append(h, line[2:])
		}
	}
	return h
}

// infoFields parses an INFO text into its fields.
func infoFieldMap(text string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(text, "\r\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(line, "#") {
			m[k] = v
		}
	}
	return m
}

func TestInfoSections(t *testing.T) {
	c := newTestEnv(t).client()
	defaults := "Server Clients Memory Persistence Stats Replication CPU Modules Errorstats Cluster Keyspace"
	all := "Server Clients Memory Persistence Stats Replication CPU Modules Commandstats Errorstats Latencystats Cluster Keyspace"
	// Section choice as redis 7.0.15: order is always Redis's.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, defaults},
		{[]string{"default"}, defaults},
		{[]string{"all"}, all},
		{[]string{"everything"}, all + " Compression"}, // Tandem's own section, as a module's
		{[]string{"compression"}, "Compression"},
		{[]string{"all", "default"}, all},
		{[]string{"default", "commandstats"}, "Server Clients Memory Persistence Stats Replication CPU Modules Commandstats Errorstats Cluster Keyspace"},
		{[]string{"CLIENTS", "server"}, "Server Clients"},
		{[]string{"modules"}, "Modules"},
		{[]string{"module_list"}, "Modules"},
		{[]string{"nosuch"}, ""},
	} {
		got := strings.Join(infoHeaders(bulkText(t, c.do(append([]string{"INFO"}, tc.args...)...))), " ")
		if got != tc.want {
			t.Errorf("INFO %v: sections %q, want %q", tc.args, got, tc.want)
		}
	}
	c.expect("$0\r\n\r\n", "INFO", "nosuch")
	c.expect("$30\r\n# Cluster\r\ncluster_enabled:0\r\n\r\n", "INFO", "cluster")
	c.expect("$44\r\n# Cluster\r\ncluster_enabled:0\r\n\r\n# Keyspace\r\n\r\n", "INFO", "cluster", "keyspace")
}

func TestInfoText(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	c.do("SET", "a", "1")
	c.do("SET", "b", "1", "EX", "100")
	c.do("SELECT", "3")
	c.do("SET", "c", "1")
	c.do("GET", "c")
	c.do("GET", "nokey")
	c.do("GET")
	text := bulkText(t, c.do("INFO", "everything"))

	// Lines end in \r\n; sections are separated by one empty line.
	if !strings.HasPrefix(text, "# Server\r\nredis_version:"+Version+"\r\n") || !strings.HasSuffix(text, "\r\n") ||
		strings.Contains(strings.ReplaceAll(text, "\r\n", ""), "\n") || strings.Contains(text, "\r\n\r\n\r\n") {
		t.Errorf("INFO text is not Redis-shaped:\n%q", text)
	}
	f := infoFieldMap(text)
	for _, name := range []string{
		"redis_version", "tandem_version", "redis_mode", "os", "arch_bits", "process_id", "run_id",
		"tcp_port", "uptime_in_seconds", "uptime_in_days", "hz", "executable", "config_file",
		"connected_clients", "maxclients", "blocked_clients",
		"used_memory", "used_memory_human", "used_memory_rss", "used_memory_peak", "maxmemory",
		"maxmemory_human", "maxmemory_policy", "mem_fragmentation_ratio",
		"loading", "rdb_changes_since_last_save", "rdb_bgsave_in_progress", "rdb_last_save_time",
		"total_connections_received", "total_commands_processed", "instantaneous_ops_per_sec",
		"total_net_input_bytes", "keyspace_hits", "keyspace_misses", "expired_keys", "evicted_keys",
		"rejected_connections", "total_error_replies",
		"role", "connected_slaves", "master_replid",
		"used_cpu_sys", "used_cpu_user",
		"cluster_enabled",
	} {
		if _, ok := f[name]; !ok {
			t.Errorf("INFO lacks %s", name)
		}
	}
	for k, want := range map[string]string{
		"redis_version":              Version,
		"redis_mode":                 "standalone",
		"tcp_port":                   "6379",
		"maxmemory":                  "0",
		"maxmemory_human":            "0B",
		"maxmemory_policy":           "allkeys-s3fifo",
		"role":                       "master",
		"keyspace_hits":              "1",
		"keyspace_misses":            "1",
		"total_error_replies":        "1",
		"total_connections_received": "1",
		"connected_clients":          "1",
		"db0":                        "keys=2,expires=1,avg_ttl=0",
		"db3":                        "keys=1,expires=0,avg_ttl=0",
		"errorstat_ERR":              "count=1",
		"rdb_last_bgsave_status":     "ok",
		"arch_bits":                  "64",
	} {
		if f[k] != want {
			t.Errorf("INFO %s = %q, want %q", k, f[k], want)
		}
	}
	used, _ := strconv.ParseInt(f["used_memory"], 10, 64)
	peak, _ := strconv.ParseInt(f["used_memory_peak"], 10, 64)
	if used <= 0 || peak < used {
		t.Errorf("used_memory %s, peak %s", f["used_memory"], f["used_memory_peak"])
	}
	if len(f["run_id"]) != 40 || len(f["master_replid"]) != 40 {
		t.Errorf("run_id %q master_replid %q", f["run_id"], f["master_replid"])
	}
	if _, ok := f["db1"]; ok {
		t.Error("INFO keyspace lists an empty database")
	}
	if got := f["cmdstat_get"]; !strings.HasPrefix(got, "calls=2,usec=") || !strings.HasSuffix(got, ",rejected_calls=1,failed_calls=0") {
		t.Errorf("cmdstat_get:%s", got)
	}
	if _, ok := f["cmdstat_del"]; ok {
		t.Error("commandstats lists a command never called")
	}
}

func TestInfoRESP3(t *testing.T) {
	c := newTestEnv(t).client()
	c.do("HELLO", "3")
	c.expect("=16\r\ntxt:# Keyspace\r\n\r\n", "INFO", "keyspace")
	c.expect("=4\r\ntxt:\r\n", "INFO", "nosuch")
}

func TestErrorCode(t *testing.T) {
	for in, want := range map[string]string{
		"ERR syntax error\r\n":                          "ERR",
		"WRONGTYPE Operation against a key\r\n":         "WRONGTYPE",
		"NOAUTH Authentication required.\r\n":           "NOAUTH",
		"nospace\r\n":                                   "ERR",
		strings.Repeat("X", 40) + " after 32 bytes\r\n": "ERR",
	} {
		if got := errorCode([]byte(in)); got != want {
			t.Errorf("errorCode(%q) = %q, want %q", in, got, want)
		}
	}
}

// INFO stats reports the counts the server keeps in the front-end's
// IOStats, and CONFIG RESETSTAT zeroes them, as Redis's resetServerStats.
func TestInfoIOStats(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	io := env.fe.IOStats()
	io.Reads.Add(0, 7)
	io.Reads.Add(5, 2)
	io.Writes.Add(3, 4)
	io.CountReplyResize(1, 16, 64, false)
	io.CountReplyResize(2, 16, 2<<20, true)
	io.CountReplyResize(2, 0, 64, false) // a new buffer: no expansion
	f := infoFieldMap(bulkText(t, c.do("INFO", "stats")))
	for k, want := range map[string]string{
		"total_reads_processed": "9", "total_writes_processed": "4",
		"reply_buffer_expands": "2", "reply_buffer_shrinks": "1",
		"io_threaded_reads_processed": "0",
	} {
		if f[k] != want {
			t.Errorf("INFO %s = %q, want %q", k, f[k], want)
		}
	}
	c.do("CONFIG", "RESETSTAT")
	f = infoFieldMap(bulkText(t, c.do("INFO", "stats")))
	for _, k := range []string{"total_reads_processed", "total_writes_processed", "reply_buffer_expands", "reply_buffer_shrinks"} {
		if f[k] != "0" {
			t.Errorf("after RESETSTAT, INFO %s = %q", k, f[k])
		}
	}
	// The main thread's CPU is the process's (info.go says why).
	f = infoFieldMap(bulkText(t, c.do("INFO", "cpu")))
	for _, k := range []string{"used_cpu_sys_main_thread", "used_cpu_user_main_thread"} {
		whole, frac, ok := strings.Cut(f[k], ".")
		if _, err := strconv.ParseUint(whole+frac, 10, 64); err != nil || !ok || len(frac) != 6 {
			t.Errorf("INFO %s = %q, want seconds with 6 decimals", k, f[k])
		}
	}
	if f["used_cpu_user_main_thread"] != f["used_cpu_user"] || f["used_cpu_sys_main_thread"] != f["used_cpu_sys"] {
		t.Errorf("main thread CPU %s/%s, process %s/%s", f["used_cpu_user_main_thread"], f["used_cpu_sys_main_thread"], f["used_cpu_user"], f["used_cpu_sys"])
	}
}
