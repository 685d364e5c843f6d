// Package sandboxweb is the web side the sandbox partners (the sandbox
// operator and the sandbox casino) share: the page layout and static files
// served under /sandbox/, the routes every partner's Site serves
// (SiteRoutes), the guard and the request and answer shapes of their
// control API, and serving a partner with a clean stop.
//
// # Control API conventions
//
// Every control endpoint is a POST (or the GET of the state) under
// /sandbox/api/. A request body is a JSON object of strings, numbers and
// booleans (Content-Type application/json) or an HTML form
// (application/x-www-form-urlencoded), with the same field names. A JSON
// request is answered with JSON: 200 {"ok": true, …} or an error
// {"error": code, "message": text} (400 invalid_request, 401 unauthorized,
// 403 forbidden, 503 storage_unavailable). A form is answered 303 See Other
// back to the page named by its "return" field (a path under /sandbox/),
// with the outcome in the notice or error query parameter, which the page
// shows.
//
// # Who may call it
//
// Guard decides. With an admin token, a request must carry it, as
// "Authorization: Bearer <token>" or in the cookie the login form
// (POST /sandbox/login) sets (HttpOnly, SameSite=Strict), from any address.
// Without a token, only loopback clients are served: the demo's default,
// where whoever can reach 127.0.0.1 owns the machine anyway. Either way a
// request whose Origin header names another host than the one it was sent
// to is refused, so a web page elsewhere cannot drive the API through a
// browser (cross-site request forgery).
package sandboxweb

import (
	"context"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/foresight-dev/foresight/internal/httpjson"
	"github.com/foresight-dev/foresight/internal/webpage"
)

// Prefix is the path under which a sandbox partner serves its pages, its
// static files and its control API; the wallet protocols never use it.
const Prefix = "/sandbox/"

// CookieName is the cookie that carries the admin token of a browser that
// logged in.
const CookieName = "sandbox_admin"

// maxControlBody bounds a control request body.
const maxControlBody = 64 << 10

//go:embed static layout
var files embed.FS

// Static serves the pages' style sheet and script, to be mounted at
// /sandbox/static/, through webpage.Handler: GET and HEAD only, explicit
// content types, an ETag per file and Cache-Control: no-cache, like the
// platform's own pages (the shared modules are there too, unused).
func Static() http.Handler {
	return webpage.Handler(webpage.Page{Root: Prefix + "static/", Files: files, Dir: "static"})
}

// Link is one entry of a page's navigation.
type Link struct {
	Href, Label string
	Current     bool
}

// Page is what the layout shows around a page's content; Data is the
// page's own.
type Page struct {
	Title   string
	Partner string
	Nav     []Link
	Notice  string
	Error   string
	Data    any
}

// NewPage returns the Page of one of a sandbox partner's pages at the
// path current: partner names the partner in the header, the navigation
// is home (the partner's own first page), the ledger and the controls,
// with current's link marked, and the notice and error are the query's
// (where Done and Fail send a form back).
func NewPage(r *http.Request, partner string, home Link, title, current string, data any) Page {
	nav := []Link{home, {Href: Prefix + "ledger", Label: "Ledger"}, {Href: Prefix + "controls", Label: "Controls"}}
	for i := range nav {
		nav[i].Current = nav[i].Href == current
	}
	q := r.URL.Query()
	return Page{Title: title, Partner: partner, Nav: nav, Notice: q.Get("notice"), Error: q.Get("error"), Data: data}
}

// Pages are parsed page templates, each combined with the layout.
type Pages map[string]*template.Template

// ParsePages parses each named file of fsys with the layout; a page file
// defines "content" and may define "head". It panics on a template error
// (the templates are embedded: an error is a bug).
func ParsePages(fsys fs.FS, names ...string) Pages {
	base := template.Must(template.ParseFS(files, "layout/*.html"))
	pages := Pages{}
	for _, name := range names {
		t := template.Must(base.Clone())
		pages[name] = template.Must(t.ParseFS(fsys, name))
	}
	return pages
}

// Render writes page with the named template as HTML, with the headers of
// every sandbox page. frameOrigin, when not empty, is the one origin the
// page may embed in an iframe (the platform's). A template that fails is
// answered 500 with a fixed text, and its error goes to slog's default
// logger (a sandbox has no log of its own).
func (p Pages) Render(w http.ResponseWriter, name string, page Page, frameOrigin string) {
	t := p[name]
	if t == nil {
		panic(fmt.Sprintf("sandboxweb: no page %q", name))
	}
	var buf strings.Builder
	if err := t.ExecuteTemplate(&buf, "base", page); err != nil {
		slog.Error("sandboxweb: a page could not be rendered", "page", name, "err", err)
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	frames := "'none'"
	if frameOrigin != "" {
		frames = frameOrigin
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
	h.Set("Content-Security-Policy", "default-src 'self'; frame-src "+frames+
		"; base-uri 'none'; form-action 'self'; frame-ancestors 'self'; object-src 'none'")
	_, _ = io.WriteString(w, buf.String())
}

// Origin returns the origin (scheme://host[:port], default port left out)
// of an absolute http(s) URL, and an error for anything else.
func Origin(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%q is not an absolute http(s) URL", raw)
	}
	host := u.Host
	if p := u.Port(); (u.Scheme == "http" && p == "80") || (u.Scheme == "https" && p == "443") {
		host = strings.TrimSuffix(host, ":"+p)
	}
	return u.Scheme + "://" + strings.ToLower(host), nil
}

// Guard admits control requests; see the package documentation.
type Guard struct {
	// Token is the admin token; empty admits loopback clients only.
	Token string
}

// Wrap serves next to the requests Guard admits and refuses the others:
// 403 forbidden for a foreign Origin or, without a token, a client that is
// not on loopback or a request not addressed to a loopback host (a page
// of another site whose name was rebound to 127.0.0.1 sends its own name
// as Host and Origin); 401 unauthorized for a missing or wrong token. A
// form request is refused with a redirect, as Fail does.
func (g Guard) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !SameOrigin(r) {
			Fail(w, r, http.StatusForbidden, "forbidden", "the request comes from a page of another site")
			return
		}
		if g.Token == "" {
			if !loopback(r.RemoteAddr) || !loopbackHost(r.Host) {
				Fail(w, r, http.StatusForbidden, "forbidden", "without an admin token the control API answers loopback clients only, addressed as localhost or a loopback address")
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		if !g.admits(r) {
			Fail(w, r, http.StatusUnauthorized, "unauthorized", "log in with the sandbox admin token (Authorization: Bearer …)")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// admits reports whether r carries the token.
func (g Guard) admits(r *http.Request) bool {
	got := ""
	if auth := r.Header.Get("Authorization"); strings.HasPrefix(auth, "Bearer ") {
		got = strings.TrimPrefix(auth, "Bearer ")
	} else if c, err := r.Cookie(CookieName); err == nil {
		got = c.Value
	}
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(g.Token)) == 1
}

// LoggedIn reports whether r may use the control API: true without a token
// (for a loopback client), or when it carries the token.
func (g Guard) LoggedIn(r *http.Request) bool {
	if g.Token == "" {
		return loopback(r.RemoteAddr) && loopbackHost(r.Host)
	}
	return g.admits(r)
}

// Login is the handler of POST /sandbox/login, a form with admin_token and
// return: the right token sets the cookie; either way the answer is a
// redirect to return with a notice or an error.
func (g Guard) Login() http.Handler {
	return Control(func(w http.ResponseWriter, r *http.Request, f map[string]string) {
		if !SameOrigin(r) {
			Fail(w, r, http.StatusForbidden, "forbidden", "the request comes from a page of another site")
			return
		}
		if g.Token == "" || subtle.ConstantTimeCompare([]byte(f["admin_token"]), []byte(g.Token)) != 1 {
			Fail(w, r, http.StatusUnauthorized, "unauthorized", "that is not the sandbox admin token")
			return
		}
		http.SetCookie(w, &http.Cookie{
			Name: CookieName, Value: g.Token, Path: Prefix,
			HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil,
		})
		Done(w, r, "logged in", nil)
	})
}

// SameOrigin reports whether r has no Origin header or one naming the host
// r was sent to.
func SameOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && u.Host != "" && strings.EqualFold(u.Host, r.Host)
}

// loopbackHost reports whether a request's Host names this machine:
// localhost or a loopback address, with or without a port.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func loopback(remoteAddr string) bool {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// isForm reports whether r's body is an HTML form.
func isForm(r *http.Request) bool {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return mt == "application/x-www-form-urlencoded"
}

// Fields reads a control request's body: a form, or a JSON object whose
// values are strings, numbers or booleans (written as in JSON: 2, true);
// null is the same as a missing field. An empty body is no fields. Query
// parameters are not read.
func Fields(r *http.Request) (map[string]string, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxControlBody+1))
	if err != nil {
		return nil, errors.New("the body could not be read")
	}
	if len(body) > maxControlBody {
		return nil, fmt.Errorf("the body exceeds %d bytes", maxControlBody)
	}
	out := map[string]string{}
	if isForm(r) {
		v, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, errors.New("the form cannot be read")
		}
		for k := range v {
			out[k] = v.Get(k)
		}
		return out, nil
	}
	if strings.TrimSpace(string(body)) == "" {
		return out, nil
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "application/json" {
		return nil, errors.New("the body must be JSON (Content-Type: application/json) or a form")
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, errors.New("the body must be a JSON object")
	}
	for k, v := range raw {
		if string(v) == "null" {
			continue
		}
		var s string
		if json.Unmarshal(v, &s) == nil {
			out[k] = s
			continue
		}
		var scalar any
		if err := json.Unmarshal(v, &scalar); err != nil {
			return nil, fmt.Errorf("%s cannot be read", k)
		}
		switch scalar.(type) {
		case float64, bool:
			out[k] = strings.TrimSpace(string(v))
		default:
			return nil, fmt.Errorf("%s must be a string, a number or a boolean", k)
		}
	}
	return out, nil
}

// Count reads a non-negative count field: empty means def.
func Count(f map[string]string, name string, def int) (int, error) {
	s := f[name]
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 1_000_000 {
		return 0, fmt.Errorf("%s must be a whole number from 0 to 1000000", name)
	}
	return n, nil
}

// Duration reads a duration field such as "2s" or "1500ms" (a bare
// number is milliseconds): empty means def.
func Duration(f map[string]string, name string, def time.Duration) (time.Duration, error) {
	s := f[name]
	if s == "" {
		return def, nil
	}
	if ms, err := strconv.Atoi(s); err == nil {
		s = strconv.Itoa(ms) + "ms"
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 || d > 24*time.Hour {
		return 0, fmt.Errorf("%s must be a duration such as 2s or 1500ms, up to 24h", name)
	}
	return d, nil
}

// returnPath is the page a form goes back to: its return field when that
// is a path under Prefix, else the page it was posted from, else Prefix.
func returnPath(r *http.Request, f map[string]string) string {
	for _, p := range []string{f["return"], refererPath(r)} {
		if strings.HasPrefix(p, Prefix) && !strings.ContainsAny(p, "\\\r\n") {
			return p
		}
	}
	return Prefix
}

func refererPath(r *http.Request) string {
	u, err := url.Parse(r.Header.Get("Referer"))
	if err != nil || !strings.EqualFold(u.Host, r.Host) {
		return ""
	}
	return u.RequestURI()
}

// fieldsCtxKey carries a form's fields from Control to Done and Fail.
type fieldsCtxKey struct{}

// Control adapts a control endpoint: it reads the request's fields (400
// invalid_request when they cannot be read) and calls fn with them; Done
// and Fail then find the form's return page.
func Control(fn func(w http.ResponseWriter, r *http.Request, f map[string]string)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, err := Fields(r)
		r = r.WithContext(context.WithValue(r.Context(), fieldsCtxKey{}, f))
		if err != nil {
			Fail(w, r, http.StatusBadRequest, "invalid_request", err.Error())
			return
		}
		fn(w, r, f)
	})
}

func fieldsOf(r *http.Request) map[string]string {
	f, _ := r.Context().Value(fieldsCtxKey{}).(map[string]string)
	return f
}

// Done answers a control request that succeeded: JSON {"ok": true,
// "message": message} plus extra, or for a form a redirect to its return
// page with message as the notice.
func Done(w http.ResponseWriter, r *http.Request, message string, extra map[string]any) {
	if isForm(r) {
		redirect(w, r, "notice", message)
		return
	}
	v := map[string]any{"ok": true, "message": message}
	for k, x := range extra {
		v[k] = x
	}
	httpjson.Write(w, http.StatusOK, v)
}

// Fail answers a control request that failed: JSON {"error": code,
// "message": message} with status, or for a form a redirect to its return
// page with message as the error.
func Fail(w http.ResponseWriter, r *http.Request, status int, code, message string) {
	if isForm(r) {
		redirect(w, r, "error", message)
		return
	}
	httpjson.Write(w, status, map[string]string{"error": code, "message": message})
}

func redirect(w http.ResponseWriter, r *http.Request, param, message string) {
	target, _ := url.Parse(returnPath(r, fieldsOf(r)))
	q := target.Query()
	q.Del("notice")
	q.Del("error")
	q.Set(param, message)
	target.RawQuery = q.Encode()
	http.Redirect(w, r, target.String(), http.StatusSeeOther)
}

// connsWithoutRequest tracks a server's connections that have not sent a
// request yet (http.StateNew).
type connsWithoutRequest struct {
	mu    sync.Mutex
	conns map[net.Conn]bool
}

// track is an http.Server's ConnState hook.
func (s *connsWithoutRequest) track(c net.Conn, state http.ConnState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if state != http.StateNew {
		delete(s.conns, c)
		return
	}
	if s.conns == nil {
		s.conns = map[net.Conn]bool{}
	}
	s.conns[c] = true
}

// close closes the connections that have sent no request.
func (s *connsWithoutRequest) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		c.Close()
	}
}

// Serve serves handler on l until ctx is done, then calls stop (which must
// end whatever could keep a handler waiting), shuts the server down
// gracefully (at most 5 seconds for requests under way) and returns. It
// returns nil after a clean stop, and the server's error otherwise.
func Serve(ctx context.Context, l net.Listener, handler http.Handler, stop func()) error {
	var silent connsWithoutRequest
	// A request's body and an idle connection are bounded as the
	// platform's are; answers are not (a fault may hold one on purpose).
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute, IdleTimeout: 2 * time.Minute,
		ConnState: silent.track}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	select {
	case err := <-served:
		stop()
		return err
	case <-ctx.Done():
	}
	stop()
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// Shutdown closes idle connections at once but waits 5 s for one that
	// has sent no request yet (a client's dial that outlived its request):
	// those are closed here, as idle ones.
	silent.close()
	err := srv.Shutdown(shutdown)
	if err != nil {
		err = errors.Join(err, srv.Close())
	}
	if served := <-served; !errors.Is(served, http.ErrServerClosed) {
		err = errors.Join(err, served)
	}
	return err
}

// MaxIDLength bounds every id a sandbox accepts, in bytes.
const MaxIDLength = 255

// CheckID accepts 1 to MaxIDLength bytes of valid UTF-8 without control
// characters; its error names the field name.
func CheckID(name, v string) error {
	if v == "" {
		return fmt.Errorf("%s is required", name)
	}
	if len(v) > MaxIDLength || !utf8.ValidString(v) {
		return fmt.Errorf("%s must be 1 to %d bytes of UTF-8", name, MaxIDLength)
	}
	for _, r := range v {
		if r < 0x20 || (r >= 0x7f && r < 0xa0) {
			return fmt.Errorf("%s contains a control character", name)
		}
	}
	return nil
}

// CurrencyCodes is the currency codes a sandbox partner accepts.
type CurrencyCodes struct {
	// Pattern matches an accepted code; Described says in words what it
	// matches ("3 to 5 upper-case letters").
	Pattern   *regexp.Regexp
	Described string
	// MaxDecimals is the most decimals a code may be given.
	MaxDecimals int32
}

// Check returns an error naming code unless Pattern matches it.
func (cc CurrencyCodes) Check(code string) error {
	if !cc.Pattern.MatchString(code) {
		return fmt.Errorf("currency %q must be %s", code, cc.Described)
	}
	return nil
}

// Decimals checks a partner's Config.Decimals (code → decimals, 0 to
// MaxDecimals) and returns a copy; its errors name Config.Decimals.
func (cc CurrencyCodes) Decimals(given map[string]int32) (map[string]int32, error) {
	decimals := make(map[string]int32, len(given))
	for code, d := range given {
		if err := cc.Check(code); err != nil {
			return nil, fmt.Errorf("Config.Decimals: %w", err)
		}
		if d < 0 || d > cc.MaxDecimals {
			return nil, fmt.Errorf("Config.Decimals: %s must have 0 to %d decimals, not %d", code, cc.MaxDecimals, d)
		}
		decimals[code] = d
	}
	return decimals, nil
}
