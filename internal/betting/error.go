package betting

import "github.com/foresight-dev/foresight/internal/domainerror"

// Error is the platform's error: the betting domain's and the aggregator
// integration's (package aggregator uses it too). It has the platform's one
// error shape (package domainerror): a code the HTTP edges map to each
// API's status and body, a message safe to show to the client, the
// underlying cause, for logs only, and for ErrRateLimited how long until
// the request may succeed (RetryAfter, zero otherwise).
type Error = domainerror.Error[ErrorCode]

// ErrorCode classifies platform errors; each HTTP edge maps the codes to
// its API's statuses in one table. An error that is not an *Error is
// ErrInternal.
type ErrorCode string

// The platform's error codes.
const (
	// ErrInvalid: the request breaks a rule of the API (400).
	ErrInvalid ErrorCode = "invalid"
	// ErrNotFound: no such resource, or not one of the caller's.
	ErrNotFound ErrorCode = "not_found"
	// ErrConflict: the resource is in a state that refuses the request,
	// or exists already.
	ErrConflict ErrorCode = "conflict"
	// ErrLimit: a reservation would pass a limit.
	ErrLimit ErrorCode = "limit"
	// ErrUnauthorized: a token or credential is unknown, used or expired.
	ErrUnauthorized ErrorCode = "unauthorized"
	// ErrForbidden: the caller is known but may not do this.
	ErrForbidden ErrorCode = "forbidden"
	// ErrRateLimited: the caller sent more requests than its limit
	// allows; Error.RetryAfter says when to try again.
	ErrRateLimited ErrorCode = "rate_limited"
	// ErrUnavailable: a partner the request needs (a wallet) did not
	// answer as it must; trying again later may work.
	ErrUnavailable ErrorCode = "unavailable"
	// ErrInternal is the code of every error that is not an *Error: a
	// failure of Foresight itself (a database, a bug).
	ErrInternal ErrorCode = "internal"
)

// Errorf returns an *Error with code and a formatted client-safe message.
func Errorf(code ErrorCode, format string, args ...any) *Error {
	return domainerror.Errorf(code, format, args...)
}

// NotFound returns an ErrNotFound error saying that there is no what of
// id ("no bet b-1"); the stores use it for a row that is not there.
func NotFound(what, id string) *Error {
	return &Error{Code: ErrNotFound, Message: "no " + what + " " + id}
}

// ErrorCodeOf returns the code of the first *Error in err's chain, or
// ErrInternal when there is none. A nil err has no code.
func ErrorCodeOf(err error) ErrorCode { return domainerror.CodeOf(err, ErrInternal) }

// ErrorMessage returns the client-safe message of err: the message of its
// *Error, or a generic text for anything else.
func ErrorMessage(err error) string { return domainerror.MessageOf[ErrorCode](err) }

func invalidf(format string, args ...any) *Error {
	return Errorf(ErrInvalid, format, args...)
}

// IsNotFound reports whether err is an *Error with ErrNotFound.
func IsNotFound(err error) bool {
	return ErrorCodeOf(err) == ErrNotFound
}
