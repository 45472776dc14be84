package repl

import (
	"bytes"
	"errors"
	"strconv"

	"github.com/tandemkv/tandem/internal/sdsargs"
)

// Limits of the replication stream parser, Redis's for a client's query
// buffer: the longest inline line or multibulk header
// (PROTO_INLINE_MAX_SIZE), the most arguments of one command, and
// proto-max-bulk-len's default.
const (
	maxInlineLine = 64 << 10
	maxMultibulk  = 1024 * 1024
	maxBulkLen    = 512 << 20
)

// ErrProtocol is the class of errors ParseCommand returns: the master's
// stream is not RESP, and the link is dropped as Redis drops it.
var ErrProtocol = errors.New("repl: protocol error")

type protocolError string

func (e protocolError) Error() string        { return "Protocol error: " + string(e) }
func (e protocolError) Is(target error) bool { return target == ErrProtocol }

// ParseCommand parses one command at the start of buf, as a replica reads
// its master's stream: a multibulk (*N\r\n$len\r\n…) or an inline line.
// It returns the arguments, which alias buf (copy what you keep), and the
// bytes consumed. n == 0 with a nil error means buf holds no complete
// command yet. A frame with no arguments (an empty inline line, *0, *-1)
// consumes its bytes and returns no arguments: the master's keepalive
// newlines are such frames, and they count in the offset.
func ParseCommand(buf []byte) (args [][]byte, n int, err error) {
	if len(buf) == 0 {
		return nil, 0, nil
	}
	if buf[0] != '*' {
		return parseInline(buf)
	}
	line, next, ok, err := headerLine(buf, 1)
	if !ok || err != nil {
		return nil, 0, err
	}
	count, okNum := parseInt(line)
	if !okNum || count > maxMultibulk {
		return nil, 0, protocolError("invalid multibulk length")
	}
	if count <= 0 {
		return nil, next, nil
	}
	// Preallocation is capped by the bytes present: each argument needs
	// at least 4 ("$0\r\n") plus its CRLF, so a hostile *1048576 header
	// allocates nothing it has not been sent.
	capacity := int(count)
	if limit := (len(buf) - next) / 6; capacity > limit {
		capacity = limit
	}
	args = make([][]byte, 0, capacity)
	pos := next
	for i := int64(0); i < count; i++ {
		if pos >= len(buf) {
			return nil, 0, nil
		}
		if buf[pos] != '$' {
			return nil, 0, protocolError("expected '$', got '" + string(buf[pos]) + "'")
		}
		line, after, ok, err := headerLine(buf, pos+1)
		if err != nil {
			return nil, 0, err
		}
		if !ok {
			return nil, 0, nil
		}
		size, okNum := parseInt(line)
		if !okNum || size < 0 || size > maxBulkLen {
			return nil, 0, protocolError("invalid bulk length")
		}
		end := after + int(size)
		if end+2 > len(buf) {
			return nil, 0, nil
		}
		if buf[end] != '\r' || buf[end+1] != '\n' {
			return nil, 0, protocolError("expected CRLF after bulk")
		}
		args = append(args, buf[after:end:end])
		pos = end + 2
	}
	return args, pos, nil
}

// headerLine returns the text from start to the next CRLF and the index
// after it; ok is false when the CRLF has not arrived yet.
func headerLine(buf []byte, start int) (line []byte, next int, ok bool, err error) {
	i := bytes.IndexByte(buf[start:], '\r')
	if i < 0 {
		if len(buf)-start > maxInlineLine {
			return nil, 0, false, protocolError("too big mbulk count string")
		}
		return nil, 0, false, nil
	}
	if i > maxInlineLine {
		return nil, 0, false, protocolError("too big mbulk count string")
	}
	end := start + i
	if end+1 >= len(buf) {
		return nil, 0, false, nil
	}
	if buf[end+1] != '\n' {
		return nil, 0, false, protocolError("expected CRLF in header")
	}
	return buf[start:end], end + 2, true, nil
}

// parseInline splits one inline line as sdssplitargs does. Masters send
// multibulk only, but a replica reads what a client would read, and a bare
// "\n" is the keepalive of a master preparing a sync.
func parseInline(buf []byte) ([][]byte, int, error) {
	i := bytes.IndexByte(buf, '\n')
	if i < 0 {
		if len(buf) > maxInlineLine {
			return nil, 0, protocolError("too big inline request")
		}
		return nil, 0, nil
	}
	line := buf[:i]
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	words, ok := sdsargs.Strings(string(line))
	if !ok {
		return nil, 0, protocolError("unbalanced quotes in request")
	}
	args := make([][]byte, len(words))
	for j, w := range words {
		args[j] = []byte(w)
	}
	return args, i + 1, nil
}

// parseInt is string2ll's strict decimal: no sign but '-', no leading
// zeros, no spaces.
func parseInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	if len(b) > 1 && b[0] == '0' {
		return 0, false
	}
	if b[0] == '-' && (len(b) == 1 || b[1] == '0') {
		return 0, false
	}
	v, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return 0, false
	}
	return v, true
}
