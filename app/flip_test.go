package app

import (
	"io"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/flip"
	"github.com/slosh/slosh/sim/param"
)

// The A/B view's first use: the same dam break under unilateral and classic incompressibility, from one state.
// Right after the split both are bit-identical; a frame later they differ; with B's pressure set to A's they stay
// identical.
func TestFlipABUnilateralAgainstClassic(t *testing.T) {
	checkABSplit(t, Options{Scene: "dambreak", Mode: flip.Name, Particles: 3000}, 8, flip.New().Params(), "flip.pressure", "incompressible", "unilateral")
}

// checkABSplit runs o for warm frames, splits it into an A/B pair with name=other (and then name=same, A's own
// value): right after the split A and B are bit-identical; 3 frames later they differ with other and stay
// identical with same.
func checkABSplit(t *testing.T, o Options, warm int, params *param.Set, name, other, same string) {
	t.Helper()
	modes := Modes()
	var fa, fb sim.Frame
	for _, tc := range []struct {
		value  string
		differ bool
	}{{other, true}, {same, false}} {
		oc := o
		st, err := prepare(modes, &oc)
		if err != nil {
			t.Fatal(err)
		}
		ss, err := openSession(modes, st, glInfo{}, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		for f := 0; f < warm; f++ {
			if _, err := ss.frame(nil); err != nil {
				t.Fatal(err)
			}
		}
		spec, err := parseAB(params, name+"="+tc.value)
		if err != nil {
			t.Fatal(err)
		}
		if err := ss.startAB(spec, io.Discard); err != nil {
			t.Fatal(err)
		}
		p := ss.solver.(abPair).pairOf()
		p.Frame(&fa)
		p.TwinFrame(&fb)
		if same, i := sameFrames(&fa, &fb); !same {
			t.Fatalf("B = %s: A and B differ right after the split (particle %d)", tc.value, i)
		}
		for f := 0; f < 3; f++ {
			if _, _, err := abFrame(p, nil, nil); err != nil {
				t.Fatal(err)
			}
		}
		p.Frame(&fa)
		p.TwinFrame(&fb)
		if same, _ := sameFrames(&fa, &fb); same == tc.differ {
			t.Errorf("B = %s: after 3 frames A and B bit-identical %v, want %v", tc.value, same, !tc.differ)
		}
		ss.Close()
	}
}
