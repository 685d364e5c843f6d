package chaos

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// node is one platform process: `foresight serve` on a fixed loopback
// address, started again on the same address after each kill.
type node struct {
	index   int
	addr    string
	url     string
	logPath string

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{} // closed when cmd has ended
	up     bool
	// kills and restarts are the times of each kill -9 and of the
	// restarted process's first healthy answer, in order.
	kills, restarts []time.Time
}

// cluster is the platform's nodes.
type cluster struct {
	serve     []string // the command line of `foresight serve`
	env       []string // the nodes' environment (secrets included)
	publicURL string
	nodes     []*node
	client    *http.Client
}

// newCluster picks n loopback addresses and prepares the nodes; start
// starts them.
func newCluster(serve, env []string, n int, dir string) (*cluster, error) {
	c := &cluster{serve: serve, env: env, client: &http.Client{Timeout: 2 * time.Second}}
	for i := range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		addr := l.Addr().String()
		l.Close()
		c.nodes = append(c.nodes, &node{index: i, addr: addr, url: "http://" + addr,
			logPath: filepath.Join(dir, fmt.Sprintf("node-%d.log", i))})
	}
	// Every node serves the same platform: one public URL, as behind a
	// load balancer (the issuer of the platform's own tokens).
	c.publicURL = c.nodes[0].url
	return c, nil
}

// start starts node n's process and waits until it answers /healthz.
func (c *cluster) start(ctx context.Context, n *node) error {
	log, err := os.OpenFile(n.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "--- chaos: start at %s\n", time.Now().UTC().Format(time.RFC3339Nano))
	args := append(append([]string(nil), c.serve[1:]...),
		"--addr", n.addr, "--public-url", c.publicURL, "--dev-allow-insecure",
		"--market-feed", "manual", "--launcher-rate-limit", "0", "--bet-rate-limit", "0")
	cmd := exec.Command(c.serve[0], args...)
	cmd.Env = append(os.Environ(), c.env...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = childAttributes()
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("node %d: %w", n.index, err)
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		log.Close()
		close(exited)
	}()
	n.mu.Lock()
	n.cmd, n.exited = cmd, exited
	n.mu.Unlock()

	deadline := time.Now().Add(2 * time.Minute)
	for {
		req, _ := http.NewRequestWithContext(ctx, "GET", n.url+"/healthz", nil)
		if resp, err := c.client.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				n.mu.Lock()
				n.up = true
				n.mu.Unlock()
				return nil
			}
		}
		select {
		case <-exited:
			return fmt.Errorf("node %d exited while starting (%s): %s", n.index, cmd.ProcessState, tail(n.logPath))
		case <-ctx.Done():
			c.kill(n)
			return ctx.Err()
		case <-time.After(25 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			c.kill(n)
			return fmt.Errorf("node %d did not answer /healthz within 2 minutes: %s", n.index, tail(n.logPath))
		}
	}
}

// kill sends SIGKILL to node n's process and waits for its end; it
// returns the time of the kill.
func (c *cluster) kill(n *node) time.Time {
	n.mu.Lock()
	cmd, exited := n.cmd, n.exited
	n.up = false
	n.mu.Unlock()
	at := time.Now()
	if cmd != nil {
		cmd.Process.Kill()
		<-exited
	}
	return at
}

// crash kills node n, waits delay and starts it again, recording the
// kill and the restart (its first healthy answer); it returns a line
// that says so.
func (c *cluster) crash(ctx context.Context, n *node, delay time.Duration) (string, error) {
	killed := c.kill(n)
	n.mu.Lock()
	n.kills = append(n.kills, killed)
	n.mu.Unlock()
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case <-time.After(delay):
	}
	if err := c.start(ctx, n); err != nil {
		return "", err
	}
	up := time.Now()
	n.mu.Lock()
	n.restarts = append(n.restarts, up)
	n.mu.Unlock()
	return fmt.Sprintf("node %d killed at %s, started again %v later, up %v after the kill",
		n.index, killed.Format("15:04:05.000"), delay.Round(time.Millisecond), up.Sub(killed).Round(time.Millisecond)), nil
}

// stop ends every node: SIGTERM, then SIGKILL after 10 s.
func (c *cluster) stop() {
	var wg sync.WaitGroup
	for _, n := range c.nodes {
		n.mu.Lock()
		cmd, exited := n.cmd, n.exited
		n.up = false
		n.mu.Unlock()
		if cmd == nil {
			continue
		}
		wg.Go(func() {
			cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-exited
			}
		})
	}
	wg.Wait()
}

// upNodes returns the nodes that are up.
func (c *cluster) upNodes() []*node {
	var out []*node
	for _, n := range c.nodes {
		n.mu.Lock()
		if n.up {
			out = append(out, n)
		}
		n.mu.Unlock()
	}
	return out
}

// pick returns a random node that is up, other than avoid when another is
// up, or nil when none is.
func (c *cluster) pick(avoid *node) *node {
	up := c.upNodes()
	if len(up) > 1 && avoid != nil {
		for i, n := range up {
			if n == avoid {
				up = append(up[:i], up[i+1:]...)
				break
			}
		}
	}
	if len(up) == 0 {
		return nil
	}
	return up[rand.IntN(len(up))]
}

// nodeWindow is the time one node ran after a restart: from its first
// healthy answer to its next kill (zero when none).
type nodeWindow struct {
	node       int
	start, end time.Time
}

// windows lists every restart's running time.
func (c *cluster) windows() []nodeWindow {
	var out []nodeWindow
	for _, n := range c.nodes {
		n.mu.Lock()
		for i, r := range n.restarts {
			w := nodeWindow{node: n.index, start: r}
			// The kill after restart i is kill i+1 (kill i preceded it).
			if i+1 < len(n.kills) {
				w.end = n.kills[i+1]
			}
			out = append(out, w)
		}
		n.mu.Unlock()
	}
	return out
}

// allKills returns every node's kill times.
func (c *cluster) allKills() []time.Time {
	var out []time.Time
	for _, n := range c.nodes {
		n.mu.Lock()
		out = append(out, n.kills...)
		n.mu.Unlock()
	}
	return out
}

// tail returns the last lines of a node's log, for an error.
func tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 10 {
		lines = lines[len(lines)-10:]
	}
	return strings.Join(lines, "\n")
}

// errNoNode is returned when no node is up to take a request.
var errNoNode = errors.New("no node is up")
