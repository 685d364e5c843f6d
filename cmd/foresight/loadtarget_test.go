package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestLoadtestTarget runs the load commands against a `foresight
// serve` apart from them (--target), as a load generator on another core
// or machine would, with the sandbox wallets in the generator's process.
// Two runs against one server keep their bets apart.
func TestLoadtestTarget(t *testing.T) {
	t.Parallel()
	token := "load-target-admin-token-0123456789abcdef"
	addr := serveSQLite(t, token, map[string]string{"FORESIGHT_DEV_ALLOW_INSECURE": "true", "FORESIGHT_TICKETS_RATE_LIMIT": "0",
		"FORESIGHT_BET_RATE_LIMIT": "0"}).addr
	target := []string{"--target", "http://" + addr, "--admin-token", token}
	tests := []struct {
		args []string
		want []string
	}{
		{append([]string{"loadtest", "bets", "--duration", "300ms", "--rate", "20", "--concurrency", "4", "--bettors", "5"}, target...),
			[]string{"target http://" + addr, "placement to CONFIRMED", "placement of a paused backlog", "skipped"}},
		{append([]string{"loadtest", "bets", "--duration", "300ms", "--rate", "20", "--concurrency", "4", "--bettors", "5", "--backlog=false"}, target...),
			[]string{"POST /api/v1/bettor/bets, max", "placement to CONFIRMED"}},
		{append([]string{"loadtest", "bets", "--path", "bundled", "--duration", "300ms", "--rate", "20", "--concurrency", "4", "--bettors", "5", "--backlog=false",
			"--settle"}, target...),
			[]string{"bundled operator (balances in the ledger)", "POST /api/v1/bettor/bets, max", "placement to CONFIRMED", "resolve to every payout confirmed"}},
		{append([]string{"loadtest", "--duration", "300ms", "--rate", "20", "--concurrency", "4", "--clients", "3"}, target...),
			[]string{"target http://" + addr, "3 clients", "POST /tickets/v1/jobs, max", "statuses map[202:"}},
		{append([]string{"loadtest", "stream", "--streams", "5", "--changes", "2", "--interval", "50ms"}, target...),
			[]string{"5 streams over HTTP/1.1", "(TCP connections: 5 open", "price change to every stream", "10 of 10 deliveries"}},
		{append([]string{"loadtest", "stream", "--streams", "5", "--changes", "2", "--interval", "50ms", "--http2"}, target...),
			[]string{"5 streams over HTTP/2", "(TCP connections: 1 open", "price change to every stream", "10 of 10 deliveries"}},
	}
	for _, tc := range tests {
		var out, errOut bytes.Buffer
		if err := run(context.Background(), tc.args, envOf(nil), &out, &errOut); err != nil {
			t.Fatalf("%s: %v\n%s%s", strings.Join(tc.args, " "), err, out.String(), errOut.String())
		}
		for _, w := range tc.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%s printed\n%s\nwithout %q", strings.Join(tc.args, " "), out.String(), w)
			}
		}
	}
	var errOut bytes.Buffer
	if err := run(context.Background(), []string{"loadtest", "stream", "--target", "http://" + addr}, envOf(nil), &bytes.Buffer{}, &errOut); err == nil ||
		!strings.Contains(err.Error(), "--admin-token") {
		t.Errorf("a target without its admin token: %v", err)
	}
}
