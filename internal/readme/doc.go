// Package readme holds tests that keep README.md true to the code: its
// Redis command lists name exactly the commands and subcommands the RESP
// front-end's table serves, its memcached command list exactly the
// memcached front-end's table, and its Layout table has one row for every
// package in the module and none for a package that does not exist. The
// lists follow a convention the tests parse, stated in an HTML comment
// above each list in README.md; a failure names the commands or packages
// to add or remove. The package has no code of its own.
package readme
