package jobqueue

import (
	"testing"
	"time"

	"github.com/riverqueue/river/rivertype"
)

// A callback put back for its client's turns comes back after half a
// second to a second, twice as long each time it is put back again, never
// after more than a minute; the count of snoozes is River's metadata.
func TestCallbackSnooze(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		metadata string
		low      time.Duration
		high     time.Duration
	}{
		{`{}`, 500 * time.Millisecond, time.Second},
		{`{"snoozes": 1}`, time.Second, 2 * time.Second},
		{`{"snoozes": 3, "other": "x"}`, 4 * time.Second, 8 * time.Second},
		{`{"snoozes": 40}`, 30 * time.Second, time.Minute},
		{`not json`, 500 * time.Millisecond, time.Second},
	} {
		for range 20 {
			d := callbackSnooze(snoozes(&rivertype.JobRow{Metadata: []byte(tt.metadata)}))
			if d < tt.low || d >= tt.high {
				t.Fatalf("metadata %s: snooze %v, want within [%v, %v)", tt.metadata, d, tt.low, tt.high)
			}
		}
	}
}
