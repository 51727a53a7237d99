package pbf

import (
	"slices"
	"testing"
)

// A reset of the scene already settled takes the settled layer from the memo (the settling costs seconds at tens
// of thousands of particles) and starts exactly where the first did; another configuration settles again.
func TestResetReusesTheSettledLayer(t *testing.T) {
	s := New()
	if err := s.Params().Assign("pbf.particles=1500"); err != nil {
		t.Fatal(err)
	}
	sc := builtin(t, "pool")
	if err := s.Reset(sc); err != nil {
		t.Fatal(err)
	}
	first := slices.Clone(s.x)
	passes, _ := s.Settled()
	if passes == 0 {
		t.Fatal("the pool was not settled")
	}
	run(t, s, 2)
	if err := s.Reset(sc); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.x, first) {
		t.Fatal("a second reset of the same scene starts elsewhere than the first")
	}
	if p, _ := s.Settled(); p != passes {
		t.Errorf("the second reset reports %d passes, the first %d", p, passes)
	}
	// the memo is what the reset used: a mark in it shows up in the next reset of the same scene
	s.memo.out[0][0] += 0.001
	if err := s.Reset(sc); err != nil {
		t.Fatal(err)
	}
	if slices.Equal(s.x, first) {
		t.Error("the reset settled again instead of taking the memo's layer")
	}
	// another configuration is another layer
	if err := s.Params().Assign("pbf.iterations=2"); err != nil {
		t.Fatal(err)
	}
	if err := s.Reset(sc); err != nil {
		t.Fatal(err)
	}
	if slices.Equal(s.x, first) || s.memo.cfg.Iterations != 2 {
		t.Error("a reset with other iterations took the old settled layer")
	}
}
