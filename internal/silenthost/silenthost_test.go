package silenthost

import (
	"net"
	"testing"
	"time"
)

func TestConnectHangs(t *testing.T) {
	addr := Addr(t)
	t0 := time.Now()
	c, err := net.DialTimeout("tcp", addr, 300*time.Millisecond)
	if err == nil {
		c.Close()
		t.Fatal("a connect to the silent address completed")
	}
	if d := time.Since(t0); d < 250*time.Millisecond {
		t.Fatalf("the connect failed after %v (%v), not at its timeout", d, err)
	}
}
