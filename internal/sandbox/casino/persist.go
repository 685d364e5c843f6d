package casino

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/foresight-dev/foresight/internal/sandbox/journal"
)

// Journal record kinds. A wallet request is journalled under its endpoint
// name (balance, betwin, finish, rollback).
const (
	kindConfig     = "config"
	kindSecret     = "signing_secret"
	kindSetBalance = "set_balance"
	kindCredit     = "credit"
	kindBlock      = "block"
	kindUnblock    = "unblock"
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

func (r configRecord) equal(s configRecord) bool {
	return r.StartingBalance == s.StartingBalance && r.BetLimit == s.BetLimit && maps.Equal(r.Decimals, s.Decimals)
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

type secretRecord struct {
	Secret string `json:"secret"`
}

// SigningSecret returns the secret of X-REQUEST-SIGN: Config.SigningSecret,
// or the one recorded in (or generated into) the journal.
func (c *Casino) SigningSecret() string { return string(c.secret) }

// Close ends the waits of requests held by DelayNext or StallNext, now and
// later: such a request then ends unprocessed and unanswered. Serving goes
// on. Call it before shutting the HTTP server down, so that no handler
// keeps it waiting. It does not close Config.Journal.
func (c *Casino) Close() {
	c.closed.Do(func() { close(c.closing) })
}

// clock is the time of a live operation. With a journal it is UTC and
// whole microseconds, the journal's precision, so that a replay gives the
// same ledger times.
func (c *Casino) clock() time.Time {
	t := c.now()
	if c.journal != nil {
		t = journal.Stamp(t)
	}
	return t
}

// beginLocked starts an operation: it fails once the journal has failed
// for good, and sets a live operation's time.
func (c *Casino) beginLocked(x *walletOp) error {
	if c.failed != nil {
		return c.failed
	}
	if !x.replay {
		x.at = c.clock()
	}
	return nil
}

// commitLocked appends a live operation that changed the state to the
// journal. If the append fails, the state is rebuilt from the journal, so
// the operation is undone, and the error is returned.
func (c *Casino) commitLocked(x *walletOp, kind string, v any) error {
	if c.journal == nil || x.replay {
		return nil
	}
	if _, err := c.journal.AppendValue(context.Background(), x.at, kind, v); err != nil {
		c.rebuildLocked(err)
		return fmt.Errorf("%w: %w", ErrJournal, err)
	}
	return nil
}

// rebuildLocked replaces the journalled state with a replay of the
// journal, after a failed append: the state is then exactly what the
// journal holds (without the failed record, or with it if the append
// reached the disk after all; either way a retry gets a consistent
// answer). Armed faults are kept. If the journal cannot be replayed
// either, the casino fails every later operation until it is restarted.
func (c *Casino) rebuildLocked(cause error) {
	t, err := build(c.cfg)
	if err == nil {
		err = c.journal.Replay(context.Background(), t.applyRecord)
	}
	if err != nil {
		c.failed = fmt.Errorf("%w (%v), and the state could not be read back from it (%v): restart the casino", ErrJournal, cause, err)
		return
	}
	// The secret never changes after New: it is not copied (verification
	// reads it without the lock).
	c.decimals, c.starting, c.betLimit, c.lastConfig = t.decimals, t.starting, t.betLimit, t.lastConfig
	c.accounts, c.blocked, c.limits = t.accounts, t.blocked, t.limits
	c.txs, c.processed, c.tombstones, c.rounds, c.finishes = t.txs, t.processed, t.tombstones, t.rounds, t.finishes
	c.ledger, c.txSeq, c.roundSeq, c.storeSeq = t.ledger, t.txSeq, t.roundSeq, t.storeSeq
}

// open replays the journal, then records what it lacks: the current
// configuration and a generated signing secret.
func (c *Casino) open() error {
	if err := c.journal.Replay(context.Background(), c.applyRecord); err != nil {
		return fmt.Errorf("casino: %w", err)
	}
	at := c.clock()
	if cur := configOf(c.cfg); c.lastConfig == nil || !c.lastConfig.equal(cur) {
		if _, err := c.journal.AppendValue(context.Background(), at, kindConfig, cur); err != nil {
			return err
		}
		if err := c.applyConfig(cur); err != nil {
			return fmt.Errorf("casino: %w", err)
		}
		c.lastConfig = &cur
	}
	if len(c.secret) == 0 {
		secret := randomSecret()
		if _, err := c.journal.AppendValue(context.Background(), at, kindSecret, secretRecord{Secret: secret}); err != nil {
			return err
		}
		c.secret = []byte(secret)
	}
	return nil
}

// applyRecord applies one journal record at its time, through the code
// that applied it first, without the signature check and without
// appending.
func (c *Casino) applyRecord(r journal.Record) error {
	x := &walletOp{at: r.Time, replay: true}
	switch r.Kind {
	case kindConfig:
		var cfg configRecord
		if err := json.Unmarshal(r.Data, &cfg); err != nil {
			return err
		}
		if err := c.applyConfig(cfg); err != nil {
			return err
		}
		c.lastConfig = &cfg
		return nil
	case kindSecret:
		var s secretRecord
		if err := json.Unmarshal(r.Data, &s); err != nil {
			return err
		}
		if c.cfg.SigningSecret == "" {
			c.secret = []byte(s.Secret)
		}
		return nil
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
		if resp := process(x, []byte(w.Body)); !x.applied {
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
	case kindBlock, kindUnblock:
		return c.setBlocked(x, a.AccountID, r.Kind == kindBlock)
	case kindBetLimit:
		return c.setBetLimit(x, a.AccountID, a.Amount)
	}
	return fmt.Errorf("unknown record kind %q", r.Kind)
}

// randomSecret is a new signing secret: 48 hex digits (192 random bits).
func randomSecret() string {
	var raw [24]byte
	_, _ = rand.Read(raw[:]) // never fails (crypto/rand)
	return hex.EncodeToString(raw[:])
}
