package tickets

import (
	"errors"

	"github.com/foresight-dev/foresight/internal/domainerror"
)

// Code is one of the error codes of tickets-api.md. It is the whole error
// vocabulary of the ticket service: API errors and job errors alike.
type Code string

// The error codes of tickets-api.md, and only those.
const (
	CodeInvalidRequest     Code = "invalid_request"
	CodeRequestTooLarge    Code = "request_too_large"
	CodeUnauthorized       Code = "unauthorized"
	CodeForbidden          Code = "forbidden"
	CodeClientSuspended    Code = "client_suspended"
	CodeKeyExpired         Code = "key_expired"
	CodeKeyRevoked         Code = "key_revoked"
	CodeFeatureDisabled    Code = "feature_disabled"
	CodeQueueFull          Code = "queue_full"
	CodeJobNotFound        Code = "job_not_found"
	CodeJobCancelled       Code = "job_cancelled"
	CodeEngineUnavailable  Code = "engine_unavailable"
	CodeModelTimeout       Code = "model_timeout"
	CodeModelOutputInvalid Code = "model_output_invalid"
	CodeStorageError       Code = "storage_error"
	CodeCallbackFailed     Code = "callback_failed"
	CodeRateLimited        Code = "rate_limited"
	CodeInternalError      Code = "internal_error"

	// CodeNotCancellable is the conflict of cancelling a terminal job. The
	// spec has no code of its own for it, so on the wire it is
	// invalid_request with HTTP 409.
	CodeNotCancellable Code = "not_cancellable"
)

// Error is a ticket-service error with a code from the spec and a message
// safe to show to the client; RetryAfter, when positive, tells a client
// when to try again (rate_limited, queue_full).
type Error = domainerror.Error[Code]

// Errorf returns an *Error with code and a formatted client-safe message.
func Errorf(code Code, format string, args ...any) *Error {
	return domainerror.Errorf(code, format, args...)
}

// ErrorCode returns the code of the first *Error in err's chain, or
// CodeInternalError when there is none. A nil err has no code.
func ErrorCode(err error) Code { return domainerror.CodeOf(err, CodeInternalError) }

// ErrorMessage returns the client-safe message of err: the message of its
// *Error, or a generic text for anything else.
func ErrorMessage(err error) string { return domainerror.MessageOf[Code](err) }

// ErrNotFound is returned by a Store when a row does not exist.
var ErrNotFound = errors.New("not found")

// ErrQueueFull is returned by Store.CreateJob when the client has too many
// unfinished jobs.
var ErrQueueFull = errors.New("queue full")

// ErrConflict is returned by a Store when a conditional update found the row
// in another state, or a unique constraint refused an insert.
var ErrConflict = errors.New("conflict")
