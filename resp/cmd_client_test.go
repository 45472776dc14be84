package resp

import (
	"strconv"
	"strings"
	"testing"

	"github.com/tandemkv/tandem/server"
	"github.com/tandemkv/tandem/server/servertest"
)

// bulkText returns the text of a bulk or verbatim string reply.
func bulkText(t *testing.T, reply string) string {
	t.Helper()
	head, body, ok := strings.Cut(reply, "\r\n")
	if !ok || (head[0] != '$' && head[0] != '=') || !strings.HasSuffix(body, "\r\n") {
		t.Fatalf("not a bulk reply: %q", reply)
	}
	n, err := strconv.Atoi(head[1:])
	if err != nil || n != len(body)-2 {
		t.Fatalf("bad bulk length in %q", reply)
	}
	body = body[:len(body)-2]
	if head[0] == '=' {
		body = strings.TrimPrefix(body, "txt:")
	}
	return body
}

func TestClientNames(t *testing.T) {
	c := newTestEnv(t).client()
	runSteps(c, []srvStep{
		{argv("CLIENT", "GETNAME"), "$-1\r\n"},
		{argv("CLIENT", "SETNAME", "worker-1"), "+OK\r\n"},
		{argv("CLIENT", "GETNAME"), "$8\r\nworker-1\r\n"},
		{argv("CLIENT", "SETNAME", "a b"), "-ERR Client names cannot contain spaces, newlines or special characters.\r\n"},
		{argv("CLIENT", "SETNAME", "a\nb"), "-ERR Client names cannot contain spaces, newlines or special characters.\r\n"},
		{argv("CLIENT", "SETNAME", "\xc3\xa9"), "-ERR Client names cannot contain spaces, newlines or special characters.\r\n"},
		{argv("CLIENT", "GETNAME"), "$8\r\nworker-1\r\n"},
		{argv("CLIENT", "SETNAME", "a~!"), "+OK\r\n"},
		{argv("CLIENT", "GETNAME"), "$3\r\na~!\r\n"},
		{argv("CLIENT", "SETNAME", ""), "+OK\r\n"},
		{argv("CLIENT", "GETNAME"), "$-1\r\n"},
		{argv("CLIENT", "SETNAME"), "-ERR wrong number of arguments for 'client|setname' command\r\n"},
		{argv("CLIENT", "GETNAME", "x"), "-ERR wrong number of arguments for 'client|getname' command\r\n"},
		{argv("CLIENT", "ID"), ":" + strconv.FormatUint(c.c.id, 10) + "\r\n"},
		{argv("CLIENT"), "-ERR wrong number of arguments for 'client' command\r\n"},
		{argv("CLIENT", "FOO"), "-ERR unknown subcommand 'FOO'. Try CLIENT HELP.\r\n"},
		{argv("client", "foo"), "-ERR unknown subcommand 'foo'. Try CLIENT HELP.\r\n"},
		// Redis 7.2's SETINFO.
		{argv("CLIENT", "SETINFO", "LIB-NAME", "go-redis(x)"), "+OK\r\n"},
		{argv("CLIENT", "SETINFO", "lib-ver", "9.0.5"), "+OK\r\n"},
		{argv("CLIENT", "SETINFO", "lib-ver", "9 0"), "-ERR lib-ver cannot contain spaces, newlines or special characters.\r\n"},
		{argv("CLIENT", "SETINFO", "LIB-FOO", "x"), "-ERR Unrecognized option 'LIB-FOO'\r\n"},
		{argv("CLIENT", "SETINFO", "LIB-NAME"), "-ERR wrong number of arguments for 'client|setinfo' command\r\n"},
	})
	info := bulkText(t, c.do("CLIENT", "INFO"))
	if !strings.HasSuffix(info, " lib-name=go-redis(x) lib-ver=9.0.5\n") {
		t.Errorf("CLIENT INFO: %q", info)
	}
}

func TestClientFlags(t *testing.T) {
	c := newTestEnv(t).client()
	runSteps(c, []srvStep{
		{argv("CLIENT", "NO-EVICT", "on"), "+OK\r\n"},
		{argv("CLIENT", "NO-EVICT", "maybe"), "-ERR syntax error\r\n"},
		{argv("CLIENT", "NO-EVICT"), "-ERR wrong number of arguments for 'client|no-evict' command\r\n"},
		{argv("CLIENT", "NO-TOUCH", "ON"), "+OK\r\n"},
		{argv("CLIENT", "NO-TOUCH", "x"), "-ERR syntax error\r\n"},
	})
	if !c.c.db.NoTouch {
		t.Error("NO-TOUCH on did not reach the database handle")
	}
	c.expect("+OK\r\n", "SELECT", "2")
	if !c.c.db.NoTouch {
		t.Error("SELECT dropped NO-TOUCH")
	}
	if info := c.do("CLIENT", "INFO"); !strings.Contains(info, " flags=eT ") || !strings.Contains(info, " db=2 ") {
		t.Errorf("CLIENT INFO: %q", info)
	}
	c.expect("+OK\r\n", "CLIENT", "NO-EVICT", "OFF")
	c.expect("+OK\r\n", "CLIENT", "NO-TOUCH", "off")
	if info := c.do("CLIENT", "INFO"); !strings.Contains(info, " flags=N ") {
		t.Errorf("CLIENT INFO: %q", info)
	}
}

func TestClientInfoAndList(t *testing.T) {
	env := newTestEnv(t)
	a, b := env.client(), env.client()
	b.expect("+OK\r\n", "CLIENT", "SETNAME", "bee")
	b.expect("+OK\r\n", "SELECT", "5")

	info := a.do("CLIENT", "INFO")
	line := bulkText(t, info)
	want := "id=" + strconv.FormatUint(a.c.id, 10) + " addr=127.0.0.1:50000 laddr=127.0.0.1:6379 fd=8 name= age=0 idle=0 flags=N db=0 sub=0 psub=0 ssub=0 multi=-1 "
	if !strings.HasPrefix(line, want) || !strings.HasSuffix(line, " events=r cmd=client|info user=default redir=-1 resp=2 lib-name= lib-ver=\n") {
		t.Errorf("CLIENT INFO:\n got %q\nwant %q...", line, want)
	}
	fields := strings.Fields(line)
	var keys []string
	for _, f := range fields {
		k, _, _ := strings.Cut(f, "=")
		keys = append(keys, k)
	}
	if got := strings.Join(keys, " "); got != "id addr laddr fd name age idle flags db sub psub ssub multi qbuf qbuf-free argv-mem multi-mem rbs rbp obl oll omem tot-mem events cmd user redir resp lib-name lib-ver" {
		t.Errorf("CLIENT INFO fields: %s", got)
	}

	list := bulkText(t, a.do("CLIENT", "LIST"))
	lines := strings.Split(strings.TrimSuffix(list, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("CLIENT LIST: %d lines: %q", len(lines), list)
	}
	if !strings.HasPrefix(lines[0], "id="+strconv.FormatUint(a.c.id, 10)+" ") || !strings.Contains(lines[0], " cmd=client|list ") {
		t.Errorf("CLIENT LIST line 1: %q", lines[0])
	}
	if !strings.HasPrefix(lines[1], "id="+strconv.FormatUint(b.c.id, 10)+" ") || !strings.Contains(lines[1], " name=bee ") ||
		!strings.Contains(lines[1], " db=5 ") || !strings.Contains(lines[1], " cmd=select ") {
		t.Errorf("CLIENT LIST line 2: %q", lines[1])
	}

	bid := strconv.FormatUint(b.c.id, 10)
	if got := bulkText(t, a.do("CLIENT", "LIST", "ID", bid, "999999", bid)); strings.Count(got, "\n") != 2 || !strings.HasPrefix(got, "id="+bid+" ") {
		t.Errorf("CLIENT LIST ID: %q", got)
	}
	if got := bulkText(t, a.do("CLIENT", "LIST", "TYPE", "normal")); strings.Count(got, "\n") != 2 {
		t.Errorf("CLIENT LIST TYPE normal: %q", got)
	}
	runSteps(a, []srvStep{
		{argv("CLIENT", "LIST", "TYPE", "pubsub"), "$0\r\n\r\n"},
		{argv("CLIENT", "LIST", "TYPE", "replica"), "$0\r\n\r\n"},
		{argv("CLIENT", "LIST", "TYPE", "foo"), "-ERR Unknown client type 'foo'\r\n"},
		{argv("CLIENT", "LIST", "TYPE"), "-ERR syntax error\r\n"},
		{argv("CLIENT", "LIST", "ID"), "-ERR syntax error\r\n"},
		{argv("CLIENT", "LIST", "ID", "1", "x"), "-ERR Invalid client ID\r\n"},
		{argv("CLIENT", "LIST", "ID", "0"), "$0\r\n\r\n"},
		{argv("CLIENT", "LIST", "TYPE", "normal", "ID", "1"), "-ERR syntax error\r\n"},
		{argv("CLIENT", "LIST", "foo"), "-ERR syntax error\r\n"},
	})

	// RESP3: verbatim strings.
	a.do("HELLO", "3")
	if got := a.do("CLIENT", "LIST", "ID", "0"); got != "=4\r\ntxt:\r\n" {
		t.Errorf("RESP3 empty CLIENT LIST: %q", got)
	}
	if got := a.do("CLIENT", "INFO"); !strings.HasPrefix(got, "=") || !strings.Contains(got, "\r\ntxt:id=") || !strings.Contains(got, " resp=3 ") {
		t.Errorf("RESP3 CLIENT INFO: %q", got)
	}
}

func TestClientKill(t *testing.T) {
	env := newTestEnv(t)
	a, b, c := env.client(), env.client(), env.client()
	bid := strconv.FormatUint(b.c.id, 10)
	runSteps(a, []srvStep{
		{argv("CLIENT", "KILL"), "-ERR wrong number of arguments for 'client|kill' command\r\n"},
		{argv("CLIENT", "KILL", "1.2.3.4:5"), "-ERR No such client\r\n"},
		{argv("CLIENT", "KILL", "ID"), "-ERR No such client\r\n"}, // the old form: "ID" is an address
		{argv("CLIENT", "KILL", "ID", "x"), "-ERR client-id should be greater than 0\r\n"},
		{argv("CLIENT", "KILL", "ID", "0"), "-ERR client-id should be greater than 0\r\n"},
		{argv("CLIENT", "KILL", "ID", "99999"), ":0\r\n"},
		{argv("CLIENT", "KILL", "ID", "99999", "TYPE"), "-ERR syntax error\r\n"},
		{argv("CLIENT", "KILL", "TYPE", "foo"), "-ERR Unknown client type 'foo'\r\n"},
		{argv("CLIENT", "KILL", "TYPE", "pubsub"), ":0\r\n"},
		{argv("CLIENT", "KILL", "USER", "nobody"), "-ERR No such user 'nobody'\r\n"},
		{argv("CLIENT", "KILL", "USER", "default", "SKIPME", "maybe"), "-ERR syntax error\r\n"},
		{argv("CLIENT", "KILL", "FOO", "bar"), "-ERR syntax error\r\n"},
		{argv("CLIENT", "KILL", "LADDR", "1.2.3.4:5"), ":0\r\n"},
		// The new form skips the caller by default.
		{argv("CLIENT", "KILL", "ID", strconv.FormatUint(a.c.id, 10)), ":0\r\n"},
		{argv("CLIENT", "KILL", "ID", bid, "USER", "default", "LADDR", "127.0.0.1:6379"), ":1\r\n"},
	})
	if !b.peer.Closed.Load() {
		t.Fatal("CLIENT KILL ID did not close the peer")
	}
	if c.peer.Closed.Load() || a.peer.Closed.Load() {
		t.Fatal("CLIENT KILL ID closed the wrong peer")
	}
	// The killed client runs nothing more and leaves the list at once.
	if got := b.do("SET", "k", "v"); got != "" || !b.closed {
		t.Errorf("killed client served %q closed=%v", got, b.closed)
	}
	if got := bulkText(t, a.do("CLIENT", "LIST")); strings.Count(got, "\n") != 2 {
		t.Errorf("CLIENT LIST after kill: %q", got)
	}
	// Every fake peer has the same address: ADDR kills all but the caller.
	a.expect(":1\r\n", "CLIENT", "KILL", "ADDR", "127.0.0.1:50000")
	if !c.peer.Closed.Load() || a.closed {
		t.Fatal("CLIENT KILL ADDR")
	}
	// SKIPME no, or the old form, may kill the caller: it gets its reply,
	// then the connection closes.
	d := env.client()
	d.expect("+OK\r\n", "CLIENT", "KILL", "127.0.0.1:50000")
	if !d.closed || !a.peer.Closed.Load() {
		t.Fatalf("old form: caller closed=%v, other closed=%v", d.closed, a.peer.Closed.Load())
	}
	e := env.client()
	e.expect(":1\r\n", "CLIENT", "KILL", "ID", strconv.FormatUint(e.c.id, 10), "SKIPME", "no")
	if !e.closed {
		t.Fatal("SKIPME no did not close the caller")
	}
}

func TestClientReply(t *testing.T) {
	c := newTestEnv(t).client()
	in := encodeCommand("CLIENT", "REPLY", "SKIP") + encodeCommand("PING", "a") + encodeCommand("PING", "b") +
		encodeCommand("CLIENT", "REPLY", "OFF") + encodeCommand("PING", "c") + encodeCommand("NOSUCH") +
		encodeCommand("CLIENT", "REPLY", "SKIP") + encodeCommand("PING", "d") +
		encodeCommand("CLIENT", "REPLY", "ON") + encodeCommand("PING", "e") +
		encodeCommand("CLIENT", "REPLY", "maybe") + encodeCommand("CLIENT", "REPLY", "SKIP") +
		encodeCommand("CLIENT", "REPLY", "ON") + encodeCommand("PING", "f")
	want := "$1\r\nb\r\n+OK\r\n$1\r\ne\r\n-ERR syntax error\r\n+OK\r\n$1\r\nf\r\n"
	if got := c.raw(in); got != want {
		t.Errorf("CLIENT REPLY:\n got %q\nwant %q", got, want)
	}
}

func TestClientHelp(t *testing.T) {
	c := newTestEnv(t).client()
	got := c.do("client", "help")
	want := "*" + strconv.Itoa(len(clientHelp)+3) + "\r\n+CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n+CACHING (YES|NO)\r\n"
	if !strings.HasPrefix(got, want) || !strings.HasSuffix(got, "+HELP\r\n+    Prints this help.\r\n") {
		t.Errorf("CLIENT HELP: %q", got)
	}
	// Every subcommand Tandem serves has its help entry.
	for _, sc := range newTestEnv(t).fe.table.lookupFullName([]byte("client")).Subcommands {
		word := strings.ToUpper(strings.TrimPrefix(sc.Name, "client|"))
		if !strings.Contains(got, "\r\n+"+word) {
			t.Errorf("CLIENT HELP lacks %s", word)
		}
	}
}

// reportingPeer is a Peer whose server reports fixed buffer figures.
type reportingPeer struct {
	*fakePeer
	b server.ConnBuffers
}

func (p reportingPeer) Buffers() server.ConnBuffers { return p.b }

// CLIENT LIST's buffer fields: the caller's live view, another client's
// as the server reports them, and an open transaction's.
func TestClientListBuffers(t *testing.T) {
	env := newTestEnv(t)
	a := env.client()
	fields := func(line string) map[string]string {
		m := map[string]string{}
		for _, kv := range strings.Fields(line) {
			k, v, _ := strings.Cut(kv, "=")
			m[k] = v
		}
		return m
	}
	in := encodeCommand("PING") + encodeCommand("CLIENT", "INFO")
	buf := make([]byte, len(in), 1000)
	copy(buf, in)
	_, out, _ := a.c.Serve(buf, nil)
	f := fields(string(out[len("+PONG\r\n"):]))
	for k, want := range map[string]string{
		"qbuf": strconv.Itoa(len(in)), "qbuf-free": strconv.Itoa(1000 - len(in)), "argv-mem": "10",
		"obl": "7", "oll": "0", "omem": "0", "multi": "-1", "multi-mem": "0", "flags": "N",
	} {
		if f[k] != want {
			t.Errorf("caller's %s = %q, want %q", k, f[k], want)
		}
	}

	// Another client: the server's figures, and its transaction.
	bp := reportingPeer{fakePeer: servertest.NewPeer("127.0.0.1:6379"), b: server.ConnBuffers{Query: 5, QueryFree: 100, Reply: 4096, ReplyPeak: 300, Queued: 2000}}
	b := env.fe.NewSession(bp).(*Client)
	serve := func(c *Client, args ...string) string {
		_, out, _ := c.Serve([]byte(encodeCommand(args...)), nil)
		return string(out)
	}
	serve(b, "MULTI")
	serve(b, "SET", "k", "v")
	line := serve(a.c, "CLIENT", "LIST", "ID", strconv.FormatUint(b.id, 10))
	f = fields(line[strings.IndexByte(line, '\n')+1:])
	for k, want := range map[string]string{
		"qbuf": "5", "qbuf-free": "100", "rbs": "4096", "rbp": "300", "obl": "0", "oll": "1", "omem": "2000",
		"argv-mem": "0", "multi": "1", "multi-mem": strconv.Itoa(5 + 3*24), "flags": "x",
	} {
		if f[k] != want {
			t.Errorf("other's %s = %q, want %q", k, f[k], want)
		}
	}
	tot, _ := strconv.ParseInt(f["tot-mem"], 10, 64)
	if want := clientStructSize + 105 + 4096 + 2000 + 77; tot != want {
		t.Errorf("other's tot-mem = %d, want %d", tot, want)
	}
	serve(b, "DISCARD")
	line = serve(a.c, "CLIENT", "LIST", "ID", strconv.FormatUint(b.id, 10))
	if f = fields(line[strings.IndexByte(line, '\n')+1:]); f["multi"] != "-1" || f["multi-mem"] != "0" || f["flags"] != "N" {
		t.Errorf("after DISCARD: multi=%s multi-mem=%s flags=%s", f["multi"], f["multi-mem"], f["flags"])
	}
}
