package flip

import (
	"os"
	"testing"
)

func TestSmoke(t *testing.T) {
	name := os.Getenv("SC")
	if name == "" {
		name = "pool"
	}
	sets := []string{"flip.cell=0.05"}
	if e := os.Getenv("SETS"); e != "" {
		sets = append(sets, e)
	}
	s := newSolver(t, builtin(t, name), sets...)
	t.Logf("grid %v particles %d", s.g.n, len(s.x))
	for f := 0; f < 120; f++ {
		frames(t, s, 1)
		st := s.Stats()
		if f%10 == 9 {
			t.Logf("frame %d t=%.3f sub=%d vmax=%.4f ms=%.1f %v", f, st.Time, st.Substeps, st.MaxSpeed, st.StepMs, st.Figures)
		}
	}
}
