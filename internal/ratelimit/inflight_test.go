package ratelimit

import "testing"

func TestInFlight(t *testing.T) {
	t.Parallel()
	f := NewInFlight[string](2)
	r1, ok1 := f.Take("a")
	r2, ok2 := f.Take("a")
	if !ok1 || !ok2 {
		t.Fatal("the first two requests of a key refused")
	}
	if _, ok := f.Take("a"); ok {
		t.Fatal("a third request of a key with two in progress accepted")
	}
	if n := f.open["a"]; n != 2 {
		t.Fatalf("refused request counted: %d in progress, want 2", n)
	}
	rb, ok := f.Take("b")
	if !ok {
		t.Fatal("another key refused while the first is at its bound")
	}
	rb()
	r1()
	r3, ok := f.Take("a")
	if !ok {
		t.Fatal("a request refused after one of the two ended")
	}
	r2()
	r3()
	if n := f.open["a"]; n != 0 || len(f.open) != 0 {
		t.Fatalf("after every request ended: %d in progress, %d keys kept", n, len(f.open))
	}
}

func TestInFlightUnbounded(t *testing.T) {
	t.Parallel()
	f := NewInFlight[int](0)
	for range 100 {
		if _, ok := f.Take(1); !ok {
			t.Fatal("a max of 0 refused a request")
		}
	}
	if n := f.open[1]; n != 0 {
		t.Fatalf("a max of 0 counted %d requests", n)
	}
}
