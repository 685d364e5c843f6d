package tickets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"time"
)

// finishTimeout bounds the store write that records a job's outcome. It
// runs on a context detached from the worker's, so that a generation that
// used up its time limit can still record model_timeout.
const finishTimeout = 10 * time.Second

// Run works the job with id through its stages: it claims a queued job
// (processing, preparing_prompt), generates (generating_tickets), validates
// (validating_output) and stores the result (completed), or records the
// failure (failed with the engine's code). A job already processing, left
// behind by a crashed or stopped worker, is resumed; the claim and each
// resumption count an attempt and record the engine. A terminal job is left
// alone; a cancel_requested job becomes cancelled. The result is stored in
// one conditional update, so a job is never completed twice.
//
// Run returns an error only when the job should be tried again: ctx was
// cancelled (the worker is stopping; the job stays processing for the next
// run) or the store failed. With lastAttempt, a store failure fails the job
// with storage_error instead, as far as the store lets it (a job whose
// claim failed every time is failed from queued). A panic of the engine
// (a bug) fails the job with internal_error at once: trying the same spec
// again would panic again.
func (s *Service) Run(ctx context.Context, id string, lastAttempt bool) (err error) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("job generation panicked", "job_id", id, "panic", p, "stack", string(debug.Stack()))
			err = s.fail(id, &Error{Code: CodeInternalError, Message: "The generation failed unexpectedly.", Err: fmt.Errorf("panic: %v", p)})
		}
	}()
	err = s.run(ctx, id)
	if err != nil && lastAttempt && !errors.Is(err, context.Canceled) {
		if ferr := s.fail(id, &Error{Code: CodeStorageError, Message: "The job store failed while the job ran.", Err: err}); ferr != nil {
			s.log.Error("job left unfinished after its last attempt", "job_id", id, "err", ferr)
		}
	}
	return err
}

func (s *Service) run(ctx context.Context, id string) error {
	j, err := s.store.GetJob(ctx, "", id)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("load job %s: %w", id, err)
	}
	switch j.Status {
	case StatusQueued:
		j, err = s.store.UpdateJob(ctx, id, JobUpdate{From: []Status{StatusQueued},
			Status: StatusProcessing, Stage: StagePreparingPrompt, Attempt: true, Engine: s.engine.Name(), At: s.Now()})
		if errors.Is(err, ErrConflict) {
			return s.run(ctx, id) // cancelled or claimed meanwhile
		}
		if err != nil {
			return fmt.Errorf("claim job %s: %w", id, err)
		}
	case StatusProcessing:
		s.log.InfoContext(ctx, "resuming job", "job_id", id, "stage", j.Stage)
		j, err = s.store.UpdateJob(ctx, id, JobUpdate{From: []Status{StatusProcessing},
			Status: StatusProcessing, Attempt: true, Engine: s.engine.Name(), At: s.Now()})
		if errors.Is(err, ErrConflict) {
			return s.run(ctx, id) // cancelled or expired meanwhile
		}
		if err != nil {
			return fmt.Errorf("resume job %s: %w", id, err)
		}
	case StatusCancelRequested:
		return s.finishCancelled(id)
	case StatusCompleted, StatusFailed, StatusCancelled, StatusExpired:
		fallthrough
	default: // finished already, or not a status of the spec: left alone
		return nil
	}

	genCtx, cancel := context.WithCancelCause(ctx)
	unregister := s.register(id, cancel)
	defer unregister()
	watchDone := make(chan struct{})
	defer func() {
		cancel(nil) // stops the watcher, also when the engine panics
		<-watchDone
	}()
	go func() {
		defer close(watchDone)
		s.watchCancel(genCtx, id, cancel)
	}()

	res, ticketCount, err := s.generate(genCtx, j, cancel)
	cancel(nil) // stops the watcher
	switch {
	case errors.Is(context.Cause(genCtx), errCancelRequested):
		return s.finishCancelled(id)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		err = &Error{Code: CodeModelTimeout, Message: "Generation exceeded the job's time limit.", Err: ctx.Err()}
	case ctx.Err() != nil:
		return ctx.Err() // stopping: leave the job processing for the next worker
	}
	if err != nil {
		return s.fail(id, err)
	}
	fctx, fcancel := s.finishContext()
	defer fcancel()
	_, err = s.store.UpdateJob(fctx, id, JobUpdate{From: []Status{StatusProcessing},
		Status: StatusCompleted, Stage: StageCompleted, Result: res, TicketCount: ticketCount, Callback: true, At: s.Now()})
	if errors.Is(err, ErrConflict) {
		return s.settle(id) // cancelled while the result was being stored
	}
	if err != nil {
		return fmt.Errorf("complete job %s: %w", id, err)
	}
	return nil
}

// register records the cancel function of a running generation, so that a
// cancel on this node aborts it at once; the returned function removes it,
// unless a later run of the same job replaced it.
func (s *Service) register(id string, cancel context.CancelCauseFunc) (unregister func()) {
	entry := &runningJob{cancel: cancel}
	s.mu.Lock()
	s.running[id] = entry
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		if s.running[id] == entry {
			delete(s.running, id)
		}
		s.mu.Unlock()
	}
}

// runningJob is an entry of the in-process cancel registry.
type runningJob struct{ cancel context.CancelCauseFunc }

// generate runs the engine, which reports generating_tickets and
// validating_output as it reaches them, and returns the validated result
// document and the number of its tickets. A stage change that finds the job no longer processing
// (cancelled meanwhile) aborts the generation.
func (s *Service) generate(ctx context.Context, j Job, abort context.CancelCauseFunc) ([]byte, int, error) {
	reported := StagePreparingPrompt
	progress := func(st Stage) {
		if st == reported || ctx.Err() != nil {
			return
		}
		switch err := s.setStage(ctx, j.ID, st); {
		case err == nil:
			reported = st
		case errors.Is(err, errStatusChanged):
			abort(errCancelRequested)
		default:
			s.log.Warn("recording a stage failed", "job_id", j.ID, "stage", st, "err", err)
		}
	}
	start := time.Now()
	res, err := s.engine.Generate(ctx, GenerationRequest{JobID: j.ID, Title: j.Request.Title, Spec: j.Request.Spec,
		Options: j.Request.Options, Progress: progress})
	if err != nil {
		return nil, 0, err
	}
	if reported != StageValidatingOutput {
		// Best effort, as progress is: a store that fails here fails the
		// completion write too, whose error Run returns for a retry; a
		// finished generation is not failed for a stage.
		switch err := s.setStage(ctx, j.ID, StageValidatingOutput); {
		case errors.Is(err, errStatusChanged):
			return nil, 0, err
		case err != nil:
			s.log.Warn("recording a stage failed", "job_id", j.ID, "stage", StageValidatingOutput, "err", err)
		}
	}
	if res.Generation.DurationMS == 0 {
		res.Generation.DurationMS = time.Since(start).Milliseconds()
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, 0, &Error{Code: CodeModelOutputInvalid, Message: "The engine's result cannot be encoded.", Err: err}
	}
	if problems := ValidateResult(raw, j.ID, j.Request.Options); len(problems) > 0 {
		return nil, 0, &Error{Code: CodeModelOutputInvalid,
			Message: "The generated result is not valid tickets.result.v1: " + strings.Join(problems, "; ")}
	}
	return raw, len(res.Tickets), nil
}

func (s *Service) setStage(ctx context.Context, id string, stage Stage) error {
	_, err := s.store.UpdateJob(ctx, id, JobUpdate{From: []Status{StatusProcessing}, Status: StatusProcessing, Stage: stage, At: s.Now()})
	if errors.Is(err, ErrConflict) {
		// Cancelled or expired meanwhile: settle reads which.
		return errStatusChanged
	}
	if err != nil {
		return fmt.Errorf("set stage %s of job %s: %w", stage, id, err)
	}
	return nil
}

// errStatusChanged aborts a generation whose job left processing.
var errStatusChanged = errors.New("job status changed")

// watchCancel polls the job's status until ctx ends and cancels the
// generation when a cancellation was requested elsewhere.
func (s *Service) watchCancel(ctx context.Context, id string, cancel context.CancelCauseFunc) {
	t := time.NewTicker(s.cfg.CancelPollInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			st, err := s.store.JobStatus(ctx, id)
			if err == nil && st != StatusProcessing {
				cancel(errCancelRequested)
				return
			}
		}
	}
}

func (s *Service) finishContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), finishTimeout)
}

// finishCancelled turns a cancel_requested job into cancelled.
func (s *Service) finishCancelled(id string) error {
	ctx, cancel := s.finishContext()
	defer cancel()
	_, err := s.store.UpdateJob(ctx, id, JobUpdate{From: []Status{StatusCancelRequested},
		Status: StatusCancelled, ErrorCode: CodeJobCancelled, ErrorMessage: "The job was cancelled.", Callback: true, At: s.Now()})
	if err != nil && !errors.Is(err, ErrConflict) {
		return fmt.Errorf("cancel job %s: %w", id, err)
	}
	return nil
}

// settle finishes a job whose status moved away from processing while it
// ran: a cancel_requested job becomes cancelled; any other status stays.
func (s *Service) settle(id string) error {
	ctx, cancel := s.finishContext()
	defer cancel()
	st, err := s.store.JobStatus(ctx, id)
	if err != nil {
		return fmt.Errorf("load job %s: %w", id, err)
	}
	if st == StatusCancelRequested {
		return s.finishCancelled(id)
	}
	return nil
}

// fail records a generation failure on a processing job (or, after a last
// attempt whose claims all failed, a queued one). Codes other than the job
// error codes of docs/decisions.md ("Contract details") become internal_error.
func (s *Service) fail(id string, cause error) error {
	if errors.Is(cause, errStatusChanged) {
		return s.settle(id)
	}
	code, msg := ErrorCode(cause), ErrorMessage(cause)
	switch code {
	case CodeModelTimeout, CodeModelOutputInvalid, CodeEngineUnavailable, CodeStorageError:
	default:
		code, msg = CodeInternalError, "The generation failed unexpectedly."
	}
	s.log.Warn("job failed", "job_id", id, "code", code, "err", cause)
	ctx, cancel := s.finishContext()
	defer cancel()
	_, err := s.store.UpdateJob(ctx, id, JobUpdate{From: []Status{StatusQueued, StatusProcessing},
		Status: StatusFailed, Stage: StageFailed, ErrorCode: code, ErrorMessage: msg, Callback: true, At: s.Now()})
	if errors.Is(err, ErrConflict) {
		return s.settle(id)
	}
	if err != nil {
		return fmt.Errorf("fail job %s: %w", id, err)
	}
	return nil
}
