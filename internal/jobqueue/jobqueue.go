// Package jobqueue runs Foresight's background work on River: the kinds of
// River jobs, their workers, and the client configuration shared by the
// SQLite and PostgreSQL stores. Stores insert these jobs in the same
// transaction as the rows they belong to (an outbox), so work is never lost
// and never enqueued for a row that was rolled back.
package jobqueue

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/tickets"
)

// Queue names.
const (
	QueueTickets   = "tickets"
	QueueCallbacks = "callbacks"
	QueueBets      = "bets"
	QueueWallet    = "wallet"
)

// BetPlaceArgs asks for the placement of a pending bet.
type BetPlaceArgs struct {
	BetID string `json:"bet_id"`
}

// Kind is the River job kind.
func (BetPlaceArgs) Kind() string { return "bets.place" }

// InsertOpts routes placements to the bets queue.
func (BetPlaceArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueBets, MaxAttempts: 10}
}

// BetRollbackArgs asks for the reversal of a bet's withdrawal; it is
// retried until the operator answers definitely.
type BetRollbackArgs struct {
	BetID string `json:"bet_id"`
}

// Kind is the River job kind.
func (BetRollbackArgs) Kind() string { return "bets.rollback" }

// InsertOpts routes rollbacks to the wallet queue, retried for days.
func (BetRollbackArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueWallet, MaxAttempts: walletAttempts}
}

// GenerateArgs asks for the generation of a ticket job.
type GenerateArgs struct {
	JobID string `json:"job_id"`
}

// Kind is the River job kind.
func (GenerateArgs) Kind() string { return "tickets.generate" }

// InsertOpts routes generation to the tickets queue.
func (GenerateArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueTickets, MaxAttempts: generateAttempts}
}

// CallbackArgs asks for the delivery of a ticket job's callback for the
// terminal status it reached.
type CallbackArgs struct {
	JobID  string         `json:"job_id"`
	Status tickets.Status `json:"status"`
	// ClientID is the job's client: the callback is tagged with it, so
	// that WakeCallbacks finds the client's callbacks.
	ClientID string `json:"client_id,omitempty"`
}

// Kind is the River job kind.
func (CallbackArgs) Kind() string { return "tickets.callback" }

// InsertOpts routes callbacks to the callbacks queue. The worker decides
// when the last attempt is (Config.CallbackRetries); River's own bound is a
// safety net above it.
func (a CallbackArgs) InsertOpts() river.InsertOpts {
	opts := river.InsertOpts{Queue: QueueCallbacks, MaxAttempts: 100}
	if a.ClientID != "" {
		opts.Tags = []string{clientTag(a.ClientID)}
	}
	return opts
}

// clientTag is the River tag of a client's callbacks.
func clientTag(clientID string) string { return "client-" + clientID }

const generateAttempts = 5

// Config tunes the workers.
type Config struct {
	// Workers is the number of generations run at once per process.
	Workers int
	// JobTimeout bounds one generation attempt.
	JobTimeout time.Duration
	// CallbackRetries are the delays between callback attempts; their count
	// plus one is the number of attempts.
	CallbackRetries []time.Duration
	// BetWorkers is the number of bet placements run at once per process
	// (128 when zero). Placements mostly wait: for the wallet's answer and
	// for their writes, which both stores commit in batches (SQLite's
	// single writer, PostgreSQL's exposure reservations), so more workers
	// make bigger batches. River fetches a queue's jobs at most every
	// FetchCooldown, up to its free workers: with 32 workers the queue
	// could not pass about 650 placements a second on PostgreSQL.
	BetWorkers int
	// PollInterval is how often idle workers look for new jobs when no
	// notification arrives.
	PollInterval time.Duration
	// BeatInterval is how often a node records that it is alive and
	// looks for the jobs of dead nodes (DefaultBeatInterval when zero).
	BeatInterval time.Duration
	// FenceAfter is how long a node works without recording a beat
	// before it cancels its jobs (DefaultFenceAfter when zero).
	FenceAfter time.Duration
	// DeadAfter is the age of a node's last beat from which its jobs are
	// rescued (DefaultDeadAfter when zero); at least twice FenceAfter.
	DeadAfter time.Duration
	// NodeName names this node across its restarts, and must be a name no
	// other live process can hold: the server uses its host name and the
	// address it listens on. When set, the node's id is NodeName~random,
	// and its first rescue takes back at once the running jobs of its
	// earlier ids (the process that had the name before it has stopped),
	// instead of waiting DeadAfter for them as for any dead node. Empty:
	// ids of the host name and random bits.
	NodeName string
}

// DefaultCallbackRetries is the Standard Webhooks schedule: 5 s, 5 min,
// 30 min, 2 h, 5 h, 10 h, 10 h (8 attempts over about 28 hours).
var DefaultCallbackRetries = []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}

// FetchCooldown is the shortest time between two fetches of a queue's
// jobs by a worker client, and between two notifications of new jobs in a
// queue by an inserting one.
func (c Config) FetchCooldown() time.Duration { return min(20*time.Millisecond, c.PollInterval) }

// DefaultConfig returns the documented defaults.
func DefaultConfig() Config {
	return Config{Workers: 8, JobTimeout: 5 * time.Minute, CallbackRetries: DefaultCallbackRetries, PollInterval: 200 * time.Millisecond}
}

// walletWorkers is how many deposit and rollback jobs a process runs at
// once: every operator's depositJobsPerOperator and room for the others.
const walletWorkers = 32

// walletAttempts bounds the attempts of deposits and rollbacks: with
// retries capped at ten minutes apart, about two years, which is to say
// until the operator answers.
const walletAttempts = 100_000

// SettleMarketArgs asks for the settlement of a closed market's bets.
type SettleMarketArgs struct {
	MarketID string `json:"market_id"`
}

// Kind is the River job kind.
func (SettleMarketArgs) Kind() string { return "bets.settle_market" }

// InsertOpts routes settlements to the bets queue.
func (SettleMarketArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueBets, MaxAttempts: 1000}
}

// BetDepositArgs asks for the deposits of settled bets of one operator;
// it is retried until the operator confirmed every one of them. Jobs
// enqueued before jobs named their operator have no OperatorID and may
// hold several operators' bets.
type BetDepositArgs struct {
	OperatorID string   `json:"operator_id,omitempty"`
	BetIDs     []string `json:"bet_ids"`
}

// depositBatch is how many bets' deposits one job sends: the bets one
// settlement transaction settles (betting.Settle), so that a market's
// deposits cost few jobs and few confirmation transactions.
const depositBatch = 500

// DepositJobs returns the jobs that deposit the payouts of bets, the bets
// of one operator per job and depositBatch bets at most, in the order of
// the bets' first appearance, for an InsertMany in the transaction that
// settles them. betIDs[i] is a bet of operatorIDs[i].
func DepositJobs(operatorIDs, betIDs []string) []river.InsertManyParams {
	var operators []string
	byOperator := map[string][]string{}
	for i, id := range betIDs {
		op := operatorIDs[i]
		if _, ok := byOperator[op]; !ok {
			operators = append(operators, op)
		}
		byOperator[op] = append(byOperator[op], id)
	}
	var jobs []river.InsertManyParams
	for _, op := range operators {
		for ids := range slices.Chunk(byOperator[op], depositBatch) {
			jobs = append(jobs, river.InsertManyParams{Args: BetDepositArgs{OperatorID: op, BetIDs: ids}})
		}
	}
	return jobs
}

// Kind is the River job kind.
func (BetDepositArgs) Kind() string { return "bets.deposit" }

// InsertOpts routes deposits to the wallet queue, retried for days.
func (BetDepositArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueWallet, MaxAttempts: walletAttempts}
}

// NewWorkers registers the workers of the ticket service and of bet
// placement.
func NewWorkers(svc *tickets.Service, bets *betting.Placement, cfg Config) *river.Workers {
	w := river.NewWorkers()
	river.AddWorker(w, &generateWorker{svc: svc, timeout: cfg.JobTimeout})
	river.AddWorker(w, &callbackWorker{svc: svc, retries: cfg.CallbackRetries})
	river.AddWorker(w, &placeWorker{bets: bets})
	river.AddWorker(w, &rollbackWorker{bets: bets})
	river.AddWorker(w, &settleWorker{bets: bets})
	river.AddWorker(w, &depositWorker{bets: bets, gate: newOperatorGate(depositJobsPerOperator)})
	return w
}

type settleWorker struct {
	river.WorkerDefaults[SettleMarketArgs]
	bets *betting.Placement
}

// Timeout stays below River's rescue of stuck jobs; a settlement cut short
// runs again and continues where it stopped.
func (w *settleWorker) Timeout(*river.Job[SettleMarketArgs]) time.Duration { return 4 * time.Minute }

func (w *settleWorker) Work(ctx context.Context, job *river.Job[SettleMarketArgs]) error {
	err := w.bets.Settle(ctx, job.Args.MarketID)
	if errors.Is(err, betting.ErrBetsPending) {
		return river.JobSnooze(time.Second)
	}
	return err
}

// depositJobsPerOperator bounds the deposit jobs of one operator that a
// process runs at once, so that an operator whose wallet is slow holds
// only that many of the wallet queue's workers; with
// betting.DepositCallsPerOperator calls in flight per operator, the jobs'
// bettors keep the calls busy while one job finishes and the next starts.
const depositJobsPerOperator = 4

// depositGateWait is how long a deposit job waits for its operator's
// turn before it steps aside: snoozed (not an attempt) for about as long,
// leaving its worker to other operators' jobs.
const depositGateWait = 2 * time.Second

type depositWorker struct {
	river.WorkerDefaults[BetDepositArgs]
	bets *betting.Placement
	gate *operatorGate
}

// NextRetry backs off from a second to at most ten minutes.
func (w *depositWorker) NextRetry(job *river.Job[BetDepositArgs]) time.Time {
	return time.Now().Add(min(time.Second<<min(job.Attempt, 10), 10*time.Minute))
}

func (w *depositWorker) Work(ctx context.Context, job *river.Job[BetDepositArgs]) error {
	leave, err := w.gate.enter(ctx, job.Args.OperatorID, depositGateWait)
	if errors.Is(err, errGateBusy) {
		return river.JobSnooze(depositGateWait + rand.N(depositGateWait))
	}
	if err != nil {
		return err
	}
	defer leave()
	return w.bets.Deposit(ctx, job.Args.BetIDs)
}

// errGateBusy: an operator's turns stayed taken for the whole wait.
var errGateBusy = errors.New("every turn of the operator is taken")

// operatorGate gives each operator a fixed number of turns at once.
type operatorGate struct {
	turns int
	mu    sync.Mutex
	taken map[string]chan struct{}
}

func newOperatorGate(turns int) *operatorGate {
	return &operatorGate{turns: turns, taken: map[string]chan struct{}{}}
}

// enter waits up to wait for one of the operator's turns; leave gives it
// back. It fails with errGateBusy when the wait ran out, with ctx's error
// when ctx ended first.
func (g *operatorGate) enter(ctx context.Context, operatorID string, wait time.Duration) (leave func(), err error) {
	g.mu.Lock()
	taken := g.taken[operatorID]
	if taken == nil {
		taken = make(chan struct{}, g.turns)
		g.taken[operatorID] = taken
	}
	g.mu.Unlock()
	select {
	case taken <- struct{}{}:
		return func() { <-taken }, nil
	default:
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case taken <- struct{}{}:
		return func() { <-taken }, nil
	case <-timer.C:
		return nil, errGateBusy
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

type placeWorker struct {
	river.WorkerDefaults[BetPlaceArgs]
	bets *betting.Placement
}

// Timeout leaves room for three withdrawal attempts.
func (w *placeWorker) Timeout(*river.Job[BetPlaceArgs]) time.Duration { return 30 * time.Second }

func (w *placeWorker) Work(ctx context.Context, job *river.Job[BetPlaceArgs]) error {
	return w.bets.Process(ctx, job.Args.BetID, job.Attempt >= job.MaxAttempts)
}

type rollbackWorker struct {
	river.WorkerDefaults[BetRollbackArgs]
	bets *betting.Placement
}

// NextRetry backs off from a second to at most ten minutes.
func (w *rollbackWorker) NextRetry(job *river.Job[BetRollbackArgs]) time.Time {
	return time.Now().Add(min(time.Second<<min(job.Attempt, 10), 10*time.Minute))
}

func (w *rollbackWorker) Work(ctx context.Context, job *river.Job[BetRollbackArgs]) error {
	return w.bets.Rollback(ctx, job.Args.BetID)
}

// NewClient returns a River client on driver that only inserts jobs;
// Start works them. log may be nil.
func NewClient[TTx any](driver riverdriver.Driver[TTx], cfg Config, log *slog.Logger) (*river.Client[TTx], error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return newClient(driver, nil, cfg, log, "", nil)
}

// newClient returns a River client on driver. With workers nil it only
// inserts; otherwise it works every queue, as node id (River's default id
// when empty), every job through fence, once started.
func newClient[TTx any](driver riverdriver.Driver[TTx], workers *river.Workers, cfg Config, log *slog.Logger, id string, fence *fence) (*river.Client[TTx], error) {
	rc := &river.Config{
		ID: id,
		// River reports every retry and its periodic counts at info;
		// Foresight logs what matters itself.
		Logger:     slog.New(warnOnly{log.Handler()}),
		JobTimeout: cfg.JobTimeout,
		// River's own rescue is the last resort, for the jobs of a node
		// that never recorded a beat (Recovery rescues the others).
		RescueStuckJobsAfter: cfg.JobTimeout + time.Minute,
		FetchCooldown:        cfg.FetchCooldown(),
		FetchPollInterval:    cfg.PollInterval,
		SoftStopTimeout:      0,
		ErrorHandler:         jobFailureLog{log},
	}
	if fence != nil {
		rc.Middleware = []rivertype.Middleware{fence}
	}
	if workers != nil {
		rc.Workers = workers
		rc.Queues = map[string]river.QueueConfig{
			QueueTickets:   {MaxWorkers: max(1, cfg.Workers)},
			QueueCallbacks: {MaxWorkers: 16},
			QueueBets:      {MaxWorkers: cmp.Or(cfg.BetWorkers, 128)},
			QueueWallet:    {MaxWorkers: walletWorkers},
		}
	}
	c, err := river.NewClient(driver, rc)
	if err != nil {
		return nil, fmt.Errorf("river client: %w", err)
	}
	return c, nil
}

type generateWorker struct {
	river.WorkerDefaults[GenerateArgs]
	svc     *tickets.Service
	timeout time.Duration
}

func (w *generateWorker) Timeout(*river.Job[GenerateArgs]) time.Duration { return w.timeout }

func (w *generateWorker) Work(ctx context.Context, job *river.Job[GenerateArgs]) error {
	return w.svc.Run(ctx, job.Args.JobID, job.Attempt >= job.MaxAttempts)
}

type callbackWorker struct {
	river.WorkerDefaults[CallbackArgs]
	svc     *tickets.Service
	retries []time.Duration
}

// Timeout bounds one delivery attempt (the sender has its own, shorter).
func (w *callbackWorker) Timeout(*river.Job[CallbackArgs]) time.Duration { return time.Minute }

// NextRetry follows the configured schedule.
func (w *callbackWorker) NextRetry(job *river.Job[CallbackArgs]) time.Time {
	i := min(job.Attempt-1, len(w.retries)-1)
	if i < 0 {
		return time.Now().Add(time.Second)
	}
	return time.Now().Add(w.retries[i])
}

func (w *callbackWorker) Work(ctx context.Context, job *river.Job[CallbackArgs]) error {
	err := w.svc.DeliverCallback(ctx, job.Args.JobID, job.Args.Status, job.Attempt > len(w.retries))
	if errors.Is(err, tickets.ErrCallbackTurnsTaken) {
		return river.JobSnooze(callbackSnooze(snoozes(job.JobRow)))
	}
	return err
}

// CallbackOwedAtMost is how long after its job's last update a callback
// with these retries can still be owed: twice their delays and a minute
// an attempt (each attempt's bound), for the time its attempts spend put
// back while the client's turns are taken, and a day.
func CallbackOwedAtMost(retries []time.Duration) time.Duration {
	d := 24 * time.Hour
	for _, r := range retries {
		d += 2*r + time.Minute
	}
	return d + time.Minute
}

// callbackSnooze is how long a callback whose client's turns are all taken
// is put back (River's snooze, not an attempt) after it was put back
// snoozed times already: from half a second to a second at first, twice
// as long each time after, at most a minute; the jitter spreads a client's
// waiting callbacks. A client's callbacks behind a receiver that does not
// answer come back about once a minute each instead of holding workers,
// and those behind a fast receiver go out within seconds.
func callbackSnooze(snoozed int) time.Duration {
	d := min(time.Second<<min(snoozed, 6), time.Minute)
	return d/2 + rand.N(d/2)
}

// snoozes is how many times River put the job back with JobSnooze.
func snoozes(job *rivertype.JobRow) int {
	var m struct {
		Snoozes int `json:"snoozes"`
	}
	if json.Unmarshal(job.Metadata, &m) != nil {
		return 0
	}
	return m.Snoozes
}

// jobFailureLog logs each failed run of a job, which River reports only
// at info (dropped by warnOnly): at warning while the job will run again,
// at error on its last attempt, when River discards it. A job failing
// for days (a settlement, a refused deposit) is then seen. River hands a
// run a stop cancelled back without calling it.
type jobFailureLog struct{ log *slog.Logger }

func (h jobFailureLog) HandleError(ctx context.Context, job *rivertype.JobRow, err error) *river.ErrorHandlerResult {
	h.failed(ctx, job, "err", err)
	return nil
}

func (h jobFailureLog) HandlePanic(ctx context.Context, job *rivertype.JobRow, panicVal any, trace string) *river.ErrorHandlerResult {
	h.failed(ctx, job, "panic", fmt.Sprint(panicVal), "trace", trace)
	return nil
}

func (h jobFailureLog) failed(ctx context.Context, job *rivertype.JobRow, cause ...any) {
	attrs := append([]any{"kind", job.Kind, "job_id", job.ID, "attempt", job.Attempt, "max_attempts", job.MaxAttempts}, cause...)
	if job.Attempt >= job.MaxAttempts {
		h.log.ErrorContext(ctx, "job failed on its last attempt: discarded", attrs...)
		return
	}
	h.log.WarnContext(ctx, "job failed: it runs again later", attrs...)
}

// warnOnly passes records of level warning and above.
type warnOnly struct{ slog.Handler }

func (h warnOnly) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && h.Handler.Enabled(ctx, l)
}

func (h warnOnly) WithAttrs(attrs []slog.Attr) slog.Handler {
	return warnOnly{h.Handler.WithAttrs(attrs)}
}

func (h warnOnly) WithGroup(name string) slog.Handler { return warnOnly{h.Handler.WithGroup(name)} }
