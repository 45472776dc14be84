package resp

import (
	"errors"

	"github.com/tandemkv/tandem/scripting"
	"github.com/tandemkv/tandem/snapshot/rdb"
)

// FUNCTION DUMP and FUNCTION RESTORE: the loaded libraries' sources in
// redis-server 7.0's payload (snapshot/rdb's AppendFunctionsDump: FUNCTION2
// records framed as a DUMP payload), so that a payload goes both ways
// between Tandem and Redis. Tandem dumps the libraries by name; Redis in
// its dictionary's order.

// ErrRestorePolicy is FUNCTION RESTORE's refusal of an unknown policy.
const ErrRestorePolicy = "ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE."

func cmdFunctionDump(c *Client, _ [][]byte) {
	libs := c.fe.scripts().Functions.Libraries()
	codes := make([][]byte, len(libs))
	for i, l := range libs {
		codes[i] = []byte(l.Code)
	}
	c.w.Bulk(rdb.AppendFunctionsDump(nil, codes, rdb.DumpOptions{Compress: c.fe.cfg.RDBCompression()}))
}

// cmdFunctionRestore is FUNCTION RESTORE payload [FLUSH|APPEND|REPLACE]
// (APPEND by default), checked in Redis's order: the argument count, the
// policy, the payload's footer, its records, then its libraries.
func cmdFunctionRestore(c *Client, args [][]byte) {
	if len(args) > 4 {
		c.subcommandSyntaxError(args)
		return
	}
	policy := scripting.RestoreAppend
	if len(args) == 4 {
		switch p := args[3]; {
		case argIsC(p, "APPEND"):
		case argIsC(p, "REPLACE"):
			policy = scripting.RestoreReplace
		case argIsC(p, "FLUSH"):
			policy = scripting.RestoreFlush
		default:
			c.w.Error(ErrRestorePolicy)
			return
		}
	}
	codes, err := rdb.DecodeFunctionsDump(args[2])
	var fe *rdb.FunctionsDumpError
	switch {
	case errors.Is(err, rdb.ErrDumpFooter):
		c.w.Error(ErrDumpPayload)
		return
	case errors.As(err, &fe):
		c.w.Error("ERR " + fe.Msg)
		return
	case err != nil:
		c.w.Error("ERR " + err.Error())
		return
	}
	if msg := c.fe.scripts().Functions.Restore(codes, policy, &scriptHost{c: c, caller: c}); msg != "" {
		c.w.Error("ERR " + msg)
		return
	}
	c.w.Status("OK")
}
