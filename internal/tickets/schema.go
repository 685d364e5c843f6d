package tickets

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

//go:embed schema/*.json
var schemaFiles embed.FS

// Compiled JSON Schemas of tickets.input.v1 and tickets.result.v1. The
// result schema is the document GET /tickets/v1/schema serves as schema_json.
var (
	resultSchemaJSON = mustReadSchema("schema/result.schema.json")
	inputSchema      = mustCompileSchema("schema/input.schema.json")
	resultSchema     = mustCompileSchema("schema/result.schema.json")
)

// ResultSchemaJSON returns the tickets.result.v1 JSON Schema document, the
// same document every result is validated against.
func ResultSchemaJSON() string { return string(resultSchemaJSON) }

func mustReadSchema(name string) []byte {
	b, err := schemaFiles.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return b
}

func mustCompileSchema(name string) *jsonschema.Schema {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(mustReadSchema(name)))
	if err != nil {
		panic(fmt.Sprintf("%s: %v", name, err))
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(name, doc); err != nil {
		panic(fmt.Sprintf("%s: %v", name, err))
	}
	s, err := c.Compile(name)
	if err != nil {
		panic(fmt.Sprintf("%s: %v", name, err))
	}
	return s
}

// validateJSON validates raw JSON against s and returns the schema
// violations as readable lines ("/options/ticket_count: minimum: got 0,
// want 1"), at most limit of them, or the JSON syntax error.
func validateJSON(s *jsonschema.Schema, raw []byte, limit int) ([]string, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	err = s.Validate(doc)
	if err == nil {
		return nil, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil, err
	}
	p := message.NewPrinter(language.English)
	var lines []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := "/" + strings.Join(e.InstanceLocation, "/")
			lines = append(lines, fmt.Sprintf("%s: %s", loc, e.ErrorKind.LocalizedString(p)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	slices.Sort(lines)
	lines = slices.Compact(lines)
	if len(lines) > limit {
		lines = lines[:limit]
	}
	return lines, nil
}
