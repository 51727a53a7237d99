package simtest

import (
	"testing"

	"github.com/slosh/slosh/sim/scene"
)

// SpheresInFluid lays out a scene's fluid with solid spheres dropped into it, as a reset with rigid bodies wants
// them: the fluid is the scene's sampled at the spacing, less the particles a sphere covers (within half a spacing
// of it: a body displaces the fluid it is placed in), and each sphere is the points of the domain's lattice (cell
// centres at the spacing, from the domain's minimum corner) inside it, so a body particle stands for the same
// volume as a fluid particle. Velocities are zero. bodies[k] holds sphere k's points.
func SpheresInFluid(t testing.TB, sc *scene.Scene, spacing float64, spheres []scene.Shape) (pos, vel [][4]float32, bodies [][][4]float32) {
	t.Helper()
	ps, err := sc.Sample(spacing)
	if err != nil {
		t.Fatal(err)
	}
	covered := func(p scene.Vec3) bool {
		for _, sp := range spheres {
			if d, _ := sp.SDF(p); d < 0.5*spacing {
				return true
			}
		}
		return false
	}
	for _, p := range ps {
		if covered(p.Pos) {
			continue
		}
		pos = append(pos, [4]float32{float32(p.Pos[0]), float32(p.Pos[1]), float32(p.Pos[2])})
		vel = append(vel, [4]float32{})
	}
	lo, hi := sc.Domain.Min, sc.Domain.Max
	for _, sp := range spheres {
		var body [][4]float32
		for k := 0; ; k++ {
			z := lo[2] + (float64(k)+0.5)*spacing
			if z > hi[2] {
				break
			}
			for j := 0; ; j++ {
				y := lo[1] + (float64(j)+0.5)*spacing
				if y > hi[1] {
					break
				}
				for i := 0; ; i++ {
					x := lo[0] + (float64(i)+0.5)*spacing
					if x > hi[0] {
						break
					}
					if d, _ := sp.SDF(scene.Vec3{x, y, z}); d < 0 {
						body = append(body, [4]float32{float32(x), float32(y), float32(z)})
					}
				}
			}
		}
		if len(body) == 0 {
			t.Fatalf("a sphere of radius %g m at %v holds no lattice point at spacing %g m", sp.Radius, sp.Center, spacing)
		}
		bodies = append(bodies, body)
	}
	return pos, vel, bodies
}
