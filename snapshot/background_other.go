//go:build !linux

package snapshot

// lowerPriority is a no-op where thread priorities are not available.
func lowerPriority() (restore func()) { return func() {} }
