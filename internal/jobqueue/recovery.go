package jobqueue

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"
)

// Recovery is what a store provides so that the jobs of a process that
// stopped without handing them back (killed, crashed, powered off) run
// again within seconds, instead of after River's rescue of stuck jobs
// (the job's time-out plus a minute).
//
// Every working process is a node with an id (its River client id, the
// last entry of a running job's attempted_by). A node beats every
// Config.BeatInterval; one that could not beat for Config.FenceAfter
// cancels its running jobs and starts none until it beats again, so that
// a node whose last beat is Config.DeadAfter old cannot be running a job
// any more, dead or alive.
type Recovery interface {
	// Beat records, on the database's clock, that node is alive. A store
	// one process owns may record nothing.
	Beat(ctx context.Context, node string) error
	// RescueJobs makes the running jobs of the nodes that cannot be
	// running them any more available again, at once (the interrupted run
	// keeps its attempt: a job that kills its process every time is
	// discarded after its attempts, not run forever), gives up those nodes' leadership of
	// the queue (so that another node takes River's maintenance at once),
	// and returns how many jobs it made available. It never touches the
	// jobs of self, nor a job that is not running. Which nodes cannot be
	// running their jobs is the store's to say: on a database one process
	// owns (SQLite), every node but self; on a shared one (PostgreSQL),
	// those whose last beat is older than deadAfter, whose records it
	// then forgets (a node that beats again is recorded anew), and the
	// earlier ids of self's name (those starting with EarlierIDPrefix(self)),
	// whatever their last beat. Jobs of a node that never beat are left to
	// River's rescuer.
	RescueJobs(ctx context.Context, self string, deadAfter time.Duration) (int, error)
}

// Recovery timings: see Config.BeatInterval, FenceAfter and DeadAfter.
const (
	DefaultBeatInterval = time.Second
	DefaultFenceAfter   = 5 * time.Second
	DefaultDeadAfter    = 10 * time.Second
)

// errFenced is the cause of a job's cancellation by its node's fence.
var errFenced = errors.New("this node could not record that it is alive: its jobs are left to the other nodes")

// Start starts a River client that works the queues with workers until
// the returned node's Stop, on a store that rescues the jobs of stopped
// nodes with rec. Before the client starts, it records this node's first
// beat and rescues what stopped nodes left running (on SQLite: everything
// the previous process was running); then it beats and rescues in the
// background (see Recovery). log may be nil.
func Start[TTx any](ctx context.Context, driver riverdriver.Driver[TTx], workers *river.Workers, cfg Config, rec Recovery, log *slog.Logger) (*Node, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cfg = cfg.withRecoveryDefaults()
	if cfg.DeadAfter < 2*cfg.FenceAfter || cfg.FenceAfter < 2*cfg.BeatInterval {
		return nil, fmt.Errorf("job recovery: want DeadAfter ≥ 2 × FenceAfter ≥ 4 × BeatInterval, got %s, %s, %s", cfg.DeadAfter, cfg.FenceAfter, cfg.BeatInterval)
	}
	node := newNodeID(cfg.NodeName)
	if err := rec.Beat(ctx, node); err != nil {
		return nil, fmt.Errorf("record this node's first beat: %w", err)
	}
	n, err := rec.RescueJobs(ctx, node, cfg.DeadAfter)
	if err != nil {
		return nil, fmt.Errorf("rescue the jobs of stopped nodes: %w", err)
	}
	if n > 0 {
		log.Warn("resumed the jobs a stopped process left running", "count", n)
	}
	f := newFence()
	c, err := newClient(driver, workers, cfg, log, node, f)
	if err != nil {
		return nil, err
	}
	// The client runs until Stop, whatever ctx: River derives its jobs' contexts
	// from this one, and a job cancelled by it rather than by Stop counts
	// as failed, an attempt used (on the last, thrown away).
	if err := c.Start(context.WithoutCancel(ctx)); err != nil {
		return nil, fmt.Errorf("start river: %w", err)
	}
	keeper := &keeper{rec: rec, node: node, cfg: cfg, fence: f, log: log}
	keepCtx, stopKeeping := context.WithCancel(context.WithoutCancel(ctx))
	w := &Node{client: c, stopKeeping: stopKeeping}
	failed, stopListening := c.Subscribe(river.EventKindJobFailed)
	w.keeping.Go(func() { keeper.beat(keepCtx) })
	w.keeping.Go(func() { keeper.rescue(keepCtx) })
	w.keeping.Go(func() {
		defer stopListening()
		w.retryLateCallbacks(keepCtx, failed)
	})
	return w, nil
}

// Running is what a process runs to work the job queues: a Node, or a
// store's wrapper of one.
type Running interface {
	// Stop cancels the running jobs (they are handed back to the queue)
	// and waits for them.
	Stop(ctx context.Context) error
	// PauseQueue stops every process from starting jobs of queue until
	// ResumeQueue (running jobs finish), and returns once this process
	// has taken the pause.
	PauseQueue(ctx context.Context, queue string) error
	// ResumeQueue undoes PauseQueue on every process.
	ResumeQueue(ctx context.Context, queue string) error
	// WakeCallbacks makes due now a client's callbacks that wait for
	// their next attempt after a failed one, and returns how many.
	WakeCallbacks(ctx context.Context, clientID string) (int, error)
}

// Node is the River client that works the queues in this process, with
// its beats and rescues; Start starts it.
type Node struct {
	client      nodeClient
	stopKeeping context.CancelFunc
	keeping     sync.WaitGroup
	// answered holds, per client, when WakeCallbacks last found its
	// receiver answering again (see retryLateCallbacks).
	answered sync.Map
}

// nodeClient is what a Node needs of its River client, whatever the
// driver's transaction type.
type nodeClient interface {
	StopAndCancel(ctx context.Context) error
	Subscribe(kinds ...river.EventKind) (<-chan *river.Event, func())
	QueueGet(ctx context.Context, name string) (*rivertype.Queue, error)
	QueuePause(ctx context.Context, name string, opts *river.QueuePauseOpts) error
	QueueResume(ctx context.Context, name string, opts *river.QueuePauseOpts) error
	JobList(ctx context.Context, params *river.JobListParams) (*river.JobListResult, error)
	JobRetry(ctx context.Context, id int64) (*rivertype.JobRow, error)
}

// lateCallbackWindow is how long after a client's receiver answered again
// a callback attempt of that client that failed before it is retried at
// once (see retryLateCallbacks).
const lateCallbackWindow = time.Minute

// retryLateCallbacks makes due at once a callback attempt that failed
// before its client's receiver answered again but was recorded after
// WakeCallbacks looked: an attempt's failure lands in the queue after the
// attempt returns, and WakeCallbacks finds only what has landed. It ends
// when ctx does or failed closes.
func (n *Node) retryLateCallbacks(ctx context.Context, failed <-chan *river.Event) {
	for {
		select {
		case <-ctx.Done():
			return
		case e, ok := <-failed:
			if !ok {
				return
			}
			job := e.Job
			if job == nil || job.Kind != (CallbackArgs{}).Kind() || job.State != rivertype.JobStateRetryable || job.AttemptedAt == nil {
				continue
			}
			for _, tag := range job.Tags {
				clientID, ok := strings.CutPrefix(tag, clientTag(""))
				if !ok {
					continue
				}
				at, ok := n.answered.Load(clientID)
				if !ok {
					continue
				}
				if answered := at.(time.Time); time.Since(answered) >= lateCallbackWindow {
					n.answered.CompareAndDelete(clientID, at)
				} else if job.AttemptedAt.Before(answered) {
					// Best effort: on an error the attempt keeps its schedule.
					n.client.JobRetry(ctx, job.ID)
				}
			}
		}
	}
}

// callbacksWokenAtMost bounds the callbacks one WakeCallbacks makes due:
// a client has at most its bound of callbacks owed (1,000 by default).
const callbacksWokenAtMost = 2000

// WakeCallbacks makes the client's callbacks that wait for their next
// attempt after a failed one due now, and returns how many. Callbacks put
// back because the client's turns were taken are not among them: they come
// back within a minute. It is best effort: a callback that another process
// works or that finishes meanwhile is left as it is.
func (n *Node) WakeCallbacks(ctx context.Context, clientID string) (int, error) {
	res, err := n.client.JobList(ctx, river.NewJobListParams().Kinds(CallbackArgs{}.Kind()).
		States(rivertype.JobStateRetryable).TagsAll(clientTag(clientID)).First(callbacksWokenAtMost))
	if err != nil {
		return 0, fmt.Errorf("list the waiting callbacks of client %s: %w", clientID, err)
	}
	n.answered.Store(clientID, time.Now())
	woken := 0
	for _, job := range res.Jobs {
		if _, err := n.client.JobRetry(ctx, job.ID); err != nil {
			if errors.Is(err, rivertype.ErrNotFound) {
				continue
			}
			return woken, fmt.Errorf("wake callback job %d: %w", job.ID, err)
		}
		woken++
	}
	return woken, nil
}

// Stop cancels the running jobs (they are handed back and resume at the
// next start, or on another node), waits for them, and stops beating and
// rescuing. Its error is River's, for jobs that did not stop before ctx
// ended.
func (n *Node) Stop(ctx context.Context) error {
	err := n.client.StopAndCancel(ctx)
	n.stopKeeping()
	n.keeping.Wait()
	return err
}

// PauseQueue stops every node from starting jobs of queue until
// ResumeQueue (running jobs finish), and returns once this node has taken
// the pause: no job of queue starts here after it returns. Other nodes
// take it when River's notification, or their next poll of the queue's
// settings, reaches them. A queue already paused is left as it is.
// Errors: the database's, River's ErrNotFound for a queue no node has
// worked, or ctx's while waiting.
func (n *Node) PauseQueue(ctx context.Context, queue string) error {
	paused, stopListening := n.client.Subscribe(river.EventKindQueuePaused)
	defer stopListening()
	q, err := n.client.QueueGet(ctx, queue)
	if err != nil {
		return fmt.Errorf("read queue %s: %w", queue, err)
	}
	if q.PausedAt != nil {
		return nil
	}
	// Paused through this node's own client, River hands the pause to
	// this node's producer directly as well as by notification.
	if err := n.client.QueuePause(ctx, queue, nil); err != nil {
		return fmt.Errorf("pause queue %s: %w", queue, err)
	}
	for {
		select {
		case e, ok := <-paused:
			if !ok {
				return fmt.Errorf("pause queue %s: this node stopped", queue)
			}
			if e.Queue != nil && e.Queue.Name == queue {
				return nil
			}
		case <-ctx.Done():
			return fmt.Errorf("wait for queue %s to pause: %w", queue, ctx.Err())
		}
	}
}

// ResumeQueue undoes PauseQueue on every node.
func (n *Node) ResumeQueue(ctx context.Context, queue string) error {
	if err := n.client.QueueResume(ctx, queue, nil); err != nil {
		return fmt.Errorf("resume queue %s: %w", queue, err)
	}
	return nil
}

func (c Config) withRecoveryDefaults() Config {
	if c.BeatInterval <= 0 {
		c.BeatInterval = DefaultBeatInterval
	}
	if c.FenceAfter <= 0 {
		c.FenceAfter = DefaultFenceAfter
	}
	if c.DeadAfter <= 0 {
		c.DeadAfter = DefaultDeadAfter
	}
	return c
}

// nodeNameSeparator ends the name part of a node id.
const nodeNameSeparator = "~"

// newNodeID returns a River client id unique to this process: name (see
// Config.NodeName) or, without one, the host name, then random bits.
func newNodeID(name string) string {
	b := make([]byte, 8)
	rand.Read(b)
	if name == "" {
		host, _ := os.Hostname()
		if len(host) > 60 {
			host = host[:60]
		}
		return host + "_" + hex.EncodeToString(b)
	}
	// River takes ids of up to 100 characters: a long name is replaced by
	// its digest, which names the node as well.
	name = strings.ReplaceAll(name, nodeNameSeparator, "-")
	if len(name) > 80 {
		sum := sha256.Sum256([]byte(name))
		name = hex.EncodeToString(sum[:20])
	}
	return name + nodeNameSeparator + hex.EncodeToString(b)
}

// EarlierIDPrefix is what the ids of node's earlier lives start with: its
// name and the separator; "" for an id without a name, whose earlier
// lives cannot be told.
func EarlierIDPrefix(node string) string {
	i := strings.LastIndex(node, nodeNameSeparator)
	if i < 0 {
		return ""
	}
	return node[:i+len(nodeNameSeparator)]
}

// keeper beats for its node, fences the node's jobs when it cannot, and
// rescues the jobs of dead nodes.
type keeper struct {
	rec   Recovery
	node  string
	cfg   Config
	fence *fence
	log   *slog.Logger
}

// beat records the node's beats until ctx ends. The fence closes
// FenceAfter after the sending of the last beat recorded, whether the
// beats since failed or still wait for an answer.
func (k *keeper) beat(ctx context.Context) {
	timer := time.AfterFunc(k.cfg.FenceAfter, func() {
		if k.fence.close() {
			k.log.Error("the job queue's node could not record that it is alive; its running jobs are cancelled and left to other nodes until it can", "node", k.node)
		}
	})
	defer timer.Stop()
	k.eachBeat(ctx, func() {
		sent := time.Now()
		bctx, cancel := context.WithTimeout(ctx, k.cfg.FenceAfter)
		err := k.rec.Beat(bctx, k.node)
		cancel()
		switch {
		case err == nil:
			timer.Reset(k.cfg.FenceAfter - time.Since(sent))
			if k.fence.open() {
				k.log.Warn("the job queue's node records that it is alive again; it takes jobs again", "node", k.node)
			}
		case ctx.Err() == nil:
			k.log.Warn("job queue beat failed", "node", k.node, "error", err)
		}
	})
}

// rescue makes the jobs of dead nodes available again every BeatInterval
// until ctx ends.
func (k *keeper) rescue(ctx context.Context) {
	k.eachBeat(ctx, func() {
		n, err := k.rec.RescueJobs(ctx, k.node, k.cfg.DeadAfter)
		switch {
		case err != nil && ctx.Err() == nil:
			k.log.Warn("rescue of the jobs of stopped nodes failed", "error", err)
		case n > 0:
			k.log.Warn("resumed the jobs of a node that stopped", "count", n)
		}
	})
}

// eachBeat calls f every BeatInterval, the first time one interval from
// now, until ctx ends.
func (k *keeper) eachBeat(ctx context.Context, f func()) {
	tick := time.NewTicker(k.cfg.BeatInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			f()
		}
	}
}

// fence cancels the jobs of a node that cannot record it is alive, and
// hands back the jobs it is given meanwhile. It is the River middleware
// every job runs through.
type fence struct {
	river.MiddlewareDefaults

	mu     sync.Mutex
	ctx    context.Context // done while closed
	cancel context.CancelCauseFunc
}

func newFence() *fence {
	f := &fence{}
	f.ctx, f.cancel = context.WithCancelCause(context.Background())
	return f
}

// close cancels the running jobs; false when it already was closed.
func (f *fence) close() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ctx.Err() != nil {
		return false
	}
	f.cancel(errFenced)
	return true
}

// open lets jobs run again; false when it was not closed.
func (f *fence) open() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ctx.Err() == nil {
		return false
	}
	f.ctx, f.cancel = context.WithCancelCause(context.Background())
	return true
}

func (f *fence) current() context.Context {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ctx
}

// Work runs a job with a context the fence's closing cancels. A job the
// fence cuts short is handed back at once, and one that arrives while the
// fence is closed a second later (snoozes, which count no attempt):
// another node, or this one once it beats again, runs it.
func (f *fence) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	fctx := f.current()
	if fctx.Err() != nil {
		return river.JobSnooze(time.Second)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer context.AfterFunc(fctx, func() { cancel(errFenced) })()
	err := doInner(ctx)
	if err != nil && errors.Is(context.Cause(ctx), errFenced) {
		return river.JobSnooze(0)
	}
	return err
}
