// Package bettorauth validates the session JWTs that standalone operators
// mint for their bettors (bettor-and-operator-api.md, "Authentication" and
// "Session JWT claims"): RS256 only, signed with a key from the operator's
// own JWKS endpoint, issued by that operator, not expired.
//
// Beyond what github.com/golang-jwt/jwt/v5 checks, the raw header and
// payload are read once more: a duplicated member (two alg, two exp), a
// crit header, a time claim that is not a JSON number, a missing iat and an
// aud that does not name the platform are refused, since another parser
// could read such a token differently or it was meant for someone else.
//
// A Validator keeps one key set per operator, fetched lazily on the first
// token of the operator and refreshed in the background (hourly, and when
// a token names a key id the set does not hold, so an operator can rotate
// keys without telling the platform: each kid at most once per 5 minutes,
// at most one such fetch per operator every 15 seconds, so that made-up
// kids cannot use up the fetch a real new kid needs). One operator's keys
// never validate another operator's tokens.
package bettorauth

import (
	"bytes"
	"context"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"

	"github.com/foresight-dev/foresight/internal/netguard"
)

// Rules of a valid token.
const (
	// MaxTokenLength is the longest token Validate reads (8 KiB); a longer
	// one is invalid without being parsed.
	MaxTokenLength = 8 << 10
	// Leeway is the clock skew allowed on exp, nbf and iat.
	Leeway = 30 * time.Second
	// MinRSABits is the smallest RSA modulus accepted for a signing key.
	MinRSABits = 2048
	// DefaultRefreshUnknownKIDRateLimit is how often at most one unknown
	// key id makes a Validator fetch an operator's JWKS again.
	DefaultRefreshUnknownKIDRateLimit = 5 * time.Minute
	// DefaultUnknownKIDRefreshSpacing is the least time between two
	// fetches of an operator's JWKS caused by unknown key ids, whichever
	// they are.
	DefaultUnknownKIDRefreshSpacing = 15 * time.Second
	// unknownKIDWaitMax is how long at most a token with an unknown key id
	// waits for the next fetch of its operator's JWKS to begin; when it
	// begins later, the token is refused at once.
	unknownKIDWaitMax = 10 * time.Second
	// RefreshInterval is how often an operator's JWKS is fetched in the
	// background.
	RefreshInterval = time.Hour
	// jwksTimeout bounds one JWKS fetch.
	jwksTimeout = 10 * time.Second
	// maxJWKSBody bounds a JWKS document.
	maxJWKSBody = 1 << 20
)

// ErrInvalidToken is wrapped by every error of Validate about the token: it
// is malformed, too long, not RS256, has no kid, is signed by a key the
// operator does not publish (or could not be checked because the JWKS was
// unreachable), was issued by someone else or for another audience, has
// expired or has no exp or no iat, lacks a subject or a currency, repeats
// a member of its header or payload, lists crit extensions, or has a time
// claim that is not a number. The HTTP layer answers 401 with no body;
// the wrapped detail is for logs only.
var ErrInvalidToken = errors.New("bettorauth: invalid token")

// Options configure a Validator.
type Options struct {
	// HTTPClient fetches the operators' JWKS documents. Nil means a client
	// of the package's own whose dialer refuses loopback, private and other
	// non-public addresses unless AllowInsecure. A given client is used with
	// its transport and dialer, except that redirects to http:// are
	// refused without AllowInsecure and bodies are capped at 1 MiB.
	HTTPClient *http.Client
	// RefreshUnknownKIDRateLimit is the least time between two JWKS
	// fetches of one operator caused by the same unknown key id; zero
	// means DefaultRefreshUnknownKIDRateLimit.
	RefreshUnknownKIDRateLimit time.Duration
	// UnknownKIDRefreshSpacing is the least time between two JWKS fetches
	// of one operator caused by unknown key ids, whichever they are; zero
	// means DefaultUnknownKIDRefreshSpacing. It is shortened to
	// RefreshUnknownKIDRateLimit when that is shorter.
	UnknownKIDRefreshSpacing time.Duration
	// AllowInsecure permits http:// JWKS URLs and non-public addresses
	// (local development and tests only).
	AllowInsecure bool
	// Logger receives JWKS refresh failures; nil means slog.Default().
	Logger *slog.Logger
	// Audience is the platform's own name in an aud claim (its public
	// URL): a token with an aud must list it. Empty refuses every token
	// that has an aud. A token without aud is accepted (the contract's
	// claims have none).
	Audience string
}

// Operator names whose token is being validated.
type Operator struct {
	// ID is the operator identifier; a token's iss must equal it.
	ID string
	// JWKSURL is the operator's public JWKS endpoint.
	JWKSURL string
	// Keys, when set, replaces the JWKS: it returns the public key named
	// by a token's kid. The platform's own keys (tokens it mints for
	// aggregator players) are read this way, without HTTP.
	Keys func(ctx context.Context, kid string) (*rsa.PublicKey, error)
}

// Claims are a valid token's claims.
type Claims struct {
	// BettorID is the sub claim: the bettor's id in the operator's system.
	BettorID string
	// Currency is the bettor's ISO 4217 currency code.
	Currency string
	// Issuer is the iss claim, equal to the operator's id.
	Issuer string
	// SessionID is the sid claim: the aggregator session of a token the
	// platform minted; empty in operators' tokens.
	SessionID string
	// Demo is the demo claim: a demo session, which places no real bet.
	Demo bool
	// IssuedAt is the iat claim; zero when the token has none.
	IssuedAt time.Time
	// ExpiresAt is the exp claim.
	ExpiresAt time.Time
}

// Validator validates bettors' tokens against their operators' JWKS. It is
// safe for concurrent use. Close it to stop the background refreshes.
type Validator struct {
	client        *http.Client
	perKID        time.Duration // Options.RefreshUnknownKIDRateLimit
	spacing       time.Duration // Options.UnknownKIDRefreshSpacing
	allowInsecure bool
	log           *slog.Logger
	audience      string

	ctx    context.Context // parent of every operator's key set
	cancel context.CancelFunc
	// loads are the key sets' loads under way (first loads, and the
	// fetches unknown kids cause), which Close waits for.
	loads sync.WaitGroup

	mu     sync.Mutex
	closed bool
	sets   map[string]*keySet // by operator id
}

// keySet is one operator's cached keys.
type keySet struct {
	url    string
	cancel context.CancelFunc
	ready  chan struct{} // closed when kf and err are set
	// kf reads the keys held, without fetching.
	kf  keyfunc.Keyfunc
	err error
	// unknown fetches the JWKS again for key ids kf does not hold.
	unknown *unknownKIDs
}

// New returns a Validator.
func New(opts Options) *Validator {
	v := &Validator{
		perKID:        opts.RefreshUnknownKIDRateLimit,
		spacing:       opts.UnknownKIDRefreshSpacing,
		allowInsecure: opts.AllowInsecure,
		log:           opts.Logger,
		audience:      strings.TrimRight(opts.Audience, "/"),
		sets:          map[string]*keySet{},
	}
	if v.perKID <= 0 {
		v.perKID = DefaultRefreshUnknownKIDRateLimit
	}
	if v.spacing <= 0 {
		v.spacing = DefaultUnknownKIDRefreshSpacing
	}
	v.spacing = min(v.spacing, v.perKID)
	if v.log == nil {
		v.log = slog.Default()
	}
	v.client = httpClient(opts.HTTPClient, opts.AllowInsecure)
	v.ctx, v.cancel = context.WithCancel(context.Background())
	return v
}

// Close stops every operator's background refresh and waits for the
// loads of key sets under way (first loads, and fetches for unknown key
// ids), which it cancels. Validate fails after Close.
func (v *Validator) Close() {
	v.mu.Lock()
	v.closed = true
	v.cancel()
	clear(v.sets)
	v.mu.Unlock()
	v.loads.Wait()
}

// startLoad runs load in a goroutine Close waits for, and reports false,
// running nothing, once the Validator is closed.
func (v *Validator) startLoad(load func()) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed {
		return false
	}
	v.loads.Go(load)
	return true
}

var currencyCode = regexp.MustCompile(`^[A-Z0-9]{3,7}$`)

// sessionClaims is the token payload.
type sessionClaims struct {
	Currency  string `json:"currency"`
	SessionID string `json:"sid,omitempty"`
	Demo      bool   `json:"demo,omitempty"`
	jwt.RegisteredClaims
}

// Validate checks token as a session JWT of op and returns its claims.
// Rules: at most MaxTokenLength bytes; each segment canonical base64url
// (no padding, the unused low bits of its last character zero); alg
// RS256 only; a kid in the header naming an RSA key of at least MinRSABits
// in op's JWKS; no crit header (no extension is understood: RFC 7515
// §4.1.11); no member of the header or the payload twice, nor a
// registered claim's name in another case; iss equal to op.ID; exp and
// iat present, exp not passed, nbf and iat not in the future (each with
// Leeway), all three JSON numbers; aud, when present, listing
// Options.Audience; sub non-empty; currency 3 to 7 upper-case letters or
// digits. With op.Keys the key comes from it instead of a JWKS.
//
// Every failure about the token wraps ErrInvalidToken (also an unknown kid
// when the operator's JWKS cannot be fetched, and ctx ending while the keys
// are fetched). An error that does not wrap it is the platform's: op has
// no id, its JWKS URL is unusable (not https without AllowInsecure), or the
// Validator is closed.
func (v *Validator) Validate(ctx context.Context, op Operator, token string) (Claims, error) {
	if token == "" {
		return Claims{}, fmt.Errorf("%w: empty", ErrInvalidToken)
	}
	if len(token) > MaxTokenLength {
		return Claims{}, fmt.Errorf("%w: longer than %d bytes", ErrInvalidToken, MaxTokenLength)
	}
	payload, err := checkRaw(token)
	if err != nil {
		return Claims{}, fmt.Errorf("%w: %w", ErrInvalidToken, err)
	}
	var ks *keySet
	if op.Keys == nil {
		var err error
		if ks, err = v.keySet(ctx, op); err != nil {
			return Claims{}, err
		}
	}
	var c sessionClaims
	parser := jwt.NewParser(
		jwt.WithValidMethods([]string{jwt.SigningMethodRS256.Alg()}),
		jwt.WithIssuer(op.ID),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithLeeway(Leeway),
		// One token, one spelling: a lenient decoder ignores the unused
		// low bits of a segment's last character, and the signature
		// (which signs only the other two segments) could be spelled 16
		// ways, each counted as another token.
		jwt.WithStrictDecoding(),
	)
	_, err = parser.ParseWithClaims(token, &c, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		if kid == "" {
			// keyfunc would try every key of the set.
			return nil, errors.New("no kid in the header")
		}
		if op.Keys != nil {
			return checkKey(op.Keys(ctx, kid))
		}
		return checkKey(ks.key(ctx, t, kid))
	})
	if err != nil {
		return Claims{}, fmt.Errorf("%w: %w", ErrInvalidToken, err)
	}
	_, hasAud := payload["aud"]
	switch {
	case c.IssuedAt == nil:
		return Claims{}, fmt.Errorf("%w: no iat", ErrInvalidToken)
	case hasAud && (v.audience == "" || !slices.Contains(c.Audience, v.audience)):
		return Claims{}, fmt.Errorf("%w: aud does not name the platform", ErrInvalidToken)
	case c.Subject == "":
		return Claims{}, fmt.Errorf("%w: no sub", ErrInvalidToken)
	case !currencyCode.MatchString(c.Currency):
		return Claims{}, fmt.Errorf("%w: currency must be 3 to 7 upper-case letters or digits", ErrInvalidToken)
	}
	return Claims{BettorID: c.Subject, Currency: c.Currency, SessionID: c.SessionID, Demo: c.Demo, Issuer: c.Issuer,
		IssuedAt: c.IssuedAt.Time, ExpiresAt: c.ExpiresAt.Time}, nil
}

// payloadNames are the payload members the platform reads. Claims are
// decoded into a struct, whose names encoding/json matches in any case, so
// "EXP" next to "exp" would be a second exp: a member whose name differs
// from one of these only in case is refused.
var payloadNames = []string{"iss", "sub", "aud", "exp", "nbf", "iat", "jti", "currency", "sid", "demo"}

// timeClaims must be JSON numbers (RFC 7519 NumericDate); the library also
// takes a string holding a number.
var timeClaims = []string{"exp", "nbf", "iat"}

// checkRaw reads the token's header and payload as the library does not:
// each a JSON object without a repeated member; no crit header; no payload
// member named like a claim in another case; time claims that are JSON
// numbers. It returns the payload's members.
func checkRaw(token string) (map[string]json.RawMessage, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, errors.New("not three segments")
	}
	header, err := members(parts[0])
	if err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	if _, ok := header["crit"]; ok {
		return nil, errors.New("crit header: no extension is understood")
	}
	payload, err := members(parts[1])
	if err != nil {
		return nil, fmt.Errorf("payload: %w", err)
	}
	for name := range payload {
		for _, known := range payloadNames {
			if name != known && strings.EqualFold(name, known) {
				return nil, fmt.Errorf("payload: %q is %s in another case", name, known)
			}
		}
	}
	for _, name := range timeClaims {
		if raw, ok := payload[name]; ok && !isNumber(raw) {
			return nil, fmt.Errorf("%s is not a number", name)
		}
	}
	return payload, nil
}

// members decodes a base64url segment holding a JSON object and returns
// its members; a member present twice is an error.
func members(segment string) (map[string]json.RawMessage, error) {
	raw, err := base64.RawURLEncoding.DecodeString(segment)
	if err != nil {
		return nil, errors.New("not base64url")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	out := map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, errors.New("not a JSON object")
		}
		name, _ := t.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, errors.New("not a JSON object")
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("%q is present twice", name)
		}
		out[name] = value
	}
	if _, err := dec.Token(); err != nil {
		return nil, errors.New("not a JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON object")
	}
	return out, nil
}

// isNumber says whether raw is a JSON number.
func isNumber(raw json.RawMessage) bool {
	return len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9')
}

// checkKey accepts the key a token's kid named when it is an RSA public
// key of at least MinRSABits.
func checkKey(key any, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	pub, ok := key.(*rsa.PublicKey)
	if !ok {
		return nil, fmt.Errorf("the key named by kid is a %T, not an RSA public key", key)
	}
	if pub.N.BitLen() < MinRSABits {
		return nil, fmt.Errorf("the key named by kid has %d bits, fewer than %d", pub.N.BitLen(), MinRSABits)
	}
	return pub, nil
}

// keySet returns op's key set, creating it on first use. A change of the
// operator's JWKS URL replaces its key set.
func (v *Validator) keySet(ctx context.Context, op Operator) (*keySet, error) {
	if op.ID == "" {
		return nil, errors.New("bettorauth: the operator has no id")
	}
	if err := v.checkURL(op.JWKSURL); err != nil {
		return nil, fmt.Errorf("bettorauth: operator %s: %w", op.ID, err)
	}
	v.mu.Lock()
	if v.closed {
		v.mu.Unlock()
		return nil, errors.New("bettorauth: the validator is closed")
	}
	ks := v.sets[op.ID]
	if ks != nil && ks.url != op.JWKSURL {
		ks.cancel()
		ks = nil
	}
	if ks == nil {
		ks = v.newKeySet(op)
		v.sets[op.ID] = ks
	}
	v.mu.Unlock()

	select {
	case <-ks.ready:
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: the operator's keys were not loaded in time: %w", ErrInvalidToken, context.Cause(ctx))
	}
	if ks.err != nil {
		v.mu.Lock()
		if v.sets[op.ID] == ks {
			delete(v.sets, op.ID)
		}
		v.mu.Unlock()
		ks.cancel()
		return nil, fmt.Errorf("bettorauth: operator %s: %w", op.ID, ks.err)
	}
	return ks, nil
}

// key returns the key that t's kid names. When the key set does not hold
// it, the token waits for the next fetch of the JWKS that ks.unknown
// allows, if any, and the key set is read once more.
func (ks *keySet) key(ctx context.Context, t *jwt.Token, kid string) (any, error) {
	key, err := ks.kf.KeyfuncCtx(ctx)(t)
	if !errors.Is(err, jwkset.ErrKeyNotFound) {
		return key, err
	}
	fetched := ks.unknown.await(kid)
	if fetched == nil {
		return nil, fmt.Errorf("%w (the operator's JWKS is not fetched again for it yet)", err)
	}
	select {
	case <-fetched:
	case <-ctx.Done():
		return nil, fmt.Errorf("%w (waiting for the operator's JWKS: %w)", err, context.Cause(ctx))
	}
	return ks.kf.KeyfuncCtx(ctx)(t)
}

// newKeySet starts loading op's keys in the background (the first fetch
// can take up to jwksTimeout; a caller whose context ends first stops
// waiting, the load goes on; Close cancels it and waits for it). Called
// with v.mu held, on a validator that is not closed.
func (v *Validator) newKeySet(op Operator) *keySet {
	ctx, cancel := context.WithCancel(v.ctx)
	ks := &keySet{url: op.JWKSURL, cancel: cancel, ready: make(chan struct{})}
	id, log := op.ID, v.log
	reportError := func(ctx context.Context, err error) {
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			return // the validator is closing
		}
		log.WarnContext(ctx, "bettorauth: fetching an operator's JWKS failed", "operator_id", id,
			"jwks_url", netguard.RedactURL(op.JWKSURL), "error", netguard.HideURL(err, op.JWKSURL))
	}
	v.loads.Go(func() {
		defer close(ks.ready)
		store, err := jwkset.NewStorageFromHTTP(op.JWKSURL, jwkset.HTTPClientStorageOptions{
			Client:                    v.client,
			Ctx:                       ctx,
			HTTPTimeout:               jwksTimeout,
			NoErrorReturnFirstHTTPReq: true, // reported; the next token's unknown kid fetches again
			RefreshErrorHandler:       reportError,
			RefreshInterval:           RefreshInterval,
		})
		if err != nil {
			ks.err = netguard.HideURL(err, op.JWKSURL) // it reaches logs; the URL may hold a token
			return
		}
		ks.kf, ks.err = keyfunc.New(keyfunc.Options{Ctx: ctx, Storage: store})
		ks.unknown = newUnknownKIDs(ctx, v.spacing, v.perKID, unknownKIDWaitMax, v.startLoad, func(ctx context.Context) {
			if err := fetchInto(ctx, store, op.JWKSURL, v.client); err != nil {
				reportError(ctx, err)
			}
		})
	})
	return ks
}

// fetchInto fetches the JWKS at jwksURL and replaces the keys of store
// with it; on failure store keeps its keys.
func fetchInto(ctx context.Context, store jwkset.Storage, jwksURL string, client *http.Client) error {
	fetched, err := jwkset.NewStorageFromHTTP(jwksURL, jwkset.HTTPClientStorageOptions{Client: client, Ctx: ctx, HTTPTimeout: jwksTimeout})
	if err != nil {
		return err
	}
	keys, err := fetched.KeyReadAll(ctx)
	if err != nil {
		return err
	}
	return store.KeyReplaceAll(ctx, keys)
}

// checkURL accepts an absolute https URL, or http with AllowInsecure.
func (v *Validator) checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" || (u.Scheme != "https" && u.Scheme != "http") {
		return errors.New("the JWKS URL must be an absolute https URL")
	}
	if u.Scheme != "https" && !v.allowInsecure {
		return errors.New("the JWKS URL must use https")
	}
	if u.User != nil {
		return errors.New("the JWKS URL must not contain credentials")
	}
	return nil
}

// httpClient returns the client JWKS fetches use: a copy of given (or a
// guarded client of our own, on netguard.Transport) whose redirects stay on https and whose
// bodies are capped.
func httpClient(given *http.Client, allowInsecure bool) *http.Client {
	var c http.Client
	if given != nil {
		c = *given
	} else {
		c.Transport = netguard.Transport(jwksTimeout, allowInsecure)
	}
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = capBody{base}
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return errors.New("too many redirects")
		}
		if req.URL.Scheme != "https" && !allowInsecure {
			return errors.New("redirect to a non-https URL refused")
		}
		return nil
	}
	return &c
}

// capBody makes a response body fail after maxJWKSBody bytes.
type capBody struct{ base http.RoundTripper }

func (c capBody) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &limitedBody{rc: resp.Body, left: maxJWKSBody}
	return resp, nil
}

type limitedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, fmt.Errorf("JWKS document longer than %d bytes", maxJWKSBody)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }
