package clientaddr

import (
	"net/http/httptest"
	"testing"
)

func TestOf(t *testing.T) {
	t.Parallel()
	proxies, err := ParseProxies(" 10.0.0.0/8, 192.0.2.7 ,2001:db8:1::/48,")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		proxies    Proxies
		remoteAddr string
		forwarded  []string
		want       string
	}{
		{"no proxies trusted: the peer", Proxies{}, "198.51.100.9:40000", []string{"203.0.113.5"}, "198.51.100.9"},
		{"untrusted peer: its header is ignored", proxies, "198.51.100.9:40000", []string{"203.0.113.5"}, "198.51.100.9"},
		{"trusted peer without a header: the peer", proxies, "10.1.2.3:40000", nil, "10.1.2.3"},
		{"trusted peer with an empty header: the peer", proxies, "10.1.2.3:40000", []string{""}, "10.1.2.3"},
		{"one proxy", proxies, "10.1.2.3:40000", []string{"203.0.113.5"}, "203.0.113.5"},
		{"spoofed leftmost entries", proxies, "10.1.2.3:40000", []string{"1.1.1.1, 8.8.8.8, 203.0.113.5"}, "203.0.113.5"},
		{"several proxies", proxies, "10.1.2.3:40000", []string{"1.1.1.1, 203.0.113.5, 192.0.2.7, 10.9.9.9"}, "203.0.113.5"},
		{"several headers, in order", proxies, "10.1.2.3:40000", []string{"1.1.1.1, 203.0.113.5", "192.0.2.7"}, "203.0.113.5"},
		{"every entry trusted: the leftmost", proxies, "10.1.2.3:40000", []string{"192.0.2.7, 10.9.9.9"}, "192.0.2.7"},
		{"garbage: the trusted entry right of it", proxies, "10.1.2.3:40000", []string{"203.0.113.5, unknown, 10.9.9.9"}, "10.9.9.9"},
		{"garbage at the right: the peer", proxies, "10.1.2.3:40000", []string{"203.0.113.5, not-an-ip"}, "10.1.2.3"},
		{"entry with a port", proxies, "10.1.2.3:40000", []string{"203.0.113.5:4711"}, "203.0.113.5"},
		{"IPv6 peer and client", proxies, "[2001:db8:1::7]:40000", []string{"2001:db8:2::5"}, "2001:db8:2::5"},
		{"IPv6 entry with a port", proxies, "10.1.2.3:40000", []string{"[2001:db8:2::5]:4711"}, "2001:db8:2::5"},
		{"IPv4-mapped IPv6 peer is trusted", proxies, "[::ffff:10.1.2.3]:40000", []string{"203.0.113.5"}, "203.0.113.5"},
		{"IPv4-mapped entry is the IPv4 address", proxies, "10.1.2.3:40000", []string{"::ffff:203.0.113.5"}, "203.0.113.5"},
		{"untrusted IPv6 peer", proxies, "[2001:db8:3::1]:40000", []string{"203.0.113.5"}, "2001:db8:3::1"},
		{"RemoteAddr without a port", proxies, "198.51.100.9", []string{"203.0.113.5"}, "198.51.100.9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tt.remoteAddr
			for _, v := range tt.forwarded {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := tt.proxies.Of(r); got != tt.want {
				t.Errorf("Of = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAddressKey(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ addr, want string }{
		{"203.0.113.5", "203.0.113.5"},
		{"::ffff:203.0.113.5", "203.0.113.5"}, // IPv4-mapped: the IPv4 address
		{"2001:db8:1:2::7", "2001:db8:1:2::/64"},
		{"2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"}, // the same /64
		{"2001:db8:1:3::7", "2001:db8:1:3::/64"},                  // the next /64
		{"fe80::1%eth0", "fe80::/64"},                             // the zone dropped
		{"::1", "::/64"},
		{"not-an-ip", "not-an-ip"},
		{"", ""},
	} {
		if got := AddressKey(c.addr); got != c.want {
			t.Errorf("AddressKey(%q) = %q, want %q", c.addr, got, c.want)
		}
	}
}

func TestLimitKey(t *testing.T) {
	t.Parallel()
	proxies, err := ParseProxies("10.0.0.0/8")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ remoteAddr, forwarded, want string }{
		{"[2001:db8:1:2::7]:40000", "", "2001:db8:1:2::/64"},
		{"[::ffff:198.51.100.9]:40000", "", "198.51.100.9"}, // an untrusted mapped peer too
		{"10.1.2.3:40000", "2001:db8:5:6::1234", "2001:db8:5:6::/64"},
		{"10.1.2.3:40000", "203.0.113.5", "203.0.113.5"},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = c.remoteAddr
		if c.forwarded != "" {
			r.Header.Set("X-Forwarded-For", c.forwarded)
		}
		if got := proxies.LimitKey(r); got != c.want {
			t.Errorf("LimitKey of %s forwarding %q = %q, want %q", c.remoteAddr, c.forwarded, got, c.want)
		}
	}
}

func TestParseProxiesRefusesGarbage(t *testing.T) {
	t.Parallel()
	for _, list := range []string{"10.0.0.0/33", "proxy.example", "10.0.0.1, 10.0.0", "10.0.0.0/8/8"} {
		if _, err := ParseProxies(list); err == nil {
			t.Errorf("ParseProxies(%q) accepted it", list)
		}
	}
	if p, err := ParseProxies(" "); err != nil || len(p.prefixes) != 0 {
		t.Errorf(`ParseProxies(" ") = %v, %v; want no proxies`, p, err)
	}
}
