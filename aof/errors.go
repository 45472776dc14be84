package aof

import (
	"errors"
	"fmt"
	"syscall"
)

// opError is an error in Redis's words whose cause stays reachable for
// errors.Is (fs.ErrNotExist, syscall.ENOSPC).
type opError struct {
	msg string
	err error
}

func (e *opError) Error() string { return e.msg }
func (e *opError) Unwrap() error { return e.err }

// failf formats Redis's message, whose last verb is the cause's strerror.
func failf(err error, format string, a ...any) error {
	return &opError{msg: fmt.Sprintf(format, append(a, strerror(err))...), err: err}
}

// strerror is glibc's strerror of err's errno ("No space left on device"),
// or err's text when it carries none. Go's errno texts are glibc's with a
// lower-case first letter.
func strerror(err error) string {
	var en syscall.Errno
	if errors.As(err, &en) {
		s := en.Error()
		if s != "" && s[0] >= 'a' && s[0] <= 'z' {
			s = string(s[0]-'a'+'A') + s[1:]
		}
		return s
	}
	if err == nil {
		return "Success"
	}
	return err.Error()
}
