package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
)

// TestPausePlacement: on both engines (a dispatcher in the process on
// SQLite, River's bets queue on PostgreSQL) a bet accepted while placement
// is paused stays pending, and is placed once placement resumes.
// PausePlacement returns once this process has taken the pause, so the bet
// is placed at once after it.
func TestPausePlacement(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		bw := newBettingWorld(t, db)
		ctx := context.Background()
		if err := bw.srv.PausePlacement(ctx); err != nil {
			t.Fatal(err)
		}
		token := bw.bettor("paula", "100.00")
		a := bw.place(token, uuid.NewString(), bw.outcome[0], "5")
		if a.status != 202 {
			t.Fatalf("place = %d %s", a.status, a.body)
		}
		id := a.json(t)["id"].(string)
		for range 5 {
			if bet := bw.api("GET", "/api/v1/bettor/bets/"+id, token, "").json(t); bet["status"] != "pending" {
				t.Fatalf("bet %v while placement is paused", bet["status"])
			}
			time.Sleep(40 * time.Millisecond) // a window in which a running placement would decide the bet
		}
		if err := bw.srv.ResumePlacement(ctx); err != nil {
			t.Fatal(err)
		}
		if bet := bw.settled(token, id); bet["status"] != "confirmed" {
			t.Errorf("bet %v after placement resumed, want confirmed", bet["status"])
		}
	})
}
