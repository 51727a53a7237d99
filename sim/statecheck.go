package sim

import (
	"fmt"
	"math"

	"github.com/slosh/slosh/sim/grid"
	"github.com/slosh/slosh/sim/scene"
)

// The checks every particle mode's saved states share: a state file comes from a stranger, and a state of another
// scene or a damaged one must be refused with a message instead of exploding (or never ending) on the first step.

// MaxStateSpeed bounds the speed of a particle or a driven body in a state, m/s: a hundred times what the scene
// lets emitters and moving obstacles reach (scene.MaxSpeed).
const MaxStateSpeed = 100 * scene.MaxSpeed

// maxPacked is the most particles a cube two spacings wide may hold: a fluid at rest holds 8, and a compressed
// one a few more; 64 is eight times the rest density.
const maxPacked = 64

// CheckParticles checks a state's particle arrays: as many velocities and ids as positions, ids a permutation of
// 0..N−1, every value finite.
func CheckParticles(pos, vel [][4]float32, id []uint32) error {
	n := len(pos)
	if len(vel) != n || len(id) != n {
		return fmt.Errorf("%d positions but %d velocities and %d ids", n, len(vel), len(id))
	}
	seen := make([]bool, n)
	for i, k := range id {
		if int(k) >= n || seen[k] {
			return fmt.Errorf("particle %d has id %d: ids must be 0..%d, each once", i, k, n-1)
		}
		seen[k] = true
		for a := 0; a < 3; a++ {
			if !finite32(pos[i][a]) || !finite32(vel[i][a]) {
				return fmt.Errorf("particle %d (id %d) has a non-finite position or velocity", i, k)
			}
		}
	}
	return nil
}

// CheckPlacement checks that a state's particles fit a scene at particle spacing d: inside its domain (with a margin
// of two spacings and 1 % of its size), no faster than MaxStateSpeed, and no more tightly packed than a fluid at
// that spacing can be (counted in cubes two spacings wide; a spacing too fine for the domain to count is refused).
func CheckPlacement(pos, vel [][4]float32, id []uint32, sc *scene.Scene, d float64) error {
	dom := sc.Domain
	size := dom.Size().MaxComp()
	margin := min(2*d, size) + 0.01*size
	where := fmt.Sprintf("the scene %q's domain %v–%v (with a margin of %.3g m): the state belongs to another scene", sc.Name, dom.Min, dom.Max, margin)
	for i := range pos {
		p := pos[i]
		if Outside([3]float32{p[0], p[1], p[2]}, dom, margin) {
			return fmt.Errorf("particle %d (id %d) at (%.6g, %.6g, %.6g) lies outside %s", i, id[i], p[0], p[1], p[2], where)
		}
		if sp := Speed(vel[i]); sp > MaxStateSpeed {
			return fmt.Errorf("particle %d (id %d) moves at %.3g m/s; at most %g m/s", i, id[i], sp, float64(MaxStateSpeed))
		}
	}
	return checkPacking(pos, dom, d)
}

// Outside says whether p lies more than margin outside the box.
func Outside(p [3]float32, dom scene.Box, margin float64) bool {
	for k := 0; k < 3; k++ {
		if x := float64(p[k]); !(x >= dom.Min[k]-margin && x <= dom.Max[k]+margin) {
			return true
		}
	}
	return false
}

// Speed is the length of a velocity's xyz.
func Speed(v [4]float32) float64 {
	return math.Sqrt(float64(v[0])*float64(v[0]) + float64(v[1])*float64(v[1]) + float64(v[2])*float64(v[2]))
}

// checkPacking refuses particles that sit more densely than a fluid at spacing d can, which a solver would answer
// with errors of thousands of percent (or, for particles on top of each other, a neighbour search that never
// ends).
func checkPacking(pos [][4]float32, dom scene.Box, d float64) error {
	if len(pos) <= maxPacked {
		return nil
	}
	cell := 2 * d
	lo := [3]float32{float32(dom.Min[0]), float32(dom.Min[1]), float32(dom.Min[2])}
	hi := [3]float32{float32(dom.Max[0]), float32(dom.Max[1]), float32(dom.Max[2])}
	dims, err := grid.Dims(lo, hi, float32(cell))
	if err != nil {
		return fmt.Errorf("the state's particle spacing %g m is too fine for the scene's domain %v–%v (%v): the state belongs to another scene", d, dom.Min, dom.Max, err)
	}
	count := make([]uint8, int(dims[0])*int(dims[1])*int(dims[2]))
	coord := func(x float32, k int) int {
		c := int(math.Floor((float64(x) - dom.Min[k]) / cell))
		return min(max(c, 0), int(dims[k])-1)
	}
	for i, p := range pos {
		c := coord(p[0], 0) + int(dims[0])*(coord(p[1], 1)+int(dims[1])*coord(p[2], 2))
		if count[c]++; count[c] > maxPacked {
			return fmt.Errorf("more than %d particles lie in one %.3g m cube (around particle %d at (%.6g, %.6g, %.6g)), over %d times the density of a fluid at the state's spacing %g m: its particles are packed for another spacing or another scene",
				maxPacked, cell, i, p[0], p[1], p[2], maxPacked/8, d)
		}
	}
	return nil
}

func finite32(x float32) bool { return !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0) }
