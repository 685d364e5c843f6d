package netguard

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"golang.org/x/net/idna"
)

// ErrInvalidHost is returned for a host name no resolver would look up.
var ErrInvalidHost = errors.New("invalid host name")

// hostProfile maps a host name as browsers and Go's HTTP client do
// (UTS #46: full-width letters and digits, upper case, ideographic full
// stops), while letting underscores through as resolvers do.
var hostProfile = idna.New(idna.MapForLookup(), idna.BidiRule(), idna.StrictDomainName(false))

// CanonicalHost returns the name a resolver would look up for host: IDNA
// mapped to ASCII (so "ｌｏｃａｌｈｏｓｔ" is "localhost" and "１２７.０.０.１" is
// "127.0.0.1"), with one trailing dot (a fully qualified name) removed.
// host must not be an IPv6 literal. The error wraps ErrInvalidHost for a
// name with an empty label ("localhost.."), a rune IDNA disallows, or a
// label or name too long for DNS.
func CanonicalHost(host string) (string, error) {
	a, err := hostProfile.ToASCII(host)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrInvalidHost, err)
	}
	a = strings.TrimSuffix(a, ".")
	if a == "" || len(a) > 253 {
		return "", fmt.Errorf("%w: empty or longer than 253 characters", ErrInvalidHost)
	}
	for label := range strings.SplitSeq(a, ".") {
		if label == "" || len(label) > 63 {
			return "", fmt.Errorf("%w: a label is empty or longer than 63 characters", ErrInvalidHost)
		}
		if strings.Trim(label, "abcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
			return "", fmt.Errorf("%w: a label has characters other than letters, digits, '-' and '_'", ErrInvalidHost)
		}
	}
	return a, nil
}

// LocalName reports whether host, canonical, is localhost or a name under
// .localhost (RFC 6761: always loopback).
func LocalName(host string) bool {
	return host == "localhost" || strings.HasSuffix(host, ".localhost")
}

// Resolver resolves host names; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// LookupTimeout bounds CheckResolved's lookup.
const LookupTimeout = 2 * time.Second

// CheckResolved looks host up, for at most LookupTimeout, and returns an
// error wrapping ErrForbiddenAddress when any of its addresses is not
// public. A name that does not resolve, or not in time, passes: the
// address is checked again on every connection (Control), so this is an
// early refusal, not the guard.
func CheckResolved(ctx context.Context, r Resolver, host string) error {
	ctx, cancel := context.WithTimeout(ctx, LookupTimeout)
	defer cancel()
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil
	}
	for _, a := range addrs {
		if !PublicAddr(a) {
			return fmt.Errorf("%w: %s resolves to %s", ErrForbiddenAddress, host, a)
		}
	}
	return nil
}
