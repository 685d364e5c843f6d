package tickets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// CallbacksInFlightPerClient bounds the callbacks of one client that a
// process sends at once, so that a client whose receiver is slow, or accepts
// connections and never answers, holds that many of the callback workers
// and the other clients' callbacks go on.
const CallbacksInFlightPerClient = 2

// ErrCallbackTurnsTaken is returned by DeliverCallback when the job's
// client already has CallbacksInFlightPerClient callbacks in flight in this
// process: nothing was sent, and the delivery is to be tried again later
// without counting as an attempt.
var ErrCallbackTurnsTaken = errors.New("the client's callbacks in flight are at their bound")

// CallbackWaker makes due now the callbacks of a client that wait for
// their next attempt after a failed one (the queue of callbacks does).
type CallbackWaker interface {
	WakeCallbacks(ctx context.Context, clientID string) (int, error)
}

// callbackWakerBox holds a CallbackWaker for an atomic pointer.
type callbackWakerBox struct{ CallbackWaker }

// SetCallbackWaker sets what DeliverCallback wakes a client's waiting
// callbacks with once its receiver accepts one again. Without one, they
// wait for their next attempts (up to 10 hours apart by default).
func (s *Service) SetCallbackWaker(w CallbackWaker) { s.waker.Store(&callbackWakerBox{w}) }

// CallbackEvent is the body of a callback, in the Standard Webhooks shape
// {type, timestamp, data}: data is the job response at the terminal status.
type CallbackEvent struct {
	Type      string    `json:"type"`
	Timestamp time.Time `json:"timestamp"`
	Data      JobRecord `json:"data"`
}

// CallbackMessageID is the webhook-id of the callback for a job reaching
// status: stable across retries, so receivers can deduplicate.
func CallbackMessageID(jobID string, status Status) string {
	return "msg_" + jobID + "_" + string(status)
}

// DeliverCallback sends the callback of the job's terminal status to its
// callback_url, signed with the client's webhook secret, and records the
// delivery on the job. It returns an error
// when the attempt failed and should be retried. On the last attempt, or on
// a permanent failure, it records callback_failed on the job and returns nil.
// It returns ErrCallbackTurnsTaken, sending nothing, when the job's client
// has CallbacksInFlightPerClient callbacks in flight in this process.
//
// When the receiver accepts a callback after an attempt of the same client
// failed in this process, the client's callbacks waiting for their next
// attempt are made due now (SetCallbackWaker): a receiver back after an
// outage gets its backlog within seconds, not on each callback's next
// attempt, up to 10 hours later.
func (s *Service) DeliverCallback(ctx context.Context, id string, status Status, lastAttempt bool) error {
	j, err := s.store.GetJob(ctx, "", id)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("load job %s: %w", id, err)
	}
	if j.Request.CallbackURL == "" {
		return nil
	}
	c, err := s.store.GetClient(ctx, j.ClientID)
	if err != nil {
		return fmt.Errorf("load client of job %s: %w", id, err)
	}
	rec := j.Record()
	rec.Status = status // the status this callback announces, even if the job moved on
	body, err := json.Marshal(CallbackEvent{Type: "tickets.job." + string(status), Timestamp: rec.UpdatedAt, Data: rec})
	if err != nil {
		return fmt.Errorf("encode callback of job %s: %w", id, err)
	}
	release, ok := s.callbackTurns.Take(j.ClientID)
	if !ok {
		return ErrCallbackTurnsTaken
	}
	err = s.callback.Send(ctx, j.Request.CallbackURL, c.WebhookSecret, CallbackMessageID(id, status), body)
	release()
	if err == nil {
		// Sending again only to record the delivery would be worse than a
		// delivery the admin API does not show: log it and go on.
		if err := s.store.MarkCallbackDelivered(ctx, id, s.Now()); err != nil {
			s.log.WarnContext(ctx, "recording a callback delivery failed", "job_id", id, "err", err)
		}
		s.receiverAnswers(ctx, j.ClientID)
		return nil
	}
	reason, permanent := "the delivery failed", false
	var ce *CallbackError
	if errors.As(err, &ce) {
		reason, permanent = ce.Reason, ce.Permanent
	}
	if !lastAttempt && !permanent {
		s.failingReceivers.Store(j.ClientID, true)
		return err
	}
	s.log.WarnContext(ctx, "callback failed for good", "job_id", id, "err", err)
	if err := s.store.MarkCallbackFailed(ctx, id, "The callback to callback_url failed: "+reason+".", s.Now()); err != nil {
		return fmt.Errorf("record callback failure of job %s: %w", id, err)
	}
	return nil
}

// receiverAnswers wakes the client's waiting callbacks when an attempt of
// its receiver had failed before; best effort: a failure is logged and
// the callbacks wait for their next attempts.
func (s *Service) receiverAnswers(ctx context.Context, clientID string) {
	if _, failed := s.failingReceivers.LoadAndDelete(clientID); !failed {
		return
	}
	box := s.waker.Load()
	if box == nil {
		return
	}
	n, err := box.WakeCallbacks(ctx, clientID)
	if err != nil {
		s.log.WarnContext(ctx, "waking a client's waiting callbacks failed", "client_id", clientID, "err", err)
		return
	}
	if n > 0 {
		s.log.InfoContext(ctx, "callback receiver answers again: waiting callbacks are due now", "client_id", clientID, "callbacks", n)
	}
}
