package scripting

import "sync"

// lrand48 is Redis's redisLrand48: the 48-bit linear congruential generator
// of rand48, whose state math.random and math.randomseed share across every
// script and function of the server (a C global in Redis, never reseeded on
// its own in 7.0).
type lrand48 struct {
	mu sync.Mutex
	x  uint64
}

const (
	rand48A    = 0x5DEECE66D
	rand48C    = 0xB
	rand48Mask = 1<<48 - 1
	// rand48Max is REDIS_LRAND48_MAX (INT32_MAX).
	rand48Max = 2147483647
)

// globalRand is the one generator of the process, as in Redis.
var globalRand = &lrand48{x: 0x1234ABCD330E}

// next returns the next 31-bit value.
func (r *lrand48) next() int32 {
	r.mu.Lock()
	r.x = (rand48A*r.x + rand48C) & rand48Mask
	v := int32(r.x >> 17)
	r.mu.Unlock()
	return v
}

// seed is redisSrand48.
func (r *lrand48) seed(s int32) {
	r.mu.Lock()
	r.x = uint64(uint32(s))<<16 | 0x330E
	r.mu.Unlock()
}

// float returns a number in [0, 1) as redis_math_random computes it.
func (r *lrand48) float() float64 {
	return float64(r.next()%rand48Max) / rand48Max
}
