package resp

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
