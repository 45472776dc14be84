package conf

import "github.com/tandemkv/tandem/internal/sdsargs"

// splitArgs splits a configuration line into words exactly as redis's
// sdssplitargs does (the same rules as inline RESP requests): words are
// separated by white space; "double quotes" understand \xHH, \n, \r, \t,
// \b, \a and \<any>; 'single quotes' understand only \'; a closing quote
// must be followed by white space or the end of the line; a quote may start
// in the middle of a word (foo"bar baz" is one word). ok is false for
// unbalanced quotes.
func splitArgs(line string) ([]string, bool) { return sdsargs.Strings(line) }
