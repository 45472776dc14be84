package compat

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// reply is one complete RESP2 or RESP3 reply: its exact bytes and its parse.
type reply struct {
	raw   []byte
	kind  byte    // the type byte: + - : $ * _ , # ! = ( % ~ > |
	text  string  // payload of a line type, or of a bulk-like type ($ ! =)
	null  bool    // $-1 or *-1 (RESP2 nulls); RESP3 _ has kind '_'
	elems []reply // aggregates; maps (%) and attributes (|) hold key, value, key, value…
	attr  *reply  // an attribute (|) that preceded this reply
}

func (r reply) isError() bool { return r.kind == '-' || r.kind == '!' }

func (r reply) isAggregate() bool {
	switch r.kind {
	case '*', '~', '>', '%', '|':
		return true
	}
	return false
}

// maxReplyBulk bounds a bulk length the reader accepts, so a corrupt header
// fails the case instead of allocating gigabytes.
const maxReplyBulk = 64 << 20

// readReply reads exactly one complete reply from r. It understands every
// RESP2 and RESP3 type; an attribute is read together with the reply it
// annotates.
func readReply(r *bufio.Reader) (reply, error) {
	var raw []byte
	rep, err := readValue(r, &raw, 0)
	if err != nil {
		if len(raw) > 0 {
			return reply{}, fmt.Errorf("%v after %q", err, raw)
		}
		return reply{}, err
	}
	return rep, nil
}

func readValue(r *bufio.Reader, raw *[]byte, depth int) (reply, error) {
	if depth > 64 {
		return reply{}, errors.New("reply nested too deep")
	}
	start := len(*raw)
	line, err := r.ReadString('\n')
	*raw = append(*raw, line...)
	if err != nil {
		return reply{}, err
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return reply{}, fmt.Errorf("malformed reply line %q", line)
	}
	kind, body := line[0], line[1:len(line)-2]
	rep := reply{kind: kind}
	finish := func() (reply, error) {
		rep.raw = (*raw)[start:len(*raw):len(*raw)]
		return rep, nil
	}
	switch kind {
	case '+', '-', ':', '_', ',', '#', '(':
		rep.text = body
		return finish()
	case '$', '!', '=':
		n, err := strconv.Atoi(body)
		if err != nil || n < -1 || n > maxReplyBulk {
			return reply{}, fmt.Errorf("bad bulk length in %q", line)
		}
		if n == -1 {
			rep.null = true
			return finish()
		}
		buf := make([]byte, n+2)
		k, err := io.ReadFull(r, buf)
		*raw = append(*raw, buf[:k]...)
		if err != nil {
			return reply{}, err
		}
		if buf[n] != '\r' || buf[n+1] != '\n' {
			return reply{}, fmt.Errorf("bulk of %d bytes not followed by CRLF", n)
		}
		rep.text = string(buf[:n])
		return finish()
	case '*', '~', '>', '%', '|':
		n, err := strconv.Atoi(body)
		if err != nil || n < -1 || n > 1<<20 {
			return reply{}, fmt.Errorf("bad aggregate length in %q", line)
		}
		if n == -1 {
			rep.null = true
			return finish()
		}
		if kind == '%' || kind == '|' {
			n *= 2
		}
		for i := 0; i < n; i++ {
			e, err := readValue(r, raw, depth+1)
			if err != nil {
				return reply{}, err
			}
			rep.elems = append(rep.elems, e)
		}
		if kind == '|' {
			attr := rep
			attr.raw = (*raw)[start:len(*raw):len(*raw)]
			next, err := readValue(r, raw, depth+1)
			if err != nil {
				return reply{}, err
			}
			next.attr = &attr
			next.raw = (*raw)[start:len(*raw):len(*raw)]
			return next, nil
		}
		return finish()
	}
	return reply{}, fmt.Errorf("unknown reply type %q in %q", kind, line)
}

// lines returns the text of a bulk-like reply as lines, without the "txt:"
// prefix of a RESP3 verbatim string.
func (r reply) lines() []string {
	text := r.text
	if r.kind == '=' && len(text) >= 4 && text[3] == ':' {
		text = text[4:]
	}
	return strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
}
