package polymarket

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// rawEvent is the part of a Gamma event the adapter reads. Fields it does
// not read are ignored, so that a change of their type cannot break the
// decoding.
type rawEvent struct {
	ID               flexString  `json:"id"`
	Title            string      `json:"title"`
	Description      string      `json:"description"`
	Image            string      `json:"image"`
	Icon             string      `json:"icon"`
	Category         string      `json:"category"`
	StartTime        string      `json:"startTime"`
	Active           bool        `json:"active"`
	Closed           bool        `json:"closed"`
	NegRisk          bool        `json:"negRisk"`
	EnableNegRisk    bool        `json:"enableNegRisk"`
	NegRiskAugmented bool        `json:"negRiskAugmented"`
	Tags             []rawTag    `json:"tags"`
	Markets          []rawMarket `json:"markets"`
}

type rawTag struct {
	Slug string `json:"slug"`
}

// rawMarket is the part of a Gamma market the adapter reads. Outcomes,
// OutcomePrices and ClobTokenIDs are JSON arrays, usually encoded in a JSON
// string; Spread is a number or a string.
type rawMarket struct {
	ID                  flexString      `json:"id"`
	Question            string          `json:"question"`
	GroupItemTitle      string          `json:"groupItemTitle"`
	Image               string          `json:"image"`
	Icon                string          `json:"icon"`
	Outcomes            json.RawMessage `json:"outcomes"`
	OutcomePrices       json.RawMessage `json:"outcomePrices"`
	ClobTokenIDs        json.RawMessage `json:"clobTokenIds"`
	Active              bool            `json:"active"`
	Closed              bool            `json:"closed"`
	AcceptingOrders     *bool           `json:"acceptingOrders"`
	NegRisk             bool            `json:"negRisk"`
	NegRiskOther        bool            `json:"negRiskOther"`
	UMAResolutionStatus string          `json:"umaResolutionStatus"`
	Spread              json.RawMessage `json:"spread"`
	GameStartTime       string          `json:"gameStartTime"`
}

// flexString is an id written as a JSON string or number (null is empty).
type flexString string

func (f *flexString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*f = ""
		return nil
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = flexString(strings.TrimSpace(s))
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("id must be a string or a number: %w", err)
	}
	*f = flexString(n.String())
	return nil
}

var errMissing = errors.New("missing")

// listItems returns the items of a JSON array given either as an array or
// as a JSON string holding one ("[\"Yes\", \"No\"]").
func listItems(raw json.RawMessage) ([]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, errMissing
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		raw = bytes.TrimSpace([]byte(s))
		if len(raw) == 0 {
			return nil, errMissing
		}
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("not a JSON array: %w", err)
	}
	return items, nil
}

// scalarText returns a JSON string's value or a JSON number's text.
func scalarText(item json.RawMessage) (string, error) {
	item = bytes.TrimSpace(item)
	if len(item) > 0 && item[0] == '"' {
		var s string
		if err := json.Unmarshal(item, &s); err != nil {
			return "", err
		}
		return strings.TrimSpace(s), nil
	}
	var n json.Number
	if err := json.Unmarshal(item, &n); err != nil {
		return "", fmt.Errorf("%s is neither a string nor a number", item)
	}
	return n.String(), nil
}

// parseStrings parses outcomes or clobTokenIds: every item a non-empty
// string (a number is taken by its text, so a long token id keeps every
// digit).
func parseStrings(raw json.RawMessage) ([]string, error) {
	items, err := listItems(raw)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(items))
	for i, it := range items {
		s, err := scalarText(it)
		if err != nil {
			return nil, fmt.Errorf("item %d: %w", i, err)
		}
		if s == "" {
			return nil, fmt.Errorf("item %d is empty", i)
		}
		out[i] = s
	}
	return out, nil
}

// maxExponent bounds the decimal exponent of a parsed price, so that a
// hostile "1e999999999" cannot make arithmetic allocate without bound.
const maxExponent = 40

// parseDecimal parses one price, string or number, exactly (never through
// float64).
func parseDecimal(item json.RawMessage) (decimal.Decimal, error) {
	s, err := scalarText(item)
	if err != nil {
		return decimal.Decimal{}, err
	}
	if len(s) > 64 {
		return decimal.Decimal{}, fmt.Errorf("%.20s… is too long for a price", s)
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.Decimal{}, err
	}
	if e := d.Exponent(); e > maxExponent || e < -maxExponent {
		return decimal.Decimal{}, fmt.Errorf("%s is out of range", s)
	}
	return d, nil
}

// parseDecimals parses outcomePrices.
func parseDecimals(raw json.RawMessage) ([]decimal.Decimal, error) {
	items, err := listItems(raw)
	if err != nil {
		return nil, err
	}
	out := make([]decimal.Decimal, len(items))
	for i, it := range items {
		d, err := parseDecimal(it)
		if err != nil {
			return nil, fmt.Errorf("price %d: %w", i, err)
		}
		out[i] = d
	}
	return out, nil
}

// parseSpread parses a market's spread; ok is false when it is absent or
// unreadable.
func parseSpread(raw json.RawMessage) (decimal.Decimal, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return decimal.Decimal{}, false
	}
	d, err := parseDecimal(raw)
	return d, err == nil
}

// timeLayouts are the forms Gamma writes times in: RFC 3339
// ("2025-06-10T23:10:00Z") and Postgres' ("2025-06-10 23:10:00+00").
var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999-07",
}

// parseTime returns the time s names in UTC, or nil when s is empty or in
// no known layout.
func parseTime(s string) *time.Time {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			t = t.UTC()
			return &t
		}
	}
	return nil
}

// decodeEvents decodes a listing page: a JSON array of events. An event
// that does not decode is returned in bad (by index) rather than failing
// the page.
func decodeEvents(body []byte) (events []rawEvent, bad []error, err error) {
	var items []json.RawMessage
	if err := json.Unmarshal(body, &items); err != nil {
		return nil, nil, fmt.Errorf("the events page is not a JSON array: %w", err)
	}
	for i, it := range items {
		var e rawEvent
		if err := json.Unmarshal(it, &e); err != nil {
			bad = append(bad, fmt.Errorf("event %d of the page: %w", i, err))
			continue
		}
		events = append(events, e)
	}
	return events, bad, nil
}
