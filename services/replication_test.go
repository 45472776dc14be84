package services_test

import (
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/internal/silenthost"
	"github.com/tandemkv/tandem/services"
)

type discardReplayer struct{}

func (discardReplayer) Apply([][]byte) error         { return nil }
func (discardReplayer) Linked(_, _ string, _ func()) {}
func (discardReplayer) Unlinked()                    {}

// REPLICAOF NO ONE does not wait for the link's connect to a silent
// master to time out (repl-timeout, a minute by default): in a
// partition that is the master a failover gives up on, and the event
// loop serving the command would stall for all its clients. The dial
// the composition root gives the link (TLS or not) must end with it.
func TestNoOneDuringConnectToSilentMaster(t *testing.T) {
	cfg, err := conf.Load([]string{"--dir", t.TempDir(), "--repl-timeout", "60"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	svc := services.New(services.Options{Config: cfg})
	r := svc.Replication
	r.SetReplayer(func() services.MasterReplayer { return discardReplayer{} }, 6379)
	host, port, _ := net.SplitHostPort(silenthost.Addr(t))
	portN, _ := strconv.Atoi(port)
	if err := r.ReplicaOf(host, portN, false); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the link connecting", func() bool { return r.Primary.Role().State == "connecting" })
	time.Sleep(50 * time.Millisecond)
	t0 := time.Now()
	r.NoOne()
	if d := time.Since(t0); d > 2*time.Second {
		t.Fatalf("REPLICAOF NO ONE took %v", d)
	}
	if r.IsReplica() {
		t.Fatal("still a replica")
	}
}
