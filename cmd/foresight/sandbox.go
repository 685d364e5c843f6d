package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"

	"github.com/foresight-dev/foresight/internal/sandbox/casino"
	"github.com/foresight-dev/foresight/internal/sandbox/operator"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxweb"
)

const sandboxUsage = `Usage:
  foresight sandbox operator [flags]   the reference standalone operator: wallet, session, JWKS, host page
  foresight sandbox casino [flags]     the reference aggregator: wallet and a lobby that launches the game

Run "foresight sandbox <partner> -h" for the flags.
`

// sandboxFlags are the settings both sandbox partners share.
type sandboxFlags struct {
	addr, publicURL, database, secret, platformURL, startingBalance, currency, adminToken string
}

func (f *sandboxFlags) define(e *envFlags, defaultAddr, defaultDatabase string) {
	e.String(&f.addr, "addr", "FORESIGHT_SANDBOX_ADDR", defaultAddr, "listen address")
	e.String(&f.publicURL, "public-url", "FORESIGHT_SANDBOX_PUBLIC_URL", "", "base URL the platform and browsers reach the sandbox at (default http:// + listen address)")
	e.String(&f.database, "database", "FORESIGHT_SANDBOX_DATABASE", defaultDatabase, "SQLite file of the sandbox's data; --database '' keeps it in memory")
	e.String(&f.secret, "signing-secret", "FORESIGHT_SANDBOX_SIGNING_SECRET", "", "secret shared with the platform (default: generated once, kept in the database, printed)")
	e.String(&f.platformURL, "platform-url", "FORESIGHT_SANDBOX_PLATFORM_URL", "http://127.0.0.1:8080", "the platform's base URL (its FORESIGHT_PUBLIC_URL)")
	e.String(&f.startingBalance, "starting-balance", "FORESIGHT_SANDBOX_STARTING_BALANCE", "1000.00", "balance of a bettor or player the sandbox sees first")
	e.String(&f.currency, "currency", "FORESIGHT_SANDBOX_CURRENCY", "USD", "currency of new bettors or players")
	e.String(&f.adminToken, "admin-token", "FORESIGHT_SANDBOX_ADMIN_TOKEN", "", "token of the control API (default: none on loopback, generated otherwise)")
}

// siteSettings are the flags' settings of a sandbox site, guarded by
// token (the admin token sandboxListener settled on).
func (f *sandboxFlags) siteSettings(token string) sandboxweb.SiteSettings {
	return sandboxweb.SiteSettings{SigningSecret: f.secret, PlatformURL: f.platformURL, DatabasePath: f.database,
		StartingBalance: f.startingBalance, Currency: f.currency, AdminToken: token}
}

// runSandbox runs `foresight sandbox operator` or `foresight sandbox
// casino` until ctx is done.
func runSandbox(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return dispatch(args, sandboxUsage, "sandbox", stdout, stderr, map[string]command{
		"operator": func(args []string) error { return runSandboxOperator(ctx, args, getenv, stdout, stderr) },
		"casino":   func(args []string) error { return runSandboxCasino(ctx, args, getenv, stdout, stderr) },
	})
}

// sandboxListener listens on --addr of e and returns the listener, the public
// base URL and the admin token: a generated one when none is set and the
// listener is not on loopback.
func sandboxListener(e *envFlags, f *sandboxFlags) (net.Listener, string, string, error) {
	l, err := e.listen("addr")
	if err != nil {
		return nil, "", "", err
	}
	tcp, _ := l.Addr().(*net.TCPAddr)
	base := strings.TrimRight(f.publicURL, "/")
	switch {
	case base != "":
	case tcp != nil && tcp.IP.IsUnspecified():
		// Every interface: name the one this machine reaches; others
		// need --public-url.
		base = "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(tcp.Port))
	default:
		base = "http://" + l.Addr().String()
	}
	token := f.adminToken
	if token == "" && (tcp == nil || !tcp.IP.IsLoopback()) {
		var raw [16]byte
		_, _ = rand.Read(raw[:])
		token = hex.EncodeToString(raw[:])
	}
	return l, base, token, nil
}

func runSandboxOperator(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlagSet("sandbox operator", stderr)
	e := &envFlags{fs: fs, getenv: getenv}
	var f sandboxFlags
	var id string
	f.define(e, "127.0.0.1:8081", "foresight-sandbox-operator.db")
	e.String(&id, "operator-id", "FORESIGHT_SANDBOX_OPERATOR_ID", "sandbox-operator", "the operator's id (OPERATOR_ID) on the platform")
	if err := e.parse(args); err != nil {
		return err
	}
	l, base, token, err := sandboxListener(e, &f)
	if err != nil {
		return err
	}
	site, err := operator.OpenSite(ctx, operator.SiteConfig{
		ID:           id,
		SiteSettings: f.siteSettings(token),
	})
	if err != nil {
		l.Close()
		return err
	}
	fmt.Fprintf(stdout, `Foresight sandbox operator %[1]q is running.

  Wallet base URL  %[2]s   (POST /v1/withdrawals, POST /v1/deposits, DELETE /v1/rollbacks/{id}, POST /v1/session)
  JWKS             %[2]s/.well-known/jwks.json
  Host page        %[2]s/sandbox/host   (logs a bettor in and embeds %[3]s/widget/)
  Ledger           %[2]s/sandbox/ledger
  Controls         %[2]s/sandbox/controls   (control API under %[2]s/sandbox/api/)
%[4]s
Register it on the platform (values: OPERATOR_ID %[1]s, wallet_url, jwks_url, signing_secret):

%[5]s
Press Ctrl-C to stop.
`, id, base, strings.TrimRight(f.platformURL, "/"),
		sandboxSettings(f, site.Operator().SigningSecret(), token),
		registrationCurl(f.platformURL, base, site.Registration(base)))
	return site.Serve(ctx, l)
}

func runSandboxCasino(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlagSet("sandbox casino", stderr)
	e := &envFlags{fs: fs, getenv: getenv}
	var f sandboxFlags
	var aggregatorID, casinoID string
	f.define(e, "127.0.0.1:8082", "foresight-sandbox-casino.db")
	e.String(&aggregatorID, "aggregator-id", "FORESIGHT_SANDBOX_AGGREGATOR_ID", "sandbox-aggregator", "the aggregator's operator id on the platform")
	e.String(&casinoID, "casino-id", "FORESIGHT_SANDBOX_CASINO_ID", casino.DefaultCasinoID, "the casino_id of the lobby's launches")
	if err := e.parse(args); err != nil {
		return err
	}
	l, base, token, err := sandboxListener(e, &f)
	if err != nil {
		return err
	}
	site, err := casino.OpenSite(ctx, casino.SiteConfig{
		AggregatorID: aggregatorID, CasinoID: casinoID,
		SiteSettings: f.siteSettings(token),
	})
	if err != nil {
		l.Close()
		return err
	}
	platform := strings.TrimRight(f.platformURL, "/")
	fmt.Fprintf(stdout, `Foresight sandbox casino %[1]q (aggregator %[2]q) is running.

  Wallet base URL  %[3]s   (POST /v2/provider_agg.Player/Balance, …Round/BetWin, …Round/Finish, …Round/Rollback)
  Lobby            %[3]s/sandbox/lobby   (launches through %[4]s/v2/agg_provider.Launcher/Real)
  Ledger           %[3]s/sandbox/ledger
  Controls         %[3]s/sandbox/controls   (control API under %[3]s/sandbox/api/)
%[5]s
Register its aggregator on the platform (values: id %[2]s, casino_ids [%[1]s], wallet_url, signing_secret):

%[6]s
Press Ctrl-C to stop.
`, casinoID, aggregatorID, base, platform,
		sandboxSettings(f, site.Casino().SigningSecret(), token),
		registrationCurl(f.platformURL, base, site.Registration(base)))
	return site.Serve(ctx, l)
}

// sandboxSettings are the printed lines of the database, secret, admin
// token and platform.
func sandboxSettings(f sandboxFlags, secret, token string) string {
	var b strings.Builder
	db := f.database
	if db == "" {
		db = "none: data in memory only"
	}
	fmt.Fprintf(&b, "  Database         %s\n", db)
	origin := "from --signing-secret"
	if f.secret == "" {
		origin = "generated"
		if f.database != "" {
			origin += ", kept in the database"
		}
	}
	fmt.Fprintf(&b, "  Signing secret   %s   (%s)\n", secret, origin)
	if token == "" {
		b.WriteString("  Admin token      none: the control API answers loopback clients only\n")
	} else {
		fmt.Fprintf(&b, "  Admin token      %s   (Authorization: Bearer … on /sandbox/api/, or log in on the controls page)\n", token)
	}
	fmt.Fprintf(&b, "  Platform         %s\n", strings.TrimRight(f.platformURL, "/"))
	return b.String()
}

// registrationCurl is the admin API call that registers the partner, with
// the body shell-quoted.
func registrationCurl(platformURL, base string, body []byte) string {
	var b strings.Builder
	if strings.HasPrefix(base, "http://") {
		b.WriteString("  (http:// and loopback partner URLs need the platform started with FORESIGHT_DEV_ALLOW_INSECURE=true)\n\n")
	}
	quoted := "'" + strings.ReplaceAll(string(body), "'", `'\''`) + "'"
	fmt.Fprintf(&b, "  curl -X POST %s/admin/v1/operators -H \"Authorization: Bearer $FORESIGHT_ADMIN_TOKEN\" \\\n    -H 'Content-Type: application/json' -d %s\n",
		strings.TrimRight(platformURL, "/"), strings.ReplaceAll(quoted, "\n", "\n    "))
	return b.String()
}
