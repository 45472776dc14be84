package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// fakeServer is a tiny in-test server for one protocol (resp, memcache,
// meta, binary): a map of strings, a count of what it was asked, and knobs to
// misbehave.
type fakeServer struct {
	t     *testing.T
	ln    net.Listener
	proto string

	// corruptEvery > 0 flips one byte of every corruptEvery-th GET hit.
	corruptEvery int
	// failSets makes every SET answer an error reply.
	failSets bool
	// hangUpAfter > 0 closes each connection after that many requests.
	hangUpAfter int
	// dropEvery > 0 forgets every dropEvery-th key stored.
	dropEvery int

	mu        sync.Mutex
	data      map[string][]byte
	sets      int
	gets      int
	hits      int
	corrupted int
	flushes   int
	wg        sync.WaitGroup
}

func startFake(t *testing.T, proto string, configure func(*fakeServer)) *fakeServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeServer{t: t, ln: ln, proto: proto, data: map[string][]byte{}}
	if configure != nil {
		configure(f)
	}
	f.wg.Add(1)
	go f.accept()
	t.Cleanup(func() {
		ln.Close()
		f.wg.Wait()
	})
	return f
}

func (f *fakeServer) addr() string { return f.ln.Addr().String() }

func (f *fakeServer) accept() {
	defer f.wg.Done()
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			defer c.Close()
			f.serve(c)
		}()
	}
}

// serve answers requests until the client leaves; it flushes its writer
// whenever no more input is buffered, so pipelines are answered at once.
func (f *fakeServer) serve(c net.Conn) {
	r := bufio.NewReader(c)
	w := bufio.NewWriter(c)
	for n := 1; ; n++ {
		var err error
		switch f.proto {
		case "resp":
			err = f.redisRequest(r, w)
		case "binary":
			err = f.binaryRequest(r, w)
		default:
			err = f.memcachedRequest(r, w)
		}
		if err != nil {
			return
		}
		if f.hangUpAfter > 0 && n >= f.hangUpAfter {
			w.Flush()
			return
		}
		if r.Buffered() == 0 {
			if w.Flush() != nil {
				return
			}
		}
	}
}

// store and load run under the mutex; load applies the corruption knob.
func (f *fakeServer) store(key string, v []byte) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sets++
	if f.failSets {
		return false
	}
	if f.dropEvery > 0 && f.sets%f.dropEvery == 0 {
		return true // answered as stored, and lost
	}
	f.data[key] = bytes.Clone(v)
	return true
}

func (f *fakeServer) load(key string) ([]byte, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gets++
	v, ok := f.data[key]
	if !ok {
		return nil, false
	}
	f.hits++
	v = bytes.Clone(v)
	if f.corruptEvery > 0 && f.hits%f.corruptEvery == 0 {
		v[len(v)/2] ^= 0x20
		f.corrupted++
	}
	return v, true
}

func (f *fakeServer) flushAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.flushes++
	clear(f.data)
}

func (f *fakeServer) redisRequest(r *bufio.Reader, w *bufio.Writer) error {
	line, err := r.ReadString('\n')
	if err != nil {
		return err
	}
	n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
	args := make([]string, n)
	for i := range args {
		hdr, err := r.ReadString('\n')
		if err != nil {
			return err
		}
		size, _ := strconv.Atoi(strings.TrimSpace(hdr[1:]))
		buf := make([]byte, size+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return err
		}
		args[i] = string(buf[:size])
	}
	switch strings.ToUpper(args[0]) {
	case "SET":
		if f.store(args[1], []byte(args[2])) {
			w.WriteString("+OK\r\n")
		} else {
			w.WriteString("-OOM command not allowed when used memory > 'maxmemory'.\r\n")
		}
	case "GET":
		if v, ok := f.load(args[1]); ok {
			w.WriteString("$" + strconv.Itoa(len(v)) + "\r\n" + string(v) + "\r\n")
		} else {
			w.WriteString("$-1\r\n")
		}
	case "MGET":
		w.WriteString("*" + strconv.Itoa(len(args)-1) + "\r\n")
		for _, k := range args[1:] {
			if v, ok := f.load(k); ok {
				w.WriteString("$" + strconv.Itoa(len(v)) + "\r\n" + string(v) + "\r\n")
			} else {
				w.WriteString("$-1\r\n")
			}
		}
	case "FLUSHALL":
		f.flushAll()
		w.WriteString("+OK\r\n")
	default:
		w.WriteString("-ERR unknown command\r\n")
	}
	return nil
}

func (f *fakeServer) memcachedRequest(r *bufio.Reader, w *bufio.Writer) error {
	line, err := r.ReadString('\n')
	if err != nil {
		return err
	}
	tok := strings.Fields(line)
	readData := func(size string) ([]byte, error) {
		n, _ := strconv.Atoi(size)
		buf := make([]byte, n+2)
		_, err := io.ReadFull(r, buf)
		return buf[:n], err
	}
	switch tok[0] {
	case "set": // set <key> <flags> <exptime> <bytes>
		v, err := readData(tok[4])
		if err != nil {
			return err
		}
		if f.store(tok[1], v) {
			w.WriteString("STORED\r\n")
		} else {
			w.WriteString("SERVER_ERROR out of memory storing object\r\n")
		}
	case "get":
		for _, k := range tok[1:] {
			if v, ok := f.load(k); ok {
				w.WriteString("VALUE " + k + " 0 " + strconv.Itoa(len(v)) + "\r\n" + string(v) + "\r\n")
			}
		}
		w.WriteString("END\r\n")
	case "ms": // ms <key> <datalen> <flags>*
		v, err := readData(tok[2])
		if err != nil {
			return err
		}
		if f.store(tok[1], v) {
			w.WriteString("HD\r\n")
		} else {
			w.WriteString("SERVER_ERROR out of memory storing object\r\n")
		}
	case "mg": // mg <key> v f
		if v, ok := f.load(tok[1]); ok {
			w.WriteString("VA " + strconv.Itoa(len(v)) + " f0\r\n" + string(v) + "\r\n")
		} else {
			w.WriteString("EN\r\n")
		}
	case "flush_all":
		f.flushAll()
		w.WriteString("OK\r\n")
	default:
		w.WriteString("ERROR\r\n")
	}
	return nil
}

// binaryRequest answers one memcached binary frame: Set, Get, GetKQ
// (hits only), Noop, Flush; anything else is "Unknown command".
func (f *fakeServer) binaryRequest(r *bufio.Reader, w *bufio.Writer) error {
	var h [24]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return err
	}
	keyLen, extLen := int(binary.BigEndian.Uint16(h[2:4])), int(h[4])
	body := make([]byte, binary.BigEndian.Uint32(h[8:12]))
	if _, err := io.ReadFull(r, body); err != nil {
		return err
	}
	op, opaque := h[1], binary.BigEndian.Uint32(h[12:16])
	key := string(body[extLen : extLen+keyLen])
	reply := func(status uint16, extras, key, value []byte) {
		out := []byte{0x81, op, byte(len(key) >> 8), byte(len(key)), byte(len(extras)), 0}
		out = binary.BigEndian.AppendUint16(out, status)
		out = binary.BigEndian.AppendUint32(out, uint32(len(extras)+len(key)+len(value)))
		out = binary.BigEndian.AppendUint32(out, opaque)
		out = binary.BigEndian.AppendUint64(out, 1)
		w.Write(out)
		w.Write(extras)
		w.Write(key)
		w.Write(value)
	}
	flags := []byte{0, 0, 0, 0}
	switch op {
	case 0x01: // Set
		if f.store(key, body[extLen+keyLen:]) {
			reply(0, nil, nil, nil)
		} else {
			reply(0x82, nil, nil, []byte("Out of memory"))
		}
	case 0x00: // Get
		if v, ok := f.load(key); ok {
			reply(0, flags, nil, v)
		} else {
			reply(1, nil, nil, []byte("Not found"))
		}
	case 0x0d: // GetKQ
		if v, ok := f.load(key); ok {
			reply(0, flags, []byte(key), v)
		}
	case 0x0a: // Noop
		reply(0, nil, nil, nil)
	case 0x08: // Flush
		f.flushAll()
		reply(0, nil, nil, nil)
	default:
		reply(0x81, nil, nil, []byte("Unknown command"))
	}
	return nil
}
