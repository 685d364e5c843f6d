package betting_test

import (
	"bytes"
	"context"
	"database/sql"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/jobqueue"
	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/sqlite"
)

// rollbacksQueued counts the rollback jobs queued in the SQLite database
// at path.
func rollbacksQueued(t *testing.T, path string) int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM river_job WHERE kind = ?`, jobqueue.BetRollbackArgs{}.Kind()).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func refused(code betting.RejectionCode, attempts ...betting.WalletAttempt) *betting.WalletAnswer {
	return &betting.WalletAnswer{Status: betting.WalletRefused, Code: code, Attempts: attempts}
}

// TestRefusalAfterAnUnknownOutcomeIsRolledBack: a refusal rejects the bet
// with its code; when an earlier attempt of the same withdrawal got no
// definite answer (in this run, or an earlier run that was cut short, as
// after a crash), the rejection also queues a rollback, in the same
// transaction: the earlier attempt may have debited.
func TestRefusalAfterAnUnknownOutcomeIsRolledBack(t *testing.T) {
	t.Parallel()
	attempt := func(result betting.AttemptResult, failure string, status int) betting.WalletAttempt {
		return betting.WalletAttempt{Kind: betting.TxWithdrawal, Result: result, Error: failure, HTTPStatus: status, Amount: money.MustParse("10")}
	}
	refusal := attempt(betting.AttemptRefused, "", 409)
	cases := []struct {
		name     string
		answers  []*betting.WalletAnswer
		rollback bool
	}{
		{"refused at once", []*betting.WalletAnswer{refused(betting.RejectInsufficientFund, refusal)}, false},
		{"refused after a time-out", []*betting.WalletAnswer{refused(betting.RejectInsufficientFund,
			attempt(betting.AttemptUnknown, betting.FailureTimeout, 0), refusal)}, true},
		{"refused after a reset", []*betting.WalletAnswer{refused(betting.RejectBettorBlocked,
			attempt(betting.AttemptUnknown, betting.FailureConnectionReset, 0), refusal)}, true},
		{"refused after a 5xx", []*betting.WalletAnswer{refused(betting.RejectBetLimitReached,
			attempt(betting.AttemptUnknown, "", 502), refusal)}, true},
		{"refused after a malformed 2xx", []*betting.WalletAnswer{refused(betting.RejectInsufficientFund,
			attempt(betting.AttemptUnknown, betting.FailureUnreadableAnswer, 200), refusal)}, true},
		{"refused after a connection refused (nothing sent)", []*betting.WalletAnswer{refused(betting.RejectInsufficientFund,
			attempt(betting.AttemptUnknown, betting.FailureConnectionRefused, 0), refusal)}, false},
		// The first run is cut short after the withdrawal was sent (a
		// crash or a stop: its attempts may never be recorded); the next
		// run's refusal cannot tell whether that one debited.
		{"refused after an earlier run", []*betting.WalletAnswer{nil, refused(betting.RejectInsufficientFund, refusal)}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "p.db")
			db, err := sqlite.Open(context.Background(), path, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			w := newPlacementWorldOn(t, db, c.answers...)
			b := w.bet(t)
			for range len(c.answers) {
				ctx, cancel := context.WithCancel(context.Background())
				w.wallet.stop = cancel
				w.place.Process(ctx, b.ID, false)
				cancel()
			}
			got, _ := w.bets.GetBet(context.Background(), "", "", b.ID)
			want := c.answers[len(c.answers)-1].Code
			if got.Status != betting.BetRejected || got.RejectionCode == nil || *got.RejectionCode != want {
				t.Fatalf("bet = %s %v, want rejected %s", got.Status, got.RejectionCode, want)
			}
			if n := rollbacksQueued(t, path); (n == 1) != c.rollback {
				t.Errorf("%d rollbacks queued, want a rollback: %v", n, c.rollback)
			}
		})
	}
}

// malformedRollbackWallet answers every rollback with a 200 whose body is
// not the protocol's answer.
type malformedRollbackWallet struct{ attemptingWallet }

func (w *malformedRollbackWallet) Rollback(_ context.Context, _ betting.Operator, b betting.Bet) (betting.WalletCredit, error) {
	return betting.WalletCredit{Attempts: []betting.WalletAttempt{
		w.attempt(b, betting.TxRollback, "rb-", b.Stake, betting.AttemptUnknown, 200, betting.FailureUnreadableAnswer)}}, nil
}

// TestMalformedSuccessIsLoggedAndObserved: a 2xx that is not the
// protocol's answer leaves the credit unconfirmed (the caller retries), is
// logged at ERROR with the bet's ids and handed to the observer.
func TestMalformedSuccessIsLoggedAndObserved(t *testing.T) {
	t.Parallel()
	w := newPlacementWorld(t, refused(betting.RejectOther))
	b := w.bet(t)
	if err := w.place.Process(context.Background(), b.ID, false); err != nil {
		t.Fatal(err)
	}
	p := betting.NewPlacement(w.svc, w.bets, &malformedRollbackWallet{})
	var logs bytes.Buffer
	p.SetLog(slog.New(slog.NewTextHandler(&logs, nil)))
	var observed []betting.WalletAttempt
	p.ObserveWalletAttempts(func(a betting.WalletAttempt) { observed = append(observed, a) })
	if err := p.Rollback(context.Background(), b.ID); err == nil {
		t.Fatal("a malformed 2xx confirmed the rollback")
	}
	if got, _ := w.bets.GetBet(context.Background(), "", "", b.ID); got.RollbackConfirmedAt != nil {
		t.Error("the rollback is recorded as confirmed")
	}
	if len(observed) != 1 || !observed[0].MalformedSuccess() {
		t.Errorf("observed %+v, want the malformed 200", observed)
	}
	line := logs.String()
	if !strings.Contains(line, "level=ERROR") || !strings.Contains(line, "bet_id="+b.ID) || !strings.Contains(line, "transaction_id=rb-"+b.ID) ||
		!strings.Contains(line, "http_status=200") || strings.Contains(line, w.op.SigningSecret) {
		t.Errorf("log %q, want an ERROR with the bet and transaction ids and no secret", line)
	}
}

// TestWalletDiagnosticIsLogged: the diagnostic of a withdrawal without a
// definite answer, or refused without one of the protocol's codes, is
// logged with the bet (the bundled wallet's storage error has no wallet
// attempt to show it); an ordinary refusal is not.
func TestWalletDiagnosticIsLogged(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		answer *betting.WalletAnswer
		logged bool
	}{
		{"unknown", &betting.WalletAnswer{Status: betting.WalletUnknown, Detail: "the ledger could not be written: disk I/O error"}, true},
		{"refused, other", &betting.WalletAnswer{Status: betting.WalletRefused, Code: betting.RejectOther, Detail: "answered 400 code=weird"}, true},
		{"refused, insufficient funds", &betting.WalletAnswer{Status: betting.WalletRefused, Code: betting.RejectInsufficientFund, Detail: "answered 402"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			w := newPlacementWorld(t, c.answer)
			var logs bytes.Buffer
			w.place.SetLog(slog.New(slog.NewTextHandler(&logs, nil)))
			b := w.bet(t)
			if err := w.place.Process(context.Background(), b.ID, false); err != nil {
				t.Fatal(err)
			}
			line := logs.String()
			if got := strings.Contains(line, c.answer.Detail) && strings.Contains(line, "bet_id="+b.ID); got != c.logged {
				t.Errorf("log %q: detail logged with the bet %v, want %v", line, got, c.logged)
			}
		})
	}
}
