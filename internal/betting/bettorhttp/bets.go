package bettorhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/cursor"
	"github.com/foresight-dev/foresight/internal/httpjson"
	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/odds"
	"github.com/foresight-dev/foresight/internal/requestbody"
)

// DefaultPlacementTimeLimit is the spec's server limit of a placement
// request.
const DefaultPlacementTimeLimit = 3 * time.Second

func (h *handler) placeBet(w http.ResponseWriter, r *http.Request, b Bettor) {
	if b.Demo {
		httpjson.WriteProblem(w, http.StatusForbidden, "A demo session cannot place bets.")
		return
	}
	key := r.Header.Get("Idempotency-Key")
	u, err := uuid.Parse(key)
	if key == "" || err != nil || len(key) != 36 || u.Version() != 4 {
		writeText(w, http.StatusBadRequest, "Idempotency-Key must be a UUID v4")
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		httpjson.WriteProblem(w, http.StatusUnsupportedMediaType, "The body must be JSON (Content-Type: application/json).")
		return
	}
	release, ok := h.placing.Take(b.limitKey())
	if !ok {
		httpjson.SetRetryAfter(w, time.Second)
		httpjson.WriteProblem(w, http.StatusTooManyRequests,
			"Too many bets of this bettor are in progress; send this one again, with the same Idempotency-Key, after Retry-After seconds.")
		return
	}
	defer release()
	body, err := requestbody.Read(w, r, 64<<10) // within the placement's 3 s
	if err != nil {
		httpjson.WriteProblem(w, http.StatusBadRequest, "The body is unreadable or larger than 64 KiB.")
		return
	}
	var req struct {
		MarketID  *string          `json:"market_id"`
		OutcomeID *string          `json:"outcome_id"`
		Stake     *json.RawMessage `json:"stake"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil || dec.More() {
		httpjson.WriteProblem(w, http.StatusBadRequest, "The body must be a JSON object with market_id, outcome_id and stake.")
		return
	}
	if req.MarketID == nil || req.OutcomeID == nil || req.Stake == nil {
		httpjson.WriteProblem(w, http.StatusBadRequest, "market_id, outcome_id and stake are required.")
		return
	}
	var stake string
	if err := json.Unmarshal(*req.Stake, &stake); err != nil {
		httpjson.WriteProblem(w, http.StatusBadRequest, "stake must be a decimal string such as \"10.00\", not a JSON number.")
		return
	}
	ctx := r.Context() // bounded by withDeadline from the start of the request
	bet, err := h.placement.Place(ctx, b.Bettor, b.Operator, strings.ToLower(key),
		betting.PlaceRequest{MarketID: strings.ToLower(*req.MarketID), OutcomeID: strings.ToLower(*req.OutcomeID), Stake: stake, SessionID: b.SessionID})
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		h.errors.internal(w, r, errors.Join(ctx.Err(), err), "The placement took longer than 3 seconds; the bet may still exist: replay the same Idempotency-Key.")
		return
	}
	if err != nil {
		h.errors.write(w, r, err)
		return
	}
	httpjson.WriteRaw(w, http.StatusAccepted, bet.Accepted)
}

// betView is a bet as the bettor reads it.
type betView struct {
	ID                 string                 `json:"id"`
	Status             string                 `json:"status"`
	MarketID           string                 `json:"market_id"`
	OutcomeID          string                 `json:"outcome_id"`
	OutcomeIndex       int                    `json:"outcome_index"`
	Stake              string                 `json:"stake"`
	Currency           string                 `json:"currency"`
	EntryOdds          odds.Odds              `json:"entry_odds"`
	PotentialPayout    string                 `json:"potential_payout"`
	DisplayProbability string                 `json:"display_probability"`
	RejectionCode      *betting.RejectionCode `json:"rejection_code"`
	RejectionReason    *string                `json:"rejection_reason"`
	PayoutAmount       *money.Amount          `json:"payout_amount,omitempty"`
	SettledAt          *time.Time             `json:"settled_at,omitempty"`
	MarketImageURL     string                 `json:"market_image_url,omitempty"`
	EventImageURL      string                 `json:"event_image_url,omitempty"`
	CreatedAt          time.Time              `json:"created_at"`
}

func (h *handler) view(ctx context.Context, b betting.Bet) betView {
	v := betView{ID: b.ID, Status: string(b.Status), MarketID: b.MarketID, OutcomeID: b.OutcomeID, OutcomeIndex: b.OutcomeIndex,
		Stake: b.Stake.String(), Currency: b.Currency, EntryOdds: b.EntryOdds, PotentialPayout: b.PotentialPayout.String(),
		DisplayProbability: odds.FormatDisplayProbability(b.DisplayProbability), RejectionCode: b.RejectionCode,
		PayoutAmount: b.PayoutAmount, SettledAt: b.SettledAt, CreatedAt: b.CreatedAt}
	if b.RejectionReason != "" {
		v.RejectionReason = &b.RejectionReason
	}
	if e, err := h.svc.CachedEvent(ctx, b.EventID); err == nil {
		v.EventImageURL = e.ImageURL
		if m, ok := e.Market(b.MarketID); ok {
			v.MarketImageURL = m.ImageURL
		}
	}
	return v
}

func (h *handler) getBet(w http.ResponseWriter, r *http.Request, b Bettor) {
	id, ok := pathUUID(w, r)
	if !ok {
		return
	}
	bet, err := h.placement.Bet(r.Context(), b.Bettor, id)
	if err != nil {
		h.errors.write(w, r, err)
		return
	}
	httpjson.Write(w, http.StatusOK, h.view(r.Context(), bet))
}

// statusFilters maps the history filter (case-insensitive) to stored
// statuses: open is pending and confirmed, cancelled is rejected.
var statusFilters = map[string][]betting.BetStatus{
	"pending": {betting.BetPending}, "confirmed": {betting.BetConfirmed}, "rejected": {betting.BetRejected},
	"settled": {betting.BetSettled}, "voided": {betting.BetVoided},
	"open": {betting.BetPending, betting.BetConfirmed}, "cancelled": {betting.BetRejected},
}

type betList struct {
	Items      []betView `json:"items"`
	NextCursor *string   `json:"next_cursor"`
}

func (h *handler) listBets(w http.ResponseWriter, r *http.Request, b Bettor) {
	q := r.URL.Query()
	f := betting.BetFilter{OperatorID: b.OperatorID, BettorID: b.ID, Limit: 20}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			httpjson.WriteProblem(w, http.StatusBadRequest, "limit must be an integer between 1 and 100.")
			return
		}
		f.Limit = n
	}
	if v := q.Get("status"); v != "" {
		statuses, ok := statusFilters[strings.ToLower(v)]
		if !ok {
			httpjson.WriteProblem(w, http.StatusBadRequest, "status must be pending, confirmed, rejected, settled, voided, open or cancelled.")
			return
		}
		f.Statuses = statuses
	}
	if !readCursor(w, q, &f.BeforeCreatedAt, &f.BeforeID) {
		return
	}
	limit := f.Limit
	f.Limit++
	bets, err := h.placement.Bets(r.Context(), f)
	if err != nil {
		h.errors.write(w, r, err)
		return
	}
	out := betList{Items: []betView{}}
	bets, next := cursor.Page(bets, limit, func(b betting.Bet) string { return cursor.Encode(b.CreatedAt, b.ID) })
	if next != "" {
		out.NextCursor = &next
	}
	for _, bet := range bets {
		out.Items = append(out.Items, h.view(r.Context(), bet))
	}
	httpjson.Write(w, http.StatusOK, out)
}

func (h *handler) portfolio(w http.ResponseWriter, r *http.Request, b Bettor) {
	stakes, count, err := h.placement.Portfolio(r.Context(), b.Bettor)
	if err != nil {
		h.errors.write(w, r, err)
		return
	}
	httpjson.Write(w, http.StatusOK, map[string]any{"total_stakes": stakes.String(), "total_positions": count, "currency": b.Currency})
}

// MaxBalanceReadsInProgress is how many profile reads of one bettor that
// read the balance live (the aggregator's Player/Balance, the bundled
// ledger) may be in progress at once in one process; one more is answered
// 429 with Retry-After. A widget reads its profile one at a time; without
// a cap one token, over HTTP/2, made the server hold 200 calls to the
// aggregator's wallet at once, each on its own connection.
const MaxBalanceReadsInProgress = 4

// me answers the profile. On the aggregator path (ReadBalance set) the
// balance is the one Player/Balance answers now, and a failing read hides
// it (null), whatever an earlier wallet answer reported (aggregator-api.md,
// Player/Balance on a profile read). Elsewhere it is the balance the
// operator's wallet last reported.
func (h *handler) me(w http.ResponseWriter, r *http.Request, b Bettor) {
	if b.Demo {
		// A demo creates no bettor (aggregator-api.md, Launcher/Demo), so
		// it has no profile; reading one used to create a bettor without
		// an id.
		httpjson.WriteProblem(w, http.StatusForbidden, "A demo session has no bettor: no profile and no balance.")
		return
	}
	var shown *money.Amount
	if b.ReadBalance != nil {
		release, ok := h.balanceReads.Take(b.limitKey())
		if !ok {
			httpjson.SetRetryAfter(w, time.Second)
			httpjson.WriteProblem(w, http.StatusTooManyRequests,
				fmt.Sprintf("%d reads of this bettor's balance are in progress; read it again after Retry-After seconds.", MaxBalanceReadsInProgress))
			return
		}
		defer release()
		if a, err := b.ReadBalance(r.Context()); err == nil {
			shown = &a
		}
	} else {
		// The authenticated bettor carries no balance (KnownBettor).
		stored, err := h.placement.Bettor(r.Context(), b.OperatorID, b.ID, b.Currency)
		if err != nil {
			h.errors.write(w, r, err)
			return
		}
		shown = stored.Balance
	}
	var balance *string
	if shown != nil {
		s := shown.String()
		balance = &s
	}
	httpjson.Write(w, http.StatusOK, map[string]any{"bettor_id": b.ID, "operator_id": b.OperatorID, "currency": b.Currency, "balance": balance})
}
