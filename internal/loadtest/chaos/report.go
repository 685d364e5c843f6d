package chaos

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// FaultCount is how many faults of one kind were injected.
type FaultCount struct {
	Kind  string
	Count int
}

// Report is the outcome of a run.
type Report struct {
	// Database describes the platform's storage and nodes.
	Database string
	Path     string
	Rate     float64
	Duration time.Duration
	// Sent is the bets sent; Accepted those answered 202; Retried those
	// sent again after a node died under them; Refused counts the others'
	// 4xx answers by status; Abandoned those never answered within the
	// retry limit.
	Sent, Accepted, Retried, Abandoned int
	Refused                            map[int]int
	// Statuses counts the platform's bets by final status.
	Statuses map[string]int
	// PlacementKills and SettlementKills count the kill -9 of a node;
	// PayoutsLeftAtKills are the payouts not yet confirmed at each
	// settlement kill.
	PlacementKills, SettlementKills int
	PayoutsLeftAtKills              []int
	// KillsWithCashierInFlight counts the kills that came while cashier
	// movements were in flight (the bundled path), and
	// CashierInFlightAtKills the movements in flight at those kills.
	KillsWithCashierInFlight, CashierInFlightAtKills int
	Faults                                           int
	FaultKinds                                       []FaultCount
	Discrepancies                                    []Discrepancy
	// PendingAfterRestart lists the bets still pending after a restart,
	// longest first; PendingLimit is the most allowed.
	PendingAfterRestart []PendingAfterRestart
	PendingLimit        time.Duration
	// Payouts is the payouts the wallets received after the resolution;
	// ResolveToLastPayout the time from the resolution to the last.
	Payouts             int
	ResolveToLastPayout time.Duration
	// ResolveToLastConfirmed is the time from the resolution to the
	// platform's last record of a confirmed payout (deposit_confirmed_at):
	// longer when an answer was lost and the platform had to ask again.
	ResolveToLastConfirmed time.Duration
	// CashierAccepted, CashierRefused and CashierUnanswered count the
	// bundled path's deposits and withdrawals by answer; LedgerVerified
	// is set when the ledger's Verify found nothing after the run.
	CashierAccepted, CashierRefused, CashierUnanswered int
	LedgerVerified                                     bool
	// Dir holds the run's files (node logs, sandbox journals, SQLite).
	Dir string
}

// MaxPendingAfterRestart is the longest a bet stayed pending after a
// restart.
func (r *Report) MaxPendingAfterRestart() time.Duration {
	if len(r.PendingAfterRestart) == 0 {
		return 0
	}
	return r.PendingAfterRestart[0].For
}

// maxAfterLatest is the longest a bet stayed pending after the latest
// restart of any node: the lower bound of MaxPendingAfterRestart.
func (r *Report) maxAfterLatest() time.Duration {
	var m time.Duration
	for _, p := range r.PendingAfterRestart {
		m = max(m, p.AfterLatest)
	}
	return m
}

// Failures lists why the run failed: discrepancies, and bets pending
// longer than the limit after a restart. None means it passed.
func (r *Report) Failures() []string {
	var out []string
	if n := len(r.Discrepancies); n > 0 {
		out = append(out, fmt.Sprintf("%d discrepancies", n))
	}
	over := 0
	for _, p := range r.PendingAfterRestart {
		if p.For > r.PendingLimit {
			over++
		}
	}
	if over > 0 {
		out = append(out, fmt.Sprintf("%d bets pending longer than %v after a restart (longest %v)", over, r.PendingLimit, r.MaxPendingAfterRestart().Round(time.Millisecond)))
	}
	return out
}

// Write prints the report as a table, then each discrepancy and the bets
// pending longest after a restart.
func (r *Report) Write(w io.Writer) {
	row := func(name, format string, args ...any) {
		fmt.Fprintf(w, "%-34s %s\n", name, fmt.Sprintf(format, args...))
	}
	row("database", "%s", r.Database)
	row("path", "%s", r.Path)
	row("load", "%.0f bets/s for %v", r.Rate, r.Duration)
	row("bets sent", "%d (%d sent again after their node died, %d abandoned, refused %s)", r.Sent, r.Retried, r.Abandoned, counts(r.Refused))
	row("bets accepted", "%d", r.Accepted)
	row("bets by final status", "%s", counts(r.Statuses))
	row("kills", "%d (placement %d, settlement %d)", r.PlacementKills+r.SettlementKills, r.PlacementKills, r.SettlementKills)
	if len(r.PayoutsLeftAtKills) > 0 {
		row("payouts left at settlement kills", "%s", strings.Trim(fmt.Sprint(r.PayoutsLeftAtKills), "[]"))
	}
	var kinds []string
	for _, k := range r.FaultKinds {
		kinds = append(kinds, fmt.Sprintf("%s %d", k.Kind, k.Count))
	}
	row("wallet faults injected", "%d (%s)", r.Faults, strings.Join(kinds, ", "))
	if r.Path == PathBundled {
		row("cashier movements", "%d accepted, %d refused (insufficient funds), %d unanswered", r.CashierAccepted, r.CashierRefused, r.CashierUnanswered)
		row("kills with cashier moves in flight", "%d of %d (%d movements in flight at those kills)", r.KillsWithCashierInFlight,
			r.PlacementKills+r.SettlementKills, r.CashierInFlightAtKills)
		row("ledger verify", "%s", map[bool]string{true: "ok", false: "FAILED (see the discrepancies)"}[r.LedgerVerified])
	}
	row("discrepancies", "%d", len(r.Discrepancies))
	row("max PENDING after a restart", "%v (limit %v, %d bets pending across a restart; after the latest restart of any node: %v)",
		r.MaxPendingAfterRestart().Round(time.Millisecond), r.PendingLimit, len(r.PendingAfterRestart), r.maxAfterLatest().Round(time.Millisecond))
	row("resolve → last payout", "%v (%d payouts); last confirmed by the platform after %v", r.ResolveToLastPayout.Round(time.Millisecond), r.Payouts,
		r.ResolveToLastConfirmed.Round(time.Millisecond))
	for _, d := range r.Discrepancies {
		fmt.Fprintln(w, "discrepancy:", d)
	}
	for i, p := range r.PendingAfterRestart {
		if i == 5 || p.For <= r.PendingLimit && i > 0 {
			break
		}
		fmt.Fprintf(w, "pending after restart: bet %s %v after node %d's restart (%v after the latest restart)\n",
			p.BetID, p.For.Round(time.Millisecond), p.Node, p.AfterLatest.Round(time.Millisecond))
	}
	if f := r.Failures(); len(f) > 0 {
		fmt.Fprintf(w, "FAILED: %s; the run's files are in %s\n", strings.Join(f, "; "), r.Dir)
	} else {
		fmt.Fprintln(w, "PASSED")
	}
}

// counts writes a count map as "k n, k n" in key order.
func counts[K int | string](m map[K]int) string {
	var keys []K
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%v %d", k, m[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func sortPending(p []PendingAfterRestart) {
	sort.Slice(p, func(i, j int) bool {
		if p[i].For != p[j].For {
			return p[i].For > p[j].For
		}
		return p[i].BetID < p[j].BetID
	})
}
