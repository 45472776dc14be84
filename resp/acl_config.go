package resp

// initACL gives the users store this front-end's command table, the one
// ACL rules name, then applies the configuration's users: each "user"
// line as Redis's ACLLoadConfiguredUsers does (reset, then its rules),
// then the aclfile, which replaces them all. A refused line is logged and
// leaves its user out, so nobody can log in as it; Tandem starts anyway.
func (f *Frontend) initACL() {
	f.users.SetCatalog(newACLCatalog(f.table))
	for _, u := range f.cfg.ACLUsers() {
		rules := u.Rules
		if f.users.Lookup(u.Name) != nil { // the default user: reset first, as Redis
			rules = append([]string{"reset"}, rules...)
		}
		if err := f.users.SetUser(u.Name, rules...); err != nil && f.log != nil {
			f.log.Error("ACL: user line refused", "user", u.Name, "err", err)
		}
	}
	if path := f.cfg.ACLFile(); path != "" {
		if err := f.users.LoadFile(path); err != nil && f.log != nil {
			f.log.Error("ACL: aclfile not loaded", "file", path, "err", err)
		}
	}
}
