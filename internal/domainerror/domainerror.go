// Package domainerror is the platform's one error shape (docs/architecture.md,
// "Errors"): a code from a domain's vocabulary, a message safe to show the
// client, and the underlying cause, for logs only. Each domain (tickets,
// betting, ledger) names its instance, as in
//
//	type Error = domainerror.Error[Code]
//
// so that its errors keep a type of their own that errors.As tells apart.
package domainerror

import (
	"errors"
	"fmt"
	"time"
)

// Error is a domain error whose code is of vocabulary C.
type Error[C ~string] struct {
	Code    C
	Message string
	// RetryAfter, when positive, tells a client when to try again (a
	// rate limit, a full queue); zero otherwise.
	RetryAfter time.Duration
	// Err is the underlying cause, for logs only; it is never shown to a
	// client.
	Err error
}

// Error is "code: message", followed by ": cause" when there is one.
func (e *Error[C]) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return string(e.Code) + ": " + e.Message
}

// Unwrap returns the cause.
func (e *Error[C]) Unwrap() error { return e.Err }

// Errorf returns an *Error with code and a formatted client-safe message.
func Errorf[C ~string](code C, format string, args ...any) *Error[C] {
	return &Error[C]{Code: code, Message: fmt.Sprintf(format, args...)}
}

// CodeOf returns the code of the first *Error[C] in err's chain, other
// when there is none, and "" when err is nil.
func CodeOf[C ~string](err error, other C) C {
	if err == nil {
		return ""
	}
	var e *Error[C]
	if errors.As(err, &e) {
		return e.Code
	}
	return other
}

// MessageOf returns the client-safe message of err: the message of the
// first *Error[C] in its chain, or "Internal error." for anything else.
func MessageOf[C ~string](err error) string {
	var e *Error[C]
	if errors.As(err, &e) {
		return e.Message
	}
	return "Internal error."
}
