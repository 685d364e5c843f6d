package jobqueue

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// A settlement's deposit jobs hold one operator's bets each, depositBatch
// at most, in the order the bets came.
func TestDepositJobs(t *testing.T) {
	t.Parallel()
	var operators, bets []string
	for i := range depositBatch + 3 {
		operators, bets = append(operators, "a"), append(bets, fmt.Sprint("a", i))
		if i%100 == 0 {
			operators, bets = append(operators, "b"), append(bets, fmt.Sprint("b", i))
		}
	}
	var got []string
	for _, j := range DepositJobs(operators, bets) {
		args := j.Args.(BetDepositArgs)
		got = append(got, fmt.Sprintf("%s:%d:%s", args.OperatorID, len(args.BetIDs), args.BetIDs[0]))
		for _, id := range args.BetIDs {
			if id[:1] != args.OperatorID {
				t.Errorf("bet %s in a job of operator %s", id, args.OperatorID)
			}
		}
	}
	want := fmt.Sprint([]string{fmt.Sprintf("a:%d:a0", depositBatch), "a:3:a" + fmt.Sprint(depositBatch), "b:6:b0"})
	if fmt.Sprint(got) != want {
		t.Errorf("jobs %v, want %v", got, want)
	}
}

// An operator's turns are taken up to the gate's number; one more waits,
// then is refused (the job steps aside) or gets the turn given back, while
// another operator's turns are free.
func TestOperatorGate(t *testing.T) {
	t.Parallel()
	g := newOperatorGate(2)
	ctx := context.Background()
	var leaves []func()
	for range 2 {
		leave, err := g.enter(ctx, "slow", time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		leaves = append(leaves, leave)
	}
	if _, err := g.enter(ctx, "slow", time.Millisecond); !errors.Is(err, errGateBusy) {
		t.Errorf("a third turn of slow = %v, want errGateBusy", err)
	}
	leave, err := g.enter(ctx, "other", time.Millisecond)
	if err != nil {
		t.Errorf("a turn of another operator = %v", err)
	} else {
		leave()
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := g.enter(cancelled, "slow", time.Minute); !errors.Is(err, context.Canceled) {
		t.Errorf("a turn waited for with a cancelled context = %v", err)
	}
	given := make(chan error, 1)
	go func() {
		_, err := g.enter(ctx, "slow", time.Minute)
		given <- err
	}()
	leaves[0]()
	if err := <-given; err != nil {
		t.Errorf("a turn given back to a waiting job = %v", err)
	}
}
