// Package realserver finds the real redis-server and memcached binaries
// that Tandem's differential tests compare it with.
//
// CI installs both (scripts/test.sh runs apt-get install), so a test that
// needs one and does not find it fails, naming the package to install; it
// never skips. A skipped comparison would pass a build that checked
// nothing.
package realserver

import (
	"fmt"
	"os/exec"
	"testing"
)

// The binaries, named as on PATH; each is also its Debian package's name.
const (
	Redis     = "redis-server"
	Memcached = "memcached"
)

// Lookup returns the path of the binary name on PATH, or an error that
// says how to install it. It is for TestMain, which has no *testing.T.
func Lookup(name string) (string, error) {
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%s not found on PATH: apt-get install %s (scripts/test.sh does); tests that need it fail, they never skip", name, name)
	}
	return p, nil
}

// Path returns the path of the binary name on PATH and fails t when it
// is not installed.
func Path(t testing.TB, name string) string {
	t.Helper()
	p, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
