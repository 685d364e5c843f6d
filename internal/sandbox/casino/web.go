package casino

import (
	"bytes"
	"cmp"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/httpjson"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxweb"
)

//go:embed web
var webFiles embed.FS

var pages = sandboxweb.ParsePages(webFiles, "web/lobby.html", "web/ledger.html", "web/controls.html")

// lobbyLocales are the launcher's languages (aggregator-api.md).
var lobbyLocales = []string{"en", "es", "nl", "fr", "de", "ru"}

// roundsPageSize is the number of rounds the ledger page lists.
const roundsPageSize = 50

func (s *Site) routes() http.Handler {
	mux, api := sandboxweb.SiteRoutes{
		Wallet: s.c.Handler(),
		Home: func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/sandbox/lobby", http.StatusFound)
		},
		Ledger:   s.ledgerPage,
		Controls: s.controlsPage,
		Guard:    s.guard,
		State:    s.apiState,
		Wallets:  s.wallets(),
		Faults:   s.c.Faults,
	}.Mux()
	mux.HandleFunc("GET /sandbox/lobby", s.lobbyPage)
	mux.Handle("POST /sandbox/lobby", sandboxweb.Control(s.launch))
	mux.HandleFunc("GET /sandbox/lobby/balance", s.lobbyBalance)
	api.Handle("POST /sandbox/api/bet-limit", sandboxweb.Control(s.apiBetLimit))
	return mux
}

// page is the layout of one of the Site's pages.
func (s *Site) page(r *http.Request, title, current string, data any) sandboxweb.Page {
	return sandboxweb.NewPage(r, "Sandbox casino "+s.cfg.CasinoID, sandboxweb.Link{Href: "/sandbox/lobby", Label: "Lobby"}, title, current, data)
}

// lobbyData is the lobby's content.
type lobbyData struct {
	Game       string
	CasinoID   string
	Account    string
	Currency   string
	Locales    []sandboxweb.Choice
	Demo       bool
	Balance    string
	LaunchURL  string
	GameOrigin string
	BalanceURL string
}

func (s *Site) lobbyData(account, currency, locale string, demo bool) *lobbyData {
	d := &lobbyData{Game: GameID, CasinoID: s.cfg.CasinoID, Account: account, Currency: currency, Demo: demo}
	if d.Account == "" {
		d.Account = s.cfg.DemoAccount
	}
	if d.Currency == "" {
		d.Currency = s.cfg.Currency
	}
	d.Locales = sandboxweb.Choices(lobbyLocales, locale)
	d.Balance, _ = s.c.Balance(d.Account, d.Currency)
	return d
}

// lobbyPage shows the game and the launch form.
func (s *Site) lobbyPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d := s.lobbyData(q.Get("account_id"), q.Get("currency"), q.Get("locale"), q.Get("mode") == "demo")
	pages.Render(w, "web/lobby.html", s.page(r, "Lobby", "/sandbox/lobby", d), "")
}

// launch handles POST /sandbox/lobby (account_id, currency, locale, mode
// real|demo): it calls the platform's Launcher/Real or Launcher/Demo,
// signed with the shared secret, and shows the lobby with the game in an
// iframe, or the platform's refusal.
func (s *Site) launch(w http.ResponseWriter, r *http.Request, f map[string]string) {
	d := s.lobbyData(f["account_id"], f["currency"], f["locale"], f["mode"] == "demo")
	page := s.page(r, "Lobby", "/sandbox/lobby", d)
	if !sandboxweb.SameOrigin(r) {
		w.WriteHeader(http.StatusForbidden)
		page.Error = "The launch comes from a page of another site."
		pages.Render(w, "web/lobby.html", page, "")
		return
	}
	launchURL, err := s.callLauncher(r, d)
	if err != nil {
		page.Error = err.Error()
		pages.Render(w, "web/lobby.html", page, "")
		return
	}
	d.LaunchURL = launchURL
	d.GameOrigin, _ = sandboxweb.Origin(launchURL)
	d.BalanceURL = "/sandbox/lobby/balance?" + url.Values{"account_id": {d.Account}, "currency": {d.Currency}}.Encode()
	pages.Render(w, "web/lobby.html", page, d.GameOrigin)
}

// launchRequest is the body of Launcher/Real and Launcher/Demo.
type launchRequest struct {
	CasinoID   string            `json:"casino_id"`
	Game       string            `json:"game"`
	Locale     string            `json:"locale"`
	IP         string            `json:"ip"`
	ClientType string            `json:"client_type"`
	SessionID  string            `json:"session_id,omitempty"`
	URLs       map[string]string `json:"urls"`
	Account    *launchAccount    `json:"account,omitempty"`
}

type launchAccount struct {
	ID       string `json:"id"`
	Currency string `json:"currency"`
}

// callLauncher asks the platform for a launch URL; errors are for the
// lobby's reader.
func (s *Site) callLauncher(r *http.Request, d *lobbyData) (string, error) {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	req := launchRequest{
		CasinoID:   s.cfg.CasinoID,
		Game:       GameID,
		Locale:     sandboxweb.Chosen(d.Locales),
		IP:         clientIP(r),
		ClientType: "desktop",
		URLs:       map[string]string{"return_url": scheme + "://" + r.Host + "/sandbox/lobby"},
	}
	if strings.Contains(r.UserAgent(), "Mobi") {
		req.ClientType = "mobile"
	}
	path := launcherDemoPath
	if !d.Demo {
		if err := sandboxweb.CheckID("the account id", d.Account); err != nil {
			return "", err
		}
		if !currencies.Pattern.MatchString(d.Currency) {
			return "", fmt.Errorf("the currency %q must be 3 to 7 upper-case letters or digits", d.Currency)
		}
		path = launcherRealPath
		req.SessionID = uuid.NewString()
		req.Account = &launchAccount{ID: d.Account, Currency: d.Currency}
	}
	body, err := json.Marshal(req)
	if err != nil {
		return "", err
	}
	call, err := http.NewRequestWithContext(r.Context(), http.MethodPost, s.platformURL+path, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	call.Header.Set("Content-Type", "application/json")
	call.Header.Set(SignatureHeader, Sign([]byte(s.c.SigningSecret()), body))
	resp, err := s.client.Do(call)
	if err != nil {
		return "", fmt.Errorf("the platform's launcher at %s did not answer: %v", s.platformURL, err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusOK {
		hint := ""
		if resp.StatusCode == http.StatusForbidden {
			hint = fmt.Sprintf(" Is aggregator %s registered on the platform with this casino's signing secret and casino id %s?", s.cfg.AggregatorID, s.cfg.CasinoID)
		}
		return "", fmt.Errorf("the platform's launcher answered %d %s.%s", resp.StatusCode, strings.TrimSpace(string(answer)), hint)
	}
	var got struct {
		LaunchURL string `json:"launch_url"`
	}
	if err := json.Unmarshal(answer, &got); err != nil {
		return "", fmt.Errorf("the platform's launcher answered 200 without a launch_url: %s", answer)
	}
	if _, err := sandboxweb.Origin(got.LaunchURL); err != nil {
		return "", fmt.Errorf("the platform's launch_url: %v", err)
	}
	return got.LaunchURL, nil
}

func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// accountView is an account as the pages and the control API show it.
type accountView struct {
	ID       string `json:"account_id"`
	Currency string `json:"currency"`
	Balance  string `json:"balance"`
	Blocked  bool   `json:"blocked"`
	BetLimit string `json:"bet_limit,omitempty"`
}

func (c *Casino) accountViewLocked(id string) (accountView, bool) {
	a := c.accounts[id]
	if a == nil {
		return accountView{}, false
	}
	v := accountView{ID: id, Currency: a.currency, Balance: c.format(a.balance, a.currency), Blocked: c.blocked[id]}
	if l, ok := c.limits[id]; ok {
		v.BetLimit = l.String()
	}
	return v, true
}

func (c *Casino) accountView(id string) (accountView, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.accountViewLocked(id)
}

// lobbyBalance answers GET /sandbox/lobby/balance?account_id=: the
// account's balance, for the lobby's script.
func (s *Site) lobbyBalance(w http.ResponseWriter, r *http.Request) {
	v, ok := s.c.accountView(r.URL.Query().Get("account_id"))
	if !ok {
		httpjson.Write(w, http.StatusNotFound, map[string]string{"error": "account_not_found"})
		return
	}
	httpjson.Write(w, http.StatusOK, v)
}

// roundView is a round as the pages show it.
type roundView struct {
	Round
	Seq int64 `json:"-"`
}

// storedView is a stored answer as the ledger page shows it.
type storedView struct {
	Seq      int64
	Time     time.Time
	Endpoint string
	Key      string // id_provider, or round_id of a Finish
	Account  string
	Status   int
	Body     string
}

// ledgerData is the ledger page's content.
type ledgerData struct {
	sandboxweb.Ledger[Entry, storedView]
	Rounds     []roundView
	MoreRounds int
}

// ledgerPage shows the accounts, rounds, the ledger (newest first, paged
// with before=<seq>) and the stored answers, all for one account with
// account_id=.
func (s *Site) ledgerPage(w http.ResponseWriter, r *http.Request) {
	var d ledgerData
	before := d.Read(r, "account", "account_id")
	c := s.c
	c.mu.Lock()
	d.BetLimits = true
	sandboxweb.ListWallets(&d.Ledger, c.accounts, c.blocked, sandboxweb.WalletsPageSize, func(id string) sandboxweb.WalletRow {
		v, _ := c.accountViewLocked(id)
		return sandboxweb.WalletRow{ID: v.ID, Balance: v.Balance, Currency: v.Currency, Blocked: v.Blocked, BetLimit: v.BetLimit}
	})
	for id, rd := range c.rounds {
		if d.Filter == "" || rd.account == d.Filter {
			d.Rounds = append(d.Rounds, roundView{Seq: rd.seq, Round: Round{RoundID: id, CasinoRoundID: rd.id, Account: rd.account, Currency: rd.currency, Finished: rd.finished}})
		}
	}
	d.Entries, d.Older = sandboxweb.LedgerPage(c.ledger.Entries(), func(e Entry) int64 { return e.Seq }, func(e Entry) string { return e.Account },
		d.Filter, before, sandboxweb.LedgerPageSize, "account_id")
	for key, rec := range c.txs {
		if d.Filter == "" || rec.account == d.Filter {
			d.Stored = append(d.Stored, storedOf(key, rec))
		}
	}
	for key, rec := range c.finishes {
		if d.Filter == "" || rec.account == d.Filter {
			d.Stored = append(d.Stored, storedOf(key, rec))
		}
	}
	d.Fail(c.Keeper.Failed())
	c.mu.Unlock()
	d.Rounds, d.MoreRounds = sandboxweb.NewestFirst(d.Rounds, func(v roundView) int64 { return v.Seq }, roundsPageSize)
	d.Stored, d.MoreStored = sandboxweb.NewestFirst(d.Stored, func(v storedView) int64 { return v.Seq }, sandboxweb.StoredPageSize)
	pages.Render(w, "web/ledger.html", s.page(r, "Ledger", "/sandbox/ledger", &d), "")
}

func storedOf(key string, rec *record) storedView {
	return storedView{
		Seq: rec.seq, Time: rec.at, Endpoint: rec.endpoint, Key: key, Account: rec.account,
		Status: rec.resp.status, Body: strings.TrimSpace(string(rec.resp.body)),
	}
}

// controlsData is the controls page's content.
type controlsData struct {
	LoginRequired bool
	Account       string
	Currency      string
	Faults        sandboxweb.FaultsForm
	Wallets       sandboxweb.WalletsForm
}

func (s *Site) controlsPage(w http.ResponseWriter, r *http.Request) {
	d := controlsData{
		LoginRequired: !s.guard.LoggedIn(r),
		Account:       cmp.Or(r.URL.Query().Get("account_id"), s.cfg.DemoAccount),
		Currency:      s.cfg.Currency,
	}
	d.Faults = s.c.Faults.Form(d.Account)
	d.Wallets = s.wallets().Form(d.Account, s.cfg.Currency, 7)
	pages.Render(w, "web/controls.html", s.page(r, "Controls", "/sandbox/controls", &d), "")
}

// apiState answers GET /sandbox/api/state.
func (s *Site) apiState(w http.ResponseWriter, _ *http.Request) {
	c := s.c
	c.mu.Lock()
	accounts, blocked, ledger := sandboxweb.Snapshot(c.accounts, c.accountViewLocked, c.blocked, c.ledger.Entries(), sandboxweb.StateListSize)
	rounds := make([]roundView, 0, len(c.rounds))
	for id, rd := range c.rounds {
		rounds = append(rounds, roundView{Seq: rd.seq, Round: Round{RoundID: id, CasinoRoundID: rd.id, Account: rd.account, Currency: rd.currency, Finished: rd.finished}})
	}
	c.mu.Unlock()
	sort.Slice(rounds, func(i, j int) bool { return rounds[i].Seq > rounds[j].Seq })
	if len(rounds) > sandboxweb.StateListSize {
		rounds = rounds[:sandboxweb.StateListSize]
	}
	httpjson.Write(w, http.StatusOK, map[string]any{
		"aggregator_id": s.cfg.AggregatorID,
		"casino_id":     s.cfg.CasinoID,
		"accounts":      accounts,
		"blocked":       blocked,
		"rounds":        rounds,
		"faults":        c.Faults.Armed(),
		"ledger":        ledger,
	})
}

// wallets is the control API's side of the casino's accounts. A balance's
// currency defaults to the account's, else the Site's.
func (s *Site) wallets() sandboxweb.Wallets {
	return sandboxweb.Wallets{
		Sandbox: "casino", Subject: "account", IDField: "account_id", ErrJournal: ErrJournal,
		SetBlocked:   func(id string, block bool) error { return s.c.setBlocked(&walletOp{}, id, block) },
		Blocked:      "its bets are refused with api_code 110",
		BlockedBrief: "bets are refused with api_code 110",
		Adjust: func(id, currency, amount string, add bool) error {
			if currency == "" {
				currency = s.cfg.Currency
				if v, ok := s.c.accountView(id); ok {
					currency = v.Currency
				}
			}
			return s.c.adjust(&walletOp{}, id, currency, amount, add)
		},
		View: func(id string) (any, string, string) {
			v, _ := s.c.accountView(id)
			return v, v.Balance, v.Currency
		},
	}
}

// apiBetLimit handles POST /sandbox/api/bet-limit: {account_id, limit};
// an empty limit removes the account's own.
func (s *Site) apiBetLimit(w http.ResponseWriter, r *http.Request, f map[string]string) {
	id, limit := f["account_id"], f["limit"]
	if err := sandboxweb.CheckID("account_id", id); err != nil {
		s.wallets().Fail(w, r, err)
		return
	}
	if err := s.c.SetBetLimit(id, limit); err != nil {
		s.wallets().Fail(w, r, err)
		return
	}
	msg := "account " + id + ": bets above " + limit + " are refused with api_code 105"
	if limit == "" {
		msg = "account " + id + ": no bet limit of its own"
	}
	sandboxweb.Done(w, r, msg, nil)
}
