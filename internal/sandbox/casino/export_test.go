package casino

import "github.com/foresight-dev/foresight/internal/sandbox/faults"

// ArmedFaults lists the faults still armed, for the tests of package
// casino_test: a fault used up is gone from the list.
func (c *Casino) ArmedFaults() []faults.Armed { return c.Faults.Armed() }
