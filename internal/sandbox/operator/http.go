package operator

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/sandbox/faults"
	"github.com/foresight-dev/foresight/internal/sandbox/journal"
	"github.com/foresight-dev/foresight/internal/sandbox/malformed"
	"github.com/foresight-dev/foresight/internal/sandbox/wire"
)

// Endpoint names, for failure injection.
const (
	endpointWithdrawals = "withdrawals"
	endpointDeposits    = "deposits"
	endpointRollbacks   = "rollbacks"
	endpointSession     = "session"
)

// response is an answer computed before it is written (or dropped).
type response struct {
	status int
	body   []byte
}

// processFunc handles a request whose body has been read (and, for a
// signed endpoint, authenticated); pathID is the path's {id}, if any. It is
// also what the journal replays, with x.Replay set.
type processFunc func(x *journal.Op, pathID string, body []byte) response

// endpoint wraps a handler with failure injection, the body limit,
// authentication (signed endpoints) and the Content-Type check.
func (o *Operator) endpoint(name string, signed bool, process processFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if name == endpointSession {
			o.setCORS(w, r)
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				writeResponse(w, errorResponse(http.StatusRequestEntityTooLarge, "request_too_large",
					fmt.Sprintf("the body exceeds %d bytes", maxBodyBytes)))
				return
			}
			writeResponse(w, errorResponse(http.StatusBadRequest, "invalid_request", "the body could not be read"))
			return
		}
		fault := o.faultFor(name, body)
		if fault.Fail != 0 {
			writeResponse(w, response{status: fault.Fail, body: errorBody("injected_failure", "")})
			return
		}
		if fault.Malformed != "" {
			malformed.Write(w, fault.Malformed)
			return
		}
		if !o.Faults.Hold(w, r, fault) {
			return
		}
		resp := o.handle(r, body, signed, fault.Reject, process)
		if fault.Drop {
			faults.DropConnection(w)
			return
		}
		writeResponse(w, resp)
	})
}

func (o *Operator) handle(r *http.Request, body []byte, signed bool, reject string, process processFunc) response {
	if signed {
		if resp, ok := o.authenticate(r.Header, body); !ok {
			return resp
		}
	}
	if !wire.IsJSON(r.Header) {
		return errorResponse(http.StatusUnsupportedMediaType, "unsupported_media_type", "Content-Type must be application/json")
	}
	if reject != "" {
		return rejection(reject)
	}
	return process(&journal.Op{}, r.PathValue("id"), body)
}

// unavailable is the answer of a request that could not be journalled
// (nothing changed) or that came after the journal failed for good.
func unavailable() response {
	return errorResponse(http.StatusServiceUnavailable, "storage_unavailable",
		"the sandbox operator could not record the request in its journal; nothing changed")
}

func writeResponse(w http.ResponseWriter, resp response) { wire.Write(w, resp.status, resp.body) }

// errorBody is {"error": code} or, with a message, {"error": code,
// "message": message}.
func errorBody(code, message string) []byte {
	v := struct {
		Error   string `json:"error"`
		Message string `json:"message,omitempty"`
	}{code, message}
	return wire.MustJSON(v)
}

func errorResponse(status int, code, message string) response {
	return response{status: status, body: errorBody(code, message)}
}

func unauthorized(code, message string) (response, bool) {
	return errorResponse(http.StatusUnauthorized, code, message), false
}

// authenticate checks the signature headers of a wallet call and records
// its nonce. It changes nothing unless every check passes.
func (o *Operator) authenticate(h http.Header, body []byte) (response, bool) {
	sig, ts, nonce := h.Get("X-Payload-Signature"), h.Get("X-Timestamp"), h.Get("X-Nonce")
	for _, hv := range [][2]string{{"X-Payload-Signature", sig}, {"X-Timestamp", ts}, {"X-Nonce", nonce}} {
		if hv[1] == "" {
			return unauthorized("missing_header", hv[0]+" is required")
		}
	}
	if !wire.IsSignature(sig) {
		return unauthorized("invalid_signature", "X-Payload-Signature must be 64 lowercase hex digits")
	}
	if !wire.SignatureMatches(sig, o.Setup.Secret(), body) {
		return unauthorized("invalid_signature", "X-Payload-Signature does not match the body")
	}
	sent, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return unauthorized("invalid_timestamp", "X-Timestamp must be an ISO 8601 (RFC 3339) UTC time such as 2026-01-02T15:04:05Z")
	}
	if _, offset := sent.Zone(); offset != 0 {
		return unauthorized("invalid_timestamp", "X-Timestamp must be in UTC")
	}
	now := o.now()
	if age := now.Sub(sent); age > MaxClockSkew || age < -MaxClockSkew {
		return unauthorized("stale_timestamp", fmt.Sprintf("X-Timestamp is more than %v away from the operator's clock", MaxClockSkew))
	}
	id, err := uuid.Parse(nonce)
	if err != nil || len(nonce) != 36 || id.Version() != 4 || id.Variant() != uuid.RFC4122 {
		return unauthorized("invalid_nonce", "X-Nonce must be a UUID v4")
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.sweepNoncesLocked(now)
	if seen, ok := o.nonces[id]; ok && now.Sub(seen) < NonceRetention {
		return unauthorized("nonce_replayed", "X-Nonce was already used")
	}
	o.nonces[id] = now
	return response{}, true
}

// sweepNoncesLocked forgets nonces older than NonceRetention, at most once
// a minute.
func (o *Operator) sweepNoncesLocked(now time.Time) {
	if now.Sub(o.nonceSweep) < time.Minute && now.After(o.nonceSweep) {
		return
	}
	o.nonceSweep = now
	for id, seen := range o.nonces {
		if now.Sub(seen) >= NonceRetention {
			delete(o.nonces, id)
		}
	}
}

// amountString reads an amount field, which must be a JSON string.
func amountString(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", errors.New("amount is required")
	}
	if raw[0] != '"' {
		return "", errors.New("amount must be a JSON string holding a decimal such as \"10.50\", not a number or another JSON type")
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", errors.New("amount must be a JSON string")
	}
	return s, nil
}

func invalid(err error) response {
	return errorResponse(http.StatusBadRequest, "invalid_request", err.Error())
}
