package users

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tandemkv/tandem/internal/sdsargs"
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
	ErrRuleFirstArgSub = errors.New("Allowing first-arg of a subcommand is not supported")
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

// ApplyRules applies ops in order, after merging a selector written over
// several arguments ("(+get", "~k)") into one, as Redis's
// ACLMergeSelectorArguments; it stops at the first refused op and returns
// a *RuleError (or MergeSelectorArgs's error). The Spec is
// then half-changed: Store.SetUser works on a copy and publishes nothing
// on an error.
func (s *Spec) ApplyRules(ops ...string) error {
	merged, err := MergeSelectorArgs(ops)
	if err != nil {
		return err
	}
	for _, op := range merged {
		if err := s.ApplyRule(op); err != nil {
			return &RuleError{Op: op, Err: err}
		}
	}
	return nil
}

// CheckRules checks a user line's rules as Redis does when it reads its
// configuration, before any command is known: every rule but those naming
// a command or category must be accepted. It returns the index of the
// refused rule among the merged rules (of the unmatched '(' among ops)
// and the reason, Redis's ACLSetUserStringError text.
func CheckRules(ops []string) (int, error) {
	merged, err := MergeSelectorArgs(ops)
	if err != nil {
		for i, op := range ops {
			if strings.HasPrefix(op, "(") && !strings.HasSuffix(op, ")") {
				return i, err
			}
		}
		return 0, err
	}
	sp := &Spec{}
	for i, op := range merged {
		if err := sp.ApplyRule(op); err != nil && !errors.Is(err, ErrRuleUnknown) {
			return i, err
		}
	}
	return 0, nil
}

// MergeSelectorArgs joins with spaces the arguments from one that starts
// with '(' and does not end with ')' up to one that ends with ')'. An
// unmatched one is an error naming it, Redis's text.
func MergeSelectorArgs(ops []string) ([]string, error) {
	var out []string
	open := -1
	var sel string
	for i, op := range ops {
		if open < 0 && op != "" && op[0] == '(' && op[len(op)-1] != ')' {
			open, sel = i, op
			continue
		}
		if open >= 0 {
			sel += " " + op
			if op != "" && op[len(op)-1] == ')' {
				out = append(out, sel)
				open = -1
			}
			continue
		}
		out = append(out, op)
	}
	if open >= 0 {
		return nil, fmt.Errorf("Unmatched parenthesis in acl selector starting at '%s'.", ops[open])
	}
	return out, nil
}

// ApplyRule applies one ACL SETUSER operation (Redis's ACLSetUser): the
// user's flags and passwords, a "(…)" selector, clearselectors, reset, or
// a rule of the root selector. An empty op does nothing, as in Redis.
func (s *Spec) ApplyRule(op string) error {
	switch strings.ToLower(op) {
	case "":
		return nil
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
	case "clearselectors":
		s.Selectors = nil
		return nil
	case "reset":
		s.ResetPass()
		s.AllKeys, s.Keys = false, nil
		s.AllChannels, s.Channels = s.pubsubAll, nil
		s.Enabled = false
		s.Sanitize = SanitizePayload
		s.Selectors = nil
		s.setAll(false)
		return nil
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
	case '(':
		if op[len(op)-1] == ')' {
			return s.addSelector(op[1 : len(op)-1])
		}
	}
	return s.Selector.applySelectorRule(op)
}

// addSelector is a "(rules)" op: a new selector with those rules, split
// as Redis's sdssplitargs splits them (quotes allowed; an unbalanced
// quote leaves the selector empty, as in Redis), each a selector rule.
func (s *Spec) addSelector(body string) error {
	sel := &Selector{cat: s.cat, AllChannels: s.pubsubAll}
	sel.setAll(false)
	words, ok := sdsargs.Strings(body)
	if !ok {
		words = nil
	}
	for _, w := range words {
		if err := sel.applySelectorRule(w); err != nil {
			return err
		}
	}
	s.Selectors = append(s.Selectors, sel)
	return nil
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

// selectors visits the root selector, then the others, in order.
func (s *Spec) selectors() []*Selector {
	return append([]*Selector{&s.Selector}, s.Selectors...)
}

// ensureBits rebuilds every selector's bitmap for the current catalog.
func (s *Spec) ensureBits() {
	s.Selector.ensureBits()
	for _, sel := range s.Selectors {
		sel.cat = s.cat
		sel.ensureBits()
	}
}

// KeyAccess is what a command does with a key, as ACL rules see it:
// Redis's key-spec flags ACCESS (KeyRead) and INSERT, DELETE, UPDATE
// (KeyWrite). A key the command neither reads nor writes (EXISTS, TYPE:
// RO alone) needs 0, which any pattern grants.
type KeyAccess uint8

const (
	KeyRead KeyAccess = 1 << iota
	KeyWrite
)

// KeyRef is one key argument of a command: its position in the
// arguments and the access it needs.
type KeyRef struct {
	Pos  int
	Need KeyAccess
}

// ChannelRef is one channel argument: its position, and whether it is a
// pattern (PSUBSCRIBE), which must equal an allowed pattern literally.
type ChannelRef struct {
	Pos     int
	Pattern bool
}

// Request is one command as the ACL rules check it.
type Request struct {
	Name     string   // the command's full name, "client|id" for a subcommand
	Args     [][]byte // the command's arguments, Args[0] its name
	Keys     []KeyRef
	Channels []ChannelRef
}

// Reason is why a command is refused, in Redis's order of precedence
// (ACL_DENIED_CMD < ACL_DENIED_KEY < ACL_DENIED_CHANNEL): of the
// selectors' denials, the one reported is the greatest reason, then the
// greatest argument position.
type Reason uint8

const (
	Allowed Reason = iota
	DeniedCommand
	DeniedKey
	DeniedChannel
)

// Denial is a refusal: its reason and, for a key or a channel, the
// argument's position.
type Denial struct {
	Reason Reason
	Pos    int
}

// outranks reports whether d, rather than o, is the denial to report of
// two selectors' (Redis's ACLCheckAllUserCommandPerm).
func (d Denial) outranks(o Denial) bool {
	return d.Reason > o.Reason || d.Reason == o.Reason && d.Pos > o.Pos
}

// String is the reason as ACL LOG names it.
func (r Reason) String() string {
	switch r {
	case DeniedCommand:
		return "command"
	case DeniedKey:
		return "key"
	case DeniedChannel:
		return "channel"
	}
	return ""
}

// Check is Redis's ACLCheckAllUserCommandPerm: the command may run when
// one selector allows it all; otherwise the denial to report.
func (s *Spec) Check(r *Request) Denial {
	i := -1
	if s.cat != nil {
		i = s.cat.Index(r.Name)
	}
	worst := Denial{Reason: DeniedCommand}
	for _, sel := range s.selectors() {
		d := sel.check(i, r)
		if d.Reason == Allowed {
			return d
		}
		if d.outranks(worst) {
			worst = d
		}
	}
	return worst
}

// CheckCategories is Check for a command outside the catalog (a memcached
// command) with these categories: in each selector, the rules are
// replayed from +@all or -@all and only category rules apply to it; each
// key needs the access need. A key's Denial.Pos is its index in keys.
func (s *Spec) CheckCategories(cats uint32, keys [][]byte, need KeyAccess) Denial {
	worst := Denial{Reason: DeniedCommand}
	for _, sel := range s.selectors() {
		d := Denial{}
		if !sel.canRunCategories(cats) {
			d.Reason = DeniedCommand
		} else if !sel.AllKeys {
			for i, k := range keys {
				if !sel.keyAllowed(k, need) {
					d = Denial{Reason: DeniedKey, Pos: i}
					break
				}
			}
		}
		if d.Reason == Allowed {
			return d
		}
		if d.outranks(worst) {
			worst = d
		}
	}
	return worst
}

// CheckUnrestrictedKeys is Redis's ACLUserCheckCmdWithUnrestrictedKeyAccess:
// whether one selector both allows the command and grants need on every
// key (allkeys, or a "*" pattern with that access). SORT asks it before it
// reads keys its BY and GET patterns name.
func (s *Spec) CheckUnrestrictedKeys(r *Request, need KeyAccess) bool {
	if s.open {
		return true
	}
	i := -1
	if s.cat != nil {
		i = s.cat.Index(r.Name)
	}
	for _, sel := range s.selectors() {
		if sel.check(i, r).Reason == Allowed && sel.allKeysFor(need) {
			return true
		}
	}
	return false
}

// CanRunNamed reports whether some selector lets the command called name
// ("client|id") run, whatever its arguments.
func (s *Spec) CanRunNamed(name string) bool {
	i := -1
	if s.cat != nil {
		i = s.cat.Index(name)
	}
	for _, sel := range s.selectors() {
		if sel.canRun(i, nil) {
			return true
		}
	}
	return false
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

// KeepsChannels reports whether every channel permission of old is still
// granted by s: some selector of s has all channels, or every pattern of
// old's selectors is one of s's (Redis's ACLKillPubsubClientsIfNeeded's
// shortcut). When it is false, subscribers of the user must be checked
// with KeepsSubscription.
func (s *Spec) KeepsChannels(old *Spec) bool {
	var upcoming []string
	for _, sel := range s.selectors() {
		if sel.AllChannels {
			return true
		}
		upcoming = append(upcoming, sel.Channels...)
	}
	for _, sel := range old.selectors() {
		if sel.AllChannels {
			return false
		}
		for _, c := range sel.Channels {
			if !slices.Contains(upcoming, c) {
				return false
			}
		}
	}
	return true
}

// KeepsSubscription reports whether a subscription (a channel, or a
// pattern of PSUBSCRIBE) is allowed by the channel patterns of all of s's
// selectors together, as Redis checks its pub/sub clients after ACL
// SETUSER.
func (s *Spec) KeepsSubscription(ch []byte, isPattern bool) bool {
	for _, sel := range s.selectors() {
		if sel.AllChannels || channelInList(sel.Channels, ch, isPattern) {
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

// Describe is the user's line in ACL LIST after "user <name> ", Redis's
// ACLDescribeUser: flags, password hashes, the root selector, then each
// selector in parentheses.
func (s *Spec) Describe() string {
	var b strings.Builder
	for _, f := range s.Flags() {
		b.WriteString(f + " ")
	}
	for _, p := range s.Passwords {
		b.WriteString("#" + p + " ")
	}
	b.WriteString(s.Selector.describe())
	for _, sel := range s.Selectors {
		b.WriteString(" (" + sel.describe() + ")")
	}
	return b.String()
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
		for _, sel := range sp.Selectors {
			sel.allowed = nil
		}
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
// the error and changes nothing. When the user's channel permissions
// shrank, the subscribers are told (Change.Narrowed).
func (s *Store) SetUser(name string, ops ...string) error {
	s.mu.Lock()
	u := s.users[name]
	sp := s.newSpec()
	var before *Spec
	if u != nil {
		before = u.spec.Load()
		sp = s.edit(u)
	}
	if err := sp.ApplyRules(ops...); err != nil {
		s.mu.Unlock()
		return err
	}
	if u == nil {
		u = &User{name: name}
		s.users[name] = u
	}
	sp.seal()
	u.spec.Store(sp)
	s.mu.Unlock()
	if before != nil && !sp.KeepsChannels(before) {
		s.notify(Change{Narrowed: u, Before: before})
	}
	return nil
}

// Describe is the user's ACL LIST line: "user <name> <rules>".
func (u *User) Describe() string { return "user " + u.name + " " + u.ACL().Describe() }
