package tickets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Run works the job with id through its stages: it claims a queued job
// (processing, preparing_prompt), generates (generating_tickets), validates
// (validating_output) and stores the result (completed), or records the
// failure (failed with the engine's code). A job already processing, left
// behind by a crashed or stopped worker, is resumed; a terminal job is left
// alone; a cancel_requested job becomes cancelled. The result is stored in
// one conditional update, so a job is never completed twice.
//
// Run returns an error only when the job should be tried again: ctx ended
// (the worker is stopping) or the store failed. With lastAttempt, a store
// failure fails the job with storage_error instead, as far as the store
// lets it.
func (s *Service) Run(ctx context.Context, id string, lastAttempt bool) error {
	err := s.run(ctx, id)
	if err != nil && lastAttempt && ctx.Err() == nil {
		s.fail(context.WithoutCancel(ctx), id, &Error{Code: CodeStorageError, Message: "The job store failed while the job ran.", Err: err})
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
			Status: StatusProcessing, Stage: StagePreparingPrompt, At: s.Now()})
		if errors.Is(err, ErrConflict) {
			return s.run(ctx, id) // cancelled or claimed meanwhile
		}
		if err != nil {
			return fmt.Errorf("claim job %s: %w", id, err)
		}
	case StatusProcessing:
		s.log.InfoContext(ctx, "resuming job", "job_id", id, "stage", j.Stage)
	case StatusCancelRequested:
		return s.finishCancelled(ctx, id)
	default:
		return nil
	}

	genCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	s.mu.Lock()
	s.running[id] = cancel
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.running, id)
		s.mu.Unlock()
	}()
	watchDone := make(chan struct{})
	defer func() { <-watchDone }()
	go func() {
		defer close(watchDone)
		s.watchCancel(genCtx, id, cancel)
	}()

	res, err := s.generate(genCtx, j)
	cancel(nil) // stops the watcher
	switch {
	case errors.Is(context.Cause(genCtx), errCancelRequested):
		return s.finishCancelled(ctx, id)
	case ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded):
		return ctx.Err() // stopping: leave the job processing for the next worker
	case ctx.Err() != nil:
		err = &Error{Code: CodeModelTimeout, Message: "Generation exceeded the job's time limit.", Err: ctx.Err()}
	}
	if err != nil {
		return s.fail(ctx, id, err)
	}
	_, err = s.store.UpdateJob(ctx, id, JobUpdate{From: []Status{StatusProcessing},
		Status: StatusCompleted, Stage: StageCompleted, Result: res, Callback: true, At: s.Now()})
	if errors.Is(err, ErrConflict) {
		return s.run(ctx, id) // cancelled while the result was being stored
	}
	if err != nil {
		return fmt.Errorf("complete job %s: %w", id, err)
	}
	return nil
}

// generate moves the job through generating_tickets and validating_output
// and returns the validated result document.
func (s *Service) generate(ctx context.Context, j Job) ([]byte, error) {
	if err := s.setStage(ctx, j.ID, StageGeneratingTickets); err != nil {
		return nil, err
	}
	start := time.Now()
	res, err := s.engine.Generate(ctx, GenerationRequest{JobID: j.ID, Title: j.Request.Title, Spec: j.Request.Spec, Options: j.Request.Options})
	if err != nil {
		return nil, err
	}
	if err := s.setStage(ctx, j.ID, StageValidatingOutput); err != nil {
		return nil, err
	}
	if res.Generation.DurationMS == 0 {
		res.Generation.DurationMS = time.Since(start).Milliseconds()
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, &Error{Code: CodeModelOutputInvalid, Message: "The engine's result cannot be encoded.", Err: err}
	}
	if problems := ValidateResult(raw, j.ID, j.Request.Options); len(problems) > 0 {
		return nil, &Error{Code: CodeModelOutputInvalid,
			Message: "The generated result is not valid tickets.result.v1: " + strings.Join(problems, "; ")}
	}
	return raw, nil
}

func (s *Service) setStage(ctx context.Context, id string, stage Stage) error {
	_, err := s.store.UpdateJob(ctx, id, JobUpdate{From: []Status{StatusProcessing}, Status: StatusProcessing, Stage: stage, At: s.Now()})
	if errors.Is(err, ErrConflict) {
		// Cancelled meanwhile: the watcher aborts the generation.
		return Errorf(CodeJobCancelled, "The job was cancelled.")
	}
	if err != nil {
		return fmt.Errorf("set stage %s of job %s: %w", stage, id, err)
	}
	return nil
}

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

func (s *Service) finishCancelled(ctx context.Context, id string) error {
	_, err := s.store.UpdateJob(ctx, id, JobUpdate{From: []Status{StatusCancelRequested, StatusProcessing},
		Status: StatusCancelled, ErrorCode: CodeJobCancelled, ErrorMessage: "The job was cancelled.", Callback: true, At: s.Now()})
	if err != nil && !errors.Is(err, ErrConflict) {
		return fmt.Errorf("cancel job %s: %w", id, err)
	}
	return nil
}

// fail records a generation failure on a processing job. Codes other than
// the job error codes of GUIDE §2 become internal_error.
func (s *Service) fail(ctx context.Context, id string, cause error) error {
	code, msg := ErrorCode(cause), ErrorMessage(cause)
	switch code {
	case CodeModelTimeout, CodeModelOutputInvalid, CodeEngineUnavailable, CodeStorageError, CodeInternalError:
	case CodeJobCancelled:
		return s.finishCancelled(ctx, id)
	default:
		code, msg = CodeInternalError, "The generation failed unexpectedly."
	}
	s.log.WarnContext(ctx, "job failed", "job_id", id, "code", code, "err", cause)
	_, err := s.store.UpdateJob(ctx, id, JobUpdate{From: []Status{StatusProcessing},
		Status: StatusFailed, Stage: StageFailed, ErrorCode: code, ErrorMessage: msg, Callback: true, At: s.Now()})
	if errors.Is(err, ErrConflict) {
		return s.run(ctx, id)
	}
	if err != nil {
		return fmt.Errorf("fail job %s: %w", id, err)
	}
	return nil
}
