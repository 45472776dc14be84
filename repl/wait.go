package repl

import "time"

// waiter is one WAIT parked until n replicas acknowledge offset.
type waiter struct {
	n      int
	offset int64
	done   func(acked int)
	timer  *time.Timer
	over   bool
}

// CountAcks is replicationCountAcksByOffset: online replicas whose last
// ACK reached offset (WAIT's reply, and WAIT 0 / WAIT inside MULTI).
func (p *Primary) CountAcks(offset int64) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.countAcksLocked(offset)
}

func (p *Primary) countAcksLocked(offset int64) int {
	n := 0
	for _, l := range p.links {
		if l.state == stateOnline && l.ackOff >= offset {
			n++
		}
	}
	return n
}

// WaitAsync is WAIT numreplicas timeout for a client whose last write
// ended at offset: done(acked) is called once, when n replicas
// acknowledged offset or when timeout passes (0 = never) with the count
// then. When enough replicas already acknowledged, done runs before
// WaitAsync returns; else a REPLCONF GETACK * goes to the replicas
// shortly after (once for all WAITs of the moment), and done runs on
// another goroutine: the caller parks the client as a blocked one and
// wakes it. cancel forgets the wait (the client went away); done is then
// not called.
func (p *Primary) WaitAsync(n int, offset int64, timeout time.Duration, done func(acked int)) (cancel func()) {
	p.needCron() // its GETACK
	p.mu.Lock()
	if acked := p.countAcksLocked(offset); acked >= n {
		p.mu.Unlock()
		done(acked)
		return func() {}
	}
	w := &waiter{n: n, offset: offset, done: done}
	p.waiters = append(p.waiters, w)
	if timeout > 0 {
		w.timer = time.AfterFunc(timeout, func() {
			p.mu.Lock()
			if w.over {
				p.mu.Unlock()
				return
			}
			p.removeWaiterLocked(w)
			acked := p.countAcksLocked(w.offset)
			p.mu.Unlock()
			w.done(acked)
		})
	}
	p.ackWanted = true
	p.mu.Unlock()
	select {
	case p.wakeAck <- struct{}{}:
	default:
	}
	return func() {
		p.mu.Lock()
		if !w.over {
			p.removeWaiterLocked(w)
		}
		p.mu.Unlock()
	}
}

func (p *Primary) removeWaiterLocked(w *waiter) {
	w.over = true
	if w.timer != nil {
		w.timer.Stop()
	}
	for i, x := range p.waiters {
		if x == w {
			p.waiters = append(p.waiters[:i], p.waiters[i+1:]...)
			return
		}
	}
}

// releaseWaitersLocked is processClientsWaitingReplicas: the waits an ACK
// satisfied, as calls to make after unlocking.
func (p *Primary) releaseWaitersLocked() []func() {
	var ready []func()
	for i := 0; i < len(p.waiters); i++ {
		w := p.waiters[i]
		acked := p.countAcksLocked(w.offset)
		if acked < w.n {
			continue
		}
		p.removeWaiterLocked(w)
		i--
		ready = append(ready, func() { w.done(acked) })
	}
	return ready
}
