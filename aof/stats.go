package aof

import "time"

// Stats are the AOF fields of INFO persistence, as Redis computes them.
type Stats struct {
	CurrentSize           int64 // aof_current_size
	BaseSize              int64 // aof_base_size (the size after the last rewrite)
	BufferLength          int   // aof_buffer_length
	PendingBioFsync       int64 // aof_pending_bio_fsync
	DelayedFsync          int64 // aof_delayed_fsync: background fsyncs over 2 s
	LastWriteOK           bool  // aof_last_write_status
	RewriteInProgress     bool  // aof_rewrite_in_progress
	LastBgrewriteOK       bool  // aof_last_bgrewrite_status
	Rewrites              int64 // aof_rewrites
	RewriteFailures       int64 // aof_rewrites_consecutive_failures
	LastRewriteTimeSec    int64 // aof_last_rewrite_time_sec (-1 before any)
	CurrentRewriteTimeSec int64 // aof_current_rewrite_time_sec (-1 when none)
	LastCowSize           int64 // aof_last_cow_size: 0, there is no fork
	IncrFile              string
	Manifest              *Manifest // a copy
}

// Stats returns the current figures.
func (l *Log) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := Stats{
		CurrentSize:           l.curSize,
		BaseSize:              l.baseSize,
		BufferLength:          len(l.buf),
		PendingBioFsync:       l.pendingFsync.Load(),
		DelayedFsync:          l.delayedFsync,
		LastWriteOK:           l.writeErr == nil && l.fsyncErr == nil && l.fatal == nil,
		RewriteInProgress:     l.rewrite != nil,
		LastBgrewriteOK:       l.lastRewriteOK,
		Rewrites:              l.rewrites,
		RewriteFailures:       l.rewriteFailures,
		LastRewriteTimeSec:    -1,
		CurrentRewriteTimeSec: -1,
		IncrFile:              l.fileName,
		Manifest:              l.manifest.Clone(),
	}
	if l.rewritten {
		st.LastRewriteTimeSec = int64(l.lastRewriteTime / time.Second)
	}
	if l.rewrite != nil {
		st.CurrentRewriteTimeSec = int64(time.Since(l.rewrite.started) / time.Second)
	}
	return st
}
