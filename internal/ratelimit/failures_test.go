package ratelimit

import (
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/clientaddr"
)

func TestFailureGuard(t *testing.T) {
	t.Parallel()
	g := NewFailureGuard(60, 3, clientaddr.Proxies{})
	now := setClock(g.failures)
	a := httptest.NewRequest("GET", "/", nil)
	a.RemoteAddr = "198.51.100.7:40000"
	b := httptest.NewRequest("GET", "/", nil)
	b.RemoteAddr = "198.51.100.8:40000"

	for i := range 3 {
		if refused, _ := g.Failed(a); refused {
			t.Fatalf("failure %d of a burst of 3 refused", i+1)
		}
	}
	refused, wait := g.Failed(a)
	if !refused || wait <= 0 || wait > time.Second {
		t.Fatalf("fourth failure: refused %v, wait %v; want refused for up to 1s", refused, wait)
	}
	a.RemoteAddr = "198.51.100.7:40001" // another connection of the same address
	if refused, _ := g.Failed(a); !refused {
		t.Fatal("a new connection of the same address starts afresh")
	}
	if refused, _ := g.Failed(b); refused {
		t.Fatal("another address is refused")
	}
	*now = now.Add(wait)
	if refused, _ := g.Failed(a); refused {
		t.Fatal("still refused after the advertised wait: refused failures must not push it back")
	}
	if refused, _ := g.Failed(a); !refused {
		t.Fatal("the wait refilled the budget by more than one failure")
	}
}

func TestNilFailureGuard(t *testing.T) {
	t.Parallel()
	var g *FailureGuard
	r := httptest.NewRequest("GET", "/", nil)
	if refused, _ := g.Failed(r); refused {
		t.Fatal("a nil guard refused")
	}
}

// TestFailureGuardCountsAnIPv6ClientByItsPrefix: a client that sends
// each wrong credential from another address of its /64 gets no fresh
// budget; another /64 keeps its own.
func TestFailureGuardCountsAnIPv6ClientByItsPrefix(t *testing.T) {
	t.Parallel()
	g := NewFailureGuard(60, 3, clientaddr.Proxies{})
	setClock(g.failures)
	r := httptest.NewRequest("GET", "/", nil)
	for i := range 3 {
		r.RemoteAddr = fmt.Sprintf("[2001:db8:1:2::%x]:40000", i+1)
		if refused, _ := g.Failed(r); refused {
			t.Fatalf("failure %d of a burst of 3 refused", i+1)
		}
	}
	r.RemoteAddr = "[2001:db8:1:2:ffff::9]:40000"
	if refused, _ := g.Failed(r); !refused {
		t.Fatal("a fourth address of the same /64 got a fresh budget")
	}
	r.RemoteAddr = "[2001:db8:1:3::1]:40000"
	if refused, _ := g.Failed(r); refused {
		t.Fatal("another /64 is refused")
	}
}
