// Package blast applies a scene's blasts (scene.Blast) to particles, for every particle mode: an impulse under
// the surface that throws water up, as in the underwater explosions of Figure 3.9 of the large-scale splashing
// liquids chapter (shared/papers/000 §3.4).
//
// A blast fires in the step from t0 to t1 when t0 ≤ Time < t1 (scene.Blast.Fires), so steps that tile time fire
// it exactly once however they straddle its time. Firing adds to every particle within Radius of Center the
// velocity Speed·(1 − r/Radius) along the direction from Center to the particle, r its distance from Center: a
// cone-shaped profile, Speed at the centre and nothing at the rim, so the fluid is not torn at the blast's edge.
// A particle exactly at Center has no direction away from it and is pushed along +y.
package blast

import (
	"math"
	"sync/atomic"

	"github.com/slosh/slosh/sim/par"
	"github.com/slosh/slosh/sim/scene"
)

// grain is the fewest particles a worker takes at a time.
const grain = 4096

// Apply fires every blast whose time is in [t0, t1) on the particles (positions and velocities in their first
// three components; the fourth is left alone) and returns how many particles it pushed (a particle inside two
// blasts counts once). Each particle takes the firing blasts in their order in the list; the result does not
// depend on the pool's workers.
func Apply(pool par.Pool, blasts []scene.Blast, t0, t1 float64, pos, vel [][4]float32) int {
	return ApplyFluid(pool, blasts, t0, t1, pos, vel, nil)
}

// ApplyFluid is Apply for solvers that keep rigid bodies' particles among the fluid's: particle i is left alone
// where body[i] ≥ 0. A nil body means every particle is fluid.
func ApplyFluid(pool par.Pool, blasts []scene.Blast, t0, t1 float64, pos, vel [][4]float32, body []int32) int {
	if len(pos) != len(vel) || (body != nil && len(body) != len(pos)) {
		panic("blast: pos, vel and body differ in length")
	}
	var firing []scene.Blast
	for _, b := range blasts {
		if b.Fires(t0, t1) && b.Radius > 0 {
			firing = append(firing, b)
		}
	}
	if len(firing) == 0 {
		return 0
	}
	var touched atomic.Int64
	pool.For(len(pos), grain, func(lo, hi int) {
		n := 0
		for i := lo; i < hi; i++ {
			if body != nil && body[i] >= 0 {
				continue
			}
			hit := false
			for k := range firing {
				if push(&firing[k], pos[i], &vel[i]) {
					hit = true
				}
			}
			if hit {
				n++
			}
		}
		touched.Add(int64(n))
	})
	return int(touched.Load())
}

// push adds blast b's velocity to v for a particle at p and reports whether p is inside the blast.
func push(b *scene.Blast, p [4]float32, v *[4]float32) bool {
	d := [3]float64{float64(p[0]) - b.Center[0], float64(p[1]) - b.Center[1], float64(p[2]) - b.Center[2]}
	r := math.Sqrt(d[0]*d[0] + d[1]*d[1] + d[2]*d[2])
	if !(r < b.Radius) {
		return false
	}
	s := b.Speed * (1 - r/b.Radius)
	if r == 0 {
		v[1] += float32(s)
		return true
	}
	for c := 0; c < 3; c++ {
		v[c] += float32(s * d[c] / r)
	}
	return true
}
