package server

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/foresight-dev/foresight/internal/betting"
)

// newWalletMetrics registers the count of wallet attempts and returns the
// observer that counts each one (betting.Placement.ObserveWalletAttempts).
// A 2xx whose body is not the protocol's answer is counted with result
// "unknown", error "unreadable_answer" and status_class "2xx".
func newWalletMetrics(reg prometheus.Registerer) func(betting.WalletAttempt) {
	attempts := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "foresight_wallet_attempts_total",
		Help: "Requests sent to operators' wallets by transaction kind, result (done, refused, unknown), failure and HTTP status class " +
			"(a 2xx with result unknown is an answer that is not the protocol's).",
	}, []string{"kind", "result", "error", "status_class"})
	reg.MustRegister(attempts)
	return func(a betting.WalletAttempt) {
		class := "none"
		if a.HTTPStatus > 0 {
			class = strconv.Itoa(a.HTTPStatus/100) + "xx"
		}
		attempts.WithLabelValues(a.Kind, string(a.Result), a.Error, class).Inc()
	}
}
