package bettingtest

import (
	"context"
	"testing"

	"github.com/foresight-dev/foresight/internal/betting"
)

// WalletAttempts makes the wallet call named call ("withdraw", "deposit" or
// "rollback") for b and returns the attempts it reports. An error from the
// call, or another name, fails t.
func WalletAttempts(t testing.TB, w betting.Wallet, call string, op betting.Operator, b betting.Bet) []betting.WalletAttempt {
	t.Helper()
	ctx := context.Background()
	var (
		attempts []betting.WalletAttempt
		err      error
	)
	switch call {
	case "withdraw":
		var ans betting.WalletAnswer
		ans, err = w.Withdraw(ctx, op, b)
		attempts = ans.Attempts
	case "deposit":
		var credit betting.WalletCredit
		credit, err = w.Deposit(ctx, op, b)
		attempts = credit.Attempts
	case "rollback":
		var credit betting.WalletCredit
		credit, err = w.Rollback(ctx, op, b)
		attempts = credit.Attempts
	default:
		t.Fatalf("no wallet call %q: withdraw, deposit or rollback", call)
	}
	if err != nil {
		t.Fatalf("%s of bet %s: %v", call, b.ID, err)
	}
	return attempts
}
