// Package netguardtest holds a resolver for tests of the address checks in
// netguard and of the callers that take a netguard resolver.
package netguardtest

import (
	"context"
	"net"
	"net/netip"
)

// Resolver answers each name of its table with the table's addresses, in
// order; any other name does not resolve (a *net.DNSError with IsNotFound,
// as the system resolver answers). An address that does not parse panics:
// the table is the test's own.
type Resolver map[string][]string

// LookupNetIP implements the resolver netguard.CheckResolved takes.
func (r Resolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	addrs, ok := r[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	out := make([]netip.Addr, 0, len(addrs))
	for _, a := range addrs {
		out = append(out, netip.MustParseAddr(a))
	}
	return out, nil
}
