package tracking

import (
	"bytes"
	"errors"
)

// The refusals of CLIENT TRACKING ON, in Redis 7.0's words (without the
// "ERR " a front-end puts before them), in the order Redis checks them.
var (
	ErrPrefixNeedsBcast = errors.New("PREFIX option requires BCAST mode to be enabled")
	ErrBcastSwitch      = errors.New("You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.")
	ErrOptBcast         = errors.New("OPTIN and OPTOUT are not compatible with BCAST")
	ErrOptBoth          = errors.New("You can't specify both OPTIN mode and OPTOUT mode")
	ErrOptSwitch        = errors.New("You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode.")
)

// OverlapError refuses a BCAST prefix that overlaps another: one of the
// connection's prefixes (Existing) or a later one of the same command.
// Prefixes overlap when one starts with the other, so that a key could
// be reported twice.
type OverlapError struct {
	Prefix, Other []byte
	Existing      bool
	at            int // Prefix's position in the command's prefixes
}

func (e *OverlapError) Error() string {
	which := "another provided"
	if e.Existing {
		which = "an existing"
	}
	// Redis formats both with %s: they end at a NUL byte.
	return "Prefix '" + string(cString(e.Prefix)) + "' overlaps with " + which + " prefix '" +
		string(cString(e.Other)) + "'. Prefixes for a single client must not overlap."
}

func cString(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}
