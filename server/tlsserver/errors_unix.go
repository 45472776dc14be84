package tlsserver

import "syscall"

// errTooManyFiles is accept's error when the process is out of file
// descriptors (EMFILE).
var errTooManyFiles = syscall.EMFILE
