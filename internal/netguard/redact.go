package netguard

import (
	"errors"
	"net/url"
	"strings"
)

// RedactURL returns the form of a partner URL (a callback, wallet or JWKS
// URL) that may be logged: scheme://host[:port], followed by "/…" when a
// path, query or fragment was left out. Credentials in any of those, or in
// the user information, are not shown. A URL that does not parse is
// "(unparsable URL)".
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "(unparsable URL)"
	}
	out := u.Scheme + "://" + u.Host
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.Opaque != "" {
		out += "/…"
	}
	return out
}

// RedactErrorURL replaces, in place, the URL of every *url.Error in err's
// chain with its RedactURL form, and returns err: net/http reports a
// failed request as `Post "URL": …`, with the URL whole. Call it on the
// error as the client returned it: fmt.Errorf formats its message at once,
// so a wrapped copy would keep the URL.
func RedactErrorURL(err error) error {
	for e := err; e != nil; {
		var ue *url.Error
		if !errors.As(e, &ue) {
			break
		}
		ue.URL = RedactURL(ue.URL)
		e = ue.Err
	}
	return err
}

// HideURL returns err with every occurrence of raw in its message
// shortened to RedactURL(raw), for errors built by code that formatted the
// URL into its text (a library's); errors.Is and errors.As still see err.
// It returns err itself when the message does not hold raw.
func HideURL(err error, raw string) error {
	if err == nil || raw == "" || !strings.Contains(err.Error(), raw) {
		return err
	}
	return urlHidden{text: strings.ReplaceAll(err.Error(), raw, RedactURL(raw)), err: err}
}

type urlHidden struct {
	text string
	err  error
}

func (e urlHidden) Error() string { return e.text }
func (e urlHidden) Unwrap() error { return e.err }
