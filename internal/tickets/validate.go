package tickets

import (
	"encoding/json"
	"fmt"
)

// maxReportedProblems bounds the problems ValidateResult reports.
const maxReportedProblems = 20

// ValidateResult checks a raw tickets.result.v1 document for a job: first
// against the JSON Schema that GET /tickets/v1/schema serves, then against
// the rules a schema cannot express: the job id, unique ticket, risk and
// question ids, dependencies and parents that exist, no self-dependency, no
// dependency cycle, parents that are epics, risks and questions that point
// at existing tickets, and the ticket count the options ask for. It returns
// every problem found (empty when the result is valid).
func ValidateResult(raw []byte, jobID string, opts Options) []string {
	problems, err := validateJSON(resultSchema, raw, maxReportedProblems)
	if err != nil {
		return []string{fmt.Sprintf("not valid JSON: %v", err)}
	}
	if len(problems) > 0 {
		return problems
	}
	var r Result
	if err := json.Unmarshal(raw, &r); err != nil {
		return []string{fmt.Sprintf("not a result: %v", err)}
	}
	problems = resultRules(&r, jobID, opts)
	if len(problems) > maxReportedProblems {
		problems = problems[:maxReportedProblems]
	}
	return problems
}

func resultRules(r *Result, jobID string, opts Options) []string {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	if r.JobID != jobID {
		add("/job_id: is %q, want %q", r.JobID, jobID)
	}
	if opts.TicketCount > 0 && len(r.Tickets) != opts.TicketCount {
		add("/tickets: has %d tickets, ticket_count asks for %d", len(r.Tickets), opts.TicketCount)
	}
	if opts.MaxTicketCount > 0 && len(r.Tickets) > opts.MaxTicketCount {
		add("/tickets: has %d tickets, max_ticket_count is %d", len(r.Tickets), opts.MaxTicketCount)
	}

	types := make(map[string]string, len(r.Tickets))
	for i, t := range r.Tickets {
		if t.TicketType == TypeEpic && !opts.IncludeEpics {
			add("/tickets/%d/ticket_type: epic, but include_epics is false", i)
		}
		if _, dup := types[t.ExternalID]; dup {
			add("/tickets/%d/external_id: %s is used twice", i, t.ExternalID)
		}
		types[t.ExternalID] = t.TicketType
	}
	for i, t := range r.Tickets {
		if t.ParentExternalID != nil {
			switch typ, ok := types[*t.ParentExternalID]; {
			case !ok:
				add("/tickets/%d/parent_external_id: %s does not exist", i, *t.ParentExternalID)
			case *t.ParentExternalID == t.ExternalID:
				add("/tickets/%d/parent_external_id: a ticket cannot be its own parent", i)
			case typ != TypeEpic:
				add("/tickets/%d/parent_external_id: %s is a %s, parents must be epics", i, *t.ParentExternalID, typ)
			}
		}
		seen := make(map[string]bool, len(t.Dependencies))
		for j, d := range t.Dependencies {
			switch {
			case d == t.ExternalID:
				add("/tickets/%d/dependencies/%d: %s depends on itself", i, j, d)
			case types[d] == "":
				add("/tickets/%d/dependencies/%d: %s does not exist", i, j, d)
			case seen[d]:
				add("/tickets/%d/dependencies/%d: %s is listed twice", i, j, d)
			}
			seen[d] = true
		}
	}
	if cycle := dependencyCycle(r.Tickets); cycle != nil {
		add("/tickets: dependency cycle %v", cycle)
	}

	// Risks and open questions: unique ids, related tickets that exist.
	notes := func(list string, n int, note func(i int) (id string, related []string)) {
		ids := make(map[string]bool, n)
		for i := range n {
			id, related := note(i)
			if ids[id] {
				add("/%s/%d/id: %s is used twice", list, i, id)
			}
			ids[id] = true
			for j, t := range related {
				if types[t] == "" {
					add("/%s/%d/related_ticket_ids/%d: %s does not exist", list, i, j, t)
				}
			}
		}
	}
	notes("risks", len(r.Risks), func(i int) (string, []string) { return r.Risks[i].ID, r.Risks[i].RelatedTicketIDs })
	notes("open_questions", len(r.OpenQuestions), func(i int) (string, []string) {
		return r.OpenQuestions[i].ID, r.OpenQuestions[i].RelatedTicketIDs
	})
	return problems
}

// dependencyCycle returns the ids of one dependency cycle among tickets, or
// nil when the dependencies form a DAG. Unknown ids are ignored.
func dependencyCycle(tickets []Ticket) []string {
	deps := make(map[string][]string, len(tickets))
	for _, t := range tickets {
		deps[t.ExternalID] = t.Dependencies
	}
	const (
		unvisited = iota
		visiting
		done
	)
	state := make(map[string]int, len(tickets))
	var path []string
	var visit func(id string) []string
	visit = func(id string) []string {
		state[id] = visiting
		path = append(path, id)
		for _, d := range deps[id] {
			if _, known := deps[d]; !known || d == id {
				continue
			}
			switch state[d] {
			case visiting:
				for k, p := range path {
					if p == d {
						return append(append([]string(nil), path[k:]...), d)
					}
				}
			case unvisited:
				if c := visit(d); c != nil {
					return c
				}
			}
		}
		path = path[:len(path)-1]
		state[id] = done
		return nil
	}
	for _, t := range tickets {
		if state[t.ExternalID] == unvisited {
			if c := visit(t.ExternalID); c != nil {
				return c
			}
		}
	}
	return nil
}
