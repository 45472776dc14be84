package engine

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"testing"
)

func TestAppend(t *testing.T) {
	tests := []struct {
		name       string
		pre        preState
		data       string
		opts       func(cas uint64) AppendOptions
		maxLen     int64
		wantErr    error
		wantStored bool
		wantExist  bool
		wantValue  string
		wantLen    int
	}{
		{name: "append creates", pre: preNone, data: "abc", opts: func(uint64) AppendOptions { return AppendOptions{} },
			wantStored: true, wantValue: "abc", wantLen: 3},
		{name: "append", pre: preString, data: "abc", opts: func(uint64) AppendOptions { return AppendOptions{} },
			wantStored: true, wantExist: true, wantValue: "oldabc", wantLen: 6},
		{name: "prepend", pre: preString, data: "abc", opts: func(uint64) AppendOptions { return AppendOptions{Prepend: true} },
			wantStored: true, wantExist: true, wantValue: "abcold", wantLen: 6},
		{name: "prepend creates", pre: preNone, data: "abc", opts: func(uint64) AppendOptions { return AppendOptions{Prepend: true} },
			wantStored: true, wantValue: "abc", wantLen: 3},
		{name: "must exist on missing", pre: preNone, data: "abc", opts: func(uint64) AppendOptions { return AppendOptions{MustExist: true} },
			wantValue: "<nil>"},
		{name: "must exist on expired", pre: preExpired, data: "abc", opts: func(uint64) AppendOptions { return AppendOptions{MustExist: true} },
			wantValue: "<nil>"},
		{name: "must exist on string", pre: preString, data: "abc", opts: func(uint64) AppendOptions { return AppendOptions{MustExist: true} },
			wantStored: true, wantExist: true, wantValue: "oldabc", wantLen: 6},
		{name: "cas match", pre: preString, data: "abc", opts: func(cas uint64) AppendOptions { return AppendOptions{MustExist: true, CAS: cas} },
			wantStored: true, wantExist: true, wantValue: "oldabc", wantLen: 6},
		{name: "cas mismatch", pre: preString, data: "abc", opts: func(cas uint64) AppendOptions { return AppendOptions{MustExist: true, CAS: cas + 1} },
			wantExist: true, wantValue: "old"},
		{name: "cas on missing", pre: preNone, data: "abc", opts: func(uint64) AppendOptions { return AppendOptions{CAS: 5} },
			wantValue: "<nil>"},
		{name: "max len exact", pre: preString, data: "abc", maxLen: 6, opts: func(uint64) AppendOptions { return AppendOptions{} },
			wantStored: true, wantExist: true, wantValue: "oldabc", wantLen: 6},
		{name: "max len exceeded", pre: preString, data: "abcd", maxLen: 6, opts: func(uint64) AppendOptions { return AppendOptions{} },
			wantErr: ErrTooLarge, wantExist: true, wantValue: "old"},
		{name: "max len exceeded on missing", pre: preNone, data: "abcdefg", maxLen: 6, opts: func(uint64) AppendOptions { return AppendOptions{} },
			wantErr: ErrTooLarge, wantValue: "<nil>"},
		{name: "empty append", pre: preString, data: "", opts: func(uint64) AppendOptions { return AppendOptions{} },
			wantStored: true, wantExist: true, wantValue: "old", wantLen: 3},
		{name: "wrong type", pre: preHash, data: "abc", opts: func(uint64) AppendOptions { return AppendOptions{MustExist: true} },
			wantErr: ErrWrongType, wantExist: true, wantValue: "<hash>"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, clock := newTestEngine(t, 2)
			d := e.DB(0)
			d.TrackCAS = true // memcached semantics: CAS uniques at once
			cas := prepare(t, d, clock, "k", tc.pre)
			res, err := d.Append(bs("k"), bs(tc.data), tc.opts(cas), tc.maxLen)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if res.Stored != tc.wantStored || res.Existed != tc.wantExist || res.Len != tc.wantLen {
				t.Errorf("Stored %v Existed %v Len %d; want %v %v %d", res.Stored, res.Existed, res.Len, tc.wantStored, tc.wantExist, tc.wantLen)
			}
			if tc.wantValue != "<hash>" {
				if got := getString(t, d, "k"); got != tc.wantValue {
					t.Errorf("value = %q, want %q", got, tc.wantValue)
				}
			}
			ki, ok := d.Info(bs("k"))
			if res.Stored {
				if res.CAS == 0 || res.CAS == cas || res.CAS != ki.CAS {
					t.Errorf("CAS %d (old %d, key %d): want a fresh CAS", res.CAS, cas, ki.CAS)
				}
			}
			if tc.pre == preString && ok {
				if ki.ExpireAt != oldExpire || ki.Flags != 7 {
					t.Errorf("expire %d flags %d: append must keep them (%d, 7)", ki.ExpireAt, ki.Flags, oldExpire)
				}
			}
			checkInvariants(t, e)
		})
	}
}

// OBJECT ENCODING after APPEND: Redis encodes a key that APPEND creates
// like SET does (tryObjectEncoding: "APPEND k 12" gives int, verified on
// redis-server 7.0), and leaves an appended-to key raw.
func TestAppendEncoding(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	for _, tc := range []struct {
		key, data string
		want      Encoding
	}{{"n", "12", EncInt}, {"s", "hello", EncEmbstr}, {"r", string(make([]byte, 50)), EncRaw}} {
		if _, err := d.Append(bs(tc.key), bs(tc.data), AppendOptions{}, 0); err != nil {
			t.Fatal(err)
		}
		if ki, _ := d.Info(bs(tc.key)); ki.Encoding != tc.want {
			t.Errorf("APPEND %s %q on a new key: encoding %v, want %v", tc.key, tc.data, ki.Encoding, tc.want)
		}
		d.Append(bs(tc.key), bs("1"), AppendOptions{}, 0)
		if ki, _ := d.Info(bs(tc.key)); ki.Encoding != EncRaw {
			t.Errorf("APPEND to existing %s: encoding %v, want raw", tc.key, ki.Encoding)
		}
	}
}

func TestIncrBy(t *testing.T) {
	tests := []struct {
		name    string
		initial string // "" = missing
		delta   int64
		want    int64
		wantErr error
	}{
		{"missing", "", 5, 5, nil},
		{"missing negative", "", -5, -5, nil},
		{"simple", "10", 1, 11, nil},
		{"to zero", "1", -1, 0, nil},
		{"negative", "-10", -5, -15, nil},
		{"max", "9223372036854775806", 1, math.MaxInt64, nil},
		{"overflow", "9223372036854775807", 1, 0, ErrOverflow},
		{"overflow big delta", "1", math.MaxInt64, 0, ErrOverflow},
		{"min", "-9223372036854775807", -1, math.MinInt64, nil},
		{"underflow", "-9223372036854775808", -1, 0, ErrOverflow},
		{"underflow big delta", "-2", math.MinInt64, 0, ErrOverflow},
		{"min plus max", "-9223372036854775808", math.MaxInt64, -1, nil},
		{"leading space", " 1", 1, 0, ErrNotInteger},
		{"trailing space", "1 ", 1, 0, ErrNotInteger},
		{"leading zero", "01", 1, 0, ErrNotInteger},
		{"minus zero", "-0", 1, 0, ErrNotInteger},
		{"plus sign", "+1", 1, 0, ErrNotInteger},
		{"float", "1.0", 1, 0, ErrNotInteger},
		{"empty", "<empty>", 1, 0, ErrNotInteger},
		{"nul", "\x00", 1, 0, ErrNotInteger},
		{"text", "abc", 1, 0, ErrNotInteger},
		{"beyond int64", "9223372036854775808", -1, 0, ErrNotInteger},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newTestEngine(t, 2)
			d := e.DB(0)
			if tc.initial == "<empty>" {
				tc.initial = ""
				mustSet(t, d, "k", "", SetOptions{})
			} else if tc.initial != "" {
				mustSet(t, d, "k", tc.initial, SetOptions{TTL: TTLSet, ExpireAt: oldExpire, Flags: 3})
			}
			before := getString(t, d, "k")
			got, err := d.IncrBy(bs("k"), tc.delta)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				if v := getString(t, d, "k"); v != before {
					t.Errorf("failed IncrBy changed the value from %q to %q", before, v)
				}
				return
			}
			if got != tc.want {
				t.Errorf("IncrBy = %d, want %d", got, tc.want)
			}
			it, _, _ := d.Get(bs("k"))
			if string(it.Value) != strconv.FormatInt(tc.want, 10) || it.Encoding != EncInt {
				t.Errorf("stored %q (%v)", it.Value, it.Encoding)
			}
			if tc.initial != "" && (it.ExpireAt != oldExpire || it.Flags != 3) {
				t.Errorf("expire %d flags %d: IncrBy must keep them", it.ExpireAt, it.Flags)
			}
		})
	}
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	putRaw(t, d, bs("h"), nil, TypeHash)
	if _, err := d.IncrBy(bs("h"), 1); !errors.Is(err, ErrWrongType) {
		t.Errorf("IncrBy on a hash: %v", err)
	}
}

func TestIncrByFloat(t *testing.T) {
	tests := []struct {
		initial, delta string
		want           string
		wantErr        error
	}{
		{"", "1.5", "1.5", nil},
		{"10.5", "0.1", "10.6", nil},
		{"1.5", "1.5", "3", nil},
		{"10", "-10", "0", nil},
		{"5.0e3", "2.0e2", "5200", nil},
		{"abc", "1", "", ErrNotFloat},
		{"1", "abc", "", ErrNotFloat},
		{"1", "inf", "", ErrNaNOrInf},
		{" 1", "1", "", ErrNotFloat},
	}
	for _, tc := range tests {
		t.Run(tc.initial+"+"+tc.delta, func(t *testing.T) {
			e, _ := newTestEngine(t, 2)
			d := e.DB(0)
			if tc.initial != "" {
				mustSet(t, d, "k", tc.initial, SetOptions{TTL: TTLSet, ExpireAt: oldExpire})
			}
			got, err := d.IncrByFloat(bs("k"), bs(tc.delta))
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if string(got) != tc.want {
				t.Errorf("= %q, want %q", got, tc.want)
			}
			if v := getString(t, d, "k"); v != tc.want {
				t.Errorf("stored %q", v)
			}
			if tc.initial != "" && expireOf(d, "k") != oldExpire {
				t.Errorf("IncrByFloat must keep the expiry")
			}
		})
	}
}

// INCRBYFLOAT stores its result as a plain string object, never as an int:
// on redis-server 7.0 "INCRBYFLOAT f 1" then "OBJECT ENCODING f" is
// "embstr".
func TestIncrByFloatEncoding(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	if _, err := d.IncrByFloat(bs("f"), bs("1")); err != nil {
		t.Fatal(err)
	}
	if ki, _ := d.Info(bs("f")); ki.Encoding != EncEmbstr {
		t.Errorf("encoding after INCRBYFLOAT f 1 = %v, want embstr", ki.Encoding)
	}
}

func TestIncrUnsigned(t *testing.T) {
	tests := []struct {
		name      string
		initial   string // "" = missing
		delta     uint64
		decr      bool
		wantVal   uint64
		wantStore string
		wantFound bool
		wantErr   error
	}{
		{name: "missing", initial: "", delta: 1, wantFound: false},
		{name: "incr", initial: "10", delta: 5, wantVal: 15, wantStore: "15", wantFound: true},
		{name: "incr grows", initial: "99", delta: 1, wantVal: 100, wantStore: "100", wantFound: true},
		{name: "decr pads", initial: "100", delta: 1, decr: true, wantVal: 99, wantStore: "99 ", wantFound: true},
		{name: "decr floors", initial: "5", delta: 10, decr: true, wantVal: 0, wantStore: "0", wantFound: true},
		{name: "decr to zero pads", initial: "1000", delta: 1000, decr: true, wantVal: 0, wantStore: "0   ", wantFound: true},
		{name: "wrap", initial: "18446744073709551615", delta: 2, wantVal: 1, wantStore: "1                   ", wantFound: true},
		{name: "big", initial: "9223372036854775808", delta: 1, wantVal: 9223372036854775809, wantStore: "9223372036854775809", wantFound: true},
		{name: "spaces", initial: "  12  ", delta: 1, wantVal: 13, wantStore: "13    ", wantFound: true},
		{name: "tab and newline", initial: "\t7\r\n", delta: 1, wantVal: 8, wantStore: "8   ", wantFound: true},
		{name: "plus", initial: "+4", delta: 1, wantVal: 5, wantStore: "5 ", wantFound: true},
		{name: "minus zero", initial: "-0", delta: 1, wantVal: 1, wantStore: "1 ", wantFound: true},
		{name: "negative refused", initial: "-1", delta: 1, wantFound: true, wantErr: ErrNotInteger},
		{name: "negative with space refused", initial: "-1 ", delta: 1, wantFound: true, wantErr: ErrNotInteger},
		{name: "non numeric", initial: "abc", delta: 1, wantFound: true, wantErr: ErrNotInteger},
		{name: "trailing letters", initial: "12abc", delta: 1, wantFound: true, wantErr: ErrNotInteger},
		{name: "float", initial: "1.5", delta: 1, wantFound: true, wantErr: ErrNotInteger},
		{name: "empty", initial: "<empty>", delta: 1, wantFound: true, wantErr: ErrNotInteger},
		{name: "only spaces", initial: "   ", delta: 1, wantFound: true, wantErr: ErrNotInteger},
		{name: "out of range", initial: "18446744073709551616", delta: 1, wantFound: true, wantErr: ErrNotInteger},
		// memcached's safe_strtoull looks only at the first byte after the
		// digits: "12 abc" incr 1 is 13, stored as "13    " (memcached 1.6).
		{name: "digits then space then text", initial: "12 abc", delta: 1, wantVal: 13, wantStore: "13    ", wantFound: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newTestEngine(t, 2)
			d := e.DB(0)
			d.TrackCAS = true // memcached semantics: CAS uniques at once
			var cas uint64
			if tc.initial == "<empty>" {
				cas = mustSet(t, d, "k", "", SetOptions{TTL: TTLSet, ExpireAt: oldExpire, Flags: 9}).CAS
			} else if tc.initial != "" {
				cas = mustSet(t, d, "k", tc.initial, SetOptions{TTL: TTLSet, ExpireAt: oldExpire, Flags: 9}).CAS
			}
			r, err := d.IncrUnsigned(bs("k"), tc.delta, tc.decr, 0)
			if !errors.Is(err, tc.wantErr) || r.Found != tc.wantFound || r.CASMismatch {
				t.Fatalf("= %+v err %v; want found %v err %v", r, err, tc.wantFound, tc.wantErr)
			}
			if err != nil || !r.Found {
				if tc.initial == "" && getString(t, d, "k") != "<nil>" {
					t.Errorf("IncrUnsigned created a missing key")
				}
				return
			}
			if r.Value != tc.wantVal {
				t.Errorf("value %d, want %d", r.Value, tc.wantVal)
			}
			it, _, _ := d.Get(bs("k"))
			if string(it.Value) != tc.wantStore {
				t.Errorf("stored %q, want %q", it.Value, tc.wantStore)
			}
			if it.ExpireAt != oldExpire || it.Flags != 9 {
				t.Errorf("expire %d flags %d: must be kept", it.ExpireAt, it.Flags)
			}
			if r.CAS == 0 || r.CAS == cas || r.CAS != it.CAS {
				t.Errorf("CAS %d (old %d, key %d): want a fresh one", r.CAS, cas, it.CAS)
			}
			checkInvariants(t, e)
		})
	}
}

func TestIncrUnsignedCASAndType(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	d.TrackCAS = true // memcached semantics: CAS uniques at once
	cas := mustSet(t, d, "k", "10", SetOptions{}).CAS
	if r, err := d.IncrUnsigned(bs("k"), 1, false, cas+1); !r.Found || !r.CASMismatch || err != nil {
		t.Errorf("CAS mismatch: %+v err %v", r, err)
	}
	if v := getString(t, d, "k"); v != "10" {
		t.Errorf("a CAS mismatch wrote %q", v)
	}
	r, err := d.IncrUnsigned(bs("k"), 1, false, cas)
	if r.Value != 11 || !r.Found || r.CASMismatch || err != nil || r.CAS == cas {
		t.Errorf("CAS match: %+v err %v", r, err)
	}
	putRaw(t, d, bs("h"), nil, TypeHash)
	if r, err := d.IncrUnsigned(bs("h"), 1, false, 0); !r.Found || !errors.Is(err, ErrNotInteger) {
		t.Errorf("on a hash: found %v err %v; want found and ErrNotInteger", r.Found, err)
	}
}

func TestSetRange(t *testing.T) {
	tests := []struct {
		name    string
		initial string // "" = missing
		offset  int64
		data    string
		maxLen  int64
		wantN   int
		want    string
		wantErr error
	}{
		{name: "missing", offset: 0, data: "abc", wantN: 3, want: "abc"},
		{name: "missing padded", offset: 3, data: "abc", wantN: 6, want: "\x00\x00\x00abc"},
		{name: "missing empty creates nothing", offset: 10, data: "", wantN: 0, want: "<nil>"},
		{name: "overwrite middle", initial: "hello world", offset: 6, data: "redis", wantN: 11, want: "hello redis"},
		{name: "extend", initial: "hello", offset: 3, data: "p me", wantN: 7, want: "help me"},
		{name: "pad existing", initial: "ab", offset: 4, data: "c", wantN: 5, want: "ab\x00\x00c"},
		{name: "empty on existing", initial: "hello", offset: 100, data: "", wantN: 5, want: "hello"},
		{name: "too large", initial: "hello", offset: 10, data: "x", maxLen: 10, wantN: 0, want: "hello", wantErr: ErrTooLarge},
		{name: "at limit", initial: "hello", offset: 9, data: "x", maxLen: 10, wantN: 10, want: "hello\x00\x00\x00\x00x"},
		{name: "empty beyond limit", initial: "hello", offset: 100, data: "", maxLen: 10, wantN: 5, want: "hello"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newTestEngine(t, 2)
			d := e.DB(0)
			if tc.initial != "" {
				mustSet(t, d, "k", tc.initial, SetOptions{TTL: TTLSet, ExpireAt: oldExpire})
			}
			n, err := d.SetRange(bs("k"), tc.offset, bs(tc.data), tc.maxLen)
			if !errors.Is(err, tc.wantErr) || n != tc.wantN {
				t.Fatalf("= %d, %v; want %d, %v", n, err, tc.wantN, tc.wantErr)
			}
			if got := getString(t, d, "k"); got != tc.want {
				t.Errorf("value %q, want %q", got, tc.want)
			}
			if tc.initial != "" && expireOf(d, "k") != oldExpire {
				t.Errorf("SetRange must keep the expiry")
			}
			if tc.want != "<nil>" && tc.wantErr == nil && tc.data != "" {
				if ki, _ := d.Info(bs("k")); ki.Encoding != EncRaw {
					t.Errorf("encoding %v, want raw", ki.Encoding)
				}
			}
			checkInvariants(t, e)
		})
	}
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	putRaw(t, d, bs("h"), nil, TypeHash)
	if _, err := d.SetRange(bs("h"), 0, nil, 0); !errors.Is(err, ErrWrongType) {
		t.Errorf("SetRange on a hash with empty data: %v, want ErrWrongType", err)
	}
}

func TestMGetMSet(t *testing.T) {
	e, clock := newTestEngine(t, 3)
	d := e.DB(0)
	mustSet(t, d, "a", "1", SetOptions{TTL: TTLSet, ExpireAt: t0 + 1000, Flags: 5})
	putRaw(t, d, bs("h"), nil, TypeHash)
	ok, err := d.MSet([][]byte{bs("a"), bs("A"), bs("b"), bs("B"), bs("a"), bs("A2")}, false)
	if !ok || err != nil {
		t.Fatalf("MSet = %v, %v", ok, err)
	}
	if ki, _ := d.Info(bs("a")); ki.ExpireAt != 0 || ki.Flags != 0 {
		t.Errorf("MSet must clear expiry and flags: %+v", ki)
	}
	// The last of a repeated key wins, as in Redis.
	var got []string
	d.MGet([][]byte{bs("a"), bs("b"), bs("h"), bs("missing"), bs("a")}, func(i int, it Item, ok bool) {
		if len(got) != i {
			t.Fatalf("MGet callback index %d out of order", i)
		}
		if !ok {
			got = append(got, "<nil>")
			return
		}
		got = append(got, string(it.Value))
	})
	if fmt.Sprint(got) != "[A2 B <nil> <nil> A2]" {
		t.Errorf("MGet = %v", got)
	}

	// MSETNX: all or nothing.
	ok, err = d.MSet([][]byte{bs("x"), bs("1"), bs("b"), bs("2")}, true)
	if ok || err != nil || getString(t, d, "x") != "<nil>" || getString(t, d, "b") != "B" {
		t.Errorf("MSetNX with an existing key wrote something: %v %v", ok, err)
	}
	ok, err = d.MSet([][]byte{bs("x"), bs("1"), bs("y"), bs("2")}, true)
	if !ok || err != nil || getString(t, d, "x") != "1" || getString(t, d, "y") != "2" {
		t.Errorf("MSetNX on new keys: %v %v", ok, err)
	}
	// A hash counts as existing for MSETNX.
	if ok, _ := d.MSet([][]byte{bs("z"), bs("1"), bs("h"), bs("2")}, true); ok {
		t.Errorf("MSetNX over a hash succeeded")
	}
	// An expired key does not block MSETNX.
	mustSet(t, d, "gone", "v", SetOptions{TTL: TTLSet, ExpireAt: clock.NowMs() + 10})
	clock.Advance(secs(1))
	if ok, _ := d.MSet([][]byte{bs("gone"), bs("back")}, true); !ok || getString(t, d, "gone") != "back" {
		t.Errorf("MSetNX over an expired key failed")
	}
	checkInvariants(t, e)
}

// With maxmemory exceeded, writes that grow memory are refused and change
// nothing.
func TestOOMRefusesWrites(t *testing.T) {
	e, _ := newTestEngine(t, 2)
	d := e.DB(0)
	mustSet(t, d, "k", "v", SetOptions{})
	e.SetMaxMemory(1)
	if _, err := d.Set(bs("k2"), bs("v"), SetOptions{}); !errors.Is(err, ErrOOM) {
		t.Errorf("Set over maxmemory: %v", err)
	}
	if _, err := d.Append(bs("k"), bs("v"), AppendOptions{}, 0); !errors.Is(err, ErrOOM) {
		t.Errorf("Append over maxmemory: %v", err)
	}
	if _, err := d.MSet([][]byte{bs("a"), bs("b")}, false); !errors.Is(err, ErrOOM) {
		t.Errorf("MSet over maxmemory: %v", err)
	}
	if _, err := d.IncrBy(bs("n"), 1); !errors.Is(err, ErrOOM) {
		t.Errorf("IncrBy over maxmemory: %v", err)
	}
	// Deleting still works, and frees the way.
	if n := d.Delete(bs("k")); n != 1 {
		t.Errorf("Delete = %d", n)
	}
	e.SetMaxMemory(0)
	mustSet(t, d, "k2", "v", SetOptions{})
	checkInvariants(t, e)
}
