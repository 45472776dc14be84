package users

import (
	"slices"
	"strings"

	"github.com/tandemkv/tandem/internal/glob"
)

// A Selector is one set of command, key and channel permissions, Redis
// 7.0's aclSelector. Every user has a root selector (the rules written
// outside parentheses, embedded in Spec) and any number of further ones
// written "(…)". A command may run if one selector allows all of it: the
// command, each of its keys with the access the command needs, and each
// channel, checked together in that selector (Check).
type Selector struct {
	// AllKeys: every key (~*, allkeys); else Keys lists the patterns.
	AllKeys bool
	Keys    []KeyPattern
	// AllChannels: every channel (&*, allchannels); else Channels.
	AllChannels bool
	Channels    []string
	// Future is Redis's "future commands" bit: set by +@all, cleared by
	// -@all.
	Future bool

	cat     *Catalog // the commands the bitmap indexes (Store.SetCatalog)
	allowed []bool   // by catalog index: the command may run
	// firstArgs are the +cmd|arg rules by catalog index: first arguments
	// with which an otherwise denied command may run, in the order added
	// (Redis's allowed_firstargs, kept in 7.0 though deprecated).
	firstArgs map[int][]string
	// rules are the command rules since the last +@all/-@all, replayed
	// when the catalog changes and by canRunCategories.
	rules []string
}

// clone is a copy whose slices and map the original does not share.
func (s *Selector) clone() *Selector {
	c := *s
	c.Keys = slices.Clone(s.Keys)
	c.Channels = slices.Clone(s.Channels)
	c.allowed = slices.Clone(s.allowed)
	c.rules = slices.Clone(s.rules)
	if s.firstArgs != nil {
		c.firstArgs = make(map[int][]string, len(s.firstArgs))
		for i, a := range s.firstArgs {
			c.firstArgs[i] = slices.Clone(a)
		}
	}
	return &c
}

// applySelectorRule applies one rule a selector understands (Redis's
// ACLSetSelector): keys, channels and commands.
func (s *Selector) applySelectorRule(op string) error {
	switch strings.ToLower(op) {
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
	}
	if op == "" {
		return ErrRuleSyntax
	}
	switch op[0] {
	case '~', '%':
		return s.addKeyPattern(op)
	case '&':
		if s.AllChannels {
			return ErrRuleAfterAllCh
		}
		if hasSpaces(op[1:]) {
			return ErrRuleSyntax
		}
		if !slices.Contains(s.Channels, op[1:]) {
			s.Channels = append(s.Channels, op[1:])
		}
		return nil
	case '+', '-':
		return s.commandRule(op)
	}
	return ErrRuleSyntax
}

// hasSpaces is Redis's ACLStringHasSpaces: a space or a NUL.
func hasSpaces(s string) bool { return strings.ContainsAny(s, " \x00") }

// addKeyPattern is ~pattern or %R~ / %W~ / %RW~pattern.
func (s *Selector) addKeyPattern(op string) error {
	if s.AllKeys {
		return ErrRuleAfterAllKey
	}
	kp := KeyPattern{Read: true, Write: true}
	off := 1
	if op[0] == '%' {
		kp = KeyPattern{}
	flags:
		for ; off < len(op); off++ {
			switch c := op[off]; {
			case (c == 'R' || c == 'r') && !kp.Read:
				kp.Read = true
			case (c == 'W' || c == 'w') && !kp.Write:
				kp.Write = true
			case c == '~':
				off++
				break flags
			default:
				return ErrRuleSyntax
			}
		}
		// As Redis: "%R" without '~' is the empty pattern, and "%~x" a
		// pattern that no access needs less than (Check's KeyRef.Need 0).
	}
	kp.Pattern = op[off:]
	if hasSpaces(kp.Pattern) {
		return ErrRuleSyntax
	}
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

// setAll is +@all (allow) or -@all: every bit, the future bit, and no
// first-argument rule left.
func (s *Selector) setAll(allow bool) {
	s.Future = allow
	s.rules = nil
	s.firstArgs = nil
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

// commandRule is +name, -name, +@category, -@category, +container|sub,
// -container|sub and +cmd|firstarg, as Redis 7.0's ACLSetSelector: the
// last '|' splits a first argument off a command that has no
// subcommands, which is then allowed with that first argument only.
func (s *Selector) commandRule(op string) error {
	s.ensureBits()
	allow, name := op[0] == '+', op[1:]
	if strings.HasPrefix(name, "@") {
		bit := CategoryBit(name[1:])
		if bit == 0 {
			return ErrRuleUnknown
		}
		if s.cat != nil { // without a catalog only canRunCategories reads the rule
			for i, cc := range s.cat.cmds {
				if cc.Categories&bit != 0 {
					s.changePerm(i, allow)
				}
			}
		}
		s.rules = append(s.rules, op[:1]+strings.ToLower(name))
		return nil
	}
	if s.cat == nil {
		return ErrRuleUnknown
	}
	bar := strings.LastIndexByte(name, '|')
	if !allow || bar < 0 {
		i := s.cat.Index(name)
		if i < 0 {
			return ErrRuleUnknown
		}
		s.changePerm(i, allow)
		s.rules = append(s.rules, op[:1]+s.cat.cmds[i].Name)
		return nil
	}
	i := s.cat.Index(name[:bar])
	switch {
	case i < 0:
		return ErrRuleUnknown
	case s.cat.cmds[i].parent >= 0:
		return ErrRuleFirstArgSub
	case bar == len(name)-1:
		return ErrRuleSyntax
	case len(s.cat.cmds[i].subs) > 0: // a container: the name must be one of its subcommands
		sub := s.cat.Index(name)
		if sub < 0 {
			return ErrRuleUnknown
		}
		s.changePerm(sub, true)
		s.rules = append(s.rules, "+"+s.cat.cmds[sub].Name)
		return nil
	}
	arg := name[bar+1:]
	for _, a := range s.firstArgs[i] {
		if strings.EqualFold(a, arg) {
			return nil
		}
	}
	if s.firstArgs == nil {
		s.firstArgs = map[int][]string{}
	}
	s.firstArgs[i] = append(s.firstArgs[i], arg)
	s.rules = append(s.rules, "+"+s.cat.cmds[i].Name+"|"+arg)
	return nil
}

// ensureBits rebuilds the bitmap from the rules when the catalog changed
// under it (a Spec built before Store.SetCatalog).
func (s *Selector) ensureBits() {
	if s.cat != nil && len(s.allowed) != s.cat.Len() {
		rules := s.rules
		s.setAll(s.Future)
		for _, r := range rules {
			_ = s.commandRule(r)
		}
	}
}

// changePerm sets a command's bit and, for a container, its subcommands',
// and forgets the command's first-argument rules (Redis's
// ACLChangeSelectorPerm).
func (s *Selector) changePerm(i int, allow bool) {
	changePerm(s.cat, s.allowed, i, allow)
	delete(s.firstArgs, i)
}

func changePerm(cat *Catalog, bits []bool, i int, allow bool) {
	bits[i] = allow
	for _, sub := range cat.cmds[i].subs {
		bits[sub] = allow
	}
}

// canRun reports whether the selector lets the command at catalog index
// i run with first argument arg (nil: none): its bit, or a +cmd|arg rule
// (compared without case, as Redis). A no-auth command always may.
func (s *Selector) canRun(i int, arg []byte) bool {
	if s.cat == nil || i < 0 || i >= len(s.allowed) {
		return s.Future
	}
	if s.allowed[i] || s.cat.cmds[i].NoAuth {
		return true
	}
	if arg == nil {
		return false
	}
	for _, a := range s.firstArgs[i] {
		if strings.EqualFold(a, string(arg)) {
			return true
		}
	}
	return false
}

// canRunCategories reports whether a command outside the catalog with
// these categories may run: the rules are replayed from +@all or -@all,
// and only category rules apply to it (Spec.CheckCategories).
func (s *Selector) canRunCategories(bits uint32) bool {
	ok := s.Future
	for _, r := range s.rules {
		if strings.HasPrefix(r[1:], "@") && CategoryBit(r[2:])&bits != 0 {
			ok = r[0] == '+'
		}
	}
	return ok
}

// keyAllowed reports whether a key may be used with the access need (a
// KeyRead|KeyWrite mask) as Redis's ACLSelectorCheckKey: a pattern
// qualifies when it grants at least that access.
func (s *Selector) keyAllowed(key []byte, need KeyAccess) bool {
	if s.AllKeys {
		return true
	}
	for _, k := range s.Keys {
		if need&KeyRead != 0 && !k.Read || need&KeyWrite != 0 && !k.Write {
			continue
		}
		if glob.Match([]byte(k.Pattern), key, false) {
			return true
		}
	}
	return false
}

// allKeysFor reports whether the selector grants need on every key: all
// keys, or the pattern "*" with that access (Redis's
// ACLSelectorHasUnrestrictedKeyAccess).
func (s *Selector) allKeysFor(need KeyAccess) bool {
	if s.AllKeys {
		return true
	}
	for _, k := range s.Keys {
		if k.Pattern == "*" && (need&KeyRead == 0 || k.Read) && (need&KeyWrite == 0 || k.Write) {
			return true
		}
	}
	return false
}

// channelAllowed reports whether a channel may be used; a pattern
// (PSUBSCRIBE's argument) must equal one of the patterns, a channel must
// match one, as Redis's ACLCheckChannelAgainstList.
func (s *Selector) channelAllowed(ch []byte, isPattern bool) bool {
	return s.AllChannels || channelInList(s.Channels, ch, isPattern)
}

func channelInList(list []string, ch []byte, isPattern bool) bool {
	for _, p := range list {
		if isPattern && p == string(ch) || !isPattern && glob.Match([]byte(p), ch, false) {
			return true
		}
	}
	return false
}

// check is Redis's ACLSelectorCheckCmd for the command at catalog index
// cmd: the command, then each key, then
// each channel; the first refused one is the denial.
func (s *Selector) check(cmd int, r *Request) Denial {
	var first []byte
	if len(r.Args) > 1 {
		first = r.Args[1]
	}
	if !s.canRun(cmd, first) {
		return Denial{Reason: DeniedCommand}
	}
	if !s.AllKeys {
		for _, k := range r.Keys {
			if !s.keyAllowed(r.Args[k.Pos], k.Need) {
				return Denial{Reason: DeniedKey, Pos: k.Pos}
			}
		}
	}
	if !s.AllChannels {
		for _, c := range r.Channels {
			if !s.channelAllowed(r.Args[c.Pos], c.Pattern) {
				return Denial{Reason: DeniedChannel, Pos: c.Pos}
			}
		}
	}
	return Denial{}
}

// KeysRule is the key patterns as ACL GETUSER's "keys" shows them.
func (s *Selector) KeysRule() string {
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
func (s *Selector) ChannelsRule() string {
	if s.AllChannels {
		return "&*"
	}
	parts := make([]string, len(s.Channels))
	for i, c := range s.Channels {
		parts[i] = "&" + c
	}
	return strings.Join(parts, " ")
}

// describe is the selector as ACL LIST prints it, Redis's
// ACLDescribeSelector: keys (nothing when there are none), channels
// ("resetchannels" first unless all), then the command rules.
func (s *Selector) describe() string {
	var b strings.Builder
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
// that fit best, one at a time, then single commands, each command's
// first-argument rules after it.
func (s *Selector) CommandRules() string {
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
				if cc.Categories&(1<<j) != 0 && !cc.Later {
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
			if !s.allowed[i] {
				for _, a := range s.firstArgs[i] {
					rules += " +" + cat.cmds[i].Name + "|" + a
				}
			}
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
