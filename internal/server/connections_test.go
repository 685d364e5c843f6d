package server

import "testing"

func TestConnectionsWithinOpenFileLimit(t *testing.T) {
	for _, c := range []struct {
		files uint64
		want  int
	}{
		{20_000, 19_000},                 // the machine of performance.md: 10,000+ odds streams over HTTP/1.1
		{1024, 512},                      // a default soft limit: half for the reserve
		{1, 1},                           // never 0, which would serve nothing
		{1 << 62, maxDefaultConnections}, // unlimited
		{2 * DescriptorReserve, DescriptorReserve}, // the boundary
	} {
		if got := connectionsWithin(c.files); got != c.want {
			t.Errorf("connectionsWithin(%d) = %d, want %d", c.files, got, c.want)
		}
	}
}
