package polymarket

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/feed"
	"github.com/foresight-dev/foresight/internal/odds"
)

// Locale is the locale of every text the adapter reports: Polymarket
// publishes in English only.
const Locale = "en"

// ProbabilityDecimals is the number of decimal places of renormalised
// probabilities.
const ProbabilityDecimals = 6

// MaxMarkets is the most markets an offered event may have (the catalog's
// limit).
const MaxMarkets = 50

// maxText is the catalog's limit on a text, in bytes.
const maxText = 2000

var (
	one  = decimal.NewFromInt(1)
	half = decimal.New(5, -1)
)

// CategoryRule maps a Polymarket tag to a Foresight category.
type CategoryRule struct {
	// Tag is a Gamma tag slug ("nba", "fed-rates") or a value of the
	// event's legacy category field with spaces written as hyphens
	// ("pop-culture"); it is compared without regard to case.
	Tag string
	// Category is one of betting.Categories.
	Category string
}

// DefaultCategories returns the default rules, most specific first: sport,
// crypto, climate and technology tags win over economy, which wins over
// politics (an event tagged "politics" and "crypto" is crypto).
func DefaultCategories() []CategoryRule {
	var rules []CategoryRule
	add := func(category string, tags ...string) {
		for _, t := range tags {
			rules = append(rules, CategoryRule{Tag: t, Category: category})
		}
	}
	add("sports", "sports", "nba", "nfl", "mlb", "nhl", "soccer", "epl", "premier-league", "ucl",
		"champions-league", "la-liga", "tennis", "ufc", "boxing", "mma", "f1", "formula1", "golf",
		"cricket", "cfb", "ncaa", "college-football", "basketball", "baseball", "hockey", "esports", "olympics")
	add("crypto", "crypto", "bitcoin", "ethereum", "solana", "crypto-prices", "memecoins", "airdrops", "stablecoins")
	add("climate", "climate", "weather", "climate-science", "global-temperature", "hurricanes", "natural-disasters")
	add("technology", "tech", "technology", "ai", "openai", "big-tech", "science", "space")
	add("economy", "economy", "economics", "fed", "fed-rates", "inflation", "interest-rates", "finance",
		"business", "stocks", "commodities", "gdp", "recession", "economic-policy")
	add("elections", "elections", "global-elections", "world-elections", "us-presidential-election",
		"midterms", "primaries", "us-politics", "congress", "politics")
	return rules
}

// category returns the Foresight category of e: the category of the first
// rule whose tag e carries, else def (ok is false when that is empty).
func category(rules []CategoryRule, def string, e *rawEvent) (string, bool) {
	have := map[string]bool{}
	for _, t := range e.Tags {
		if s := strings.ToLower(strings.TrimSpace(t.Slug)); s != "" {
			have[s] = true
		}
	}
	if c := strings.ToLower(strings.Join(strings.Fields(e.Category), "-")); c != "" {
		have[c] = true
	}
	for _, r := range rules {
		if have[strings.ToLower(r.Tag)] {
			return r.Category, true
		}
	}
	return def, def != ""
}

// text returns s trimmed, made valid UTF-8 and cut to the catalog's 2000
// bytes at a rune boundary.
func text(s string) string {
	s = strings.TrimSpace(strings.ToValidUTF8(s, "\uFFFD"))
	if len(s) <= maxText {
		return s
	}
	cut := maxText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.TrimSpace(s[:cut])
}

func texts(s string) betting.Texts {
	if s = text(s); s == "" {
		return nil
	}
	return betting.Texts{Locale: s}
}

// httpsURL returns the first candidate that is an absolute https URL, or
// "".
func httpsURL(candidates ...string) string {
	for _, c := range candidates {
		c = strings.TrimSpace(c)
		if u, err := url.Parse(c); err == nil && u.Scheme == "https" && u.Host != "" {
			return c
		}
	}
	return ""
}

// offerSkip says why a market of a new event is not offered: a negRisk
// placeholder or the "Other" market. It is "" for a market to offer.
func offerSkip(e *rawEvent, m *rawMarket) string {
	if m.NegRiskOther {
		return "the negRisk Other market"
	}
	if (e.NegRisk || e.EnableNegRisk || e.NegRiskAugmented || m.NegRisk) && !m.Active && !m.Closed {
		return "a negRisk placeholder (inactive)"
	}
	return ""
}

// rules are the settings of the mapping.
type rules struct {
	maxSpread decimal.Decimal
}

// mapMarket maps one Gamma market of e. It fails when the market cannot be
// reported at all: no id, no question, outcomes or token ids missing,
// fewer than 2 or more than 20, of different counts, or token ids
// repeated.
func (r rules) mapMarket(e *rawEvent, m *rawMarket) (feed.Market, error) {
	key := string(m.ID)
	if key == "" {
		return feed.Market{}, fmt.Errorf("market without an id")
	}
	question := text(m.Question)
	if question == "" {
		if g := text(m.GroupItemTitle); g != "" {
			question = text(text(e.Title) + ": " + g)
		}
	}
	if question == "" {
		return feed.Market{}, fmt.Errorf("market %s: no question", key)
	}
	labels, err := parseStrings(m.Outcomes)
	if err != nil {
		return feed.Market{}, fmt.Errorf("market %s: outcomes: %w", key, err)
	}
	if len(labels) < 2 || len(labels) > 20 {
		return feed.Market{}, fmt.Errorf("market %s: %d outcomes, not 2 to 20", key, len(labels))
	}
	tokens, err := parseStrings(m.ClobTokenIDs)
	if err != nil {
		return feed.Market{}, fmt.Errorf("market %s: clobTokenIds: %w", key, err)
	}
	if len(tokens) != len(labels) {
		return feed.Market{}, fmt.Errorf("market %s: %d token ids for %d outcomes", key, len(tokens), len(labels))
	}
	for i, t := range tokens {
		if slices.Contains(tokens[:i], t) {
			return feed.Market{}, fmt.Errorf("market %s: token id %s repeated", key, t)
		}
	}
	outcomes := make([]feed.Outcome, len(labels))
	for i, l := range labels {
		name := text(l)
		if name == "" {
			return feed.Market{}, fmt.Errorf("market %s: outcome %d has no name", key, i)
		}
		outcomes[i] = feed.Outcome{Key: tokens[i], Name: betting.Texts{Locale: name}}
	}
	prices, perr := parseDecimals(m.OutcomePrices)
	if perr == nil && len(prices) != len(labels) {
		perr = fmt.Errorf("%d prices for %d outcomes", len(prices), len(labels))
	}
	if perr != nil {
		prices = nil
	}
	state, win := r.state(e, m, prices)
	winner := ""
	if state == feed.Resolved {
		winner = tokens[win]
	}
	if probs, ok := usable(prices); ok && (state == feed.Open || state == feed.Suspended) {
		for i := range outcomes {
			outcomes[i].Probability = probs[i]
		}
	}
	return feed.Market{
		Key:      key,
		Question: betting.Texts{Locale: question},
		ImageURL: httpsURL(m.Image, m.Icon),
		ClosesAt: parseTime(m.GameStartTime),
		State:    state,
		Winner:   winner,
		Outcomes: outcomes,
	}, nil
}

// state applies the state rules of the package doc; prices is nil when
// they are missing, unreadable or not one per outcome.
func (r rules) state(e *rawEvent, m *rawMarket, prices []decimal.Decimal) (feed.State, int) {
	status := strings.ToLower(strings.TrimSpace(m.UMAResolutionStatus))
	if m.Closed {
		if status != "resolved" || prices == nil {
			return feed.Suspended, -1
		}
		if i, ok := oneHot(prices); ok {
			return feed.Resolved, i
		}
		if fiftyFifty(prices) {
			return feed.Cancelled, -1
		}
		return feed.Suspended, -1
	}
	if e.Closed || status != "" || !m.Active || (m.AcceptingOrders != nil && !*m.AcceptingOrders) {
		return feed.Suspended, -1
	}
	if s, ok := parseSpread(m.Spread); ok && s.GreaterThan(r.maxSpread) {
		return feed.Suspended, -1
	}
	if _, ok := usable(prices); !ok {
		return feed.Suspended, -1
	}
	return feed.Open, -1
}

// oneHot returns the index of the only price equal to 1 when every other
// price is 0.
func oneHot(prices []decimal.Decimal) (int, bool) {
	win := -1
	for i, p := range prices {
		switch {
		case p.Equal(one) && win < 0:
			win = i
		case p.IsZero():
		default:
			return -1, false
		}
	}
	return win, win >= 0
}

// fiftyFifty reports Polymarket's void result: two prices, both 0.5.
func fiftyFifty(prices []decimal.Decimal) bool {
	return len(prices) == 2 && prices[0].Equal(half) && prices[1].Equal(half)
}

// usable returns the probabilities of prices when betting can take them:
// each strictly between 0 and 1, renormalised to sum to exactly 1 when
// they do not, and accepted by odds.Price with no margin (the catalog's
// own check, which refuses an outcome at or above 1/1.01).
func usable(prices []decimal.Decimal) ([]decimal.Decimal, bool) {
	if len(prices) < 2 {
		return nil, false
	}
	sum := decimal.Zero
	for _, p := range prices {
		if !p.IsPositive() || p.GreaterThanOrEqual(one) {
			return nil, false
		}
		sum = sum.Add(p)
	}
	probs := slices.Clone(prices)
	if !sum.Equal(one) {
		probs = renormalise(prices, sum)
	}
	if _, err := odds.Price(odds.Multiplicative, probs, decimal.Zero); err != nil {
		return nil, false
	}
	return probs, true
}

// renormalise divides every price by sum, rounded half away from zero to
// ProbabilityDecimals places, except the largest (the first of equals),
// which takes 1 minus the others so that the sum is exactly 1.
func renormalise(prices []decimal.Decimal, sum decimal.Decimal) []decimal.Decimal {
	big := 0
	for i, p := range prices {
		if p.GreaterThan(prices[big]) {
			big = i
		}
	}
	out := make([]decimal.Decimal, len(prices))
	rest := one
	for i, p := range prices {
		if i == big {
			continue
		}
		out[i] = p.DivRound(sum, ProbabilityDecimals)
		rest = rest.Sub(out[i])
	}
	out[big] = rest
	return out
}

// mapEvent maps a Gamma event. For a tracked event it reports every
// market that can be mapped; for a new one it applies the offer rules of
// the package doc. reason says why nothing is reported.
func (s *Source) mapEvent(e *rawEvent, tracked bool) (ev feed.Event, reason string) {
	key := string(e.ID)
	if key == "" {
		return feed.Event{}, "no id"
	}
	title := text(e.Title)
	if title == "" {
		return feed.Event{}, "no title"
	}
	cat, mapped := category(s.categories, s.defaultCategory, e)
	if !tracked {
		switch {
		case e.Closed:
			return feed.Event{}, "closed"
		case !mapped:
			return feed.Event{}, "no category rule matches its tags"
		}
	}
	ev = feed.Event{
		Key:         key,
		Category:    cat,
		Title:       betting.Texts{Locale: title},
		Description: texts(e.Description),
		ImageURL:    httpsURL(e.Image, e.Icon),
		StartsAt:    parseTime(e.StartTime),
	}
	open := false
	for i := range e.Markets {
		m := &e.Markets[i]
		if !tracked {
			if why := offerSkip(e, m); why != "" {
				s.log.Debug("polymarket: market not offered", "event", key, "market", string(m.ID), "reason", why)
				continue
			}
		}
		fm, err := s.rules.mapMarket(e, m)
		if err != nil {
			s.log.Debug("polymarket: market not reported", "event", key, "err", err)
			continue
		}
		open = open || fm.State == feed.Open
		ev.Markets = append(ev.Markets, fm)
	}
	switch {
	case len(ev.Markets) == 0:
		return feed.Event{}, "no market can be reported"
	case tracked:
		return ev, ""
	case len(ev.Markets) > MaxMarkets:
		return feed.Event{}, fmt.Sprintf("%d markets, more than %d", len(ev.Markets), MaxMarkets)
	case !open:
		return feed.Event{}, "no open market"
	}
	return ev, ""
}
