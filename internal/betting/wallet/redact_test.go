package wallet_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/betting/wallet"
)

// TestTransportErrorsHideTheURL: a wallet URL may carry a token in its
// path; when no answer comes, neither the result's detail nor an
// attempt's error repeats it (both reach logs and the admin API).
func TestTransportErrorsHideTheURL(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens: every request fails to connect
	walletURL := "http://" + addr + "/path-s3cret"
	c := wallet.New(wallet.Options{AllowInsecure: true, Timeout: 2 * time.Second})
	res, err := c.Withdraw(context.Background(), operator(walletURL), testBet())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Attempts) == 0 {
		t.Fatalf("Withdraw = %+v, want attempts", res)
	}
	texts := []string{res.Detail}
	for _, a := range res.Attempts {
		if a.Error == "" {
			t.Fatalf("attempt %+v: want a transport error", a)
		}
		texts = append(texts, a.Error)
	}
	for _, text := range texts {
		if strings.Contains(text, "s3cret") {
			t.Errorf("the URL's token leaks: %q", text)
		}
	}
	if !strings.Contains(res.Detail, addr) {
		t.Errorf("the detail %q no longer says which host failed", res.Detail)
	}
}
