package users

import (
	"errors"
	"slices"
	"strings"

	"github.com/tandemkv/tandem/internal/glob"
)

// Redis ACL rules on a Spec: ACL SETUSER's operations, applied one at a
// time as Redis's ACLSetUser does, and the description ACL LIST and ACL
// GETUSER print, built as Redis 7.0 builds it (ACLDescribeUser).
//
// Command permissions are a bitmap over the store's Catalog, one bit per
// command and subcommand, changed by each rule in order exactly as Redis
// changes its allowed_commands bitmap; +@all also sets the "future
// commands" flag. The description is derived from the bitmap, not from the
// rules typed: Redis 7.0 fits categories greedily, then lists single
// commands, and so does Describe.

// KeyPattern is one ~pattern (Read and Write), %R~pattern or %W~pattern.
type KeyPattern struct {
	Pattern     string
	Read, Write bool
}

// String is the pattern as a rule: "~p", "%R~p" or "%W~p".
func (k KeyPattern) String() string {
	switch {
	case k.Read && k.Write:
		return "~" + k.Pattern
	case k.Read:
		return "%R~" + k.Pattern
	default:
		return "%W~" + k.Pattern
	}
}

// The reasons ApplyRule refuses a rule, with Redis's texts
// (ACLSetUserStringError).
var (
	ErrRuleUnknown     = errors.New("Unknown command or category name in ACL")
	ErrRuleSyntax      = errors.New("Syntax error")
	ErrRuleAfterAllKey = errors.New("Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns")
	ErrRuleAfterAllCh  = errors.New("Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels")
	ErrRuleNoPassword  = errors.New("The password you are trying to remove from the user does not exist")
	ErrRuleBadHash     = errors.New("The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters")
)

// RuleError is a refused ACL SETUSER operation.
type RuleError struct {
	Op  string
	Err error
}

func (e *RuleError) Error() string {
	return "Error in ACL SETUSER modifier '" + e.Op + "': " + e.Err.Error()
}

func (e *RuleError) Unwrap() error { return e.Err }

// Sanitize flags, as Redis's sanitize-payload and skip-sanitize-payload.
const (
	SanitizeDefault = iota
	SanitizePayload
	SkipSanitizePayload
)

// ApplyRules applies ops in order; it stops at the first refused one and
// returns a *RuleError. The Spec is then half-changed: Store.SetUser works
// on a copy and publishes nothing on an error.
func (s *Spec) ApplyRules(ops ...string) error {
	for _, op := range ops {
		if err := s.ApplyRule(op); err != nil {
			return &RuleError{Op: op, Err: err}
		}
	}
	return nil
}

// ApplyRule applies one ACL SETUSER operation.
func (s *Spec) ApplyRule(op string) error {
	switch strings.ToLower(op) {
	case "on":
		s.Enabled = true
		return nil
	case "off":
		s.Enabled = false
		return nil
	case "nopass":
		s.SetNoPass()
		return nil
	case "resetpass":
		s.ResetPass()
		return nil
	case "sanitize-payload":
		s.Sanitize = SanitizePayload
		return nil
	case "skip-sanitize-payload":
		s.Sanitize = SkipSanitizePayload
		return nil
	case "allkeys", "~*":
		s.AllKeys, s.Keys = true, nil
		return nil
	case "resetkeys":
		s.AllKeys, s.Keys = false, nil
		return nil
	case "allchannels", "&*":
		s.AllChannels, s.Channels = true, nil
		return nil
	case "resetchannels":
		s.AllChannels, s.Channels = false, nil
		return nil
	case "allcommands", "+@all":
		s.setAll(true)
		return nil
	case "nocommands", "-@all":
		s.setAll(false)
		return nil
	case "reset":
		s.ResetPass()
		s.AllKeys, s.Keys = false, nil
		s.AllChannels, s.Channels = false, nil
		s.Enabled = false
		s.Sanitize = SanitizePayload
		s.setAll(false)
		return nil
	}
	if op == "" {
		return ErrRuleSyntax
	}
	switch op[0] {
	case '>':
		s.AddPassword(op[1:])
		return nil
	case '<':
		if !s.RemovePassword(op[1:]) {
			return ErrRuleNoPassword
		}
		return nil
	case '#', '!':
		h := op[1:]
		if !isLowerHex64(h) {
			return ErrRuleBadHash
		}
		if op[0] == '#' {
			s.addHash(h)
			return nil
		}
		i := slices.Index(s.Passwords, h)
		if i < 0 {
			return ErrRuleNoPassword
		}
		s.Passwords = slices.Delete(s.Passwords, i, i+1)
		return nil
	case '~', '%':
		return s.addKeyPattern(op)
	case '&':
		if s.AllChannels {
			return ErrRuleAfterAllCh
		}
		if !slices.Contains(s.Channels, op[1:]) {
			s.Channels = append(s.Channels, op[1:])
		}
		return nil
	case '+', '-':
		return s.commandRule(op[0] == '+', op[1:])
	}
	return ErrRuleSyntax
}

func isLowerHex64(h string) bool {
	if len(h) != 64 {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if (c < 'a' || c > 'f') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// addKeyPattern is ~pattern or %R~ / %W~ / %RW~pattern.
func (s *Spec) addKeyPattern(op string) error {
	if s.AllKeys {
		return ErrRuleAfterAllKey
	}
	kp := KeyPattern{Read: true, Write: true}
	off := 1
	if op[0] == '%' {
		kp = KeyPattern{}
		tilde := false
		for ; off < len(op); off++ {
			c := op[off]
			switch {
			case (c == 'R' || c == 'r') && !kp.Read:
				kp.Read = true
			case (c == 'W' || c == 'w') && !kp.Write:
				kp.Write = true
			case c == '~':
				tilde = true
			default:
				return ErrRuleSyntax
			}
			if tilde {
				off++
				break
			}
		}
		if !(kp.Read || kp.Write) {
			return ErrRuleSyntax
		}
		// As Redis: "%R" without '~' is the empty pattern.
	}
	kp.Pattern = op[off:]
	for i := range s.Keys {
		if s.Keys[i].Pattern == kp.Pattern {
			s.Keys[i].Read = s.Keys[i].Read || kp.Read
			s.Keys[i].Write = s.Keys[i].Write || kp.Write
			return nil
		}
	}
	s.Keys = append(s.Keys, kp)
	return nil
}

// setAll is +@all (allow) or -@all.
func (s *Spec) setAll(allow bool) {
	s.Future = allow
	s.rules = nil
	n := 0
	if s.cat != nil {
		n = s.cat.Len()
	}
	s.allowed = make([]bool, n)
	if allow {
		for i := range s.allowed {
			s.allowed[i] = true
		}
	}
}

// commandRule is +name, -name, +@category, -@category, +cmd|sub.
func (s *Spec) commandRule(allow bool, name string) error {
	s.ensureBits()
	sign := "-"
	if allow {
		sign = "+"
	}
	if strings.HasPrefix(name, "@") {
		bit := CategoryBit(name[1:])
		if bit == 0 {
			return ErrRuleUnknown
		}
		if s.cat != nil { // without a catalog only CanRunCategories reads the rule
			for i, cc := range s.cat.cmds {
				if cc.Categories&bit != 0 {
					s.changePerm(i, allow)
				}
			}
		}
		s.rules = append(s.rules, sign+strings.ToLower(name))
		return nil
	}
	if s.cat == nil {
		return ErrRuleUnknown
	}
	i := s.cat.Index(name)
	if i < 0 {
		return ErrRuleUnknown
	}
	s.changePerm(i, allow)
	s.rules = append(s.rules, sign+s.cat.cmds[i].Name)
	return nil
}

func (s *Spec) ensureBits() {
	if s.cat != nil && len(s.allowed) != s.cat.Len() {
		rules := s.rules
		s.setAll(s.Future)
		for _, r := range rules {
			_ = s.commandRule(r[0] == '+', r[1:])
		}
	}
}

// changePerm sets a command's bit and, for a container, its subcommands'
// (Redis's ACLChangeSelectorPerm).
func (s *Spec) changePerm(i int, allow bool) { changePerm(s.cat, s.allowed, i, allow) }

func changePerm(cat *Catalog, bits []bool, i int, allow bool) {
	bits[i] = allow
	for _, sub := range cat.cmds[i].subs {
		bits[sub] = allow
	}
}

// CanRun reports whether the command at catalog index i may run. A
// no-auth command (AUTH, HELLO, QUIT, RESET) always may, as in Redis.
func (s *Spec) CanRun(i int) bool {
	if s.cat == nil || i < 0 || i >= len(s.allowed) {
		return s.Future
	}
	return s.allowed[i] || s.cat.cmds[i].NoAuth
}

// CanRunNamed is CanRun for the command called name ("client|id").
func (s *Spec) CanRunNamed(name string) bool {
	if s.cat == nil {
		return s.Future
	}
	return s.CanRun(s.cat.Index(name))
}

// CanRunCategories reports whether a command outside the catalog (a
// memcached command) with these categories may run: the rules are
// replayed from +@all or -@all, and only category rules apply to it.
func (s *Spec) CanRunCategories(bits uint32) bool {
	ok := s.Future
	for _, r := range s.rules {
		if strings.HasPrefix(r[1:], "@") && CategoryBit(r[2:])&bits != 0 {
			ok = r[0] == '+'
		}
	}
	return ok
}

// Unrestricted reports whether the user may run every command on every key
// and channel: the front-ends skip their checks for such a user (the
// default one). It is computed when the Spec is published.
func (s *Spec) Unrestricted() bool { return s.open }

// seal computes what Unrestricted reports; the store calls it before it
// publishes a Spec.
func (s *Spec) seal() {
	s.open = s.AllKeys && s.AllChannels && s.Future
	for _, a := range s.allowed {
		s.open = s.open && a
	}
}

// KeyAllowed reports whether a key may be read (read) and/or written
// (write) by the patterns, as Redis's ACLSelectorCheckKey.
func (s *Spec) KeyAllowed(key []byte, read, write bool) bool {
	if s.AllKeys {
		return true
	}
	for _, k := range s.Keys {
		if (read && !k.Read) || (write && !k.Write) {
			continue
		}
		if glob.Match([]byte(k.Pattern), key, false) {
			return true
		}
	}
	return false
}

// ChannelAllowed reports whether a channel may be used; a pattern
// (PSUBSCRIBE's argument) must equal one of the user's patterns, a channel
// must match one, as Redis's ACLCheckChannelAgainstList.
func (s *Spec) ChannelAllowed(ch []byte, isPattern bool) bool {
	if s.AllChannels {
		return true
	}
	for _, p := range s.Channels {
		if isPattern && p == string(ch) || !isPattern && glob.Match([]byte(p), ch, false) {
			return true
		}
	}
	return false
}

// Flags are the user's flags as ACL GETUSER lists them.
func (s *Spec) Flags() []string {
	f := []string{"off"}
	if s.Enabled {
		f[0] = "on"
	}
	if s.NoPass {
		f = append(f, "nopass")
	}
	switch s.Sanitize {
	case SkipSanitizePayload:
		f = append(f, "skip-sanitize-payload")
	case SanitizePayload:
		f = append(f, "sanitize-payload")
	}
	return f
}

// KeysRule is the key patterns as ACL GETUSER's "keys" shows them.
func (s *Spec) KeysRule() string {
	if s.AllKeys {
		return "~*"
	}
	parts := make([]string, len(s.Keys))
	for i, k := range s.Keys {
		parts[i] = k.String()
	}
	return strings.Join(parts, " ")
}

// ChannelsRule is the channel patterns as ACL GETUSER's "channels" shows
// them.
func (s *Spec) ChannelsRule() string {
	if s.AllChannels {
		return "&*"
	}
	parts := make([]string, len(s.Channels))
	for i, c := range s.Channels {
		parts[i] = "&" + c
	}
	return strings.Join(parts, " ")
}

// Describe is the user's line in ACL LIST after "user <name> ", Redis's
// ACLDescribeUser.
func (s *Spec) Describe() string {
	var b strings.Builder
	for _, f := range s.Flags() {
		b.WriteString(f + " ")
	}
	for _, p := range s.Passwords {
		b.WriteString("#" + p + " ")
	}
	if s.AllKeys {
		b.WriteString("~* ")
	} else {
		for _, k := range s.Keys {
			b.WriteString(k.String() + " ")
		}
	}
	if s.AllChannels {
		b.WriteString("&* ")
	} else {
		b.WriteString("resetchannels ")
		for _, c := range s.Channels {
			b.WriteString("&" + c + " ")
		}
	}
	b.WriteString(s.CommandRules())
	return b.String()
}

// CommandRules describes the permission bitmap as Redis 7.0's
// ACLDescribeSelectorCommandRules: +@all or -@all, then the categories
// that fit best, one at a time, then single commands.
func (s *Spec) CommandRules() string {
	additive := !s.Future
	rules := "+@all"
	if additive {
		rules = "-@all"
	}
	if s.cat == nil {
		return rules
	}
	cat := s.cat
	n := cat.Len()
	fake := make([]bool, n)
	if !additive {
		for i := range fake {
			fake[i] = true
		}
	}
	temp := slices.Clone(s.allowed)
	applied := make([]bool, len(Categories))
	for {
		best, mindiff, maxsame := -1, int(^uint(0)>>1), 0
		for j := range Categories {
			if applied[j] {
				continue
			}
			on, off := 0, 0
			for i, cc := range cat.cmds {
				if cc.Categories&(1<<j) != 0 {
					if temp[i] {
						on++
					} else {
						off++
					}
				}
			}
			diff, same := off, on
			if !additive {
				diff, same = on, off
			}
			if same > diff && (diff < mindiff || diff == mindiff && same > maxsame) {
				best, mindiff, maxsame = j, diff, same
			}
		}
		if best < 0 {
			break
		}
		for i, cc := range cat.cmds {
			if cc.Categories&(1<<best) != 0 {
				changePerm(cat, fake, i, additive)
				changePerm(cat, temp, i, !additive)
			}
		}
		op := "-@"
		if additive {
			op = "+@"
		}
		rules += " " + op + Categories[best]
		applied[best] = true
	}
	var single func(idx []int)
	single = func(idx []int) {
		for _, i := range idx {
			if s.allowed[i] != fake[i] {
				op := "-"
				if s.allowed[i] {
					op = "+"
				}
				rules += " " + op + cat.cmds[i].Name
				changePerm(cat, fake, i, s.allowed[i])
			}
			single(cat.cmds[i].subs)
		}
	}
	var top []int
	for i, cc := range cat.cmds {
		if cc.parent < 0 {
			top = append(top, i)
		}
	}
	single(top)
	return rules
}

// ACL is the user's published Spec, for permission checks on the hot
// path; the caller must not change it.
func (u *User) ACL() *Spec { return u.spec.Load() }

// SetCatalog makes cat the commands ACL rules name and recomputes every
// user's permission bitmap from its rules. The Redis front-end calls it
// once, when it builds its command table.
func (s *Store) SetCatalog(cat *Catalog) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cat = cat
	for _, u := range s.users {
		sp := u.spec.Load().clone()
		sp.cat = cat
		sp.allowed = nil
		sp.ensureBits()
		sp.seal()
		u.spec.Store(sp)
	}
}

// Catalog is the catalog SetCatalog gave, or nil.
func (s *Store) Catalog() *Catalog {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.cat
}

// SetUser is ACL SETUSER: it applies ops to the user called name (a new
// one if there is none: off, no password, no key, no channel, -@all) and
// publishes the result only if every op is accepted; otherwise it returns
// the *RuleError and changes nothing.
func (s *Store) SetUser(name string, ops ...string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.users[name]
	sp := &Spec{cat: s.cat}
	if u != nil {
		sp = u.spec.Load().clone()
	}
	sp.ensureBits()
	if err := sp.ApplyRules(ops...); err != nil {
		return err
	}
	if u == nil {
		u = &User{name: name}
		s.users[name] = u
	}
	sp.seal()
	u.spec.Store(sp)
	return nil
}

// Describe is the user's ACL LIST line: "user <name> <rules>".
func (u *User) Describe() string { return "user " + u.name + " " + u.ACL().Describe() }
