// Package openapitest checks real HTTP exchanges against the OpenAPI
// documents in package api. Tests of the HTTP handlers use it to prove that
// what the service answers is what its contract says.
//
// It uses kin-openapi's openapi3filter. For OpenAPI 3.1 documents
// openapi3filter validates schemas with its JSON Schema 2020-12 validator
// (type arrays with "null", const, …); Load checks that the document really is
// 3.1 so that this mode is never silently off.
package openapitest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/foresight-dev/foresight/api"
)

// Validator checks HTTP exchanges against one OpenAPI document. It is safe
// for concurrent use.
type Validator struct {
	name    string
	doc     *openapi3.T
	router  routers.Router
	options *openapi3filter.Options
}

var (
	cacheMu sync.Mutex
	cache   = map[string]*Validator{}
)

// Load parses and validates an OpenAPI document from api.Documents (name
// e.g. "tickets.yaml"); t.Fatal on error. Documents are parsed once per test
// binary and shared.
func Load(t testing.TB, name string) *Validator {
	t.Helper()
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if v, ok := cache[name]; ok {
		return v
	}
	v, err := load(name)
	if err != nil {
		t.Fatalf("openapitest: %v", err)
	}
	cache[name] = v
	return v
}

func load(name string) (*Validator, error) {
	data, err := api.Documents.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", name, err)
	}
	if !doc.IsOpenAPI31OrLater() {
		return nil, fmt.Errorf("%s: openapi %q: want 3.1 (JSON Schema 2020-12 validation)", name, doc.OpenAPI)
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("validate %s: %w", name, err)
	}

	// kin-openapi enforces only a few string formats by default (date,
	// date-time, byte). Enforce the others the documents use as well.
	doc.SetStringFormatValidators(map[string]openapi3.StringFormatValidator{
		"uuid": openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForUUIDOfRFC9562),
		"uri":  openapi3.NewCallbackValidator(validateURI),
	})

	// Match on the path only, whatever host and base the test server has:
	// without servers the gorillamux router matches any scheme and host.
	doc.Servers = nil
	for _, item := range doc.Paths.Map() {
		item.Servers = nil
		for _, op := range item.Operations() {
			op.Servers = nil
		}
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("router of %s: %w", name, err)
	}
	options := &openapi3filter.Options{
		// Security is the handlers' business, tested on its own; the
		// document only declares it.
		AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
		// A status the operation does not document is a failure.
		IncludeResponseStatus:             true,
		RejectWhenRequestBodyNotSpecified: true,
		SkipSettingDefaults:               true,
		MultiError:                        true,
		SchemaValidationOptions:           doc.GetSchemaValidationOptions(),
	}
	// One line per violation, instead of kin-openapi's dump of schema and value.
	options.WithCustomSchemaErrorFunc(schemaErrorMessage)
	return &Validator{name: name, doc: doc, router: router, options: options}, nil
}

func schemaErrorMessage(err *openapi3.SchemaError) string {
	// The JSON Schema 2020-12 validator (used for 3.1 documents) gives a
	// header line and then one line per violation, each with its location.
	if first, rest, ok := strings.Cut(err.Reason, "\n"); ok && strings.HasPrefix(first, "jsonschema validation failed") {
		return "\n" + rest
	}
	// The built-in validator, which kin-openapi still uses for schemas
	// without 2020-12 keywords, gives the reason alone.
	return fmt.Sprintf("at '/%s': %s", strings.Join(err.JSONPointer(), "/"), err.Reason)
}

func validateURI(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if !u.IsAbs() {
		return errors.New("not an absolute URI")
	}
	return nil
}

// Document returns the parsed document. Callers must not modify it.
func (v *Validator) Document() *openapi3.T { return v.doc }

// Check validates a real HTTP exchange against the document. It finds the
// operation of req by method and path (the host and scheme are ignored),
// validates the request (path and query parameters, headers, body reqBody;
// security requirements are not checked) and validates the response: status,
// headers and body respBody against the operation's responses. A status the
// operation does not document fails.
//
// A request the document rejects is a failure only when the response is a
// success (status below 400): handler tests send invalid requests on purpose
// and expect a 4xx, whose body is still validated.
//
// Failures are reported with t.Errorf; Check never stops the test.
func (v *Validator) Check(t testing.TB, req *http.Request, reqBody []byte, status int, header http.Header, respBody []byte) {
	t.Helper()
	ctx := context.Background()
	exchange := fmt.Sprintf("%s %s → %d", req.Method, req.URL.RequestURI(), status)

	r := req.Clone(ctx)
	r.Body = io.NopCloser(bytes.NewReader(reqBody))
	r.ContentLength = int64(len(reqBody))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(reqBody)), nil }
	if len(reqBody) == 0 {
		r.Body = http.NoBody
	}

	route, pathParams, err := v.router.FindRoute(r)
	if err != nil {
		t.Errorf("openapitest %s: %s: no operation in the document: %v", v.name, exchange, err)
		return
	}

	in := &openapi3filter.RequestValidationInput{
		Request:    r,
		PathParams: pathParams,
		Route:      route,
		Options:    v.options,
	}
	if err := openapi3filter.ValidateRequest(ctx, in); err != nil && status < 400 {
		t.Errorf("openapitest %s: %s (%s): the request does not match the document, yet the answer is a success:\n%s",
			v.name, exchange, route.Operation.OperationID, indent(err))
	}

	if header == nil {
		header = http.Header{}
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 status,
		Header:                 header,
		Options:                v.options,
	}
	out.SetBodyBytes(respBody)
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		t.Errorf("openapitest %s: %s (%s): the response does not match the document:\n%s\nbody: %s",
			v.name, exchange, route.Operation.OperationID, indent(err), truncate(respBody))
	}
}

// CheckResponse is Check for a response returned by an http.Client: it reads
// and closes resp.Body and returns the body bytes, so the caller can decode
// them afterwards. reqBody is the body that was sent with resp.Request.
func (v *Validator) CheckResponse(t testing.TB, resp *http.Response, reqBody []byte) []byte {
	t.Helper()
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("openapitest: read response body: %v", err)
	}
	v.Check(t, resp.Request, reqBody, resp.StatusCode, resp.Header, body)
	return body
}

func indent(err error) string {
	return "\t" + strings.ReplaceAll(err.Error(), "\n", "\n\t")
}

func truncate(b []byte) string {
	const max = 2000
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}
