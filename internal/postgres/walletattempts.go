package postgres

import (
	"context"
	"strconv"
	"time"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/rowscan"
)

// walletAttemptColumns are the parallel arrays a statement unnests into
// betting_wallet_attempts rows (walletAttemptArrays).
type walletAttemptColumns struct {
	betIDs, kinds, txIDs, amounts, currencies, results, codes, errors []string
	started                                                           []time.Time
	durations                                                         []int64
	statuses                                                          []int32
}

func walletAttemptArrays(attempts []betting.WalletAttempt) walletAttemptColumns {
	var c walletAttemptColumns
	for _, a := range attempts {
		c.betIDs = append(c.betIDs, a.BetID)
		c.kinds = append(c.kinds, a.Kind)
		c.txIDs = append(c.txIDs, a.TransactionID)
		c.amounts = append(c.amounts, a.Amount.String())
		c.currencies = append(c.currencies, a.Currency)
		c.started = append(c.started, a.StartedAt.UTC().Truncate(time.Microsecond))
		c.durations = append(c.durations, a.Duration.Microseconds())
		c.results = append(c.results, string(a.Result))
		c.codes = append(c.codes, a.Code)
		c.statuses = append(c.statuses, int32(a.HTTPStatus))
		c.errors = append(c.errors, a.Error)
	}
	return c
}

// args returns the arrays in the order of walletAttemptsFrom's parameters.
func (c walletAttemptColumns) args() []any {
	return []any{c.betIDs, c.kinds, c.txIDs, c.amounts, c.currencies, c.started, c.durations, c.results, c.codes, c.statuses, c.errors}
}

// walletAttemptsFrom returns the INSERT of the attempts unnested from 11
// array parameters starting at $first, in their order, keeping them when
// the condition where holds ("TRUE" for all).
func walletAttemptsFrom(first int, where string) string {
	p := func(i int) string { return "$" + strconv.Itoa(first+i) }
	return `INSERT INTO betting_wallet_attempts (bet_id, kind, transaction_id, amount, currency, started_at, duration_us, result, code,
			http_status, error)
		SELECT a.bet_id, a.kind, a.transaction_id, a.amount, a.currency, a.started_at, a.duration_us, a.result, a.code, a.http_status, a.error
		FROM unnest(` + p(0) + `::uuid[], ` + p(1) + `::text[], ` + p(2) + `::text[], ` + p(3) + `::numeric[], ` + p(4) + `::text[], ` +
		p(5) + `::timestamptz[], ` + p(6) + `::bigint[], ` + p(7) + `::text[], ` + p(8) + `::text[], ` + p(9) + `::int[], ` + p(10) + `::text[])
			WITH ORDINALITY AS a(bet_id, kind, transaction_id, amount, currency, started_at, duration_us, result, code, http_status, error, n)
		WHERE ` + where + ` ORDER BY a.n`
}

var insertWalletAttemptsSQL = walletAttemptsFrom(1, "TRUE")

func (s betStore) AppendWalletAttempts(ctx context.Context, attempts []betting.WalletAttempt) error {
	if len(attempts) == 0 {
		return nil
	}
	_, err := s.d.pool.Exec(ctx, insertWalletAttemptsSQL, walletAttemptArrays(attempts).args()...)
	return err
}

func (s betStore) WalletAttempts(ctx context.Context, betID string) ([]betting.WalletAttempt, error) {
	out, err := queryList(ctx, s.d.pool, `SELECT bet_id::text, kind, transaction_id, amount::text, currency, started_at, duration_us, result, code,
		http_status, error FROM betting_wallet_attempts WHERE bet_id = $1 ORDER BY started_at, id`, []any{betID}, rowscan.WalletAttempt)
	if badID(err) {
		return []betting.WalletAttempt{}, nil
	}
	return out, err
}
