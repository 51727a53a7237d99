package flip

import (
	"testing"
)

func TestDiag3(t *testing.T) {
	s := newSolver(t, builtin(t, "pool"), "flip.cell=0.05", "flip.jitter=0")
	dt := 1.0 / 120
	s.sortParticles()
	s.rasterise()
	s.normalise()
	s.predictBodies(dt)
	s.updateSolids(s.time)
	s.classify()
	n := s.g.n
	for _, j := range []int{0, 3, 5} {
		for k := 0; k < n[2]; k++ {
			c := 6 + n[0]*(j+n[1]*k)
			dz := s.g.dims(2)
			fz := 6 + dz[0]*(j+dz[1]*k)
			dy := s.g.dims(1)
			fy := 6 + dy[0]*(j+dy[1]*k)
			t.Logf("j=%d k=%2d rhoC %.1f rhoMax %.1f sys %v | zface V %.3f rho %.1f | yface V %.3f rho %.1f", j, k, s.rhoC[c], s.rhoMax[c], s.sys[c], 1-s.sol.face[2][fz], s.rhoF[2][fz], 1-s.sol.face[1][fy], s.rhoF[1][fy])
		}
	}
}
