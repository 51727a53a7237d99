package flip

import (
	"testing"

	"github.com/slosh/slosh/sim/simtest"
)

func TestDiag6(t *testing.T) {
	sc := simtest.Parse(t, `{
  "name": "float", "domain": {"min": [0, 0, 0], "max": [0.8, 0.6, 0.8]},
  "particles": {"spacing": 0.025},
  "fluid": [{"shape": "box", "center": [0.4, 0.15, 0.4], "size": [0.8, 0.3, 0.8]}],
  "bodies": [{"shape": "box", "center": [0.4, 0.33, 0.4], "size": [0.4, 0.1, 0.4], "density": 500}]
}`)
	s := newSolver(t, sc, "flip.cell=0.05")
	frames(t, s, 60)
	h3 := s.g.h * s.g.h * s.g.h
	for step := 0; step < 3; step++ {
		if err := s.Step(1.0 / 120); err != nil {
			t.Fatal(err)
		}
		b := &s.bodies[0]
		var fy float64
		for r, c := range b.cells {
			fy += b.rows[r][1] * s.p[c]
		}
		fy *= h3
		t.Logf("c=%.4f v=%.4f Fy=%.2f weight=%.2f rows=%d", b.c[1], b.v[1], fy, b.mass*9.81, len(b.cells))
		// column at i=8,k=8 (x=0.425,z=0.425)
		n := s.g.n
		for j := 2; j < 8; j++ {
			c := 8 + n[0]*(j+n[1]*8)
			t.Logf("  j=%d y=%.3f sys=%v rhoC=%.0f rhoMax=%.0f p=%.1f", j, (float64(j)+0.5)*0.05, s.sys[c], s.rhoC[c], s.rhoMax[c], s.p[c])
		}
	}
}
