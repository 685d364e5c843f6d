package sandboxweb

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Wallets is a sandbox partner's wallets as the control API's balance and
// blocking endpoints change them.
type Wallets struct {
	// Sandbox names the partner ("operator"); its errors start with it
	// and a colon, which answers leave out.
	Sandbox string
	// Subject is the noun of a wallet's owner ("bettor"); IDField the
	// control API's field naming one ("bettor_id").
	Subject, IDField string
	// ErrJournal is the partner's error for a failed journal, answered
	// 503 storage_unavailable with a fixed message (the journal logs why).
	ErrJournal error
	// Adjust sets (add false) or adds to (add true) the balance of id, in
	// currency ("" for the partner's default).
	Adjust func(id, currency, amount string, add bool) error
	// View is the wallet id as an answer shows it, with its balance and
	// currency.
	View func(id string) (view any, balance, cur string)
	// SetBlocked blocks or unblocks id.
	SetBlocked func(id string, block bool) error
	// Blocked says what a blocked wallet's requests get ("its withdrawals
	// are refused 403 bettor_blocked"), BlockedBrief the same for the
	// form ("withdrawals are refused 403 bettor_blocked").
	Blocked, BlockedBrief string
}

// Handle registers on api the endpoints POST /sandbox/api/balance (set)
// and /sandbox/api/credit (add): {id field, amount, currency?}, and POST
// /sandbox/api/block and /sandbox/api/unblock: {id field}.
func (ws Wallets) Handle(api *http.ServeMux) {
	api.Handle("POST /sandbox/api/balance", Control(ws.adjust(false)))
	api.Handle("POST /sandbox/api/credit", Control(ws.adjust(true)))
	api.Handle("POST /sandbox/api/block", Control(ws.block(true)))
	api.Handle("POST /sandbox/api/unblock", Control(ws.block(false)))
}

// Fail answers an error of the partner's helpers: 503
// storage_unavailable for the journal, with a fixed message (the journal
// logs the reason), and 400 invalid_request with the error's text
// otherwise.
func (ws Wallets) Fail(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, ws.ErrJournal) {
		Fail(w, r, http.StatusServiceUnavailable, "storage_unavailable",
			"the sandbox "+ws.Sandbox+" could not record the change in its journal; nothing changed (its log says why)")
		return
	}
	Fail(w, r, http.StatusBadRequest, "invalid_request", strings.TrimPrefix(err.Error(), ws.Sandbox+": "))
}

func (ws Wallets) adjust(add bool) func(http.ResponseWriter, *http.Request, map[string]string) {
	return func(w http.ResponseWriter, r *http.Request, f map[string]string) {
		id, amount := f[ws.IDField], f["amount"]
		if err := ws.Adjust(id, f["currency"], amount, add); err != nil {
			ws.Fail(w, r, err)
			return
		}
		view, balance, cur := ws.View(id)
		verb := "balance set to"
		if add {
			verb = "credited " + amount + "; balance"
		}
		Done(w, r, fmt.Sprintf("%s %s: %s %s %s", ws.Subject, id, verb, balance, cur), map[string]any{ws.Subject: view})
	}
}

func (ws Wallets) block(block bool) func(http.ResponseWriter, *http.Request, map[string]string) {
	return func(w http.ResponseWriter, r *http.Request, f map[string]string) {
		id := f[ws.IDField]
		if err := CheckID(ws.IDField, id); err != nil {
			ws.Fail(w, r, err)
			return
		}
		if err := ws.SetBlocked(id, block); err != nil {
			ws.Fail(w, r, err)
			return
		}
		state := "unblocked"
		if block {
			state = "blocked: " + ws.Blocked
		}
		Done(w, r, ws.Subject+" "+id+" "+state, nil)
	}
}

// ControlAPI is the control API under /sandbox/api/, behind guard: the
// endpoints api holds, and 404 not_found for any other path.
func ControlAPI(guard Guard, api *http.ServeMux) http.Handler {
	api.HandleFunc("/sandbox/api/", func(w http.ResponseWriter, r *http.Request) {
		Fail(w, r, http.StatusNotFound, "not_found", "no control endpoint "+r.Method+" "+r.URL.Path)
	})
	return guard.Wrap(api)
}

// WalletsForm is the controls page's forms that set, credit, block and
// unblock a wallet (the layout's "wallets" template).
type WalletsForm struct {
	// Subject is the noun of a wallet's owner ("bettor"), SubjectTitle
	// the same capitalised, SubjectField the control API's field naming
	// one; ID the one the forms start with.
	Subject, SubjectTitle, SubjectField, ID string
	// Currency is the default currency; CurrencyMax the longest code.
	Currency    string
	CurrencyMax int
	// BlockLegend says what blocking does.
	BlockLegend string
}

// Form is the controls page's wallet forms, starting with the wallet id,
// in currency (codes of at most currencyMax characters) by default.
func (ws Wallets) Form(id, currency string, currencyMax int) WalletsForm {
	article := "a "
	if strings.ContainsRune("aeiou", rune(ws.Subject[0])) {
		article = "an "
	}
	return WalletsForm{
		Subject: ws.Subject, SubjectTitle: strings.ToUpper(ws.Subject[:1]) + ws.Subject[1:], SubjectField: ws.IDField, ID: id,
		Currency: currency, CurrencyMax: currencyMax,
		BlockLegend: "Block " + article + ws.Subject + " (" + ws.BlockedBrief + ")",
	}
}

// Option is one choice of a select: its value and what it shows.
type Option struct{ Value, Label string }

// Choice is one choice of a page's select that shows its value.
type Choice struct {
	Value    string
	Selected bool
}

// Choices are the choices of a select of values, selected chosen; the
// first value when selected is not one of them.
func Choices(values []string, selected string) []Choice {
	if !slices.Contains(values, selected) && len(values) > 0 {
		selected = values[0]
	}
	out := make([]Choice, len(values))
	for i, v := range values {
		out[i] = Choice{Value: v, Selected: v == selected}
	}
	return out
}

// Chosen is the value of the selected choice; "" when none is.
func Chosen(choices []Choice) string {
	for _, c := range choices {
		if c.Selected {
			return c.Value
		}
	}
	return ""
}

// FaultsForm is the controls page's faults section (the layout's "faults"
// template): the form that arms a fault and the armed faults.
type FaultsForm struct {
	// Subject is the noun of a scope ("bettor"), SubjectTitle the same
	// capitalised, SubjectField the control API's field naming one.
	Subject, SubjectTitle, SubjectField string
	// Scope is the subject id the form starts with.
	Scope string
	// Endpoints are offered, Endpoint selected.
	Endpoints []string
	Endpoint  string
	// Kinds are the kinds of fault offered, in order.
	Kinds []Option
	// CodeField names a refusal code in the control API, CodeLabel on the
	// form; Codes are offered.
	CodeField, CodeLabel string
	Codes                []Option
	// MinStatus is the lowest status a fail fault takes.
	MinStatus int
	// Shapes are the bodies of a malformed fault, the default first.
	Shapes []string
	// Armed are the armed faults, each with Scope, Endpoint, Kind,
	// Remaining, Status, Code, Shape and Delay.
	Armed any
}
