// Package clientaddr tells the address of a request's client, also behind
// reverse proxies the operator trusts: their X-Forwarded-For names the
// client, anyone else's is ignored.
package clientaddr

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Proxies are the addresses of the reverse proxies whose X-Forwarded-For
// is believed. The zero Proxies trusts none: every request's client is its
// connection's peer.
type Proxies struct {
	prefixes []netip.Prefix
}

// ParseProxies parses a comma-separated list of IP addresses and CIDR
// prefixes (e.g. "10.0.0.0/8, 192.0.2.7, fd00::/8"); spaces around
// entries and empty entries are ignored, so "" trusts none. The error
// names the first entry that is neither.
func ParseProxies(list string) (Proxies, error) {
	var p Proxies
	for _, entry := range strings.Split(list, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		if strings.Contains(entry, "/") {
			prefix, err := netip.ParsePrefix(entry)
			if err != nil {
				return Proxies{}, fmt.Errorf("%q is not an IP address or CIDR prefix: %w", entry, err)
			}
			p.prefixes = append(p.prefixes, prefix.Masked())
			continue
		}
		addr, err := netip.ParseAddr(entry)
		if err != nil {
			return Proxies{}, fmt.Errorf("%q is not an IP address or CIDR prefix: %w", entry, err)
		}
		addr = addr.Unmap().WithZone("")
		p.prefixes = append(p.prefixes, netip.PrefixFrom(addr, addr.BitLen()))
	}
	return p, nil
}

// trusts reports whether addr is one of the proxies.
func (p Proxies) trusts(addr netip.Addr) bool {
	addr = addr.Unmap().WithZone("")
	for _, prefix := range p.prefixes {
		if prefix.Contains(addr) {
			return true
		}
	}
	return false
}

// Of returns the IP address of r's client: the address the audit trail
// records, and the one per-address limits count (by LimitKey).
//
// When r's connection comes from a trusted proxy, X-Forwarded-For (every
// such header, in order) is walked from the right, the entries the
// trusted proxies appended, and the first entry that is not a trusted
// proxy is the client: entries left of it may be made up by the client.
// When the walk finds no such entry the client is the last trusted
// address it reached, the nearest hop that can be believed: the peer
// when the header is missing or empty, the leftmost entry when every
// entry is trusted, the entry right of an entry that is not an IP address
// (with or without a port).
//
// Otherwise, and whenever the peer is not trusted (its X-Forwarded-For is
// then never read), the client is the host of r.RemoteAddr, or
// r.RemoteAddr whole when it has no port.
func (p Proxies) Of(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if len(p.prefixes) == 0 || err != nil || !p.trusts(peer) {
		return host
	}
	client := peer.Unmap()
	entries := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(entries) - 1; i >= 0; i-- {
		addr, ok := parseEntry(strings.TrimSpace(entries[i]))
		if !ok {
			break
		}
		if !p.trusts(addr) {
			return addr.String()
		}
		client = addr
	}
	return client.String()
}

// LimitKey returns the key under which per-address limits count r's
// client, Of(r): an IPv4 address is itself, an IPv6 address its /64
// prefix ("2001:db8:1:2::/64"); see AddressKey.
func (p Proxies) LimitKey(r *http.Request) string {
	return AddressKey(p.Of(r))
}

// AddressKey returns the key of addr for per-address limits. An IPv6
// client is given a whole /64 (a home line, a phone, a cloud server) and
// may send from any address in it, a fresh one per request, so an IPv6
// address counts as its /64 prefix, its zone dropped; an IPv4-mapped
// IPv6 address is its IPv4 address, and an IPv4 address is itself. A
// string that is not an IP address is its own key.
func AddressKey(addr string) string {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	a = a.Unmap().WithZone("")
	if a.Is4() {
		return a.String()
	}
	return netip.PrefixFrom(a, 64).Masked().String()
}

// parseEntry parses one X-Forwarded-For entry: an IP address, or an IP
// address with a port ("192.0.2.7:4711", "[2001:db8::1]:4711").
func parseEntry(entry string) (netip.Addr, bool) {
	if addr, err := netip.ParseAddr(entry); err == nil {
		return addr.Unmap().WithZone(""), true
	}
	if addrPort, err := netip.ParseAddrPort(entry); err == nil {
		return addrPort.Addr().Unmap().WithZone(""), true
	}
	return netip.Addr{}, false
}
