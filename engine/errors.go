package engine

import "errors"

// Typed errors returned by the engine. Front-ends map each one to their own
// protocol's text; the messages here are for logs and Go callers only.
var (
	// ErrWrongType: the key holds a value of another type.
	ErrWrongType = errors.New("engine: wrong type")
	// ErrNotInteger: the value or argument is not a 64-bit integer.
	ErrNotInteger = errors.New("engine: not an integer")
	// ErrNotFloat: the value is not a valid float.
	ErrNotFloat = errors.New("engine: not a float")
	// ErrOverflow: an increment would overflow.
	ErrOverflow = errors.New("engine: increment would overflow")
	// ErrNaNOrInf: a float increment would produce NaN or infinity.
	ErrNaNOrInf = errors.New("engine: would produce NaN or infinity")
	// ErrNoSuchKey: the source key of RENAME/COPY/MOVE does not exist.
	ErrNoSuchKey = errors.New("engine: no such key")
	// ErrOOM: the write is refused because used memory exceeds maxmemory
	// and nothing can be evicted.
	ErrOOM = errors.New("engine: out of memory")
	// ErrTooLarge: the resulting string would exceed the size limit.
	ErrTooLarge = errors.New("engine: string exceeds maximum allowed size")
	// ErrDBIndex: a database index is out of range.
	ErrDBIndex = errors.New("engine: DB index is out of range")
	// ErrSameObject: source and destination are the same key.
	ErrSameObject = errors.New("engine: source and destination objects are the same")
)
