package admin

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/httpjson"
	"github.com/foresight-dev/foresight/internal/ledger"
	"github.com/foresight-dev/foresight/internal/money"
)

// ledgerRoutes registers the ledger's routes: the cashier of bundled
// operators (deposits, withdrawals, statements; open to the operator's
// own credentials, see routeAccess), and for platform staff the house
// result and Verify, which read every operator's accounts.
func (h *handler) ledgerRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /admin/v1/operators/{op}/bettors/{bettor}/deposits", h.cashier("deposit"))
	mux.HandleFunc("POST /admin/v1/operators/{op}/bettors/{bettor}/withdrawals", h.cashier("withdrawal"))
	mux.HandleFunc("GET /admin/v1/operators/{op}/bettors/{bettor}/statement", h.statement)
	mux.HandleFunc("POST /admin/v1/operators/{op}/sessions", h.bundledSession)
	mux.HandleFunc("GET /admin/v1/ledger/house", h.houseResult)
	mux.HandleFunc("GET /admin/v1/ledger/verify", h.verifyLedger)
}

// CashierMovement is a deposit or withdrawal as the admin API answers it:
// the transfer and the bettor's balance now.
type CashierMovement struct {
	ID             string    `json:"id"`
	Kind           string    `json:"kind"`
	IdempotencyKey string    `json:"idempotency_key"`
	OperatorID     string    `json:"operator_id"`
	BettorID       string    `json:"bettor_id"`
	Currency       string    `json:"currency"`
	Amount         string    `json:"amount"`
	Reference      string    `json:"reference"`
	CreatedAt      time.Time `json:"created_at"`
	Balance        string    `json:"balance"`
	Available      string    `json:"available"`
}

// cashierKeyPrefix keeps the cashier's idempotency keys apart from the
// ledger keys Foresight itself chooses (bets).
const cashierKeyPrefix = "cashier:"

// bundledCurrency returns the operator {op} and its currency code, or the
// problem: 404 for an unknown operator, 409 for one whose balances are in
// its own wallet, 400 for a currency it does not hold.
func (h *handler) bundledCurrency(r *http.Request, code string) (betting.Operator, betting.Currency, error) {
	if h.ledger == nil {
		return betting.Operator{}, betting.Currency{}, problem(http.StatusNotFound, CodeNotFound, "This server keeps no ledger.")
	}
	op, err := h.betting.GetOperator(r.Context(), r.PathValue("op"))
	if err != nil {
		return betting.Operator{}, betting.Currency{}, err
	}
	if op.Integration != betting.IntegrationBundled {
		return betting.Operator{}, betting.Currency{}, problem(http.StatusConflict, CodeConflict,
			"Operator "+op.ID+" is "+op.Integration+": its bettors' balances are in its own wallet, not in Foresight's ledger.")
	}
	cur, ok := op.Currency(code)
	if !ok {
		return betting.Operator{}, betting.Currency{}, problem(http.StatusBadRequest, CodeInvalidRequest, "Operator "+op.ID+" has no currency "+strconv.Quote(code)+".")
	}
	return op, cur, nil
}

// cashier moves money between the operator's funding account and a
// bettor's: kind "deposit" credits the bettor, "withdrawal" debits it.
// The Idempotency-Key header is required; a replay answers 200 with the
// first movement, a new movement 201.
func (h *handler) cashier(kind string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		if key == "" || len(key) > 150 {
			h.writeError(w, r, problem(http.StatusBadRequest, CodeInvalidRequest, "The Idempotency-Key header is required (1 to 150 characters)."))
			return
		}
		var req struct {
			Currency  *string       `json:"currency"`
			Amount    *money.Amount `json:"amount"`
			Reference string        `json:"reference"`
		}
		if err := decode(w, r, &req); err != nil {
			h.writeError(w, r, err)
			return
		}
		if req.Currency == nil || req.Amount == nil {
			h.writeError(w, r, problem(http.StatusBadRequest, CodeInvalidRequest, "currency and amount are required."))
			return
		}
		op, cur, err := h.bundledCurrency(r, *req.Currency)
		if err != nil {
			h.writeError(w, r, err)
			return
		}
		bettor := ledger.Bettor(r.PathValue("bettor"))
		t := ledger.TransferRequest{OperatorID: op.ID, Currency: cur.Code, Key: cashierKeyPrefix + key, Debit: ledger.Funding(), Credit: bettor,
			Amount: *req.Amount, Code: kind, Reference: req.Reference}
		if kind == "withdrawal" {
			t.Debit, t.Credit = bettor, ledger.Funding()
		}
		moved, replayed, err := h.ledger.Transfer(r.Context(), t)
		if err != nil {
			h.writeError(w, r, err)
			return
		}
		h.recordCashier(r, op.ID, cur, bettor.BettorID, moved, key)
		acc, err := h.ledger.Store().Account(r.Context(), ledger.AccountID(op.ID, cur.Code, bettor))
		if err != nil {
			// The money moved: a client that sent the movement again
			// under a new key would move it twice.
			h.writeError(w, r, fmt.Errorf("%w (%w)", problem(http.StatusInternalServerError, CodeInternal,
				"The "+kind+" "+moved.ID+" was made but the balance could not be read: send the request again with the same Idempotency-Key to read it, never with a new key."), err))
			return
		}
		status := http.StatusCreated
		if replayed {
			status = http.StatusOK
		}
		httpjson.Write(w, status, CashierMovement{ID: moved.ID, Kind: moved.Code, IdempotencyKey: key, OperatorID: op.ID, BettorID: bettor.BettorID,
			Currency: cur.Code, Amount: moved.Amount.StringFixed(cur.Decimals), Reference: moved.Reference, CreatedAt: moved.CreatedAt,
			Balance: acc.Balance.StringFixed(cur.Decimals), Available: acc.Available().StringFixed(cur.Decimals)})
	}
}

// StatementLine is one entry of a bettor's statement.
type StatementLine struct {
	Seq            int64     `json:"seq"`
	CreatedAt      time.Time `json:"created_at"`
	Kind           string    `json:"kind"`
	Reference      string    `json:"reference"`
	IdempotencyKey string    `json:"idempotency_key"`
	TransferID     string    `json:"transfer_id"`
	Amount         string    `json:"amount"`
	BalanceAfter   string    `json:"balance_after"`
}

// Statement is a page of a bettor's statement with the account's
// balances now.
type Statement struct {
	OperatorID string          `json:"operator_id"`
	BettorID   string          `json:"bettor_id"`
	Currency   string          `json:"currency"`
	Balance    string          `json:"balance"`
	Held       string          `json:"held"`
	Available  string          `json:"available"`
	Items      []StatementLine `json:"items"`
	NextCursor *string         `json:"next_cursor"`
}

func statementLine(e ledger.Entry, decimals int32) StatementLine {
	return StatementLine{Seq: e.Seq, CreatedAt: e.CreatedAt, Kind: e.Code, Reference: e.Reference,
		IdempotencyKey: strings.TrimPrefix(e.Key, cashierKeyPrefix), TransferID: e.TransferID,
		Amount: e.Amount.StringFixed(decimals), BalanceAfter: e.BalanceAfter.StringFixed(decimals)}
}

// statement answers a bettor's entries, oldest first, each with the
// balance after it: a JSON page (cursor, limit), or with format=csv every
// entry as CSV.
func (h *handler) statement(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	op, cur, err := h.bundledCurrency(r, q.Get("currency"))
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	bettor := r.PathValue("bettor")
	accountID := ledger.AccountID(op.ID, cur.Code, ledger.Bettor(bettor))
	acc, err := h.ledger.Store().Account(r.Context(), accountID)
	if ledger.CodeOf(err) == ledger.ErrNotFound {
		acc, err = ledger.Account{ID: accountID}, nil // a bettor with no movement yet
	}
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	if q.Get("format") == "csv" {
		h.statementCSV(w, r, op.ID, bettor, cur, accountID)
		return
	}
	if f := q.Get("format"); f != "" && f != "json" {
		h.writeError(w, r, problem(http.StatusBadRequest, CodeInvalidRequest, "format must be json or csv."))
		return
	}
	limit, err := pageLimit(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	after, err := seqCursor(r, 0)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	entries, err := h.ledger.Store().Statement(r.Context(), accountID, after, limit+1)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	page := pageOf(entries, limit, func(e ledger.Entry) string { return strconv.FormatInt(e.Seq, 10) },
		func(e ledger.Entry) StatementLine { return statementLine(e, cur.Decimals) })
	httpjson.Write(w, http.StatusOK, Statement{OperatorID: op.ID, BettorID: bettor, Currency: cur.Code, Balance: acc.Balance.StringFixed(cur.Decimals),
		Held: acc.DebitsPending.StringFixed(cur.Decimals), Available: acc.Available().StringFixed(cur.Decimals), Items: page.Items, NextCursor: page.NextCursor})
}

// statementCSV writes every entry of the account as CSV, a page of the
// store at a time, to a client held to exportMinRate on average after
// exportGrace (pacedWriter). Text a spreadsheet would run as a formula is
// quoted with a leading apostrophe.
func (h *handler) statementCSV(w http.ResponseWriter, r *http.Request, operatorID, bettor string, cur betting.Currency, accountID string) {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="statement-`+url.PathEscape(operatorID)+`-`+url.PathEscape(bettor)+`-`+cur.Code+`.csv"`)
	w.Header().Set("Cache-Control", "no-store")
	paced, err := newPacedWriter(w)
	if err != nil {
		h.log.WarnContext(r.Context(), "statement CSV: the write deadline cannot move; the server's write timeout bounds the export", "err", err)
	}
	cw := csv.NewWriter(paced)
	cw.Write([]string{"seq", "created_at", "kind", "reference", "idempotency_key", "transfer_id", "amount", "balance_after"})
	var after int64
	for {
		entries, err := h.ledger.Store().Statement(r.Context(), accountID, after, 1000)
		if err != nil {
			// The header is sent: end the body short, and log why.
			h.log.ErrorContext(r.Context(), "statement CSV", "err", err)
			return
		}
		for _, e := range entries {
			l := statementLine(e, cur.Decimals)
			cw.Write([]string{strconv.FormatInt(l.Seq, 10), l.CreatedAt.Format(time.RFC3339Nano), spreadsheetSafe(l.Kind),
				spreadsheetSafe(l.Reference), spreadsheetSafe(l.IdempotencyKey), l.TransferID, l.Amount, l.BalanceAfter})
			after = e.Seq
		}
		cw.Flush()
		if len(entries) < 1000 || cw.Error() != nil { // done, or the client is gone or too slow
			return
		}
	}
}

// spreadsheetSafe prefixes text that a spreadsheet would read as a
// formula with an apostrophe.
func spreadsheetSafe(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// HouseResult is an operator's house account in one currency: what came
// in as stakes and went out as payouts (every credit and debit of the
// house account), the stakes held on pending transfers, and what the
// operator owes its bettors and took in from them.
type HouseResult struct {
	OperatorID     string `json:"operator_id"`
	Currency       string `json:"currency"`
	StakesIn       string `json:"stakes_in"`
	PayoutsOut     string `json:"payouts_out"`
	Result         string `json:"result"`
	HeldStakes     string `json:"held_stakes"`
	BettorBalances string `json:"bettor_balances"`
	NetDeposits    string `json:"net_deposits"`
}

// houseResult answers the house result of each bundled operator (or of
// operator_id) in each of its currencies.
func (h *handler) houseResult(w http.ResponseWriter, r *http.Request) {
	if h.ledger == nil {
		h.writeError(w, r, problem(http.StatusNotFound, CodeNotFound, "This server keeps no ledger."))
		return
	}
	var ops []betting.Operator
	if id := r.URL.Query().Get("operator_id"); id != "" {
		op, err := h.betting.GetOperator(r.Context(), id)
		if err != nil {
			h.writeError(w, r, err)
			return
		}
		ops = []betting.Operator{op}
	} else {
		all, err := h.betting.ListOperators(r.Context())
		if err != nil {
			h.writeError(w, r, err)
			return
		}
		ops = all
	}
	out := list[HouseResult]{Items: []HouseResult{}}
	for _, op := range ops {
		if op.Integration != betting.IntegrationBundled {
			continue
		}
		for _, cur := range op.Currencies {
			res, err := h.house(r.Context(), op.ID, cur)
			if err != nil {
				h.writeError(w, r, err)
				return
			}
			out.Items = append(out.Items, res)
		}
	}
	httpjson.Write(w, http.StatusOK, out)
}

// house sums the house account's entries. Every account of a currency
// sums to zero, so what the bettors hold is minus the house's and the
// funding account's balances.
func (h *handler) house(ctx context.Context, operatorID string, cur betting.Currency) (HouseResult, error) {
	var res HouseResult
	// One snapshot: the house's balance and the sums of its entries agree
	// even while bets settle.
	err := h.ledger.Store().Snapshot(ctx, func(s ledger.Snapshot) error {
		account := func(ref ledger.AccountRef) (ledger.Account, error) {
			a, err := s.Account(ctx, ledger.AccountID(operatorID, cur.Code, ref))
			if ledger.CodeOf(err) == ledger.ErrNotFound {
				return ledger.Account{}, nil
			}
			return a, err
		}
		house, err := account(ledger.House())
		if err != nil {
			return err
		}
		funding, err := account(ledger.Funding())
		if err != nil {
			return err
		}
		var in, outs money.Amount
		var after int64
		for house.ID != "" {
			entries, err := s.Statement(ctx, house.ID, after, 1000)
			if err != nil {
				return err
			}
			for _, e := range entries {
				if e.Amount.IsPositive() {
					in = in.Add(e.Amount)
				} else {
					outs = outs.Sub(e.Amount)
				}
				after = e.Seq
			}
			if len(entries) < 1000 {
				break
			}
		}
		d := cur.Decimals
		res = HouseResult{OperatorID: operatorID, Currency: cur.Code, StakesIn: in.StringFixed(d), PayoutsOut: outs.StringFixed(d),
			Result: house.Balance.StringFixed(d), HeldStakes: house.CreditsPending.StringFixed(d),
			BettorBalances: house.Balance.Add(funding.Balance).Neg().StringFixed(d), NetDeposits: funding.Balance.Neg().StringFixed(d)}
		return nil
	})
	return res, err
}

// ledgerStatuses maps the ledger's error codes to the admin API's
// statuses and problem codes; any other code is 500 internal_error.
var ledgerStatuses = map[ledger.ErrorCode]problemStatus{
	ledger.ErrInvalid:           {http.StatusBadRequest, CodeInvalidRequest},
	ledger.ErrNotFound:          {http.StatusNotFound, CodeNotFound},
	ledger.ErrConflict:          {http.StatusConflict, CodeConflict},
	ledger.ErrAlreadyResolved:   {http.StatusConflict, CodeConflict},
	ledger.ErrInsufficientFunds: {http.StatusConflict, CodeInsufficientFunds},
}

// CodeInsufficientFunds is the problem code of a debit beyond a bettor's
// available balance (409).
const CodeInsufficientFunds = "insufficient_funds"

// verifyLedger answers the ledger's Verify report: 200 whether or not it
// found discrepancies (ok says which).
func (h *handler) verifyLedger(w http.ResponseWriter, r *http.Request) {
	if h.ledger == nil {
		h.writeError(w, r, problem(http.StatusNotFound, CodeNotFound, "This server keeps no ledger."))
		return
	}
	rep, err := ledger.Verify(r.Context(), h.ledger.Store())
	h.reply(w, r, http.StatusOK, rep, err)
}

// VerifyLedger asks the server to verify the whole ledger.
func (c *Client) VerifyLedger(ctx context.Context) (ledger.Report, error) {
	var rep ledger.Report
	err := c.Do(ctx, http.MethodGet, "/admin/v1/ledger/verify", nil, &rep)
	return rep, err
}
