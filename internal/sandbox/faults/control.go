package faults

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/foresight-dev/foresight/internal/sandbox/malformed"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxweb"
)

// Arm arms the fault a control API form describes ({subject field?,
// endpoint, kind, count?, status?, code field?, shape?, delay?}) and says
// what the next requests will do, or what is wrong with the form.
func (t *Table) Arm(f map[string]string) (string, error) {
	p := t.p
	subject, endpoint, kind := f[p.SubjectField], f["endpoint"], f["kind"]
	if extra, isExtra := t.extra(kind); isExtra && endpoint == "" {
		endpoint = extra.Endpoint
	}
	if !slices.Contains(p.Endpoints, endpoint) {
		return "", fmt.Errorf("endpoint %q must be %s", endpoint, orList(p.Endpoints))
	}
	if subject != "" {
		if err := sandboxweb.CheckID(p.SubjectField, subject); err != nil {
			return "", err
		}
	}
	n, err := sandboxweb.Count(f, "count", 1)
	if err != nil {
		return "", err
	}
	sc, scope := t.Every(), "every "+p.Subject
	if subject != "" {
		sc, scope = t.Only("Arm", subject), p.Subject+" "+subject
	}
	what, err := sc.armKind(f, kind, endpoint, n)
	if err != nil {
		return "", err
	}
	if n == 0 {
		return fmt.Sprintf("%s faults of %s disarmed for %s", kind, endpoint, scope), nil
	}
	return fmt.Sprintf("the next %d %s requests of %s will %s", n, endpoint, scope, what), nil
}

// armKind arms fault kind for the next n requests of endpoint in s, with the
// settings of form f that kind takes (status, code field, shape, delay),
// and says what those requests will do. Its error says what is wrong
// with the form; nothing is armed then.
func (s *Scope) armKind(f map[string]string, kind, endpoint string, n int) (what string, err error) {
	p := s.t.p
	switch kind {
	case KindFail:
		status, err := sandboxweb.Count(f, "status", http.StatusServiceUnavailable)
		if err != nil || status < p.MinFailStatus || status > 599 {
			return "", fmt.Errorf("status must be an HTTP status from %d to 599", p.MinFailStatus)
		}
		s.FailNext(endpoint, n, status)
		return fmt.Sprintf("answer %d injected_failure", status), nil
	case KindReject, KindRefuseRetry:
		code := cmp.Or(f[p.CodeField], p.DefaultCode)
		if slices.Contains(p.Unrefusable, endpoint) {
			return "", fmt.Errorf("the %s endpoint has no refusals to inject: use kind fail", endpoint)
		}
		if err := sandboxweb.CheckID(p.CodeField, code); err != nil {
			return "", err
		}
		if kind == KindReject {
			s.RejectNext(endpoint, n, code)
			return p.DescribeRefusal(code) + " (a retry of a transaction already answered gets its first answer)", nil
		}
		s.RefuseRetryNext(endpoint, n, code)
		return p.DescribeRefusal(code) + " to a retry of a transaction already answered, instead of its first answer (a non-conforming wallet)", nil
	case KindMalformed:
		shape := cmp.Or(f["shape"], malformed.HTML)
		if err := malformed.Check(shape); err != nil {
			return "", err
		}
		s.MalformedNext(endpoint, n, shape)
		return "get a 200 with a " + shape + " body, unprocessed", nil
	case KindDelay:
		d, err := sandboxweb.Duration(f, "delay", 2*time.Second)
		if err != nil {
			return "", err
		}
		s.DelayNext(endpoint, n, d)
		return "wait " + d.String() + " before processing", nil
	case KindStall:
		s.StallNext(endpoint, n)
		return "hang unprocessed until the client gives up", nil
	case KindDrop:
		s.DropResponseNext(endpoint, n)
		return "be processed, then get no answer", nil
	}
	extra, isExtra := s.t.extra(kind)
	if !isExtra {
		return "", fmt.Errorf("kind %q must be %s", kind, orList(s.t.kinds()))
	}
	if endpoint != extra.Endpoint {
		return "", fmt.Errorf("%s applies to %s only", kind, extra.Endpoint)
	}
	s.ArmExtra(kind, n)
	return extra.Describe, nil
}

func (t *Table) kinds() []string {
	out := []string{KindFail, KindReject, KindRefuseRetry, KindMalformed, KindDelay, KindStall, KindDrop}
	for _, e := range t.p.Extras {
		out = append(out, e.Kind)
	}
	return out
}

// Handler is the control API's POST /sandbox/api/faults: it arms the fault
// the form describes (Arm) and answers the armed faults, or 400
// invalid_request.
func (t *Table) Handler(w http.ResponseWriter, r *http.Request, f map[string]string) {
	msg, err := t.Arm(f)
	if err != nil {
		sandboxweb.Fail(w, r, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	sandboxweb.Done(w, r, msg, map[string]any{"faults": t.Armed()})
}

// ClearHandler is the control API's POST /sandbox/api/faults/clear.
func (t *Table) ClearHandler(w http.ResponseWriter, r *http.Request, _ map[string]string) {
	t.Clear()
	sandboxweb.Done(w, r, "every fault disarmed", nil)
}

// DropConnection closes the connection without writing an answer.
func DropConnection(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		// HTTP/2 or a wrapper that cannot hijack: abort the stream, which
		// the server answers with a reset and no response.
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}

func jsonMarshal(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, errors.New("faults: encode an armed fault: " + err.Error())
	}
	return b, nil
}
