package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/netguard/netguardtest"
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
		// IPv6 forms that carry a non-public IPv4 address or reach inside
		// a network.
		{"::127.0.0.1", false}, {"::10.0.0.1", false}, {"::8.8.8.8", false}, // IPv4-compatible
		{"fec0::1", false}, // site-local
		{"2002:7f00:1::", false}, {"2002:a00:1::1", false}, {"2002:c0a8:101::", false}, {"2002:a9fe:a9fe::", false},
		{"2002:5db8:d822::1", true},                                                        // 6to4 of 93.184.216.34
		{"64:ff9b::7f00:1", false}, {"64:ff9b::a00:1", false}, {"64:ff9b:1::a00:1", false}, // NAT64
		{"::ffff:10.0.0.1", false}, {"::ffff:169.254.169.254", false}, // IPv4-mapped
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", false}, // Teredo
		{"100::1", false},
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

func TestCanonicalHost(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"example.com", "example.com"},
		{"Example.COM.", "example.com"},
		{"ｌｏｃａｌｈｏｓｔ", "localhost"},
		{"locａlhost", "localhost"},
		{"LOCALHOST", "localhost"},
		{"localhost\u3002", "localhost"}, // ideographic full stop
		{"１２７.０.０.１", "127.0.0.1"},
		{"bücher.example", "xn--bcher-kva.example"},
		{"_acme.example.com", "_acme.example.com"},
	} {
		in, _ := strconv.Unquote(`"` + tt.in + `"`)
		got, err := CanonicalHost(in)
		if err != nil || got != tt.want {
			t.Errorf("CanonicalHost(%q) = %q, %v; want %q", in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"localhost..", "a..example.com", ".example.com", "", ".", "ex ample.com", "-a.example.com",
		strings.Repeat("a", 64) + ".example.com", strings.Repeat("a.", 127) + "com"} {
		if got, err := CanonicalHost(bad); !errors.Is(err, ErrInvalidHost) {
			t.Errorf("CanonicalHost(%q) = %q, %v; want ErrInvalidHost", bad, got, err)
		}
	}
}

func TestCheckResolved(t *testing.T) {
	t.Parallel()
	r := netguardtest.Resolver{
		"public.example":   {"93.184.216.34", "2606:4700::1111"},
		"loopback.example": {"127.0.0.1"},
		"mixed.example":    {"93.184.216.34", "10.0.0.7"},
		"v6.example":       {"::1"},
	}
	ctx := context.Background()
	for _, host := range []string{"loopback.example", "mixed.example", "v6.example"} {
		if err := CheckResolved(ctx, r, host); !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("%s: %v; want ErrForbiddenAddress", host, err)
		}
	}
	for _, host := range []string{"public.example", "unknown.example"} {
		if err := CheckResolved(ctx, r, host); err != nil {
			t.Errorf("%s: %v; want nil", host, err)
		}
	}
}

func TestRedactURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://hooks.example.com/cb/s3cret?token=t0ken#frag": "https://hooks.example.com/…",
		"https://user:pa55@hooks.example.com:8443/x":           "https://hooks.example.com:8443/…",
		"https://hooks.example.com?token=t0ken":                "https://hooks.example.com/…",
		"https://hooks.example.com/":                           "https://hooks.example.com",
		"https://hooks.example.com":                            "https://hooks.example.com",
		"https://[2606:4700::1111]:443/jwks.json":              "https://[2606:4700::1111]:443/…",
		"http://wallet.test/v1?key=abc":                        "http://wallet.test/…",
		"not a url":                                            "(unparsable URL)",
		"https://bad host/x?token=t0ken":                       "(unparsable URL)",
		"/relative?token=t0ken":                                "(unparsable URL)",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRedactErrorURL(t *testing.T) {
	t.Parallel()
	cause := errors.New("connection refused")
	err := RedactErrorURL(&url.Error{Op: "Post", URL: "https://hooks.example.com/cb?token=t0ken",
		Err: &url.Error{Op: "parse", URL: "https://x.example/?token=t0ken", Err: cause}})
	if msg := fmt.Sprintf("deliver: %v", err); strings.Contains(msg, "t0ken") || !strings.Contains(msg, "https://hooks.example.com/…") {
		t.Errorf("redacted error = %q", msg)
	}
	if !errors.Is(err, cause) {
		t.Error("the error chain changed")
	}
	if RedactErrorURL(nil) != nil {
		t.Error("RedactErrorURL(nil) is not nil")
	}
}

func TestHideURL(t *testing.T) {
	t.Parallel()
	raw := "https://wallet.example.com/t0ken/jwks.json"
	base := errors.New("boom")
	err := HideURL(fmt.Errorf("fetch %s: %w", raw, base), raw)
	if strings.Contains(err.Error(), "t0ken") || !strings.Contains(err.Error(), "https://wallet.example.com/…") {
		t.Errorf("HideURL = %q", err)
	}
	if !errors.Is(err, base) {
		t.Errorf("HideURL lost the wrapped error")
	}
	if plain := errors.New("no url here"); HideURL(plain, raw) != plain {
		t.Errorf("HideURL changed an error without the URL")
	}
	if HideURL(nil, raw) != nil {
		t.Errorf("HideURL(nil) is not nil")
	}
}

func TestTransport(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	for _, tt := range []struct {
		name          string
		url           string
		allowInsecure bool
		wantForbidden bool
	}{
		{"loopback address, guarded", srv.URL, false, true},
		{"loopback name, guarded", "http://localhost:" + port, false, true},
		{"loopback address, insecure", srv.URL, true, false},
	} {
		tr := Transport(time.Second, tt.allowInsecure)
		if tr.Proxy != nil {
			t.Errorf("%s: the transport uses a proxy", tt.name)
		}
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, tt.url, nil)
		resp, err := tr.RoundTrip(req)
		if err == nil {
			resp.Body.Close()
		}
		if got := errors.Is(err, ErrForbiddenAddress); got != tt.wantForbidden || (!tt.wantForbidden && err != nil) {
			t.Errorf("%s: RoundTrip error %v, want forbidden %v", tt.name, err, tt.wantForbidden)
		}
		tr.CloseIdleConnections()
	}
}
