package heuristic

import (
	"regexp"
	"strings"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// This file finds unresolved items in the spec, phrases them as open
// questions and turns the ones that block work into spikes.

var (
	todoLead    = regexp.MustCompile(`^\W*(?:TODO|FIXME|TBD|(?i:todo|fixme|tbd|open question|question)\s*[:\-–—])\s*[:\-–—]?\s*(.+)$`)
	unclear     = regexp.MustCompile(`(?i)^(?:it is |it's |still )?(?:unclear|not clear|unknown|undecided)\s+(.+)$`)
	markerFirst = regexp.MustCompile(`^(?i:to be (provided|decided|determined|confirmed|defined))\b|^(TBD|TBC)\b`)
	markers     = regexp.MustCompile(`(?i)\b(not shown|not specified|tbd|tbc|todo|fixme|to be decided|to be determined|to be provided|to be confirmed|to be defined|unclear|not clear|open question)\b`)
)

// questionFrom records text as an open question when it marks something
// unresolved; it returns nil for ordinary sentences.
func (b *builder) questionFrom(s *section, text string) *question {
	if b.info[s.index].topic == "questions" && indirectQuestion.MatchString(text) {
		// "Whether to support offline expense creation and later sync in
		// phase 1" under "Open questions / to decide" asks; it was a task
		// "Implement whether to support offline expense creation …".
		text = strings.TrimRight(strings.TrimSpace(text), ".;?") + "?"
	}
	if !strings.HasSuffix(strings.TrimSpace(text), "?") && !markerWords(text) {
		return nil
	}
	t := strings.TrimSpace(stripCode(text))
	plain := strings.TrimSpace(text)
	var subject, q string
	switch {
	case strings.HasSuffix(t, "?"):
		q = plain
		subject = decisionSubject(strings.TrimSuffix(t, "?"))
	case hasMarker(t) && (markerFirst.MatchString(t) || fieldCount(strings.Trim(markers.ReplaceAllString(t, ""), " :,;.-")) < 3):
		// "TBD", "To be provided by Design Team": the open point is what
		// the section or label names.
		what := s.cleanedHeading()
		if b.caption != "" {
			what = b.caption
		}
		q = "What is decided for \"" + what + "\"? The spec says: \"" + strings.TrimRight(plain, ".") + ".\""
		subject = lowerFirst(what)
	case containsAny(t, "todo", "fixme", "tbd", "question") && todoLead.MatchString(t):
		subject = strings.TrimRight(todoLead.FindStringSubmatch(t)[1], ". ")
		q = questionFor(subject, strings.TrimRight(todoLead.FindStringSubmatch(plain)[1], ". "))
	case notShownAt(t) >= 0:
		subject = strings.TrimRight(t[:notShownAt(t)], " :,;.-")
		pmSubject := strings.TrimRight(plain[:max(0, notShownAt(plain))], " :,;.-")
		for _, aux := range []string{" is", " are"} {
			subject = strings.TrimSuffix(subject, aux)
			pmSubject = strings.TrimSuffix(pmSubject, aux)
		}
		if subject == "" || notShownAt(plain) < 0 {
			return b.addQuestion(s, sentenceCase(plain), "the open point", 1)
		}
		if np := nounPhrase(b.lastText); np != "" {
			subject = resolvePronoun(subject, np)
			pmSubject = resolvePronoun(pmSubject, np)
		}
		q = questionFor(subject, pmSubject)
	case containsAny(t, "unclear", "not clear", "unknown", "undecided") && unclear.MatchString(t):
		subject = strings.TrimRight(unclear.FindStringSubmatch(t)[1], ". ")
		q = "Clarify " + strings.TrimRight(unclear.FindStringSubmatch(plain)[1], ". ") + "."
	case hasMarker(t):
		q = sentenceCase(plain)
		subject = strings.TrimRight(markers.ReplaceAllString(t, ""), " :,;.-")
	default:
		return nil
	}
	return b.addQuestion(s, q, subject, blockScore(subject))
}

// resolvePronoun replaces a leading "Its"/"Their" by the noun phrase np.
func resolvePronoun(subject, np string) string {
	low := strings.ToLower(subject)
	for _, p := range []string{"its ", "their "} {
		if strings.HasPrefix(low, p) {
			return "the " + np + " " + subject[len(p):]
		}
	}
	return subject
}

// nounPhrase returns the subject of a sentence: the words before its first
// verb, without the article ("A real-time channel carries odds" gives
// "real-time channel").
func nounPhrase(sentence string) string {
	if label, _, ok := splitLabel(stripCode(sentence)); ok && fieldCount(label) <= 5 {
		return lowerFirst(strings.TrimSpace(label))
	}
	fields := strings.Fields(stripCode(sentence))
	var out []string
	for i, f := range fields {
		w := strings.ToLower(strings.Trim(f, ",.;:"))
		if i == 0 && (w == "a" || w == "an" || w == "the") {
			continue
		}
		if w == "is" || w == "are" || w == "has" || w == "have" || w == "was" || w == "can" || w == "must" || w == "will" || strings.HasSuffix(w, "s") && baseVerb(w) != "" && i > 0 || strings.HasSuffix(w, "ies") {
			break
		}
		out = append(out, strings.Trim(f, ",.;:"))
		if len(out) > 5 {
			return ""
		}
	}
	if len(out) == len(fields) {
		return ""
	}
	return strings.Join(out, " ")
}

var endMarkers = []string{"not shown", "not specified", "not defined", "not documented", "not yet decided", "not decided", "to be decided", "to be determined", "to be confirmed", "undecided", "tbd", "tbc"}

// notShownAt returns where a closing "not shown"-style marker starts, or -1
// when the text does not end with one.
func notShownAt(t string) int {
	low := strings.ToLower(strings.TrimRight(t, " .;"))
	for _, m := range endMarkers {
		if strings.HasSuffix(low, m) {
			i := len(low) - len(m)
			if i == 0 || !isWordByte(low[i-1]) {
				return i
			}
		}
	}
	return -1
}

// markerPhrases mark an unresolved item anywhere in a sentence; the
// upper-case markers count only in upper case ("TBD", not the noun "todo"
// of a todo app), and "not specified" only at the end of a sentence (see
// notShownAt: "in case the field is not specified" is a condition).
var (
	markerPhrases = []string{"to be decided", "to be determined", "to be provided", "to be confirmed", "to be defined", "unclear", "not clear", "open question"}
	upperMarkers  = []string{"TBD", "TBC", "TODO", "FIXME"}
)

// hasMarker reports whether text holds a word or phrase that marks an
// unresolved item.
func hasMarker(text string) bool {
	for _, m := range upperMarkers {
		if strings.Contains(text, m) && containsWordCase(text, m) {
			return true
		}
	}
	low := strings.ToLower(text)
	for _, m := range markerPhrases {
		if strings.Contains(low, m) && containsWord(low, m) {
			return true
		}
	}
	return false
}

// containsWordCase is containsWord without folding case.
func containsWordCase(text, word string) bool {
	return containsWhere(text, word, func(start, end int) bool {
		return (start == 0 || !isWordByte(text[start-1])) && (end >= len(text) || !isWordByte(text[end]))
	})
}

// containsWhere reports whether text holds sub at an occurrence that
// whole accepts, given where it starts and ends in text.
func containsWhere(text, sub string, whole func(start, end int) bool) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], sub)
		if j < 0 {
			return false
		}
		j += i
		if whole(j, j+len(sub)) {
			return true
		}
		i = j + 1
	}
}

// markerWords is a quick test for the words that mark an unresolved item.
func markerWords(text string) bool {
	low := strings.ToLower(text)
	return countLower(low, "not ", "to be ", "undecided", "tbd", "tbc", "todo", "fixme", "unclear", "unknown", "question") > 0
}

func (b *builder) addQuestion(s *section, text, subject string, block int) *question {
	key := foldKey(text)
	if q, ok := b.questionByText[key]; ok {
		return q
	}
	b.order++
	q := &question{text: text, subject: strings.TrimSpace(subject), sec: s, order: b.order, block: block, words: keywords(text)}
	b.questions = append(b.questions, q)
	b.questionByText[key] = q
	return q
}

// questionFor phrases "Defaults of options" as "What are the defaults of
// options?"; plain keeps code spans.
func questionFor(subject, plain string) string {
	low := strings.ToLower(subject)
	for _, w := range []string{"which ", "what ", "how ", "when ", "where ", "who ", "why "} {
		if strings.HasPrefix(low, w) {
			return upperFirst(doSupport(plain)) + "?"
		}
	}
	if strings.HasPrefix(low, "whether ") {
		return "Is it decided " + plain + "?"
	}
	if strings.HasPrefix(low, "its ") || strings.HasPrefix(low, "their ") {
		if looksPlural(strings.SplitN(subject, " ", 2)[1]) {
			return "What are " + lowerFirst(plain) + "?"
		}
		return "What is " + lowerFirst(plain) + "?"
	}
	verb := "is"
	if looksPlural(subject) {
		verb = "are"
	}
	if strings.HasPrefix(low, "the ") {
		return "What " + verb + " " + lowerFirst(plain) + "?"
	}
	return "What " + verb + " the " + lowerFirst(plain) + "?"
}

// doSupport turns "how the platform reads x" into "how does the platform
// read x".
func doSupport(q string) string {
	fields := strings.Fields(q)
	if len(fields) < 3 {
		return q
	}
	switch strings.ToLower(fields[0]) {
	case "how", "when", "where", "why":
	default:
		return q
	}
	for i := 2; i < len(fields) && i < 7; i++ {
		w := strings.ToLower(fields[i])
		if w == "is" || w == "are" || w == "can" || w == "must" || w == "should" || w == "will" {
			return q
		}
		if v := baseVerb(w); v != "" && v != w && strings.HasSuffix(w, "s") {
			out := append([]string{fields[0], "does"}, fields[1:i]...)
			out = append(out, v)
			out = append(out, fields[i+1:]...)
			return strings.Join(out, " ")
		}
	}
	return q
}

var (
	weAux     = regexp.MustCompile(`(?i)\b(should|do|shall|will|can|would|must) (we|i|you)\b`)
	auxFirst  = regexp.MustCompile(`(?i)^(is|are|does|do|can|should|will|must|shall|would|could|has|have)\s+(.+)$`)
	predStart = regexp.MustCompile(`(?i)^(required|needed|allowed|supported|possible|ready|public|private|enabled|disabled|signed|encrypted|available|optional|mandatory|necessary|able|free|paid|shared|cached|stored|logged|idempotent|synchronous|asynchronous|blocking|visible|editable|configurable|[a-z]+ed|[a-z]+able|in|on|at|for|to|from|with|by|a|an|the|more|less|too|enough)$`)
)

// decisionSubject turns a question into what must be decided: "What
// database should we use" gives "what database to use"; "Is the API
// public" gives "whether the API is public".
func decisionSubject(q string) string {
	q = strings.TrimSpace(q)
	if m := auxFirst.FindStringSubmatch(q); m != nil {
		aux := strings.ToLower(m[1])
		words := strings.Fields(m[2])
		if len(words) == 0 {
			return lowerFirst(q)
		}
		split := -1
		for i := 1; i < len(words); i++ {
			w := strings.Trim(words[i], ",")
			if !(predStart.MatchString(w) || baseVerb(w) != "") {
				continue
			}
			if hasNoun(words[:i]) {
				split = i
				break
			}
		}
		if split < 0 {
			split = 1
			for split < len(words) && determiners[strings.ToLower(words[split-1])] {
				split++
			}
		}
		subj := strings.Join(words[:split], " ")
		rest := strings.Join(words[split:], " ")
		if aux == "do" || aux == "does" {
			return strings.TrimSpace("whether " + subj + " " + rest)
		}
		return strings.TrimSpace("whether " + subj + " " + aux + " " + rest)
	}
	q = weAux.ReplaceAllString(q, "to")
	return lowerFirst(q)
}

var determiners = map[string]bool{"the": true, "a": true, "an": true, "this": true, "that": true, "these": true, "those": true, "our": true, "their": true, "its": true, "my": true, "your": true, "each": true, "every": true, "any": true, "some": true}

// hasNoun reports whether words hold something other than determiners and
// adjectives, so they can be the subject of a question.
func hasNoun(words []string) bool {
	for _, w := range words {
		lw := strings.ToLower(strings.Trim(w, ","))
		if !determiners[lw] && !predStart.MatchString(lw) {
			return true
		}
	}
	return false
}

var (
	blockingWords = []string{"default", "payload", "header", "signing", "format", "shape", "envelope", "mapping", "transition", "behaviour", "behavior", "parameter", "retries", "retry", "values", "content", "field", "schema", "pairing", "interplay", "cancellable", "timing", "capacity", "size", "lifetime", "limit", "rate", "provider", "database", "protocol", "which", "how", "what", "whether", "response", "request", "paging", "time-out", "timeout", "condition", "rule", "minimum", "maximum", "stake", "status", "statuses"}
	softWords     = []string{"policy", "deprecation", "versioning", "beyond", "order for choosing", "display", "allowed values of", "full list"}
)

// blockScore rates how much an open question blocks implementation.
func blockScore(subject string) int {
	n := min(countAny(subject, blockingWords...), 3)
	n -= countAny(subject, softWords...)
	return max(n, 0)
}

// spikeTitle names the spike that resolves a question.
func spikeTitle(q *question) string {
	subject := strings.TrimSpace(dropParentheticals(stripCode(q.subject)))
	for _, cut := range []string{" beyond ", ", other than ", " other than ", " except ", ", and "} {
		if i := strings.Index(subject, cut); i > 0 && fieldCount(subject[:i]) >= 2 {
			subject = subject[:i]
		}
	}
	if subject == "" || subject == "the open point" {
		subject = strings.TrimSuffix(stripCode(q.text), "?")
	}
	fields := strings.Fields(subject)
	if len(fields) > 0 && baseVerb(fields[0]) != "" && strings.ToLower(fields[0]) == baseVerb(fields[0]) {
		return shorten(upperFirst(subject), 14, 100)
	}
	return shorten("Decide "+lowerFirst(subject), 14, 100)
}

// buildQuestionSpikes creates spikes: one per section with blocking
// questions, or one per question when the spec is only questions.
func (b *builder) buildQuestionSpikes(all bool) {
	if all {
		for _, q := range b.questions {
			b.spikeFor(q.sec, []*question{q})
		}
		return
	}
	bySection := map[*section][]*question{}
	var order []*section
	for _, q := range b.questions {
		if q.block == 0 {
			continue
		}
		if _, ok := bySection[q.sec]; !ok {
			order = append(order, q.sec)
		}
		bySection[q.sec] = append(bySection[q.sec], q)
	}
	for _, s := range order {
		b.spikeFor(s, bySection[s])
	}
}

// indirectQuestion is a question written without its question mark:
// "Whether to support …", "How to handle …", "Which provider …".
var indirectQuestion = regexp.MustCompile(`^(?:Whether|How to|How (?:do|does|should|will) |Which|What|Who|When to|Where to)\b`)

// spikeFor builds a spike for questions of one section.
func (b *builder) spikeFor(s *section, qs []*question) *draft {
	top := qs[0]
	for _, q := range qs[1:] {
		if q.block > top.block {
			top = q
		}
	}
	d := b.newDraft(tickets.TypeSpike, originSpike, spikeTitle(top), s)
	d.topic = "spike"
	d.qs = qs
	d.order = s.index*10000 + top.order%10000 - 5000
	if d.order < 0 {
		d.order = top.order
	}
	block := 0
	for _, q := range qs {
		q.spike = d
		block += q.block
		d.crit = append(d.crit, "A written decision answers: "+q.text)
	}
	where := "the request"
	if s != nil && s.parent != nil {
		where = "the \"" + s.cleanedHeading() + "\" section"
	}
	d.lead = "Time-boxed investigation: " + where + " leaves this open, and work there cannot be finished until it is decided. Record the decision in the project docs and update the affected tickets to match it."
	d.value = 0.3 + 0.05*float64(min(block, 5))
	d.conf = 0.7
	d.phase = 1
	d.labels = []string{"decision"}
	d.words = newWordSet(d.title)
	for _, q := range qs {
		d.words.add(q.text)
	}
	if s != nil {
		b.info[s.index].drafts = append(b.info[s.index].drafts, d)
	}
	return d
}

// isQuestionsOnly reports whether the spec holds questions and nothing to
// build.
func (b *builder) isQuestionsOnly() bool {
	if len(b.questions) == 0 || len(b.endpoints) > 0 {
		return false
	}
	for _, in := range b.info {
		if len(in.fields) > 0 || len(in.states) > 0 {
			return false
		}
	}
	for _, u := range b.units {
		if isRequirement(u.text) {
			return false
		}
	}
	return len(b.units) <= len(b.questions)
}
