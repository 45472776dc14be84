package realserver

import (
	"strings"
	"testing"
)

func TestLookupMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Lookup(Redis)
	if err == nil || !strings.Contains(err.Error(), "apt-get install redis-server") {
		t.Fatalf("Lookup with an empty PATH: %v, want an error naming the package", err)
	}
}

func TestLookupInstalled(t *testing.T) {
	for _, name := range []string{Redis, Memcached} {
		if p := Path(t, name); !strings.HasSuffix(p, "/"+name) {
			t.Errorf("Path(%s) = %q", name, p)
		}
	}
}
