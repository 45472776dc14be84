package resp

// overMemory reports whether denyoom commands must be refused: used memory
// is over maxmemory and the policy could not evict enough (noeviction, or
// a volatile policy without volatile keys).
func (f *Frontend) overMemory() bool {
	max := f.cfg.MaxMemory()
	return max > 0 && f.eng.UsedMemory() > max && !f.eng.FreeMemory()
}
