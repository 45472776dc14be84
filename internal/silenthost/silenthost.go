// Package silenthost gives tests a TCP address whose connects hang, as a
// master's behind a partition does: a loopback socket listening with
// the smallest accept queue, filled and never accepted, so the kernel
// drops further SYNs and a dial waits for its timeout. (A non-routable
// address does not do: some sandboxes answer every connect.)
package silenthost

import (
	"net"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// Addr is such an address, closed when the test ends.
func Addr(t testing.TB) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(sa.(*syscall.SockaddrInet4).Port))
	// Fill the queue: connects complete until it is full, then hang.
	for i := 0; ; i++ {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err != nil {
			return addr // this one hung: the queue is full
		}
		t.Cleanup(func() { c.Close() })
		if i == 16 {
			t.Fatal("silenthost: the accept queue does not fill")
		}
	}
}
