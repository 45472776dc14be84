package benchkit

import (
	"bytes"
	"compress/flate"
	"strings"
	"testing"
)

func TestAppendKey(t *testing.T) {
	for _, c := range []struct {
		prefix string
		i      int64
		width  int
		want   string
	}{
		{"key:", 42, 12, "key:000000000042"},
		{"key:", 0, 12, "key:000000000000"},
		{"key:", 7, 0, "key:7"},
		{"key:", 999999, 0, "key:999999"},
		{"k", 123456, 3, "k123456"},
		{"key:", 5, 60, "key:" + strings.Repeat("0", 59) + "5"},
	} {
		if got := string(AppendKey([]byte("x"), c.prefix, c.i, c.width)); got != "x"+c.want {
			t.Errorf("AppendKey(%q, %d, %d) = %q, want %q", c.prefix, c.i, c.width, got, "x"+c.want)
		}
	}
}

func TestFillPattern(t *testing.T) {
	key := []byte("key:000000000042")
	for _, n := range []int{0, 1, 16, 17, 40, 100} {
		v := make([]byte, n)
		FillPattern(v, key)
		if want := strings.Repeat("key:000000000042|", 10)[:n]; string(v) != want {
			t.Errorf("FillPattern(%d) = %q, want %q", n, v, want)
		}
	}
}

func TestFillIncompressible(t *testing.T) {
	a, b := make([]byte, 100), make([]byte, 100)
	FillIncompressible(a, 42)
	FillIncompressible(b, 42)
	if !bytes.Equal(a, b) {
		t.Fatal("not deterministic")
	}
	seen := map[string]uint64{}
	var all []byte
	for n := uint64(0); n < 2000; n++ {
		v := make([]byte, 100)
		FillIncompressible(v, n)
		if m, dup := seen[string(v)]; dup {
			t.Fatalf("%d and %d have the same value", m, n)
		}
		seen[string(v)] = n
		all = append(all, v...)
	}
	var z bytes.Buffer
	fw, _ := flate.NewWriter(&z, flate.BestCompression)
	fw.Write(all)
	fw.Close()
	if z.Len() < len(all)*95/100 {
		t.Errorf("%d bytes of values compress to %d", len(all), z.Len())
	}
	c := make([]byte, 13)
	FillIncompressible(c, 42)
	if !bytes.Equal(c, a[:13]) {
		t.Error("a 13-byte value is not the start of the 100-byte one")
	}
}

func TestMedianPercentile(t *testing.T) {
	xs := make([]float64, 1000)
	for i := range xs {
		xs[i] = float64(i + 1)
	}
	for p, want := range map[float64]float64{50: 500, 99: 990, 99.9: 999, 100: 1000, 0.01: 1} {
		if got := Percentile(xs, p); got != want {
			t.Errorf("p%v = %v, want %v", p, got, want)
		}
	}
	if Percentile(nil, 50) != 0 || Median(nil) != 0 {
		t.Error("empty")
	}
	in := []float64{4, 1, 2, 3}
	if Median([]float64{3, 1, 2}) != 2 || Median(in) != 2.5 || in[0] != 4 {
		t.Error("median")
	}
}

func TestStatCPUSeconds(t *testing.T) {
	stat := []byte("1234 (redis (x) server) S 1 1234 1234 0 -1 4194560 5000 0 0 0 250 150 0 0 20 0 4 0 100 0 0")
	if s, err := StatCPUSeconds(stat); err != nil || s != 4 {
		t.Errorf("StatCPUSeconds = %v, %v; want 4 s", s, err)
	}
	for _, bad := range []string{"1234 no name S 1", "1 (x) S 1 2 3"} {
		if _, err := StatCPUSeconds([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
