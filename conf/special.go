package conf

import (
	"strconv"
	"strings"

	"github.com/tandemkv/tandem/internal/num"
)

// layerState is what a start-up layer (the file with its includes, the
// environment, the flags) remembers while it is applied. It is nil for
// CONFIG SET.
type layerState struct {
	saveSeen bool // a save line of this layer has already replaced the rules of the layers below
}

// setSave parses "save <seconds> <changes> [<seconds> <changes> ...]".
// Redis checks: an even count, seconds >= 1, changes >= 0, each read by
// strtoll. CONFIG SET replaces the rules. In a layer, save lines accumulate
// as in redis.conf, the first one replacing the rules of lower layers, and
// save "" clearing them.
func setSave(s *snapshot, args []string, layer *layerState) string {
	if len(args) == 1 && args[0] == "" {
		args = nil
	}
	if len(args)%2 != 0 {
		return reasonSave
	}
	rules := make([]SaveRule, 0, len(args)/2)
	for j := 0; j < len(args); j += 2 {
		sec, ok1 := parseStrtoll(args[j])
		chg, ok2 := parseStrtoll(args[j+1])
		if !ok1 || !ok2 || sec < 1 || chg < 0 {
			return reasonSave
		}
		rules = append(rules, SaveRule{Seconds: sec, Changes: chg})
	}
	if layer != nil && layer.saveSeen && len(rules) > 0 {
		// Accumulate; never append into a slice another snapshot may share.
		rules = append(append(make([]SaveRule, 0, len(s.save)+len(rules)), s.save...), rules...)
	}
	if layer != nil {
		layer.saveSeen = true
	}
	s.save = rules
	return ""
}

func getSave(s *snapshot) string {
	var b strings.Builder
	for i, r := range s.save {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatInt(r.Seconds, 10))
		b.WriteByte(' ')
		b.WriteString(strconv.FormatInt(r.Changes, 10))
	}
	return b.String()
}

// maxBindAddrs is redis CONFIG_BINDADDR_MAX.
const maxBindAddrs = 16

func setBind(s *snapshot, args []string, _ *layerState) string {
	if len(args) > maxBindAddrs {
		return reasonTooManyBind
	}
	if len(args) == 1 && args[0] == "" {
		args = nil
	}
	s.bind = append([]string(nil), args...)
	return ""
}

func getBind(s *snapshot) string { return strings.Join(s.bind, " ") }

// notifyChars maps each class character to its flag, in the order redis
// prints them (keyspaceEventsFlagsToString).
var notifyChars = []struct {
	c byte
	f NotifyFlags
}{
	{'g', NotifyGeneric}, {'$', NotifyString}, {'l', NotifyList}, {'s', NotifySet},
	{'h', NotifyHash}, {'z', NotifyZset}, {'x', NotifyExpired}, {'e', NotifyEvicted},
	{'t', NotifyStream}, {'d', NotifyModule}, {'n', NotifyNew},
}

func setNotify(s *snapshot, args []string, _ *layerState) string {
	if len(args) != 1 {
		return reasonWrongArgs
	}
	var flags NotifyFlags
	for i := 0; i < len(args[0]); i++ {
		switch c := args[0][i]; c {
		case 'A':
			flags |= NotifyAll
		case 'K':
			flags |= NotifyKeyspace
		case 'E':
			flags |= NotifyKeyevent
		case 'm':
			flags |= NotifyKeyMiss
		default:
			found := false
			for _, nc := range notifyChars {
				if nc.c == c {
					flags |= nc.f
					found = true
					break
				}
			}
			if !found {
				return reasonNotify
			}
		}
	}
	s.num[dNotifyKeyspaceEvents] = int64(flags)
	return ""
}

// getNotify mirrors redis, including its quirk that "n" is not shown when
// every class of "A" is set.
func getNotify(s *snapshot) string {
	flags := NotifyFlags(s.num[dNotifyKeyspaceEvents])
	var b []byte
	if flags&NotifyAll == NotifyAll {
		b = append(b, 'A')
	} else {
		for _, nc := range notifyChars {
			if flags&nc.f != 0 {
				b = append(b, nc.c)
			}
		}
	}
	if flags&NotifyKeyspace != 0 {
		b = append(b, 'K')
	}
	if flags&NotifyKeyevent != 0 {
		b = append(b, 'E')
	}
	if flags&NotifyKeyMiss != 0 {
		b = append(b, 'm')
	}
	return string(b)
}

// clientClassByName is redis getClientTypeByName; "master" is a valid name
// there but refused for limits, so it is refused here too.
func clientClassByName(name string) (ClientClass, bool) {
	switch strings.ToLower(name) {
	case "normal":
		return ClientNormal, true
	case "slave", "replica":
		return ClientReplica, true
	case "pubsub":
		return ClientPubSub, true
	}
	return 0, false
}

// setOutputBufferLimit parses groups of "<class> <hard> <soft> <soft-seconds>";
// hard and soft accept memory units. Only the classes given change, and
// nothing changes if any group is wrong.
func setOutputBufferLimit(s *snapshot, args []string, _ *layerState) string {
	if len(args)%4 != 0 {
		return reasonObufArgs
	}
	limits := s.obuf
	for j := 0; j < len(args); j += 4 {
		class, ok := clientClassByName(args[j])
		if !ok {
			return reasonObufClass
		}
		hard, ok1 := parseMemory(args[j+1])
		soft, ok2 := parseMemory(args[j+2])
		secs, ok3 := parseStrtoll(args[j+3])
		if !ok1 || !ok2 || !ok3 || secs < 0 {
			return reasonObufValue
		}
		limits[class] = BufferLimit{Hard: hard, Soft: soft, SoftSeconds: secs}
	}
	s.obuf = limits
	return ""
}

func getOutputBufferLimit(s *snapshot) string {
	var b strings.Builder
	for c, l := range s.obuf {
		if c > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(clientClassNames[c])
		for _, n := range []int64{l.Hard, l.Soft, l.SoftSeconds} {
			b.WriteByte(' ')
			b.WriteString(strconv.FormatInt(n, 10))
		}
	}
	return b.String()
}

// oomCount is redis's CONFIG_OOM_COUNT: primary, replica, child process.
const oomCount = 3

// setOOMScoreAdjValues parses "oom-score-adj-values <primary> <replica>
// <child>" as redis: three strtoll numbers within -2000..2000. Inert in
// Tandem, so only its CONFIG GET form is kept.
func setOOMScoreAdjValues(s *snapshot, args []string, _ *layerState) string {
	if len(args) != oomCount {
		return reasonWrongArgs
	}
	vals := make([]string, oomCount)
	for i, a := range args {
		n, ok := parseStrtoll(a)
		if !ok || n < -2000 || n > 2000 {
			return reasonOOMValues
		}
		vals[i] = strconv.FormatInt(n, 10)
	}
	s.str[dOOMScoreAdjValues] = strings.Join(vals, " ")
	return ""
}

func getOOMScoreAdjValues(s *snapshot) string { return s.str[dOOMScoreAdjValues] }

// setLatencyPercentiles parses latency-tracking-info-percentiles as
// redis: doubles (string2d) within 0..100, "" alone for none; kept in
// its CONFIG GET form ("%f" without trailing zeros).
func setLatencyPercentiles(s *snapshot, args []string, _ *layerState) string {
	if len(args) == 1 && args[0] == "" {
		args = nil
	}
	vals := make([]string, len(args))
	for i, a := range args {
		f, ok := num.ParseFloat([]byte(a))
		if !ok {
			return reasonPercentiles
		}
		if f > 100 || f < 0 {
			return reasonPercentilesRange
		}
		v := strconv.FormatFloat(f, 'f', 6, 64)
		v = strings.TrimRight(v, "0")
		vals[i] = strings.TrimSuffix(v, ".")
	}
	s.str[dLatencyTrackingInfoPercentiles] = strings.Join(vals, " ")
	return ""
}

func getLatencyPercentiles(s *snapshot) string { return s.str[dLatencyTrackingInfoPercentiles] }

// setReplicaOf parses "replicaof <host> <port>" (or "no one") as redis.
func setReplicaOf(s *snapshot, args []string, _ *layerState) string {
	if len(args) != 2 {
		return reasonWrongArgs
	}
	if strings.EqualFold(args[0], "no") && strings.EqualFold(args[1], "one") {
		s.str[dReplicaOf] = ""
		return ""
	}
	if port, ok := parseStrtoll(args[1]); !ok || port < 0 || port > 65535 {
		return reasonMasterPort
	}
	s.str[dReplicaOf] = args[0] + " " + args[1]
	return ""
}

// getReplicaOf is "<host> <port>", or "" for no one, as redis prints it.
func getReplicaOf(s *snapshot) string { return s.str[dReplicaOf] }
