package propagate

import (
	"strings"
	"testing"
)

type recordingSink struct{ got []string }

func (s *recordingSink) Feed(_ int, cmd []byte) { s.got = append(s.got, string(cmd)) }

type recordingReplicaSink struct{ recordingSink }

func (*recordingReplicaSink) FeedsReplicas() {}

// TestReplicasOnlyOps: an op for replicas only (PUBLISH) reaches the
// ReplicaSinks alone; the MULTI … EXEC around it reaches every sink, as
// Redis's propagatePendingCommands feeds the AOF MULTI SET EXEC and the
// replicas MULTI SET PUBLISH EXEC.
func TestReplicasOnlyOps(t *testing.T) {
	l := New()
	aof, replicas := &recordingSink{}, &recordingReplicaSink{}
	l.Add(aof)
	l.Add(replicas)
	var ops Ops
	ops.Add(0, []byte("SET"), []byte("k"), []byte("v"))
	ops.AddReplicasOnly(0, []byte("PUBLISH"), []byte("c"), []byte("m"))
	l.Emit(&ops)
	ops.AddReplicasOnly(0, []byte("PUBLISH"), []byte("c"), []byte("m2"))
	l.Emit(&ops)
	names := func(cmds []string) string {
		var out []string
		for _, c := range cmds {
			out = append(out, strings.Split(c, "\r\n")[2])
		}
		return strings.Join(out, " ")
	}
	if got := names(aof.got); got != "MULTI SET EXEC" {
		t.Errorf("the AOF was fed %s", got)
	}
	if got := names(replicas.got); got != "MULTI SET PUBLISH EXEC PUBLISH" {
		t.Errorf("the replicas were fed %s", got)
	}
}
