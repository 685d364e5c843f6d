package walletcall_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/walletcall"
	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/netguard"
)

// TestRetryCancellationRule: Retry sends while the outcome is unknown and
// the schedule allows, and returns the context's error whenever the
// context has ended without a definite answer, the last attempt included.
func TestRetryCancellationRule(t *testing.T) {
	t.Parallel()
	schedule := walletcall.Schedule{Attempts: 3, FirstBackoff: time.Millisecond, MaxBackoff: time.Millisecond}
	refused := errors.New("refused address")
	tests := []struct {
		name string
		// definiteAt is the attempt that gets a definite answer (0: none);
		// cancelAt the attempt during which the context ends (0: never);
		// failAt the attempt that cannot be made (0: none).
		definiteAt, cancelAt, failAt int
		cancelled                    bool // the context has ended before Retry
		calls                        int
		err                          error
	}{
		{name: "definite at once", definiteAt: 1, calls: 1},
		{name: "definite on the third", definiteAt: 3, calls: 3},
		{name: "never definite", calls: 3},
		{name: "ended before", cancelled: true, calls: 0, err: context.Canceled},
		{name: "ended during the first", cancelAt: 1, calls: 1, err: context.Canceled},
		{name: "ended during the last", cancelAt: 3, calls: 3, err: context.Canceled},
		{name: "definite while ending", cancelAt: 2, definiteAt: 2, calls: 2},
		{name: "cannot be made", failAt: 2, calls: 2, err: refused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancelled {
				cancel()
			}
			calls := 0
			err := schedule.Retry(ctx, func(n int) (bool, error) {
				calls++
				if n != calls {
					t.Errorf("attempt numbered %d, want %d", n, calls)
				}
				if n == tt.cancelAt {
					cancel()
				}
				if n == tt.failAt {
					return false, refused
				}
				return n == tt.definiteAt, nil
			})
			if calls != tt.calls || !errors.Is(err, tt.err) || (tt.err == nil && err != nil) {
				t.Errorf("Retry: %d calls, error %v; want %d calls, error %v", calls, err, tt.calls, tt.err)
			}
		})
	}
}

// TestAttemptRecord: how one answer is recorded as a bet's attempt.
func TestAttemptRecord(t *testing.T) {
	t.Parallel()
	b := betting.Bet{ID: "b1", Currency: "EUR"}
	tx := walletcall.Transaction{Bet: b, Kind: betting.TxDeposit, ID: "dp-b1", Amount: money.MustParse("2")}
	started := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		answer    walletcall.Answer
		result    betting.AttemptResult
		code      string
		malformed bool
		wantError string
	}{
		{"done", walletcall.Answer{Status: 200}, betting.AttemptDone, "", false, ""},
		{"refused", walletcall.Answer{Status: 409}, betting.AttemptRefused, "insufficient_funds", false, ""},
		{"5xx", walletcall.Answer{Status: 503}, betting.AttemptUnknown, "", false, ""},
		{"no answer", walletcall.Answer{Err: context.DeadlineExceeded}, betting.AttemptUnknown, "", false, betting.FailureTimeout},
		{"cancelled", walletcall.Answer{Err: context.Canceled}, betting.AttemptUnknown, "", false, betting.FailureCancelled},
		{"body cut short", walletcall.Answer{Status: 200, Err: io.ErrUnexpectedEOF}, betting.AttemptUnknown, "", false, betting.FailureUnreadableAnswer},
		{"not the protocol's", walletcall.Answer{Status: 200}, betting.AttemptUnknown, "", true, betting.FailureUnreadableAnswer},
	}
	for _, tt := range tests {
		tt.answer.Started, tt.answer.Took = started, time.Second
		got := tx.Attempt(tt.answer, tt.result, tt.code, tt.malformed)
		want := betting.WalletAttempt{BetID: "b1", Kind: betting.TxDeposit, TransactionID: "dp-b1", Amount: tx.Amount, Currency: "EUR",
			StartedAt: started, Duration: time.Second, Result: tt.result, Code: tt.code, HTTPStatus: tt.answer.Status, Error: tt.wantError}
		if got != want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, want)
		}
	}
}

// TestSend: one attempt reads at most MaxAnswer bytes, follows no
// redirect, and names no URL path in its transport errors.
func TestSend(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Test") != "yes" {
			http.Error(w, "no header", http.StatusBadRequest)
			return
		}
		switch r.URL.Path {
		case "/large":
			io.WriteString(w, strings.Repeat("x", walletcall.MaxAnswer+1))
		case "/moved":
			http.Redirect(w, r, "/large", http.StatusFound)
		default:
			io.WriteString(w, "{}")
		}
	}))
	defer srv.Close()
	c := walletcall.New(walletcall.Options{AllowInsecure: true})
	header := http.Header{"X-Test": {"yes"}}
	ctx := context.Background()
	if a := c.Send(ctx, http.MethodPost, srv.URL+"/ok", []byte(`{}`), header); a.Status != 200 || string(a.Body) != "{}" || !a.Readable() ||
		a.Started.IsZero() || a.Took <= 0 {
		t.Errorf("ok: %+v", a)
	}
	if a := c.Send(ctx, http.MethodPost, srv.URL+"/large", nil, header); !a.TooLarge || len(a.Body) != walletcall.MaxAnswer || a.Readable() {
		t.Errorf("large: status %d, %d bytes, too large %t", a.Status, len(a.Body), a.TooLarge)
	}
	if a := c.Send(ctx, http.MethodPost, srv.URL+"/moved", nil, header); a.Status != http.StatusFound {
		t.Errorf("redirect: status %d, want 302 (not followed)", a.Status)
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	a := c.Send(ctx, http.MethodPost, "http://"+addr+"/path-s3cret", nil, header)
	if a.Status != 0 || a.Err == nil || strings.Contains(a.Err.Error(), "s3cret") || !strings.Contains(a.Err.Error(), addr) {
		t.Errorf("no answer: %+v; want an error naming the host, not the path", a)
	}

	guarded := walletcall.New(walletcall.Options{})
	if a := guarded.Send(ctx, http.MethodPost, srv.URL+"/ok", nil, header); a.Status != 0 || !errors.Is(a.Err, netguard.ErrForbiddenAddress) {
		t.Errorf("loopback with the guarded client: %+v, want ErrForbiddenAddress", a)
	}
}
