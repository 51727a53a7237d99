package flip

import (
	"os"
	"testing"
)

func TestDiag5(t *testing.T) {
	sets := []string{"flip.cell=0.05"}
	if e := os.Getenv("SETS"); e != "" {
		sets = append(sets, e)
	}
	s := newSolver(t, builtin(t, "pool"), sets...)
	t.Logf("start level %.4f", level(s, 2, 2))
	for f := 0; f < 60; f++ {
		frames(t, s, 1)
		if f%10 == 9 {
			var m float64
			for _, x := range s.cellMass {
				m += x
			}
			full := 0
			for c := range s.sys {
				if s.sys[c] && s.rhoC[c] >= s.rhoMax[c]*0.999 {
					full++
				}
			}
			t.Logf("f%d level %.4f gridmass %.2f partmass %.2f cells %d full %d", f, level(s, 2, 2), m, s.mass*float64(len(s.x)), s.last.cells, full)
		}
	}
}
