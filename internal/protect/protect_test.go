package protect

import "testing"

type settings struct {
	on   bool
	pass string
}

func (s settings) ProtectedMode() bool { return s.on }
func (s settings) RequirePass() string { return s.pass }

func TestRefuses(t *testing.T) {
	on, off, withPass := settings{on: true}, settings{}, settings{on: true, pass: "pw"}
	for _, tc := range []struct {
		s      settings
		remote string
		want   bool
	}{
		{on, "10.1.2.3:4567", true},
		{on, "[2001:db8::1]:4567", true},
		{on, "192.168.0.9:1", true},
		{on, "127.0.0.2:4567", true}, // Redis compares the text: only 127.0.0.1 is local
		{on, "127.0.0.1:4567", false},
		{on, "[::1]:4567", false},
		{on, "[::ffff:127.0.0.1]:4567", false},
		{on, "", false},                    // unix socket
		{on, "/tmp/tandem.sock", false},    // unix socket
		{off, "10.1.2.3:4567", false},      // protected-mode no
		{withPass, "10.1.2.3:4567", false}, // a password is set
	} {
		if got := Refuses(tc.s, tc.remote); got != tc.want {
			t.Errorf("Refuses(%+v, %q) = %v, want %v", tc.s, tc.remote, got, tc.want)
		}
	}
}

func TestExposed(t *testing.T) {
	on := settings{on: true}
	for _, tc := range []struct {
		s     settings
		hosts []string
		want  bool
	}{
		{on, []string{"127.0.0.1", "-::1"}, false},
		{on, []string{"localhost"}, false},
		{on, []string{"0.0.0.0"}, true},
		{on, []string{"*"}, true},
		{on, []string{"127.0.0.1", "10.0.0.5"}, true},
		{settings{}, []string{"0.0.0.0"}, false},
		{settings{on: true, pass: "x"}, []string{"0.0.0.0"}, false},
	} {
		if got := Exposed(tc.s, tc.hosts); got != tc.want {
			t.Errorf("Exposed(%+v, %q) = %v, want %v", tc.s, tc.hosts, got, tc.want)
		}
	}
}
