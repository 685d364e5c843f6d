package browsertest

import (
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/apitest"
	"github.com/foresight-dev/foresight/internal/sandbox/operator"
	"github.com/foresight-dev/foresight/internal/server"
	"github.com/foresight-dev/foresight/internal/server/servertest"
)

// SandboxSigningSecret is the signing secret of the sandbox operator the
// browser tests serve beside the platform.
const SandboxSigningSecret = "sandbox-signing-secret-0123"

// StartServer runs a Foresight server, every API and its background
// workers, on loopback with a fresh SQLite database until the test ends,
// and returns its base URL (http://127.0.0.1:port). Its admin token is
// adminToken; it has no rate limits, accepts http:// and loopback partner
// URLs (FORESIGHT_DEV_ALLOW_INSECURE) and polls its job queue every 50 ms.
// Each of configure changes the configuration before the server starts.
func StartServer(t *testing.T, adminToken string, configure ...func(*server.Config)) string {
	t.Helper()
	cfg, l := servertest.Loopback(t, "foresight.db", adminToken)
	cfg.Queue.PollInterval = 50 * time.Millisecond
	for _, f := range configure {
		f(&cfg)
	}
	servertest.Run(t, cfg, l)
	return cfg.PublicURL
}

// Request sends a JSON request (body as it is; "" for none) with the
// bearer token to url, and returns the answer's status and body. headers
// are more headers, each name followed by its value. A request that cannot
// be sent or an answer that cannot be read fails t.
func Request(t testing.TB, method, url, token, body string, headers ...string) (int, []byte) {
	t.Helper()
	_, r := apitest.Do(t, method, url, token, []byte(body), headers...)
	return r.Status, r.Body
}

// World is what every browser test runs against: a Foresight server
// (StartServer) and the sandbox operator served beside it, whose wallet,
// session and JWKS endpoints the platform calls once the operator is
// registered (as "sandbox", with SandboxSigningSecret).
type World struct {
	T       *testing.T
	URL     string             // the platform's base URL
	Op      *operator.Operator // the sandbox operator: its bettors' balances, sessions and tokens
	Partner string             // the sandbox operator's base URL
}
