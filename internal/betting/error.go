package betting

import (
	"errors"
	"fmt"
	"time"
)

// Error is the platform's error: the betting domain's and the aggregator
// integration's (package aggregator uses it too). It has the shape of
// tickets.Error (docs/architecture.md, "Errors"): a code the HTTP edges
// map to each API's status and body, a message safe to show to the client,
// and the underlying cause, for logs only.
type Error struct {
	Code    ErrorCode
	Message string
	// Err is the underlying cause, for logs only; it is never shown to a
	// client.
	Err error
	// RetryAfter is, for ErrRateLimited, how long until the request may
	// succeed; zero otherwise.
	RetryAfter time.Duration
}

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

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return string(e.Code) + ": " + e.Message
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with code and a formatted client-safe message.
func Errorf(code ErrorCode, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// NotFound returns an ErrNotFound error saying that there is no what of
// id ("no bet b-1"); the stores use it for a row that is not there.
func NotFound(what, id string) *Error {
	return &Error{Code: ErrNotFound, Message: "no " + what + " " + id}
}

// ErrorCodeOf returns the code of the first *Error in err's chain, or
// ErrInternal when there is none. A nil err has no code.
func ErrorCodeOf(err error) ErrorCode {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ErrInternal
}

// ErrorMessage returns the client-safe message of err: the message of its
// *Error, or a generic text for anything else.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "Internal error."
}

func invalidf(format string, args ...any) *Error {
	return Errorf(ErrInvalid, format, args...)
}

// IsNotFound reports whether err is an *Error with ErrNotFound.
func IsNotFound(err error) bool {
	return ErrorCodeOf(err) == ErrNotFound
}
