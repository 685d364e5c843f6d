package server_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
)

// adminDo sends an admin request with token and validates the exchange
// against api/admin.yaml.
func (w *world) adminDo(t *testing.T, method, path, token string, body any) (int, map[string]any) {
	t.Helper()
	var raw []byte
	if body != nil {
		raw, _ = json.Marshal(body)
		if s, ok := body.(string); ok {
			raw = []byte(s)
		}
	}
	req, r := roundTrip(t, method, w.url+path, token, raw)
	w.adminSpec.Check(t, req, raw, r.status, r.header, r.body)
	var m map[string]any
	if len(r.body) > 0 {
		if err := json.Unmarshal(r.body, &m); err != nil {
			t.Fatalf("%s %s: not JSON: %s", method, path, r.body)
		}
	}
	if r.status >= 400 {
		if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
			t.Errorf("%s %s: error Content-Type %q", method, path, ct)
		}
		if m["code"] == nil || m["status"] != float64(r.status) {
			t.Errorf("%s %s: problem body %s", method, path, r.body)
		}
	}
	return r.status, m
}

// asAdmin is adminDo with the admin token.
func (w *world) asAdmin(t *testing.T, method, path string, body any) (int, map[string]any) {
	t.Helper()
	return w.adminDo(t, method, path, adminToken, body)
}

func TestAdminAPI(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, testAdminAPI)
}

func testAdminAPI(t *testing.T, db string) {
	w := newWorld(t, db, worldOptions{noWorkers: true})
	if st, p := w.adminDo(t, "GET", "/admin/v1/ticket-clients", "", nil); st != 401 || p["code"] != "unauthorized" {
		t.Errorf("no token = %d %v", st, p)
	}
	if st, _ := w.adminDo(t, "GET", "/admin/v1/ticket-clients", "wrong", nil); st != 401 {
		t.Errorf("wrong token = %d", st)
	}

	st, c := w.asAdmin(t, "POST", "/admin/v1/ticket-clients", map[string]any{"name": "Growth"})
	if st != 201 || c["webhook_secret"] == nil || c["tickets_enabled"] != true || c["suspended"] != false {
		t.Fatalf("create client = %d %v", st, c)
	}
	id := c["id"].(string)
	for _, bad := range []any{map[string]any{"name": "x", "colour": 1}, map[string]any{}, map[string]any{"name": ""}, `{"name":`, `[]`} {
		if st, p := w.asAdmin(t, "POST", "/admin/v1/ticket-clients", bad); st != 400 || p["code"] != "invalid_request" {
			t.Errorf("create client %v = %d %v", bad, st, p)
		}
	}
	if st, got := w.asAdmin(t, "GET", "/admin/v1/ticket-clients/"+id, nil); st != 200 || got["webhook_secret"] != nil || got["name"] != "Growth" {
		t.Errorf("get client = %d %v; the secret must not be shown again", st, got)
	}
	for _, unknown := range []string{uuid.NewString(), "not-a-uuid"} {
		if st, _ := w.asAdmin(t, "GET", "/admin/v1/ticket-clients/"+unknown, nil); st != 404 {
			t.Errorf("get unknown client %s = %d", unknown, st)
		}
		if st, _ := w.asAdmin(t, "DELETE", "/admin/v1/ticket-clients/"+id+"/keys/"+unknown, nil); st != 404 {
			t.Errorf("revoke unknown key %s = %d", unknown, st)
		}
	}
	if st, got := w.asAdmin(t, "PATCH", "/admin/v1/ticket-clients/"+id, map[string]any{"suspended": true}); st != 200 || got["suspended"] != true || got["tickets_enabled"] != true {
		t.Errorf("suspend = %d %v", st, got)
	}
	if st, _ := w.asAdmin(t, "PATCH", "/admin/v1/ticket-clients/"+id, map[string]any{"suspended": "yes"}); st != 400 {
		t.Errorf("suspend with a string = %d", st)
	}

	keys := "/admin/v1/ticket-clients/" + id + "/keys"
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	st, k := w.asAdmin(t, "POST", keys, map[string]any{"scopes": []string{"tickets:read"}, "expires_at": future})
	if st != 201 || k["key"] == nil || k["expires_at"] == nil {
		t.Fatalf("create key = %d %v", st, k)
	}
	for _, bad := range []map[string]any{
		{"scopes": []string{}}, {"scopes": []string{"tickets:write"}}, {}, {"scopes": []string{"tickets:read"}, "expires_at": "2001-01-01T00:00:00Z"},
		{"scopes": []string{"tickets:read"}, "expires_at": "tomorrow"},
	} {
		if st, p := w.asAdmin(t, "POST", keys, bad); st != 400 {
			t.Errorf("create key %v = %d %v", bad, st, p)
		}
	}
	if st, _ := w.asAdmin(t, "POST", "/admin/v1/ticket-clients/"+uuid.NewString()+"/keys", map[string]any{"scopes": []string{"tickets:read"}}); st != 404 {
		t.Errorf("key for an unknown client = %d", st)
	}
	st, list := w.asAdmin(t, "GET", keys, nil)
	items, _ := list["items"].([]any)
	if st != 200 || len(items) != 1 || items[0].(map[string]any)["key"] != nil || items[0].(map[string]any)["revoked_at"] != nil {
		t.Fatalf("list keys = %d %v", st, list)
	}
	keyID := k["id"].(string)
	for range 2 {
		if st, _ := w.asAdmin(t, "DELETE", keys+"/"+keyID, nil); st != 204 {
			t.Errorf("revoke = %d; want 204 every time", st)
		}
	}
	if st, _ := w.asAdmin(t, "DELETE", keys+"/"+uuid.NewString(), nil); st != 404 {
		t.Errorf("revoke an unknown key = %d", st)
	}
	if _, list := w.asAdmin(t, "GET", keys, nil); list["items"].([]any)[0].(map[string]any)["revoked_at"] == nil {
		t.Error("revoked key lists without revoked_at")
	}

	// Paging a client's keys: three, one per page, each once.
	for range 2 {
		w.asAdmin(t, "POST", keys, map[string]any{"scopes": []string{"tickets:read"}})
	}
	pagedKeys, keyCursor := map[string]bool{}, ""
	for range 5 {
		path := keys + "?limit=1"
		if keyCursor != "" {
			path += "&cursor=" + keyCursor
		}
		_, page := w.asAdmin(t, "GET", path, nil)
		items := page["items"].([]any)
		if len(items) != 1 {
			t.Fatalf("a page of limit 1 has %d keys", len(items))
		}
		pagedKeys[items[0].(map[string]any)["id"].(string)] = true
		next, _ := page["next_cursor"].(string)
		if next == "" {
			break
		}
		keyCursor = next
	}
	if len(pagedKeys) != 3 {
		t.Errorf("paged through %d keys, want 3", len(pagedKeys))
	}

	// Paging: three clients (the world's own, Growth, one more), one per page.
	w.asAdmin(t, "POST", "/admin/v1/ticket-clients", map[string]any{"name": "Third"})
	seen, cursor := 0, ""
	for range 5 {
		path := "/admin/v1/ticket-clients?limit=1"
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		_, page := w.asAdmin(t, "GET", path, nil)
		seen += len(page["items"].([]any))
		next, _ := page["next_cursor"].(string)
		if next == "" {
			break
		}
		cursor = next
	}
	if seen != 3 {
		t.Errorf("paged through %d clients, want 3", seen)
	}
}
