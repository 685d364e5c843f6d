package server_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestAdminDecimalFields sends each decimal field of the admin API's
// requests as the contract writes it and as it does not: a JSON number, an
// exponent, a sign, a point without a digit on each side (".5", refused by
// money.IsPlainDecimal) or too many digits is 400 invalid_request naming
// the field, and the contract's strings are taken. The fields are read before
// any store is reached, so one database is enough.
func TestAdminDecimalFields(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "sqlite:"+filepath.Join(t.TempDir(), "foresight.db"), worldOptions{noWorkers: true})
	if st, p := w.asAdmin(t, "POST", "/admin/v1/operators", bundledOperator); st != 201 {
		t.Fatalf("create operator = %d %v", st, p)
	}
	st, ev := w.asAdmin(t, "POST", "/admin/v1/events", `{"category":"sports","title":{"en":"Final"},"markets":[{"question":{"en":"Who wins?"},
		"outcomes":[{"name":{"en":"Home"},"probability":"0.5"},{"name":{"en":"Away"},"probability":"0.5"}]}]}`)
	if st != 201 {
		t.Fatalf("create event = %d %v", st, ev)
	}
	market := ev["markets"].([]any)[0].(map[string]any)
	outcome := func(i int) string { return market["outcomes"].([]any)[i].(map[string]any)["id"].(string) }

	// Each field: where it is sent, the body with the value in place of %v,
	// and the name the problem gives it.
	fields := []struct {
		method, path, body, field string
	}{
		{"POST", "/admin/v1/operators", strings.Replace(bundledOperator, `"integration"`, `"margin":{"value":%v},"integration"`, 1), "margin.value"},
		{"POST", "/admin/v1/operators", strings.Replace(bundledOperator, `"integration"`, `"odds_tolerance":%v,"integration"`, 1), "odds_tolerance"},
		{"PATCH", "/admin/v1/operators/house-of-play", `{"margin":{"method":"shin","value":%v}}`, "margin.value"},
		{"PATCH", "/admin/v1/operators/house-of-play", `{"odds_tolerance":%v}`, "odds_tolerance"},
		{"POST", "/admin/v1/events", `{"category":"sports","title":{"en":"Final"},"markets":[{"question":{"en":"Who wins?"},
			"outcomes":[{"name":{"en":"Home"},"probability":%v},{"name":{"en":"Away"},"probability":"0.5"}]}]}`, "markets.outcomes.probability"},
		{"POST", "/admin/v1/markets/" + market["id"].(string) + "/prices",
			`{"outcomes":[{"id":"` + outcome(0) + `","probability":%v},{"id":"` + outcome(1) + `","probability":"0.5"}]}`, "outcomes.probability"},
	}
	for _, f := range fields {
		for _, bad := range []string{
			`0.5`, `5e-1`, `"5e-1"`, `"0.5E0"`, `"-0.5"`, `"+0.5"`, `"0.5000000000001"`, `"1234567890123456789"`,
			`"5."`, `"."`, `".5"`, `"-.5"`, `"0.5."`, `"0..5"`, `""`, `" 0.5"`, `"0,5"`, `"NaN"`, `true`, `["0.5"]`,
		} {
			body := strings.Replace(f.body, "%v", bad, 1)
			st, p := w.asAdmin(t, f.method, f.path, body)
			detail, _ := p["detail"].(string)
			if st != 400 || p["code"] != "invalid_request" || !strings.HasPrefix(detail, f.field+" must be a decimal string") {
				t.Errorf("%s %s with %s = %s = %d %v, want 400 naming %s", f.method, f.path, f.field, bad, st, p, f.field)
			}
		}
	}

	// The contract's strings are taken, up to 12 decimals.
	for _, c := range []struct {
		method, path, body string
		status             int
	}{
		{"PATCH", "/admin/v1/operators/house-of-play", `{"margin":{"method":"shin","value":"0.04"},"odds_tolerance":"1"}`, 200},
		{"PATCH", "/admin/v1/operators/house-of-play", `{"margin":{"value":"0"},"odds_tolerance":"0.000000000001"}`, 200},
		{"POST", fields[5].path, strings.Replace(strings.Replace(fields[5].body, `%v`, `"0.4"`, 1), `"0.5"`, `"0.6"`, 1), 200},
		{"POST", fields[5].path, strings.Replace(strings.Replace(fields[5].body, `%v`, `"0.123456789012"`, 1), `"0.5"`, `"0.876543210988"`, 1), 200},
	} {
		if st, p := w.asAdmin(t, c.method, c.path, c.body); st != c.status {
			t.Errorf("%s %s %s = %d %v, want %d", c.method, c.path, c.body, st, p, c.status)
		}
	}
	if st, op := w.asAdmin(t, "GET", "/admin/v1/operators/house-of-play", ""); st != 200 || op["odds_tolerance"] != "0.000000000001" ||
		op["margin"].(map[string]any)["value"] != "0" || op["margin"].(map[string]any)["method"] != "odds_ratio" {
		t.Errorf("operator after the changes = %d %v", st, op)
	}
	// A decimal the contract allows but the operator's rules do not is the
	// platform's refusal, as before.
	if st, p := w.asAdmin(t, "PATCH", "/admin/v1/operators/house-of-play", `{"margin":{"value":"0.5"}}`); st != 400 || !strings.Contains(p["detail"].(string), "margin.value must be at least 0") {
		t.Errorf("margin 0.5 = %d %v", st, p)
	}
}

// TestAdminBodyErrors checks that a body the JSON decoder refuses is
// answered in the API's words, naming the field where there is one and
// never a Go type.
func TestAdminBodyErrors(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "sqlite:"+filepath.Join(t.TempDir(), "foresight.db"), worldOptions{noWorkers: true})
	for _, c := range []struct {
		name, path, body, detail string
	}{
		{"a field of the wrong type", "/admin/v1/ticket-clients", `{"name":5}`, "name has the wrong type."},
		{"an object of the wrong type", "/admin/v1/operators", `{"margin":"0.05"}`, "margin has the wrong type."},
		{"a nested field of the wrong type", "/admin/v1/operators", `{"currencies":[{"code":"USD","decimals":"2"}]}`, "currencies.decimals has the wrong type."},
		{"a nested field of the wrong type in a map", "/admin/v1/operators", `{"limits":{"USD":[]}}`, "limits has the wrong type."},
		{"an unknown field", "/admin/v1/ticket-clients", `{"name":"x","colour":1}`, "unknown field colour."},
		{"an unknown nested field", "/admin/v1/operators", `{"margin":{"method":"shin","colour":1}}`, "unknown field colour."},
		{"an unknown field of a currency", "/admin/v1/operators", `{"currencies":[{"code":"USD","decimal":2}]}`, "unknown field decimal."},
		{"not JSON", "/admin/v1/ticket-clients", `{"name":}`, "The request body is not valid JSON."},
		{"cut short", "/admin/v1/ticket-clients", `{"name":`, "The request body is not valid JSON."},
		{"empty", "/admin/v1/ticket-clients", ``, "The request body is empty; it must be a JSON object."},
		{"not an object", "/admin/v1/ticket-clients", `["x"]`, "The request body must be a JSON object."},
		{"a bad amount", "/admin/v1/operators", `{"limits":{"USD":{"min_stake":1}}}`, `The request body is not valid: invalid amount: an amount must be a JSON string, got "1".`},
	} {
		st, p := w.asAdmin(t, "POST", c.path, c.body)
		if st != 400 || p["code"] != "invalid_request" || p["detail"] != c.detail {
			t.Errorf("%s: %s = %d %v, want 400 %q", c.name, c.body, st, p, c.detail)
		}
	}
}
