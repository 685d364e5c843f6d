package heuristic

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds the sentence and word handling used to turn spec text into
// titles, criteria and labels.

var abbreviations = map[string]bool{
	"e.g": true, "i.e": true, "etc": true, "vs": true, "approx": true, "no": true,
	"fig": true, "cf": true, "mr": true, "mrs": true, "dr": true, "inc": true, "ltd": true,
	"eg": true, "ie": true, "min": true, "max": true, "sec": true, "incl": true,
}

// splitSentences splits text into sentences. It does not split inside code
// spans or brackets, after common abbreviations, or before a lower-case
// continuation.
func splitSentences(text string) []string {
	text = collapseSpaces(text)
	if text == "" {
		return nil
	}
	if !utf8.ValidString(text) {
		text = string([]rune(text)) // each invalid byte becomes U+FFFD
	}
	var out []string
	start, depth, inCode := 0, 0, false
	emit := func(end int) {
		s := strings.TrimSpace(text[start:end])
		if s != "" {
			out = append(out, s)
		}
		start = end
	}
	for i, r := range text {
		switch r {
		case '`':
			inCode = !inCode
		case '(', '[', '{':
			if !inCode {
				depth++
			}
		case ')', ']', '}':
			if !inCode && depth > 0 {
				depth--
			}
		case '.', '!', '?':
			if inCode || depth > 0 {
				continue
			}
			next, _ := utf8.DecodeRuneInString(text[i+1:])
			if i+1 < len(text) && !unicode.IsSpace(next) {
				continue
			}
			j := i + 1
			for j < len(text) {
				n, size := utf8.DecodeRuneInString(text[j:])
				if !unicode.IsSpace(n) {
					if !(unicode.IsUpper(n) || unicode.IsDigit(n) || strings.ContainsRune("`\"'(*[", n)) {
						j = -1
					}
					break
				}
				j += size
			}
			if j < 0 {
				continue
			}
			if r == '.' {
				w := strings.ToLower(lastToken(text[start:i]))
				if abbreviations[w] || utf8.RuneCountInString(w) == 1 {
					continue
				}
			}
			emit(i + 1)
		}
	}
	emit(len(text))
	return out
}

func lastToken(s string) string {
	i := len(s)
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		if unicode.IsSpace(r) || r == '(' {
			break
		}
		i -= size
	}
	return strings.Trim(s[i:], "\"'`")
}

var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "and": true, "or": true, "of": true, "to": true, "in": true,
	"on": true, "for": true, "with": true, "by": true, "as": true, "at": true, "is": true, "are": true,
	"be": true, "it": true, "its": true, "this": true, "that": true, "these": true, "those": true,
	"from": true, "into": true, "not": true, "no": true, "any": true, "all": true, "each": true,
	"every": true, "one": true, "than": true, "then": true, "when": true, "which": true, "who": true,
	"what": true, "how": true, "if": true, "else": true, "can": true, "may": true, "must": true,
	"should": true, "shall": true, "will": true, "has": true, "have": true, "had": true, "was": true,
	"were": true, "been": true, "do": true, "does": true, "did": true, "but": true, "so": true,
	"there": true, "their": true, "they": true, "them": true, "we": true, "our": true, "you": true,
	"your": true, "i": true, "me": true, "my": true, "he": true, "she": true, "his": true, "her": true,
	"only": true, "also": true, "other": true, "same": true, "per": true, "via": true, "up": true,
	"out": true, "over": true, "about": true, "after": true, "before": true, "while": true,
	"such": true, "more": true, "most": true, "some": true, "own": true, "both": true, "either": true,
	"neither": true, "nor": true, "between": true, "under": true, "above": true, "below": true,
	"here": true, "where": true, "whether": true, "again": true, "once": true, "without": true,
	"within": true, "used": true, "use": true, "uses": true, "using": true, "named": true,
	"see": true, "given": true, "like": true, "e": true, "g": true, "eg": true, "ie": true,
	"etc": true, "yes": true, "null": true, "true": true, "false": true, "string": true,
	"integer": true, "number": true, "object": true, "array": true, "boolean": true,
	"v1": true, "v2": true, "v3": true,
}

// stopWordMaxLen is the length of the longest stop word: a longer word
// needs no look-up.
var stopWordMaxLen = func() int {
	n := 0
	for w := range stopWords {
		n = max(n, len(w))
	}
	return n
}()

// stopWordEnds holds, by length, the first and last letters (a to z) of
// the stop words, so that most words need no look-up among them.
var stopWordEnds = func() [][26 * 26]bool {
	ends := make([][26 * 26]bool, stopWordMaxLen+1)
	for w := range stopWords {
		if first, last := w[0]-'a', w[len(w)-1]-'a'; first < 26 && last < 26 {
			ends[len(w)][int(first)*26+int(last)] = true
		}
	}
	return ends
}()

// mayBeStopWord reports whether w may be a stop word: false when no stop
// word has its length and, for a word between letters a and z, its first
// and last letters.
func mayBeStopWord(w string) bool {
	if len(w) > stopWordMaxLen || w == "" {
		return false
	}
	if first, last := w[0]-'a', w[len(w)-1]-'a'; first < 26 && last < 26 {
		return stopWordEnds[len(w)][int(first)*26+int(last)]
	}
	return true
}

var wordSplit = regexp.MustCompile(`[^\p{L}\p{N}_]+`)

// keywords returns the stemmed content words of s, in order of first
// appearance, without duplicates. Snake_case words count whole and by part.
func keywords(s string) []string {
	out := make([]string, 0, 8)
	var seen map[string]bool // the words of out, once it is long
	eachKeyword(s, func(w string) {
		if len(out) < 16 {
			for _, o := range out {
				if o == w {
					return
				}
			}
			out = append(out, w)
			return
		}
		if seen == nil {
			seen = make(map[string]bool, 2*len(out))
			for _, o := range out {
				seen[o] = true
			}
		}
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	})
	return out
}

// eachKeyword calls add with each stemmed content word of s in order,
// repeats included: the parts of a snake_case word, then the word.
func eachKeyword(s string, add func(string)) {
	s = strings.ToLower(s)
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := s[start:end]
		start = -1
		if strings.IndexByte(w, '_') >= 0 {
			for rest := w; ; {
				i := strings.IndexByte(rest, '_')
				if i < 0 {
					addContentWord(add, rest)
					break
				}
				addContentWord(add, rest[:i])
				rest = rest[i+1:]
			}
		}
		addContentWord(add, w)
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' {
				if start < 0 {
					start = i
				}
			} else {
				flush(i)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
		} else {
			flush(i)
		}
		i += size
	}
	flush(len(s))
}

// addContentWord calls add with w stemmed unless w is a stop word, a
// number or shorter than two bytes.
func addContentWord(add func(string), w string) {
	if len(w) < 2 || mayBeStopWord(w) && stopWords[w] || isNumber(w) {
		return
	}
	add(stem(w))
}

// hasContentWord reports whether s has at least one keyword; it stops at
// the first one.
func hasContentWord(s string) bool {
	start := -1
	for i, r := range s {
		if r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && len(keywords(s[start:i])) > 0 {
			return true
		}
		start = -1
	}
	return start >= 0 && len(keywords(s[start:])) > 0
}

func isNumber(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return w != ""
}

// stem reduces a lower-case word to a crude singular form.
func stem(w string) string {
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "xes"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		return w
	case strings.HasSuffix(w, "s") && len(w) > 3:
		return w[:len(w)-1]
	}
	return w
}

// wordSet is a set of stemmed keywords.
type wordSet map[string]bool

func newWordSet(texts ...string) wordSet {
	ws := wordSet{}
	ws.add(texts...)
	return ws
}

func (ws wordSet) add(texts ...string) {
	for _, t := range texts {
		eachKeyword(t, func(w string) { ws[w] = true })
	}
}

// overlap counts the keywords of text found in ws.
func (ws wordSet) overlap(words []string) int {
	n := 0
	for _, w := range words {
		if ws[w] {
			n++
		}
	}
	return n
}

// containsWord reports whether text contains word as a whole word (case-insensitive).
func containsWord(text, word string) bool {
	return containsWordCase(strings.ToLower(text), strings.ToLower(word))
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 0x80
}

// containsAny reports whether lower-cased text contains any of the phrases.
func containsAny(text string, phrases ...string) bool {
	text = strings.ToLower(text)
	for _, p := range phrases {
		if strings.Contains(text, p) {
			return true
		}
	}
	return false
}

// containsLower is strings.Contains(strings.ToLower(s), sub) for a
// lower-case sub; it lower-cases nothing when s is ASCII.
func containsLower(s, sub string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return strings.Contains(strings.ToLower(s), sub)
		}
	}
	for i := 0; i+len(sub) <= len(s); i++ {
		j := 0
		for ; j < len(sub); j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != sub[j] {
				break
			}
		}
		if j == len(sub) {
			return true
		}
	}
	return false
}

// countAny counts how many of the phrases occur in lower-cased text.
func countAny(text string, phrases ...string) int {
	return countLower(strings.ToLower(text), phrases...)
}

// countLower is countAny for text that is already lower-case.
func countLower(text string, phrases ...string) int {
	n := 0
	for _, p := range phrases {
		if strings.Contains(text, p) {
			n++
		}
	}
	return n
}

// upperFirst capitalises the first rune of s, unless its first word is
// written in a case of its own: an upper-case letter or a digit after its
// first letter ("iOS", "macOS", "p95", "k8s") keeps the word as it is.
func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || !unicode.IsLower(r) {
		return s
	}
	for _, c := range s[n:] {
		if unicode.IsSpace(c) || unicode.IsPunct(c) && c != '-' {
			break
		}
		if unicode.IsUpper(c) || unicode.IsDigit(c) {
			return s
		}
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// lowerFirst lower-cases the first rune of s unless the first word looks
// like an acronym, a code name or a proper name in camel case.
func lowerFirst(s string) string {
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return s
	}
	if len(fields) > 1 && isTitleCase(fields) {
		// "User Stories" reads "user stories", not "user Stories"; acronyms
		// and identifiers keep their case ("CronJob API").
		for i, f := range fields {
			if plainCapitalized(f) {
				fields[i] = strings.ToLower(f)
			}
		}
		return strings.Join(fields, " ")
	}
	first := fields[0]
	if strings.ContainsAny(first, "`/_.{}<>0123456789") {
		return s
	}
	upper := 0
	for _, r := range first {
		if unicode.IsUpper(r) {
			upper++
		}
	}
	if upper > 1 {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}

// isTitleCase reports whether every word of four letters or more of a
// short phrase starts with a capital ("Functional Requirements").
func isTitleCase(fields []string) bool {
	if len(fields) > 8 {
		return false
	}
	long := 0
	for _, f := range fields {
		w := strings.Trim(f, ".,;:()&'\"")
		if len(w) < 4 {
			continue
		}
		long++
		if r, _ := utf8.DecodeRuneInString(w); !unicode.IsUpper(r) {
			return false
		}
	}
	return long >= 2
}

// plainCapitalized reports whether w is a capital followed by lower-case
// letters only ("Stories"; not "API", "CronJob" or "V2").
func plainCapitalized(w string) bool {
	if a, b, ok := strings.Cut(w, "-"); ok {
		return plainCapitalized(a) && plainCapitalized(b) // "Non-Functional"
	}
	for i, r := range w {
		switch {
		case i == 0 && !unicode.IsUpper(r):
			return false
		case i > 0 && !unicode.IsLower(r) && r != '-' && r != '\'':
			return false
		}
	}
	return len(w) > 1
}

// stripCode removes backticks.
func stripCode(s string) string {
	return strings.ReplaceAll(s, "`", "")
}

var parenthetical = regexp.MustCompile(`\s*\([^()]*\)`)

// dropParentheticals removes bracketed asides.
func dropParentheticals(s string) string {
	if !strings.Contains(s, "(") {
		return strings.TrimSpace(s)
	}
	for i := 0; i < 3; i++ {
		t := parenthetical.ReplaceAllString(s, "")
		if t == s {
			break
		}
		s = t
	}
	return strings.TrimSpace(s)
}

// trimTrailing removes trailing punctuation and dangling small words.
func trimTrailing(s string) string {
	for {
		s = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s), ".,;:!?-–—"))
		last := lastFieldStart(s)
		if last < 0 || !danglingWords[strings.ToLower(s[last:])] {
			return s
		}
		s = collapseSpaces(s[:last])
	}
}

// shortenSlack is how many words over its bound shorten keeps whole.
const shortenSlack = 3

var danglingWords = map[string]bool{
	"a": true, "an": true, "the": true, "and": true, "or": true, "of": true, "to": true, "in": true,
	"on": true, "for": true, "with": true, "by": true, "as": true, "at": true, "from": true,
	"into": true, "that": true, "which": true, "when": true, "is": true, "are": true, "be": true,
	"its": true, "their": true, "than": true, "then": true, "not": true, "but": true, "via": true,
	"per": true, "if": true, "so": true, "it": true, "no": true, "before": true, "after": true,
	"where": true, "while": true, "whose": true, "all": true, "any": true, "each": true,
	"under": true, "over": true, "within": true, "about": true, "until": true, "can": true,
	"will": true, "should": true, "must": true, "may": true, "around": true, "between": true,
	"through": true, "across": true, "against": true, "without": true,
}

// shorten cuts s to at most maxWords words and maxRunes runes, preferring a
// clause boundary, and trims dangling words.
func shorten(s string, maxWords, maxRunes int) string {
	s = strings.TrimSpace(s)
	if fieldCount(s) <= maxWords+shortenSlack && utf8.RuneCountInString(s) <= maxRunes {
		// A few words over the bound, within its runes, are kept: a cut there leaves the
		// phrase without its end ("… for 7" of "… for 7 days").
		return trimTrailing(s)
	}
	if fieldCount(s) > maxWords || utf8.RuneCountInString(s) > maxRunes {
		fields := strings.Fields(s)
		// Prefer a clause boundary after at least four words.
		cut := -1
		for i := 3; i < len(fields) && i < maxWords; i++ {
			f := fields[i]
			if strings.HasSuffix(f, ",") || strings.HasSuffix(f, ";") || strings.HasSuffix(f, ":") {
				cut = i + 1
			}
			if i+1 < len(fields) && clauseStarters[strings.ToLower(fields[i+1])] {
				cut = i + 1
			}
		}
		for i := maxWords; cut < 0 && i < len(fields) && i < maxWords+shortenSlack; i++ {
			// "… packages at specific versions, ignoring …": the clause
			// ends a few words after the bound, not mid-phrase at it.
			if f := fields[i]; (strings.HasSuffix(f, ",") || strings.HasSuffix(f, ";")) && utf8.RuneCountInString(strings.Join(fields[:i+1], " ")) <= maxRunes {
				cut = i + 1
			}
		}
		if cut < 0 {
			cut = min(maxWords, len(fields))
		}
		whole := len(fields)
		fields = fields[:cut]
		for len(fields) > 1 && utf8.RuneCountInString(strings.Join(fields, " ")) > maxRunes {
			fields = fields[:len(fields)-1]
		}
		if n := len(fields); n > 4 && n < whole && strings.HasSuffix(strings.ToLower(fields[n-1]), "ing") {
			// "… a possibly null timestamp indicating", "… around the
			// existing": a cut after a word that opens what it cut off.
			fields = fields[:n-1]
		}
		s = strings.Join(fields, " ")
	}
	return trimTrailing(s)
}

var clauseStarters = map[string]bool{
	"when": true, "where": true, "which": true, "while": true, "because": true, "unless": true,
	"so": true, "but": true, "although": true, "though": true, "whereas": true, "if": true,
}

// truncateRunes cuts s to at most n runes on a word boundary.
func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	rs := []rune(s)
	cut := n
	for cut > n/2 && !unicode.IsSpace(rs[cut]) {
		cut--
	}
	if cut <= n/2 {
		cut = n
	}
	return strings.TrimSpace(string(rs[:cut]))
}

// kebab turns text into a lowercase kebab-case label of at most 40 runes.
func kebab(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(stripCode(s)) {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.Trim(b.String(), "-")
	for len(out) > 40 {
		i := strings.LastIndex(out[:40], "-")
		if i <= 0 {
			out = out[:40]
			break
		}
		out = out[:i]
	}
	return strings.Trim(out, "-")
}

// joinAnd joins items as "a, b and c".
func joinAnd(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// leadingAdverbial is a phrase of time, place or manner before a
// sentence's subject ("By default, ", "In production, ").
var leadingAdverbial = regexp.MustCompile(`^(?i:by|in|on|at|for|during|after|before|once)\b[^,]{1,30},\s+`)

// looksPlural guesses whether a noun phrase is plural from its head: the
// words before the first preposition, relative pronoun or participle.
func looksPlural(phrase string) bool {
	fields := strings.Fields(strings.ToLower(stripCode(phrase)))
	var head []string
	for i, f := range fields {
		w := strings.Trim(f, ",;:()")
		if i > 0 && (headStops[w] || strings.HasSuffix(w, "ed") && len(w) > 4) || strings.HasPrefix(f, "(") {
			break
		}
		head = append(head, f)
	}
	if len(head) == 0 {
		return false
	}
	joined := strings.Join(head, " ")
	if strings.Contains(joined, ",") || strings.Contains(joined, " and ") {
		return true
	}
	last := strings.Trim(head[len(head)-1], ",;:")
	return strings.HasSuffix(last, "s") && !strings.HasSuffix(last, "ss") && !strings.HasSuffix(last, "us") && !strings.HasSuffix(last, "is")
}

var headStops = map[string]bool{
	"of": true, "between": true, "for": true, "in": true, "on": true, "per": true, "beyond": true,
	"other": true, "inside": true, "with": true, "that": true, "which": true, "to": true, "from": true,
	"by": true, "at": true, "when": true, "where": true, "who": true, "whose": true, "than": true,
}

// baseVerbs are the base forms of the verbs a requirement commonly opens
// with; baseVerb also finds their third-person forms here.
var baseVerbs = map[string]bool{
	"accept": true, "add": true, "allow": true, "apply": true, "augment": true, "build": true, "calculate": true,
	"call": true, "cancel": true, "change": true, "check": true, "compute": true, "configure": true,
	"connect": true, "convert": true, "create": true, "credit": true, "debit": true, "define": true,
	"delete": true, "deliver": true, "deploy": true, "design": true, "detect": true, "disable": true,
	"display": true, "document": true, "download": true, "embed": true, "emit": true, "enable": true,
	"enforce": true, "ensure": true, "exchange": true, "expose": true, "export": true, "fetch": true,
	"filter": true, "fix": true, "generate": true, "handle": true, "hide": true, "implement": true,
	"import": true, "improve": true, "integrate": true, "introduce": true, "keep": true, "let": true,
	"limit": true, "list": true, "load": true, "log": true, "make": true, "manage": true, "map": true,
	"migrate": true, "mint": true, "monitor": true, "move": true, "notify": true, "open": true,
	"parse": true, "persist": true, "place": true, "poll": true, "prevent": true, "process": true,
	"provide": true, "publish": true, "read": true, "record": true, "refactor": true, "refresh": true,
	"reject": true, "remove": true, "rename": true, "render": true, "replace": true, "report": true,
	"resolve": true, "restrict": true, "retry": true, "return": true, "reverse": true, "review": true,
	"rotate": true, "run": true, "save": true, "scan": true, "schedule": true, "send": true,
	"serve": true, "set": true, "settle": true, "show": true, "sign": true, "split": true,
	"start": true, "stop": true, "store": true, "submit": true, "support": true, "sync": true,
	"test": true, "track": true, "translate": true, "turn": true, "update": true, "upgrade": true,
	"upload": true, "use": true, "validate": true, "verify": true, "warn": true, "write": true, "hold": true,
	"match": true, "merge": true, "link": true, "mark": true, "compare": true, "round": true, "decide": true,
	"investigate": true, "clarify": true, "measure": true, "audit": true, "archive": true,
	"authenticate": true, "authorize": true, "authorise": true, "encrypt": true, "escape": true,
	"invite": true, "localize": true, "localise": true, "paginate": true, "queue": true,
	"redirect": true, "register": true, "reset": true, "search": true, "sort": true,
	"subscribe": true, "suspend": true, "toggle": true, "unify": true, "preserve": true, "revert": true, "restore": true,
	"wire": true, "carry": true, "answer": true, "reply": true,
	"give": true, "take": true, "get": true, "put": true, "post": true, "patch": true,
	"cover": true, "describe": true, "include": true, "contain": true, "need": true, "want": true,
	"receive": true, "choose": true, "explain": true, "offer": true, "bet": true, "own": true,
	"belong": true, "tail": true, "follow": true, "print": true, "ship": true, "expand": true, "extend": true, "synchronise": true, "synchronize": true,
	"switch": true, "decommission": true, "ask": true, "respect": true, "redeliver": true,
}

// hasVerb reports whether a sentence seems to have a verb.
func hasVerb(s string) bool {
	for w := range strings.FieldsSeq(strings.ToLower(stripCode(s))) {
		w = strings.Trim(w, ".,;:()\"'")
		switch w {
		case "is", "are", "was", "were", "be", "has", "have", "can", "must", "will", "should", "may", "does", "do":
			return true
		}
		if baseVerb(w) != "" {
			return true
		}
	}
	return false
}

// baseVerb returns the base form of w when w is a known verb in base or
// third-person form, or "".
func baseVerb(w string) string {
	w = strings.ToLower(w)
	if baseVerbs[w] {
		return w
	}
	candidates := []string{}
	switch {
	case strings.HasSuffix(w, "ies"):
		candidates = append(candidates, w[:len(w)-3]+"y")
	case strings.HasSuffix(w, "es"):
		candidates = append(candidates, w[:len(w)-2], w[:len(w)-1])
	case strings.HasSuffix(w, "s"):
		candidates = append(candidates, w[:len(w)-1])
	}
	for _, c := range candidates {
		if baseVerbs[c] {
			return c
		}
	}
	return ""
}

var (
	storyPattern = regexp.MustCompile(`(?i)^as an? ([^,]+?),? i (?:want|need|would like|wish)(?: to)? (.+?)(?:,? (?:so that|in order to) (.+))?$`)
	modalPattern = regexp.MustCompile(`(?i)^(.{1,60}?)\s+(must|shall|should|will|can|could|may|needs? to|has to|have to|is required to|are required to|is able to|are able to)\s+(not\s+)?(be able to\s+)?(.+)$`)
)

// splitLabel splits "Label: rest" where the label is 2 to 60 bytes without
// a colon or backtick and rest is not empty. It returns ok false otherwise.
func splitLabel(s string) (label, rest string, ok bool) {
	i := strings.IndexByte(s, ':')
	if i < 2 || i > 60 || i+1 >= len(s) || strings.ContainsRune(s[:i], '`') {
		return "", "", false
	}
	if s[i+1] != ' ' && s[i+1] != '\t' {
		return "", "", false
	}
	rest = strings.TrimSpace(s[i+1:])
	if rest == "" {
		return "", "", false
	}
	return s[:i], rest, true
}

var roleWords = []string{
	"bettor", "operator", "client", "player", "aggregator", "casino", "customer", "admin",
	"administrator", "developer", "team", "user", "merchant", "partner", "reviewer", "agent",
	"manager", "analyst", "buyer", "seller", "member", "owner", "editor", "author", "visitor",
	"subscriber", "tenant", "integrator", "engineer", "support",
}

var actorWords = map[string]bool{
	"the system": true, "system": true, "the service": true, "service": true, "the app": true,
	"the application": true, "it": true, "we": true, "the api": true, "api": true,
	"the platform": true, "platform": true, "the server": true, "the backend": true,
	"the tool": true, "the cli": true, "the engine": true, "the product": true, "this": true,
	"the feature": true, "the site": true, "the website": true, "the page": true, "the ui": true,
}

// imperative turns a requirement sentence or list item into a verb-first
// title fragment, also returning a role when the sentence names one.
func imperative(s string) (title, role string) {
	_, _, labelled := splitLabel(strings.TrimSpace(s)) // a colon in a code span labels nothing
	s = strings.TrimSpace(stripCode(s))
	s = strings.TrimRight(s, ".!;: ")
	if strings.HasPrefix(strings.ToLower(s), "as a") {
		if m := storyPattern.FindStringSubmatch(s); m != nil {
			return storyImperative(m)
		}
	}
	if label, rest, ok := splitLabel(s); ok && labelled && fieldCount(label) <= 4 && fieldCount(rest) >= 3 {
		s = rest
	}
	s = unframed(s)
	if m := matchIf(s != "" && strings.ContainsRune("TtFfAaLlSsNn", rune(s[0])), connectiveFirst, s); m != nil && fieldCount(m[1]) >= 2 {
		s = upperFirst(m[1]) // "Then switch session reads …" is one step of a sequence
	}
	if m := matchIf(strings.HasPrefix(s, "Because ") || strings.HasPrefix(s, "Since "), reasonFirst, s); m != nil && fieldCount(m[1]) >= 3 {
		s = upperFirst(m[1]) // "Because the sysvar system supports …, these variables should be removed …"
	}
	if m := matchIf(strings.HasPrefix(s, "In "), whenFirst, s); m != nil && fieldCount(m[1]) >= 3 {
		// "In Go 1.16, when …, `go get` would print a deprecation
		// warning …": what a release of the proposal would do.
		if w := wouldDo.FindStringSubmatch(m[1]); w != nil && fieldCount(w[2]) >= 2 {
			return "Make " + w[1] + " " + w[2], ""
		}
		s = upperFirst(m[1])
	}
	if m := waitFirst.FindStringSubmatch(s); m != nil {
		// "After two successful restore tests, switch off the pg_dump
		// job": the action first, what it waits for after it.
		if f := strings.Fields(m[3]); len(f) > 1 && f[0] == strings.ToLower(f[0]) && !stopWords[f[0]] && (baseVerb(f[0]) == "" || baseVerb(f[0]) == f[0]) {
			if len(f)+1+fieldCount(m[2]) > 12 {
				return upperFirst(m[3]), "" // a title cut inside "after …" says less than none
			}
			return upperFirst(m[3]) + " " + strings.ToLower(m[1]) + " " + m[2], ""
		}
	}
	if m := conditionFirst.FindStringSubmatch(s); m != nil {
		// "If the same inspection was changed on the server while I was
		// offline, keep both versions and ask …": the action is the work,
		// the condition stays in the criteria.
		if f := strings.Fields(m[3]); len(f) > 1 && baseVerb(f[0]) == f[0] {
			return upperFirst(m[3]), ""
		}
	}
	scope := ""
	if m := clauseFirst.FindStringSubmatch(s); m != nil && fieldCount(m[3]) >= 3 {
		// "For build-dependencies, these variables are supplied to the
		// build.rs script": the main clause names the work ("Implement
		// for build-dependencies, these variables …" did not); what
		// "For" scopes it to labels the title ("Build-dependencies:
		// …"), a condition stays in the criteria.
		s = upperFirst(strings.TrimPrefix(m[3], "then "))
		if m[1] == "For" && fieldCount(m[2]) <= 3 {
			scope = upperFirst(m[2]) + ": "
		}
	}
	if m := matchModal(s); m != nil && fieldCount(m[1]) <= 6 {
		t, r := modalImperative(m)
		return scope + t, r
	}
	if m := existsPattern.FindStringSubmatch(s); m != nil {
		return "Provide " + lowerFirst(m[1]) + " for " + m[2], ""
	}
	if t := activeVoice(s); t != "" {
		return scope + t, ""
	}
	if scope != "" {
		return scope + s, ""
	}
	return verbFirst(s), ""
}

// clauseFirst is a sentence that opens with a clause before its main one:
// what it is for ("For dev-dependencies, …"), a condition ("If you have a
// version specifier as well, then …") whose main clause is no order (see
// conditionFirst); m[1] is the opening word, m[2] the rest of the clause,
// m[3] the main clause.
var clauseFirst = regexp.MustCompile(`^(For|If|When|Whenever|Once|Unless) ([^,]{3,80}), (\S.*)$`)

// connectiveFirst is an item that opens with the word joining it to the
// one before ("Then …", "Finally, …", "Next, …"); m[1] is the rest. "First",
// "Second" and "Next" count only with a comma, as they also open a noun
// phrase ("Next release ships …").
var connectiveFirst = regexp.MustCompile(`^(?:(?:[Tt]hen|[Ff]inally|[Aa]lso|[Ll]astly|[Aa]fterwards),?|(?:[Ff]irst|[Ss]econd|[Tt]hird|[Nn]ext),)\s+(.+)$`)

// storyImperative is the title of a user story, m its match of
// storyPattern ("As a <role>, I want <m[2]>"), and the story's role.
func storyImperative(m []string) (title, role string) {
	role = strings.ToLower(strings.TrimSpace(m[1]))
	if t, ok := wantedOfOthers(m[2], role); ok {
		return t, role
	}
	if f := strings.Fields(m[2]); len(f) > 1 && (f[0] == "a" || f[0] == "an") {
		// "I want a reminder the evening before my delivery": what
		// the user wants is a thing the work provides.
		return "Provide " + strings.ReplaceAll(m[2], " my ", " their "), role
	}
	if f := strings.Fields(m[2]); len(f) > 0 && baseVerb(f[0]) == "" && strings.ToLower(f[0]) == f[0] {
		// What follows "I want to" is a verb phrase ("view a list").
		return upperFirst(m[2]), role
	}
	return verbFirst(m[2]), role
}

// wantedOfOthers titles what a story's persona, role, wants of something
// or someone else ("I want today's admins to keep exactly the powers they
// have", "I want role changes enforced on the server", "I want to be the
// only role that can create another owner"): "Make today's admins keep
// exactly the powers they have", "Ensure role changes are enforced on the
// server", "Make the owner the only role that can create another owner".
// Titled as before, they read "Today's admins to keep …" and "Be the only
// role …". ok is false for any other want.
func wantedOfOthers(want, role string) (title string, ok bool) {
	words := strings.Fields(want)
	if len(words) < 3 {
		return "", false
	}
	persona := "the " + role
	if role == "" {
		persona = "the user"
	}
	own := func(s string) string { // "my account" is the owner's
		s = " " + s + " "
		s = strings.ReplaceAll(s, " my ", " "+persona+"'s ")
		s = strings.ReplaceAll(s, " me ", " "+persona+" ")
		return strings.TrimSpace(s)
	}
	theirs := func(s string) string { // after the persona is named: "their first login"
		s = " " + s + " "
		s = strings.ReplaceAll(s, " my ", " their ")
		s = strings.ReplaceAll(s, " me ", " them ")
		return strings.TrimSpace(s)
	}
	if strings.EqualFold(words[0], "be") {
		rest := strings.Join(words[1:], " ")
		if strings.HasSuffix(words[1], "ed") {
			return "Ensure " + persona + " is " + theirs(rest), true // "be offered biometric login …"
		}
		return "Make " + persona + " " + theirs(rest), true // "be the only role that …", "be unable to …"
	}
	if baseVerb(words[0]) != "" || clauseOpeners[strings.ToLower(words[0])] {
		return "", false // "to promote a teammate", "a reminder the evening before …"
	}
	for i := 1; i < len(words)-1 && i <= 8; i++ {
		w := strings.ToLower(words[i])
		subject := own(strings.Join(words[:i], " "))
		rest := own(strings.Join(words[i+1:], " "))
		be := "is"
		if pluralWord(words[i-1]) || strings.Contains(subject, " and ") {
			be = "are"
		}
		switch {
		case w == "to" && strings.EqualFold(words[i+1], "be") && i+2 < len(words):
			// "the last owner to be undemotable"
			return "Ensure " + subject + " " + be + " " + own(strings.Join(words[i+2:], " ")), true
		case w == "to" && !stopWords[strings.ToLower(words[i+1])] && !subjectDeterminers[strings.ToLower(words[i+1])] && opensNounPhrase(words[0]):
			// "today's admins to keep exactly the powers they have"
			return "Make " + subject + " " + rest, true
		case strings.HasSuffix(w, "ed") && len(w) > 4 && nounBefore(words[i-1]):
			// "role changes enforced on the server …"
			return "Ensure " + subject + " " + be + " " + w + " " + rest, true
		case strings.HasSuffix(w, "ly") && strings.HasSuffix(strings.ToLower(words[i+1]), "ed") && nounBefore(words[i-1]):
			// "the two roles clearly distinguished in copy"
			return "Ensure " + subject + " " + be + " " + w + " " + rest, true
		case (baseVerb(w) != "" || statementVerbs[w]) && !pluralWord(w) || stopWords[w] && w != "of" && w != "or" && w != "and" && !subjectDeterminers[w]:
			return "", false // a verb or a preposition ends the object without "to"
		}
	}
	return "", false
}

// opensNounPhrase reports whether w can open the object of "I want <object>
// to …": a determiner, a possessive, "my", a gerund or a plural ("the
// last owner", "today's admins", "banning", "rules"), not a verb the
// engine does not know ("promote a teammate to member").
func opensNounPhrase(w string) bool {
	low := strings.ToLower(w)
	return subjectDeterminers[low] || low == "my" || strings.HasSuffix(low, "'s") || strings.HasSuffix(low, "ing") && len(low) > 5 || pluralWord(low)
}

// nounBefore reports whether w, the word before a participle, can end the
// noun phrase the participle describes ("changes" of "role changes
// enforced"), not a determiner, a conjunction or a verb ("a revoked", "or
// demoted").
func nounBefore(w string) bool {
	low := strings.ToLower(w)
	return !subjectDeterminers[low] && !stopWords[low] && (baseVerb(low) == "" || pluralWord(low))
}

// modalImperative is the title of a sentence with a modal verb, m its
// match of modalPattern (m[1] the subject, m[2] the modal verb, m[3] a
// "not", m[5] the rest), and the role its subject names: "Allow <role> to …" or "Ensure <role> cannot
// …" for a role, the rest itself for the system, "Ensure …" for what
// must hold or never happen, otherwise "Make <subject> <rest>".
func modalImperative(m []string) (title, role string) {
	subject := strings.TrimSpace(m[1])
	if lead := leadingAdverbial.FindString(subject); lead != "" && lead != subject {
		// "By default, this feature should be enabled": the subject is
		// "this feature", one of them ("this feature are enabled").
		subject = subject[len(lead):]
	}
	lowSubject := strings.ToLower(subject)
	neg := m[3] != ""
	rest := strings.TrimSpace(m[5])
	if r := roleIn(lowSubject); r != "" && !actorWords[lowSubject] {
		if neg {
			return "Ensure " + lowerFirst(subject) + " cannot " + rest, r
		}
		return "Allow " + lowerFirst(subject) + " to " + rest, r
	}
	if actorWords[lowSubject] {
		if neg {
			return "Ensure " + lowerFirst(subject) + " never " + rest, ""
		}
		return verbFirst(rest), ""
	}
	if neg {
		return "Ensure " + lowerFirst(subject) + " cannot " + rest, ""
	}
	lowRest := strings.ToLower(rest)
	modal := strings.ToLower(m[2])
	switch {
	case strings.HasPrefix(lowRest, "never "):
		return "Ensure " + lowerFirst(subject) + " can never " + rest[6:], ""
	case strings.HasPrefix(lowRest, "be ") && (modal == "may" || modal == "can" || modal == "could"):
		return "Ensure " + lowerFirst(subject) + " can " + rest, ""
	case strings.HasPrefix(lowRest, "be "):
		verb := "is"
		if looksPlural(subject) {
			verb = "are"
		}
		return "Ensure " + lowerFirst(subject) + " " + verb + " " + rest[3:], ""
	}
	return "Make " + lowerFirst(subject) + " " + rest, ""
}

// proposalFrame is the frame a proposal puts around what it proposes:
// "In order to address the concerns above, I propose", "We propose",
// "We will", "This RFC proposes to", "This proposes that we".
var proposalFrame = regexp.MustCompile(`(?i)^(in order to [^,]{3,80}, )?((i|we) (propose|suggest|recommend|will)|this ((rfc|proposal|document|design|gep|kep|pep|adr) )?(proposes|suggests|recommends))( that (we|you)| that| to)? `)

// unframed returns s without its proposal frame ("We propose augmenting
// the `go install` command …" is "Augment the `go install` command …"),
// or s when it has none or nothing that reads as a requirement follows.
func unframed(s string) string {
	if s == "" || !strings.ContainsRune("IiWwTt", rune(s[0])) {
		return s // every frame opens with "In order", "I", "We" or "This"
	}
	loc := proposalFrame.FindStringIndex(s)
	if loc == nil || fieldCount(s[loc[1]:]) < 3 {
		return s
	}
	rest := s[loc[1]:]
	first, tail, _ := strings.Cut(rest, " ")
	if v := gerundBase(first); v != "" {
		return upperFirst(v) + " " + tail
	}
	return upperFirst(rest)
}

// gerundBase is the base form of a known verb's -ing form ("augmenting"
// is "augment", "making" "make"), or "".
func gerundBase(w string) string {
	w = strings.ToLower(w)
	if !strings.HasSuffix(w, "ing") || len(w) < 6 {
		return ""
	}
	stem := w[:len(w)-3]
	for _, c := range []string{stem, stem + "e", stem[:len(stem)-1]} {
		if baseVerbs[c] {
			return c
		}
	}
	return ""
}

// whenFirst is a sentence that opens with the release or place it applies
// to ("In Go 1.16, ", "In a later release (likely Go 1.17), "), and a
// condition after it: group 1 is what follows them.
var whenFirst = regexp.MustCompile(`^In [^,]{2,40}, (?:(?:when|if) [^,]{3,160}, )?(\S.*)$`)

// wouldDo is a statement of what a proposal would make something do
// ("go get would print a deprecation warning"): groups are the subject
// and what it does.
var wouldDo = regexp.MustCompile(`^(\S.{0,40}?) would (.+)$`)

// reasonFirst is a sentence that opens with the reason for what it
// requires: group 1 is the requirement.
var reasonFirst = regexp.MustCompile(`^(?:Because|Since) [^,]{3,120}, (\S.*)$`)

// waitFirst is a sentence that opens with what its action waits for:
// groups are the cue, what it waits for and the action.
var waitFirst = regexp.MustCompile(`^(After|Once) ([^,]{3,80}), (\S.*)$`)

// conditionFirst is a sentence that opens with the condition of its
// action: groups are the cue, the condition and the action.
var conditionFirst = regexp.MustCompile(`^(If|When|Whenever) ([^,]{3,120}), (\S.*)$`)

// passivePattern is a sentence in the passive voice: a short subject, "is"
// or "are", a participle and what follows ("Passwords are hashed with a
// modern KDF").
var passivePattern = regexp.MustCompile(`^([^,;:]{3,50}?) (?:is|are) ([a-z]+ed) (\S.*)$`)

// activeVoice turns a passive requirement into a verb-first title
// ("Passwords are hashed with a modern KDF" is "Hash passwords with a
// modern KDF"), or "" when the sentence is not one or its participle is no
// known verb.
func activeVoice(s string) string {
	if !strings.Contains(s, " is ") && !strings.Contains(s, " are ") {
		return ""
	}
	m := passivePattern.FindStringSubmatch(s)
	if m == nil || fieldCount(m[1]) > 6 {
		return ""
	}
	p := m[2]
	var base string
	for _, c := range []string{p[:len(p)-2], p[:len(p)-1], p[:len(p)-3] + "y", p[:len(p)-3]} {
		if len(c) > 2 && baseVerbs[c] {
			base = c
			break
		}
	}
	if base == "" {
		return ""
	}
	rest := m[3]
	if strings.HasPrefix(rest, "and ") && (strings.Contains(rest, " is ") || strings.Contains(rest, " are ")) {
		rest = "" // "the path key is deleted and the crate is uploaded …": the first clause's order
	}
	return strings.TrimSpace(upperFirst(base) + " " + lowerFirst(m[1]) + " " + rest)
}

var modalWords = []string{" must ", " shall ", " should ", " will ", " can ", " could ", " may ", " need to ", " needs to ", " has to ", " have to ", " required to ", " able to "}

// matchModal applies modalPattern when the text has a modal verb at all.
func matchModal(s string) []string {
	if countLower(" "+strings.ToLower(s)+" ", modalWords...) == 0 {
		return nil
	}
	return modalPattern.FindStringSubmatch(s)
}

var existsPattern = regexp.MustCompile(`(?i)^(.{3,60}?) exists? (?:for|to cover) (.+)$`)

// actionTitle is imperative, reporting false when the text has no action a
// title could name (the result would only be "Implement <sentence>").
func actionTitle(s string) (string, bool) {
	t, _ := imperative(s)
	clean := strings.TrimSpace(stripCode(s))
	if strings.HasPrefix(t, "Implement ") && !strings.HasPrefix(strings.ToLower(clean), "implement") {
		rest := strings.Fields(strings.TrimPrefix(t, "Implement "))
		if len(rest) > 4 || len(rest) > 0 && (strings.EqualFold(rest[0], "a") || strings.EqualFold(rest[0], "an") || strings.EqualFold(rest[0], "the")) {
			return t, false
		}
	}
	return t, true
}

// changeOf are the openings of a heading that says how something changes:
// "Updates to X", "Effect on X".
var changeOf = map[string]bool{"updates to": true, "update to": true, "changes to": true, "effect on": true, "effects on": true, "impact on": true}

// verbFirst makes a phrase start with a base-form verb: third-person verbs
// lose their ending ("Accepts x, returns y" becomes "Accept x, return y"),
// and noun phrases get "Implement".
func verbFirst(s string) string {
	s = strings.TrimSpace(s)
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return s
	}
	if strings.EqualFold(fields[0], "the") && len(fields) > 2 {
		// "The platform computes odds" → "Compute odds".
		for i := 1; i < len(fields) && i < 4; i++ {
			if v := baseVerb(fields[i]); v != "" && strings.HasSuffix(strings.ToLower(fields[i]), "s") && actorWords[strings.ToLower(strings.Join(fields[:i], " "))] {
				fields = fields[i:]
				break
			}
		}
	}
	if strings.EqualFold(fields[0], "to") && len(fields) > 1 {
		fields = fields[1:]
	}
	if len(fields) > 2 && changeOf[strings.ToLower(fields[0]+" "+fields[1])] {
		// "Updates to `[workspace]`", "Effect on `cargo publish`": the
		// work changes what follows ("Update to [workspace]",
		// "Implement effect on cargo publish" were its titles).
		return "Update " + strings.Join(fields[2:], " ")
	}
	if len(fields) > 1 && httpMethods[fields[0]] && strings.HasPrefix(fields[1], "/") {
		return "Implement " + strings.Join(fields, " ") // "GET /api/todos", not "Get /api/todos"
	}
	if len(fields) > 2 && strings.HasSuffix(strings.ToLower(fields[0]), "ly") && baseVerb(fields[1]) == strings.ToLower(fields[1]) {
		// "Securely store credentials", not "Implement securely store".
		return upperFirst(strings.Join(fields, " "))
	}
	if v := baseVerb(strings.Trim(fields[0], ",")); v != "" {
		fields[0] = upperFirst(v)
		// Coordinated verbs: "accepts bets, and settles" → "accept bets, and settle".
		for i := 1; i < len(fields)-1; i++ {
			prev := fields[i-1]
			if strings.HasSuffix(prev, ",") || strings.EqualFold(prev, "and") || strings.EqualFold(prev, "or") {
				if w := fields[i]; strings.HasSuffix(strings.ToLower(w), "s") {
					if b := baseVerb(w); b != "" && b != strings.ToLower(w) {
						fields[i] = b
					}
				}
			}
		}
		return strings.Join(fields, " ")
	}
	// "Remember me checkbox keeps the session" → "Make remember me checkbox
	// keep the session".
	for i := 1; i < len(fields) && i < 6; i++ {
		w := strings.ToLower(strings.Trim(fields[i], ","))
		if v := baseVerb(w); v != "" && v != w && strings.HasSuffix(w, "s") {
			rest := append([]string{v}, fields[i+1:]...)
			return "Make " + lowerFirst(strings.Join(fields[:i], " ")) + " " + strings.Join(rest, " ")
		}
	}
	return "Implement " + lowerFirst(strings.Join(fields, " "))
}

var httpMethods = map[string]bool{"GET": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true, "HEAD": true, "OPTIONS": true}

// roleIn returns the first role word found in text, or "".
func roleIn(text string) string {
	words := strings.Fields(strings.ToLower(text))
	for i, w := range words {
		w = strings.Trim(w, ".,;:()'\"`")
		w = stem(w)
		for _, r := range roleWords {
			if w == r && (r != "support" || i+1 < len(words) && supportPeople[strings.Trim(words[i+1], ".,;:()'\"`")]) {
				return r
			}
		}
	}
	return ""
}

// supportPeople are the words after "support" that make it people ("a
// support agent", "Support sees each tenant's limit"), not a verb ("does
// not support native fetch").
var supportPeople = map[string]bool{"agent": true, "agents": true, "staff": true, "team": true, "teams": true, "engineer": true, "engineers": true, "rep": true, "reps": true, "specialist": true, "specialists": true,
	"sees": true, "can": true, "needs": true, "gets": true, "must": true, "should": true, "wants": true}

// supportPeopleAt reports whether the lower-case text opens with support
// people ("support agents …").
func supportPeopleAt(low string) bool {
	rest, ok := strings.CutPrefix(low, "support ")
	if !ok {
		return false
	}
	if i := strings.IndexFunc(rest, func(r rune) bool { return !unicode.IsLetter(r) }); i >= 0 {
		rest = rest[:i]
	}
	return supportPeople[rest]
}

// supportRole counts the mentions of support people in the lower-case
// text ("support agent", "support team").
var supportRole = regexp.MustCompile(`\bsupport (agent|staff|team|engineer|rep|specialist|sees|can|needs|gets|must|should|wants)\b`)

// article returns "a" or "an" for a word.
func article(word string) string {
	if word == "" {
		return "a"
	}
	switch unicode.ToLower(rune(word[0])) {
	case 'a', 'e', 'i', 'o':
		return "an"
	case 'u':
		if strings.HasPrefix(strings.ToLower(word), "user") || strings.HasPrefix(strings.ToLower(word), "use") {
			return "a"
		}
		return "an"
	}
	return "a"
}

// camelWords splits CamelCase into lower-case words.
func camelWords(s string) []string {
	var words []string
	var cur []rune
	rs := []rune(s)
	for i, r := range rs {
		if unicode.IsUpper(r) && len(cur) > 0 && (unicode.IsLower(rs[i-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]))) {
			words = append(words, strings.ToLower(string(cur)))
			cur = nil
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			cur = append(cur, r)
		} else if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = nil
		}
	}
	if len(cur) > 0 {
		words = append(words, strings.ToLower(string(cur)))
	}
	return words
}

// runeLen is the number of runes in s.
func runeLen(s string) int { return utf8.RuneCountInString(s) }

// sentenceCase makes s start upper-case and end with a full stop. A first
// word that is a code name (snake_case, a path, a media type) keeps its case.
func sentenceCase(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	if first := firstField(s); !strings.ContainsAny(first, "_/`.{}<>+") {
		s = upperFirst(s)
	}
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "?") && !strings.HasSuffix(s, "!") {
		s = strings.TrimRight(s, ":;,") + "."
	}
	return s
}

// prose is text without its code spans, for word signals that must not
// fire on identifiers such as `forbidden` or `model_timeout`.
func prose(s string) string {
	if !strings.Contains(s, "`") {
		return s
	}
	var b strings.Builder
	for {
		open := strings.IndexByte(s, '`')
		if open < 0 {
			break
		}
		end := strings.IndexByte(s[open+1:], '`')
		if end < 0 {
			break
		}
		b.WriteString(s[:open])
		s = s[open+1+end+1:]
	}
	b.WriteString(s)
	return b.String()
}

// statedRequirement reads a requirement written as a statement of how
// things will be ("all members see edits within 5 seconds", "a removed
// sysvar is not visible in SHOW VARIABLES output", "the supervisor assigns
// a work order") as its subject and its predicate made an infinitive ("to
// see edits within 5 seconds", "not to be visible in SHOW VARIABLES
// output", "to assign a work order"), for "I want <subject> <infinitive>".
// ok is false when s is not such a statement: it opens with a verb (an
// order) or a preposition or subordinating word ("in case the field is
// empty"), holds a colon or semicolon (a label, two clauses), its verb
// comes after eight words or in the past tense, or nothing follows it.
func statedRequirement(s string) (subject, infinitive string, ok bool) {
	if strings.ContainsAny(s, ":;") {
		return "", "", false
	}
	words := strings.Fields(s)
	if len(words) < 3 || baseVerb(words[0]) != "" || isHTTPMethod(words[0]) || clauseOpeners[strings.ToLower(words[0])] {
		return "", "", false
	}
	for i := 1; i < len(words)-1 && i <= 8; i++ {
		w := strings.ToLower(words[i])
		if strings.ContainsAny(words[i-1], ",()") || w == "to" {
			return "", "", false // "Implement GET … to list", an aside before any verb
		}
		rest := words[i+1:]
		not := strings.EqualFold(rest[0], "not")
		var pred []string
		switch {
		case w == "was" || w == "were" || w == "had" || w == "did":
			return "", "", false
		case w == "is" || w == "are":
			pred = append([]string{"be"}, rest...)
		case w == "has" || w == "have" && pluralWord(words[i-1]):
			pred = append([]string{"have"}, rest...)
		case w == "can" && len(rest) > 1:
			pred = append([]string{"be", "able", "to"}, rest...) // "items can be assigned": "items to be able to be assigned"
			if not {
				pred = append([]string{"be", "not", "able", "to"}, rest[1:]...)
			}
		case statementModals[w] && len(rest) > 1:
			pred = rest
		case w == "cannot" || w == "can't":
			pred, not = append([]string{"not"}, rest...), true
		case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && presentVerb(w) != "" && subjectDeterminers[strings.ToLower(words[0])]:
			// "the supervisor assigns …", not "work orders …" (a noun)
			pred = append([]string{presentVerb(w)}, rest...)
			for j := 2; j < len(pred); j++ {
				// "becomes read-only and produces a PDF": "to become … and produce …"
				if (pred[j-1] == "and" || pred[j-1] == "or") && strings.HasSuffix(pred[j], "s") && presentVerb(pred[j]) != "" {
					pred[j] = presentVerb(pred[j])
				}
			}
		case pluralWord(words[i-1]) && presentVerb(w) == w:
			pred = append([]string{w}, rest...)
		default:
			continue
		}
		if not {
			// "is not visible" → "not to be visible"
			if strings.EqualFold(pred[0], "not") {
				pred = pred[1:]
			} else {
				pred = append(pred[:1:1], pred[2:]...)
			}
			return strings.Join(words[:i], " "), "not to " + strings.Join(pred, " "), true
		}
		return strings.Join(words[:i], " "), "to " + strings.Join(pred, " "), true
	}
	return "", "", false
}

// subjectDeterminers open a subject whose verb may be read from its
// third-person "-s" alone.
var subjectDeterminers = map[string]bool{"a": true, "an": true, "the": true, "each": true, "every": true, "this": true,
	"that": true, "its": true, "one": true, "no": true, "any": true, "our": true, "their": true, "your": true}

// clauseOpeners open a subordinate clause or a phrase, not a subject.
var clauseOpeners = map[string]bool{"in": true, "if": true, "when": true, "whenever": true, "for": true, "on": true,
	"at": true, "with": true, "by": true, "after": true, "before": true, "once": true, "until": true, "while": true,
	"because": true, "since": true, "unless": true, "as": true, "from": true, "during": true, "where": true, "so": true}

// statementModals are the modal verbs of a requirement written as a
// statement ("the export will include archived rows").
var statementModals = map[string]bool{"can": true, "must": true, "will": true, "should": true, "shall": true, "may": true}

// presentVerb returns the base form of w when w is a known verb in base or
// third-person form (baseVerb), or one of the verbs statements use that
// titles never open with ("see", "work", "become"), or "".
func presentVerb(w string) string {
	if v := baseVerb(w); v != "" {
		return v
	}
	w = strings.ToLower(w)
	for _, c := range []string{w, strings.TrimSuffix(w, "s"), strings.TrimSuffix(w, "es")} {
		if statementVerbs[c] {
			return c
		}
	}
	return ""
}

// statementVerbs are verbs of statements that are not in baseVerbs: an item
// opening with one is not an order ("Work orders move …", "See the
// appendix").
var statementVerbs = map[string]bool{"see": true, "become": true, "work": true, "assign": true, "produce": true,
	"end": true, "appear": true, "run": true, "need": true, "stay": true, "remain": true, "belong": true,
	"contain": true, "include": true, "reach": true, "fail": true, "take": true, "wait": true, "expire": true,
	"match": true, "cover": true, "follow": true, "start": true, "stop": true, "live": true, "hold": true}

// pluralWord reports whether w reads as a plural noun ("members",
// "orders"), not a possessive or a word ending in "ss".
func pluralWord(w string) bool {
	w = strings.ToLower(strings.Trim(w, `"'`))
	return len(w) > 2 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "'s")
}
