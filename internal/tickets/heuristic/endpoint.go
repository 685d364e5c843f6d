package heuristic

import (
	"regexp"
	"strings"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// This file turns endpoint tables into one task per operation and attaches
// the spec's other statements about an endpoint to its task.

// endpoint is one operation of an endpoint table.
type endpoint struct {
	method     string
	path       string
	name       string // operation name column, e.g. SubmitTicketsJob
	short      string // name carried in the path, e.g. Round/BetWin
	purpose    string
	when       string
	inbound    bool
	party      string // who hosts an outbound endpoint
	header     []string
	row        []string
	text       string // all cells, for matching
	distinct   []string
	sec        *section
	draft      *draft
	stems      map[string]bool
	lowShort   string
	lowName    string
	lowPayload string
	prev       *endpoint // the row above, for "same as above"
	pending    []string  // statements about this endpoint
	general    []string  // section-wide statements
}

// detailRow is a table row about an endpoint named without its path, e.g. a
// wallet field table keyed by "Player/Balance".
type detailRow struct {
	sec     *section
	header  []string
	row     []string
	caption string
	order   int
}

var methodPath = regexp.MustCompile(`(?i)^\W*(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\W+(/\S*)`)
var pathOnly = regexp.MustCompile("^`?(/[A-Za-z0-9_{}./:-]*)`?$")

func isEndpointTable(t *table) bool {
	hits := 0
	for _, row := range t.rows {
		if m, _ := rowMethodPath(t.header, row); m >= 0 {
			hits++
		}
	}
	return hits*2 >= len(t.rows) && hits > 0
}

// rowMethodPath finds the cell holding a method and path; it returns the
// cell index (or -1) and the method and path.
func rowMethodPath(header, row []string) (int, [2]string) {
	for i, c := range row {
		if !strings.Contains(c, "/") {
			continue
		}
		if m := methodPath.FindStringSubmatch(stripCode(c)); m != nil {
			return i, [2]string{strings.ToUpper(m[1]), strings.TrimRight(m[2], ".,;")}
		}
	}
	mi := headerIndex(header, "method", "verb")
	pi := headerIndex(header, "path", "route", "url", "endpoint")
	if pi >= 0 && pi < len(row) {
		if m := pathOnly.FindStringSubmatch(strings.TrimSpace(row[pi])); m != nil {
			method := ""
			if mi >= 0 && mi < len(row) {
				method = strings.ToUpper(stripCode(strings.TrimSpace(row[mi])))
			}
			return pi, [2]string{method, m[1]}
		}
	}
	return -1, [2]string{}
}

func isDetailTable(t *table) bool {
	return headerIndex(t.header, "endpoint", "operation", "call") >= 0
}

func (b *builder) endpointFromRow(s *section, t *table, row []string) *endpoint {
	idx, mp := rowMethodPath(t.header, row)
	if idx < 0 {
		return nil
	}
	ep := &endpoint{method: mp[0], path: mp[1], header: t.header, row: row, sec: s}
	if i := strings.LastIndex(ep.path, "."); i >= 0 && i+1 < len(ep.path) {
		ep.short = ep.path[i+1:]
	}
	if i := headerIndex(t.header, "operation", "name", "id"); i >= 0 && i != idx {
		ep.name = stripCode(row[i])
	}
	if i := headerIndex(t.header, "purpose", "description", "summary", "does", "what"); i >= 0 && i != idx {
		ep.purpose = row[i]
	}
	if i := headerIndex(t.header, "when"); i >= 0 && i != idx {
		ep.when = row[i]
	}
	ep.inbound, ep.party = b.direction(s)
	ep.lowShort, ep.lowName = strings.ToLower(ep.short), strings.ToLower(ep.name)
	ep.text = strings.Join(row, " ")
	b.endpoints = append(b.endpoints, ep)
	return ep
}

var (
	hostedBy   = regexp.MustCompile(`(?i)\b(?:exposed|hosted|implemented|served|provided) by (?:the )?([a-z]+)`)
	hostedDash = regexp.MustCompile(`(?i)\b([a-z]+)-hosted\b`)
	calls      = regexp.MustCompile(`(?i)\b(?:the )?([a-z]+) calls (?:the )?([a-z]+)`)
	hosts      = regexp.MustCompile(`(?i)\b([a-z]+) hosts\b`)
)

// hostPhrases are the phrases of a heading that name who hosts its
// endpoints, in the order headingDirection tries them, each with the
// submatch that holds that party.
var hostPhrases = []struct {
	re    *regexp.Regexp
	party int
}{{hostedBy, 1}, {hostedDash, 1}, {calls, 2}, {hosts, 1}}

var selfParties = map[string]bool{"platform": true, "service": true, "server": true, "system": true, "backend": true, "api": true, "we": true, "us": true, "our": true, "foresight": true}

type directionInfo struct {
	inbound bool
	party   string
}

// direction is headingDirection, cached per section.
func (b *builder) direction(s *section) (bool, string) {
	in := b.info[s.index]
	if in.direction == nil {
		inbound, party := headingDirection(s)
		in.direction = &directionInfo{inbound, party}
	}
	return in.direction.inbound, in.direction.party
}

// headingDirection tells from the section headings whether the spec's
// system serves the endpoints (inbound) or calls a partner's endpoints
// (outbound).
func headingDirection(s *section) (inbound bool, party string) {
	for c := s; c != nil && c.parent != nil; c = c.parent {
		h := c.heading
		for _, hp := range hostPhrases {
			if m := hp.re.FindStringSubmatch(h); m != nil {
				p := strings.ToLower(m[hp.party])
				return selfParties[p], p
			}
		}
		if strings.Contains(strings.ToLower(h), "called by") {
			return true, ""
		}
	}
	return true, ""
}

// payloadText is the text of the request and response cells of the row.
func (ep *endpoint) payloadText() string {
	var parts []string
	for i, h := range ep.header {
		h = strings.ToLower(h)
		if strings.Contains(h, "request") || strings.Contains(h, "response") || strings.Contains(h, "success") || strings.Contains(h, "body") || strings.Contains(h, "returns") {
			parts = append(parts, ep.row[i])
		}
	}
	return strings.Join(parts, " ")
}

// subject is the "METHOD /path" form of an endpoint.
func (ep *endpoint) subject() string {
	if ep.method == "" {
		return ep.path
	}
	return ep.method + " " + ep.path
}

// pathStems are the stemmed words of an endpoint's path.
func (ep *endpoint) pathStems() map[string]bool {
	if ep.stems != nil {
		return ep.stems
	}
	out := map[string]bool{}
	defer func() { ep.stems = out }()
	for _, w := range wordSplit.Split(strings.ToLower(ep.path), -1) {
		for _, p := range strings.Split(w, "_") {
			if p != "" {
				out[stem(p)] = true
			}
		}
	}
	return out
}

var verbNouns = map[string]string{
	"submit": "submission", "cancel": "cancellation", "create": "creation", "delete": "deletion",
	"update": "update", "list": "list", "search": "search", "upload": "upload", "download": "download",
	"register": "registration", "approve": "approval", "reject": "rejection", "publish": "publication",
	"refresh": "refresh", "revoke": "revocation", "validate": "validation", "export": "export",
	"import": "import", "place": "placement", "settle": "settlement", "login": "login", "logout": "logout",
}

// operationNoun derives a short noun for an operation name, leaving out
// words the path already says: SubmitTicketsJob on /tickets/v1/jobs gives
// "submission".
func (ep *endpoint) operationNoun() string {
	words := camelWords(ep.name)
	if len(words) == 0 {
		return ""
	}
	stems := ep.pathStems()
	var rest []string
	for _, w := range words[1:] {
		if !stems[stem(w)] {
			rest = append(rest, w)
		}
	}
	noun, ok := verbNouns[words[0]]
	if !ok {
		if words[0] != "get" && words[0] != "read" && words[0] != "fetch" && words[0] != "retrieve" {
			rest = append([]string{words[0]}, rest...)
		}
	}
	if noun != "" {
		rest = append(rest, noun)
	}
	return strings.Join(rest, " ")
}

// purposeClause is the first clause of the purpose column, lower-cased.
func purposeClause(p string) string {
	p = stripCode(strings.TrimSpace(p))
	if i := strings.IndexAny(p, ";"); i > 0 {
		p = p[:i]
	}
	return shorten(lowerFirst(p), 10, 70)
}

// endpointDraft builds the task of one endpoint.
func (b *builder) endpointDraft(ep *endpoint) *draft {
	var title, verb string
	subj := stripCode(ep.subject())
	if ep.inbound {
		verb = "Implement"
		switch {
		case ep.name != "" && ep.operationNoun() != "":
			title = verb + " " + subj + " " + ep.operationNoun() + " endpoint"
		case ep.purpose != "":
			title = verb + " " + subj + " to " + purposeClause(ep.purpose)
		default:
			title = verb + " " + subj + " endpoint"
		}
	} else {
		verb = "Call"
		if ep.party != "" {
			verb += " " + ep.party
		}
		if ep.purpose != "" {
			title = verb + " " + subj + " to " + purposeClause(ep.purpose)
		} else {
			title = verb + " " + subj + " endpoint"
		}
	}
	d := b.newDraft(tickets.TypeTask, originEndpoint, title, ep.sec)
	d.verb, d.subjects, d.noun = verb, []string{subj}, "endpoint"
	d.topic = "endpoints"
	d.ep = ep
	ep.draft = d
	d.conf, d.value = 0.9, 0.85
	code := "`" + ep.path + "`"
	if ep.method != "" {
		code = ep.method + " `" + ep.path + "`"
	}
	switch {
	case !ep.inbound && ep.party != "":
		d.lead = "Call the " + ep.party + "-hosted " + code
	case !ep.inbound:
		d.lead = "Call the partner endpoint " + code
	case ep.name != "":
		d.lead = "Serve the " + ep.name + " operation at " + code
	default:
		d.lead = "Serve " + code
	}
	if ep.when != "" {
		when := lowerFirst(stripCode(strings.ReplaceAll(ep.when, "; ", " and ")))
		first := ""
		if f := strings.Fields(when); len(f) > 0 {
			first = f[0]
		}
		switch first {
		case "after", "before", "on", "at", "when", "during", "while", "once", "every", "each":
			d.lead += " " + when
		default:
			d.lead += " at " + when
		}
	}
	if ep.purpose != "" {
		d.lead += " to " + lowerFirst(strings.TrimRight(ep.purpose, "."))
	}
	d.lead += "."
	d.crit = append(d.crit, endpointCriteria(ep)...)
	d.labels = []string{"api"}
	if !ep.inbound {
		d.labels = append(d.labels, "integration")
	}
	d.words = newWordSet(ep.text, ep.short, strings.Join(camelWords(ep.name), " "))
	b.info[ep.sec.index].drafts = append(b.info[ep.sec.index].drafts, d)
	return d
}

// seeElsewhere reports whether a cell only points elsewhere ("see below").
func seeElsewhere(v string) bool {
	low := strings.ToLower(strings.TrimSpace(strings.TrimRight(v, ".")))
	return low == "see below" || low == "see above" || low == "as above" || low == "below" || low == "n/a" || low == "-"
}

var statusList = regexp.MustCompile(`^\d{3}(\s*,\s*\d{3})*$`)

// endpointCriteria renders the row's cells as criteria.
func endpointCriteria(ep *endpoint) []string {
	var out []string
	errCell := ""
	if i := headerIndex(ep.header, "error"); i >= 0 {
		errCell = ep.row[i]
	}
	for i, h := range ep.header {
		v := strings.TrimSpace(ep.row[i])
		lh := strings.ToLower(h)
		if ep.prev != nil && strings.Contains(v, " as above") {
			v = strings.ReplaceAll(v, " as above", " as "+stripCode(ep.prev.subject()))
		}
		if v == "" || strings.EqualFold(v, "none") && !strings.Contains(lh, "request") || seeElsewhere(v) {
			continue
		}
		if _, mp := rowMethodPath(ep.header, ep.row); strings.Contains(stripCode(v), mp[1]) && mp[1] != "" {
			continue
		}
		switch {
		case strings.Contains(lh, "operation") || strings.Contains(lh, "name") || strings.Contains(lh, "purpose") || strings.Contains(lh, "when") || strings.Contains(lh, "description"):
			continue
		case strings.Contains(lh, "scope") || strings.Contains(lh, "permission"):
			c := "Requires the `" + stripCode(v) + "` scope"
			if strings.Contains(errCell, "403") {
				c += "; a key without it is answered 403"
			}
			out = append(out, c+".")
		case strings.Contains(lh, "error"):
			if statusList.MatchString(v) {
				out = append(out, "Failures are answered only with the documented statuses "+v+", each with the error body.")
			} else {
				out = append(out, "Errors: "+v+".")
			}
		case strings.Contains(lh, "request"):
			if strings.EqualFold(v, "none") {
				out = append(out, "Takes no request body.")
			} else {
				v = lowerFirst(strings.TrimRight(v, "."))
				if strings.HasPrefix(v, "same ") {
					v = "the " + v
				}
				out = append(out, "Accepts "+v+".")
			}
		case strings.Contains(lh, "response") || strings.Contains(lh, "success"):
			if ep.inbound {
				out = append(out, "Answers "+answerPhrase(v)+".")
			} else {
				out = append(out, "Handles the "+ep.party+" answer: "+answerPhrase(v)+"; anything else is treated as a failure.")
			}
		default:
			out = append(out, upperFirst(lowerFirst(h))+": "+strings.TrimRight(v, ".")+".")
		}
	}
	return out
}

var leadingStatus = regexp.MustCompile(`^(\d{3})\s*,\s*`)

// answerPhrase turns "202, job accepted response" into "202 with the job
// accepted response".
func answerPhrase(v string) string {
	v = strings.TrimRight(strings.TrimSpace(v), ".")
	if m := leadingStatus.FindStringSubmatch(v); m != nil {
		rest := strings.TrimSpace(v[len(m[0]):])
		if strings.HasPrefix(rest, "same ") {
			return m[1] + " with the " + rest
		}
		if strings.HasPrefix(rest, "the ") || strings.HasPrefix(rest, "a ") {
			return m[1] + " with " + rest
		}
		return m[1] + " with the " + rest
	}
	return v
}

// attachDetails attaches rows of detail tables to the endpoints they name.
func (b *builder) attachDetails() {
	for _, dr := range b.details {
		col := headerIndex(dr.header, "endpoint", "operation", "call")
		name := stripCode(strings.TrimSpace(dr.row[col]))
		ep := b.endpointNamed(name)
		if ep == nil {
			// Not one endpoint: keep the row as a plain rule.
			b.addUnit(dr.sec, ruleRowText(dr.header, dr.row), dr.caption, nil, nil)
			continue
		}
		var parts []string
		for i, h := range dr.header {
			if i == col || strings.TrimSpace(dr.row[i]) == "" {
				continue
			}
			parts = append(parts, upperFirst(lowerFirst(h))+": "+strings.TrimRight(dr.row[i], "."))
		}
		if len(parts) > 0 {
			ep.pending = append(ep.pending, strings.Join(parts, "; ")+".")
		}
	}
}

// endpointNamed finds the one endpoint whose path, short name or operation
// name is name.
func (b *builder) endpointNamed(name string) *endpoint {
	var found *endpoint
	for _, ep := range b.endpoints {
		if strings.EqualFold(ep.short, name) || strings.EqualFold(ep.name, name) || strings.EqualFold(ep.path, name) || strings.EqualFold(ep.subject(), name) {
			if found != nil && found != ep {
				return nil
			}
			found = ep
		}
	}
	return found
}

// mentioned returns the endpoints a text names by path, short name or
// operation name.
func (b *builder) mentioned(text string) []*endpoint {
	var out []*endpoint
	plain := stripCode(text)
	if !strings.Contains(plain, "/") && !hasUpperInside(plain) {
		return nil
	}
	lower := strings.ToLower(plain)
	for _, ep := range b.endpoints {
		hit := false
		if ep.path != "/" && len(ep.path) > 3 && strings.Contains(plain, ep.path) && containsPath(plain, ep.path) {
			hit = true
		}
		if ep.short != "" && strings.Contains(lower, ep.lowShort) && containsWord(plain, ep.short) {
			hit = true
		}
		if ep.name != "" && strings.Contains(lower, ep.lowName) && containsWord(plain, ep.name) {
			hit = true
		}
		if hit {
			out = append(out, ep)
		}
	}
	return out
}

// hasUpperInside reports whether some word has an upper-case letter after
// its first rune, as CamelCase operation names do.
func hasUpperInside(s string) bool {
	prevLetter := false
	for _, r := range s {
		if r >= 'A' && r <= 'Z' && prevLetter {
			return true
		}
		prevLetter = r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
	}
	return false
}

// containsPath reports whether text holds path as a whole path.
func containsPath(text, path string) bool {
	return containsWhere(text, path, func(_, end int) bool {
		return end >= len(text) || !strings.ContainsRune("/{_.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-", rune(text[end])) || text[end] == '.' && (end+1 >= len(text) || text[end+1] == ' ')
	})
}

// claimNamedUnits gives units that name exactly one endpoint to it, wherever
// they stand in the spec; a unit labelled with an endpoint name ("Round/
// BetWin: …") goes to that endpoint even when it names others too.
func (b *builder) claimNamedUnits() {
	for _, u := range b.units {
		eps := b.mentioned(u.text + " " + u.caption)
		if len(eps) > 1 {
			if label, _, ok := splitLabel(stripCode(u.text)); ok {
				if named := b.mentioned(label); len(named) == 1 {
					eps = named
				}
			}
		}
		if len(eps) == 1 {
			eps[0].pending = append(eps[0].pending, u.text)
			u.claimed = true
		}
	}
}

// distinctWords computes, for the endpoints of one section, the words that
// only one of them carries.
func distinctWords(eps []*endpoint) {
	count := map[string]int{}
	own := make([][]string, len(eps))
	for i, ep := range eps {
		ws := keywords(ep.path + " " + strings.Join(camelWords(ep.name), " ") + " " + ep.short + " " + ep.purpose + " " + ep.when + " " + strings.Join(ep.row, " "))
		var kept []string
		for _, w := range ws {
			if genericEndpointWords[w] {
				continue
			}
			kept = append(kept, w)
			count[w]++
		}
		own[i] = kept
	}
	for i, ep := range eps {
		ep.distinct = nil
		for _, w := range own[i] {
			if count[w] == 1 {
				ep.distinct = append(ep.distinct, w)
			}
		}
	}
}

var genericEndpointWords = map[string]bool{
	"endpoint": true, "request": true, "response": true, "body": true, "path": true, "uuid": true,
	"none": true, "header": true, "get": true, "post": true, "put": true, "patch": true, "delete": true,
	"json": true, "optional": true, "query": true, "id": true, "same": true, "200": true, "202": true,
}

// attachToEndpoints gives a section's unclaimed units to its endpoints: a
// unit naming one endpoint's distinct words goes to it, the rest apply to
// every endpoint of the section.
func (b *builder) attachToEndpoints(s *section, eps []*endpoint, units []*unit) {
	distinctWords(eps)
	for _, u := range units {
		if u.claimed {
			continue
		}
		if m := exposesEndpoint.FindStringSubmatch(stripCode(u.text)); m != nil {
			b.extraEndpoint(s, eps, u, strings.TrimSpace(m[1]))
			continue
		}
		best, bestScore, tie := (*endpoint)(nil), 0, false
		for _, ep := range eps {
			score := 0
			for _, w := range ep.distinct {
				for _, uw := range u.words {
					if uw == w {
						score++
					}
				}
			}
			if score > bestScore {
				best, bestScore, tie = ep, score, false
			} else if score == bestScore && score > 0 {
				tie = true
			}
		}
		u.claimed = true
		if best != nil && !tie {
			best.pending = append(best.pending, u.text)
			continue
		}
		for _, ep := range eps {
			ep.general = append(ep.general, u.text)
		}
	}
}

var exposesEndpoint = regexp.MustCompile(`(?i)\b(?:also )?(?:exposes|provides|serves|hosts) (?:also )?(?:a |an |the )?((?:public |private )?[A-Za-z][\w -]{1,30}?) endpoint\b`)

// extraEndpoint makes a task of an endpoint that a sentence describes
// without a table row ("The operator also exposes a public JWKS endpoint").
func (b *builder) extraEndpoint(s *section, eps []*endpoint, u *unit, name string) {
	u.claimed = true
	inbound, party := b.direction(s)
	title := "Implement the " + name + " endpoint"
	if !inbound && party != "" {
		title = "Integrate the " + party + " " + name + " endpoint"
	}
	d := b.newDraft(tickets.TypeTask, originSection, title, s)
	d.topic = "endpoints"
	d.conf, d.value = 0.75, 0.6
	d.lead = sentenceCase(u.text)
	for _, sent := range splitSentences(u.text) {
		d.crit = appendUnique(d.crit, sentenceCase(sent))
	}
	d.crit = append(d.crit, "An automated test calls the "+name+" endpoint and checks the answer.")
	d.labels = []string{"api"}
	if !inbound {
		d.labels = append(d.labels, "integration")
	}
	d.words = newWordSet(title, u.text)
	d.order = s.index*10000 + u.order%10000
	b.info[s.index].drafts = append(b.info[s.index].drafts, d)
}

// linkResources connects resource drafts with the endpoint drafts whose
// request or response they describe: the endpoint depends on the resource.
func (b *builder) linkResources() {
	stemCount := map[string]int{}
	for _, ep := range b.endpoints {
		for w := range ep.pathStems() {
			stemCount[w]++
		}
	}
	payload := make([]string, len(b.endpoints))
	for i, ep := range b.endpoints {
		payload[i] = strings.ToLower(ep.payloadText() + " " + strings.Join(ep.pending, " "))
	}
	for _, d := range b.drafts {
		if !d.alive || d.origin != originResource {
			continue
		}
		base := strings.ToLower(d.sec.cleanedHeading())
		if i := strings.Index(base, " as "); i > 0 {
			base = base[:i]
		}
		phrases := []string{base}
		for _, suffix := range []string{" body", " object", " fields"} {
			if strings.HasSuffix(base, suffix) {
				phrases = append(phrases, strings.TrimSuffix(base, suffix))
			}
		}
		for _, p := range d.parts {
			phrases = append(phrases, strings.ToLower(p.sec.cleanedHeading()))
		}
		named := b.mentioned(d.sec.heading)
		var users []*draft
		for i, ep := range b.endpoints {
			if ep.draft == nil {
				continue
			}
			hit := false
			for _, n := range named {
				if n == ep {
					hit = true
				}
			}
			text := payload[i]
			for _, p := range phrases {
				if runeLen(p) >= 3 && strings.Contains(text, p) && (containsWord(text, p) || containsWord(text, p+"s")) {
					hit = true
				}
			}
			if hit {
				users = append(users, ep.draft)
			}
		}
		if len(users) == 0 {
			for _, ep := range b.endpoints {
				if ep.draft == nil {
					continue
				}
				stems := ep.pathStems()
				for _, w := range keywords(base) {
					if stems[w] && !genericEndpointWords[w] && stemCount[w]*3 <= len(b.endpoints)+1 {
						users = append(users, ep.draft)
						break
					}
				}
			}
		}
		d.users = users
		for _, u := range users {
			u.deps = append(u.deps, d)
		}
	}
}
