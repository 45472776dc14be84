// Package users is Tandem's one store of users: who may log in, with which
// passwords. Both front-ends authenticate through it — Redis AUTH and
// HELLO … AUTH, memcached's text-protocol login (the auth-file scheme of
// memcached 1.6) — and so will binary-protocol SASL and the metrics
// endpoint's credentials. Redis ACL's rules (ACL SETUSER, the user and
// aclfile directives) live here too and bind both front-ends.
//
// # The default user
//
// The store always holds "default", Redis's default user, whose password
// is the requirepass directive: services.New builds the store and its one
// follower of requirepass (services/follow.go) calls SetDefaultPassword at
// start and on every CONFIG SET. An empty requirepass makes the default
// user nopass, and then no connection has to log in (AuthRequired is
// false), as in Redis. A memcached client logs in as the default user with
// the name "default" too.
//
// # How a login moves through it
//
//  1. A connection starts. If AuthRequired is false it is bound at once to
//     Default(); otherwise it is bound to nobody and the front-end refuses
//     what needs a login (Redis: NOAUTH; memcached: CLIENT_ERROR
//     unauthenticated).
//  2. The client sends a name and a password (AUTH [user] pass, HELLO …
//     AUTH user pass, or memcached's "set <key> <flags> <exptime> <len>"
//     whose data is "<user> <password>"). The front-end calls
//     Authenticate(name, password).
//  3. Authenticate finds the user (ErrUnknownUser if there is none),
//     refuses a disabled one (ErrUserDisabled), accepts any password for a
//     nopass user, and otherwise hashes the password with SHA-256 and
//     compares it, in constant time, with each stored hash
//     (ErrWrongPassword when none matches). Plain passwords are never kept.
//  4. On success the connection is bound to the returned *User. A failed
//     attempt leaves the connection as it was.
//
// A *User is a stable identity: the store changes a user by publishing a
// new immutable Spec in it (Set, SetUser), so a connection bound to it sees
// a change at its next check without holding any lock, and a pointer taken
// at login stays the same user. A removed user (ACL DELUSER; at ACL LOAD
// every user but default, as Redis 7.0 rebuilds them all) gets a Spec that
// allows nothing and is reported Removed.
//
// # Telling the front-ends
//
// The store owns users, not connections. Store.Subscribe registers a
// front-end's follower, called after each Change with no lock held:
// Removed users, whose connections the front-end closes (the Redis one, and
// the memcached one for sessions logged in as them), and a Narrowed user
// whose channel permissions shrank (ACL SETUSER), whose subscribed Redis
// connections are closed when a subscription is no longer allowed. The
// connection that asked (Change.Origin) gets its reply before it closes.
//
// # Redis ACL
//
// A Spec also holds Redis 7.0's ACL rules (acl.go, selector.go): flags
// (on/off, nopass, sanitize-payload), passwords, and selectors. The root
// Selector (the rules outside parentheses) and each "(…)" Selector hold a
// permission bitmap over the command Catalog (catalog.go; the Redis
// front-end builds it from its command table, names and categories, and
// hands it over with SetCatalog), +cmd|first-arg rules, key patterns (~,
// %R~, %W~, allkeys) and channel patterns (&, allchannels). Store.SetUser
// applies ACL SETUSER's operations (a selector written over several words
// merged first) to a copy and publishes it only if all are accepted
// (*RuleError carries Redis's text otherwise). Spec.Describe and
// Selector.CommandRules print a user as ACL LIST does, derived from the
// bitmap with Redis 7.0's category fitting.
//
// The front-ends describe a command as a Request (its name, arguments,
// each key with the access its key-spec flags need, each channel) and
// Spec.Check finds a selector that allows all of it, or the denial Redis
// would report; memcached commands, which are not in the catalog, go
// through CheckCategories (only category rules apply). Unrestricted lets
// them skip all of it for a user who may do everything. Denials and failed
// logins go to the ACL log (log.go, bounded by acllog-max-len), grouped as
// Redis 7.0 groups them. LoadFile and SaveFile read and write an aclfile
// (file.go) with Redis 7.0's error texts.
//
// # Concurrency
//
// Everything is safe for concurrent use: connections on many event loops
// authenticate at once while CONFIG SET changes the default password. The
// user table and the catalog are behind a read-write mutex (writers are
// rare); a user's Spec is an atomic pointer, read without locks; the ACL
// log has its own mutex, never held with the table's.
package users
