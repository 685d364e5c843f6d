package journal

import (
	"bytes"
	"encoding/json"
)

// The kinds of the records that set a sandbox up, the same in both
// sandboxes' journals.
const (
	KindConfig = "config"
	KindSecret = "signing_secret"
)

// Setup is what a sandbox's journal records besides its operations: the
// configuration that decides how later records apply, recorded whenever
// the one given differs from the last one recorded (so a replay applies
// every record under the configuration it was made under), and the
// signing secret, the one given or else one generated once and recorded.
// C is the sandbox's configuration record, kept as JSON. A Setup is not
// safe for concurrent use, but Secret may be read at any time once the
// journal is open.
type Setup[C any] struct {
	given  C
	last   *C
	secret []byte
	// givenSecret is set when the secret was given: a recorded one is
	// then ignored.
	givenSecret bool
}

// NewSetup returns the setup of a sandbox given the configuration given
// and the signing secret secret ("": the recorded one, or a new one).
func NewSetup[C any](given C, secret string) *Setup[C] {
	return &Setup[C]{given: given, secret: []byte(secret), givenSecret: secret != ""}
}

// Secret is the signing secret: the one given, else the one recorded.
func (s *Setup[C]) Secret() []byte { return s.secret }

// Apply applies r when it is a setup record (KindConfig, through apply;
// KindSecret) and reports whether it was one.
func (s *Setup[C]) Apply(r Record, apply func(C) error) (bool, error) {
	switch r.Kind {
	case KindConfig:
		var c C
		if err := json.Unmarshal(r.Data, &c); err != nil {
			return true, err
		}
		if err := apply(c); err != nil {
			return true, err
		}
		s.last = &c
		return true, nil
	case KindSecret:
		var rec secretRecord
		if err := json.Unmarshal(r.Data, &rec); err != nil {
			return true, err
		}
		if !s.givenSecret {
			s.secret = []byte(rec.Secret)
		}
		return true, nil
	}
	return false, nil
}

type secretRecord struct {
	Secret string `json:"secret"`
}

// Lacking is what the replayed journal lacks of the setup: the given
// configuration when it differs from the last one recorded, and a secret
// made by newSecret when there is none.
func (s *Setup[C]) Lacking(newSecret func() string) []Lacking {
	var out []Lacking
	if s.last == nil || !sameJSON(*s.last, s.given) {
		out = append(out, Lacking{Kind: KindConfig, Value: s.given})
	}
	if len(s.secret) == 0 {
		out = append(out, Lacking{Kind: KindSecret, Value: secretRecord{Secret: newSecret()}})
	}
	return out
}

// Reloaded takes the configuration recorded last from from, the setup of
// a fresh replay of the same journal. The secret is kept: it never
// changes once the journal is open.
func (s *Setup[C]) Reloaded(from *Setup[C]) { s.last = from.last }

func sameJSON(a, b any) bool {
	x, errA := json.Marshal(a)
	y, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(x, y)
}
