// Package webhook signs, verifies and delivers webhooks per the Standard
// Webhooks specification: headers webhook-id, webhook-timestamp and
// webhook-signature ("v1,<base64 HMAC-SHA256 of id.timestamp.body>"), with
// secrets written "whsec_<base64>".
//
// The Sender refuses to connect to loopback, private, link-local and other
// non-public addresses, checked on the resolved address at connect time so
// that DNS rebinding cannot get around it, and never follows redirects.
package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/foresight-dev/foresight/internal/netguard"
	"github.com/foresight-dev/foresight/internal/tickets"
)

// Standard Webhooks header names.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// Tolerance is how far a timestamp may be from now for Verify.
const Tolerance = 5 * time.Minute

const secretPrefix = "whsec_"

func secretKey(secret string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, secretPrefix))
	if err != nil {
		return nil, fmt.Errorf("webhook secret is not base64: %w", err)
	}
	return key, nil
}

// Sign returns the webhook-signature value of a message.
func Sign(secret, id string, ts time.Time, body []byte) (string, error) {
	key, err := secretKey(secret)
	if err != nil {
		return "", err
	}
	return "v1," + base64.StdEncoding.EncodeToString(mac(key, id, ts.Unix(), body)), nil
}

func mac(key []byte, id string, unix int64, body []byte) []byte {
	h := hmac.New(sha256.New, key)
	fmt.Fprintf(h, "%s.%d.", id, unix)
	h.Write(body)
	return h.Sum(nil)
}

// Verify checks the Standard Webhooks headers of a received message against
// secret: one v1 signature must match and the timestamp must be within
// Tolerance of now.
func Verify(secret string, header http.Header, body []byte, now time.Time) error {
	key, err := secretKey(secret)
	if err != nil {
		return err
	}
	id, tsRaw := header.Get(HeaderID), header.Get(HeaderTimestamp)
	if id == "" || tsRaw == "" {
		return errors.New("missing webhook-id or webhook-timestamp")
	}
	unix, err := strconv.ParseInt(tsRaw, 10, 64)
	if err != nil {
		return errors.New("webhook-timestamp is not a number")
	}
	if d := now.Sub(time.Unix(unix, 0)); d > Tolerance || d < -Tolerance {
		return errors.New("webhook-timestamp is outside the tolerance")
	}
	want := mac(key, id, unix, body)
	for sig := range strings.FieldsSeq(header.Get(HeaderSignature)) {
		v, enc, ok := strings.Cut(sig, ",")
		if !ok || v != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(enc)
		if err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return errors.New("no matching v1 signature")
}

// Sender delivers webhooks over HTTPS. It implements tickets.CallbackSender.
type Sender struct {
	client *http.Client
	now    func() time.Time
}

// SenderOptions configure a Sender.
type SenderOptions struct {
	// Timeout bounds one delivery attempt; default 15 s.
	Timeout time.Duration
	// AllowInsecure permits http:// and non-public addresses, for local
	// development and tests only.
	AllowInsecure bool
	// Transport, when set, replaces the default transport (tests use it to
	// trust a test certificate). Nil means netguard.Transport: no proxy,
	// and the address guard unless AllowInsecure.
	Transport *http.Transport
}

// NewSender returns a Sender.
func NewSender(opts SenderOptions) *Sender {
	if opts.Timeout == 0 {
		opts.Timeout = 15 * time.Second
	}
	tr := opts.Transport
	if tr == nil {
		tr = netguard.Transport(10*time.Second, opts.AllowInsecure)
	}
	return &Sender{
		client: &http.Client{
			Transport:     tr,
			Timeout:       opts.Timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		now: time.Now,
	}
}

// ErrForbiddenAddress is returned for a destination that resolves to a
// non-public address.
var ErrForbiddenAddress = netguard.ErrForbiddenAddress

// Send posts body to url with Standard Webhooks headers signed with secret.
// Any answer but 2xx is a *tickets.CallbackError whose Reason names the
// failure without addresses or internal detail; 410 Gone, a forbidden
// address and a bad secret are permanent. Its Err shows the URL only as
// netguard.RedactURL does: the path and query may hold the receiver's
// token.
func (s *Sender) Send(ctx context.Context, url, secret, messageID string, body []byte) error {
	ts := s.now()
	sig, err := Sign(secret, messageID, ts, body)
	if err != nil {
		return &tickets.CallbackError{Reason: "the signing secret is unusable", Permanent: true, Err: err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return &tickets.CallbackError{Reason: "the callback URL is unusable", Permanent: true, Err: netguard.RedactErrorURL(err)}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Foresight-Webhooks/1")
	req.Header.Set(HeaderID, messageID)
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
	req.Header.Set(HeaderSignature, sig)
	resp, err := s.client.Do(req)
	if err != nil {
		// The error names the URL, which may carry the receiver's token;
		// it is logged and kept with the job's attempts.
		return transportError(netguard.RedactErrorURL(err))
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return nil
	case resp.StatusCode == http.StatusGone:
		return &tickets.CallbackError{Reason: "the receiver answered 410 Gone", Permanent: true}
	default:
		return &tickets.CallbackError{Reason: fmt.Sprintf("the receiver answered %d", resp.StatusCode)}
	}
}

// transportError classifies a failed round trip.
func transportError(err error) *tickets.CallbackError {
	var netErr net.Error
	var certErr *tls.CertificateVerificationError
	switch {
	case errors.Is(err, ErrForbiddenAddress):
		return &tickets.CallbackError{Reason: "the callback host resolves to a non-public address", Permanent: true, Err: err}
	case errors.As(err, &certErr):
		return &tickets.CallbackError{Reason: "the receiver's TLS certificate was not accepted", Err: err}
	case errors.As(err, &netErr) && netErr.Timeout():
		return &tickets.CallbackError{Reason: "the receiver did not answer in time", Err: err}
	default:
		return &tickets.CallbackError{Reason: "the connection to the receiver failed", Err: err}
	}
}
