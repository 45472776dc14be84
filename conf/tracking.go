package conf

// TrackingTableMaxKeys is tracking-table-max-keys: how many keys the
// client-side caching table may hold before random ones are invalidated
// to make room (0: no bound). Followed by services (the tracking table).
func (c *Config) TrackingTableMaxKeys() int64 { return c.load().num[dTrackingTableMaxKeys] }
