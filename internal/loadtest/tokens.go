package loadtest

import "github.com/foresight-dev/foresight/internal/admin"

// NewRunID returns a short random name for a run, the first 8 characters
// of an admin.NewToken: a run puts it in the names of the operators and
// clients it creates, so that runs against one server keep theirs apart.
func NewRunID() string { return admin.NewToken()[:8] }
