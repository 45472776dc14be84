package memproto

import (
	"fmt"
	"testing"

	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/internal/sampledata"
)

// TestCompressionMemcached: values stored compressed read back unchanged
// through get/gets/gat/mg, with their client flags, and mg s reports the
// plain size; append/prepend/cas/replace/incr see the plain bytes.
func TestCompressionMemcached(t *testing.T) {
	for _, codec := range []engine.Codec{engine.CodecS2, engine.CodecZstd} {
		t.Run(codec.String(), func(t *testing.T) {
			e := newTestEnv(t)
			e.eng.SetCompression(engine.Compression{Codec: codec, MinSize: 512, MinSaving: 20})
			c := e.client()
			doc := string(sampledata.Make(sampledata.JSON, 3000, 5))
			c.expect(fmt.Sprintf("set k 4294967295 0 %d\r\n%s\r\n", len(doc), doc), "STORED\r\n")
			if st := e.eng.CompressionStats(); st.Keys != 1 || st.PlainBytes != 3000 {
				t.Fatalf("not stored compressed: %+v", st)
			}
			c.expect("get k\r\n", fmt.Sprintf("VALUE k 4294967295 %d\r\n%s\r\nEND\r\n", len(doc), doc))
			c.expect("gat 100 k\r\n", fmt.Sprintf("VALUE k 4294967295 %d\r\n%s\r\nEND\r\n", len(doc), doc))
			c.expect("mg k s f v\r\n", fmt.Sprintf("VA %d s%d f4294967295\r\n%s\r\n", len(doc), len(doc), doc))
			c.expect("mg k s\r\n", fmt.Sprintf("HD s%d\r\n", len(doc)))
			c.expect("append k 0 0 4\r\ntail\r\n", "STORED\r\n")
			c.expect("prepend k 0 0 4\r\nhead\r\n", "STORED\r\n")
			want := "head" + doc + "tail"
			c.expect("get k\r\n", fmt.Sprintf("VALUE k 4294967295 %d\r\n%s\r\nEND\r\n", len(want), want))
			c.expect("incr k 1\r\n", "CLIENT_ERROR cannot increment or decrement non-numeric value\r\n")
			it, _, _ := e.db.Get([]byte("k"))
			c.expect(fmt.Sprintf("cas k 7 0 %d %d\r\n%s\r\n", len(doc), it.CAS, doc), "STORED\r\n")
			c.expect(fmt.Sprintf("replace k 8 0 %d\r\n%s\r\n", len(doc), doc), "STORED\r\n")
			c.expect(fmt.Sprintf("ms k2 %d F9\r\n%s\r\n", len(doc), doc), "HD\r\n")
			c.expect("mg k2 s f v\r\n", fmt.Sprintf("VA %d s%d f9\r\n%s\r\n", len(doc), len(doc), doc))
			if st := e.eng.CompressionStats(); st.Keys != 2 || st.PlainBytes != 6000 {
				t.Errorf("stats %+v", st)
			}
			c.expect("delete k\r\n", "DELETED\r\n")
			c.expect("delete k2\r\n", "DELETED\r\n")
			if st := e.eng.CompressionStats(); st != (engine.CompressionStats{}) {
				t.Errorf("stats after delete %+v", st)
			}
		})
	}
}
