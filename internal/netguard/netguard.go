// Package netguard keeps Foresight's outbound calls to partner-supplied
// URLs (callbacks, wallets, JWKS) away from loopback, private, link-local
// (cloud metadata) and other non-public addresses. The check runs on the
// resolved address when connecting, so DNS rebinding cannot get around it.
package netguard

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"
)

// ErrForbiddenAddress is returned when a destination resolves to a
// non-public address.
var ErrForbiddenAddress = errors.New("destination address is not public")

// PublicAddr reports whether addr is a publicly routable unicast address:
// not loopback, private, link-local (which holds cloud metadata
// addresses), unspecified, multicast or shared address space.
func PublicAddr(addr netip.Addr) bool {
	addr = addr.Unmap()
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
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("2001:db8::/32"),
}

// Control is a net.Dialer Control function that refuses non-public
// addresses with ErrForbiddenAddress.
func Control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil || !PublicAddr(ap.Addr()) {
		return fmt.Errorf("%w: %s", ErrForbiddenAddress, address)
	}
	return nil
}

// Dialer returns a dialer with timeout that refuses non-public addresses,
// unless allowInsecure (local development and tests).
func Dialer(timeout time.Duration, allowInsecure bool) *net.Dialer {
	d := &net.Dialer{Timeout: timeout}
	if !allowInsecure {
		d.Control = Control
	}
	return d
}
