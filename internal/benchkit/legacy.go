package benchkit

import "bufio"

// Kept for cmd/tandem-rssbound until tandem-benchmark rssbound replaces
// it; removed with it.

func WriteMemcachedSet(w *bufio.Writer, key, val []byte) {
	w.Write(MemcacheText{}.AppendSet(nil, key, val))
}
func WriteMemcachedGet(w *bufio.Writer, key []byte) { w.Write(MemcacheText{}.AppendGet(nil, key)) }
func ReadMemcachedGet(r *bufio.Reader) (string, []byte, bool, error) {
	var scratch []byte
	line, err := r.Peek(64)
	key := ""
	if len(line) > 6 && string(line[:6]) == "VALUE " {
		for i := 6; i < len(line) && line[i] != ' '; i++ {
			key += string(line[i])
		}
	}
	_ = err
	v, hit, err := MemcacheText{}.ReadGet(r, []byte(key), &scratch)
	return key, v, hit, err
}
