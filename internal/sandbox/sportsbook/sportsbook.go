// Package sportsbook is the demo's bundled operator: the site of a
// sportsbook product that sells Foresight's markets on the bundled path
// (docs/operator-integration.md, "Bundled"). It has no wallet, session or
// key-set endpoint of its own. Its server calls the platform's admin API
// with the operator's credential: it opens each bettor's session
// (POST /admin/v1/operators/{op}/sessions) and embeds the widget_url the
// platform answers, and it credits play money through the cashier
// (POST /admin/v1/operators/{op}/bettors/{bettor}/deposits). The balances
// live in the platform's ledger.
package sportsbook

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/sandbox/sandboxweb"
)

// Config configures a Site.
type Config struct {
	// OperatorID is the bundled operator's id on the platform.
	OperatorID string
	// PlatformURL is the platform's base URL, as the site's server reaches
	// it and the bettor's browser loads the widget from it.
	PlatformURL string
	// Credential is an operator credential of OperatorID (the
	// Authorization bearer of the admin API's calls).
	Credential string
	// Currency is the bettors' currency; the operator must offer it.
	Currency string
	// HTTP is the client of the admin API's calls; nil uses one with a
	// ten-second time-out.
	HTTP *http.Client
	// Logger receives the platform's answers the site could not read
	// (which the page only calls unreadable); nil means slog.Default().
	Logger *slog.Logger
}

// Site serves the sportsbook's pages under /sandbox/: the host page (a
// bettor logs in and plays in the widget, and may take play money), and
// the session renewal the widget asks for through the host page.
type Site struct {
	cfg    Config
	origin string
	pages  sandboxweb.Pages
}

//go:embed web
var files embed.FS

// bettorID is what the site accepts as a bettor id: the platform takes
// more, but a demo's bettor is a short name.
var bettorID = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,39}$`)

// New returns the site; it fails on a PlatformURL that is not an absolute
// http(s) URL or a Config without an operator, credential or currency.
func New(cfg Config) (*Site, error) {
	origin, err := sandboxweb.Origin(cfg.PlatformURL)
	if err != nil {
		return nil, fmt.Errorf("sportsbook: platform URL: %w", err)
	}
	if cfg.OperatorID == "" || cfg.Credential == "" || cfg.Currency == "" {
		return nil, errors.New("sportsbook: the operator id, its credential and the currency are required")
	}
	if cfg.HTTP == nil {
		cfg.HTTP = &http.Client{Timeout: 10 * time.Second}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	cfg.PlatformURL = strings.TrimRight(cfg.PlatformURL, "/")
	sub, err := fs.Sub(files, "web")
	if err != nil {
		return nil, err
	}
	return &Site{cfg: cfg, origin: origin, pages: sandboxweb.ParsePages(sub, "host.html")}, nil
}

// Registration returns the body of the platform's POST /admin/v1/operators
// that creates the bundled operator id offering currency, with the demo's
// margin and limits.
func Registration(id, name, currency string) []byte {
	body, _ := json.Marshal(map[string]any{
		"id": id, "name": name, "integration": "bundled",
		"currencies":     []map[string]any{{"code": currency, "decimals": 2}},
		"margin":         map[string]string{"method": "odds_ratio", "value": "0.05"},
		"odds_tolerance": "0.05",
		"limits": map[string]any{currency: map[string]string{
			"min_stake": "1", "max_stake": "100", "max_payout": "1000", "outcome_exposure": "10000"}},
	})
	return body
}

// Handler serves the site: GET /sandbox/host, POST /sandbox/deposit,
// POST /sandbox/session, the shared static files, and / redirects to the
// host page.
func (s *Site) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /sandbox/static/", sandboxweb.Static())
	mux.HandleFunc("GET /sandbox/host", s.host)
	mux.HandleFunc("POST /sandbox/deposit", s.deposit)
	mux.HandleFunc("POST /sandbox/session", s.renew)
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/sandbox/host", http.StatusSeeOther)
	})
	return mux
}

// hostData is the host page's own data.
type hostData struct {
	Bettor, Currency, Balance    string
	WidgetURL, PlatformOrigin    string
	SessionURL, SessionRequestID string
	// DepositKey is the idempotency key of the page's deposit form: a
	// form sent twice credits once.
	DepositKey string
}

func (s *Site) host(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	page := sandboxweb.Page{Title: "Play", Partner: "Sportsbook (bundled operator " + s.cfg.OperatorID + ")",
		Nav: []sandboxweb.Link{{Href: "/sandbox/host", Label: "Play", Current: true}}, Notice: q.Get("notice"), Error: q.Get("error")}
	data := hostData{Bettor: q.Get("bettor_id"), Currency: s.cfg.Currency, PlatformOrigin: s.origin}
	page.Data = &data
	if data.Bettor != "" {
		if !bettorID.MatchString(data.Bettor) {
			page.Error = "A bettor id is 1 to 40 lowercase letters, digits, '-' or '_'."
			data.Bettor = ""
		} else if sess, err := s.openSession(r.Context(), data.Bettor); err != nil {
			page.Error = "The platform did not open a session: " + err.Error()
		} else {
			data.WidgetURL, data.SessionRequestID, data.Balance = sess.WidgetURL, sess.SessionRequestID, sess.Balance
			data.SessionURL = "/sandbox/session?bettor_id=" + url.QueryEscape(data.Bettor)
			data.DepositKey = uuid.NewString()
		}
	}
	s.pages.Render(w, "host.html", page, s.origin)
}

// session is the part of the platform's BundledSession the site uses.
type session struct {
	SessionRequestID string `json:"session_request_id"`
	WidgetURL        string `json:"widget_url"`
	Balance          string `json:"balance"`
}

func (s *Site) openSession(ctx context.Context, bettor string) (session, error) {
	var out session
	err := s.call(ctx, "/admin/v1/operators/"+url.PathEscape(s.cfg.OperatorID)+"/sessions", "",
		map[string]string{"bettor_id": bettor, "currency": s.cfg.Currency, "locale": "en"}, &out)
	return out, err
}

// renew answers the host page's script (sandboxweb's frame.js) with a new
// session_request_id for the bettor, when the widget's session expired.
func (s *Site) renew(w http.ResponseWriter, r *http.Request) {
	bettor := r.URL.Query().Get("bettor_id")
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if !bettorID.MatchString(bettor) || !sameOrigin(r) {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":"invalid_request"}`)
		return
	}
	sess, err := s.openSession(r.Context(), bettor)
	if err != nil {
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, `{"error":"platform_unavailable"}`)
		return
	}
	json.NewEncoder(w).Encode(map[string]string{"session_request_id": sess.SessionRequestID})
}

// maxDepositForm bounds the deposit form's body, in bytes: the page's
// form sends three short fields.
const maxDepositForm = 4 << 10

// deposit credits play money to a bettor through the platform's cashier,
// with a new idempotency key per form, and sends the browser back to the
// host page. A body above maxDepositForm is refused 413.
func (s *Site) deposit(w http.ResponseWriter, r *http.Request) {
	if !sameOrigin(r) {
		http.Error(w, "cross-site request refused", http.StatusForbidden)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxDepositForm)
	if err := r.ParseForm(); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			http.Error(w, "the deposit form is too large", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "the deposit form could not be read", http.StatusBadRequest)
		return
	}
	bettor, amount, key := r.PostFormValue("bettor_id"), r.PostFormValue("amount"), r.PostFormValue("key")
	back := func(field, text string) {
		http.Redirect(w, r, "/sandbox/host?"+url.Values{"bettor_id": {bettor}, field: {text}}.Encode(), http.StatusSeeOther)
	}
	if !bettorID.MatchString(bettor) || uuid.Validate(key) != nil {
		back("error", "The deposit form is not valid; load the page again.")
		return
	}
	err := s.call(r.Context(), "/admin/v1/operators/"+url.PathEscape(s.cfg.OperatorID)+"/bettors/"+url.PathEscape(bettor)+"/deposits", key,
		map[string]string{"currency": s.cfg.Currency, "amount": amount, "reference": "sportsbook play money"}, nil)
	if err != nil {
		back("error", "The platform refused the deposit: "+err.Error())
		return
	}
	back("notice", "Deposited "+amount+" "+s.cfg.Currency+" of play money.")
}

// call POSTs body to the platform's admin API with the operator's
// credential (and key as the Idempotency-Key, when set) and decodes a 2xx
// answer into out; another answer is an error with the problem's detail.
// Its errors are texts a page may show: a 2xx answer that does not decode
// is logged and called unreadable.
func (s *Site) call(ctx context.Context, path, key string, body, out any) error {
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, "POST", s.cfg.PlatformURL+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+s.cfg.Credential)
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := s.cfg.HTTP.Do(req)
	if err != nil {
		return errors.New("the platform did not answer")
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode/100 != 2 {
		var p struct {
			Detail string `json:"detail"`
		}
		if json.Unmarshal(data, &p) == nil && p.Detail != "" {
			return errors.New(p.Detail)
		}
		return fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			s.cfg.Logger.Warn("sportsbook: unreadable answer of the platform", "path", path, "status", resp.StatusCode, "err", err)
			return errors.New("the platform's answer could not be read")
		}
	}
	return nil
}

// sameOrigin refuses a form or script call that a page of another origin
// sent through the bettor's browser.
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	return err == nil && u.Host == r.Host
}
