package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/betting/wallet"
	"github.com/foresight-dev/foresight/internal/sandbox/casino"
	"github.com/foresight-dev/foresight/internal/sandbox/operator"
)

const conformanceSecret = "conformance-cli-secret"

func sandboxOperator(t *testing.T) http.Handler {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	op, err := operator.New(operator.Config{ID: "cli-op", SigningSecret: conformanceSecret, StartingBalance: "1000", PrivateKey: key})
	if err != nil {
		t.Fatal(err)
	}
	return op.Handler()
}

func sandboxCasino(t *testing.T) http.Handler {
	t.Helper()
	c, err := casino.New(casino.Config{SigningSecret: conformanceSecret, StartingBalance: "1000"})
	if err != nil {
		t.Fatal(err)
	}
	return c.Handler()
}

// anySignature lets every request through to h with the right signature:
// a wallet that does not check signatures.
func anySignature(h http.Handler, header string, sign func(body []byte) string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Header.Set(header, sign(body))
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	})
}

func TestConformanceCommands(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		handler func(t *testing.T) http.Handler
		args    []string
		env     map[string]string
		// fails is empty for a wallet that conforms, else a line of the
		// report that must be printed.
		fails string
	}{
		{
			name:    "sandbox operator, flags",
			handler: sandboxOperator,
			args:    []string{"conformance", "operator-wallet", "--secret", conformanceSecret, "--bettor", "cli-bettor", "--currency", "EUR", "--stake", "2.50"},
		},
		{
			name:    "sandbox casino, environment",
			handler: sandboxCasino,
			args:    []string{"conformance", "aggregator-wallet"},
			env:     map[string]string{"FORESIGHT_CONFORMANCE_SECRET": conformanceSecret, "FORESIGHT_CONFORMANCE_ACCOUNT": "cli-player", "FORESIGHT_CONFORMANCE_STAKE": "0.5"},
		},
		{
			name: "operator wallet that ignores signatures",
			handler: func(t *testing.T) http.Handler {
				return anySignature(sandboxOperator(t), "X-Payload-Signature", func(b []byte) string { return wallet.Sign(conformanceSecret, b) })
			},
			args:  []string{"conformance", "operator-wallet", "--secret", conformanceSecret},
			fails: "FAIL  wrong-signature",
		},
		{
			name: "casino wallet that ignores signatures",
			handler: func(t *testing.T) http.Handler {
				return anySignature(sandboxCasino(t), "X-REQUEST-SIGN", func(b []byte) string { return casino.Sign([]byte(conformanceSecret), b) })
			},
			args:  []string{"conformance", "aggregator-wallet", "--secret", conformanceSecret},
			fails: "FAIL  missing-signature",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(tt.handler(t))
			defer srv.Close()
			env := map[string]string{"FORESIGHT_CONFORMANCE_URL": srv.URL}
			for k, v := range tt.env {
				env[k] = v
			}
			args := tt.args
			if tt.env == nil {
				args = append(args, "--url", srv.URL)
				env = nil
			}
			var out, errOut bytes.Buffer
			err := run(context.Background(), args, envOf(env), &out, &errOut)
			report := out.String()
			if tt.fails == "" {
				if err != nil || !strings.Contains(report, "the wallet conforms") {
					t.Errorf("run: %v\n%s%s", err, report, errOut.String())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "does not conform") {
				t.Errorf("run against a broken wallet: %v, want a failure", err)
			}
			if !strings.Contains(report, tt.fails) || !strings.Contains(report, "request #") || !strings.Contains(report, "HTTP 200 OK") {
				t.Errorf("the report lacks %q or the failing request and answer:\n%s", tt.fails, report)
			}
		})
	}
}

func TestConformanceUsageErrors(t *testing.T) {
	t.Parallel()
	wantCommandErrors(t, []commandError{
		{[]string{"conformance"}, nil, errUsage.Error()},
		{[]string{"conformance", "casino-wallet"}, nil, `unknown conformance command "casino-wallet"`},
		{[]string{"conformance", "operator-wallet"}, nil, "--url (FORESIGHT_CONFORMANCE_URL) is required"},
		{[]string{"conformance", "aggregator-wallet", "--url", "http://127.0.0.1:1"}, nil, "--secret (FORESIGHT_CONFORMANCE_SECRET) is required"},
		{[]string{"conformance", "operator-wallet", "--url", "http://127.0.0.1:1", "--secret", "s", "--currency", "BTC"}, nil, "give its decimals"},
		{[]string{"conformance", "aggregator-wallet"}, map[string]string{"FORESIGHT_CONFORMANCE_TIMEOUT": "soon"}, "FORESIGHT_CONFORMANCE_TIMEOUT"},
	})
	var errOut bytes.Buffer
	if err := run(context.Background(), []string{"conformance"}, envOf(nil), &bytes.Buffer{}, &errOut); !strings.Contains(errOut.String(), "foresight conformance operator-wallet --url URL") {
		t.Errorf("conformance: %v and no usage printed: %q", err, errOut.String())
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"conformance", "help"}, envOf(nil), &out, &bytes.Buffer{}); err != nil || !strings.Contains(out.String(), "aggregator-wallet") {
		t.Errorf("conformance help: %v %q", err, out.String())
	}
}
