package aggregatorwallet_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/conformance"
	"github.com/foresight-dev/foresight/internal/conformance/conformancetest"
)

// TestSDKSignatureRefusal: a wallet that refuses a bad signature with HTTP
// 400 and api_code 403, as some aggregator SDKs do, gets a named deviation
// (a warning saying what the platform does with it), not a bare failure.
func TestSDKSignatureRefusal(t *testing.T) {
	t.Parallel()
	c := newCasino(t)
	inner := c.Handler()
	rep := checker.Report(t, conformancetest.BrokenWallet{Inner: inner, After: func(r *http.Request, body []byte, a *conformancetest.Answer) {
		if a.Status == http.StatusForbidden {
			a.Status = http.StatusBadRequest
			a.Body = []byte(`{"code":"permission_denied","msg":"bad sign","meta":{"api_code":"403","api_message":"Forbidden"}}`)
		}
	}})
	conformancetest.CheckReport(t, rep, conformancetest.Want{
		Warn:    []string{"wrong-signature", "missing-signature"},
		Check:   "wrong-signature",
		Message: "deviation signature-400: the bet signed with another secret was answered HTTP 400 with meta.api_code 403",
		Shown:   []string{"HTTP 400 Bad Request", `"api_code":"403"`},
	})
}

// TestSDKLowerCasePaths: a wallet that serves the spec's paths in lower
// case only fails the balance check with a named deviation that says what
// the platform would see.
func TestSDKLowerCasePaths(t *testing.T) {
	t.Parallel()
	c := newCasino(t)
	inner := c.Handler()
	rep := checker.Report(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path := r.URL.Path
		if path != strings.ToLower(path) {
			http.NotFound(w, r)
			return
		}
		// The SDK's routes: the spec's paths, matched in lower case.
		for _, spec := range []string{"/v2/provider_agg.Player/Balance", "/v2/provider_agg.Round/BetWin", "/v2/provider_agg.Round/Finish", "/v2/provider_agg.Round/Rollback"} {
			if strings.ToLower(spec) == path {
				r.URL.Path = spec
			}
		}
		inner.ServeHTTP(w, r)
	}))
	res, _ := rep.Result("balance")
	if rep.Passed() || res.Status != conformance.Fail || !strings.Contains(res.Reason(), "deviation paths-lower-case") ||
		!strings.Contains(res.Reason(), "/v2/provider_agg.player/balance answers HTTP 200") {
		t.Errorf("balance: %s %q\n%s", res.Status, res.Reason(), rep)
	}
}
