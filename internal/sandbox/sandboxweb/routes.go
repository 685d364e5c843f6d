package sandboxweb

import "net/http"

// FaultControls arms and clears a partner's faults from the control API
// (faults.Table).
type FaultControls interface {
	Handler(w http.ResponseWriter, r *http.Request, f map[string]string)
	ClearHandler(w http.ResponseWriter, r *http.Request, f map[string]string)
}

// SiteRoutes are the routes every sandbox Site serves beside its own page.
type SiteRoutes struct {
	// Wallet is the partner's wallet API, served at "/".
	Wallet http.Handler
	// Home answers GET / and GET /sandbox/, a redirect to the Site's own
	// page.
	Home http.HandlerFunc
	// Ledger and Controls are the pages GET /sandbox/ledger and GET
	// /sandbox/controls.
	Ledger, Controls http.HandlerFunc
	// Guard guards the control API; its login form posts to
	// /sandbox/login.
	Guard Guard
	// State answers GET /sandbox/api/state.
	State http.HandlerFunc
	// Wallets are the control API's balance and blocking endpoints.
	Wallets Wallets
	// Faults answer POST /sandbox/api/faults and /sandbox/api/faults/clear.
	Faults FaultControls
}

// Mux returns a handler serving those routes and the static files, and
// the mux of the control API (behind the Guard, mounted at /sandbox/api/),
// where the Site adds its own control endpoints.
func (sr SiteRoutes) Mux() (mux, api *http.ServeMux) {
	mux = http.NewServeMux()
	mux.Handle("/", sr.Wallet)
	mux.HandleFunc("GET /{$}", sr.Home)
	mux.HandleFunc("GET /sandbox/{$}", sr.Home)
	mux.Handle("GET /sandbox/static/", Static())
	mux.HandleFunc("GET /sandbox/ledger", sr.Ledger)
	mux.HandleFunc("GET /sandbox/controls", sr.Controls)
	mux.Handle("POST /sandbox/login", sr.Guard.Login())

	api = http.NewServeMux()
	api.HandleFunc("GET /sandbox/api/state", sr.State)
	sr.Wallets.Handle(api)
	api.Handle("POST /sandbox/api/faults", Control(sr.Faults.Handler))
	api.Handle("POST /sandbox/api/faults/clear", Control(sr.Faults.ClearHandler))
	mux.Handle("/sandbox/api/", ControlAPI(sr.Guard, api))
	return mux, api
}
