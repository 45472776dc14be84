package memproto

// watcherBufSize is memcached's watcher_logbuf_size default: what one
// watcher may hold unread before lines are skipped.
const watcherBufSize = 256 << 10
