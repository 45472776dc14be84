package scripting

import (
	"bytes"
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// ReplyWriter receives a script's result in the caller's protocol. The
// RESP front-end's writer, through a small adapter, is one.
type ReplyWriter interface {
	Status(s string)
	Error(msg string) // msg without the leading '-'
	Int(n int64)
	Bulk(b []byte)
	Null()
	Array(n int)
	Map(pairs int)
	Set(n int)
	Double(f float64)
	Bool(b bool)
	BigNumber(s string)
	// Verbatim is a verbatim string with its three-letter format.
	Verbatim(format, s string)
}

// CountedErrorWriter is a ReplyWriter that takes apart an error reply
// already counted in the error statistics: the error of a command the
// script called, counted when that command failed (Host.Call), which the
// script raised or returned (its table has ignore_error_stats_update).
// Redis writes it with ERR_REPLY_FLAG_NO_STATS_UPDATE.
type CountedErrorWriter interface {
	CountedError(msg string)
}

// writeError writes an error reply, counted or not (CountedErrorWriter).
func writeError(w ReplyWriter, msg string, counted bool) {
	if cw, ok := w.(CountedErrorWriter); ok && counted {
		cw.CountedError(msg)
		return
	}
	w.Error(msg)
}

// statsCounted reports whether an error table's error was counted
// already: its ignore_error_stats_update is true.
func statsCounted(t *lua.LTable) bool {
	b, ok := t.RawGetString("ignore_error_stats_update").(lua.LBool)
	return ok && bool(b)
}

// maxReplyDepth bounds the nesting of a reply, in both directions, where
// Redis runs out of Lua stack ("reached lua stack limit").
const maxReplyDepth = 4000

// parseReply converts one RESP2/RESP3 reply to a Lua value as Redis's
// redisProtocolToLuaType: integer → number, bulk → string, null bulk or
// null array → false, RESP3 null → nil, status → {ok=…}, error → {err=…},
// array → table, map → {map={…}}, set → {set={k=true}}, double →
// {double=n}, boolean → boolean, big number → {big_number="…"}, verbatim
// → {verbatim_string={format=…, string=…}}; attributes are skipped. It
// returns the value and the bytes consumed.
func (vm *VM) parseReply(b []byte, depth int) (lua.LValue, int) {
	L := vm.L
	if len(b) == 0 {
		return lua.LNil, 0
	}
	end := bytes.Index(b, []byte("\r\n"))
	if end < 0 {
		return lua.LNil, len(b)
	}
	line := string(b[1:end])
	n := end + 2
	count := func() int {
		v, _ := strconv.Atoi(line)
		return v
	}
	switch b[0] {
	case ':':
		v, _ := strconv.ParseInt(line, 10, 64)
		return lua.LNumber(v), n
	case '$', '=':
		l := count()
		if l < 0 {
			return lua.LFalse, n
		}
		if n+l > len(b) {
			return lua.LNil, len(b)
		}
		s := b[n : n+l]
		n += l + 2
		if b[0] == '$' {
			return lua.LString(s), n
		}
		format, text := "", string(s)
		if len(s) >= 4 && s[3] == ':' {
			format, text = string(s[:3]), string(s[4:])
		}
		inner := L.NewTable()
		inner.RawSetString("format", lua.LString(format))
		inner.RawSetString("string", lua.LString(text))
		t := L.NewTable()
		t.RawSetString("verbatim_string", inner)
		return t, n
	case '+':
		t := L.NewTable()
		t.RawSetString("ok", lua.LString(line))
		return t, n
	case '-':
		t := errorTable(L, "-"+line)
		t.RawSetString("ignore_error_stats_update", lua.LTrue)
		return t, n
	case '*', '~', '>':
		c := count()
		if c < 0 {
			return lua.LFalse, n
		}
		arr := L.CreateTable(c, 0)
		for i := 1; i <= c; i++ {
			v, used := vm.parseReply(b[n:], depth+1)
			n += used
			if b[0] == '~' {
				arr.RawSet(v, lua.LTrue)
			} else {
				arr.RawSetInt(i, v)
			}
		}
		if b[0] != '~' {
			return arr, n
		}
		t := L.NewTable()
		t.RawSetString("set", arr)
		return t, n
	case '%', '|':
		c := count()
		m := L.NewTable()
		for i := 0; i < c; i++ {
			k, used := vm.parseReply(b[n:], depth+1)
			n += used
			v, used := vm.parseReply(b[n:], depth+1)
			n += used
			if k != lua.LNil {
				m.RawSet(k, v)
			}
		}
		if b[0] == '|' { // an attribute: skip it, the reply follows
			v, used := vm.parseReply(b[n:], depth)
			return v, n + used
		}
		t := L.NewTable()
		t.RawSetString("map", m)
		return t, n
	case '_':
		return lua.LNil, n
	case '#':
		return lua.LBool(line == "t"), n
	case ',':
		t := L.NewTable()
		t.RawSetString("double", lua.LNumber(parseDouble(line)))
		return t, n
	case '(':
		t := L.NewTable()
		t.RawSetString("big_number", lua.LString(line))
		return t, n
	}
	return lua.LNil, n
}

// parseDouble reads a RESP3 double as strtod does.
func parseDouble(s string) float64 {
	switch strings.ToLower(s) {
	case "inf", "+inf":
		return math.Inf(1)
	case "-inf":
		return math.Inf(-1)
	case "nan", "-nan":
		return math.NaN()
	}
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// luaInteger is C's (long long) cast of a Lua number: truncation, and
// LLONG_MIN for NaN and what does not fit, as x86-64 gives.
func luaInteger(f float64) int64 {
	if math.IsNaN(f) || f >= 9223372036854775808.0 || f < -9223372036854775808.0 {
		return math.MinInt64
	}
	return int64(f)
}

// writeReply converts a script's result as Redis's luaReplyToRedisReply:
// string → bulk, number → integer (truncated), true → 1 (RESP2 script) or
// boolean, false → null (RESP2 script) or boolean, a table with a string
// err → error, ok → status, number double → double, string big_number,
// table verbatim_string, table map, table set, else an array of the
// table's 1..n elements up to the first nil; anything else → null. proto
// is the script's redis.setresp protocol.
func (vm *VM) writeReply(w ReplyWriter, v lua.LValue, proto int, depth int) {
	if depth >= maxReplyDepth {
		w.Error("ERR reached lua stack limit")
		return
	}
	switch x := v.(type) {
	case lua.LString:
		w.Bulk([]byte(x))
	case lua.LBool:
		switch {
		case proto == 3:
			w.Bool(bool(x))
		case bool(x):
			w.Int(1)
		default:
			w.Null()
		}
	case lua.LNumber:
		w.Int(luaInteger(float64(x)))
	case *lua.LTable:
		vm.writeTable(w, x, proto, depth)
	default:
		w.Null()
	}
}

func (vm *VM) writeTable(w ReplyWriter, t *lua.LTable, proto, depth int) {
	L := vm.L
	if e, ok := t.RawGetString("err").(lua.LString); ok {
		_ = e
		msg := fieldString(L, t, "err")
		writeError(w, strings.TrimRight(msg, "\r\n"), statsCounted(t))
		return
	}
	if s, ok := t.RawGetString("ok").(lua.LString); ok {
		w.Status(string(s))
		return
	}
	if d, ok := t.RawGetString("double").(lua.LNumber); ok {
		w.Double(float64(d))
		return
	}
	if s, ok := t.RawGetString("big_number").(lua.LString); ok {
		w.BigNumber(mapNewlines(string(s)))
		return
	}
	if vt, ok := t.RawGetString("verbatim_string").(*lua.LTable); ok {
		f, okf := vt.RawGetString("format").(lua.LString)
		s, oks := vt.RawGetString("string").(lua.LString)
		if okf && oks {
			w.Verbatim(string(f), string(s))
			return
		}
	}
	if m, ok := t.RawGetString("map").(*lua.LTable); ok {
		var keys, vals []lua.LValue
		m.ForEach(func(k, v lua.LValue) {
			keys = append(keys, k)
			vals = append(vals, v)
		})
		w.Map(len(keys))
		for i := range keys {
			vm.writeReply(w, keys[i], proto, depth+1)
			vm.writeReply(w, vals[i], proto, depth+1)
		}
		return
	}
	if s, ok := t.RawGetString("set").(*lua.LTable); ok {
		var keys []lua.LValue
		s.ForEach(func(k, _ lua.LValue) { keys = append(keys, k) })
		w.Set(len(keys))
		for _, k := range keys {
			vm.writeReply(w, k, proto, depth+1)
		}
		return
	}
	n := 0
	for t.RawGetInt(n+1) != lua.LNil {
		n++
	}
	w.Array(n)
	for i := 1; i <= n; i++ {
		vm.writeReply(w, t.RawGetInt(i), proto, depth+1)
	}
}

// mapNewlines replaces CR and LF with spaces, as sdsmapchars does.
func mapNewlines(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\r' || r == '\n' {
			return ' '
		}
		return r
	}, s)
}
