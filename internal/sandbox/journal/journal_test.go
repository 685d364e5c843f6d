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

func TestAppendValueKeepsStampedTime(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	j, err := Open(ctx, filepath.Join(t.TempDir(), "sandbox.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	at := time.Date(2026, 11, 21, 10, 0, 0, 123456789, time.FixedZone("CET", 3600))
	if _, err := j.AppendValue(ctx, at, "credit", struct {
		Amount string `json:"amount"`
	}{"10.50"}); err != nil {
		t.Fatal(err)
	}
	if _, err := j.AppendValue(ctx, at, "bad", func() {}); err == nil {
		t.Fatal("AppendValue accepted a value JSON cannot encode")
	}
	var got []Record
	if err := j.Replay(ctx, func(r Record) error { got = append(got, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || string(got[0].Data) != `{"amount":"10.50"}` {
		t.Fatalf("records %+v", got)
	}
	if want := Stamp(at); !got[0].Time.Equal(want) || got[0].Time.Location() != time.UTC || want.Nanosecond() != 123456000 {
		t.Fatalf("replayed time %v, want %v (UTC, whole microseconds)", got[0].Time, want)
	}
}
