package wallet_test

import (
	"context"
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/aggregator/wallet"
	"github.com/foresight-dev/foresight/internal/betting"
)

// TestRefusedAddressHidesTheURL: a wallet URL may carry a token in its
// path; the error of a call refused for its address (it reaches logs)
// names the host, not the path.
func TestRefusedAddressHidesTheURL(t *testing.T) {
	t.Parallel()
	c := wallet.New(wallet.Options{}) // loopback is refused without AllowInsecure
	op := betting.Operator{ID: "agg", Integration: betting.IntegrationAggregator,
		WalletURL: "https://127.0.0.1:9/path-s3cret", SigningSecret: "0123456789abcdef"}
	_, err := c.Balance(context.Background(), op, "acc", "EUR", "sess")
	if err == nil {
		t.Fatal("Balance on a loopback wallet succeeded")
	}
	if strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "127.0.0.1") {
		t.Errorf("error %q: want the host without the path's token", err)
	}
}
