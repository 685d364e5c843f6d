package aggregator

import (
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/money"
)

// TestRoundState walks every transition of the round table
// (aggregator-api.md, "States and transitions"): before the aggregator's
// 200 to a call is recorded the round reads as before the call, after it
// in its new state.
func TestRoundState(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	win, zero := money.MustParse("44.214"), money.MustParse("0")
	code := func(c betting.RejectionCode) *betting.RejectionCode { return &c }
	bet := func(status betting.BetStatus, change func(*betting.Bet)) betting.Bet {
		b := betting.Bet{Status: status, Stake: money.MustParse("10")}
		if change != nil {
			change(&b)
		}
		return b
	}
	settled := func(payout money.Amount, confirmed bool) func(*betting.Bet) {
		return func(b *betting.Bet) {
			b.PayoutAmount, b.SettledAt = &payout, &at
			if confirmed {
				b.DepositConfirmedAt = &at
			}
		}
	}
	// rejected: owed says whether placement queued a Round/Rollback.
	rejected := func(c *betting.RejectionCode, owed, rollbackConfirmed bool) func(*betting.Bet) {
		return func(b *betting.Bet) {
			b.RejectionCode, b.RollbackOwed = c, owed
			if rollbackConfirmed {
				b.RollbackConfirmedAt = &at
			}
		}
	}
	sent := walletCalls{}
	answered := walletCalls{stakeAnswered: true}
	cases := []struct {
		name  string
		bet   betting.Bet
		calls walletCalls
		want  string
	}{
		// (none) → pending: Round/BetWin bet.
		{"stake's BetWin not answered yet", bet(betting.BetPending, nil), walletCalls{}, ""},
		{"stake's BetWin being resent", bet(betting.BetPending, nil), sent, ""},
		{"stake's BetWin answered 200", bet(betting.BetConfirmed, nil), answered, RoundPending},
		// pending → won: Round/BetWin win.
		{"win's BetWin not answered yet", bet(betting.BetSettled, settled(win, false)), answered, RoundPending},
		{"win's BetWin answered 200", bet(betting.BetSettled, settled(win, true)), answered, RoundWon},
		// pending → lost: Round/Finish.
		{"Round/Finish not answered yet", bet(betting.BetSettled, settled(zero, false)), answered, RoundPending},
		{"Round/Finish answered 200", bet(betting.BetSettled, settled(zero, true)), answered, RoundLost},
		// pending → voided: a win of the stake.
		{"void's BetWin not answered yet", bet(betting.BetVoided, settled(money.MustParse("10"), false)), answered, RoundPending},
		{"void's BetWin answered 200", bet(betting.BetVoided, settled(money.MustParse("10"), true)), answered, RoundVoided},
		// any → rejected: Round/Rollback. The earlier state is pending when
		// the stake's BetWin was answered 200, no round otherwise.
		{"debit stood, market closed, Rollback not answered yet", bet(betting.BetRejected, rejected(code(betting.RejectWalletRolledBack), true, false)), answered, RoundPending},
		{"debit stood, market closed, Rollback answered 200", bet(betting.BetRejected, rejected(code(betting.RejectWalletRolledBack), true, true)), answered, RoundRejected},
		{"200 without round_id, Rollback not answered yet", bet(betting.BetRejected, rejected(code(betting.RejectWalletRolledBack), true, false)), sent, ""},
		{"200 without round_id, Rollback answered 200", bet(betting.BetRejected, rejected(code(betting.RejectWalletRolledBack), true, true)), sent, RoundRejected},
		{"no definite answer, Rollback not answered yet", bet(betting.BetRejected, rejected(code(betting.RejectWalletUnavailable), true, false)), sent, ""},
		{"no definite answer, Rollback answered 200", bet(betting.BetRejected, rejected(code(betting.RejectWalletUnavailable), true, true)), sent, RoundRejected},
		{"final other code, Rollback not answered yet", bet(betting.BetRejected, rejected(code(betting.RejectOther), true, false)), sent, ""},
		{"final other code, Rollback answered 200", bet(betting.BetRejected, rejected(code(betting.RejectOther), true, true)), sent, RoundRejected},
		{"placement gave up, Rollback not answered yet", bet(betting.BetRejected, rejected(nil, true, false)), walletCalls{}, ""},
		{"placement gave up, Rollback answered 200", bet(betting.BetRejected, rejected(nil, true, true)), walletCalls{}, RoundRejected},
		// A refusal after an attempt with no definite answer: placement
		// rolls the stake back in case it was debited.
		{"insufficient funds after an unanswered attempt, Rollback not answered yet", bet(betting.BetRejected, rejected(code(betting.RejectInsufficientFund), true, false)),
			sent, ""},
		{"insufficient funds after an unanswered attempt, Rollback answered 200", bet(betting.BetRejected, rejected(code(betting.RejectInsufficientFund), true, true)),
			sent, RoundRejected},
		{"refusal on a rerun, its Rollback sent, not answered yet", bet(betting.BetRejected, rejected(code(betting.RejectBettorBlocked), true, false)),
			sent, ""},
		// Rejections with no Round/Rollback: rejected at once.
		{"insufficient funds", bet(betting.BetRejected, rejected(code(betting.RejectInsufficientFund), false, false)), sent, RoundRejected},
		{"bet limit in the aggregator's system", bet(betting.BetRejected, rejected(code(betting.RejectBetLimitReached), false, false)), sent, RoundRejected},
		{"player disabled", bet(betting.BetRejected, rejected(code(betting.RejectBettorBlocked), false, false)), sent, RoundRejected},
		{"check before the debit", bet(betting.BetRejected, rejected(code(betting.RejectValidationFailed), false, false)), walletCalls{}, RoundRejected},
		{"limit before the debit", bet(betting.BetRejected, rejected(code(betting.RejectBetLimitReached), false, false)), walletCalls{}, RoundRejected},
		{"wallet that cannot be called", bet(betting.BetRejected, rejected(code(betting.RejectOther), false, false)), walletCalls{}, RoundRejected},
	}
	for _, c := range cases {
		if got := roundState(c.bet, c.calls); got != c.want {
			t.Errorf("%s: state %q, want %q", c.name, got, c.want)
		}
	}
}

// TestWalletCallsOf reads the stake's Round/BetWin from the recorded
// attempts: only a done withdrawal attempt opened the round.
func TestWalletCallsOf(t *testing.T) {
	t.Parallel()
	attempt := func(kind string, result betting.AttemptResult) betting.WalletAttempt {
		return betting.WalletAttempt{Kind: kind, Result: result}
	}
	cases := []struct {
		name     string
		attempts []betting.WalletAttempt
		want     walletCalls
	}{
		{"none", nil, walletCalls{}},
		{"unanswered", []betting.WalletAttempt{attempt(betting.TxWithdrawal, betting.AttemptUnknown)}, walletCalls{}},
		{"refused", []betting.WalletAttempt{attempt(betting.TxWithdrawal, betting.AttemptRefused)}, walletCalls{}},
		{"answered on the second attempt", []betting.WalletAttempt{attempt(betting.TxWithdrawal, betting.AttemptUnknown),
			attempt(betting.TxWithdrawal, betting.AttemptDone)}, walletCalls{stakeAnswered: true}},
		{"only the rollback answered", []betting.WalletAttempt{attempt(betting.TxRollback, betting.AttemptDone)}, walletCalls{}},
	}
	for _, c := range cases {
		if got := walletCallsOf(c.attempts); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}
