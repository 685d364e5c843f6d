package journal

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

func TestAppendReplayAcrossReopen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sandbox.db")
	j, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 21, 10, 0, 0, 123456000, time.UTC)
	for i, kind := range []string{"set_balance", "withdrawal", "deposit"} {
		seq, err := j.Append(ctx, at.Add(time.Duration(i)*time.Second), kind, []byte(`{"n":`+string(rune('1'+i))+`}`))
		if err != nil {
			t.Fatal(err)
		}
		if seq != int64(i+1) {
			t.Fatalf("seq = %d, want %d", seq, i+1)
		}
	}
	if _, err := j.Append(ctx, at, "bad", []byte(`{`)); err == nil {
		t.Fatal("Append accepted invalid JSON")
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	j, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var got []Record
	if err := j.Replay(ctx, func(r Record) error { got = append(got, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("replayed %d records, want 3", len(got))
	}
	if got[1].Kind != "withdrawal" || string(got[1].Data) != `{"n":2}` || !got[1].Time.Equal(at.Add(time.Second)) || got[1].Seq != 2 {
		t.Fatalf("record 2 = %+v", got[1])
	}

	stop := errors.New("stop")
	n := 0
	err = j.Replay(ctx, func(r Record) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Fatalf("Replay after an apply error: err %v after %d calls", err, n)
	}
}
