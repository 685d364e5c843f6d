package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/foresight-dev/foresight/internal/server"
	"github.com/foresight-dev/foresight/internal/tickets"
	"github.com/foresight-dev/foresight/internal/tickets/quality"
	"github.com/foresight-dev/foresight/internal/tickets/quality/reference"
)

const ticketsUsage = `Usage:
  foresight tickets lint [--spec SPEC] RESULT.json   score a tickets.result.v1 document; exit 1 if it is invalid
  foresight tickets bench [--dir DIR] [--engine E]  run an engine over every spec in DIR and print the quality table
  foresight tickets measure [--ref DIR] [--spec NAMES] [--results DIR] [--baselines] [--save DIR] [-v]
                                                    run an engine over the reference set and measure it against the references
`

func runTickets(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return dispatch(args, ticketsUsage, "tickets command", stdout, stderr, map[string]command{
		"lint":    func(args []string) error { return runTicketsLint(args, stdout, stderr) },
		"bench":   func(args []string) error { return runTicketsBench(ctx, args, getenv, stdout, stderr) },
		"measure": func(args []string) error { return runTicketsMeasure(ctx, args, getenv, stdout, stderr) },
	})
}

func runTicketsLint(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("tickets lint", stderr)
	specFile := fs.String("spec", "", "the spec the result was generated from (enables coverage and open-question checks)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fmt.Fprint(stderr, ticketsUsage)
		return usageError{errors.New("tickets lint takes one RESULT.json")}
	}
	raw, err := os.ReadFile(fs.Arg(0))
	if err != nil {
		return err
	}
	var spec []byte
	if *specFile != "" {
		if spec, err = os.ReadFile(*specFile); err != nil {
			return err
		}
	}
	rep, err := quality.Score(raw, string(spec))
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "check\tscore\tfindings\n")
	for _, c := range rep.Checks {
		fmt.Fprintf(w, "%s\t%.2f\t%d\n", c.Name, c.Score, len(c.Findings))
	}
	fmt.Fprintf(w, "overall\t%.2f\t\n", rep.Score)
	w.Flush()
	for _, c := range rep.Checks {
		for _, f := range c.Findings {
			fmt.Fprintf(stdout, "%s: %s\n", c.Name, f)
		}
	}
	if rep.Checks[0].Score < 1 {
		return errors.New("the result is not valid tickets.result.v1")
	}
	return nil
}

func runTicketsBench(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, engineOf := ticketEngineFlags("tickets bench", getenv, stderr)
	dir := fs.String("dir", "testdata/specs", "directory of specs (*.md, *.txt)")
	engine, err := engineOf(args)
	if err != nil {
		return err
	}
	var files []string
	for _, pattern := range []string{"*.md", "*.txt"} {
		m, _ := filepath.Glob(filepath.Join(*dir, pattern))
		files = append(files, m...)
	}
	files = slices.DeleteFunc(files, func(f string) bool { return strings.EqualFold(filepath.Base(f), "README.md") })
	slices.Sort(files)
	if len(files) == 0 {
		return fmt.Errorf("no specs in %s", *dir)
	}
	names := quality.CheckNames
	fmt.Fprintf(stdout, "| spec | tickets | questions | %s | score |\n|---|---|---|%s---|\n", strings.Join(names, " | "), strings.Repeat("---|", len(names)))
	total := 0.0
	for _, f := range files {
		spec, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		res, err := engine.Generate(ctx, tickets.GenerationRequest{JobID: "00000000-0000-4000-8000-000000000000",
			Title: strings.TrimSuffix(filepath.Base(f), filepath.Ext(f)), Spec: string(spec),
			Options: tickets.Options{MaxTicketCount: tickets.DefaultMaxTicketCount, IncludeEpics: true,
				DependencyMode: tickets.DependencyExplicit, OutputDetail: tickets.DetailStandard}})
		if err != nil {
			fmt.Fprintf(stdout, "| %s | failed: %s |\n", filepath.Base(f), tickets.ErrorMessage(err))
			continue
		}
		raw, _ := json.Marshal(res)
		rep, err := quality.Score(raw, string(spec))
		if err != nil {
			return err
		}
		scores := map[string]float64{}
		for _, c := range rep.Checks {
			scores[c.Name] = c.Score
		}
		row := make([]string, len(names))
		for i, n := range names {
			row[i] = fmt.Sprintf("%.2f", scores[n])
		}
		fmt.Fprintf(stdout, "| %s | %d | %d | %s | **%.2f** |\n", filepath.Base(f), len(res.Tickets), len(res.OpenQuestions), strings.Join(row, " | "), rep.Score)
		total += rep.Score
	}
	fmt.Fprintf(stdout, "\nMean score of %s over %d specs: %.3f\n", engine.Name(), len(files), total/float64(len(files)))
	return nil
}

func runTicketsMeasure(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, engineOf := ticketEngineFlags("tickets measure", getenv, stderr)
	refDir := fs.String("ref", "testdata/reference", "directory of specs and their NAME.ref.json references")
	resultsDir := fs.String("results", "", "directory of stored results NAME.LABEL.json to measure too (default REF/results when it exists)")
	baselines := fs.Bool("baselines", false, "also measure the deliberately poor baseline results")
	verbose := fs.Bool("v", false, "explain, per ticket of the engine's results, what it matched and why")
	only := fs.String("spec", "", "measure only these specs (names without extension, comma-separated)")
	save := fs.String("save", "", "write the engine's results (main runs) to DIR as NAME.ENGINE.json, for --results later")
	engine, err := engineOf(args)
	if err != nil {
		return err
	}
	cases, err := reference.Load(*refDir)
	if err != nil {
		return err
	}
	if *only != "" {
		names := strings.Split(*only, ",")
		cases = slices.DeleteFunc(cases, func(c *reference.Case) bool { return !slices.Contains(names, c.Name) })
		if len(cases) == 0 {
			return fmt.Errorf("no spec %s in %s", *only, *refDir)
		}
	}
	rows, err := reference.RunEngine(ctx, engine, cases)
	if err != nil {
		return err
	}
	if *save != "" {
		for _, r := range rows {
			raw, err := json.MarshalIndent(r.Result, "", "  ")
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(*save, r.Case.Name+"."+r.Label+".json"), append(raw, '\n'), 0o644); err != nil {
				return err
			}
		}
	}
	if *resultsDir == "" {
		if st, err := os.Stat(filepath.Join(*refDir, "results")); err == nil && st.IsDir() {
			*resultsDir = filepath.Join(*refDir, "results")
		}
	}
	if *resultsDir != "" {
		stored, err := reference.LoadResults(*resultsDir, cases)
		if err != nil {
			return err
		}
		rows = append(rows, stored...)
	}
	if *baselines {
		rows = append(rows, reference.BaselineRows(cases)...)
	}
	slices.SortStableFunc(rows, func(a, b reference.Row) int { return strings.Compare(a.Case.Name, b.Case.Name) })
	reference.WriteTable(stdout, rows)
	if *verbose {
		for _, r := range rows {
			if r.Label != engine.Name() {
				continue
			}
			fmt.Fprintf(stdout, "\n%s (%s):\n", r.Case.File, r.Label)
			for _, l := range r.M.Explain() {
				fmt.Fprintln(stdout, "  "+l)
			}
		}
	}
	return nil
}

// ticketEngineFlags returns the flag set of the tickets command name
// (errors and help to stderr) with only the engine's settings defined, and
// engineOf, which parses args with it and returns the engine they
// configure: the tickets commands run an engine without a server, so they
// take no database, listener or admin token.
func ticketEngineFlags(name string, getenv func(string) string, stderr io.Writer) (fs *flag.FlagSet, engineOf func(args []string) (tickets.Engine, error)) {
	fs = newFlagSet(name, stderr)
	cfg := server.DefaultConfig()
	e := &envFlags{fs: fs, getenv: getenv}
	engineFlags(e, &cfg)
	return fs, func(args []string) (tickets.Engine, error) {
		if err := e.parse(args); err != nil {
			return nil, err
		}
		return server.NewEngine(cfg)
	}
}
