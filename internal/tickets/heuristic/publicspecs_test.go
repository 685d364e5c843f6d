package heuristic_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// Public specs written elsewhere (issue 17): a Go proposal, a TiDB design
// proposal, a Gateway API GEP and a Backstage ADR, kept in
// testdata/reference, and an RFC's header of metadata. A lead reading the
// engine's results on them would have imported none.

// TestWorkAndNoWorkOfPublicSpecShapes: in the shapes of the public specs,
// each row's work has a ticket and no ticket holds its parts that are no
// work.
func TestWorkAndNoWorkOfPublicSpecShapes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, spec, title string
		work, notWork     []string
	}{
		// A document's header (feature name, dates, RFC PR, authors, discussion)
		// is no work.
		{"DocumentHeaderIsNoWork", "## RFC: Add a retry budget\n\n- Feature Name: `retry_budget`\n- Start Date: 2021-01-07\n- RFC PR: #3052\n\nAuthors: Jay Conrod, Daniel Martí\n\nDiscussion at https://golang.org/issue/40276.\n\n## Design\n\nClients must stop retrying once the retry budget of the minute is spent.\n", "Retry budget", []string{"retry budget of the minute is spent"}, []string{"retry_budget", "2021-01-07", "#3052", "Jay Conrod", "golang.org/issue"}},
		// An RFC whose only requirement is its summary, under a header of
		// metadata, gave one ticket of the header and lost the requirement.
		{"SummaryHoldingTheOnlyRequirement", "## RFC: Add a retry budget\n\n- Feature Name: `retry_budget`\n- Start Date: 2021-01-07\n- RFC PR: #3052\n\n## Summary\n\nClients must stop retrying once the retry budget of the minute is spent.\n\n## Motivation\n\nRetries made the last outage worse.\n", "Retry budget", []string{"retry budget of the minute is spent"}, []string{"#3052", "last outage"}},
		// Background, current behaviour, compatibility, work already merged,
		// rejected options and future directions are no work.
		{"DoneWorkAndBackgroundSectionsAreNoWork", "# Proposal: Faster report export\n\n## Background\n\nExport takes 40 seconds today for large reports.\n\n## Proposal\n\nThe export job must stream rows instead of loading them all into memory.\n\n## Current export functionality\n\nThe export job is used for building the CSV from the report query. It loads every row first.\n\n## Compatibility\n\nThe CSV format does not change, so existing consumers keep working.\n\n## Implementation\n\nAn initial implementation was merged in PR 254. Please try it out!\n\n## Why not a bigger server?\n\nA bigger server would only move the limit.\n\n## Future directions\n\n1. Export to Parquet as well.\n", "Faster report export", []string{"stream rows"}, []string{"building the CSV", "consumers keep working", "merged in PR 254", "try it out", "bigger server", "Parquet"}},
		// An ADR's Decision is the work.
		{"ADRDecisionIsWork", "# ADR 14: Use native fetch\n\n## Context\n\nNode.js 20 ships a stable native `fetch`.\n\n## Decision\n\nAll backend code should use the native `fetch` for HTTP calls.\nFrontend plugins should use `fetchApiRef`.\n\n## Consequences\n\nWe will gradually transition away from `node-fetch`.\n", "Use native fetch", []string{"native `fetch` for HTTP calls"}, []string{}},
		// An appendix inside an Implementation Plan is part of the plan.
		{"AppendixOfTheImplementationPlanIsWork", "# Proposal: Removed settings\n\n## Design\n\nSettings that are removed keep working for old scripts.\n\n## Implementation Plan\n\n### Appendix 1 - Removed settings\n\nA removed setting:\n\n* Is settable via a `SET` statement\n* Returns an error for `SELECT @@var` queries\n* Is not visible in `SHOW VARIABLES` output\n", "Removed settings", []string{"SELECT @@var"}, []string{}},
		// A PEP's title levels come from the order its underlines first
		// appear ("=", "-", then "'"): a "'''" subsection of a rejected idea
		// is no sibling of "Rejected Ideas" (its text and the next rejected
		// idea became tickets).
		{"ReStructuredTextLevelsByFirstAppearance", "Specification\n=============\n\nWhen ``strict=True`` is passed, raise ``ValueError`` on unequal lengths.\n\nRejected Ideas\n==============\n\nAdd a new function\n------------------\n\nPrecedent\n'''''''''\n\nA new function would need its own documentation page.\n\nChange the default behaviour\n----------------------------\n\nThe default must stay as it is for infinite iterators.\n", "PEP 9999", []string{"unequal lengths"}, []string{"documentation page", "infinite iterators"}},
		// Names keep their spelling: a code span's "__debug__", "iOS" and
		// "p95" at the start of a criterion (they became "debug", "IOS" and
		// "P95").
		{"CodeSpansAndNamesKeepTheirSpelling", "# Checks\n\n## Strict mode\n\n- Users wanting a check disabled in optimized mode can pass `strict=__debug__`.\n- iOS: register with APNs\n- p95 latency < 500ms for key endpoints\n", "Checks", []string{"`strict=__debug__`", "iOS: register", "p95 latency"}, []string{"IOS", "P95"}},
		// Short items are work: a two-word item ("Disable dual-writes",
		// "Per-category toggles", "Delivery rate"), the items under a bold
		// pseudo-heading, and an order ending in ":" over its settings
		// (all were dropped in silence).
		{"ShortItemsAreWork", "# Push notifications\n\n## Preferences\n- Per-category toggles\n- Quiet hours setting (10pm - 8am)\n\n## Analytics Dashboard\n- Opt-in rate per notification type\n- Delivery rate\n\n## Categories\n\nSupport these push notification categories:\n\n**Immediate**\n- Direct messages\n- @mentions\n\n**Transactional**\n- Password reset\n- Payment confirmation\n", "Push notifications", []string{"Per-category toggles", "Delivery rate", "Direct messages", "Password reset"}, []string{}},
		{"OrderOverItsSettingsIsWork", "# Cutover\n\n## Traffic Cutover\n1. Enable feature flags in Gateway:\n   - `Features.UseLegacyChat=false`\n   - `Features.UseLegacyOrchestration=false`\n2. Route 10% → 50% → 100% traffic\n\n## Data Migration\n1. Export legacy data dumps (users, conversations, tasks)\n2. Run SQL migration scripts against Postgres:\n   - Users → `auth.users`\n   - Tasks → `orchestration.tasks`\n\n## Post-Cutover\n- Disable dual-writes\n- Archive legacy artifacts\n", "Cutover", []string{"Enable feature flags in Gateway", "UseLegacyChat=false", "Run SQL migration scripts against Postgres", "Disable dual-writes"}, []string{}},
	} {
		res := generate(t, defaultRequest(c.spec, c.title))
		text := allTicketText(res.Tickets)
		for _, want := range c.work {
			if !strings.Contains(text, want) {
				t.Errorf("%s: %q has no ticket: %v", c.name, want, titles(res.Tickets))
			}
		}
		for _, not := range c.notWork {
			if strings.Contains(text, not) {
				t.Errorf("%s: a ticket holds %q, which is no work:\n%s", c.name, not, text)
			}
		}
	}
}

// allTicketText is everything the tickets of a result say.
func allTicketText(ts []tickets.Ticket) string {
	var sb strings.Builder
	for _, tk := range ts {
		sb.WriteString(ticketText(tk) + "\n")
	}
	return sb.String()
}

// A design that states each category's problem over its own
// "**Recommended solution:**" list: the solutions are the work, one
// ticket each, and the problems are none (the four solutions of the TiDB
// proposal were merged into one ticket "Implement recommended solution",
// beside tickets of the problems).
func TestRecommendedSolutionUnderEachHeading(t *testing.T) {
	t.Parallel()
	spec := "# Proposal: Tidy feature flags\n\n## Design\n\n### Stable flags\n\nThese flags were hidden because they will be removed one day.\n\n**Recommended solution:**\n\n* Make every stable flag visible in SHOW VARIABLES.\n\n### Experimental flags\n\nThere are too many experiments to keep track of.\n\n**Recommended solution:**\n\n* Move every experimental flag into `feature_switch`.\n"
	res := generate(t, defaultRequest(spec, "Tidy feature flags"))
	var stable, experimental int
	for _, tk := range res.Tickets {
		text := ticketText(tk)
		if strings.Contains(text, "were hidden because") || strings.Contains(text, "too many experiments") {
			t.Errorf("ticket %q holds a problem statement:\n%s", tk.Title, text)
		}
		if strings.Contains(strings.ToLower(tk.Title), "recommended solution") {
			t.Errorf("ticket titled by the label: %q", tk.Title)
		}
		if strings.Contains(text, "stable flag visible") {
			stable++
		}
		if strings.Contains(text, "experimental flag into") {
			experimental++
		}
	}
	if stable != 1 || experimental != 1 || strings.Contains(allTicketText(res.Tickets), "Also covers") {
		t.Errorf("want one ticket per solution, got %v:\n%s", titles(res.Tickets), allTicketText(res.Tickets))
	}
}

// What a proposal proposes names the work, without its frame: "In order
// to address the concerns above, I propose …", "This RFC proposes to …"
// (the GEP's one ticket was "Implement API", the RFC's "Implement
// summary").
func TestProposalFrameIsNoTitle(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ spec, want string }{
		{"# GEP-1867: Per-Gateway Infrastructure\n\n## API\n\nIn order to address the concerns above, I propose a standard `infrastructure` API is added to `Gateway`.\n\nThe exact fields are handled by additional GEPs.\n", "Add a standard infrastructure API to Gateway"},
		{"## RFC: Make the authors field optional\n\n- Feature Name: `optional_authors_field`\n- Start Date: 2021-01-07\n\n## Summary\n\nThis RFC proposes to make the `package.authors` field of `Cargo.toml` optional.\n", "Make the package.authors field of Cargo.toml optional"},
	} {
		res := generate(t, defaultRequest(c.spec, ""))
		if got := titles(res.Tickets); len(got) == 0 || got[0] != c.want {
			t.Errorf("titles %q, want %q first", got, c.want)
		}
	}
}

// A proposal's "Details" list is the list of the work: one ticket per rule
// (the Go proposal's rules were criteria of one ticket titled by the
// first, "Report errors in some cases …").
func TestDetailsListIsTheWork(t *testing.T) {
	t.Parallel()
	spec := "# Proposal: install by version\n\n## Details\n\nWhen a version suffix is used:\n\n* `go install` runs in module mode, regardless of whether a `go.mod` file is present.\n* Command line arguments must refer to main packages (executables).\n* The module must not contain `replace` or `exclude` directives.\n"
	res := generate(t, defaultRequest(spec, "Install by version"))
	for _, want := range []string{"module mode", "main packages", "`replace`"} {
		n := 0
		for _, tk := range res.Tickets {
			if strings.Contains(tk.Title+"\n"+strings.Join(tk.AcceptanceCriteria, "\n"), want) && tk.TicketType != tickets.TypeEpic {
				n++
			}
		}
		if n != 1 || len(res.Tickets) < 3 {
			t.Errorf("%q in %d tickets, want a ticket of its own: %v", want, n, titles(res.Tickets))
		}
	}
}

// An ADR's decision that sets a rule for each kind of code, a paragraph
// each over its code example: one ticket per rule, none waiting for the
// one written before it (the Backstage ADR gave one ticket "Implement
// decision").
func TestDecisionRulesPerParagraph(t *testing.T) {
	t.Parallel()
	spec := "# ADR014: Use fetch\n\n## Context\n\nNode.js 20 ships a native fetch.\n\n## Decision\n\nAll code that is executed in Node.js (including backend and CLIs) should use the native `fetch` for HTTP data fetching.\n\n```ts\nconst response = await fetch(url);\n```\n\nFrontend plugins and packages should prefer to use the `fetchApiRef`.\n\n```ts\nconst { fetch } = useApi(fetchApiRef);\n```\n\nIsomorphic packages should have a dependency on the `cross-fetch` package for mocking and type definitions.\nPreferably, their classes accept an argument of type `typeof fetch`.\n"
	res := generate(t, defaultRequest(spec, "Use fetch"))
	want := map[string]string{"native `fetch`": "Use the native fetch for HTTP data fetching in code that is executed in Node.js", "fetchApiRef": "", "cross-fetch": ""}
	for phrase, title := range want {
		var holders []tickets.Ticket
		for _, tk := range res.Tickets {
			if strings.Contains(ticketText(tk), phrase) {
				holders = append(holders, tk)
			}
		}
		if len(holders) != 1 {
			t.Errorf("%q in %d tickets, want one: %v", phrase, len(holders), titles(res.Tickets))
			continue
		}
		if title != "" && holders[0].Title != title {
			t.Errorf("title %q, want %q", holders[0].Title, title)
		}
		if len(holders[0].Dependencies) > 0 {
			t.Errorf("%q depends on %v: the rules are independent", holders[0].Title, holders[0].Dependencies)
		}
	}
}

// "support" as a verb names no persona ("As a support agent, I want the
// consequences to work as specified" came from "does not support native
// fetch"); "I want to see" keeps its "to"; a reason clause does not open
// a title ("Make because the system variable system support …").
func TestStoryWordsAndReasonClauses(t *testing.T) {
	t.Parallel()
	spec := "# Habit tracker\n\n## Consequences\n\nThe msw 1.x library does not support native fetch properly.\nTests may need to be rewritten to use msw 2.x.\n\n## User Stories\n\n- As a user, I want to see my habits for today, so I know what to do\n- As a user, I want to tap once to complete a habit\n\n## Options\n\n**Recommended solution:**\n\n* Because the system supports dynamic registration, these variables should be removed when the experiment is disabled.\n"
	res := generate(t, defaultRequest(spec, "Habit tracker"))
	text := allTicketText(res.Tickets)
	wantLacks(t, "the tickets", text, "support agent", "As a support", "I want see")
	if !strings.Contains(text, "I want to see my habits") {
		t.Errorf("the story sentence lost its words:\n%s", text)
	}
	for _, ti := range titles(res.Tickets) {
		if strings.Contains(ti, "because") || strings.Contains(ti, "Because") {
			t.Errorf("title %q opens with the reason", ti)
		}
	}
}

// An issue form: its "Describe your ideal solution to this problem" answer
// is the work, and the unticked "Would you like to implement this
// feature?" asks the reporter, not the team (it gave the only ticket, a
// spike "Decide whether you like would to implement this feature").
func TestIssueFormSolutionAndReporterQuestion(t *testing.T) {
	t.Parallel()
	spec := "### Verified feature request does not already exist?\n\n- [x] I have searched and found no existing issue\n\n### 💻\n\n- [ ] Would you like to implement this feature?\n\n### Pitch: what problem are you trying to solve?\n\nI keep forgetting to budget for yearly bills such as insurance.\n\n### Describe your ideal solution to this problem\n\nAdd each scheduled transaction to the budget of the month it is due.\n"
	res := generate(t, defaultRequest(spec, ""))
	if got := titles(res.Tickets); len(got) != 1 || got[0] != "Add each scheduled transaction to the budget of the month it is due" {
		t.Errorf("titles %q, want the solution's ticket alone", got)
	}
	for _, q := range res.OpenQuestions {
		if strings.Contains(q.Question, "Would you like") {
			t.Errorf("open question %q asks the reporter", q.Question)
		}
	}
}

// An issue template's front matter title names the work when its prompt
// heading does not ("Describe the solution you'd like").
func TestIssueTemplateFrontMatterTitle(t *testing.T) {
	t.Parallel()
	spec := "---\nname: Feature request\ntitle: \"[FEATURE] Redeliver failed webhook deliveries from the dashboard\"\n---\n\n**Describe the solution you'd like**\n\nA \"Redeliver\" button on each failed delivery in the dashboard.\n"
	res := generate(t, defaultRequest(spec, ""))
	if got := titles(res.Tickets); len(got) != 1 || !strings.Contains(got[0], "failed webhook deliveries") {
		t.Errorf("titles %q, want the front matter's title", got)
	}
}

// A bug report on GitHub's template with bold labels, a blank line after
// each: the steps end at "**Expected behavior**", and the template's
// prompts, comments and screenshot requests are not the report (the steps
// ran to the end of the text and the title's bug had no expected result).
func TestBugTemplateWithBoldLabels(t *testing.T) {
	t.Parallel()
	spec := "**Describe the bug**\n\nAfter enabling and disabling dark mode in the settings, the dark theme persists until the app is reloaded.\n\n**To Reproduce**\n\nSteps to reproduce the behavior:\n1. Enable dark theme in settings\n2. Disable it after enabling it.\n\n**Expected behavior**\n\n<!-- A clear and concise description of what you expected to happen. -->\nThe app should return to its light theme\n\n**Screenshots**\n\nIf applicable, add screenshots to help explain your problem.\n\n**Desktop (please complete the following information):**\n - Firefox 138.0.1\n"
	res := generate(t, defaultRequest(spec, "Dark theme persists after disabling it"))
	if len(res.Tickets) == 0 || res.Tickets[0].TicketType != tickets.TypeBug {
		t.Fatalf("want a bug first: %v", titles(res.Tickets))
	}
	bug := ticketText(res.Tickets[0])
	wantHolds(t, "the bug", bug, "Steps to reproduce: 1) Enable dark theme in settings; 2) Disable it after enabling it.", "expected result: the app should return to its light theme.", "Firefox 138.0.1")
	wantLacks(t, "the bug", bug, "Describe the bug", "<!--", "add screenshots", "please complete", "the behavior:")
}

// A prohibition risk needs a rule: "likely never will" and "We don't need
// this for the free plan" forbid nothing; "The app never stores the
// password" does.
func TestProhibitionRiskNeedsARule(t *testing.T) {
	t.Parallel()
	prohibition := func(spec string) bool {
		res := generate(t, defaultRequest(spec, "Export"))
		for _, r := range res.Risks {
			if strings.HasPrefix(r.Description, "Hard prohibitions") {
				return true
			}
		}
		return false
	}
	if prohibition("# Export\n\n## Requirements\n\n- Export the report as CSV for the admin.\n- The msw 1.x library does not support native fetch and likely never will.\n- We don't need this for the free plan.\n") {
		t.Error("a prohibition risk from text that forbids nothing")
	}
	if !prohibition("# Export\n\n## Requirements\n\n- Export the report as CSV for the admin.\n- The export never includes the password hash.\n") {
		t.Error("no prohibition risk from a never rule")
	}
}

// A plain-text PRD outlined by numbered titles without Markdown ("1.
// Overview" alone on its line) reads as one with headings: its future
// ideas and out-of-scope parts give no ticket, its features one (it was
// read as a list, "Future Feature Ideas" a ticket of its own).
func TestPlainTextNumberedTitlesAreHeadings(t *testing.T) {
	t.Parallel()
	spec := "1. Overview\n\nUsers can create habits and tick them off every day.\n\n2. Habit Management\n\nUser can add a habit with a name\n\nEach habit has a delete button\n\n3. Future Feature Ideas\n\nDaily reminders via email\n\n4. Out of Scope (For Now)\n\nNative mobile apps\n"
	res := generate(t, defaultRequest(spec, "Habit tracker"))
	text := allTicketText(res.Tickets)
	wantLacks(t, "the tickets", text, "reminders", "Future Feature Ideas", "Native mobile")
	if !strings.Contains(text, "delete button") {
		t.Errorf("the features have no ticket: %v", titles(res.Tickets))
	}
	steps := generate(t, defaultRequest("Steps to reproduce:\n\n1. Enable dark theme\n\n2. Disable it again\n\nExpected: the light theme is back.\n", "Dark theme stays"))
	if len(steps.Tickets) == 0 || steps.Tickets[0].TicketType != tickets.TypeBug {
		t.Errorf("numbered steps read as an outline: %v", titles(steps.Tickets))
	}
}

// A guess asks for nothing: "might have been miscategorized", "it is
// unlikely to cause compatibility issues" gave tickets of their own.
func TestSpeculationIsNoRequirement(t *testing.T) {
	t.Parallel()
	spec := "# Proposal: visible settings\n\n## Design\n\n- Make every hidden setting visible in SHOW VARIABLES.\n- In some cases these settings might have been miscategorized and are instead stable.\n\n## Test Design\n\n- Because this change makes more settings visible, it is unlikely to cause compatibility issues.\n"
	res := generate(t, defaultRequest(spec, "Visible settings"))
	text := allTicketText(res.Tickets)
	wantLacks(t, "the tickets", text, "miscategorized", "unlikely")
}

// A list that documents a setting ("Scope: SESSION | GLOBAL", "Default
// value: (system dependent)") beside what it does: the properties are
// criteria, not tickets ("Implement SESSION | GLOBAL (Scope)").
func TestPropertyItemsAreNoTickets(t *testing.T) {
	t.Parallel()
	spec := "# Proposal: feature switch\n\n## Requirements\n\n* Scope: SESSION | GLOBAL\n* Default value: (system dependent)\n* This variable allows you to enable or disable features which have not reached GA maturity.\n* A wildcard can be used to change the value of all experiments.\n"
	res := generate(t, defaultRequest(spec, "Feature switch"))
	for _, ti := range titles(res.Tickets) {
		if strings.Contains(ti, "SESSION") || strings.Contains(ti, "Default value") {
			t.Errorf("a property has a ticket of its own: %q", ti)
		}
	}
	if !strings.Contains(allTicketText(res.Tickets), "SESSION | GLOBAL") {
		t.Errorf("the scope is in no ticket:\n%s", allTicketText(res.Tickets))
	}
}

// TestTitlesOfPublicSpecShapes: a ticket is titled by the work a public
// spec's words name, in the shapes these specs wrote it; each row's
// comment says what the engine titled it before.
func TestTitlesOfPublicSpecShapes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, spec, title string
		want              []string
	}{
		// What a release of a proposal would do titles its ticket ("Implement in
		// Go 1.16" and "Implement in a later release (likely Go 1.17)" were the
		// Go proposal's titles of the deprecation and the removal).
		{"ReleaseStepTitles", "# Proposal: install by version\n\n## Details\n\nWe also propose deprecating the ability for `go get` to install packages.\n\n* In Go 1.16, when `go get` is invoked outside a module, `go get` would print a deprecation warning recommending an equivalent `go install` command.\n* In a later release (likely Go 1.17), `go get` would no longer build or install packages.\n", "Install by version", []string{"Make go get print a deprecation warning recommending an equivalent go install command", "Make go get no longer build or install packages"}},
		// An ADR's consequences are titled by what the team will do, not
		// "Implement consequences".
		{"ConsequencesTitledByWhatWillBeDone", "# ADR 14: Use native fetch\n\n## Decision\n\nAll backend code should use the native `fetch` for HTTP calls.\n\n## Consequences\n\nWe will gradually transition away from `node-fetch` on the Node.js platform.\nCertain tests may need to be rewritten to use msw 2.x.\n", "Use native fetch", []string{"Gradually transition away from node-fetch on the Node.js platform"}},
		// A list of predicates under a caption that names their subject ("A
		// removed sysvar:" over "Returns an error for …") is titled with that
		// subject, not "Implement returns an error …".
		{"PredicateItemsTakeTheCaptionSubject", "# Proposal: Removed settings\n\n## Design\n\nWe support removed settings in the framework. A removed setting:\n\n* Is settable via a `SET` statement\n* Returns an error for `SELECT @@var` queries\n", "Removed settings", []string{"Make a removed setting return an error for SELECT @@var queries"}},
		// A section headed by a component is titled by what the component will
		// do: "Make Cargo stop fetching …", not "Implement cargo".
		{"ComponentSectionTitledByWhatItWillDo", "# RFC: Make the authors field optional\n\n## Reference-level explanation\n\n### Cargo\n\nCargo will stop fetching the current user's name when running `cargo init`.\n\n### docs.rs\n\ndocs.rs will replace the authors with the current owners in its UI.\n", "Optional authors", []string{"Make Cargo stop fetching the current user's name when running cargo init", "Make docs.rs replace the authors with the current owners in its UI"}},
		// A section whose proposal follows a sentence of context is titled by the
		// proposal: "Support "removed system variables" by the sysvar framework",
		// not "Implement appendix #2 - Removed system variables".
		{"ProposalAfterContextTitlesTheSection", "# Proposal: Remove hidden sysvars\n\n## Design\n\nMake every hidden variable visible.\n\n## Implementation Plan\n\n### Appendix #2 - Removed system variables\n\nFor existing experimental flags, the procedure to remove the flag once the feature is GA is problematic.\nThis proposes that we support \"removed system variables\" by the sysvar framework.\nIt helps accommodate phantom `SET` statements in application code.\n", "Remove hidden sysvars", []string{"Support \"removed system variables\" by the sysvar framework"}},
	} {
		got := titles(generate(t, defaultRequest(c.spec, c.title)).Tickets)
		for _, want := range c.want {
			if !slices.Contains(got, want) {
				t.Errorf("%s: titles %q, want %q among them", c.name, got, want)
			}
		}
	}
}

// Sections under one topic's heading are different work: "Opt-in",
// "Notification Preferences" and "Notification Delivery" under "Push
// notifications" were one ticket, "Implement event notifications".
func TestSectionsOfOneTopicStayApart(t *testing.T) {
	t.Parallel()
	spec := "# Push notifications\n\n## 1. Opt-in\n- Show a value proposition before the system prompt\n- Don't re-prompt users who declined\n\n## 2. Notification Preferences\n- Per-category toggles\n- Quiet hours setting (10pm - 8am)\n\n## 3. Notification Delivery\n- Queue notifications through background workers\n- Handle bounced tokens\n"
	res := generate(t, defaultRequest(spec, "Push notifications"))
	holding := func(s string) string {
		for _, tk := range res.Tickets {
			if tk.TicketType != tickets.TypeEpic && strings.Contains(ticketText(tk), s) {
				return tk.Title
			}
		}
		return ""
	}
	opt, prefs, delivery := holding("value proposition"), holding("Quiet hours"), holding("bounced tokens")
	if opt == "" || prefs == "" || delivery == "" || opt == prefs || prefs == delivery || opt == delivery {
		t.Errorf("want one ticket per section, got %q, %q, %q:\n%s", opt, prefs, delivery, allTicketText(res.Tickets))
	}
	for _, title := range []string{opt, prefs, delivery} {
		if strings.ContainsAny(title, "123") {
			t.Errorf("title %q holds its heading's section number", title)
		}
	}
}

// A list of orders is a ticket per order, and a step list written "-- 1."
// under an order is steps, not more of its sentence (KEP-2227's design
// details were one ticket "Implement publishing data" whose criterion of
// about 500 characters glued the steps together).
func TestListOfOrdersAndDashSteps(t *testing.T) {
	t.Parallel()
	spec := "# Default container\n\n## Design Details\n\n**Publishing Data:**\n\n- Define a well known annotation `kubectl.kubernetes.io/default-container` in a Pod.\n- Define a global function GetDefaultContainerName for kubectl that uses this annotation like below\n-- 1. check `-c`/`--container` flag: if it is specified, use it; if not, next step.\n-- 2. check containers number in pod: if only one container, use its name; if more than one, next step.\n-- 3. use the first container name as the default. Print a notice message before it.\n- Validate the annotation value before using it, as the container name should follow RFC 1123.\n- Add test cases to make sure that the command is running with the right container.\n"
	res := generate(t, defaultRequest(spec, "Default container"))
	seen := map[string]string{}
	for _, want := range []string{"well known annotation", "GetDefaultContainerName", "Validate the annotation value", "Add test cases"} {
		for _, tk := range res.Tickets {
			if tk.TicketType != tickets.TypeEpic && strings.Contains(ticketText(tk), want) {
				if other, dup := seen[tk.Title]; dup {
					t.Errorf("%q and %q share the ticket %q", other, want, tk.Title)
				}
				seen[tk.Title] = want
				break
			}
		}
	}
	if len(seen) != 4 {
		t.Errorf("want a ticket per order, got %v", titles(res.Tickets))
	}
	for _, tk := range res.Tickets {
		for _, c := range tk.AcceptanceCriteria {
			if strings.Contains(c, "-- ") || strings.Contains(c, "Step 1") && strings.Contains(c, "Step 3") {
				t.Errorf("steps glued into one criterion of %q: %q", tk.Title, c)
			}
		}
	}
}

// What a spec says without asking or risking anything makes no ticket,
// open question or risk: link reference definitions, an unfilled
// template's "TODO" over its prompt, a question the next sentence
// answers, a note that nothing is needed under "Risks".
func TestNoQuestionsRisksOrCriteriaFromNoise(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, spec string
		want, not  []string
	}{
		{"LinkReferenceDefinitions", "# RFC Proposal\n[RFC Proposal]: #rfc-proposal\n\n## Proposed Solution\n[Proposed Solution]: #proposed-solution\n\nLoad RIF files whose manifest type ends in `_MERGE` and update only the fields they contain.\nAny origin which is [same site][] may be used.\n\n[same site]: https://html.spec.whatwg.org/multipage/origin.html#same-site\n", []string{"_MERGE", "which is same site may"}, []string{"#proposed-solution", "whatwg", "[same site]"}},
		{"UnfilledTemplate", "# RFC: Partial backfill\n\n## Proposed Solution\nIdentify merge data by the `_MERGE` suffix on the manifest entry type.\n\n### Unresolved Questions\n\nTODO\n\nCollect a list of action items to be resolved before this RFC is submitted, including:\n\n* What parts of the design do you expect to resolve through the RFC process before this gets merged?\n", []string{"_MERGE"}, []string{"Unresolved", "RFC process"}},
		{"AnsweredQuestion", "# Bulk export since\n\n## Search by lastUpdated\nSupport a `_lastUpdated` search parameter with the `lt` and `gt` operators.\n\n## Roster changes\nA group's roster may change between export calls.\nSo, how should a group export call handle new beneficiaries?\nSince the service does not track groups, partners have to work out solutions for this problem.\n", []string{"_lastUpdated"}, []string{"how should"}},
		{"NoteThatNothingIsNeeded", "# Default container\n\n## Proposal\nRead the `default-container` annotation in `kubectl exec` when `--container` is not given.\n\n### Risks and Mitigations\n**Note:** No server-side changes are required for this, all expansion is performed on the client side.\n\n- None\n", []string{"default-container"}, []string{"server-side"}},
	} {
		res := generate(t, defaultRequest(c.spec, ""))
		text := allTicketText(res.Tickets)
		for _, q := range res.OpenQuestions {
			text += "\nQ " + q.Question
		}
		for _, r := range res.Risks {
			text += "\nR " + r.Description
		}
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: %q is in no ticket:\n%s", c.name, w, text)
			}
		}
		for _, n := range c.not {
			if strings.Contains(text, n) {
				t.Errorf("%s: the result holds %q:\n%s", c.name, n, text)
			}
		}
	}
}

// An issue's "Acceptance Criteria" after its tasks are criteria of those
// tasks, not tickets that repeat them ("Implement form validation works"),
// and a rule under "Notes" holds for all of them (it was lost).
func TestIssueCriteriaAndNotesAreCriteriaOfItsTasks(t *testing.T) {
	t.Parallel()
	spec := "# User Profile Management UI\n\n### Objective\nBuild the settings page UI for updating user profile details.\n\n### Implementation Tasks\n- [ ] Implement form validation\n- [ ] Connect to user profile API\n\n### Acceptance Criteria\n- [ ] User can update profile\n- [ ] Form validation works\n\n### Notes\nEnsure sensitive data is not logged.\n"
	res := generate(t, defaultRequest(spec, ""))
	var work []tickets.Ticket
	for _, tk := range res.Tickets {
		if tk.TicketType != tickets.TypeEpic {
			work = append(work, tk)
		}
	}
	if len(work) != 2 {
		t.Fatalf("want the two tasks, got %q", titles(res.Tickets))
	}
	for _, tk := range work {
		crit := strings.Join(tk.AcceptanceCriteria, "\n")
		if !strings.Contains(crit, "sensitive data is not logged") {
			t.Errorf("%q lacks the note's rule: %q", tk.Title, tk.AcceptanceCriteria)
		}
		if strings.Contains(tk.Title, "validation") && !strings.Contains(crit, "Form validation works") {
			t.Errorf("%q lacks its criterion \"Form validation works\": %q", tk.Title, tk.AcceptanceCriteria)
		}
	}
}

// A section about notifications whose text names no channel is titled by
// its heading, not by the topic ("Implement event notifications" was
// merged with the opt-in ticket at the cap, and named neither).
func TestNotificationSectionTitledByItsHeading(t *testing.T) {
	t.Parallel()
	spec := "# Push\n\n## Requirements\n\n### 5. Rich Notifications\n- Include user avatar for messages\n- Show action buttons (Reply, Mark Done, Dismiss)\n"
	res := generate(t, defaultRequest(spec, "Push"))
	for _, tk := range res.Tickets {
		if tk.Title == "Implement event notifications" {
			t.Errorf("titled by the topic: %q", titles(res.Tickets))
		}
	}
}

// A label without a verb beside a list of work ("Alpha: default container
// annotation.", "Next meeting: 10 November.") is context of each ticket,
// not a criterion of each (it was appended to every ticket's criteria).
func TestLabelBesideAListIsNoCriterion(t *testing.T) {
	t.Parallel()
	spec := "# Default container\n\n## Design Details\n\nAlpha: default container annotation.\n\n- Define a well known annotation `kubectl.kubernetes.io/default-container` in a Pod.\n- Validate the annotation value before using it, as the container name should follow RFC 1123.\n- Add test cases to make sure that the command is running with the right container.\n"
	res := generate(t, defaultRequest(spec, "Default container"))
	found := false
	for _, tk := range res.Tickets {
		if strings.Contains(strings.Join(tk.AcceptanceCriteria, "\n"), "Alpha:") {
			t.Errorf("%q holds the label as a criterion: %q", tk.Title, tk.AcceptanceCriteria)
		}
		found = found || strings.Contains(tk.Description, "Alpha: default container annotation")
	}
	if !found {
		t.Errorf("the label is in no description:\n%s", allTicketText(res.Tickets))
	}
}
