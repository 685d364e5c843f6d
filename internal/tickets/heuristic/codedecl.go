package heuristic

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
)

// This file reads what a spec's code block declares, a Go type, a SQL
// table or index, a protobuf message or RPC, a TypeScript interface, as
// criteria of its section's work. Readers of three public specs found the
// declared schema in no ticket: a design's CREATE TABLE and its indexes,
// a service's new RPC, the Go types of a proposal.

// maxDeclarationBlock is the size in bytes of the largest code block read
// for declarations: a design declares its types in a few lines, and a
// larger block (a listing, an unclosed fence that runs to the end of the
// spec) would only cost time.
const maxDeclarationBlock = 16 << 10

// maxDeclaredNames is how many fields or columns a declaration's criterion
// names before it counts the rest.
const maxDeclaredNames = 12

// declaration is what a code block declares: a criterion, and the names
// that work using it would name, lower-cased (see declaredDependencies).
type declaration struct {
	criterion string
	names     []string
}

// declarations returns a declaration for each type, table, index, message
// or RPC that code declares, in order. Its criterion: "`TestResult` has the
// fields Package, Result, Stdout and Stderr.", "Table `web_sessions` has
// the columns id, hashedSecret and username.", "RPC `UserLogout` takes
// `UserLogoutRequest` and returns `UserLogoutResponse`."; its names: what
// it declares and those of its fields that join two words ("CompletionMode",
// not "Labels"). None for code that declares nothing (an example, a
// command, a configuration).
func declarations(code string) []declaration {
	if len(code) > maxDeclarationBlock {
		return nil
	}
	type found struct {
		at int
		declaration
	}
	var all []found
	add := func(at int, criterion, name string, fields []string) {
		if criterion == "" {
			return
		}
		names := []string{strings.ToLower(name)}
		for _, f := range fields {
			if joinedWords.MatchString(f) {
				names = append(names, strings.ToLower(f))
			}
		}
		all = append(all, found{at, declaration{criterion, names}})
	}
	for _, m := range goStruct.FindAllStringSubmatchIndex(code, -1) {
		name, fields := code[m[2]:m[3]], goFieldNames(code[m[4]:m[5]])
		add(m[0], fieldsCriterion("`"+name+"` has the ", "field", fields), name, fields)
	}
	for _, m := range goNamedType.FindAllStringSubmatchIndex(code, -1) {
		name := code[m[2]:m[3]]
		add(m[0], "`"+name+"` is a type of `"+code[m[4]:m[5]]+"`.", name, nil)
	}
	for _, m := range sqlTable.FindAllStringSubmatchIndex(code, -1) {
		name, body := strings.Trim(code[m[2]:m[3]], `"`), code[m[4]:m[5]]
		columns := sqlColumns(body)
		add(m[0], fieldsCriterion("Table `"+name+"` has the ", "column", columns), name, columns)
		for _, ix := range sqlInlineIndex.FindAllStringSubmatch(body, -1) {
			add(m[0]+1, "Table `"+name+"` has an index on ("+strings.TrimSpace(ix[1])+").", name, nil)
		}
	}
	for _, m := range sqlIndex.FindAllStringSubmatchIndex(code, -1) {
		name := strings.Trim(code[m[2]:m[3]], `"`)
		add(m[0], "Table `"+name+"` has an index on ("+strings.TrimSpace(code[m[4]:m[5]])+").", name, nil)
	}
	for _, m := range protoMessage.FindAllStringSubmatchIndex(code, -1) {
		name, fields := code[m[2]:m[3]], firstGroups(protoField, code[m[4]:m[5]])
		add(m[0], fieldsCriterion("Message `"+name+"` has the ", "field", fields), name, fields)
	}
	for _, m := range protoRPC.FindAllStringSubmatchIndex(code, -1) {
		name := code[m[2]:m[3]]
		add(m[0], "RPC `"+name+"` takes `"+code[m[4]:m[5]]+"` and returns `"+code[m[6]:m[7]]+"`.", name, nil)
	}
	for _, m := range tsInterface.FindAllStringSubmatchIndex(code, -1) {
		name, fields := code[m[2]:m[3]], firstGroups(tsField, code[m[4]:m[5]])
		add(m[0], fieldsCriterion("`"+name+"` has the ", "field", fields), name, fields)
	}
	slices.SortStableFunc(all, func(a, b found) int { return cmp.Compare(a.at, b.at) })
	out := make([]declaration, len(all))
	for i, f := range all {
		out[i] = f.declaration
	}
	return out
}

// firstGroups is the first group of each match of re in text.
func firstGroups(re *regexp.Regexp, text string) []string {
	var out []string
	for _, m := range re.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

// goStructFields are the field names of the Go structs code declares.
func goStructFields(code string) []string {
	var names []string
	for _, m := range goStruct.FindAllStringSubmatch(code, -1) {
		names = append(names, goFieldNames(m[2])...)
	}
	return names
}

// fieldsCriterion is lead, then noun ("field", "column") in its number,
// then names ("a, b and c."), the names past maxDeclaredNames counted; ""
// without names.
func fieldsCriterion(lead, noun string, names []string) string {
	switch {
	case len(names) == 0:
		return ""
	case len(names) > maxDeclaredNames:
		names = append(names[:maxDeclaredNames:maxDeclaredNames], itoa(len(names)-maxDeclaredNames)+" more")
	}
	if len(names) > 1 {
		noun += "s"
	}
	return lead + noun + " " + joinAnd(names) + "."
}

// goFieldNames are the field names of a Go struct's body, and the type
// names it embeds.
func goFieldNames(body string) []string {
	var names []string
	for line := range strings.Lines(body) {
		line = strings.TrimSpace(line)
		if i := strings.Index(line, "//"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if m := goFieldLine.FindStringSubmatch(line); m != nil {
			names = append(names, strings.Split(m[1], ",")...)
		}
	}
	for i := range names {
		names[i] = strings.TrimSpace(names[i])
	}
	return names
}

// sqlColumns are the column names of a CREATE TABLE's body, without its
// keys, indexes and constraints.
func sqlColumns(body string) []string {
	var names []string
	for line := range strings.Lines(body) {
		line = strings.TrimSpace(line)
		m := sqlColumn.FindStringSubmatch(line)
		if m == nil || sqlConstraint.MatchString(m[1]) {
			continue
		}
		names = append(names, strings.Trim(m[1], `"`+"`"))
	}
	return names
}

var (
	// goStruct is a Go struct type declaration: its name and body.
	goStruct = regexp.MustCompile(`(?m)^\s*type\s+([A-Za-z_]\w*)\s+struct\s*\{[ \t]*\n((?:.*\n)*?)\s*\}`)
	// goFieldLine is a field line of a Go struct ("Package string",
	// "Stdout, Stderr string", "*BenchmarkResult"): the names or the
	// embedded type.
	goFieldLine = regexp.MustCompile(`^\*?([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)(?:\s+[*\[\]\w.{}]+.*)?$`)
	// goNamedType is a Go type declared on another ("type State int").
	goNamedType = regexp.MustCompile(`(?m)^\s*type\s+([A-Z]\w*)\s+([a-z][\w.]*)\s*$`)
	// sqlTable is a CREATE TABLE statement: its name and body.
	sqlTable = regexp.MustCompile(`(?is)\bCREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([\w."]+)\s*\((.*?)\n\s*\)\s*;?`)
	// sqlColumn opens a column definition with its name.
	sqlColumn = regexp.MustCompile(`^([\w"` + "`" + `]+)\s+[A-Za-z]`)
	// sqlConstraint is a CREATE TABLE line that defines no column.
	sqlConstraint = regexp.MustCompile(`(?i)^(?:primary|index|unique|constraint|foreign|check|key|family)$`)
	// sqlInlineIndex is an index inside a CREATE TABLE: its columns.
	sqlInlineIndex = regexp.MustCompile(`(?im)^\s*(?:UNIQUE\s+)?INDEX\b\s*(?:[\w"]+\s*)?\(([^)]*)\)`)
	// sqlIndex is a CREATE INDEX statement: its table and columns.
	sqlIndex = regexp.MustCompile(`(?i)\bCREATE\s+(?:UNIQUE\s+)?INDEX\s+(?:IF\s+NOT\s+EXISTS\s+)?[\w"]*\s*ON\s+([\w."]+)\s*\(([^)]*)\)`)
	// protoMessage is a protobuf message: its name and body.
	protoMessage = regexp.MustCompile(`(?m)^\s*message\s+(\w+)\s*\{\n?((?:.*\n)*?)\s*\}`)
	// protoField is a protobuf field: its name.
	protoField = regexp.MustCompile(`(?m)^\s*(?:repeated\s+|optional\s+)?(?:map<[^>]*>|[\w.]+)\s+(\w+)\s*=\s*\d+`)
	// protoRPC is a protobuf RPC: its name, request and response.
	protoRPC = regexp.MustCompile(`\brpc\s+(\w+)\s*\(\s*(?:stream\s+)?([\w.]+)\s*\)\s*returns\s*\(\s*(?:stream\s+)?([\w.]+)\s*\)`)
	// tsInterface is a TypeScript interface: its name and body.
	tsInterface = regexp.MustCompile(`(?m)^\s*(?:export\s+)?interface\s+(\w+)\s*(?:extends\s+[\w, ]+)?\{[ \t]*\n((?:.*\n)*?)\s*\}`)
	// joinedWords is an identifier of two words or more: "CompletionMode",
	// "ttlSecondsAfterFinished", "hashed_secret".
	joinedWords = regexp.MustCompile(`^[A-Za-z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*|_[a-z0-9]+)+$`)
	// tsField is a field of a TypeScript interface: its name.
	tsField = regexp.MustCompile(`(?m)^\s*(?:readonly\s+)?(\w+)\??\s*:`)
)
