package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Client calls the admin API. The `foresight admin` commands use it.
type Client struct {
	// BaseURL is the server's URL, e.g. http://127.0.0.1:8080.
	BaseURL string
	Token   string
	HTTP    *http.Client
}

// Do sends method path with body (JSON-encoded when not nil) and decodes a
// 2xx answer into out (when not nil). A problem answer is returned as
// *Problem.
func (c *Client) Do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(c.BaseURL, "/")+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		p := &Problem{}
		if json.Unmarshal(data, p) != nil || p.Code == "" {
			return fmt.Errorf("%s %s: HTTP %d: %s", method, path, resp.StatusCode, bytes.TrimSpace(data))
		}
		return p
	}
	if out != nil && len(data) > 0 {
		return json.Unmarshal(data, out)
	}
	return nil
}

// TicketClient is a ticket client as the admin API shows it.
type TicketClient struct {
	ID             string    `json:"id"`
	Name           string    `json:"name"`
	WebhookSecret  string    `json:"webhook_secret,omitempty"`
	Suspended      bool      `json:"suspended"`
	TicketsEnabled bool      `json:"tickets_enabled"`
	CreatedAt      time.Time `json:"created_at"`
}

// TicketKey is an API key as the admin API shows it; Key is set only when
// the key was just created.
type TicketKey struct {
	ID        string     `json:"id"`
	ClientID  string     `json:"client_id"`
	Key       string     `json:"key,omitempty"`
	Scopes    []string   `json:"scopes"`
	ExpiresAt *time.Time `json:"expires_at"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
	CreatedAt time.Time  `json:"created_at"`
}

// CreateTicketClient creates a client and returns it with its webhook secret.
func (c *Client) CreateTicketClient(ctx context.Context, name string) (TicketClient, error) {
	var out TicketClient
	err := c.Do(ctx, http.MethodPost, "/admin/v1/ticket-clients", map[string]string{"name": name}, &out)
	return out, err
}

// ListTicketClients returns every client, following cursors.
func (c *Client) ListTicketClients(ctx context.Context) ([]TicketClient, error) {
	return getAll[TicketClient](ctx, c, "/admin/v1/ticket-clients")
}

// GetTicketClient returns a client (without its webhook secret).
func (c *Client) GetTicketClient(ctx context.Context, id string) (TicketClient, error) {
	var out TicketClient
	err := c.Do(ctx, http.MethodGet, "/admin/v1/ticket-clients/"+url.PathEscape(id), nil, &out)
	return out, err
}

// UpdateTicketClient changes suspended and tickets_enabled where not nil.
func (c *Client) UpdateTicketClient(ctx context.Context, id string, suspended, ticketsEnabled *bool) (TicketClient, error) {
	body := map[string]bool{}
	if suspended != nil {
		body["suspended"] = *suspended
	}
	if ticketsEnabled != nil {
		body["tickets_enabled"] = *ticketsEnabled
	}
	var out TicketClient
	err := c.Do(ctx, http.MethodPatch, "/admin/v1/ticket-clients/"+url.PathEscape(id), body, &out)
	return out, err
}

// CreateTicketKey issues a key; the returned Key is shown once.
func (c *Client) CreateTicketKey(ctx context.Context, clientID string, scopes []string, expiresAt *time.Time) (TicketKey, error) {
	var out TicketKey
	err := c.Do(ctx, http.MethodPost, "/admin/v1/ticket-clients/"+url.PathEscape(clientID)+"/keys", withExpiry(map[string]any{"scopes": scopes}, expiresAt), &out)
	return out, err
}

// ListTicketKeys returns a client's keys, following cursors.
func (c *Client) ListTicketKeys(ctx context.Context, clientID string) ([]TicketKey, error) {
	return getAll[TicketKey](ctx, c, "/admin/v1/ticket-clients/"+url.PathEscape(clientID)+"/keys")
}

// RevokeTicketKey revokes a key.
func (c *Client) RevokeTicketKey(ctx context.Context, clientID, keyID string) error {
	return c.Do(ctx, http.MethodDelete, "/admin/v1/ticket-clients/"+url.PathEscape(clientID)+"/keys/"+url.PathEscape(keyID), nil, nil)
}

// ListTicketJobs returns one page of ticket jobs, newest first, and the
// cursor of the next page ("" after the last). A *Problem with
// invalid_request for a client id that is not a UUID, an unknown status, a
// bad limit or cursor.
func (c *Client) ListTicketJobs(ctx context.Context, q TicketJobQuery) ([]TicketJob, string, error) {
	v := url.Values{}
	setStrings(v, map[string]string{"client_id": q.ClientID, "status": q.Status})
	return getPage[TicketJob](ctx, c, "/admin/v1/ticket-jobs", v, q.Limit, q.Cursor)
}

// GetTicketJob returns a ticket job; a *Problem with not_found when there
// is none.
func (c *Client) GetTicketJob(ctx context.Context, id string) (TicketJob, error) {
	var out TicketJob
	err := c.Do(ctx, http.MethodGet, "/admin/v1/ticket-jobs/"+url.PathEscape(id), nil, &out)
	return out, err
}

// PriceHistory returns one page of a market's odds history, oldest first,
// and the cursor of the next page ("" after the last). A *Problem with
// not_found for an unknown market or operator, invalid_request for a bad
// window, limit or cursor.
func (c *Client) PriceHistory(ctx context.Context, marketID string, q PriceHistoryQuery) ([]PricePoint, string, error) {
	v := url.Values{}
	setStrings(v, map[string]string{"operator_id": q.OperatorID})
	setTimes(v, map[string]time.Time{"from": q.From, "to": q.To})
	return getPage[PricePoint](ctx, c, "/admin/v1/markets/"+url.PathEscape(marketID)+"/price-history", v, q.Limit, q.Cursor)
}

// withExpiry returns body with expires_at set to expiresAt in RFC 3339 in
// UTC, or body as it is when expiresAt is nil (no expiry).
func withExpiry(body map[string]any, expiresAt *time.Time) map[string]any {
	if expiresAt != nil {
		body["expires_at"] = expiresAt.UTC().Format(time.RFC3339)
	}
	return body
}

// setStrings sets in v each of values that is not empty.
func setStrings(v url.Values, values map[string]string) {
	for name, value := range values {
		if value != "" {
			v.Set(name, value)
		}
	}
}

// setTimes sets in v each of times that is not zero, in RFC 3339 in UTC.
func setTimes(v url.Values, times map[string]time.Time) {
	for name, t := range times {
		if !t.IsZero() {
			v.Set(name, t.UTC().Format(time.RFC3339Nano))
		}
	}
}

// getPage gets one page of the list at path with the query v, limit (the
// server's default when 0) and cursor (the first page when empty), and
// returns its items and the cursor of the next page ("" after the last).
func getPage[T any](ctx context.Context, c *Client, path string, v url.Values, limit int, cursor string) ([]T, string, error) {
	if limit != 0 {
		v.Set("limit", strconv.Itoa(limit))
	}
	setStrings(v, map[string]string{"cursor": cursor})
	if len(v) > 0 {
		path += "?" + v.Encode()
	}
	var page struct {
		Items      []T     `json:"items"`
		NextCursor *string `json:"next_cursor"`
	}
	if err := c.Do(ctx, http.MethodGet, path, nil, &page); err != nil {
		return nil, "", err
	}
	if page.NextCursor == nil {
		return page.Items, "", nil
	}
	return page.Items, *page.NextCursor, nil
}

// getAll gets every item of the list at path, a page of 100 at a time,
// following cursors.
func getAll[T any](ctx context.Context, c *Client, path string) ([]T, error) {
	var all []T
	cursor := ""
	for {
		items, next, err := getPage[T](ctx, c, path, url.Values{}, 100, cursor)
		if err != nil {
			return nil, err
		}
		all = append(all, items...)
		if next == "" {
			return all, nil
		}
		cursor = next
	}
}

// BetWalletTransactions returns a bet's transactions in its operator's
// wallet (withdrawal, deposit, rollback) with every recorded attempt, in
// the order of their first attempts. An unknown bet is a *Problem with
// code not_found.
func (c *Client) BetWalletTransactions(ctx context.Context, betID string) ([]WalletTransaction, error) {
	txs, _, err := getPage[WalletTransaction](ctx, c, "/admin/v1/bets/"+url.PathEscape(betID)+"/wallet-transactions", url.Values{}, 0, "")
	return txs, err
}
