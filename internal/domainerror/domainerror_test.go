package domainerror_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/foresight-dev/foresight/internal/domainerror"
)

type code string

type otherCode string

func TestErrorTextAndCause(t *testing.T) {
	t.Parallel()
	cause := errors.New("disk full")
	e := &domainerror.Error[code]{Code: "storage", Message: "Cannot save.", Err: cause}
	if got := e.Error(); got != "storage: Cannot save.: disk full" {
		t.Errorf("Error() = %q", got)
	}
	if !errors.Is(e, cause) {
		t.Error("the cause is not reached by errors.Is")
	}
	if got := domainerror.Errorf(code("invalid"), "no %s", "name").Error(); got != "invalid: no name" {
		t.Errorf("Errorf(...).Error() = %q", got)
	}
}

func TestCodeAndMessageOf(t *testing.T) {
	t.Parallel()
	wrapped := fmt.Errorf("saving: %w", domainerror.Errorf(code("conflict"), "Taken."))
	foreign := domainerror.Errorf(otherCode("conflict"), "Taken elsewhere.")
	for _, c := range []struct {
		name    string
		err     error
		code    code
		message string
	}{
		{"nil", nil, "", "Internal error."},
		{"wrapped", wrapped, "conflict", "Taken."},
		{"plain", errors.New("boom"), "internal", "Internal error."},
		{"another vocabulary", foreign, "internal", "Internal error."},
	} {
		if got := domainerror.CodeOf(c.err, code("internal")); got != c.code {
			t.Errorf("%s: CodeOf = %q, want %q", c.name, got, c.code)
		}
		if got := domainerror.MessageOf[code](c.err); got != c.message {
			t.Errorf("%s: MessageOf = %q, want %q", c.name, got, c.message)
		}
	}
}
