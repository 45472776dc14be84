package resp

import (
	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/engine"
)

// followCompressionConfig makes the engine's value compression follow the
// compression, compression-min-size and compression-min-saving
// directives, now and on every CONFIG SET. A change applies to new writes;
// stored values keep their form and stay readable.
func followCompressionConfig(eng *engine.Engine, cfg *conf.Config) {
	if cfg == nil {
		return
	}
	apply := func(c *conf.Config) {
		codec := engine.CodecNone
		switch c.Compression() {
		case conf.CompressionS2:
			codec = engine.CodecS2
		case conf.CompressionZstd:
			codec = engine.CodecZstd
		}
		eng.SetCompression(engine.Compression{
			Codec:     codec,
			MinSize:   c.CompressionMinSize(),
			MinSaving: c.CompressionMinSaving(),
		})
	}
	apply(cfg)
	for _, name := range []string{"compression", "compression-min-size", "compression-min-saving"} {
		cfg.OnChange(name, apply)
	}
}

// infoCompression is Tandem's "# Compression" section: the settings in
// force and the values stored compressed (their number, their length as
// clients see it and as stored, and the ratio of the two).
func (f *Frontend) infoCompression(b *infoBuilder) {
	st := f.eng.CompressionStats()
	b.field("compression", f.cfg.Compression().String())
	b.int("compression_min_size", f.cfg.CompressionMinSize())
	b.int("compression_min_saving", int64(f.cfg.CompressionMinSaving()))
	b.int("compressed_keys", st.Keys)
	b.int("compressed_bytes_plain", st.PlainBytes)
	b.int("compressed_bytes_stored", st.StoredBytes)
	ratio := 1.0
	if st.StoredBytes > 0 {
		ratio = float64(st.PlainBytes) / float64(st.StoredBytes)
	}
	b.float("compression_ratio", ratio)
}
