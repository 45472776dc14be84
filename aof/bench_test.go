package aof

import (
	"testing"

	"github.com/tandemkv/tandem/propagate"
)

// BenchmarkAppend is the event loops' cost per write command.
func BenchmarkAppend(b *testing.B) {
	o := Options{Dir: b.TempDir(), DirName: "appendonlydir", FileName: "appendonly.aof", Fsync: FsyncNo, Logger: quiet}
	l, err := Open(o, emptyBase)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	p := propagate.AppendCommand(nil, "SET", "key:000000000001", "value-of-sixteen")
	b.ReportAllocs()
	b.SetBytes(int64(len(p)))
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			l.Append(0, p)
			if i++; i%64 == 0 {
				l.Flush()
			}
		}
	})
}

// BenchmarkAlwaysGroupCommit: parallel writers each appending one command
// and waiting until it is fdatasynced, on the test's temp directory's
// disk. syncs/op below 1 is the group commit at work.
func BenchmarkAlwaysGroupCommit(b *testing.B) {
	o := Options{Dir: b.TempDir(), DirName: "appendonlydir", FileName: "appendonly.aof", Fsync: FsyncAlways, Logger: quiet}
	var h hooks
	h.install(&o)
	l, err := Open(o, emptyBase)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	p := propagate.AppendCommand(nil, "SET", "key:000000000001", "value-of-sixteen")
	b.SetParallelism(16)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := l.WaitDurable(l.Append(0, p)); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(h.syncs.Load())/float64(b.N), "syncs/op")
}
