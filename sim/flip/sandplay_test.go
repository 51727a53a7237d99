package flip

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

// sandBed is a bed of sand 8 cm deep with a ball of the density given dropped onto it from 2 cm above.
func sandBed(t testing.TB, density float64) *Solver {
	t.Helper()
	src := fmt.Sprintf(`{"name": "bed", "domain": {"min": [0, 0, 0], "max": [0.4, 0.3, 0.4]}, "particles": {"spacing": 0.01},
		"materials": [%s],
		"fluid": [{"shape": "box", "center": [0.2, 0.04, 0.2], "size": [0.4, 0.08, 0.4], "material": "sand"}],
		"bodies": [{"shape": "sphere", "center": [0.2, 0.14, 0.2], "radius": 0.04, "density": %g}]}`, drySand, density)
	sc, err := scene.Parse([]byte(src), "bed.json")
	if err != nil {
		t.Fatal(err)
	}
	return newSolver(t, sc, "flip.cell=0.02")
}

// Bodies meet sand by density as they meet water, through the one pressure solve, and the sand's friction holds
// them up a little: a ball of 500 kg/m³ dropped on a bed of sand (1600 kg/m³, 8 cm deep) rests higher than a liquid
// of the sand's density would float it (Archimedes: the sphere's bottom 3.0 cm under the surface, at 5.0 cm;
// measured 5.8 cm, and 5.1 cm in frictionless sand, φ = 0 and μ = 0), and one of 8000 kg/m³ sinks into it (its bottom at least two cells below the top; measured on
// the floor).
func TestBallsRestOnSandOrSink(t *testing.T) {
	bottom := func(density float64) float64 {
		s := sandBed(t, density)
		frames(t, s, 90)
		return s.bodies[0].C[1] - 0.04
	}
	light, heavy := bottom(500), bottom(8000)
	t.Logf("the ball's bottom after 1.5 s: 500 kg/m³ at %.3f m, 8000 kg/m³ at %.3f m (the bed's top at 0.08 m)", light, heavy)
	if light < 0.053 || heavy > 0.08-0.04 {
		t.Fatalf("the ball's bottom: light %.3f m (want above 0.053, where a liquid would float it at 0.050), heavy %.3f m (want below 0.04)", light, heavy)
	}
}

// Sand and water in one tank are one mixture on the grid (sand.go): a block of sand dropped into a pool goes to
// the bottom, under the water — the sand's mean height ends below the water's, and below half the pool's depth.
func TestSandSinksInWater(t *testing.T) {
	src := `{"name": "drop", "domain": {"min": [0, 0, 0], "max": [0.4, 0.4, 0.2]}, "particles": {"spacing": 0.01},
		"materials": [` + drySand + `],
		"fluid": [{"shape": "box", "center": [0.2, 0.08, 0.1], "size": [0.4, 0.16, 0.2]},
			{"shape": "box", "center": [0.2, 0.26, 0.1], "size": [0.12, 0.08, 0.12], "material": "sand"}]}`
	sc, err := scene.Parse([]byte(src), "drop.json")
	if err != nil {
		t.Fatal(err)
	}
	s := newSolver(t, sc, "flip.cell=0.02")
	frames(t, s, 120)
	var ys, yw float64
	var ns, nw int
	for i := range s.x {
		if s.grains[s.material[i]] {
			ys += float64(s.x[i][1])
			ns++
		} else {
			yw += float64(s.x[i][1])
			nw++
		}
	}
	ys, yw = ys/float64(ns), yw/float64(nw)
	t.Logf("mean heights after 2 s: sand %.3f m, water %.3f m", ys, yw)
	if ys > yw || ys > 0.1 {
		t.Fatalf("mean heights after 2 s: sand %.3f m, water %.3f m: the sand should lie under the water", ys, yw)
	}
}

// A sitting with sand, a ball, the pour tool pouring sand and the paddle continues bit for bit from a saved
// state, as the straight run does.
func TestSandStateContinuesBitForBit(t *testing.T) {
	run := func(s *Solver, n int) {
		for f := 0; f < n; f++ {
			k := s.BeginFrame(sim.FrameDt)
			for i := 0; i < k; i++ {
				if err := s.Step(sim.FrameDt / float64(k)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	tools := sim.Tools{
		Paddle:  &sim.Paddle{Center: [3]float32{0.1, 0.05, 0.2}, Radius: 0.04},
		Emitter: &scene.Emitter{Center: scene.Vec3{0.3, 0.25, 0.2}, Direction: scene.Vec3{0, -1, 0}, Radius: 0.02, Speed: 1, Material: "sand"},
	}
	a := sandBed(t, 3000)
	a.SetTools(tools)
	run(a, 20)
	var buf bytes.Buffer
	if err := a.WriteState(&buf); err != nil {
		t.Fatal(err)
	}
	b := sandBed(t, 3000)
	b.SetTools(tools)
	if err := b.ReadState(bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	poured := 0
	for i := range a.x {
		if a.grains[a.material[i]] && a.x[i][1] > 0.12 {
			poured++
		}
	}
	if poured == 0 {
		t.Fatal("the pour tool poured no sand")
	}
	sameState(t, a, b, "after the load")
	run(a, 8)
	run(b, 8)
	sameState(t, a, b, "8 frames after the load")
}

// footprint is the 95th percentile of the particles' horizontal distance from (cx, cz).
func footprint(s *Solver, cx, cz float64) float64 {
	r := make([]float64, len(s.x))
	for i := range s.x {
		r[i] = math.Hypot(float64(s.x[i][0])-cx, float64(s.x[i][2])-cz)
	}
	sort.Float64s(r)
	return r[len(r)*95/100]
}

// Wall friction changes the sand bunny's slump (Zhu & Bridson's Figures 1–2: on a smooth floor it spreads far, on
// a rough one, μ = 0.6, it keeps to a heap). At 2.5 cm cells (6,525 grains) after 1 s, measured: the footprint's
// radius (95th percentile) grows from 0.17 m to 0.52 m at μ = 0 and to 0.26 m at μ = 0.6. The test wants the smooth
// floor's at least 1.4 times the rough floor's.
func TestWallFrictionShapesTheSandBunny(t *testing.T) {
	var r [2]float64
	var r0 float64
	for i, mu := range []string{"0", "0.6"} {
		s := newSolver(t, builtin(t, "sand-bunny"), "flip.cell=0.025", "flip.sand_wall_friction="+mu)
		r0 = footprint(s, 0.5, 0.4)
		frames(t, s, 60)
		r[i] = footprint(s, 0.5, 0.4)
	}
	t.Logf("the bunny's footprint (radius, 95th percentile): %.3f m at the start, after 1 s %.3f m at μ = 0 and %.3f m at μ = 0.6", r0, r[0], r[1])
	if r[0] < 1.4*r[1] {
		t.Fatalf("footprint after 1 s: μ = 0 %.3f m, μ = 0.6 %.3f m: want the smooth floor's at least 1.4 times the rough one's", r[0], r[1])
	}
}

// slidingBox is a box of 1000 kg/m³ (10 × 5 × 10 cm) launched at 1 m/s across a bed of sand 8 cm deep, at the
// sand's wall friction μ: its velocity along x after n frames.
func slidingBox(t *testing.T, mu string, n int) float64 {
	src := fmt.Sprintf(`{"name": "bed", "domain": {"min": [0, 0, 0], "max": [0.8, 0.3, 0.3]}, "particles": {"spacing": 0.01},
		"materials": [%s],
		"fluid": [{"shape": "box", "center": [0.4, 0.04, 0.15], "size": [0.8, 0.08, 0.3], "material": "sand"}],
		"bodies": [{"shape": "box", "center": [0.2, 0.105, 0.15], "size": [0.1, 0.05, 0.1], "density": 1000, "velocity": [1, 0, 0]}]}`, drySand)
	sc, err := scene.Parse([]byte(src), "bed.json")
	if err != nil {
		t.Fatal(err)
	}
	s := newSolver(t, sc, "flip.cell=0.02", "flip.sand_wall_friction="+mu)
	frames(t, s, n)
	return s.bodies[0].V[0]
}

// Coulomb friction (eq. 4) acts on the body too: a box sliding over sand loses the momentum its friction gives the
// sand. Measured after 1/3 s: 0.35 m/s on a frictionless bed (μ = 0: only the sand it ploughs slows it) and
// −0.05 m/s at μ = 0.6 (a block on a rough floor stops in v/(μg) = 0.17 s; this one floats part of its weight on
// the sand). Without the reaction the rough bed's box kept 0.21 m/s. The test wants μ = 0 above 0.25 m/s and
// μ = 0.6 within 0.1 m/s of rest.
func TestSandFrictionSlowsABody(t *testing.T) {
	smooth, rough := slidingBox(t, "0", 20), slidingBox(t, "0.6", 20)
	t.Logf("the box's velocity after 1/3 s: %.3f m/s at μ = 0, %.3f m/s at μ = 0.6", smooth, rough)
	if smooth < 0.25 || math.Abs(rough) > 0.1 {
		t.Fatalf("the box's velocity after 1/3 s: μ = 0 %.3f m/s (want above 0.25), μ = 0.6 %.3f m/s (want within 0.1 of rest)", smooth, rough)
	}
}
