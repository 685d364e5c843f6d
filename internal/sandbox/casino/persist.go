package casino

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/foresight-dev/foresight/internal/sandbox/journal"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxweb"
)

// Journal record kinds. A wallet request is journalled under its endpoint
// name (balance, betwin, finish, rollback).
const (
	kindSetBalance = "set_balance"
	kindCredit     = "credit"
	kindBetLimit   = "bet_limit"
)

// ErrJournal is the error of an operation that could not be appended to
// the journal (nothing changed), or that came after the journal failed for
// good.
var ErrJournal = errors.New("casino: the journal failed; nothing changed")

// configRecord is the configuration that decides how later records apply.
// It is recorded whenever it differs from the last recorded one, so a
// replay applies every record with the configuration it was made under.
type configRecord struct {
	Decimals        map[string]int32 `json:"decimals,omitempty"`
	StartingBalance string           `json:"starting_balance,omitempty"`
	BetLimit        string           `json:"bet_limit,omitempty"`
}

func configOf(cfg Config) configRecord {
	return configRecord{Decimals: cfg.Decimals, StartingBalance: cfg.StartingBalance, BetLimit: cfg.BetLimit}
}

// walletRecord is a wallet request that changed the state or stored an
// answer: its exact body, and whether OmitRoundIDNext shaped its answer.
type walletRecord struct {
	Body        string `json:"body"`
	OmitRoundID bool   `json:"omit_round_id,omitempty"`
}

// accountRecord is a helper call on an account.
type accountRecord struct {
	AccountID string `json:"account_id"`
	Currency  string `json:"currency,omitempty"`
	Amount    string `json:"amount,omitempty"`
}

// install makes t's journalled state c's, after the keeper's reload
// replayed the journal into t, a Casino built with no state after a failed
// append. Armed faults are kept, and so is the secret: it never changes
// after New (verification reads it without the lock).
func (c *Casino) install(t *Casino) {
	c.Setup.Reloaded(t.Setup)
	c.replayed = t.replayed
}

// lacking is what the replayed journal lacks: the current configuration
// and a generated signing secret.
func (c *Casino) lacking() ([]journal.Lacking, error) {
	return c.Setup.Lacking(sandboxweb.RandomSecret), nil
}

// applyRecord applies one journal record at its time, through the code
// that applied it first, without the signature check and without
// appending.
func (c *Casino) applyRecord(r journal.Record) error {
	if setup, err := c.Setup.Apply(r, c.applyConfig); setup {
		return err
	}
	x := &walletOp{Op: *journal.Replaying(r)}
	switch r.Kind {
	case EndpointBalance, EndpointBetWin, EndpointFinish, EndpointRollback:
		var w walletRecord
		if err := json.Unmarshal(r.Data, &w); err != nil {
			return err
		}
		x.omitRoundID = w.OmitRoundID
		process := map[string]processFunc{
			EndpointBalance:  c.balance,
			EndpointBetWin:   c.betWin,
			EndpointFinish:   c.finish,
			EndpointRollback: c.rollback,
		}[r.Kind]
		if resp := process(x, []byte(w.Body)); !x.Applied {
			return fmt.Errorf("the request was not applied again: %d %s", resp.status, resp.body)
		}
		return nil
	}
	var a accountRecord
	if err := json.Unmarshal(r.Data, &a); err != nil {
		return err
	}
	switch r.Kind {
	case kindSetBalance, kindCredit:
		return c.adjust(x, a.AccountID, a.Currency, a.Amount, r.Kind == kindCredit)
	case journal.KindBlock, journal.KindUnblock:
		return c.setBlocked(x, a.AccountID, r.Kind == journal.KindBlock)
	case kindBetLimit:
		return c.setBetLimit(x, a.AccountID, a.Amount)
	}
	return fmt.Errorf("unknown record kind %q", r.Kind)
}
