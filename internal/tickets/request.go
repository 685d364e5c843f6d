package tickets

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/foresight-dev/foresight/internal/netguard"
)

// submitBody is the JSON shape of tickets.input.v1, decoded after the body
// passed the input schema.
type submitBody struct {
	SchemaVersion  string `json:"schema_version"`
	IdempotencyKey string `json:"idempotency_key"`
	Title          string `json:"title"`
	Spec           string `json:"spec"`
	Options        *struct {
		// json.Number: the schema accepts 2.0 as an integer.
		TicketCount    *json.Number `json:"ticket_count"`
		MaxTicketCount *json.Number `json:"max_ticket_count"`
		IncludeEpics   *bool        `json:"include_epics"`
		DependencyMode *string      `json:"dependency_mode"`
		OutputDetail   *string      `json:"output_detail"`
	} `json:"options"`
	CallbackURL *string `json:"callback_url"`
}

// Submission is a validated submit request.
type Submission struct {
	IdempotencyKey string
	Request        Request
	// Hash fingerprints Request, to tell a retry from another request that
	// reuses the idempotency key.
	Hash string
}

// ParseSubmission validates a raw tickets.input.v1 body and applies the
// option defaults of docs/decisions.md ("Contract details").
//
// Errors (as *Error, code invalid_request): a body that is not UTF-8, that
// escapes a lone UTF-16 surrogate (\ud800), that is not JSON, that
// breaks the input schema (unknown properties at any level, wrong types,
// bounds, schema_version), a ticket_count above max_ticket_count, or a
// callback_url that is not HTTPS, has no valid host name, or points at
// localhost or a non-public address (see checkCallbackURL).
func ParseSubmission(raw []byte) (Submission, error) {
	if !utf8.Valid(raw) {
		return Submission{}, Errorf(CodeInvalidRequest, "The request body is not valid UTF-8.")
	}
	if loneSurrogateEscape(raw) {
		// encoding/json would silently read it as U+FFFD.
		return Submission{}, Errorf(CodeInvalidRequest, "The request body has a \\u escape of a lone UTF-16 surrogate (\\ud800 to \\udfff without its pair), which is no character.")
	}
	problems, err := validateJSON(inputSchema, raw, 5)
	if err != nil {
		return Submission{}, Errorf(CodeInvalidRequest, "The request body is not valid JSON.")
	}
	if len(problems) > 0 {
		return Submission{}, Errorf(CodeInvalidRequest, "The request does not match %s: %s.", InputSchemaVersion, strings.Join(problems, "; "))
	}
	var b submitBody
	if err := json.Unmarshal(raw, &b); err != nil {
		return Submission{}, Errorf(CodeInvalidRequest, "The request body is not valid JSON.")
	}
	for _, f := range []struct{ name, value string }{{"idempotency_key", b.IdempotencyKey}, {"title", b.Title}, {"spec", b.Spec}} {
		if strings.ContainsRune(f.value, 0) {
			return Submission{}, Errorf(CodeInvalidRequest, "%s must not contain the NUL character (\\u0000).", f.name)
		}
	}

	req := Request{
		Title: b.Title,
		Spec:  b.Spec,
		Options: Options{
			MaxTicketCount: DefaultMaxTicketCount,
			IncludeEpics:   true,
			DependencyMode: DependencyExplicit,
			OutputDetail:   DetailStandard,
		},
	}
	if o := b.Options; o != nil {
		if o.MaxTicketCount != nil {
			req.Options.MaxTicketCount = wholeNumber(*o.MaxTicketCount)
		}
		if o.TicketCount != nil {
			req.Options.TicketCount = wholeNumber(*o.TicketCount)
			if req.Options.TicketCount > req.Options.MaxTicketCount {
				return Submission{}, Errorf(CodeInvalidRequest,
					"options.ticket_count (%d) is above max_ticket_count (%d; the default is %d).",
					req.Options.TicketCount, req.Options.MaxTicketCount, DefaultMaxTicketCount)
			}
		}
		if o.IncludeEpics != nil {
			req.Options.IncludeEpics = *o.IncludeEpics
		}
		if o.DependencyMode != nil {
			req.Options.DependencyMode = *o.DependencyMode
		}
		if o.OutputDetail != nil {
			req.Options.OutputDetail = *o.OutputDetail
		}
	}
	if b.CallbackURL != nil {
		if err := checkCallbackURL(*b.CallbackURL); err != nil {
			return Submission{}, err
		}
		req.CallbackURL = *b.CallbackURL
	}
	return Submission{IdempotencyKey: b.IdempotencyKey, Request: req, Hash: req.fingerprint()}, nil
}

// loneSurrogateEscape reports whether the JSON text raw has a \u escape
// of a UTF-16 surrogate that is not half of a pair: a high one
// (\ud800-\udbff) not followed at once by a low one (\udc00-\udfff), or a
// low one on its own. A backslash appears only inside strings in JSON, so
// no string tracking is needed; an escaped backslash ("\\ud800") is skipped
// whole.
func loneSurrogateEscape(raw []byte) bool {
	surrogate := func(i int) (r rune, ok bool) { // the escape at raw[i:i+6]
		if i+6 > len(raw) || raw[i] != '\\' || raw[i+1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(string(raw[i+2:i+6]), 16, 16)
		if err != nil || !utf16.IsSurrogate(rune(v)) {
			return 0, false
		}
		return rune(v), true
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		r, ok := surrogate(i)
		if !ok {
			i++ // the escaped character, a backslash among them
			continue
		}
		if r >= 0xdc00 { // a low surrogate first
			return true
		}
		low, ok := surrogate(i + 6)
		if !ok || low < 0xdc00 {
			return true
		}
		i += 11
	}
	return false
}

// wholeNumber converts a JSON number the schema already checked is an
// integer between 1 and 50 (2 or 2.0).
func wholeNumber(n json.Number) int {
	f, _ := strconv.ParseFloat(string(n), 64)
	return int(f)
}

// fingerprint is a SHA-256 over the request with defaults applied, so that a
// retry that spells a default out matches one that leaves it implicit.
func (r Request) fingerprint() string {
	b, _ := json.Marshal(r) // a struct of strings, ints and bools always marshals
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// checkCallbackURL enforces the spec's callback rule: HTTPS only, no
// localhost. The host is read as a browser or Go's HTTP client reads it
// (IDNA mapping: "ｌｏｃａｌｈｏｓｔ" is localhost, "１２７.０.０.１" is 127.0.0.1),
// and literal loopback, private, link-local and other non-public addresses
// are refused, in any IPv6 form; host names are looked up by
// CheckCallbackHost and checked again when delivering.
func checkCallbackURL(raw string) error {
	if strings.ContainsRune(raw, 0) {
		return Errorf(CodeInvalidRequest, "callback_url must not contain the NUL character.")
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return Errorf(CodeInvalidRequest, "callback_url must be an absolute https:// URL.")
	}
	if u.Scheme != "https" {
		return Errorf(CodeInvalidRequest, "callback_url must use https.")
	}
	if u.User != nil {
		return Errorf(CodeInvalidRequest, "callback_url must not carry credentials.")
	}
	if strings.HasPrefix(u.Host, "[") { // an IPv6 literal
		if addr, err := netip.ParseAddr(u.Hostname()); err != nil || !netguard.PublicAddr(addr) {
			return errNonPublicCallback()
		}
		return nil
	}
	host, err := netguard.CanonicalHost(u.Hostname())
	if err != nil {
		return Errorf(CodeInvalidRequest, "callback_url must name a valid host: no empty label (as in \"localhost..\"), labels of letters, digits and hyphens.")
	}
	if netguard.LocalName(host) {
		return Errorf(CodeInvalidRequest, "callback_url must not point at localhost.")
	}
	addr, err := netip.ParseAddr(host)
	switch {
	case err == nil && !netguard.PublicAddr(addr):
		return errNonPublicCallback()
	case err != nil && numericHost(host):
		// 127.1, 0177.0.0.1, 2130706433, 0x7f.0.0.1: resolvers read these
		// as addresses; only the canonical dotted form is accepted.
		return Errorf(CodeInvalidRequest, "callback_url must name a host, or an IPv4 address in dotted-decimal form.")
	}
	return nil
}

func errNonPublicCallback() error {
	return Errorf(CodeInvalidRequest, "callback_url must not point at a loopback, private, link-local or other non-public address.")
}

// CheckCallbackHost looks up the host name of sub's callback_url with r,
// for at most netguard.LookupTimeout, and refuses it (invalid_request)
// when it resolves to a loopback, private or other non-public address. A
// name that does not resolve, or not in time, passes: delivery checks the
// address of every connection it makes.
func CheckCallbackHost(ctx context.Context, r netguard.Resolver, sub Submission) error {
	if sub.Request.CallbackURL == "" {
		return nil
	}
	u, err := url.Parse(sub.Request.CallbackURL)
	if err != nil || strings.HasPrefix(u.Host, "[") {
		return nil
	}
	host, err := netguard.CanonicalHost(u.Hostname())
	if err != nil {
		return nil
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return nil // an address, checked by ParseSubmission
	}
	if err := netguard.CheckResolved(ctx, r, host); err != nil {
		return Errorf(CodeInvalidRequest, "callback_url's host resolves to a loopback, private or other non-public address.")
	}
	return nil
}

// numericHost reports whether host's last label is a number (decimal,
// octal or hex), which no domain name has: such a host is an address in a
// non-canonical spelling.
func numericHost(host string) bool {
	last := host[strings.LastIndex(host, ".")+1:]
	if last == "" {
		return false
	}
	if h, ok := strings.CutPrefix(last, "0x"); ok {
		last = h
		return strings.Trim(last, "0123456789abcdef") == ""
	}
	return strings.Trim(last, "0123456789") == ""
}
