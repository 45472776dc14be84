package resp

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/tandemkv/tandem/conf"
)

// CONFIG REWRITE: conf rewrites the file (conf/rewrite.go); the front-end
// gives it the ACL users, which live in users.Store, and words the
// errors as Redis does.

// aclUserLines are the users as ACL LIST and the config file's user
// lines show them, by name.
func (f *Frontend) aclUserLines() []string {
	names := f.users.Names()
	lines := make([]string, 0, len(names))
	for _, n := range names {
		if u := f.users.Lookup(n); u != nil {
			lines = append(lines, u.Describe())
		} else {
			lines = append(lines, "user "+n+" off resetchannels -@all") // deleted meanwhile
		}
	}
	return lines
}

// cmdConfigRewrite is CONFIG REWRITE.
func cmdConfigRewrite(c *Client, _ [][]byte) {
	if c.fe.configFile() == "" {
		c.w.Error(ErrNoConfigFile)
		return
	}
	err := c.fe.cfg.Rewrite(c.fe.aclUserLines())
	switch {
	case errors.Is(err, conf.ErrNoConfigFile):
		c.w.Error(ErrNoConfigFile)
	case err != nil:
		msg := strerror(err)
		c.fe.log.Warn("CONFIG REWRITE failed: " + msg)
		c.w.Error(fmt.Sprintf(ErrConfigRewrite, msg))
	default:
		c.fe.log.Info("CONFIG REWRITE executed with success.")
		c.w.Status("OK")
	}
}

// strerror is C's strerror of the system error in err (Go spells them in
// lower case: "permission denied" is "Permission denied"); err's own
// text otherwise.
func strerror(err error) string {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return err.Error()
	}
	s := errno.Error()
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		s = string(s[0]-'a'+'A') + s[1:]
	}
	return s
}
