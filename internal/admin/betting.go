package admin

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/audit"
	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/cursor"
	"github.com/foresight-dev/foresight/internal/httpjson"
	"github.com/foresight-dev/foresight/internal/odds"
)

// CodeConflict is the problem code of a state conflict (409).
const CodeConflict = "conflict"

// bettingStatuses maps the platform's error codes to the admin API's
// statuses and problem codes; any other code is 500 internal_error.
var bettingStatuses = map[betting.ErrorCode]problemStatus{
	betting.ErrInvalid:  {http.StatusBadRequest, CodeInvalidRequest},
	betting.ErrNotFound: {http.StatusNotFound, CodeNotFound},
	betting.ErrConflict: {http.StatusConflict, CodeConflict},
}

func (h *handler) bettingRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /admin/v1/operators", h.createOperator)
	mux.HandleFunc("GET /admin/v1/operators", h.listOperators)
	mux.HandleFunc("GET /admin/v1/operators/{op}", h.getOperator)
	mux.HandleFunc("PATCH /admin/v1/operators/{op}", h.updateOperator)
	mux.HandleFunc("POST /admin/v1/events", h.createEvent)
	mux.HandleFunc("GET /admin/v1/events", listPage(h, h.readEvents, func(e betting.Event) string { return cursor.Encode(e.CreatedAt, e.ID) }, asIs))
	mux.HandleFunc("GET /admin/v1/events/{id}", h.ids(h.getEvent))
	mux.HandleFunc("PATCH /admin/v1/events/{id}", h.ids(h.updateEvent))
	mux.HandleFunc("POST /admin/v1/markets/{id}/prices", h.ids(h.setPrices))
	mux.HandleFunc("POST /admin/v1/markets/{id}/suspend", h.ids(h.marketStatus(betting.StatusSuspended)))
	mux.HandleFunc("POST /admin/v1/markets/{id}/open", h.ids(h.marketStatus(betting.StatusOpen)))
	mux.HandleFunc("POST /admin/v1/markets/{id}/resolve", h.ids(h.resolveMarket))
	mux.HandleFunc("POST /admin/v1/markets/{id}/cancel", h.ids(h.cancelMarket))
	mux.HandleFunc("GET /admin/v1/markets/{id}/price-history", h.ids(h.priceHistory))
	mux.HandleFunc("GET /admin/v1/exposure", h.requireQuery(h.exposure, "operator_id", "market_id"))
	mux.HandleFunc("GET /admin/v1/bettors", h.requireQuery(listPage(h, h.readBettors, func(b betting.Bettor) string { return b.ID }, asIs), "operator_id"))
	mux.HandleFunc("GET /admin/v1/bets", h.requireQuery(listPage(h, h.readBets, func(b betting.Bet) string { return cursor.Encode(b.CreatedAt, b.ID) }, asIs), "operator_id"))
	mux.HandleFunc("GET /admin/v1/bets/totals", h.requireQuery(h.betTotals, "operator_id"))
	mux.HandleFunc("GET /admin/v1/bets/{id}/wallet-transactions", h.ids(h.walletTransactions))
}

// publicOperator hides the signing secret.
func publicOperator(o betting.Operator) betting.Operator {
	o.SigningSecret = ""
	return o
}

// operatorRequest is the body of POST /admin/v1/operators; PATCH takes the
// same fields, each optional.
type operatorRequest struct {
	ID            *string                   `json:"id"`
	Name          *string                   `json:"name"`
	Integration   *string                   `json:"integration"`
	WalletURL     *string                   `json:"wallet_url"`
	SigningSecret *string                   `json:"signing_secret"`
	JWKSURL       *string                   `json:"jwks_url"`
	SessionURL    *string                   `json:"session_url"`
	CasinoIDs     []string                  `json:"casino_ids"`
	Currencies    []betting.Currency        `json:"currencies"`
	Margin        *marginRequest            `json:"margin"`
	Limits        map[string]betting.Limits `json:"limits"`
	OddsTolerance *decimalField             `json:"odds_tolerance"`
}

// marginRequest is the margin of an operator request; a value left out
// is 0, a method left out the default (Operator.Validate).
type marginRequest struct {
	Method odds.Method  `json:"method"`
	Value  decimalField `json:"value"`
}

func (req operatorRequest) apply(o *betting.Operator) {
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&o.Name, req.Name)
	set(&o.Integration, req.Integration)
	set(&o.WalletURL, req.WalletURL)
	set(&o.SigningSecret, req.SigningSecret)
	set(&o.JWKSURL, req.JWKSURL)
	set(&o.SessionURL, req.SessionURL)
	if req.CasinoIDs != nil {
		o.CasinoIDs = req.CasinoIDs
	}
	if req.Currencies != nil {
		o.Currencies = req.Currencies
	}
	if req.Margin != nil {
		o.Margin = betting.Margin{Method: req.Margin.Method, Value: req.Margin.Value.Decimal()}
	}
	if req.Limits != nil {
		o.Limits = req.Limits
	}
	if req.OddsTolerance != nil {
		o.OddsTolerance = req.OddsTolerance.Decimal()
	}
}

func (h *handler) createOperator(w http.ResponseWriter, r *http.Request) {
	var req operatorRequest
	if err := decode(w, r, &req); err != nil {
		h.writeError(w, r, err)
		return
	}
	o := betting.Operator{OddsTolerance: decimal.RequireFromString("0.05")}
	if req.ID != nil {
		o.ID = *req.ID
	}
	req.apply(&o)
	o, err := h.betting.CreateOperator(r.Context(), o)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	secret := ""
	if o.SigningSecret != "" {
		secret = audit.SecretSet
	}
	h.recordOperator(r, audit.OperatorCreated, nil, o, secret)
	httpjson.Write(w, http.StatusCreated, publicOperator(o))
}

func (h *handler) listOperators(w http.ResponseWriter, r *http.Request) {
	ops, err := h.betting.ListOperators(r.Context())
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	if p := principalOf(r); !p.admin() {
		ops = slices.DeleteFunc(ops, func(o betting.Operator) bool { return o.ID != p.operatorID })
	}
	out := list[betting.Operator]{Items: make([]betting.Operator, len(ops))}
	for i, o := range ops {
		out.Items[i] = publicOperator(o)
	}
	httpjson.Write(w, http.StatusOK, out)
}

func (h *handler) getOperator(w http.ResponseWriter, r *http.Request) {
	o, err := h.betting.GetOperator(r.Context(), r.PathValue("op"))
	h.reply(w, r, http.StatusOK, publicOperator(o), err)
}

func (h *handler) updateOperator(w http.ResponseWriter, r *http.Request) {
	var req operatorRequest
	if err := decode(w, r, &req); err != nil {
		h.writeError(w, r, err)
		return
	}
	if req.ID != nil && *req.ID != r.PathValue("op") {
		h.writeError(w, r, problem(http.StatusBadRequest, CodeInvalidRequest, "id cannot change."))
		return
	}
	if p := principalOf(r); !p.admin() {
		if err := req.commercialOnly(); err != nil {
			h.writeError(w, r, err)
			return
		}
	}
	// The state before is the one the change applies to, read inside the
	// update (the last attempt's when a concurrent update made it retry).
	var before betting.Operator
	o, err := h.betting.UpdateOperator(r.Context(), r.PathValue("op"), func(o *betting.Operator) error {
		before = *o
		req.apply(o)
		return nil
	})
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	secret := ""
	if o.SigningSecret != before.SigningSecret {
		secret = audit.SecretChanged
	}
	h.recordOperator(r, audit.OperatorUpdated, operatorAudit(before, ""), o, secret)
	httpjson.Write(w, http.StatusOK, publicOperator(o))
}

type outcomeRequest struct {
	Name        betting.Texts `json:"name"`
	Probability *decimalField `json:"probability"`
}

type marketRequest struct {
	Question betting.Texts    `json:"question"`
	ImageURL string           `json:"image_url"`
	ClosesAt *time.Time       `json:"closes_at"`
	Outcomes []outcomeRequest `json:"outcomes"`
}

type eventRequest struct {
	Category    string          `json:"category"`
	Title       betting.Texts   `json:"title"`
	Description betting.Texts   `json:"description"`
	ImageURL    string          `json:"image_url"`
	StartsAt    *time.Time      `json:"starts_at"`
	Markets     []marketRequest `json:"markets"`
}

func (h *handler) createEvent(w http.ResponseWriter, r *http.Request) {
	var req eventRequest
	if err := decode(w, r, &req); err != nil {
		h.writeError(w, r, err)
		return
	}
	e := betting.Event{Category: req.Category, Title: req.Title, Description: req.Description, ImageURL: req.ImageURL, StartsAt: req.StartsAt}
	for _, m := range req.Markets {
		bm := betting.Market{Question: m.Question, ImageURL: m.ImageURL, ClosesAt: m.ClosesAt}
		for _, o := range m.Outcomes {
			if o.Probability == nil {
				h.writeError(w, r, problem(http.StatusBadRequest, CodeInvalidRequest, "every outcome needs a probability."))
				return
			}
			bm.Outcomes = append(bm.Outcomes, betting.Outcome{Name: o.Name, Probability: o.Probability.Decimal()})
		}
		e.Markets = append(e.Markets, bm)
	}
	e, err := h.betting.CreateEvent(r.Context(), e)
	h.reply(w, r, http.StatusCreated, e, err)
}

// eventStatuses are the values of the status filter of GET /admin/v1/events.
var eventStatuses = []string{string(betting.StatusOpen), string(betting.StatusSuspended), string(betting.StatusResolved), string(betting.StatusCancelled)}

// readEvents reads a page of the catalog, newest first, optionally of one
// category or status (matched case-insensitively).
func (h *handler) readEvents(r *http.Request, limit int) ([]betting.Event, error) {
	q := r.URL.Query()
	f := betting.EventFilter{Category: strings.ToLower(q.Get("category")), Status: betting.MarketStatus(strings.ToLower(q.Get("status"))), Limit: limit}
	if err := checkOneOf("category", f.Category, betting.Categories); err != nil {
		return nil, err
	}
	if err := checkOneOf("status", string(f.Status), eventStatuses); err != nil {
		return nil, err
	}
	var err error
	if f.BeforeCreatedAt, f.BeforeID, err = pageCursor(r); err != nil {
		return nil, err
	}
	return h.betting.ListEvents(r.Context(), f)
}

func (h *handler) getEvent(w http.ResponseWriter, r *http.Request) {
	e, err := h.betting.GetEvent(r.Context(), r.PathValue("id"))
	h.reply(w, r, http.StatusOK, e, err)
}

func (h *handler) updateEvent(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Title       betting.Texts            `json:"title"`
		Description betting.Texts            `json:"description"`
		Markets     map[string]betting.Texts `json:"markets"`
		Outcomes    map[string]betting.Texts `json:"outcomes"`
	}
	if err := decode(w, r, &req); err != nil {
		h.writeError(w, r, err)
		return
	}
	e, err := h.betting.UpdateEventTexts(r.Context(), r.PathValue("id"), req.Title, req.Description, req.Markets, req.Outcomes)
	h.reply(w, r, http.StatusOK, e, err)
}

func (h *handler) setPrices(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Outcomes []struct {
			ID          string       `json:"id"`
			Probability decimalField `json:"probability"`
		} `json:"outcomes"`
	}
	if err := decode(w, r, &req); err != nil {
		h.writeError(w, r, err)
		return
	}
	probs := map[string]decimal.Decimal{}
	for _, o := range req.Outcomes {
		probs[o.ID] = o.Probability.Decimal()
	}
	before := h.marketBefore(r)
	e, err := h.betting.SetPrices(r.Context(), r.PathValue("id"), probs)
	if err == nil {
		h.recordMarket(r, audit.MarketRepriced, before, e, false)
	}
	h.reply(w, r, http.StatusOK, e, err)
}

func (h *handler) marketStatus(status betting.MarketStatus) http.HandlerFunc {
	action := audit.MarketOpened
	if status == betting.StatusSuspended {
		action = audit.MarketSuspended
	}
	return func(w http.ResponseWriter, r *http.Request) {
		before := h.marketBefore(r)
		e, err := h.betting.SetMarketStatus(r.Context(), r.PathValue("id"), status)
		if err != nil {
			h.writeError(w, r, err)
			return
		}
		h.recordMarket(r, action, before, e, false)
		httpjson.Write(w, http.StatusOK, e)
	}
}

func (h *handler) resolveMarket(w http.ResponseWriter, r *http.Request) {
	var req struct {
		WinningOutcomeID string `json:"winning_outcome_id"`
	}
	if err := decode(w, r, &req); err != nil {
		h.writeError(w, r, err)
		return
	}
	before := h.marketBefore(r)
	e, err := h.betting.ResolveMarket(r.Context(), r.PathValue("id"), req.WinningOutcomeID)
	if err == nil {
		h.recordMarket(r, audit.MarketResolved, before, e, true)
	}
	h.reply(w, r, http.StatusOK, e, err)
}

func (h *handler) cancelMarket(w http.ResponseWriter, r *http.Request) {
	before := h.marketBefore(r)
	e, err := h.betting.CancelMarket(r.Context(), r.PathValue("id"))
	if err == nil {
		h.recordMarket(r, audit.MarketCancelled, before, e, true)
	}
	h.reply(w, r, http.StatusOK, e, err)
}

func (h *handler) exposure(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if uuid.Validate(q.Get("market_id")) != nil {
		h.writeError(w, r, problem(http.StatusNotFound, CodeNotFound, "No market "+q.Get("market_id")+"."))
		return
	}
	items, err := h.placement.Exposure(r.Context(), q.Get("operator_id"), q.Get("market_id"))
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	httpjson.Write(w, http.StatusOK, list[betting.OutcomeExposure]{Items: items})
}

// readBettors reads a page of an operator's bettors.
func (h *handler) readBettors(r *http.Request, limit int) ([]betting.Bettor, error) {
	return h.placement.Bettors(r.Context(), r.URL.Query().Get("operator_id"), r.URL.Query().Get("cursor"), limit)
}

// readBets reads a page of an operator's bets, newest first, optionally
// of one bettor, market or status.
func (h *handler) readBets(r *http.Request, limit int) ([]betting.Bet, error) {
	q := r.URL.Query()
	f := betting.BetFilter{OperatorID: q.Get("operator_id"), BettorID: q.Get("bettor_id"), MarketID: q.Get("market_id"), Limit: limit}
	if f.MarketID != "" && uuid.Validate(f.MarketID) != nil {
		return nil, problem(http.StatusBadRequest, CodeInvalidRequest, "market_id must be a UUID.")
	}
	if st := q.Get("status"); st != "" {
		f.Statuses = []betting.BetStatus{betting.BetStatus(strings.ToLower(st))}
	}
	var err error
	if f.BeforeCreatedAt, f.BeforeID, err = pageCursor(r); err != nil {
		return nil, err
	}
	return h.placement.Bets(r.Context(), f)
}

// BetTotal is one status and currency of GET /admin/v1/bets/totals.
type BetTotal struct {
	Status                string     `json:"status"`
	Currency              string     `json:"currency"`
	Bets                  int        `json:"bets"`
	Stake                 string     `json:"stake"`
	Payout                string     `json:"payout"`
	PayoutsConfirmed      int        `json:"payouts_confirmed"`
	LastPayoutConfirmedAt *time.Time `json:"last_payout_confirmed_at"`
}

// betTotals answers an operator's bets counted and summed by status and
// currency, of one market when market_id is set: one read, whatever the
// number of bets, where the list would take a page per hundred.
func (h *handler) betTotals(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if m := q.Get("market_id"); m != "" && uuid.Validate(m) != nil {
		h.writeError(w, r, problem(http.StatusBadRequest, CodeInvalidRequest, "market_id must be a UUID."))
		return
	}
	totals, err := h.placement.BetTotals(r.Context(), q.Get("operator_id"), q.Get("market_id"))
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	out := list[BetTotal]{Items: []BetTotal{}}
	for _, t := range totals {
		out.Items = append(out.Items, BetTotal{Status: string(t.Status), Currency: t.Currency, Bets: t.Bets, Stake: t.Stake.String(),
			Payout: t.Payout.String(), PayoutsConfirmed: t.PayoutsConfirmed, LastPayoutConfirmedAt: t.LastPayoutConfirmedAt})
	}
	httpjson.Write(w, http.StatusOK, out)
}
