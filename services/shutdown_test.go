package services_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/tandemkv/tandem/conf"
	"github.com/tandemkv/tandem/engine"
	"github.com/tandemkv/tandem/services"
)

// A shutdown while the AOF enabled at run time waits for its first
// rewrite would leave no AOF of the dataset: it is refused, as Redis's
// "Writing initial AOF, can't exit.", unless forced.
func TestShutdownRefusedWhileWritingInitialAOF(t *testing.T) {
	// 5 keys at 300 ms each: the first rewrite takes 1.5 s.
	cfg, err := conf.Load([]string{"--dir", t.TempDir(), "--save", "", "--rdb-key-save-delay", "300000"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	svc := services.New(services.Options{Config: cfg})
	t.Cleanup(svc.Replication.Primary.Close)
	for i := 0; i < 5; i++ {
		if _, err := svc.Engine.DB(0).Set([]byte(fmt.Sprint("k", i)), []byte("v"), engine.SetOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	started := make(chan error, 1)
	go func() { started <- svc.AppendOnly.Start() }()
	for deadline := time.Now().Add(5 * time.Second); !svc.AppendOnly.WritingInitial(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the AOF never started its first rewrite")
		}
	}
	if err := svc.PrepareShutdown(services.ShutdownOptions{}); err != services.ErrShutdown {
		t.Errorf("shutdown while the initial AOF is written: %v, want %v", err, services.ErrShutdown)
	}
	if err := svc.PrepareShutdown(services.ShutdownOptions{Force: true}); err != nil {
		t.Errorf("forced shutdown while the initial AOF is written: %v", err)
	}
	if err := <-started; err != nil {
		t.Fatal(err)
	}
	if svc.AppendOnly.WritingInitial() {
		t.Error("still writing the initial AOF after its rewrite")
	}
	svc.AppendOnly.Close()
}
