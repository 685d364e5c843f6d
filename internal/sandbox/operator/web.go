package operator

import (
	"cmp"
	"embed"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/foresight-dev/foresight/internal/httpjson"
	"github.com/foresight-dev/foresight/internal/sandbox/journal"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxweb"
)

//go:embed web
var webFiles embed.FS

var pages = sandboxweb.ParsePages(webFiles, "web/host.html", "web/ledger.html", "web/controls.html")

// Widget locales and themes the host page offers.
var (
	hostLocales = []string{"en", "es", "pt", "fr", "de", "nl", "ru"}
	hostThemes  = []string{"light", "dark"}
)

func (s *Site) routes() http.Handler {
	mux, api := sandboxweb.SiteRoutes{
		Wallet: s.op.Handler(),
		Home: func(w http.ResponseWriter, r *http.Request) {
			target := "/sandbox/host"
			if r.URL.RawQuery != "" {
				target += "?" + r.URL.RawQuery
			}
			http.Redirect(w, r, target, http.StatusFound)
		},
		Ledger:   s.ledgerPage,
		Controls: s.controlsPage,
		Guard:    s.guard,
		State:    s.apiState,
		Wallets:  s.wallets(),
		Faults:   s.op.Faults,
	}.Mux()
	mux.HandleFunc("GET /sandbox/host", s.hostPage)
	mux.HandleFunc("GET /sandbox/host/balance", s.hostBalance)
	mux.HandleFunc("POST /sandbox/host/session", s.hostSession)
	api.Handle("POST /sandbox/api/session-requests", sandboxweb.Control(s.apiSessionRequest))
	api.Handle("POST /sandbox/api/token-lifetime", sandboxweb.Control(s.apiTokenLifetime))
	return mux
}

// page is the layout of one of the Site's pages.
func (s *Site) page(r *http.Request, title, current string, data any) sandboxweb.Page {
	return sandboxweb.NewPage(r, "Sandbox operator "+s.op.ID(), sandboxweb.Link{Href: "/sandbox/host", Label: "Host page"}, title, current, data)
}

// hostData is the host page's content.
type hostData struct {
	Bettor           string
	Locales, Themes  []sandboxweb.Choice
	Balance          string
	Currency         string
	SessionRequestID string
	WidgetURL        string
	PlatformOrigin   string
	BalanceURL       string
	SessionURL       string
}

// hostPage is the operator's page with the widget: it logs in the bettor
// of the bettor_id parameter (default SiteConfig.DemoBettor), creating it
// with the starting balance, and embeds the widget with a session request
// made for this load.
func (s *Site) hostPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d := hostData{Bettor: q.Get("bettor_id")}
	if d.Bettor == "" {
		d.Bettor = s.cfg.DemoBettor
	}
	d.Locales, d.Themes = sandboxweb.Choices(hostLocales, q.Get("locale")), sandboxweb.Choices(hostThemes, q.Get("theme"))
	page := s.page(r, "Host page", "/sandbox/host", &d)
	id, err := s.op.CreateSessionRequest(d.Bettor, "")
	if err != nil {
		page.Error = "The bettor cannot be logged in: " + err.Error()
		pages.Render(w, "web/host.html", page, "")
		return
	}
	d.SessionRequestID = id
	if v, ok := s.op.bettorView(d.Bettor); ok {
		d.Balance, d.Currency = v.Balance, v.Currency
	}
	d.WidgetURL = s.platformURL + "/widget/?" + url.Values{
		"session_request_id": {id},
		"operator":           {s.op.ID()},
		"locale":             {sandboxweb.Chosen(d.Locales)},
		"theme":              {sandboxweb.Chosen(d.Themes)},
	}.Encode()
	d.PlatformOrigin = s.platformOrigin
	d.BalanceURL = "/sandbox/host/balance?" + url.Values{"bettor_id": {d.Bettor}}.Encode()
	d.SessionURL = "/sandbox/host/session?" + url.Values{"bettor_id": {d.Bettor}}.Encode()
	pages.Render(w, "web/host.html", page, s.platformOrigin)
}

// hostBalance answers GET /sandbox/host/balance?bettor_id=: the bettor's
// balance, for the host page's script.
func (s *Site) hostBalance(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("bettor_id")
	v, ok := s.op.bettorView(id)
	if !ok {
		httpjson.Write(w, http.StatusNotFound, map[string]string{"error": "bettor_not_found"})
		return
	}
	httpjson.Write(w, http.StatusOK, v)
}

// hostSession answers POST /sandbox/host/session?bettor_id=: a new
// session_request_id for the bettor, made as a load of the host page makes
// it, {session_request_id}. The host page's script asks for it when the
// widget says its session expired (foresight:session_expired) and posts it
// to the widget (foresight:session). Only the page's own origin may ask
// (403 otherwise); an id the operator refuses is 400.
func (s *Site) hostSession(w http.ResponseWriter, r *http.Request) {
	if !sandboxweb.SameOrigin(r) {
		httpjson.Write(w, http.StatusForbidden, map[string]string{"error": "forbidden"})
		return
	}
	id, err := s.op.CreateSessionRequest(r.URL.Query().Get("bettor_id"), "")
	if err != nil {
		code, status := "invalid_request", http.StatusBadRequest
		if errors.Is(err, ErrJournal) {
			code, status = "storage_unavailable", http.StatusServiceUnavailable
		}
		httpjson.Write(w, status, map[string]string{"error": code})
		return
	}
	httpjson.Write(w, http.StatusOK, map[string]string{"session_request_id": id})
}

// bettorView is a bettor as the pages and the control API show it.
type bettorView struct {
	ID       string `json:"bettor_id"`
	Currency string `json:"currency"`
	Balance  string `json:"balance"`
	Blocked  bool   `json:"blocked"`
}

func (o *Operator) bettorViewLocked(id string) (bettorView, bool) {
	b := o.bettors[id]
	if b == nil {
		return bettorView{}, false
	}
	return bettorView{ID: id, Currency: b.currency, Balance: o.format(b.balance, b.currency), Blocked: o.blocked[id]}, true
}

func (o *Operator) bettorView(id string) (bettorView, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.bettorViewLocked(id)
}

// storedView is a stored answer as the ledger page shows it.
type storedView struct {
	Seq           int64
	Time          time.Time
	Endpoint      string
	TransactionID string
	Withdrawal    string
	Bettor        string
	Status        int
	Body          string
}

// ledgerData is the ledger page's content.
type ledgerData struct {
	sandboxweb.Ledger[Entry, storedView]
}

// ledgerPage shows the bettors, the ledger (newest first, paged with
// before=<seq>) and the stored answers, all for one bettor with
// bettor_id=.
func (s *Site) ledgerPage(w http.ResponseWriter, r *http.Request) {
	var d ledgerData
	before := d.Read(r, "bettor", "bettor_id")
	o := s.op
	o.mu.Lock()
	sandboxweb.ListWallets(&d.Ledger, o.bettors, o.blocked, sandboxweb.WalletsPageSize, func(id string) sandboxweb.WalletRow {
		v, _ := o.bettorViewLocked(id)
		return sandboxweb.WalletRow{ID: v.ID, Balance: v.Balance, Currency: v.Currency, Blocked: v.Blocked}
	})
	d.Entries, d.Older = sandboxweb.LedgerPage(o.ledger.Entries(), func(e Entry) int64 { return e.Seq }, func(e Entry) string { return e.BettorID },
		d.Filter, before, sandboxweb.LedgerPageSize, "bettor_id")
	for txID, rec := range o.txs {
		if d.Filter != "" && rec.bettorID != d.Filter {
			continue
		}
		d.Stored = append(d.Stored, storedView{
			Seq: rec.seq, Time: rec.at, Endpoint: rec.kind, TransactionID: txID, Withdrawal: rec.pathID,
			Bettor: rec.bettorID, Status: rec.status, Body: strings.TrimSpace(string(rec.body)),
		})
	}
	d.Fail(o.Keeper.Failed())
	o.mu.Unlock()
	d.Stored, d.MoreStored = sandboxweb.NewestFirst(d.Stored, func(v storedView) int64 { return v.Seq }, sandboxweb.StoredPageSize)
	pages.Render(w, "web/ledger.html", s.page(r, "Ledger", "/sandbox/ledger", &d), "")
}

// controlsData is the controls page's content.
type controlsData struct {
	LoginRequired bool
	Bettor        string
	Currency      string
	Faults        sandboxweb.FaultsForm
	Wallets       sandboxweb.WalletsForm
	TokenLifetime int64 // seconds
}

func (s *Site) controlsPage(w http.ResponseWriter, r *http.Request) {
	s.op.mu.Lock()
	currency := s.op.currency
	s.op.mu.Unlock()
	d := controlsData{
		LoginRequired: !s.guard.LoggedIn(r),
		Bettor:        cmp.Or(r.URL.Query().Get("bettor_id"), s.cfg.DemoBettor),
		Currency:      currency,
		TokenLifetime: int64(s.op.TokenLifetime() / time.Second),
	}
	d.Faults = s.op.Faults.Form(d.Bettor)
	d.Wallets = s.wallets().Form(d.Bettor, currency, 5)
	pages.Render(w, "web/controls.html", s.page(r, "Controls", "/sandbox/controls", &d), "")
}

// apiState answers GET /sandbox/api/state.
func (s *Site) apiState(w http.ResponseWriter, _ *http.Request) {
	o := s.op
	o.mu.Lock()
	bettors, blocked, ledger := sandboxweb.Snapshot(o.bettors, o.bettorViewLocked, o.blocked, o.ledger.Entries(), sandboxweb.StateListSize)
	currency := o.currency
	lifetime := o.tokenLifetimeLocked()
	o.mu.Unlock()
	httpjson.Write(w, http.StatusOK, map[string]any{
		"operator_id":            o.ID(),
		"currency":               currency,
		"token_lifetime_seconds": int64(lifetime / time.Second),
		"bettors":                bettors,
		"blocked":                blocked,
		"faults":                 o.Faults.Armed(),
		"ledger":                 ledger,
	})
}

// wallets is the control API's side of the operator's bettors.
func (s *Site) wallets() sandboxweb.Wallets {
	return sandboxweb.Wallets{
		Sandbox: "operator", Subject: "bettor", IDField: "bettor_id", ErrJournal: ErrJournal,
		Adjust: func(id, currency, amount string, add bool) error {
			return s.op.adjust(&journal.Op{}, id, currency, amount, add)
		},
		View: func(id string) (any, string, string) {
			v, _ := s.op.bettorView(id)
			return v, v.Balance, v.Currency
		},
		SetBlocked:   func(id string, block bool) error { return s.op.setBlocked(&journal.Op{}, id, block) },
		Blocked:      "its withdrawals are refused 403 bettor_blocked",
		BlockedBrief: "withdrawals are refused 403 bettor_blocked",
	}
}

// apiSessionRequest handles POST /sandbox/api/session-requests:
// {bettor_id, currency?} → {session_request_id, widget_url}.
func (s *Site) apiSessionRequest(w http.ResponseWriter, r *http.Request, f map[string]string) {
	id, err := s.op.CreateSessionRequest(f["bettor_id"], f["currency"])
	if err != nil {
		s.wallets().Fail(w, r, err)
		return
	}
	widget := s.platformURL + "/widget/?" + url.Values{"session_request_id": {id}, "operator": {s.op.ID()}}.Encode()
	sandboxweb.Done(w, r, "session request "+id+" for bettor "+f["bettor_id"], map[string]any{
		"session_request_id": id, "widget_url": widget,
	})
}

// apiTokenLifetime handles POST /sandbox/api/token-lifetime: {seconds}, the
// lifetime of the session tokens minted from now on; 0 goes back to the
// configured one (SetTokenLifetime).
func (s *Site) apiTokenLifetime(w http.ResponseWriter, r *http.Request, f map[string]string) {
	if f["seconds"] == "" {
		sandboxweb.Fail(w, r, http.StatusBadRequest, "invalid_request", "seconds is required: whole seconds, 0 for the configured lifetime")
		return
	}
	n, err := sandboxweb.Count(f, "seconds", 0)
	if err != nil {
		sandboxweb.Fail(w, r, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	if err := s.op.SetTokenLifetime(time.Duration(n) * time.Second); err != nil {
		s.wallets().Fail(w, r, err)
		return
	}
	d := s.op.TokenLifetime()
	sandboxweb.Done(w, r, fmt.Sprintf("session tokens minted from now on live %v", d), map[string]any{
		"token_lifetime_seconds": int64(d / time.Second),
	})
}
