package operator

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/foresight-dev/foresight/internal/sandbox/journal"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxweb"
)

// Journal record kinds. A wallet request is journalled under its endpoint
// name (withdrawals, deposits, rollbacks).
const (
	kindKey        = "key"
	kindRemoveKey  = "remove_key"
	kindBettor     = "bettor"
	kindSetBalance = "set_balance"
	kindCredit     = "credit"
	kindLifetime   = "token_lifetime"
)

// ErrJournal is the error of an operation that could not be appended to
// the journal (nothing changed), or that came after the journal failed for
// good.
var ErrJournal = errors.New("operator: the journal failed; nothing changed")

// configRecord is the configuration that decides how later records apply.
// It is recorded whenever it differs from the last recorded one, so a
// replay applies every record with the configuration it was made under.
type configRecord struct {
	Currency        string           `json:"currency"`
	Decimals        map[string]int32 `json:"decimals,omitempty"`
	StartingBalance string           `json:"starting_balance,omitempty"`
}

func configOf(cfg Config) configRecord {
	return configRecord{Currency: cfg.Currency, Decimals: cfg.Decimals, StartingBalance: cfg.StartingBalance}
}

// walletRecord is a wallet request that stored an answer: its path id (a
// rollback's withdrawal) and its exact body.
type walletRecord struct {
	PathID string `json:"path_id,omitempty"`
	Body   string `json:"body"`
}

// bettorRecord is a helper call on a bettor.
type bettorRecord struct {
	BettorID string `json:"bettor_id"`
	Currency string `json:"currency,omitempty"`
	Amount   string `json:"amount,omitempty"`
}

// keyRecord is a signing key added (with its PKCS #8 private key) or
// removed (kid only).
type keyRecord struct {
	KeyID string `json:"kid"`
	PKCS8 []byte `json:"pkcs8,omitempty"`
}

func keyRecordOf(k *signingKey) keyRecord {
	der, err := x509.MarshalPKCS8PrivateKey(k.priv)
	if err != nil {
		// A validated RSA key always marshals.
		panic(fmt.Sprintf("operator: marshal key %s: %v", k.kid, err))
	}
	return keyRecord{KeyID: k.kid, PKCS8: der}
}

// lifetimeRecord is a SetTokenLifetime: whole seconds, 0 for
// Config.TokenLifetime again.
type lifetimeRecord struct {
	Seconds int64 `json:"seconds"`
}

// install makes t's journalled state o's, after the keeper's reload
// replayed the journal into t, an Operator built with no state after a
// failed append. Live state (nonces, session requests, faults) is kept,
// and so is the secret: it never changes after New (authentication reads
// it without the lock).
func (o *Operator) install(t *Operator) {
	o.Setup.Reloaded(t.Setup)
	o.replayed = t.replayed
}

// lacking is what the replayed journal lacks: the current configuration,
// the first key and a generated signing secret.
func (o *Operator) lacking() ([]journal.Lacking, error) {
	out := o.Setup.Lacking(sandboxweb.RandomSecret)
	if len(o.keys) == 0 {
		key, err := initialKey(o.cfg)
		if err != nil {
			return nil, err
		}
		out = append(out, journal.Lacking{Kind: kindKey, Value: keyRecordOf(key)})
	}
	return out, nil
}

// applyRecord applies one journal record at its time, through the code
// that applied it first, without authentication and without appending.
func (o *Operator) applyRecord(r journal.Record) error {
	if setup, err := o.Setup.Apply(r, o.applyConfig); setup {
		return err
	}
	x := journal.Replaying(r)
	switch r.Kind {
	case kindKey, kindRemoveKey:
		var k keyRecord
		if err := json.Unmarshal(r.Data, &k); err != nil {
			return err
		}
		if r.Kind == kindRemoveKey {
			return o.removeKey(x, k.KeyID)
		}
		parsed, err := x509.ParsePKCS8PrivateKey(k.PKCS8)
		if err != nil {
			return err
		}
		priv, ok := parsed.(*rsa.PrivateKey)
		if !ok {
			return fmt.Errorf("key %s is not an RSA key", k.KeyID)
		}
		key, err := newSigningKey(priv, k.KeyID)
		if err != nil {
			return err
		}
		return o.addKey(x, key)
	case kindLifetime:
		var l lifetimeRecord
		if err := json.Unmarshal(r.Data, &l); err != nil {
			return err
		}
		return o.setTokenLifetime(x, time.Duration(l.Seconds)*time.Second)
	case endpointWithdrawals, endpointDeposits, endpointRollbacks:
		var w walletRecord
		if err := json.Unmarshal(r.Data, &w); err != nil {
			return err
		}
		process := map[string]processFunc{
			endpointWithdrawals: o.withdraw,
			endpointDeposits:    o.deposit,
			endpointRollbacks:   o.rollback,
		}[r.Kind]
		if resp := process(x, w.PathID, []byte(w.Body)); !x.Applied {
			return fmt.Errorf("the request was not applied again: %d %s", resp.status, resp.body)
		}
		return nil
	}
	var b bettorRecord
	if err := json.Unmarshal(r.Data, &b); err != nil {
		return err
	}
	switch r.Kind {
	case kindBettor:
		return o.createBettor(x, b.BettorID, b.Currency)
	case kindSetBalance, kindCredit:
		return o.adjust(x, b.BettorID, b.Currency, b.Amount, r.Kind == kindCredit)
	case journal.KindBlock, journal.KindUnblock:
		return o.setBlocked(x, b.BettorID, r.Kind == journal.KindBlock)
	}
	return fmt.Errorf("unknown record kind %q", r.Kind)
}
