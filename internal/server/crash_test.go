package server_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/logbuffer"
	"github.com/foresight-dev/foresight/internal/postgres/pgtest"
	"github.com/foresight-dev/foresight/internal/server"
	"github.com/foresight-dev/foresight/internal/waitfor"
)

// childServeEnv names the database a re-executed test binary serves
// (serveAsChild) instead of running tests.
const childServeEnv = "FORESIGHT_TEST_SERVE_CHILD"

// childAddrEnv, when set, is the address the re-executed server listens
// on (default 127.0.0.1:0).
const childAddrEnv = "FORESIGHT_TEST_SERVE_ADDR"

// serveAsChild serves a betting server on databaseURL until the process
// is stopped, printing its URL as the first line of stdout; warnings go to
// stderr.
func serveAsChild(databaseURL string) int {
	cfg := testConfig(databaseURL)
	cfg.DevAllowInsecure = true
	addr := os.Getenv(childAddrEnv)
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	cfg.PublicURL = "http://" + l.Addr().String()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv, err := server.New(ctx, cfg, log)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer srv.Close()
	fmt.Println(cfg.PublicURL)
	if err := srv.Run(ctx, l); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// childServer is a foresight server in a process of its own: this test
// binary, re-executed.
type childServer struct {
	cmd    *exec.Cmd
	url    string
	stderr logbuffer.Buffer // read while the process writes it
	once   sync.Once
}

// firstLine passes the first line written to it on a channel.
type firstLine struct {
	mu   sync.Mutex
	buf  []byte
	line chan string
}

func (f *firstLine) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.line == nil {
		return len(p), nil
	}
	f.buf = append(f.buf, p...)
	if i := bytes.IndexByte(f.buf, '\n'); i >= 0 {
		f.line <- string(f.buf[:i])
		f.line = nil
	}
	return len(p), nil
}

// startChild starts a server on db in a new process; the test's end kills
// it and, when the test failed, logs what it wrote to stderr.
func startChild(t *testing.T, db string) *childServer {
	t.Helper()
	return startChildAt(t, db, "")
}

// startChildAt is startChild listening on addr ("" for any free port).
func startChildAt(t *testing.T, db, addr string) *childServer {
	t.Helper()
	c := &childServer{cmd: exec.Command(os.Args[0], "-test.run=^$")}
	c.cmd.Env = append(os.Environ(), childServeEnv+"="+db, childAddrEnv+"="+addr)
	line := make(chan string, 1)
	c.cmd.Stdout = &firstLine{line: line}
	c.cmd.Stderr = &c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.kill()
		if t.Failed() {
			t.Logf("stderr of server process %d:\n%s", c.cmd.Process.Pid, c.stderr.String())
		}
	})
	select {
	case c.url = <-line:
	case <-time.After(60 * time.Second):
		t.Fatal("the server process did not start within 60 s")
	}
	return c
}

// kill sends SIGKILL and waits for the process to end.
func (c *childServer) kill() {
	c.once.Do(func() {
		c.cmd.Process.Signal(syscall.SIGKILL)
		c.cmd.Wait()
	})
}

// crashWorld is a betting world served by a child process, with wallet
// placements and payouts in flight when the process is killed.
type crashWorld struct {
	*bettingWorld
	tokens  []string
	market2 string
	bets2   []string // bets on market2, in flight at the kill
	payouts int      // deposits of the first market (one a bet, lost ones too), in flight at the kill
}

const crashBettors = 10

// newCrashWorld sets the world up through a child process serving db,
// confirms a bet of every bettor on the first market, resolves it with
// the deposits stalled at the operator, places bets on a second market
// with the withdrawals stalled, and waits until the operator has received
// them all.
func newCrashWorld(t *testing.T, db, addr string) (*crashWorld, *childServer) {
	var withdrawals, deposits atomic.Int64
	bw := newBettingWorldWith(t, db, worldOptions{noWorkers: true, partner: func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/v1/withdrawals":
				withdrawals.Add(1)
			case "/v1/deposits":
				deposits.Add(1)
			}
			h.ServeHTTP(w, r)
		})
	}})
	bw.stop() // the child process serves from now on
	child := startChildAt(t, db, addr)
	bw.url = child.url
	cw := &crashWorld{bettingWorld: bw}

	ids := make([]string, crashBettors)
	for i := range crashBettors {
		cw.tokens = append(cw.tokens, bw.bettor(fmt.Sprint("b", i), "50.00"))
		ids[i] = cw.placeOn(bw.market, cw.tokens[i], bw.outcome[i%2], "2.00")
	}
	for i, id := range ids {
		if b := bw.settled(cw.tokens[i], id); b["status"] != "confirmed" {
			t.Fatalf("bet %d = %v", i, b)
		}
	}
	cw.payouts = crashBettors

	bw.op.StallNext("deposits", 1000)
	bw.resolve(bw.market, bw.outcome[0])
	waitfor.True(t, "the first deposit reaching the operator", func() bool { return deposits.Load() > 0 })

	st, ev := bw.admin("POST", "/admin/v1/events", `{"category":"sports","title":{"en":"Replay"},"image_url":"https://img.example.com/r.png",
		"markets":[{"question":{"en":"Who wins again?"},"image_url":"https://img.example.com/q2.png","outcomes":[{"name":{"en":"Home"},"probability":"0.2"},{"name":{"en":"Away"},"probability":"0.8"}]}]}`)
	if st != 201 {
		t.Fatalf("create event = %d", st)
	}
	m := ev["markets"].([]any)[0].(map[string]any)
	cw.market2 = m["id"].(string)
	away := m["outcomes"].([]any)[1].(map[string]any)["id"].(string)
	bw.op.StallNext("withdrawals", 1000)
	before := withdrawals.Load()
	for i := range crashBettors / 2 {
		cw.bets2 = append(cw.bets2, cw.placeOn(cw.market2, cw.tokens[i], away, "3.00"))
	}
	waitfor.True(t, "every withdrawal reaching the operator", func() bool { return withdrawals.Load()-before >= int64(len(cw.bets2)) })
	return cw, child
}

func (cw *crashWorld) placeOn(market, token, outcome, stake string) string {
	cw.t.Helper()
	a := cw.api("POST", "/api/v1/bettor/bets", token, fmt.Sprintf(`{"market_id":%q,"outcome_id":%q,"stake":%q}`, market, outcome, stake),
		"Idempotency-Key", uuid.NewString())
	if a.status != 202 {
		cw.t.Fatalf("place = %d %s", a.status, a.body)
	}
	return a.json(cw.t)["id"].(string)
}

// recoveryBound is how long after a kill every bet in flight must be
// decided and every payout delivered: far below the six minutes River's
// rescue of stuck jobs took, with room for a loaded machine.
const recoveryBound = 30 * time.Second

// checkRecovered asserts, reading through url, that within recoveryBound
// of killed every bet in flight was confirmed and every payout delivered,
// and that no money moved twice.
func (cw *crashWorld) checkRecovered(t *testing.T, url string, killed time.Time) {
	t.Helper()
	cw.url = url
	cw.op.ClearFaults()
	var deposits map[string]int
	waitfor.Check(t, func() error {
		pending := 0
		for i, id := range cw.bets2 {
			if b := cw.api("GET", "/api/v1/bettor/bets/"+id, cw.tokens[i], "").json(t); b["status"] == "pending" {
				pending++
			} else if b["status"] != "confirmed" {
				t.Fatalf("bet %d after the kill = %v, want confirmed", i, b)
			}
		}
		deposits = map[string]int{}
		for _, e := range cw.op.Ledger() {
			if strings.Contains(string(e.Type), "deposit") {
				deposits[e.TransactionID]++
			}
		}
		if pending > 0 || len(deposits) != cw.payouts {
			return fmt.Errorf("%s after the kill: %d of %d bets still pending, %d of %d payouts delivered",
				time.Since(killed).Round(time.Millisecond), pending, len(cw.bets2), len(deposits), cw.payouts)
		}
		return nil
	})
	if took := time.Since(killed); took > recoveryBound {
		t.Errorf("every bet decided and every payout delivered %s after the kill, want within %s", took.Round(time.Millisecond), recoveryBound)
	}
	for tx, c := range deposits {
		if c != 1 {
			t.Errorf("deposit %s applied %d times", tx, c)
		}
	}
	t.Logf("every bet decided and every payout delivered %.1f s after the kill", time.Since(killed).Seconds())
	// Winners of the first market hold 48 + 8.84; the first half of the
	// bettors staked 3.00 more, debited once.
	for i := range crashBettors {
		want := map[[2]bool]string{{true, false}: "56.84", {false, false}: "48.00", {true, true}: "53.84", {false, true}: "45.00"}[[2]bool{i%2 == 0, i < len(cw.bets2)}]
		if got, _ := cw.op.Balance(fmt.Sprint("b", i)); got != want {
			t.Errorf("bettor %d balance %s, want %s", i, got, want)
		}
	}
}

// TestKilledProcessResumesOnRestart kills (SIGKILL) the one process of a
// SQLite database while withdrawals and deposits wait at the operator,
// restarts it, and expects every bet decided and every payout delivered
// within seconds: the jobs the dead process was running are its
// successor's at start.
func TestKilledProcessResumesOnRestart(t *testing.T) {
	t.Parallel()
	db := "sqlite:" + t.TempDir() + "/foresight.db"
	cw, child := newCrashWorld(t, db, "")
	child.kill()
	killed := time.Now()
	cw.checkRecovered(t, startChild(t, db).url, killed)
}

// TestKilledNodesWorkIsRescued kills (SIGKILL) one of two nodes on a
// PostgreSQL database while its withdrawals and deposits wait at the
// operator, and expects the other node to decide every bet and deliver
// every payout within seconds.
func TestKilledNodesWorkIsRescued(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDatabase(t)
	cw, child := newCrashWorld(t, db, "")
	other := anotherNode(t, db, nil)
	child.kill()
	killed := time.Now()
	cw.checkRecovered(t, other.url, killed)
}

// TestRestartedNodeTakesBackItsJobs kills (SIGKILL) the one node of a
// PostgreSQL database while its withdrawals and deposits wait at the
// operator, and restarts it on the same address at once: the new process
// holds the address, so the node that had it is dead, and its jobs are
// taken back at start, not after the 10 s a silent node takes to be found
// dead (which the log line of the start's rescue shows, whatever the
// machine's speed).
func TestRestartedNodeTakesBackItsJobs(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDatabase(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cw, child := newCrashWorld(t, db, addr)
	child.kill()
	killed := time.Now()
	again := startChildAt(t, db, addr)
	cw.checkRecovered(t, again.url, killed)
	if log := again.stderr.String(); !strings.Contains(log, "resumed the jobs a stopped process left running") {
		t.Errorf("the restarted node did not take back its earlier life's jobs at start; its log:\n%s", log)
	}
}
