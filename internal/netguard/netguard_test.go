package netguard

import (
	"errors"
	"net/netip"
	"testing"
)

func TestPublicAddr(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		addr   string
		public bool
	}{
		{"93.184.216.34", true}, {"2606:4700::1111", true},
		{"127.0.0.1", false}, {"10.0.0.1", false}, {"172.16.5.4", false}, {"192.168.1.1", false},
		{"169.254.169.254", false}, {"100.64.0.1", false}, {"0.0.0.0", false}, {"::1", false},
		{"fe80::1", false}, {"fd00:ec2::254", false}, {"::ffff:127.0.0.1", false}, {"224.0.0.1", false},
	} {
		if got := PublicAddr(netip.MustParseAddr(tt.addr)); got != tt.public {
			t.Errorf("PublicAddr(%s) = %v, want %v", tt.addr, got, tt.public)
		}
	}
}

func TestControl(t *testing.T) {
	t.Parallel()
	if err := Control("tcp", "127.0.0.1:443", nil); !errors.Is(err, ErrForbiddenAddress) {
		t.Errorf("loopback: %v", err)
	}
	if err := Control("tcp", "93.184.216.34:443", nil); err != nil {
		t.Errorf("public: %v", err)
	}
}
