package webhook_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/tickets"
	"github.com/foresight-dev/foresight/internal/webhook"
)

// The example of the Standard Webhooks specification.
func TestSignMatchesSpecExample(t *testing.T) {
	t.Parallel()
	got, err := webhook.Sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek",
		time.Unix(1614265330, 0), []byte(`{"test": 2432232314}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Errorf("Sign = %s, want %s", got, want)
	}
}

func TestVerify(t *testing.T) {
	t.Parallel()
	secret := tickets.NewWebhookSecret()
	now := time.Unix(1_800_000_000, 0)
	body := []byte(`{"a":1}`)
	sig, _ := webhook.Sign(secret, "msg_1", now, body)
	header := func(id string, ts time.Time, sig string) http.Header {
		h := http.Header{}
		h.Set(webhook.HeaderID, id)
		h.Set(webhook.HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
		h.Set(webhook.HeaderSignature, sig)
		return h
	}
	tests := []struct {
		name   string
		header http.Header
		body   []byte
		ok     bool
	}{
		{"valid", header("msg_1", now, sig), body, true},
		{"rotated secrets", header("msg_1", now, "v1,AAAA "+sig), body, true},
		{"tampered body", header("msg_1", now, sig), []byte(`{"a":2}`), false},
		{"other id", header("msg_2", now, sig), body, false},
		{"old timestamp", header("msg_1", now.Add(-10*time.Minute), sig), body, false},
		{"no signature", header("msg_1", now, ""), body, false},
	}
	for _, tt := range tests {
		err := webhook.Verify(secret, tt.header, tt.body, now)
		if (err == nil) != tt.ok {
			t.Errorf("%s: Verify = %v, want ok %v", tt.name, err, tt.ok)
		}
	}
}

func TestSenderDelivers(t *testing.T) {
	t.Parallel()
	secret := tickets.NewWebhookSecret()
	got := make(chan error, 1)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- webhook.Verify(secret, r.Header, body, time.Now())
	}))
	defer srv.Close()
	s := webhook.NewSender(webhook.SenderOptions{Transport: srv.Client().Transport.(*http.Transport)})
	if err := s.Send(context.Background(), srv.URL, secret, "msg_x", []byte(`{}`)); err != nil {
		t.Fatalf("Send: %v", err)
	}
	if err := <-got; err != nil {
		t.Errorf("receiver could not verify the signature: %v", err)
	}
}

func TestSenderFailures(t *testing.T) {
	t.Parallel()
	status := map[string]int{"/500": 500, "/410": 410, "/302": 302}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/302" {
			w.Header().Set("Location", "/ok")
		}
		w.WriteHeader(status[r.URL.Path])
	}))
	defer srv.Close()
	s := webhook.NewSender(webhook.SenderOptions{Transport: srv.Client().Transport.(*http.Transport)})
	secret := tickets.NewWebhookSecret()
	for _, tt := range []struct {
		path      string
		permanent bool
	}{{"/500", false}, {"/410", true}, {"/302", false}} {
		err := s.Send(context.Background(), srv.URL+tt.path, secret, "msg", []byte(`{}`))
		var ce *tickets.CallbackError
		if err == nil || !errors.As(err, &ce) || ce.Permanent != tt.permanent {
			t.Errorf("%s: Send = %v, want an error (permanent %v)", tt.path, err, tt.permanent)
		}
	}
}

func TestSenderRefusesLoopback(t *testing.T) {
	t.Parallel()
	hit := false
	srv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hit = true }))
	defer srv.Close()
	s := webhook.NewSender(webhook.SenderOptions{})
	err := s.Send(context.Background(), srv.URL, tickets.NewWebhookSecret(), "msg", []byte(`{}`))
	var ce *tickets.CallbackError
	if !errors.As(err, &ce) || !ce.Permanent || !errors.Is(err, webhook.ErrForbiddenAddress) || strings.Contains(ce.Reason, "127.0.0.1") {
		t.Fatalf("Send to loopback = %v, want a permanent forbidden-address error", err)
	}
	if hit {
		t.Error("the loopback server was reached")
	}
}

// TestSenderErrorsHideTheURL: the errors Send returns are logged and kept
// with the job; a token in the callback URL's path or query must not be in
// them.
func TestSenderErrorsHideTheURL(t *testing.T) {
	t.Parallel()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	guarded := webhook.NewSender(webhook.SenderOptions{})
	refusing := webhook.NewSender(webhook.SenderOptions{Transport: &http.Transport{
		DialContext: func(context.Context, string, string) (net.Conn, error) { return nil, errors.New("connection refused") },
	}})
	for _, tt := range []struct {
		name   string
		sender *webhook.Sender
		url    string
	}{
		{"forbidden address", guarded, srv.URL + "/hook/path-s3cret?token=query-s3cret"},
		{"connection refused", refusing, "https://hooks.example.com/hook/path-s3cret?token=query-s3cret"},
		{"unusable URL", guarded, "https://hooks.example.com/%zz/path-s3cret?token=query-s3cret"},
	} {
		err := tt.sender.Send(context.Background(), tt.url, tickets.NewWebhookSecret(), "msg", []byte(`{}`))
		if err == nil {
			t.Fatalf("%s: Send succeeded", tt.name)
		}
		if msg := err.Error(); strings.Contains(msg, "s3cret") {
			t.Errorf("%s: the error shows the URL's token: %s", tt.name, msg)
		}
	}
}
