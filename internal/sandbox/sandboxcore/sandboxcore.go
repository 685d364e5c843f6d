// Package sandboxcore is the part of a sandbox partner (the operator and
// the casino) that does not depend on its protocol: the setup and the
// keeper of its journal, and its table of armed faults, with the methods
// that read no more than these. Each sandbox embeds a Core and keeps its
// protocol's state, configuration and handlers itself.
package sandboxcore

import (
	"github.com/foresight-dev/foresight/internal/sandbox/faults"
	"github.com/foresight-dev/foresight/internal/sandbox/journal"
)

// Core is what a sandbox keeps besides its protocol's state. C is the
// sandbox's configuration record (see journal.Setup). The fields are the
// sandbox's own to use, under its lock where their documentation says so;
// the methods are part of the sandbox's API.
type Core[C any] struct {
	// Setup is the signing secret and the configuration recorded last.
	Setup *journal.Setup[C]
	// Keeper appends the sandbox's operations to its journal, if any.
	Keeper *journal.Keeper
	// Faults is the armed fault injection: live state, never journalled.
	Faults *faults.Table
}

// New returns the Core of a sandbox whose configuration is given and
// whose signing secret is secret ("": the one recorded in the journal, or
// a new one), injecting the faults of p. The Keeper is the sandbox's to
// set, since its reload builds the whole sandbox.
func New[C any](given C, secret string, p faults.Protocol) Core[C] {
	return Core[C]{Setup: journal.NewSetup(given, secret), Faults: faults.NewTable(p)}
}

// SigningSecret returns the secret shared with the platform that signs
// wallet calls: Config.SigningSecret, or the one recorded in (or
// generated into) the journal.
func (c *Core[C]) SigningSecret() string { return string(c.Setup.Secret()) }

// Close ends the waits of requests held by DelayNext or StallNext, now and
// later: such a request then ends unprocessed and unanswered. Serving goes
// on. Call it before shutting the HTTP server down, so that no handler
// keeps it waiting. It does not close Config.Journal.
func (c *Core[C]) Close() { c.Faults.Close() }

// ClearFaults disarms every fault, of every scope and endpoint.
func (c *Core[C]) ClearFaults() { c.Faults.Clear() }
