package admin

import (
	"net/http"
	"time"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/httpjson"
	"github.com/foresight-dev/foresight/internal/money"
)

// WalletTransaction is one of a bet's transactions in its operator's
// wallet, as GET /admin/v1/bets/{id}/wallet-transactions shows it.
type WalletTransaction struct {
	TransactionID string `json:"transaction_id"`
	// Kind is "withdrawal", "deposit" or "rollback".
	Kind     string       `json:"kind"`
	Amount   money.Amount `json:"amount"`
	Currency string       `json:"currency"`
	// ConfirmedAt is when the operator confirmed it; absent until then.
	ConfirmedAt *time.Time `json:"confirmed_at,omitempty"`
	// Attempts are the requests sent for it, oldest first.
	Attempts []WalletAttempt `json:"attempts"`
}

// WalletAttempt is one request of a wallet transaction.
type WalletAttempt struct {
	// Attempt numbers the transaction's recorded attempts from 1.
	Attempt    int       `json:"attempt"`
	StartedAt  time.Time `json:"started_at"`
	DurationMS int64     `json:"duration_ms"`
	// Result is "done", "refused" or "unknown".
	Result string `json:"result"`
	// Code says why a refused attempt was refused.
	Code string `json:"code,omitempty"`
	// HTTPStatus is the answer's status; absent when none arrived.
	HTTPStatus int `json:"http_status,omitempty"`
	// Error names the failure of an attempt without a usable answer:
	// "timeout", "connection_refused", "connection_reset",
	// "connection_closed", "dns_failure", "tls_failure", "cancelled",
	// "transport_error" or "unreadable_answer".
	Error string `json:"error,omitempty"`
}

// toWalletTransactions writes a bet's transactions as the admin API shows
// them.
func toWalletTransactions(txs []betting.WalletTransaction) []WalletTransaction {
	out := make([]WalletTransaction, len(txs))
	for i, tx := range txs {
		out[i] = WalletTransaction{TransactionID: tx.TransactionID, Kind: tx.Kind, Amount: tx.Amount, Currency: tx.Currency,
			Attempts: make([]WalletAttempt, len(tx.Attempts))}
		if tx.ConfirmedAt != nil {
			at := tx.ConfirmedAt.UTC()
			out[i].ConfirmedAt = &at
		}
		for j, a := range tx.Attempts {
			out[i].Attempts[j] = WalletAttempt{Attempt: j + 1, StartedAt: a.StartedAt.UTC(), DurationMS: a.Duration.Milliseconds(),
				Result: string(a.Result), Code: a.Code, HTTPStatus: a.HTTPStatus, Error: a.Error}
		}
	}
	return out
}

// walletTransactions answers a bet's transactions in its operator's
// wallet with every recorded attempt; an unknown bet is 404.
func (h *handler) walletTransactions(w http.ResponseWriter, r *http.Request) {
	txs, err := h.placement.WalletTransactions(r.Context(), r.PathValue("id"))
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	httpjson.Write(w, http.StatusOK, list[WalletTransaction]{Items: toWalletTransactions(txs)})
}
