package reference

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// Row is one result measured against one case.
type Row struct {
	Case   *Case
	Label  string // "engine", "good", a baseline's name, …
	Result *tickets.Result
	M      Measurement
	// Cap is the measurement of the run at the reference's cap, when there
	// was one.
	Cap *CapMeasurement
}

// Options returns the generation options of a case's run with at most max
// tickets: epics allowed, explicit dependencies, standard detail.
func Options(max int) tickets.Options {
	return tickets.Options{MaxTicketCount: max, IncludeEpics: true,
		DependencyMode: tickets.DependencyExplicit, OutputDetail: tickets.DetailStandard}
}

// RunEngine runs e on every case twice, at the case's max_ticket_count
// and at its cap, and measures both.
func RunEngine(ctx context.Context, e tickets.Engine, cases []*Case) ([]Row, error) {
	var rows []Row
	for _, c := range cases {
		res, err := generate(ctx, e, c, c.MaxTicketCount())
		if err != nil {
			return nil, err
		}
		capped, err := generate(ctx, e, c, c.Ref.Cap.MaxTicketCount)
		if err != nil {
			return nil, err
		}
		cm := c.MeasureCap(capped)
		rows = append(rows, Row{Case: c, Label: e.Name(), Result: res, M: c.Measure(res), Cap: &cm})
	}
	return rows, nil
}

func generate(ctx context.Context, e tickets.Engine, c *Case, max int) (*tickets.Result, error) {
	res, err := e.Generate(ctx, tickets.GenerationRequest{JobID: "00000000-0000-4000-8000-000000000000",
		Title: c.Name, Spec: c.Spec, Options: Options(max)})
	if err != nil {
		return nil, fmt.Errorf("%s (max %d): %w", c.File, max, err)
	}
	return res, nil
}

// LoadResults measures the stored results of dir: files NAME.LABEL.json
// whose NAME is one of cases, each a tickets.result.v1 document; files of
// other specs are skipped.
func LoadResults(dir string, cases []*Case) ([]Row, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	var rows []Row
	for _, f := range files {
		base := strings.TrimSuffix(filepath.Base(f), ".json")
		dot := strings.LastIndex(base, ".")
		if dot < 0 {
			continue
		}
		i := slices.IndexFunc(cases, func(c *Case) bool { return c.Name == base[:dot] })
		if i < 0 {
			continue // a result of a spec not measured now
		}
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var res tickets.Result
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		rows = append(rows, Row{Case: cases[i], Label: base[dot+1:], Result: &res, M: cases[i].Measure(&res)})
	}
	return rows, nil
}

// BaselineRows measures every case's baselines.
func BaselineRows(cases []*Case) []Row {
	var rows []Row
	for _, c := range cases {
		for _, b := range c.Baselines() {
			rows = append(rows, Row{Case: c, Label: b.Name, Result: b.Result, M: c.Measure(b.Result)})
		}
	}
	return rows
}

// WriteTable prints rows as a markdown table, one line per row and a
// totals line per label, and returns the totals by label.
func WriteTable(w io.Writer, rows []Row) map[string]*Totals {
	withCap := slices.ContainsFunc(rows, func(r Row) bool { return r.Cap != nil })
	head := "| spec | result | tickets | must recall | precision | type accuracy | non-work | silent drops | dependency recall | dependency precision | titles | criteria |"
	rule := "|---|---|---|---|---|---|---|---|---|---|---|---|"
	if withCap {
		head += " cap | cap recall | cap silent drops |"
		rule += "---|---|---|"
	}
	fmt.Fprintf(w, "%s score |\n%s---|\n", head, rule)
	totals := map[string]*Totals{}
	var labels []string
	for _, r := range rows {
		t := totals[r.Label]
		if t == nil {
			t = &Totals{}
			totals[r.Label] = t
			labels = append(labels, r.Label)
		}
		t.Add(r.M)
		m := r.M
		fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %s | %d | %d | %s | %s | %.2f | %.2f |", r.Case.File, r.Label, m.Tickets,
			frac(m.MustCovered, m.MustItems), frac(m.WorkTickets, m.Tickets), frac(m.RightType, m.WorkTickets),
			m.NotWork, len(m.SilentDrops), frac(m.DependenciesMet, m.Dependencies),
			frac(m.DependenciesSupported, m.ResultDependencies), m.Titles(), m.Criteria())
		if withCap {
			if r.Cap != nil {
				t.AddCap(*r.Cap)
				fmt.Fprintf(w, " %d | %s | %d |", r.Cap.MaxTicketCount, frac(r.Cap.Included, r.Cap.MustInclude), len(r.Cap.SilentDrops))
			} else {
				fmt.Fprint(w, " – | – | – |")
			}
		}
		fmt.Fprintf(w, " **%.2f** |\n", m.Score())
	}
	for _, l := range labels {
		t := totals[l]
		s := t.Sum
		fmt.Fprintf(w, "| **all %d specs** | %s | %d | %s | %s | %s | %d | %d | %s | %s | %.2f | %.2f |", t.Specs, l, s.Tickets,
			total(s.MustCovered, s.MustItems), total(s.WorkTickets, s.Tickets), total(s.RightType, s.WorkTickets),
			s.NotWork, len(s.SilentDrops), total(s.DependenciesMet, s.Dependencies),
			total(s.DependenciesSupported, s.ResultDependencies), s.Titles(), s.Criteria())
		if withCap {
			if t.CapSpecs > 0 {
				fmt.Fprintf(w, " – | %.2f | %d |", t.CapRecall(), t.CapSilentDrops)
			} else {
				fmt.Fprint(w, " – | – | – |")
			}
		}
		fmt.Fprintf(w, " **%.2f** |\n", t.Score())
	}
	return totals
}

// total prints the rate n/d, or "–" when there is nothing to count.
func total(n, d int) string {
	if d == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", float64(n)/float64(d))
}

// frac prints n/d and its rate, or "–" when there is nothing to count.
func frac(n, d int) string {
	if d == 0 {
		return "–"
	}
	return fmt.Sprintf("%d/%d %.2f", n, d, float64(n)/float64(d))
}
