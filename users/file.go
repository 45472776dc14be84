package users

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ACL files (aclfile, ACL LOAD, ACL SAVE): one "user <name> <rule>…" line
// per user, '#' comments and blank lines skipped, as Redis's
// ACLLoadFromFile reads them. Loading replaces every user at once, or
// nothing when a line is refused; saving writes ACL LIST's lines to a
// temporary file renamed over the old one.

// LoadFile replaces the users by those of the ACL file at path. The
// default user, when the file does not declare it, is "on nopass ~* &*
// +@all" again. A user that remains keeps its *User (its connections stay
// bound); a user the file drops may run nothing more, as after Delete.
func (s *Store) LoadFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("Error loading ACLs, opening file '%s': %v", path, err)
	}
	return s.LoadText(path, string(data))
}

// LoadText is LoadFile on the file's text; name names it in errors.
func (s *Store) LoadText(name, text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	specs := map[string]*Spec{}
	var errs []string
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		words := strings.Fields(line)
		switch {
		case words[0] != "user" || len(words) < 2:
			errs = append(errs, fmt.Sprintf("%s:%d: line should start with user keyword", name, i+1))
			continue
		case specs[words[1]] != nil:
			errs = append(errs, fmt.Sprintf("%s:%d: Duplicate user '%s' found", name, i+1, words[1]))
			continue
		}
		sp := &Spec{cat: s.cat}
		sp.ensureBits()
		if err := sp.ApplyRules(words[2:]...); err != nil {
			errs = append(errs, fmt.Sprintf("%s:%d: %v", name, i+1, err))
			continue
		}
		specs[words[1]] = sp
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, ". "))
	}
	if specs[DefaultName] == nil {
		sp := &Spec{cat: s.cat, Enabled: true, NoPass: true, AllKeys: true, AllChannels: true}
		sp.setAll(true)
		specs[DefaultName] = sp
	}
	for n, u := range s.users {
		if specs[n] == nil {
			dead := &Spec{cat: s.cat}
			dead.ensureBits()
			dead.seal()
			u.spec.Store(dead)
			delete(s.users, n)
		}
	}
	for n, sp := range specs {
		u := s.users[n]
		if u == nil {
			u = &User{name: n}
			s.users[n] = u
		}
		sp.seal()
		u.spec.Store(sp)
	}
	return nil // s.def is unchanged: the default user is never removed, only respecified
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
