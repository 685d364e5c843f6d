package server

import "fmt"

// MinTokenLength is the fewest characters CheckTokens accepts in the admin
// token and the metrics token: 32 random letters or hex digits are beyond
// guessing. `openssl rand -hex 24` gives 48, and `foresight demo`
// generates 52.
const MinTokenLength = 32

// CheckTokens refuses an admin token, or a metrics token when one is set,
// shorter than MinTokenLength. `foresight serve` runs it before serving;
// the error names the setting, never the value.
func (c Config) CheckTokens() error {
	if n := len([]rune(c.AdminToken)); n < MinTokenLength {
		return fmt.Errorf("the admin token (FORESIGHT_ADMIN_TOKEN) has %d characters; it needs at least %d, e.g. from `openssl rand -hex 24`", n, MinTokenLength)
	}
	if n := len([]rune(c.MetricsToken)); n > 0 && n < MinTokenLength {
		return fmt.Errorf("the metrics token (FORESIGHT_METRICS_TOKEN) has %d characters; it needs at least %d, e.g. from `openssl rand -hex 24`", n, MinTokenLength)
	}
	return nil
}
