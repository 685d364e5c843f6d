package casino

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/foresight-dev/foresight/internal/sandbox/faults"
	"github.com/foresight-dev/foresight/internal/sandbox/journal"
	"github.com/foresight-dev/foresight/internal/sandbox/malformed"
	"github.com/foresight-dev/foresight/internal/sandbox/wire"
)

// response is an answer computed before it is written (or dropped).
type response struct {
	status int
	body   []byte
}

// processFunc handles a request whose body has been read and
// authenticated. It is also what the journal replays, with x.Replay set.
type processFunc func(x *walletOp, body []byte) response

// walletOp is one operation applied to the state (journal.Op), with what
// shaped its answer.
type walletOp struct {
	journal.Op
	// omitRoundID is set when OmitRoundIDNext shaped a BetWin answer
	// (live), or when the record says it did (replay).
	omitRoundID bool
}

// Handler returns the casino's wallet API (see the package documentation).
// Paths are absolute (/v2/provider_agg.…); mount it under a prefix with
// http.StripPrefix.
func (c *Casino) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("POST "+PathBalance, c.endpoint(EndpointBalance, c.balance))
	mux.Handle("POST "+PathBetWin, c.endpoint(EndpointBetWin, c.betWin))
	mux.Handle("POST "+PathFinish, c.endpoint(EndpointFinish, c.finish))
	mux.Handle("POST "+PathRollback, c.endpoint(EndpointRollback, c.rollback))
	mux.HandleFunc("/", notFound)
	return mux
}

// notFound answers every other path, and other methods on the wallet
// paths.
func notFound(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case PathBalance, PathBetWin, PathFinish, PathRollback:
		w.Header().Set("Allow", http.MethodPost)
		writeResponse(w, response{status: http.StatusMethodNotAllowed, body: errorJSON("bad_route",
			r.Method+" is not allowed; wallet endpoints take POST", "400", "")})
	default:
		writeResponse(w, response{status: http.StatusNotFound, body: errorJSON("bad_route",
			"no wallet endpoint at "+r.URL.Path, "404", "")})
	}
}

// endpoint wraps a wallet endpoint with the body limit, authentication, the
// Content-Type check and fault injection.
func (c *Casino) endpoint(name string, process processFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				writeResponse(w, badRequest(fmt.Sprintf("the body exceeds %d bytes", MaxBodyBytes)))
				return
			}
			writeResponse(w, badRequest("the body could not be read"))
			return
		}
		if !c.verify(r.Header, body) {
			writeResponse(w, forbidden())
			return
		}
		if !wire.IsJSON(r.Header) {
			writeResponse(w, badRequest("Content-Type must be application/json"))
			return
		}
		who := peek(body)
		f := c.takeFault(name, who)
		switch {
		case f.Fail != 0:
			writeResponse(w, response{status: f.Fail, body: injectedFailureBody})
			return
		case f.Malformed != "":
			malformed.Write(w, f.Malformed)
			return
		case f.Reject != "":
			writeResponse(w, c.injectedRejection(f.Reject, who))
			return
		}
		if !c.Faults.Hold(w, r, f) {
			return
		}
		resp := process(&walletOp{}, body)
		if f.Drop {
			faults.DropConnection(w)
			return
		}
		writeResponse(w, resp)
	})
}

// unavailable is the answer of a request that could not be journalled
// (nothing changed) or that came after the journal failed for good: the
// retryable api_code 503.
func unavailable() response {
	return walletError("503", "the sandbox casino could not record the request in its journal; nothing changed", "")
}

// Sign returns the X-REQUEST-SIGN value of body: the lowercase hex
// HMAC-SHA256 of the exact bytes, keyed with secret (wire.Sign). It is the
// calling side's signature, exported for tests of the platform's client.
func Sign(secret, body []byte) string { return wire.Sign(secret, body) }

// verify checks X-REQUEST-SIGN: exactly one value, 64 lowercase hex
// digits, equal (in constant time) to the HMAC of body.
func (c *Casino) verify(h http.Header, body []byte) bool {
	values := h.Values(SignatureHeader)
	return len(values) == 1 && wire.SignatureMatches(values[0], c.Setup.Secret(), body)
}

func writeResponse(w http.ResponseWriter, resp response) { wire.Write(w, resp.status, resp.body) }

func okJSON(v any) response {
	return response{status: http.StatusOK, body: wire.MustJSON(v)}
}

// Wallet error body.
type errorBody struct {
	Code string    `json:"code"`
	Msg  string    `json:"msg"`
	Meta errorMeta `json:"meta"`
}

type errorMeta struct {
	APICode    string `json:"api_code"`
	APIMessage string `json:"api_message"`
	Balance    string `json:"balance,omitempty"`
}

// apiMessages are the api_message texts of the api_codes (the aggregator's
// registry).
var apiMessages = map[string]string{
	"100": "Player has not enough funds to process an action",
	"101": "Player is invalid",
	"105": "Player reached customized bet limit",
	"106": "Bet exceeded max bet limit",
	"107": "Game is forbidden to the player",
	"110": "Player is disabled",
	"153": "Game is not available in Player's country",
	"154": "Currency is not allowed for the player",
	"155": "Forbidden to change already set field",
	"400": "Bad request",
	"403": "Forbidden",
	"404": "Not found",
	"405": "Game is not available to your casino",
	"409": "Action already rolled back",
	"500": "Unknown error",
	"501": "Provider not configured for casino",
	"502": "Unknown error in external service",
	"503": "Service is unavailable",
	"504": "Request timed out",
}

func apiMessage(apiCode string) string {
	if m, ok := apiMessages[apiCode]; ok {
		return m
	}
	return "Unknown error"
}

func errorJSON(code, msg, apiCode, balance string) []byte {
	return wire.MustJSON(errorBody{Code: code, Msg: msg, Meta: errorMeta{APICode: apiCode, APIMessage: apiMessage(apiCode), Balance: balance}})
}

// walletError is the answer carrying apiCode: 403 permission_denied for
// 403, 500 internal for 500 to 599, 400 invalid_argument for anything else
// (including non-numeric codes). balance is left out when empty.
func walletError(apiCode, msg, balance string) response {
	status, code := http.StatusBadRequest, "invalid_argument"
	if apiCode == "403" {
		status, code = http.StatusForbidden, "permission_denied"
	} else if n, err := strconv.Atoi(apiCode); err == nil && n >= 500 && n <= 599 {
		status, code = http.StatusInternalServerError, "internal"
	}
	return response{status: status, body: errorJSON(code, msg, apiCode, balance)}
}

func badRequest(msg string) response { return walletError("400", msg, "") }

func forbidden() response {
	return walletError("403", SignatureHeader+" is missing or does not match the body", "")
}

// injectedFailureBody is the body of FailNext answers: not a wallet error
// body (no code, no meta), as a proxy in front of a wallet would answer.
var injectedFailureBody = []byte(`{"error":"injected_failure"}` + "\n")

// who is the account a request names, and its transaction or round, read
// leniently for fault injection and injected rejections; empty when the
// body does not say.
type who struct {
	AccountID    string `json:"account_id"`
	Currency     string `json:"currency"`
	RoundID      string `json:"round_id"`
	Transactions []struct {
		IDProvider string `json:"id_provider"`
	} `json:"transactions"`
}

func peek(body []byte) who {
	var w who
	if err := json.Unmarshal(body, &w); err != nil {
		return who{}
	}
	return w
}
