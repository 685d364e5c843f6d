// Package netguard keeps Foresight's outbound calls to partner-supplied
// URLs (callbacks, wallets, JWKS) away from loopback, private, link-local
// (cloud metadata) and other non-public addresses. The check runs on the
// resolved address when connecting, so DNS rebinding cannot get around it.
package netguard

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// ErrForbiddenAddress is returned when a destination resolves to a
// non-public address.
var ErrForbiddenAddress = errors.New("destination address is not public")

// PublicAddr reports whether addr is a publicly routable unicast address:
// not loopback, private, link-local (which holds cloud metadata
// addresses), unspecified, multicast or shared address space, nor an IPv6
// form that carries such an IPv4 address or reaches inside a network:
// IPv4-mapped and IPv4-compatible (::/96) addresses, NAT64 prefixes,
// 6to4 (2002::/16) of a non-public IPv4 address, Teredo, and the
// deprecated site-local fec0::/10.
func PublicAddr(addr netip.Addr) bool {
	addr = addr.Unmap()
	if addr.Is6() {
		if b := addr.As16(); sixToFour.Contains(addr) && !PublicAddr(netip.AddrFrom4([4]byte(b[2:6]))) {
			return false
		}
	}
	if addr.IsLoopback() || addr.IsPrivate() || addr.IsLinkLocalUnicast() || addr.IsLinkLocalMulticast() ||
		addr.IsUnspecified() || addr.IsMulticast() || addr.IsInterfaceLocalMulticast() {
		return false
	}
	for _, p := range nonPublicPrefixes {
		if p.Contains(addr) {
			return false
		}
	}
	return true
}

var nonPublicPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("::/96"),          // IPv4-compatible (deprecated), with :: and ::1
	netip.MustParsePrefix("64:ff9b::/96"),   // NAT64
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64
	netip.MustParsePrefix("100::/64"),       // discard only
	netip.MustParsePrefix("2001::/32"),      // Teredo
	netip.MustParsePrefix("2001:db8::/32"),  // documentation
	netip.MustParsePrefix("fec0::/10"),      // site-local (deprecated)
}

// sixToFour is 2002::/16, whose addresses carry an IPv4 address in their
// bits 16 to 47.
var sixToFour = netip.MustParsePrefix("2002::/16")

// Control is a net.Dialer Control function that refuses non-public
// addresses with ErrForbiddenAddress.
func Control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil || !PublicAddr(ap.Addr()) {
		return fmt.Errorf("%w: %s", ErrForbiddenAddress, address)
	}
	return nil
}

// Transport returns the transport of a guarded HTTP client: net/http's
// default transport (HTTP/2, idle connections, TLS handshake and
// response-header time-outs) whose connections are dialled within
// dialTimeout and refused, with ErrForbiddenAddress, when the resolved
// address is not public (Control), unless allowInsecure (local development
// and tests). It never uses a proxy, whatever the environment says
// (HTTPS_PROXY and the like): the guard checks the address it dials, and
// through a proxy that is the proxy's, so any destination would pass
// (docs/decisions.md, "Wallet calls").
func Transport(dialTimeout time.Duration, allowInsecure bool) *http.Transport {
	d := &net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}
	if !allowInsecure {
		d.Control = Control
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	tr.DialContext = d.DialContext
	return tr
}
