package resp

import (
	"strings"
	"testing"
)

func TestFunctionDumpRestore(t *testing.T) {
	env := newTestEnv(t)
	c := env.client()
	lib := "#!lua name=mylib\nredis.register_function('myfunc', function(keys, args) return args[1] end)"
	c.do("FUNCTION", "LOAD", lib)
	// redis-server 7.0.15's payload for this library, rdbcompression yes.
	golden := "\xf5\xc3\x40\x56\x40\x5b\x1f\x23\x21\x6c\x75\x61\x20\x6e\x61\x6d\x65\x3d\x6d\x79\x6c\x69\x62\x0a\x72\x65\x64\x69\x73\x2e\x72\x65\x67\x69\x73\x74\x65\x72\x5f\x0b\x66\x75\x6e\x63\x74\x69\x6f\x6e\x28\x27\x6d\x79\x40\x0b\x02\x27\x2c\x20\x40\x06\x60\x12\x11\x6b\x65\x79\x73\x2c\x20\x61\x72\x67\x73\x29\x20\x72\x65\x74\x75\x72\x6e\x60\x0c\x07\x5b\x31\x5d\x20\x65\x6e\x64\x29\x0a\x00\x8d\x59\x36\xad\xc6\xe7\x07\xda"
	r := c.do("FUNCTION", "DUMP")
	if want := "$" + itoa(len(golden)) + "\r\n" + golden + "\r\n"; r != want {
		t.Fatalf("FUNCTION DUMP:\n got %q\nwant %q", r, want)
	}
	payload := r[strings.Index(r, "\r\n")+2 : len(r)-2]
	c.expect("-ERR Library mylib already exists\r\n", "FUNCTION", "RESTORE", payload)
	c.expect("+OK\r\n", "FUNCTION", "RESTORE", payload, "REPLACE")
	c.expect("+OK\r\n", "FUNCTION", "FLUSH")
	c.expect("+OK\r\n", "FUNCTION", "RESTORE", payload)
	c.expect("$2\r\nhi\r\n", "FCALL", "myfunc", "0", "hi")
	c.expect("-"+ErrDumpPayload+"\r\n", "FUNCTION", "RESTORE", payload[:len(payload)-1])
	c.expect("-"+ErrRestorePolicy+"\r\n", "FUNCTION", "RESTORE", payload, "MERGE")
	c.expect("-ERR unknown subcommand or wrong number of arguments for 'RESTORE'. Try FUNCTION HELP.\r\n", "FUNCTION", "RESTORE", payload, "FLUSH", "x")
	c.expect("+OK\r\n", "FUNCTION", "RESTORE", "\n\x00]\x9b\\@\x0f\x7f\xa2\xda", "FLUSH") // the empty payload
	c.expect("*0\r\n", "FUNCTION", "LIST")
}
