package heuristic

import (
	"regexp"
	"strings"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// This file finds, in a section that would otherwise be one ticket, the
// pieces of work its sentences state each on their own: steps another
// actor takes, a second deliverable a sentence adds ("…, and a way to
// …"), and a new table the section's data lives in. Each becomes a part
// (a ticket) of its own instead of a criterion of the section's ticket,
// where a lead would not see it.

// splitParts returns the parts of a section with no captioned table or
// labelled item: the section's ticket (untitled, named by the section) and
// one part per piece of work found by the rules above; none unless there
// are two.
func (b *builder) splitParts(s *section, units []*unit) []*part {
	var rest []*unit
	for _, u := range units {
		if !u.claimed {
			rest = append(rest, u)
		}
	}
	if len(rest) < 2 && !(len(rest) == 1 && mayWayTo(rest[0].text) && wayTo.MatchString(rest[0].text)) {
		return nil
	}
	main := &part{order: rest[0].order}
	parts := []*part{main}
	byActor := b.actorParts(s, rest)
	for _, u := range rest {
		switch {
		case byActor[u] != nil:
			p := byActor[u]
			if len(p.units) == 0 {
				p.order = u.order
				p.after = main
				parts = append(parts, p)
			}
			p.units = append(p.units, u)
		case u != rest[0] && (strings.Contains(u.text, "new ") || strings.Contains(u.text, "New ")) && newStore.MatchString(u.text):
			p := &part{title: storeTitle(u.text), order: u.order, units: []*unit{u}, task: true}
			parts = append(parts, p)
		case u != rest[0] && (strings.Contains(u.text, "limit") || strings.Contains(u.text, "Limit")) && ownLimit.MatchString(u.text):
			// "A request whose tenant cannot be determined counts against
			// a limit per source IP of 5 requests per second": a limit of
			// its own, sized and tested on its own.
			p := &part{title: shorten("Enforce "+ownLimit.FindString(stripCode(u.text)), 14, 100), order: u.order, units: []*unit{u}, task: true}
			parts = append(parts, p)
		default:
			main.units = append(main.units, u)
			if m := matchIf(mayWayTo(u.text), wayTo, u.text); m != nil {
				// "A Redeliver button on each failed delivery, and a way
				// to select many failed deliveries and redeliver them":
				// the second deliverable builds on the first.
				text := "Provide a way to " + m[2]
				v := &unit{text: text, sec: s, order: u.order, item: u.item, words: keywords(text)}
				u.text = m[1] + "."
				u.words = keywords(u.text)
				title := upperFirst(dropParentheticals(strings.TrimRight(stripCode(m[2]), ".")))
				parts = append(parts, &part{title: shorten(title, 12, 90), order: u.order, units: []*unit{v}, after: main})
			}
		}
	}
	if len(parts) < 2 || len(main.units) == 0 {
		return nil
	}
	return parts
}

// wayTo is a sentence that names a second deliverable after a first one:
// groups are the first and what the second does.
var wayTo = regexp.MustCompile(`^(.{12,}?),? and (?:a|an|the) (?:way|ability|option|means) to (\S.{12,})$`)

// mayWayTo is a necessary condition for wayTo, checked first.
func mayWayTo(text string) bool {
	return strings.Contains(text, " and ") && strings.Contains(text, " to ") &&
		(strings.Contains(text, " way") || strings.Contains(text, " ability") || strings.Contains(text, " option") || strings.Contains(text, " means"))
}

// newStore is a sentence that introduces a new table or collection the
// section's data lives in ("Overrides live in a new
// `tenant_rate_limit_overrides` table with …"): a data-model task of its
// own, beside the behaviour that reads it.
var newStore = regexp.MustCompile("(?i)\\bnew (?:`([\\w.-]+)` )?(table|collection|column|index|bucket)\\b")

// storeTitle names the work of a newStore sentence: "Create the
// tenant_rate_limit_overrides table".
func storeTitle(text string) string {
	m := newStore.FindStringSubmatch(text)
	if m[1] != "" {
		return "Create the " + m[1] + " " + strings.ToLower(m[2])
	}
	t, _ := imperative(text)
	return shorten(t, 12, 90)
}

// actorParts reads a section whose work is a list of numbered steps taken
// by more than one actor ("1. … the controller sets …", "2. The worker
// agent receives a drain request …"): the steps of each actor after the
// first are a part of their own, which waits for the first actor's steps.
// People (users, operators) are no actor here: what they do is no work.
// It maps each unit of such a step to its actor's part.
func (b *builder) actorParts(s *section, units []*unit) map[*unit]*part {
	in := b.info[s.index]
	if len(in.items) < 3 {
		return nil
	}
	actorOf := map[*itemGroup]string{}
	first := ""
	distinct := map[string]bool{}
	for _, ig := range in.items {
		if !ig.ordered || len(ig.units) == 0 {
			return nil
		}
		a := stepActor(ig.units[0].text)
		if a == "" {
			continue
		}
		actorOf[ig] = a
		distinct[a] = true
		if first == "" {
			first = a
		}
	}
	if len(distinct) < 2 || len(actorOf) < 3 {
		return nil
	}
	parts := map[string]*part{}
	out := map[*unit]*part{}
	current := first
	for _, ig := range in.items {
		if a := actorOf[ig]; a != "" {
			current = a
		}
		if current == first {
			continue
		}
		p := parts[current]
		if p == nil {
			p = &part{title: actorTitle(ig.units[0].text)}
			parts[current] = p
		}
		for _, u := range ig.units {
			out[u] = p
		}
	}
	return out
}

var (
	// stepSubject is the subject and verb of a step: an article, the
	// actor's name (one or two words) and a verb.
	stepSubject = regexp.MustCompile(`^(?i:the|a|an)\s+(([a-z][\w-]*)(?:\s+[a-z][\w-]*)?)\s+([a-z]+s|is|are|will|must|should|can|may)\b`)
	// stepOpener opens a step with a condition ("When it holds no job, or
	// the drain timeout passes, the controller deletes the worker").
	stepOpener = regexp.MustCompile(`(?i)^(when|once|if|after|before|while|as soon as|on)\b`)
)

// stepActor is the head word of the actor of a step ("worker" of "The
// worker agent receives a drain request"), read after an opening
// condition; "" when the step names none, or a person.
func stepActor(text string) string {
	text = strings.TrimSpace(stripCode(text))
	for at := 0; at >= 0 && at < len(text); {
		if at == 0 || stepOpener.MatchString(text) {
			if m := stepSubject.FindStringSubmatch(text[at:]); m != nil {
				a := strings.ToLower(m[2])
				if roleIn(a) != "" || stopWords[a] {
					return ""
				}
				return a
			}
		} else {
			return ""
		}
		i := strings.Index(text[at:], ", ")
		if i < 0 {
			return ""
		}
		at += i + 2
	}
	return ""
}

// actorTitle names an actor's steps by the actor and what it does first:
// "Worker agent: receive a drain request over the existing control
// channel".
func actorTitle(text string) string {
	text = strings.TrimSpace(stripCode(text))
	for at := 0; at < len(text); {
		if m := stepSubject.FindStringSubmatchIndex(text[at:]); m != nil {
			actor := text[at+m[2] : at+m[3]]
			rest := strings.TrimRight(text[at+m[6]:], ".")
			return shorten(upperFirst(actor)+": "+lowerFirst(verbFirst(rest)), 14, 100)
		}
		i := strings.Index(text[at:], ", ")
		if i < 0 {
			break
		}
		at += i + 2
	}
	t, _ := imperative(text)
	return shorten(t, 12, 90)
}

// plainDraft is the draft of one ask of a prose request.
func (b *builder) plainDraft(s *section, order int, text string) *draft {
	v := &unit{text: text, sec: s, order: order, words: keywords(text)}
	ig := &itemGroup{text: text, units: []*unit{v}, sec: s, order: order}
	return b.itemDraft(s, ig, []*unit{v})
}

var (
	// listsEvents is a page or log asked for that lists events ("an audit
	// log page … that lists setting changes, member invitations and
	// removals, and API key creation, each with the actor, the time and
	// the old and new value"): groups are what it lists and what each
	// entry holds.
	listsEvents = regexp.MustCompile(`(?i)\b(?:page|view|screen|tab|report|log|feed|timeline|history)\b.{0,60}?\b(?:that|which) (?:lists|shows|displays) (.+?)(?:, each with (.+?))?\.?$`)
	eventNoun   = regexp.MustCompile(`(?i)\b(changes|creation|creations|removals?|deletions?|invitations?|updates|events|actions|logins|sign-ins|edits)\b`)
	// pronounObject is an ask about something named before ("Admins
	// should be able to download it as CSV").
	pronounObject = regexp.MustCompile(`(?i)^\S+(?: \S+){0,6}? (?:to|should|must|can|will) \S+ (?:it|them)\b`)
)

// recordTitle is the work a page that lists events implies before it: the
// events must be recorded, with what each entry shows ("Record setting
// changes, member invitations and removals, and API key creation with the
// actor, the time and the old and new value"); "" when text asks for no
// such page.
func recordTitle(text string) string {
	if !strings.Contains(text, " lists ") && !strings.Contains(text, " shows ") && !strings.Contains(text, " displays ") {
		return ""
	}
	m := listsEvents.FindStringSubmatch(stripCode(text))
	if m == nil || !eventNoun.MatchString(m[1]) {
		return ""
	}
	t := "Record " + strings.TrimSpace(m[1])
	if m[2] != "" {
		t += " with " + strings.TrimSpace(m[2])
	}
	return shorten(t, 20, 120)
}

// guideDraft builds the ticket of what an RFC's guide-level explanation
// states that no ticket of the reference-level sections (built before it)
// holds, if anything: sentences with a verb whose words other tickets
// mostly lack.
func (b *builder) guideDraft(s *section, units []*unit) {
	var own []*unit
	for _, u := range units {
		if u.claimed {
			continue
		}
		if !hasVerb(u.text) || b.coveredElsewhere([]*unit{u}) {
			u.claimed = true
			continue
		}
		own = append(own, u)
	}
	if len(own) == 0 {
		return
	}
	title := ""
	for _, u := range own {
		if t := givesTitle(u.text); t != "" {
			title = t
			break
		}
	}
	if title == "" {
		t, _ := imperative(own[0].text)
		title = shorten(t, 12, 90)
	}
	d := b.sectionDraft(s, b.info[s.index].topic, own, title)
	d.kind, d.role = tickets.TypeTask, "" // what the system does, not what the client wants
	b.info[s.index].drafts = append(b.info[s.index].drafts, d)
}

// gets is a sentence saying what someone or something receives ("A client
// that goes over its limit gets a 429 with Retry-After, and …").
var gets = regexp.MustCompile(`(?i)^((?:a|an|the|each|every) [^,;:]{3,60}?) (?:gets|receives|sees) ([^,;:]{3,80})`)

// givesTitle names the work of a gets sentence: "Return a 429 with
// Retry-After to a client that goes over its limit"; "" for another
// sentence.
func givesTitle(text string) string {
	m := gets.FindStringSubmatch(stripCode(text))
	if m == nil {
		return ""
	}
	return shorten("Return "+strings.TrimSpace(m[2])+" to "+lowerFirst(m[1]), 16, 110)
}

// exampleLines renders the first lines of an example (a code block) as
// one line: "HTTP/1.1 200 OK; RateLimit-Limit: 50; …".
func exampleLines(code string) string {
	var out []string
	for _, l := range strings.Split(code, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "```") && !strings.HasPrefix(l, "~~~") {
			out = append(out, l)
		}
		if len(out) == 6 {
			break
		}
	}
	return truncateRunes(strings.Join(out, "; "), 240)
}

// ownLimit is a numeric rate limit a sentence states ("a limit per source
// IP of 5 requests per second").
var ownLimit = regexp.MustCompile(`(?i)\b(?:an? |the )?(?:rate )?limit\b[^.;,]{0,60}?\b\d+ \w+ (?:per|a|an) (?:second|minute|hour|day)\b`)
