package users

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ACL files (aclfile, ACL LOAD, ACL SAVE): one "user <name> <rule>…" line
// per user, as Redis 7.0's ACLLoadFromFile reads them: lines are trimmed,
// blank ones skipped, and split on single spaces (so two spaces make an
// empty rule, which does nothing); a selector may span several words. A
// comment is an error, as in Redis (the file is rewritten by ACL SAVE).
// Loading replaces every user at once, or nothing when a line is refused;
// saving writes ACL LIST's lines to a temporary file renamed over the old
// one.

// LoadFile replaces the users by those of the ACL file at path (ACL LOAD,
// aclfile); name is the file as configured, which errors show. The
// default user, when the file does not declare it, is "on nopass ~* &*
// +@all" again; it keeps its *User. Every other user is new, as in Redis:
// the old ones are removed, and the subscribers told, so their
// connections close (origin's after its reply).
func (s *Store) LoadFile(origin any, name, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("Error loading ACLs, opening file '%s': %v", name, unwrapPathError(err))
	}
	return s.LoadText(origin, name, string(data))
}

// unwrapPathError is the system's text alone, as strerror gives it.
func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// LoadText is LoadFile on the file's text; name names it in errors, as
// Redis names its aclfile directive's value.
func (s *Store) LoadText(origin any, name, text string) error {
	s.mu.Lock()
	specs := map[string]*Spec{}
	var errs strings.Builder
	for i, line := range strings.Split(text, "\n") {
		line = strings.Trim(line, " \t\r\n")
		if line == "" {
			continue
		}
		n := i + 1
		words := strings.Split(line, " ")
		switch {
		case words[0] != "user" || len(words) < 2:
			fmt.Fprintf(&errs, "%s:%d should start with user keyword followed by the username. ", name, n)
			continue
		case hasSpaces(words[1]):
			fmt.Fprintf(&errs, "'%s:%d: username '%s' contains invalid characters. ", name, n, words[1])
			continue
		case specs[words[1]] != nil:
			fmt.Fprintf(&errs, "WARNING: Duplicate user '%s' found on line %d. ", words[1], n)
			continue
		}
		sp := s.newSpec()
		specs[words[1]] = sp
		ops, err := MergeSelectorArgs(words[2:])
		if err != nil {
			fmt.Fprintf(&errs, "%s:%d: Unmatched parenthesis in selector definition.", name, n)
			continue
		}
		reported := false
		for _, op := range ops {
			op = strings.Trim(op, "\t\r\n")
			err := sp.ApplyRule(op)
			switch {
			case err == nil:
			case errors.Is(err, ErrRuleUnknown):
				fmt.Fprintf(&errs, "%s:%d: Error in applying operation '%s': %v. ", name, n, op, err)
			case !reported: // later errors may follow from the first
				fmt.Fprintf(&errs, "%s:%d: %v. ", name, n, err)
				reported = true
			}
		}
	}
	if errs.Len() > 0 {
		s.mu.Unlock()
		return errors.New(errs.String() + "WARNING: ACL errors detected, no change to the previously active ACL rules was performed")
	}
	def := specs[DefaultName]
	if def == nil {
		def = s.newSpec()
		def.Enabled, def.NoPass, def.AllKeys, def.AllChannels = true, true, true, true
		def.setAll(true)
	}
	def.seal()
	s.def.spec.Store(def)
	var gone []*User
	for n, u := range s.users {
		if n != DefaultName {
			s.kill(u)
			gone = append(gone, u)
		}
	}
	s.users = map[string]*User{DefaultName: s.def}
	for n, sp := range specs {
		if n == DefaultName {
			continue
		}
		u := &User{name: n}
		sp.seal()
		u.spec.Store(sp)
		s.users[n] = u
	}
	s.mu.Unlock()
	s.notify(Change{Removed: gone, Origin: origin})
	return nil
}

// SaveFile writes every user's ACL LIST line to path, through a temporary
// file in the same directory renamed over it.
func (s *Store) SaveFile(path string) error {
	var b strings.Builder
	for _, n := range s.Names() {
		if u := s.Lookup(n); u != nil {
			b.WriteString(u.Describe() + "\n")
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".acl-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(b.String()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
