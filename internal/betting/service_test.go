package betting_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/bettingtest"
	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/sqlite"
	"github.com/foresight-dev/foresight/internal/sqlite/sqlitetest"
)

func newService(t *testing.T) *betting.Service {
	t.Helper()
	return betting.NewService(sqlitetest.Open(t).BettingStore(), false)
}

func TestOperatorValidation(t *testing.T) {
	t.Parallel()
	s := newService(t)
	tests := []struct {
		name   string
		mutate func(o *betting.Operator)
		want   string
	}{
		{"valid", func(o *betting.Operator) {}, ""},
		{"bad id", func(o *betting.Operator) { o.ID = "Op 1" }, "id must"},
		{"http wallet", func(o *betting.Operator) { o.WalletURL = "http://wallet.example.com" }, "wallet_url must use https"},
		{"http session url", func(o *betting.Operator) { o.SessionURL = "http://op.example.com/v1/session" }, "session_url must use https"},
		{"https session url", func(o *betting.Operator) { o.SessionURL = "https://login.example.com/v1/session" }, ""},
		{"no jwks", func(o *betting.Operator) { o.JWKSURL = "" }, "jwks_url"},
		{"aggregator without casinos", func(o *betting.Operator) { o.Integration = "aggregator" }, "casino_ids"},
		{"unknown integration", func(o *betting.Operator) { o.Integration = "wallet" }, "integration"},
		{"bundled needs no wallet, secret or key set", func(o *betting.Operator) {
			o.Integration, o.WalletURL, o.SigningSecret, o.JWKSURL = "bundled", "", "", ""
		}, ""},
		{"short secret", func(o *betting.Operator) { o.SigningSecret = "short" }, "signing_secret"},
		{"no currencies", func(o *betting.Operator) { o.Currencies = nil }, "currencies"},
		{"bad currency", func(o *betting.Operator) { o.Currencies[0].Code = "usd" }, "not a currency code"},
		{"unknown method", func(o *betting.Operator) { o.Margin.Method = "magic" }, "margin.method"},
		{"negative margin", func(o *betting.Operator) { o.Margin.Value = decimal.RequireFromString("-0.01") }, "margin.value"},
		{"limits for another currency", func(o *betting.Operator) {
			o.Limits["EUR"] = o.Limits["USD"]
		}, "not one of the currencies"},
		{"max below min", func(o *betting.Operator) {
			l := o.Limits["USD"]
			l.MaxStake = money.MustParse("0.5")
			o.Limits["USD"] = l
		}, "max_stake"},
		{"missing limits", func(o *betting.Operator) { delete(o.Limits, "USD") }, "limits must be set for USD"},
		{"tolerance above 1", func(o *betting.Operator) { o.OddsTolerance = decimal.RequireFromString("1.5") }, "odds_tolerance"},
	}
	for i, tt := range tests {
		o := bettingtest.NewOperator("op-" + string(rune('a'+i)))
		tt.mutate(&o)
		_, err := s.CreateOperator(context.Background(), o)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: err = %v, want one about %q", tt.name, err, tt.want)
		}
	}
}

func TestEventsAndPrices(t *testing.T) {
	t.Parallel()
	s := newService(t)
	ctx := context.Background()
	op, err := s.CreateOperator(ctx, bettingtest.NewOperator("acme"))
	if err != nil {
		t.Fatal(err)
	}
	in := bettingtest.NewEvent(bettingtest.NewEvent(op.CreatedAt).CreatedAt)
	in.Markets[0].Outcomes[0].Probability = decimal.RequireFromString("0.2")
	in.Markets[0].Outcomes[1].Probability = decimal.RequireFromString("0.8")
	givenEvent, givenMarket := in.ID, in.Markets[0].ID
	e, err := s.CreateEvent(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if e.ID == givenEvent || e.Markets[0].ID == givenMarket || e.Status != betting.StatusOpen {
		t.Errorf("the service must assign ids and status: %+v", e)
	}

	// Odds-ratio at 5 %: 4.4215 and 1.2138 (the odds-ratio method, docs/decisions.md "Contract details"), shown rounded down.
	v := betting.View(op, e, "pt-BR")
	out := v.Markets[0].Outcomes
	if out[0].DisplayOdds.String() != "4.42" || out[1].DisplayOdds.String() != "1.21" ||
		*out[0].DisplayProbability != "22.62" || *out[1].DisplayProbability != "82.64" {
		t.Errorf("odds = %v %v / %v %v", out[0].DisplayOdds, *out[0].DisplayProbability, out[1].DisplayOdds, *out[1].DisplayProbability)
	}
	if v.Title != "Final" || v.Markets[0].Question != "Who wins?" {
		t.Errorf("texts: %q %q", v.Title, v.Markets[0].Question)
	}

	m := e.Markets[0]
	e, err = s.SetPrices(ctx, m.ID, map[string]decimal.Decimal{m.Outcomes[0].ID: decimal.RequireFromString("0.5"), m.Outcomes[1].ID: decimal.RequireFromString("0.5")})
	if err != nil || e.Markets[0].Version != 2 {
		t.Fatalf("SetPrices = %v, version %d", err, e.Markets[0].Version)
	}
	for _, bad := range []map[string]decimal.Decimal{
		{m.Outcomes[0].ID: decimal.RequireFromString("0.5")},
		{m.Outcomes[0].ID: decimal.RequireFromString("0.7"), m.Outcomes[1].ID: decimal.RequireFromString("0.7")},
		{m.Outcomes[0].ID: decimal.RequireFromString("1"), m.Outcomes[1].ID: decimal.RequireFromString("0")},
	} {
		if _, err := s.SetPrices(ctx, m.ID, bad); err == nil {
			t.Errorf("SetPrices(%v) accepted", bad)
		}
	}
	if e, err = s.SetMarketStatus(ctx, m.ID, betting.StatusSuspended); err != nil || e.Markets[0].Status != betting.StatusSuspended {
		t.Errorf("suspend: %v", err)
	}
	e, err = s.UpdateEventTexts(ctx, e.ID, betting.Texts{"en": "Grand final"}, nil, nil, map[string]betting.Texts{m.Outcomes[0].ID: {"en": "Hosts"}})
	if err != nil || e.Title["en"] != "Grand final" || e.Markets[0].Outcomes[0].Name["en"] != "Hosts" {
		t.Errorf("texts: %v %+v", err, e.Title)
	}

	for _, bad := range []func(e *betting.Event){
		func(e *betting.Event) { e.Category = "poker" },
		func(e *betting.Event) { e.Title = nil },
		func(e *betting.Event) { e.Title = betting.Texts{"not a locale!": "x"} },
		func(e *betting.Event) { e.ImageURL = "http://img.example.com/x.png" },
		func(e *betting.Event) { e.Markets = nil },
		func(e *betting.Event) { e.Markets[0].Outcomes = e.Markets[0].Outcomes[:1] },
		func(e *betting.Event) { e.Markets[0].Outcomes[0].Probability = decimal.RequireFromString("0.9") },
	} {
		in := bettingtest.NewEvent(op.CreatedAt)
		bad(&in)
		if _, err := s.CreateEvent(ctx, in); err == nil {
			t.Errorf("CreateEvent accepted %+v", in)
		}
	}
}

// TestImageURLs: event images must be https, except on the platform's own
// origin (the simulator's images) and on a service that allows insecure
// partner URLs.
func TestImageURLs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tt := range []struct {
		name     string
		insecure bool
		own      string
		url      string
		ok       bool
	}{
		{"https", false, "", "https://img.example.com/a.svg", true},
		{"http refused", false, "", "http://127.0.0.1:8080/a.svg", false},
		{"http when insecure", true, "", "http://127.0.0.1:8080/a.svg", true},
		{"ftp even when insecure", true, "", "ftp://img.example.com/a.svg", false},
		{"http on the own origin", false, "http://127.0.0.1:8080", "http://127.0.0.1:8080/feed/simulator/images/a.svg", true},
		{"http on the own origin with a slash", false, "http://127.0.0.1:8080/", "http://127.0.0.1:8080/a.svg", true},
		{"http on another port", false, "http://127.0.0.1:8080", "http://127.0.0.1:8081/a.svg", false},
		{"http on another host", false, "http://127.0.0.1:8080", "http://127.0.0.2:8080/a.svg", false},
		{"http with the own host as user", false, "http://127.0.0.1:8080", "http://127.0.0.1:8080@evil.example/a.svg", false},
		{"ftp on the own origin", false, "ftp://127.0.0.1:8080", "ftp://127.0.0.1:8080/a.svg", false},
	} {
		db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), tt.name+".db"), nil)
		if err != nil {
			t.Fatal(err)
		}
		s := betting.NewService(db.BettingStore(), tt.insecure)
		s.OwnOrigin = tt.own
		e := bettingtest.NewEvent(time.Now())
		e.ImageURL = tt.url
		_, err = s.CreateEvent(ctx, e)
		db.Close()
		if (err == nil) != tt.ok {
			t.Errorf("%s: CreateEvent with image %s: err %v, want accepted %v", tt.name, tt.url, err, tt.ok)
		}
	}
}

func TestTextsResolve(t *testing.T) {
	t.Parallel()
	texts := betting.Texts{"en": "Election", "pt-BR": "Eleição", "es": "Elección"}
	for locale, want := range map[string]string{"pt-BR": "Eleição", "pt": "Eleição", "es-MX": "Elección", "de": "Election", "": "Election", "garbage!!": "Election"} {
		if got := texts.Resolve(locale); got != want {
			t.Errorf("Resolve(%q) = %q, want %q", locale, got, want)
		}
	}
	if got := (betting.Texts{"fr": "Élection"}).Resolve("de"); got != "Élection" {
		t.Errorf("only text: %q", got)
	}
	both := betting.Texts{"pt": "Eleição (pt)", "pt-BR": "Eleição (BR)", "en": "Election"}
	for locale, want := range map[string]string{"pt": "Eleição (pt)", "pt-BR": "Eleição (BR)", "pt-PT": "Eleição (pt)", "en-GB": "Election"} {
		if got := both.Resolve(locale); got != want {
			t.Errorf("Resolve(%q) with pt and pt-BR = %q, want %q", locale, got, want)
		}
	}
}

// Concurrent operator updates do not overwrite each other: each adds its
// own currency, and every currency is there at the end.
func TestConcurrentOperatorUpdates(t *testing.T) {
	t.Parallel()
	s := newService(t)
	ctx := context.Background()
	if _, err := s.CreateOperator(ctx, bettingtest.NewOperator("acme")); err != nil {
		t.Fatal(err)
	}
	codes := []string{"EUR", "GBP", "BRL", "JPY"}
	var wg sync.WaitGroup
	for _, c := range codes {
		wg.Go(func() {
			_, err := s.UpdateOperator(ctx, "acme", func(o *betting.Operator) error {
				o.Currencies = append(o.Currencies, betting.Currency{Code: c, Decimals: 2})
				o.Limits[c] = o.Limits["USD"]
				return nil
			})
			if err != nil {
				t.Errorf("add %s: %v", c, err)
			}
		})
	}
	wg.Wait()
	o, err := s.GetOperator(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range codes {
		if _, ok := o.Currency(c); !ok || o.Limits[c].MaxStake.IsZero() {
			t.Errorf("%s was lost: %+v", c, o.Currencies)
		}
	}
}

// An operator's integration cannot change: its bets' wins, refunds and
// rollbacks go through the wallet they were placed with (switched from
// bundled to aggregator, a win went to the casino while the stake stayed
// taken in the ledger; found by a review). The refusal changes nothing.
func TestOperatorIntegrationCannotChange(t *testing.T) {
	t.Parallel()
	s := newService(t)
	ctx := context.Background()
	if _, err := s.CreateOperator(ctx, bettingtest.NewOperator("acme")); err != nil {
		t.Fatal(err)
	}
	_, err := s.UpdateOperator(ctx, "acme", func(o *betting.Operator) error {
		o.Integration, o.WalletURL, o.SigningSecret, o.JWKSURL = betting.IntegrationBundled, "", "", ""
		return nil
	})
	if betting.ErrorCodeOf(err) != betting.ErrInvalid || !strings.Contains(err.Error(), "integration") {
		t.Errorf("standalone → bundled = %v, want invalid naming the integration", err)
	}
	if o, err := s.GetOperator(ctx, "acme"); err != nil || o.Integration != betting.IntegrationStandalone {
		t.Errorf("operator after the refusal = %s, %v; want standalone", o.Integration, err)
	}
}
