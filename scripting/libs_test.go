package scripting

import (
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// Expected replies captured from redis-server 7.0.15.

func TestCjson(t *testing.T) {
	runEvalCases(t, []evalCase{
		{body: "return cjson.encode({})", want: "$2\r\n{}\r\n"},
		{body: "return cjson.encode({1,2,3})", want: "$7\r\n[1,2,3]\r\n"},
		{body: "return cjson.encode({a=1})", want: "$7\r\n{\"a\":1}\r\n"},
		{body: "return cjson.encode({1.5, 0.1, 1e20, 123456789012345678, -0.0, 3.14159265358979})", want: "$54\r\n[1.5,0.1,1e+20,1.2345678901235e+17,-0,3.1415926535898]\r\n"},
		{body: "return cjson.encode('a\"b\\/c\\n\\1\\127')", want: "$23\r\n\"a\\\"b\\/c\\n\\u0001\\u007f\"\r\n"},
		{body: "return cjson.encode({[1]=1,[3]=3})", want: "$10\r\n[1,null,3]\r\n"},
		{body: "return cjson.encode({[1]=1,[2]=2,[20]=3})", want: "-ERR user_script:1: Cannot serialise table: excessively sparse array script: <sha>, on @user_script:1.\r\n"},
		{body: "return cjson.encode(cjson.null)", want: "$4\r\nnull\r\n"},
		{body: "return cjson.encode(true)", want: "$4\r\ntrue\r\n"},
		{body: "return cjson.encode(1/0)", want: "-ERR user_script:1: Cannot serialise number: must not be NaN or Inf script: <sha>, on @user_script:1.\r\n"},
		{body: "return cjson.encode(function() end)", want: "-ERR user_script:1: Cannot serialise function: type not supported script: <sha>, on @user_script:1.\r\n"},
		{body: "return cjson.encode({[true]=1})", want: "-ERR user_script:1: Cannot serialise boolean: table key must be a number or string script: <sha>, on @user_script:1.\r\n"},
		{body: "local t = {} t[1]=t return cjson.encode(t)", want: "-ERR user_script:1: Cannot serialise, excessive nesting (1001) script: <sha>, on @user_script:1.\r\n"},
		{body: "return cjson.encode({a={b={c={}}}})", want: "$20\r\n{\"a\":{\"b\":{\"c\":{}}}}\r\n"},
		{body: `local t = cjson.decode('{"a":[1,2,{"b":null}],"c":1.5e3}'); return {t.a[1], t.a[3].b == cjson.null, t.c, type(t.a[3].b)}`, want: "*4\r\n:1\r\n:1\r\n:1500\r\n$8\r\nuserdata\r\n"},
		{body: "return cjson.decode('[1,2')", want: "-ERR user_script:1: Expected comma or array end but found T_END at character 5 script: <sha>, on @user_script:1.\r\n"},
		{body: "return cjson.decode('')", want: "-ERR user_script:1: Expected value but found T_END at character 1 script: <sha>, on @user_script:1.\r\n"},
		{body: "return cjson.decode('nul')", want: "-ERR user_script:1: Expected value but found invalid token at character 1 script: <sha>, on @user_script:1.\r\n"},
		{body: "return cjson.decode('[1,2,3]')", want: "*3\r\n:1\r\n:2\r\n:3\r\n"},
		{body: "return cjson.decode('  123  ')", want: ":123\r\n"},
		{body: "return tostring(cjson.decode('0.1'))", want: "$3\r\n0.1\r\n"},
		{body: "return cjson.decode('[1,2] x')", want: "-ERR user_script:1: Expected the end but found invalid token at character 7 script: <sha>, on @user_script:1.\r\n"},
		{body: "return cjson.decode('{1:2}')", want: "-ERR user_script:1: Expected object key string but found T_NUMBER at character 2 script: <sha>, on @user_script:1.\r\n"},
		{body: "return cjson.decode('NaN')", want: ":-9223372036854775808\r\n"},
		{body: "return cjson.decode('0x10')", want: ":16\r\n"},
		{body: "return cjson.decode('-')", want: "-ERR user_script:1: Expected value but found invalid number at character 1 script: <sha>, on @user_script:1.\r\n"},
		{body: "return cjson.decode('01')", want: ":1\r\n"},
		{body: "return cjson.decode('1e')", want: "-ERR user_script:1: Expected the end but found invalid token at character 2 script: <sha>, on @user_script:1.\r\n"},
		{body: "return cjson.decode('[1,]')", want: "-ERR user_script:1: Expected value but found T_ARR_END at character 4 script: <sha>, on @user_script:1.\r\n"},
		{body: "return cjson.decode('\"abc')", want: "-ERR user_script:1: Expected value but found unexpected end of string at character 5 script: <sha>, on @user_script:1.\r\n"},
		{body: "return cjson.encode(cjson.decode('[[[[1]]]]'))", want: "$9\r\n[[[[1]]]]\r\n"},
		{body: `return cjson.decode('"\\u00e9\\ud83d\\ude00"')`, want: "$6\r\n\xc3\xa9\xf0\x9f\x98\x80\r\n"},
		{body: "return {cjson._NAME, cjson._VERSION}", want: "*2\r\n$5\r\ncjson\r\n$5\r\n2.1.0\r\n"},
	})
}

func TestBit(t *testing.T) {
	runEvalCases(t, []evalCase{
		{body: "return bit.tohex(65535, -4)", want: "$4\r\nFFFF\r\n"},
		{body: "return {bit.band(0xff, 0x0f), bit.bor(1,2,4), bit.bxor(3,1), bit.bnot(0), bit.lshift(1,31), bit.rshift(-1, 28), bit.arshift(-16, 2), bit.rol(1, 33), bit.ror(1,1), bit.bswap(0x12345678), bit.tobit(2^32+5), bit.tohex(-1)}",
			want: "*12\r\n:15\r\n:7\r\n:2\r\n:-1\r\n:-2147483648\r\n:15\r\n:-4\r\n:2\r\n:-2147483648\r\n:2018915346\r\n:5\r\n$8\r\nffffffff\r\n"},
		{body: "return bit.band('x')", want: "-ERR user_script:1: bad argument #1 to 'band' (number expected, got string) script: <sha>, on @user_script:1.\r\n"},
		{body: "return bit.tobit()", want: "-ERR user_script:1: bad argument #1 to 'tobit' (number expected, got no value) script: <sha>, on @user_script:1.\r\n"},
	})
}

func TestStruct(t *testing.T) {
	runEvalCases(t, []evalCase{
		{body: "return struct.pack('>i2', 258)", want: "$2\r\n\x01\x02\r\n"},
		{body: "return {struct.unpack('>i2 <I4 b', struct.pack('>i2 <I4 b', -2, 7, -1))}", want: "*4\r\n:-2\r\n:7\r\n:-1\r\n:8\r\n"},
		{body: "return struct.size('i!4d')", want: ":12\r\n"},
		{body: "return struct.pack('z', 1)", want: "-ERR user_script:1: bad argument #1 to 'pack' (invalid format option 'z') script: <sha>, on @user_script:1.\r\n"},
		{body: "return struct.unpack('i4', 'ab')", want: "-ERR user_script:1: bad argument #2 to 'unpack' (data string too short) script: <sha>, on @user_script:1.\r\n"},
		{body: "return struct.pack('i40', 1)", want: "-ERR user_script:1: integral size 40 is larger than limit of 32 script: <sha>, on @user_script:1.\r\n"},
		{body: "return struct.size('s')", want: "-ERR user_script:1: bad argument #1 to 'size' (option 's' has no fixed size) script: <sha>, on @user_script:1.\r\n"},
		{body: "return {struct.unpack('s c3 c0', 'hi\\0abc' .. string.char(2) .. 'xy')}", want: "-ERR user_script:1: format 'c0' needs a previous size script: <sha>, on @user_script:1.\r\n"},
		{body: "return struct.unpack('i4', 'abcdabcd', 0)", want: "-ERR user_script:1: bad argument #3 to 'unpack' (offset must be 1 or greater) script: <sha>, on @user_script:1.\r\n"},
		{body: "return struct.unpack('i4', 'abcdabcd', 9)", want: "-ERR user_script:1: bad argument #2 to 'unpack' (data string too short) script: <sha>, on @user_script:1.\r\n"},
		{body: "return struct.pack('!3i')", want: "-ERR user_script:1: alignment 3 is not a power of 2 script: <sha>, on @user_script:1.\r\n"},
		{body: "return struct.pack('i')", want: "-ERR user_script:1: bad argument #2 to 'pack' (number expected, got nil) script: <sha>, on @user_script:1.\r\n"},
		{body: "return struct.pack('c5', 'ab')", want: "-ERR user_script:1: bad argument #3 to 'pack' (string too short) script: <sha>, on @user_script:1.\r\n"},
	})
}

func TestCmsgpack(t *testing.T) {
	runEvalCases(t, []evalCase{
		{body: "return cmsgpack.pack()", want: "-ERR user_script:1: bad argument #0 to 'pack' (MessagePack pack needs input.) script: <sha>, on @user_script:1.\r\n"},
		{body: "return cmsgpack.pack({1,2,3}, 'abc', 1.5, -1, 300, true, nil, {a=1})", want: "$23\r\n\x93\x01\x02\x03\xa3abc\xca?\xc0\x00\x00\xff\xcd\x01,\xc3\xc0\x81\xa1a\x01\r\n"},
		{body: "return {cmsgpack.unpack(cmsgpack.pack({1,2,{a='x'}}, 'abc', 1.5, -33, 70000))}", want: "*5\r\n*3\r\n:1\r\n:2\r\n*0\r\n$3\r\nabc\r\n:1\r\n:-33\r\n:70000\r\n"},
		{body: "return cmsgpack.unpack('\\220')", want: "-ERR user_script:1: Missing bytes in input. script: <sha>, on @user_script:1.\r\n"},
		{body: "return cmsgpack.unpack('\\193')", want: "-ERR user_script:1: Bad data format in input. script: <sha>, on @user_script:1.\r\n"},
		{body: "return cmsgpack.unpack('')", want: "$-1\r\n"},
		{body: "return {cmsgpack.unpack_one(cmsgpack.pack(1,2))}", want: "*2\r\n:1\r\n:1\r\n"},
		{body: "return {cmsgpack.unpack_limit(cmsgpack.pack(1,2,3),2,1)}", want: "*3\r\n:-1\r\n:2\r\n:3\r\n"},
		{body: "return cmsgpack.unpack_one('\\1', 5)", want: "-ERR user_script:1: Start offset 5 greater than input length 1. script: <sha>, on @user_script:1.\r\n"},
		{body: "return cmsgpack.pack(0.1)", want: "$9\r\n\xcb?\xb9\x99\x99\x99\x99\x99\x9a\r\n"},
		{body: "return cmsgpack.pack(2^40, -2^40, 2^64)", want: "$23\r\n\xcf\x00\x00\x01\x00\x00\x00\x00\x00\xd3\xff\xff\xff\x00\x00\x00\x00\x00\xca_\x80\x00\x00\r\n"},
	})
}

// FuzzCjsonDecode feeds arbitrary text to cjson.decode: it must return a
// value or raise a Lua error, never panic, and what it decodes must
// encode again (when it is encodable) to text that decodes.
func FuzzCjsonDecode(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}]}`, `[1,2`, `"\u00e9\ud83d\ude00"`, `0x1p3`, `-inf`, `nan(x)`, `[[[]]]`, "\"a\x00b\"", `{"a":1,"a":2}`, `1e400`} {
		f.Add(s)
	}
	vm := NewVM(KindEval)
	defer vm.Close()
	null := vm.L.NewUserData()
	cfg := defaultCjsonConfig()
	f.Fuzz(func(t *testing.T, s string) {
		L := vm.L
		L.SetTop(0)
		fn := L.NewFunction(func(L *lua.LState) int {
			v := cjsonDecode(L, null, &cfg, s)
			e := &cjsonEncoder{L: L, null: null, cfg: &cfg}
			e.value(v, 0)
			cjsonDecode(L, null, &cfg, string(e.buf))
			return 0
		})
		L.Push(fn)
		_ = L.PCall(0, 0, nil)
		L.SetTop(0)
	})
}

// FuzzMsgpackUnpack feeds arbitrary bytes to cmsgpack.unpack.
func FuzzMsgpackUnpack(f *testing.F) {
	for _, s := range []string{"\x93\x01\x02\x03", "\xdc", "\xc1", "\xdd\xff\xff\xff\xff", "\x81\xa1a\x01"} {
		f.Add([]byte(s))
	}
	vm := NewVM(KindEval)
	defer vm.Close()
	f.Fuzz(func(t *testing.T, b []byte) {
		L := vm.L
		L.SetTop(0)
		L.Push(L.NewFunction(func(L *lua.LState) int {
			L.Push(lua.LString(b))
			L.SetTop(1)
			n := msgpackUnpack(L, 0, 0, true)
			var out []byte
			for i := 0; i < n; i++ {
				out = msgpackEncode(out, L.Get(2+i), 0)
			}
			return 0
		}))
		_ = L.PCall(0, 0, nil)
		L.SetTop(0)
	})
}

// FuzzStructUnpack runs struct.unpack with arbitrary formats and data.
func FuzzStructUnpack(f *testing.F) {
	f.Add(">i2 <I4 b", []byte("\x00\x01\x02\x03\x04\x05\x06"))
	f.Add("s c3 c0", []byte("hi\x00abc\x02xy"))
	f.Add("!8 d i16", []byte("12345678901234567890123456789012"))
	vm := NewVM(KindEval)
	defer vm.Close()
	f.Fuzz(func(t *testing.T, format string, data []byte) {
		if len(format) > 64 {
			return
		}
		L := vm.L
		L.SetTop(0)
		L.Push(L.NewFunction(structUnpack))
		L.Push(lua.LString(format))
		L.Push(lua.LString(data))
		_ = L.PCall(2, lua.MultRet, nil)
		L.SetTop(0)
		L.Push(L.NewFunction(structSize))
		L.Push(lua.LString(format))
		_ = L.PCall(1, 1, nil)
		L.SetTop(0)
	})
}
