package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/foresight-dev/foresight/internal/conformance"
	"github.com/foresight-dev/foresight/internal/conformance/aggregatorwallet"
	"github.com/foresight-dev/foresight/internal/conformance/operatorwallet"
)

const conformanceUsage = `Usage:
  foresight conformance operator-wallet --url URL --secret SECRET [flags]
      check a standalone operator's wallet (POST /v1/withdrawals, POST /v1/deposits,
      DELETE /v1/rollbacks/{id}) against bettor-and-operator-api.md
  foresight conformance aggregator-wallet --url URL --secret SECRET [flags]
      check an aggregator's wallet (/v2/provider_agg.*) against aggregator-api.md

Each prints a report, one line per check, with the request and answer of every
failure, and exits 1 unless every check passed. The checks move small amounts
of a test account's money and undo them. Run "foresight conformance <command> -h"
for the flags.
`

// runConformance runs `foresight conformance operator-wallet|aggregator-wallet`:
// a black-box check of a partner's wallet, whose report goes to stdout. It
// returns an error when a check failed or was skipped.
func runConformance(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, conformanceUsage)
		return errUsage
	}
	switch args[0] {
	case "operator-wallet":
		return runConformanceOperator(ctx, args[1:], getenv, stdout, stderr)
	case "aggregator-wallet":
		return runConformanceAggregator(ctx, args[1:], getenv, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, conformanceUsage)
		return nil
	}
	fmt.Fprint(stderr, conformanceUsage)
	return fmt.Errorf("unknown conformance command %q", args[0])
}

// conformanceFlags are the flags both commands share.
type conformanceFlags struct {
	url, secret, currency, stake string
	timeout                      time.Duration
}

func (c *conformanceFlags) define(e *envFlags) {
	e.String(&c.url, "url", "FORESIGHT_CONFORMANCE_URL", "", "the wallet's base URL (required)")
	e.String(&c.secret, "secret", "FORESIGHT_CONFORMANCE_SECRET", "", "the signing secret shared with the platform (required)")
	e.String(&c.currency, "currency", "FORESIGHT_CONFORMANCE_CURRENCY", "USD", "the test account's currency")
	e.Duration(&c.timeout, "timeout", "FORESIGHT_CONFORMANCE_TIMEOUT", conformance.DefaultTimeout, "time limit of each request")
}

func (c *conformanceFlags) check() error {
	var errs []error
	if c.url == "" {
		errs = append(errs, errors.New("--url (FORESIGHT_CONFORMANCE_URL) is required"))
	}
	if c.secret == "" {
		errs = append(errs, errors.New("--secret (FORESIGHT_CONFORMANCE_SECRET) is required"))
	}
	return errors.Join(errs...)
}

// runConformanceCommand runs the conformance command name: it parses the
// flags both commands share and those own defines, checks them, runs the
// checker with run and prints its report.
func runConformanceCommand(name string, args []string, getenv func(string) string, stdout, stderr io.Writer,
	own func(e *envFlags, common *conformanceFlags), run func(common *conformanceFlags) (*conformance.Report, error)) error {
	fs := newFlagSet("conformance "+name, stderr)
	e := &envFlags{fs: fs, getenv: getenv}
	var common conformanceFlags
	common.define(e)
	own(e, &common)
	if err := e.parse(args); err != nil {
		return err
	}
	if err := common.check(); err != nil {
		return usageError{err}
	}
	rep, err := run(&common)
	if err != nil {
		return err
	}
	return printReport(rep, stdout)
}

func runConformanceOperator(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var (
		bettor   string
		decimals int
	)
	return runConformanceCommand("operator-wallet", args, getenv, stdout, stderr, func(e *envFlags, common *conformanceFlags) {
		e.String(&bettor, "bettor", "FORESIGHT_CONFORMANCE_BETTOR", "conformance-bettor", "a test bettor holding at least 4 stakes")
		e.Int(&decimals, "decimals", "FORESIGHT_CONFORMANCE_DECIMALS", -1, "decimal places of the currency as configured on the platform (-1: its ISO 4217 minor units)")
		e.String(&common.stake, "stake", "FORESIGHT_CONFORMANCE_STAKE", "", "amount of each test withdrawal (default one unit of the currency)")
	}, func(common *conformanceFlags) (*conformance.Report, error) {
		cfg := operatorwallet.Config{URL: common.url, Secret: common.secret, BettorID: bettor, Currency: common.currency,
			Stake: common.stake, Timeout: common.timeout}
		if decimals >= 0 {
			d := int32(min(decimals, 64))
			cfg.Decimals = &d
		}
		return operatorwallet.Run(ctx, cfg)
	})
}

func runConformanceAggregator(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var account, session string
	return runConformanceCommand("aggregator-wallet", args, getenv, stdout, stderr, func(e *envFlags, common *conformanceFlags) {
		e.String(&account, "account", "FORESIGHT_CONFORMANCE_ACCOUNT", "conformance-player", "a test player's account id holding at least 3 stakes")
		e.String(&session, "session-id", "FORESIGHT_CONFORMANCE_SESSION_ID", "", "session_id of the requests (default a fresh UUID: the wallet must not authorise with it)")
		e.String(&common.stake, "stake", "FORESIGHT_CONFORMANCE_STAKE", "1", "amount of each test bet")
	}, func(common *conformanceFlags) (*conformance.Report, error) {
		return aggregatorwallet.Run(ctx, aggregatorwallet.Config{URL: common.url, Secret: common.secret, AccountID: account,
			Currency: common.currency, SessionID: session, Stake: common.stake, Timeout: common.timeout})
	})
}

// printReport writes the report and returns an error unless it passed.
func printReport(rep *conformance.Report, stdout io.Writer) error {
	if _, err := rep.WriteTo(stdout); err != nil {
		return err
	}
	if !rep.Passed() {
		return fmt.Errorf("the %s does not conform: %d checks failed, %d skipped (see the report)",
			rep.Title, rep.Count(conformance.Fail), rep.Count(conformance.Skip))
	}
	return nil
}
