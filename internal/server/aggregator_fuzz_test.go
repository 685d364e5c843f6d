package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/sandbox/casino"
	"github.com/foresight-dev/foresight/internal/server"
)

// FuzzLauncherReal sends signed bodies to Launcher/Real: every answer is
// 200 with a launch URL, 400 invalid_request or 403 forbidden, in the
// document's shape; never a 500.
func FuzzLauncherReal(f *testing.F) {
	session := uuid.NewString()
	for _, seed := range []string{
		realLaunch("p1", "EUR", session),
		realLaunch("p1", "USDT", session),
		realLaunch("", "EUR", session),
		realLaunch("p1", "eur", session),
		strings.Replace(realLaunch("p1", "EUR", session), `"urls":{"return_url":"https://casino.example/lobby"}`, `"urls":null`, 1),
		`{"casino_id":"casino-1","game":"prediction-markets","session_id":"` + session + `","urls":{},"account":{"id":"p\u0000","currency":"EUR"}}`,
		`{"casino_id":"casino-1","game":"prediction-markets","session_id":"` + session + `","urls":{},"account":{"id":["p"],"currency":"EUR"}}`,
		`{"casino_id":"casino-1","casino_id":"casino-9"}`,
		`[]`, `null`, ``, `{`, `"x"`, `{"account":{}}`,
	} {
		f.Add(seed)
	}
	aw := newAggWorld(f, "sqlite:"+f.TempDir()+"/fuzz.db", func(c *server.Config) { c.LauncherRateLimit = 0 })
	f.Fuzz(func(t *testing.T, body string) {
		a := aw.signedAs(t, "/v2/agg_provider.Launcher/Real", casinoSecret, body)
		var out map[string]any
		if err := json.Unmarshal(a.body, &out); err != nil {
			t.Fatalf("%d %q: not JSON", a.status, a.body)
		}
		switch a.status {
		case 200:
			if s, _ := out["launch_url"].(string); !strings.HasPrefix(s, aw.url+"/widget/?") {
				t.Errorf("200 with %s", a.body)
			}
		case 400, 403:
			if len(out) != 1 || (out["error"] != "invalid_request" && out["error"] != "forbidden") {
				t.Errorf("%d with %s", a.status, a.body)
			}
		default:
			t.Errorf("Launcher/Real answered %d %s to %q", a.status, a.body, body)
		}
	})
}

// FuzzRequestSignature sends one valid body with arbitrary X-REQUEST-SIGN
// values: only the exact signature (hex, either case) is accepted.
func FuzzRequestSignature(f *testing.F) {
	body := `{"casino_id":"casino-1","game":"prediction-markets"}`
	for _, seed := range []string{"", "00", strings.Repeat("0", 64), strings.Repeat("g", 64), "sha256=abc", strings.Repeat("a", 65)} {
		f.Add(seed)
	}
	aw := newAggWorld(f, "sqlite:"+f.TempDir()+"/fuzz.db", func(c *server.Config) { c.LauncherRateLimit = 0 })
	want := casino.Sign([]byte(casinoSecret), []byte(body))
	f.Fuzz(func(t *testing.T, sig string) {
		if strings.ContainsFunc(sig, func(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f || r > 0x7e }) {
			t.Skip("not a header value an HTTP client sends")
		}
		a := aw.signedAs(t, "/v2/agg_provider.Launcher/Demo", "", body, "X-REQUEST-SIGN", sig)
		// HTTP drops the blanks around a header value.
		valid := strings.EqualFold(strings.Trim(sig, " \t"), want)
		if valid != (a.status == 200) || (!valid && a.status != 403) {
			t.Errorf("signature %q: %d %s", sig, a.status, a.body)
		}
	})
}
