package casino_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/sandbox/casino"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxtest"
)

func TestSign(t *testing.T) {
	t.Parallel()
	body := []byte(`{"account_id":"a1"}`)
	got := casino.Sign([]byte(testSecret), body)
	if got != sandboxtest.HMACHex(testSecret, body) {
		t.Errorf("Sign = %s, want %s", got, sandboxtest.HMACHex(testSecret, body))
	}
	if got != strings.ToLower(got) || len(got) != 64 {
		t.Errorf("Sign = %s, want 64 lowercase hex digits", got)
	}
	// Known answer (RFC 4231 test case 2).
	if got := casino.Sign([]byte("Jefe"), []byte("what do ya want for nothing?")); got != "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843" {
		t.Errorf("RFC 4231 case 2: %s", got)
	}
}

func TestSignature(t *testing.T) {
	t.Parallel()
	body := betBody(t, "a1", "USD", "r1", "bet-1", "10.00")
	good := sandboxtest.HMACHex(testSecret, body)
	cases := []struct {
		name string
		mod  func(*http.Request)
	}{
		{"missing", func(r *http.Request) { r.Header.Del("X-REQUEST-SIGN") }},
		{"empty", func(r *http.Request) { r.Header.Set("X-REQUEST-SIGN", "") }},
		{"wrong secret", func(r *http.Request) { r.Header.Set("X-REQUEST-SIGN", sandboxtest.HMACHex("other-secret", body)) }},
		{"upper-case hex", func(r *http.Request) { r.Header.Set("X-REQUEST-SIGN", strings.ToUpper(good)) }},
		{"truncated", func(r *http.Request) { r.Header.Set("X-REQUEST-SIGN", good[:63]) }},
		{"with prefix", func(r *http.Request) { r.Header.Set("X-REQUEST-SIGN", "sha256="+good) }},
		{"other body", func(r *http.Request) {
			r.Header.Set("X-REQUEST-SIGN", sandboxtest.HMACHex(testSecret, betBody(t, "a1", "USD", "r1", "bet-1", "1.00")))
		}},
		{"rebuilt JSON", func(r *http.Request) {
			r.Header.Set("X-REQUEST-SIGN", sandboxtest.HMACHex(testSecret, append([]byte(" "), body...)))
		}},
		{"twice", func(r *http.Request) { r.Header.Add("X-REQUEST-SIGN", good) }},
		{"zeros", func(r *http.Request) { r.Header.Set("X-REQUEST-SIGN", strings.Repeat("0", 64)) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newFundedEnv(t)
			// An armed fault is not used up by a forged request.
			e.c.FailNext(casino.EndpointBetWin, 1, http.StatusBadGateway)
			status, resp := e.do(e.request(casino.PathBetWin, body, c.mod))
			w := wantErr(t, c.name, status, resp, http.StatusForbidden, "403", "")
			if w.Meta.APIMessage != "Forbidden" {
				t.Errorf("api_message %q", w.Meta.APIMessage)
			}
			e.wantBalance("a1", "USD", "100.00")
			if n := e.ledgerLen(); n != 0 {
				t.Errorf("ledger has %d entries", n)
			}
			// The id_provider was not consumed: the signed request is processed
			// (after the armed failure).
			status, _ = e.post(casino.PathBetWin, body)
			if status != http.StatusBadGateway {
				t.Fatalf("armed failure: %d", status)
			}
			e.postOK("signed retry", casino.PathBetWin, body)
			e.wantBalance("a1", "USD", "90.00")
		})
	}
}

func TestSignatureBeforeParsing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// Garbage with a bad signature is 403, not 400: the body is not parsed.
	for _, path := range []string{casino.PathBalance, casino.PathBetWin, casino.PathFinish, casino.PathRollback} {
		status, resp := e.do(e.request(path, []byte("not json"), func(r *http.Request) {
			r.Header.Set("X-REQUEST-SIGN", sandboxtest.HMACHex("wrong", []byte("not json")))
		}))
		wantErr(t, path, status, resp, http.StatusForbidden, "403", "")
		// With a good signature it is 400.
		status, resp = e.post(path, []byte("not json"))
		wantErr(t, path+" signed", status, resp, http.StatusBadRequest, "400", "")
	}
	// The Content-Type is checked after the signature.
	status, resp := e.do(e.request(casino.PathBalance, balanceBody(t, "a1", "USD"), func(r *http.Request) {
		r.Header.Set("Content-Type", "text/plain")
		r.Header.Del("X-REQUEST-SIGN")
	}))
	wantErr(t, "unsigned text/plain", status, resp, http.StatusForbidden, "403", "")
}

func TestContentTypeAndSize(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *casino.Config) { c.StartingBalance = "100" })
	body := balanceBody(t, "a1", "USD")
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON"} {
		status, resp := e.do(e.request(casino.PathBalance, body, func(r *http.Request) { r.Header.Set("Content-Type", ct) }))
		wantOK(t, ct, status, resp)
	}
	for _, ct := range []string{"", "text/plain", "application/x-www-form-urlencoded", "application/json-patch+json", "application/json; charset"} {
		status, resp := e.do(e.request(casino.PathBalance, body, func(r *http.Request) {
			if ct == "" {
				r.Header.Del("Content-Type")
			} else {
				r.Header.Set("Content-Type", ct)
			}
		}))
		wantErr(t, "Content-Type "+ct, status, resp, http.StatusBadRequest, "400", "")
	}

	// 64 KiB is the limit: padding with white space inside the object.
	pad := func(n int) []byte {
		b := bytes.TrimSuffix(body, []byte("}"))
		b = append(b, bytes.Repeat([]byte(" "), n-len(b)-1)...)
		return append(b, '}')
	}
	atLimit := pad(casino.MaxBodyBytes)
	if len(atLimit) != casino.MaxBodyBytes {
		t.Fatalf("padding: %d bytes", len(atLimit))
	}
	e.postOK("64 KiB body", casino.PathBalance, atLimit)
	status, resp := e.post(casino.PathBalance, pad(casino.MaxBodyBytes+1))
	wantErr(t, "64 KiB + 1 body", status, resp, http.StatusBadRequest, "400", "")
}

func TestRoutes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	body := balanceBody(t, "a1", "USD")
	for _, path := range []string{"/v2/provider_a8r.Player/Balance", "/v2/provider_agg.Player/balance", "/provider_agg.Player/Balance", "/"} {
		status, resp := e.post(path, body)
		if status != http.StatusNotFound || decodeErr(t, resp).Meta.APICode != "404" {
			t.Errorf("%s: %d %s", path, status, resp)
		}
	}
	req := e.request(casino.PathBalance, nil, nil)
	req.Method = http.MethodGet
	status, resp := e.do(req)
	if status != http.StatusMethodNotAllowed || decodeErr(t, resp).Code != "bad_route" {
		t.Errorf("GET: %d %s", status, resp)
	}

	// Mounted under a wallet base URL with a path.
	e.setBalance("a1", "USD", "5.00")
	mux := http.NewServeMux()
	mux.Handle("/wallet/", http.StripPrefix("/wallet", e.c.Handler()))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	req = e.request(casino.PathBalance, body, nil)
	req.URL, _ = url.Parse(srv.URL + "/wallet" + casino.PathBalance)
	status, resp = e.do(req)
	if a := wantOK(t, "under /wallet", status, resp); str(a.Balance) != "5.00" {
		t.Errorf("under /wallet: %s", resp)
	}
}
