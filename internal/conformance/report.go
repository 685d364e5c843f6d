package conformance

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"
)

// maxShownBody is how much of a body the report prints.
const maxShownBody = 4 << 10

// answerHeaders are the answer headers a report shows: the ones that say
// how to read the body or what to do next.
var answerHeaders = []string{"Content-Type", "Retry-After", "Location", "Www-Authenticate", "Allow"}

// Report is the outcome of a run against one wallet.
type Report struct {
	// Title names what was checked ("operator wallet").
	Title string
	// Target is the wallet's base URL.
	Target string
	// Settings describe the run, one line each (the test account, the
	// currency, the stake).
	Settings []string
	// Results are the checks' results, in the order they ran.
	Results []Result
	// Notes follow the results, one line each (the test account's balance
	// before and after, what the run left in the partner's ledger).
	Notes []string
}

// Passed reports whether every check passed (warnings allowed): none
// failed and none was skipped.
func (r *Report) Passed() bool {
	for _, res := range r.Results {
		if res.Status == Fail || res.Status == Skip {
			return false
		}
	}
	return true
}

// Result returns the result of the check named name.
func (r *Report) Result(name string) (Result, bool) {
	for _, res := range r.Results {
		if res.Name == name {
			return res, true
		}
	}
	return Result{}, false
}

// Count returns how many checks ended with status s.
func (r *Report) Count(s Status) int {
	n := 0
	for _, res := range r.Results {
		if res.Status == s {
			n++
		}
	}
	return n
}

// WriteTo writes the report as text: a heading, one line per check with
// its status, name and rule, each finding indented below it (for a failure
// or a skip also the list of the check's requests, and for every finding
// the full request and answer that showed it), the notes and a summary
// line.
func (r *Report) WriteTo(w io.Writer) (int64, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Conformance of the %s at %s\n", r.Title, r.Target)
	for _, s := range r.Settings {
		fmt.Fprintf(&b, "  %s\n", s)
	}
	b.WriteString("\n")
	width := 0
	for _, res := range r.Results {
		width = max(width, len(res.Name))
	}
	for _, res := range r.Results {
		fmt.Fprintf(&b, "%s  %-*s  %s\n", res.Status, width, res.Name, res.Rule)
		writeFindings(&b, res)
	}
	if len(r.Notes) > 0 {
		b.WriteString("\n")
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "%s\n", n)
		}
	}
	verdict := "the wallet conforms"
	if !r.Passed() {
		verdict = "the wallet does not conform"
	}
	fmt.Fprintf(&b, "\nSummary: %d checks: %d passed, %d warned, %d skipped, %d failed; %s.\n",
		len(r.Results), r.Count(Pass), r.Count(Warn), r.Count(Skip), r.Count(Fail), verdict)
	n, err := w.Write(b.Bytes())
	return int64(n), err
}

// String returns the text of WriteTo.
func (r *Report) String() string {
	var b strings.Builder
	_, _ = r.WriteTo(&b)
	return b.String()
}

const indent = "      "

func writeFindings(b *bytes.Buffer, res Result) {
	if res.Status == Pass && len(res.Findings) == 0 {
		return
	}
	for _, f := range res.Findings {
		fmt.Fprintf(b, "%s%s: %s\n", indent, findingLabel(f.Status), f.Message)
		if f.Status == Fail || f.Status == Skip {
			fmt.Fprintf(b, "%sspec: %s\n", indent, res.Spec)
			writeSteps(b, res.Exchanges)
		}
		if f.Exchange != nil {
			writeExchange(b, *f.Exchange)
		}
	}
	b.WriteString("\n")
}

// findingLabel is how the report names a finding of status s.
func findingLabel(s Status) string {
	switch s {
	case Warn:
		return "warning"
	case Skip:
		return "skipped"
	case Fail, Pass: // a finding is never Pass
	}
	return "failed"
}

func writeSteps(b *bytes.Buffer, exs []Exchange) {
	if len(exs) == 0 {
		return
	}
	fmt.Fprintf(b, "%srequests of this check:\n", indent)
	for _, ex := range exs {
		fmt.Fprintf(b, "%s  #%d %s: %s %s → %s\n", indent, ex.Seq, ex.Step, ex.Request.Method, ex.Path(), ex.Outcome())
	}
}

func writeExchange(b *bytes.Buffer, ex Exchange) {
	in := indent + "  "
	fmt.Fprintf(b, "%srequest #%d (%s, check %s):\n", indent, ex.Seq, ex.Step, ex.Check)
	fmt.Fprintf(b, "%s%s %s\n", in, ex.Request.Method, ex.Request.URL)
	keys := make([]string, 0, len(ex.Request.Header))
	for k := range ex.Request.Header {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range ex.Request.Header[k] {
			fmt.Fprintf(b, "%s%s: %s\n", in, k, printable([]byte(v), 200))
		}
	}
	writeBody(b, in, ex.Request.Body)
	fmt.Fprintf(b, "%sanswer:\n", indent)
	if ex.Response.Status == 0 {
		fmt.Fprintf(b, "%snone: %v\n", in, ex.Response.Err)
		return
	}
	fmt.Fprintf(b, "%sHTTP %d %s\n", in, ex.Response.Status, http.StatusText(ex.Response.Status))
	for _, k := range answerHeaders {
		for _, v := range ex.Response.Header.Values(k) {
			fmt.Fprintf(b, "%s%s: %s\n", in, k, printable([]byte(v), 200))
		}
	}
	writeBody(b, in, ex.Response.Body)
	if ex.Response.Err != nil {
		fmt.Fprintf(b, "%s(the body was cut short: %v)\n", in, ex.Response.Err)
	}
}

func writeBody(b *bytes.Buffer, in string, body []byte) {
	if len(body) == 0 {
		fmt.Fprintf(b, "%s(no body)\n", in)
		return
	}
	text := printable(bytes.TrimRight(body, "\r\n"), maxShownBody)
	for line := range strings.SplitSeq(text, "\n") {
		fmt.Fprintf(b, "%s%s\n", in, line)
	}
}

// printable renders at most limit bytes of b for a text report: valid
// UTF-8 is kept, except control characters other than a newline, which are
// written as \xNN like invalid bytes.
func printable(b []byte, limit int) string {
	total := len(b)
	cut := total > limit
	if cut {
		b = b[:limit]
	}
	var sb strings.Builder
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&sb, `\x%02x`, b[0])
		case r == '\n':
			sb.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&sb, `\x%02x`, r)
		default:
			sb.Write(b[:size])
		}
		b = b[size:]
	}
	if cut {
		fmt.Fprintf(&sb, "… (%d bytes in all)", total)
	}
	return sb.String()
}
