package heuristic

import (
	"regexp"
	"sort"
	"strings"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// This file finds delivery and product risks: statements about money,
// security, concurrency, performance, external parties and hard
// prohibitions, and the amount of the spec left unresolved.

type riskCategory struct {
	name     string
	terms    []string
	why      string
	severity string
	min      int      // signals a sentence needs
	bonus    []string // words that make a sentence better evidence
}

var riskCategories = []riskCategory{
	{"money", moneyTerms, "Money movement: a retried, duplicated or mis-rounded call here moves real balances, and such errors are costly to repair.", tickets.PriorityHigh, 2, []string{"twice", "again", "second time", "idempoten", "never", "round", "lost", "reverse"}},
	{"security", securityTerms, "Security: a gap in these checks lets an unauthorised caller act or read data.", tickets.PriorityHigh, 2, []string{"never", "constant time", "timing-safe", "reject", "before any processing", "before processing", "replay"}},
	{"concurrency", []string{"idempoten", "retry", "retries", "resend", "duplicate", "concurrent", "race condition", "in flight", "replay", "atomic", "twice", "same key"}, "Concurrency and retries: repeated or parallel requests must give one outcome; this is easy to get wrong and hard to test.", tickets.PriorityMedium, 1, []string{"money", "balance", "stake", "first response", "no second", "never"}},
	{"performance", []string{"time limit", "timeout", "time-out", "latency", "per second", "rate limit", "seconds", "throughput", "ceiling", "within seconds"}, "Performance and time limits: the spec sets timing bounds that need load tests to confirm.", tickets.PriorityMedium, 1, []string{" seconds", " s;", "per second", " ms", "minutes", "longer than"}},
	{"external", []string{"external", "third-party", "third party", "partner", "provider", "operator", "aggregator", "webhook", "callback", "integration"}, "External integration: behaviour depends on a party outside this system, which complicates testing and failure handling.", tickets.PriorityMedium, 2, []string{"retry", "timeout", "unreachable", "unavailable", "fails", "error"}},
	{"prohibition", []string{"must not", " never", "do not", "don't", "not allowed", "forbidden"}, "Hard prohibitions: breaking a \"never\" rule of the spec is a correctness bug even when everything else works.", tickets.PriorityMedium, 1, []string{"money", "stake", "twice", "secret", "log"}},
}

// moneyMovement are the words that show money actually moves.
var moneyMovement = []string{"debit", "credit", "payout", "stake", "withdrawal", "deposit", "refund", "charge", "payment", "balance", "wallet", "money", "transfer", "settle"}

// riskHit is a unit that carries a category of risk, with how well.
type riskHit struct {
	u     *unit
	score int
}

// riskFinding is a category of risk the spec carries: the category (its
// severity raised where the spec calls for it), its rank in
// riskCategories, the best evidence, and how many units carry it.
type riskFinding struct {
	cat  riskCategory
	best riskHit
	hits int
	rank int
}

// risks builds the risk list, relating each risk to the tickets that carry
// its evidence: the risks the spec names, the categories of risk its
// units carry (most severe first), the ambiguity its open questions leave,
// and a thin spec's. The risks are numbered in that order.
func (b *builder) risks(ts []tickets.Ticket, slots []slot) []tickets.Risk {
	out := []tickets.Risk{}
	for _, r := range b.specRisks {
		out = append(out, tickets.Risk{
			Description:      "From the spec (\"" + b.sectionName(r.sec) + "\", lines " + itoa(r.sec.first) + "–" + itoa(max(r.sec.first, r.sec.last)) + "): " + strings.TrimRight(shorten(r.text, 80, 600), ".") + ".",
			Severity:         specRiskSeverity(r.text),
			RelatedTicketIDs: b.specRiskTickets(r.text, slots),
		})
	}
	for _, f := range b.riskFindings() {
		out = append(out, b.findingRisk(f, ts, slots))
	}
	if len(b.questions) > 0 {
		out = append(out, b.ambiguityRisk(slots))
	}
	if b.shape == shapeEmpty || b.shape == shapePlain && len(b.units) <= 2 {
		related := []string{}
		if len(slots) > 0 {
			related = append(related, slots[0].id)
		}
		out = append(out, tickets.Risk{
			Description:      "Thin spec: the request gives little detail, so scope and estimates rest on assumptions that must be confirmed with the requester.",
			Severity:         tickets.PriorityMedium,
			RelatedTicketIDs: related,
		})
	}
	for i := range out {
		out[i].ID = "RISK-" + itoa(i+1)
	}
	return out
}

// riskFindings returns the categories of risk the spec's units carry,
// most severe first, in riskCategories' order on a tie.
func (b *builder) riskFindings() []riskFinding {
	lower := make([]*phraseIndex, len(b.units))
	for i, u := range b.units {
		b.m.tick(1)
		// A leading space lets a term match at a word's start only
		// (" never", not the end of "whenever").
		lower[i] = newPhraseIndex(" " + strings.ToLower(prose(u.text)))
	}
	var all []riskFinding
	for rank, cat := range riskCategories {
		b.m.tick(len(b.units))
		if f := b.findRisk(cat, lower); f.best.u != nil {
			f.rank = rank
			all = append(all, f)
		}
	}
	sevRank := map[string]int{tickets.PriorityCritical: 0, tickets.PriorityHigh: 1, tickets.PriorityMedium: 2, tickets.PriorityLow: 3}
	sort.SliceStable(all, func(i, j int) bool {
		if sevRank[all[i].cat.severity] != sevRank[all[j].cat.severity] {
			return sevRank[all[i].cat.severity] < sevRank[all[j].cat.severity]
		}
		return all[i].rank < all[j].rank
	})
	return all
}

// notARule is a "never" or "don't" that forbids nothing: a guess ("likely
// never will"), what the writers or others do ("We don't do that
// lightly", "they don't apply to my version"), a chore spared ("you never
// have to write the version"), what does not change ("The Pod and PodSpec
// APIs don't get any new fields"). Readers of three specs found such
// "Hard prohibitions" risks boilerplate.
var notARule = regexp.MustCompile(`(?i)\b(likely|probably|perhaps|maybe) never\b|\bnever (will|would)\b|\b(we|i|they|you|people|users) (don'?t|do not)\b|\bnever (?:have|has|need|needs) to\b|\b(?:don'?t|doesn'?t|do not|does not) (?:get|gain|change|need|require)\b`)

// findRisk finds the units that carry cat, lower being each unit's
// lowercased prose, and returns the best of them as evidence (the first
// on a tie; none when no unit carries it). Money is critical when the
// spec speaks of paying twice or losing money, concurrency high when the
// spec is about money, each when at least three units carry it.
func (b *builder) findRisk(cat riskCategory, lower []*phraseIndex) riskFinding {
	f := riskFinding{cat: cat}
	for i, u := range b.units {
		text := lower[i]
		n := text.count(cat.terms...)
		if n < cat.min || cat.name == "money" && text.count(moneyMovement...) == 0 {
			continue
		}
		if cat.name == "prohibition" && notARule.MatchString(u.text) && countLower(" "+strings.ToLower(notARule.ReplaceAllString(prose(u.text), "")), cat.terms...) == 0 {
			continue // "… and likely never will", "We don't do that lightly": no rule
		}
		f.hits++
		score := 2*min(n, 3) + 3*text.count(cat.bonus...)
		if u.table != nil {
			score--
		}
		if f.best.u == nil || score > f.best.score {
			f.best = riskHit{u: u, score: score}
		}
	}
	if f.best.u == nil {
		return f
	}
	if cat.name == "money" && f.hits >= 3 && countLower(b.lowerSpec, "twice", "second time", "never lost", "double") > 0 {
		f.cat.severity = tickets.PriorityCritical
	}
	if cat.name == "concurrency" && f.hits >= 3 && countLower(b.lowerSpec, moneyTerms...) >= 3 {
		f.cat.severity = tickets.PriorityHigh
	}
	return f
}

// findingRisk is the risk of a category the spec carries, quoting its
// best evidence, without its ID.
func (b *builder) findingRisk(f riskFinding, ts []tickets.Ticket, slots []slot) tickets.Risk {
	desc := f.cat.why + " Evidence from " + b.unitRef(f.best.u) + ": \"" + shorten(strings.TrimSpace(f.best.u.text), 60, 280) + "\""
	if f.hits > 1 {
		desc += " (" + itoa(f.hits) + " related statements in the spec)."
	} else {
		desc += "."
	}
	return tickets.Risk{
		Description:      desc,
		Severity:         f.cat.severity,
		RelatedTicketIDs: b.riskTickets(f.cat, f.best.u, ts, slots),
	}
}

// ambiguityRisk is the risk of the spec's open questions, without its
// ID: high from eight questions, medium from three, low below.
func (b *builder) ambiguityRisk(slots []slot) tickets.Risk {
	n := len(b.questions)
	sev := tickets.PriorityLow
	switch {
	case n >= 8:
		sev = tickets.PriorityHigh
	case n >= 3:
		sev = tickets.PriorityMedium
	}
	return tickets.Risk{
		Description:      "Ambiguity: the spec leaves " + itoa(n) + " point(s) unresolved (see the open questions); estimates and designs that depend on them may change.",
		Severity:         sev,
		RelatedTicketIDs: sortIDs(limitIDs(b.ambiguityTickets(slots), 6)),
	}
}

// ambiguityTickets returns the tickets the open questions bear on: the
// spikes; else the tickets with related questions, the most first; else
// the first slot (the second when the first is an epic).
func (b *builder) ambiguityTickets(slots []slot) []string {
	var related []string
	for _, sl := range slots {
		if sl.d != nil && sl.d.origin == originSpike {
			related = append(related, sl.id)
		}
	}
	if len(related) == 0 {
		// The tickets most affected by open questions.
		type cand struct {
			id string
			n  int
		}
		var cands []cand
		for _, sl := range slots {
			if sl.d != nil {
				if n := len(b.relatedQuestions(sl.d)); n > 0 {
					cands = append(cands, cand{sl.id, n})
				}
			}
		}
		sort.SliceStable(cands, func(i, j int) bool { return cands[i].n > cands[j].n })
		for _, c := range cands {
			related = append(related, c.id)
		}
	}
	if len(related) == 0 && len(slots) > 0 {
		related = append(related, slots[0].id)
		if slots[0].d == nil && len(slots) > 1 {
			related = []string{slots[1].id}
		}
	}
	return related
}

// specRiskSeverity rates a risk the spec names: high when it speaks of
// security, data loss or crashes, medium otherwise.
func specRiskSeverity(text string) string {
	if countLower(strings.ToLower(text), "malicious", "attack", "security", "data loss", "lose data", "loss", "crash", "corrupt", "leak", "breach") > 0 {
		return tickets.PriorityHigh
	}
	return tickets.PriorityMedium
}

// specRiskTickets relates a risk of the spec to up to three tickets that
// share the most of its words (at least two).
func (b *builder) specRiskTickets(text string, slots []slot) []string {
	words := keywords(text)
	var cands []scoredID
	for _, sl := range slots {
		if sl.d == nil {
			continue
		}
		b.m.tick(len(words))
		if n := sl.d.lowerIndex().count(words...); n >= 2 {
			cands = append(cands, scoredID{sl.id, n})
		}
	}
	return bestIDs(cands, 3)
}

// scoredID is a ticket id with how well it fits a risk.
type scoredID struct {
	id    string
	score int
}

// bestIDs returns the ids of the n candidates of highest score, the first
// in cands on a tie, in ticket order.
func bestIDs(cands []scoredID, n int) []string {
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	ids := make([]string, 0, n)
	for _, c := range cands[:min(n, len(cands))] {
		ids = append(ids, c.id)
	}
	return sortIDs(ids)
}

func limitIDs(ids []string, n int) []string {
	if len(ids) > n {
		return ids[:n]
	}
	return ids
}

func (b *builder) unitRef(u *unit) string {
	if u.sec == nil || u.sec.parent == nil {
		return "the request"
	}
	return "\"" + b.sectionName(u.sec) + "\""
}

// riskTickets relates a risk to up to four tickets: those built from the
// evidence's section first, then those whose text carries the category's
// terms most.
func (b *builder) riskTickets(cat riskCategory, evidence *unit, ts []tickets.Ticket, slots []slot) []string {
	var cands []scoredID
	for _, sl := range slots {
		if sl.d == nil {
			continue
		}
		score := sl.d.lowerIndex().count(cat.terms...)
		if sl.d.sec == evidence.sec {
			score += 3
		}
		if score >= 1 {
			cands = append(cands, scoredID{sl.id, score})
		}
	}
	return bestIDs(cands, 4)
}
