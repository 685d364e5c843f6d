package rowscan

import "github.com/foresight-dev/foresight/internal/aggregator"

// AggregatorLaunch reads a game launch from token_hash, operator_id,
// casino_id, account_id, currency, session_id, locale, demo, created_at,
// expires_at.
func AggregatorLaunch(row Row) (aggregator.Launch, error) {
	var l aggregator.Launch
	err := row.Scan(&l.TokenHash, &l.OperatorID, &l.CasinoID, &l.AccountID, &l.Currency, &l.SessionID, &l.Locale, &l.Demo,
		Time(&l.CreatedAt), Time(&l.ExpiresAt))
	return l, err
}

// PlatformKey reads a signing key from kid, private_pem, created_at.
func PlatformKey(row Row) (aggregator.StoredKey, error) {
	var k aggregator.StoredKey
	err := row.Scan(&k.ID, &k.PrivatePEM, Time(&k.CreatedAt))
	return k, err
}
