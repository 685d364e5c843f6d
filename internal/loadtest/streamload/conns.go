package streamload

import (
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
)

// newTransport returns the streams' transport, whose connections conns
// counts: one per stream over HTTP/1.1; over HTTP/2 (without TLS, prior
// knowledge) the transport opens another when the server's limit of
// streams per connection is reached.
func newTransport(conns *connCounter, http2 bool) *http.Transport {
	var dialer net.Dialer
	transport := &http.Transport{MaxIdleConnsPerHost: -1, DisableCompression: true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dialer.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return conns.track(c), nil
		}}
	if http2 {
		transport.MaxIdleConnsPerHost = 0 // an HTTP/2 connection is shared from the idle list
		transport.Protocols = new(http.Protocols)
		transport.Protocols.SetUnencryptedHTTP2(true)
	}
	return transport
}

// connCounter counts the connections a transport dialed and those still
// open.
type connCounter struct{ dialed, open atomic.Int64 }

// track counts c and returns it, counting its close.
func (n *connCounter) track(c net.Conn) net.Conn {
	n.dialed.Add(1)
	n.open.Add(1)
	return &countedConn{Conn: c, n: n}
}

// countedConn is a connection of a connCounter.
type countedConn struct {
	net.Conn
	n      *connCounter
	closed sync.Once
}

// Close closes the connection and counts it closed the first time.
func (c *countedConn) Close() error {
	c.closed.Do(func() { c.n.open.Add(-1) })
	return c.Conn.Close()
}
