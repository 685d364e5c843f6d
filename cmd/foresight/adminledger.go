package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/foresight-dev/foresight/internal/admin"
)

// runLedgerVerify is `foresight admin ledger verify`: the server's report
// of the whole ledger, or, when it found a discrepancy, an error listing
// every one, so that a script or a scheduler alerts on the exit status.
func runLedgerVerify(ctx context.Context, c *admin.Client, _ adminValues) (any, error) {
	rep, err := c.VerifyLedger(ctx)
	if err != nil {
		return nil, err
	}
	if !rep.OK {
		var b strings.Builder
		fmt.Fprintf(&b, "the ledger has %d discrepancies:", len(rep.Discrepancies))
		for _, d := range rep.Discrepancies {
			fmt.Fprintf(&b, "\n  %s", d.Check)
			for _, f := range []struct{ name, v string }{{"operator", d.OperatorID}, {"currency", d.Currency},
				{"account", d.AccountID}, {"transfer", d.TransferID}} {
				if f.v != "" {
					fmt.Fprintf(&b, " %s=%s", f.name, f.v)
				}
			}
			b.WriteString(": " + d.Detail)
		}
		return nil, fmt.Errorf("%s", b.String())
	}
	return rep, nil
}
