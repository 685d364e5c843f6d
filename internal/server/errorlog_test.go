package server_test

import (
	"bufio"
	"database/sql"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/logbuffer"
)

// forcedCause is the text of the database failures these tests force; it
// must reach the log and never the client.
const forcedCause = "forced failure: the disk is on fire"

// breakDatabase runs stmts on the SQLite database at path from a
// connection of its own, under the running server.
func breakDatabase(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// failTrigger makes every insert into table fail with forcedCause.
func failTrigger(table string) string {
	return "CREATE TRIGGER forced_failure BEFORE INSERT ON " + table + " BEGIN SELECT RAISE(ABORT, '" + forcedCause + "'); END"
}

// requestLines returns the JSON log lines that name the request id.
func requestLines(t *testing.T, logs string, id string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(logs))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("log line is not JSON: %s", sc.Bytes())
		}
		if m["request_id"] == id {
			lines = append(lines, m)
		}
	}
	return lines
}

// checkFailureLogged: the answer echoes the request id, its body does
// not show the cause, and exactly one log line names the request id and
// holds the cause.
func checkFailureLogged(t *testing.T, logs *logbuffer.Buffer, id, echoed string, body []byte, cause string) {
	t.Helper()
	if echoed != id {
		t.Errorf("X-Request-Id of the answer = %q, want %q", echoed, id)
	}
	if strings.Contains(string(body), "disk") || strings.Contains(string(body), "SQL") {
		t.Errorf("the answer shows an internal diagnostic: %s", body)
	}
	lines := requestLines(t, logs.String(), id)
	if len(lines) != 1 {
		t.Fatalf("%d log lines name request %s, want 1; logs:\n%s", len(lines), id, logs.String())
	}
	if err, _ := lines[0]["err"].(string); !strings.Contains(err, cause) || lines[0]["level"] != "ERROR" {
		t.Errorf("the log line %v does not hold the cause %q at level ERROR", lines[0], cause)
	}
}

// TestBetPlacementDatabaseFailureIsLogged: a database failure while a bet
// is placed answers the bettor API's problem (500, "Internal error.")
// and leaves one log line with the cause and the request id.
func TestBetPlacementDatabaseFailureIsLogged(t *testing.T) {
	t.Parallel()
	path, logs, opts := loggedDatabase(t)
	bw := newBettingWorldWith(t, "sqlite:"+path, opts)
	token := bw.bettor("b-fail", "100")
	breakDatabase(t, path, failTrigger("betting_bets"))
	id := "place-" + uuid.NewString()
	a := bw.api("POST", "/api/v1/bettor/bets", token, `{"market_id":"`+bw.market+`","outcome_id":"`+bw.outcome[0]+`","stake":"5.00"}`,
		"Idempotency-Key", uuid.NewString(), "X-Request-Id", id)
	if a.status != 500 || a.header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("placement = %d %s %s, want 500 problem+json", a.status, a.header.Get("Content-Type"), a.body)
	}
	if p := a.json(t); p["detail"] != "Internal error." || p["status"] != float64(500) || p["type"] != "about:blank" {
		t.Errorf("problem = %v", p)
	}
	checkFailureLogged(t, logs, id, a.header.Get("X-Request-Id"), a.body, forcedCause)
}

// TestRoundDetailsDatabaseFailureIsLogged: a database failure while
// Round/Details reads a round answers the wallet-style 500 of the spec and
// leaves one log line with the cause and the request id.
func TestRoundDetailsDatabaseFailureIsLogged(t *testing.T) {
	t.Parallel()
	path, logs, opts := loggedDatabase(t)
	aw := newAggWorldWith(t, "sqlite:"+path, opts)
	breakDatabase(t, path, "ALTER TABLE betting_bets RENAME TO betting_bets_hidden")
	id := "details-" + uuid.NewString()
	a := aw.details(uuid.NewString(), "en", "X-Request-Id", id)
	if a.status != 500 {
		t.Fatalf("Round/Details = %d %s, want 500", a.status, a.body)
	}
	m := a.json(t)
	if meta, _ := m["meta"].(map[string]any); m["code"] != "internal" || meta["api_code"] != "503" {
		t.Errorf("body = %s, want the wallet-style internal / 503", a.body)
	}
	checkFailureLogged(t, logs, id, a.header.Get("X-Request-Id"), a.body, "no such table")
}

// TestTicketSubmissionDatabaseFailureIsLogged: a database failure while a
// job is submitted answers the ticket API's error object (500
// storage_error) and leaves one log line with the cause and the request
// id.
func TestTicketSubmissionDatabaseFailureIsLogged(t *testing.T) {
	t.Parallel()
	path, logs, opts := loggedDatabase(t)
	w := newWorld(t, "sqlite:"+path, opts)
	breakDatabase(t, path, failTrigger("ticket_jobs"))
	id := "submit-" + uuid.NewString()
	r := w.do("POST", "/tickets/v1/jobs", w.key, submitBody("fail-1", sampleSpec, nil), "X-Request-Id", id)
	if r.status != 500 || r.errorCode(t) != "storage_error" {
		t.Fatalf("submission = %d %s, want 500 storage_error", r.status, r.body)
	}
	checkFailureLogged(t, logs, id, r.header.Get("X-Request-Id"), r.body, forcedCause)
}

// TestRequestIDIsMadeWhenMissing: an answer to a request without
// X-Request-Id carries one the server made.
func TestRequestIDIsMadeWhenMissing(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "sqlite:"+filepath.Join(t.TempDir(), "foresight.db"), worldOptions{})
	r := w.send("GET", "/healthz", "", nil)
	if id := r.header.Get("X-Request-Id"); len(id) != 32 {
		t.Errorf("X-Request-Id = %q, want 32 hex digits", id)
	}
}

// TestAggregatorSignatureDatabaseFailureIsLogged: when the aggregators
// whose secrets a signature is checked against cannot be read, the
// launcher and Round/Details answer their own 500 (not the 403 of a bad
// signature, which would send the partner looking at the secret), each
// with one log line holding the cause and the request id.
func TestAggregatorSignatureDatabaseFailureIsLogged(t *testing.T) {
	t.Parallel()
	path, logs, opts := loggedDatabase(t)
	aw := newAggWorldWith(t, "sqlite:"+path, opts)
	breakDatabase(t, path, "ALTER TABLE betting_operators RENAME TO betting_operators_hidden")

	id := "launch-" + uuid.NewString()
	a := aw.signed("/v2/agg_provider.Launcher/Real", casinoSecret, realLaunch("p-1", "EUR", uuid.NewString()), "X-Request-Id", id)
	if a.status != 500 || a.json(t)["error"] != "internal_error" {
		t.Errorf("Launcher/Real = %d %s, want 500 internal_error", a.status, a.body)
	}
	checkFailureLogged(t, logs, id, a.header.Get("X-Request-Id"), a.body, "no such table")

	id = "details-" + uuid.NewString()
	a = aw.details(uuid.NewString(), "en", "X-Request-Id", id)
	m := a.json(t)
	if meta, _ := m["meta"].(map[string]any); a.status != 500 || m["code"] != "internal" || meta["api_code"] != "503" {
		t.Errorf("Round/Details = %d %s, want the wallet-style 500 internal / 503", a.status, a.body)
	}
	checkFailureLogged(t, logs, id, a.header.Get("X-Request-Id"), a.body, "no such table")
}

// loggedDatabase returns the path of a new SQLite database, and a log and
// the world options that log the server's lines into it as JSON.
func loggedDatabase(t *testing.T) (path string, logs *logbuffer.Buffer, opts worldOptions) {
	logs = &logbuffer.Buffer{}
	return filepath.Join(t.TempDir(), "foresight.db"), logs, worldOptions{log: slog.New(slog.NewJSONHandler(logs, nil))}
}
