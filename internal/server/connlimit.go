package server

import (
	"container/list"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// connLimiter is a listener that serves at most limit connections at once,
// like netutil.LimitListener, and that makes room at the cap by closing
// the connection idle the longest: one that has sent nothing since it
// opened or since its last answer (http.StateNew or http.StateIdle; an
// HTTP/2 connection with no stream open). Only when none is idle does a
// new connection wait, first accepted, then the ones after it in the
// listen backlog, until one closes. Without
// that, a client that opened the cap's worth of keep-alive connections
// and sent one request on each locked everyone out, the admin API
// included, for the two minutes of the idle timeout.
//
// The server's ConnState must be the limiter's track, which learns from
// it which connections are idle.
type connLimiter struct {
	net.Listener
	limit int

	mu   sync.Mutex
	open int
	// idle holds the idle connections, longest idle first.
	idle *list.List
	// wake is signalled when a connection closes or becomes idle, for
	// an Accept waiting at the cap.
	wake chan struct{}
	// done is closed by Close.
	done      chan struct{}
	closeOnce sync.Once
}

// newConnLimiter returns l serving at most limit connections at once.
func newConnLimiter(l net.Listener, limit int) *connLimiter {
	return &connLimiter{Listener: l, limit: limit, idle: list.New(), wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// Accept accepts a connection, then makes room for it: at the cap it
// closes the connection idle the longest, or, when none is idle, holds
// the new one until a connection closes (the one connection past the cap
// that is ever open). Room is made only for a connection that has come,
// never ahead of it. Accept returns net.ErrClosed once the limiter is
// closed.
func (l *connLimiter) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if err := l.acquire(); err != nil {
		c.Close()
		return nil, err
	}
	lc := &limitedConn{Conn: c, limiter: l}
	l.setIdle(lc, true) // idle until its first byte (http.StateNew)
	return lc, nil
}

// Close closes the listener and ends an Accept waiting for room.
func (l *connLimiter) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// track is the server's ConnState: it keeps the set of idle connections.
func (l *connLimiter) track(c net.Conn, state http.ConnState) {
	lc, ok := c.(*limitedConn)
	if !ok {
		return
	}
	l.setIdle(lc, state == http.StateNew || state == http.StateIdle)
}

// acquire takes a slot, closing the longest idle connection while there
// is none, or waits until one frees.
func (l *connLimiter) acquire() error {
	for {
		l.mu.Lock()
		if l.open < l.limit {
			l.open++
			l.mu.Unlock()
			return nil
		}
		var oldest *limitedConn
		if front := l.idle.Front(); front != nil {
			oldest = l.idle.Remove(front).(*limitedConn)
			oldest.idleAt = nil
		}
		l.mu.Unlock()
		if oldest != nil {
			oldest.Close() // releases its slot
			continue
		}
		select {
		case <-l.wake:
		case <-l.done:
			return net.ErrClosed
		}
	}
}

// release frees a slot.
func (l *connLimiter) release() {
	l.mu.Lock()
	l.open--
	l.mu.Unlock()
	l.signal()
}

// setIdle moves c into the idle list, at its end, or out of it.
func (l *connLimiter) setIdle(c *limitedConn, idle bool) {
	l.mu.Lock()
	if c.idleAt != nil {
		l.idle.Remove(c.idleAt)
		c.idleAt = nil
	}
	if idle && !c.closed {
		c.idleAt = l.idle.PushBack(c)
	}
	l.mu.Unlock()
	if idle {
		l.signal()
	}
}

// signal wakes an Accept waiting for room, if there is one.
func (l *connLimiter) signal() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// limitedConn is a connection of a connLimiter; closing it frees its
// slot once.
type limitedConn struct {
	net.Conn
	limiter *connLimiter
	// idleAt is c's element of the limiter's idle list, nil when c is
	// not idle; closed is set by Close. Both are guarded by the
	// limiter's mu.
	idleAt *list.Element
	closed bool
}

// Close closes the connection and frees its slot; it is safe to call
// more than once and from several goroutines.
func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	l := c.limiter
	l.mu.Lock()
	if c.closed {
		l.mu.Unlock()
		return err
	}
	c.closed = true
	if c.idleAt != nil {
		l.idle.Remove(c.idleAt)
		c.idleAt = nil
	}
	l.mu.Unlock()
	l.release()
	return err
}

// closeUnreadBodies ends, once next returned, an HTTP/1 request whose body
// next left unread (a request refused before its body, or a route that
// takes none), by setting the connection's read deadline to now: the
// server then answers and closes the connection instead of reading the
// rest of the body to discard it, which it would wait for up to its
// ReadTimeout. Without that, a request announcing a body and never
// sending it held its connection busy for the whole ReadTimeout, out of
// the limiter's reach (it closes idle connections only), and the cap's
// worth of them locked everyone out. A body read to its end keeps the
// connection for the next request.
func closeUnreadBodies(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor != 1 || r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		body := &readCounter{ReadCloser: r.Body}
		r.Body = body
		next.ServeHTTP(w, r)
		if !body.eof && (r.ContentLength < 0 || body.n < r.ContentLength) {
			_ = http.NewResponseController(w).SetReadDeadline(time.Now())
		}
	})
}

// readCounter is a request body that counts the bytes read from it and
// notes its end.
type readCounter struct {
	io.ReadCloser
	n   int64
	eof bool
}

func (b *readCounter) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	if err == io.EOF {
		b.eof = true
	}
	return n, err
}
