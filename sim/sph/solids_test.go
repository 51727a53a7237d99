package sph

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/particles"
	"github.com/slosh/slosh/sim/scene"
)

// blockScene is one block of n particles a side of material m (a JSON object named "m") in the middle of a domain
// ten spacings larger on every side, moving at vel.
func blockScene(d float64, n [3]int, m, vel string) string {
	sx, sy, sz := float64(n[0])*d, float64(n[1])*d, float64(n[2])*d
	return fmt.Sprintf(`{
  "name": "block", "domain": {"min": [0, 0, 0], "max": [%g, %g, %g]},
  "particles": {"spacing": %g},
  "materials": [%s],
  "fluid": [{"shape": "box", "center": [%g, %g, %g], "size": [%g, %g, %g], "material": "m", "velocity": %s}]
}`, sx+20*d, sy+20*d, sz+20*d, d, m, 10*d+sx/2, 10*d+sy/2, 10*d+sz/2, sx, sy, sz, vel)
}

// index is the particle index of each id now.
func (s *Solver) index() map[uint32]int {
	m := make(map[uint32]int, len(s.id))
	for i, id := range s.id {
		m[id] = i
	}
	return m
}

// momenta are the particles' linear and angular momentum about the origin.
func momenta(s *Solver) (p, l [3]float64) {
	for i := range s.x {
		m := float64(s.mass[s.mat[i]])
		v := vec64(s.v[i])
		c := vec64(s.x[i]).Cross(v)
		for a := range 3 {
			p[a] += m * v[a]
			l[a] += m * c[a]
		}
	}
	return p, l
}

func dist3(a, b [3]float64) float64 {
	return math.Sqrt((a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) + (a[2]-b[2])*(a[2]-b[2]))
}

func norm3(v [3]float64) float64 { return math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2]) }

// A cantilever clamped at one end sags under its weight as Euler–Bernoulli beam theory says: the static tip
// deflection δ = q L⁴/(8EI) = 1.5 ρ g L⁴/(E b²) for a square section of side b, and the first bending frequency
// f₁ = (1.875²/2π) √(EI/(ρA L⁴)). The beam (b = 4 cm, L = 30 cm, E = 5 MPa, ν = 0, ρ = 1000 kg/m³: δ = 1.5 cm,
// f₁ = 5.1 Hz) is released straight and swings about its static shape; the static deflection is the middle of
// the tip's first swing (its lowest and its first return) and the period that swing's time. Measured (2026-11-28):
// 4 particles across, δ 1.25× and f 0.90× the theory; 6 across, 1.08× and 0.97× (3 across: 1.9× and 0.86×). The
// SPH gradient undercounts the stiffness of the surface layers, a smaller share of the section at finer
// resolution. The clamp is the first three layers held where they started.
func TestCantileverSagsAsEulerBernoulli(t *testing.T) {
	type result struct {
		sag, freq float64
		err       error
		log       string
	}
	run := func(t *testing.T, across int) (r result) {
		const b, e = 0.04, 5e6
		d := b / float64(across)
		nx := across*15/2 + 3
		y0 := math.Ceil(0.4/d) * d
		sx, sy := float64(nx)*d, float64(across)*d
		js := fmt.Sprintf(`{
  "name": "cantilever", "domain": {"min": [0, 0, 0], "max": [%g, 0.6, %g]},
  "particles": {"spacing": %g},
  "materials": [{"name": "beam", "kind": "elastic", "density": 1000, "color": [0.8, 0.2, 0.2], "youngs_modulus": %g}],
  "fluid": [{"shape": "box", "center": [%g, %g, %g], "size": [%g, %g, %g], "material": "beam"}]
}`, float64(nx+4)*d, float64(across+4)*d, d, e, 2*d+sx/2, y0+sy/2, 2*d+sy/2, sx, sy, sy)
		s := newSolver(t, js, "sph.viscosity=0")
		clamp := map[uint32][4]float32{}
		var tip []uint32
		for i := range s.x {
			switch x := float64(s.x[i][0]); {
			case x < 5*d:
				clamp[s.id[i]] = s.x[i]
			case x > 2*d+sx-d:
				tip = append(tip, s.id[i])
			}
		}
		if len(clamp) != 3*across*across || len(tip) != across*across {
			r.err = fmt.Errorf("%d particles clamped and %d at the tip; want %d and %d", len(clamp), len(tip), 3*across*across, across*across)
			return r
		}
		tipY := func() float64 {
			at := s.index()
			y := 0.0
			for _, id := range tip {
				y += float64(s.x[at[id]][1])
			}
			return y / float64(len(tip))
		}
		start := tipY()
		dt := s.StepLimit() * 0.99
		var sag []float64
		for k := 0; k < int(0.22/dt); k++ {
			if err := s.Step(dt); err != nil {
				r.err = err
				return r
			}
			for i := range s.x {
				if p, ok := clamp[s.id[i]]; ok {
					s.x[i], s.v[i] = p, [4]float32{}
				}
			}
			sag = append(sag, start-tipY())
		}
		low := 0
		for k := range sag {
			if sag[k] > sag[low] {
				low = k
			}
		}
		back := low
		for k := low; k < len(sag); k++ {
			if sag[k] < sag[back] {
				back = k
			}
		}
		if back == low || back == len(sag)-1 {
			r.err = fmt.Errorf("the tip did not swing back within %d steps (lowest at step %d)", len(sag), low)
			return r
		}
		L := float64(nx-3) * d
		delta := 1.5 * 1000 * 9.81 * math.Pow(L, 4) / (e * b * b)
		f1 := 1.875 * 1.875 / (2 * math.Pi) * math.Sqrt(e*b*b/(12*1000*math.Pow(L, 4)))
		r.sag, r.freq = 0.5*(sag[low]+sag[back])/delta, 1/(float64(back+1)*dt)/f1
		r.log = fmt.Sprintf("%d particles across (%d): tip deflection %.4g m, %.3f× Euler–Bernoulli's %.4g m; frequency %.3g Hz, %.3f× its %.3g Hz",
			across, len(s.x), r.sag*delta, r.sag, delta, r.freq*f1, r.freq, f1)
		return r
	}
	coarse, fine := run(t, 4), run(t, 6)
	for _, r := range []result{coarse, fine} {
		if r.err != nil {
			t.Fatal(r.err)
		}
		t.Log(r.log)
	}
	if !(math.Abs(coarse.sag-1) < 0.35 && math.Abs(coarse.freq-1) < 0.15) {
		t.Errorf("4 across: deflection %.3f× and frequency %.3f× the theory's; want within 35%% and 15%%", coarse.sag, coarse.freq)
	}
	if !(math.Abs(fine.sag-1) < 0.15 && math.Abs(fine.freq-1) < 0.08) {
		t.Errorf("6 across: deflection %.3f× and frequency %.3f× the theory's; want within 15%% and 8%%", fine.sag, fine.freq)
	}
	if !(math.Abs(fine.sag-1) < math.Abs(coarse.sag-1) && math.Abs(fine.freq-1) < math.Abs(coarse.freq-1)) {
		t.Errorf("the finer beam is not closer to the theory: deflection %.3f× against %.3f×, frequency %.3f× against %.3f×", fine.sag, coarse.sag, fine.freq, coarse.freq)
	}
}

// A free body's internal forces sum to nothing: an elastic block and a rigid one, thrown spinning and sheared
// with no gravity, keep their linear and angular momentum to 1e-6 relative over 400 steps (measured: 1e-7 to
// 1e-8), and the rigid one's particles keep their distances to the rounding of float32 positions, which each step
// adds to every coordinate (measured: 1.4e-6 of a distance after one step, 4e-5 after 100, 1.3e-4 after 400).
func TestFreeBodiesKeepMomentum(t *testing.T) {
	for _, kind := range []string{"elastic", "rigid", "elastoplastic"} {
		m := fmt.Sprintf(`{"name": "m", "kind": %q, "density": 1000, "color": [1, 0, 0], "youngs_modulus": 1e5, "poisson_ratio": 0.3}`, kind)
		s := newSolver(t, blockScene(0.02, [3]int{5, 4, 6}, m, "[0.3, 0.1, 0]"), "sph.viscosity=0", "sph.gravity=0,0,0")
		for i := range s.x { // a spin and a shear
			y, z := s.x[i][1]-0.14, s.x[i][2]-0.26
			s.v[i][0] += 2 * y
			s.v[i][1] += -z + 0.5*s.x[i][0]
			s.v[i][2] += y
		}
		p0, l0 := momenta(s)
		pos0 := positions(s)
		for k := 0; k < 400; k++ {
			if err := s.Step(0.5e-3); err != nil {
				t.Fatal(err)
			}
		}
		p1, l1 := momenta(s)
		dp := dist3(p0, p1) / norm3(p0)
		dl := dist3(l0, l1) / norm3(l0)
		t.Logf("%s: |ΔP|/|P| %.2g, |ΔL|/|L| %.2g", kind, dp, dl)
		if !(dp < 1e-6 && dl < 1e-6) {
			t.Errorf("%s body: momentum changed by %.2g and angular momentum by %.2g of themselves; want below 1e-6", kind, dp, dl)
		}
		if kind == "rigid" {
			if e := distanceChange(pos0, positions(s)); !(e < 3e-4) {
				t.Errorf("a rigid body's pairwise distances changed by up to %.2g of themselves in 400 steps; want below 3e-4", e)
			}
		}
	}
}

// An elastic block spun rigidly, with nothing else acting, keeps its shape: its strain energy does not change under
// rotation. With eq. 5.5's plain SPH gradient (no correction, deformation) the block at 3 rad/s measures strain
// where it has none and tears itself apart within 0.2 s (pairwise distances changed four-fold); corrected, they
// change by 3e-4 (measured 2026-11-28). An elastoplastic block too (its F, composed each step from the motion, is a
// rotation and a stretch: the explicit step moves the particles along tangents, and the elastic forces take the
// stretch back): 2.8e-4 (measured 2026-11-29).
func TestSpinningElasticBlockKeepsItsShape(t *testing.T) {
	for _, kind := range []string{"elastic", "elastoplastic"} {
		m := `{"name": "m", "kind": "` + kind + `", "density": 1000, "color": [1, 0, 0], "youngs_modulus": 1e5, "poisson_ratio": 0.3}`
		s := newSolver(t, blockScene(0.02, [3]int{5, 5, 5}, m, "[0, 0, 0]"), "sph.viscosity=0", "sph.gravity=0,0,0")
		for i := range s.x {
			y, x := s.x[i][1]-0.15, s.x[i][0]-0.15
			s.v[i][0], s.v[i][1] = -3*y, 3*x
		}
		pos0 := positions(s)
		for k := 0; k < 400; k++ {
			if err := s.Step(0.5e-3); err != nil {
				t.Fatal(err)
			}
		}
		e := distanceChange(pos0, positions(s))
		t.Logf("%s: pairwise distances changed by up to %.3g", kind, e)
		if !(e < 2e-3) {
			t.Errorf("%s block spun rigidly for 0.2 s: its pairwise distances changed by up to %.3g of themselves; want below 2e-3", kind, e)
		}
	}
}

// positions are the positions by id.
func positions(s *Solver) map[uint32][3]float64 {
	m := make(map[uint32][3]float64, len(s.x))
	for i, id := range s.id {
		m[id] = [3]float64{float64(s.x[i][0]), float64(s.x[i][1]), float64(s.x[i][2])}
	}
	return m
}

// distanceChange is the largest relative change of a pairwise distance between two sets of positions by id.
func distanceChange(a, b map[uint32][3]float64) float64 {
	ids := make([]uint32, 0, len(a))
	for id := range a {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	worst := 0.0
	for x, i := range ids {
		for _, j := range ids[x+1:] {
			d0, d1 := dist3(a[i], a[j]), dist3(b[i], b[j])
			worst = math.Max(worst, math.Abs(d1-d0)/d0)
		}
	}
	return worst
}

// A rigid cluster stays rigid through contact: a block thrown tumbling onto the floor keeps every pairwise distance
// of its particles through the collisions (to 1e-4 relative over 1 s; float32 positions, as above) and ends on the
// floor, not in it, without bouncing (the floor has no friction, so it may still slide).
func TestRigidClustersStayRigid(t *testing.T) {
	m := `{"name": "m", "kind": "rigid", "density": 500, "color": [0, 0, 1]}`
	s := newSolver(t, blockScene(0.02, [3]int{6, 3, 4}, m, "[0.5, -1, 0]"))
	for i := range s.x {
		s.v[i][0] += 3 * (s.x[i][1] - 0.13)
	}
	pos0 := positions(s)
	runFrames(t, s, 60, nil)
	e := distanceChange(pos0, positions(s))
	low, vy := math.Inf(1), 0.0
	for i := range s.x {
		low = math.Min(low, float64(s.x[i][1]))
		vy += float64(s.v[i][1]) / float64(len(s.x))
	}
	t.Logf("after 1 s: distances changed by up to %.2g, lowest particle at %.4f m, vertical speed %.3f m/s", e, low, vy)
	if !(e < 1e-4) {
		t.Errorf("the block's pairwise distances changed by up to %.2g of themselves", e)
	}
	if len(s.sol.clus) != 1 || !(low < 0.03 && low > 0.005) || math.Abs(vy) > 0.05 {
		t.Errorf("after 1 s: %d clusters, lowest particle at %.4f m, vertical speed %.3f m/s; want one body on the floor", len(s.sol.clus), low, vy)
	}
}

// Heat diffuses in a resting bar as the heat equation says: a cosine profile T = 20 + 10 cos(πx/L) along a bar
// whose ends and sides exchange no heat decays as exp(−cπ²t/L²). Measured (2026-11-28), the amplitude's decay rate
// over 2 s at c = 1e-3 m²/s, L = 0.4 m: 0.86 of the analytic for a 4 × 4 section, 0.91 for 8 × 8. The SPH
// Laplacian (eq. 5.12) misses the neighbours beyond a surface, so the surface layers diffuse slower, a smaller
// share of a thicker bar.
func TestHeatDiffusesAsTheHeatEquation(t *testing.T) {
	rate := func(n int) float64 {
		const c, d = 1e-3, 0.01
		m := fmt.Sprintf(`{"name": "m", "kind": "rigid", "density": 1000, "color": [1, 0, 0], "diffusivity": %g}`, c)
		s := newSolver(t, blockScene(d, [3]int{40, n, n}, m, "[0, 0, 0]"), "sph.gravity=0,0,0")
		x0, L := 10*d, 40*d
		for i := range s.x {
			s.temp[i] = float32(20 + 10*math.Cos(math.Pi*(float64(s.x[i][0])-x0)/L))
		}
		amp := func() float64 {
			var num, den float64
			for i := range s.x {
				cs := math.Cos(math.Pi * (float64(s.x[i][0]) - x0) / L)
				num += (float64(s.temp[i]) - 20) * cs
				den += cs * cs
			}
			return num / den
		}
		a0 := amp()
		runFixed(t, s, 0.02, 2, nil)
		want := -c * math.Pi * math.Pi * 2 / (L * L)
		got := math.Log(amp() / a0)
		t.Logf("%d × %d: the amplitude fell from %.4g to %.4g; decay %.4g, the heat equation's %.4g (%.3f×)", n, n, a0, amp(), got, want, got/want)
		return got / want
	}
	thin, thick := rate(4), rate(8)
	if !(math.Abs(thin-1) < 0.2 && math.Abs(thick-1) < 0.12 && math.Abs(thick-1) < math.Abs(thin-1)) {
		t.Errorf("decay rates %.3f× (4 × 4) and %.3f× (8 × 8) the heat equation's; want within 20%% and 12%%, the thicker closer", thin, thick)
	}
}

// A bar stretched and released: an elastic one swings about its rest length and comes back to it; a plastic one
// stretched beyond its elastic limit keeps a permanent elongation; one whose bonds stretch past the fracture
// distance breaks apart.
func TestBarsReturnYieldAndBreak(t *testing.T) {
	const base = `"name": "m", "density": 1000, "color": [1, 0, 0], "youngs_modulus": 1e5, "poisson_ratio": 0.3`
	run := func(m string) (mean, lmin, lmax float64, broken int) {
		const d = 0.02
		n := [3]int{16, 3, 3}
		s := newSolver(t, blockScene(d, n, "{"+base+", "+m+"}", "[0, 0, 0]"), "sph.gravity=0,0,0")
		xc := 10*d + float64(n[0])*d/2
		var lo, hi []uint32
		for i := range s.x {
			x := float64(s.x[i][0])
			s.v[i][0] = float32(8 * (x - xc)) // the ends pull apart at 1.2 m/s
			switch {
			case x < 11*d:
				lo = append(lo, s.id[i])
			case x > 10*d+float64(n[0]-1)*d:
				hi = append(hi, s.id[i])
			}
		}
		length := func() float64 {
			at := s.index()
			l := 0.0
			for k := range lo {
				l += float64(s.x[at[hi[k]]][0] - s.x[at[lo[k]]][0])
			}
			return l / float64(len(lo))
		}
		rest := length()
		lmin, lmax = math.Inf(1), 0
		sum, count := 0.0, 0
		runFrames(t, s, 90, func(float64) {
			l := length() / rest
			lmax = math.Max(lmax, l)
			if s.time > 0.5 {
				lmin = math.Min(lmin, l)
				sum += l
				count++
			}
		})
		return sum / float64(count), lmin, lmax, s.sol.broken
	}
	mean, _, lmax, broken := run(`"kind": "elastic"`)
	t.Logf("elastic: stretched to %.3f, then %.4f of its rest length on average over 0.5–1.5 s", lmax, mean)
	if !(lmax > 1.04 && math.Abs(mean-1) < 0.015 && broken == 0) {
		t.Errorf("elastic bar: stretched to %.3f, then %.4f of its rest length on average (%d bonds broken); want back to 1 ± 1.5%%", lmax, mean, broken)
	}
	_, lmin, lmax, _ := run(`"kind": "plastic", "elastic_limit": 0.02, "plastic_limit": 0.5`)
	t.Logf("plastic: stretched to %.3f, then never shorter than %.4f", lmax, lmin)
	if !(lmin > 1.05) {
		t.Errorf("plastic bar: stretched to %.3f, then as short as %.4f of its rest length; want a permanent elongation over 5%%", lmax, lmin)
	}
	_, _, lmax, broken = run(`"kind": "elastic", "fracture": 1.05`)
	t.Logf("fracture at 1.05: %d bonds broken, stretched to %.3f", broken, lmax)
	if !(broken > 0 && lmax > 1.5) {
		t.Errorf("bar with fracture at 1.05: %d bonds broken, stretched to %.3f; want broken and flying apart", broken, lmax)
	}
	if _, _, _, broken = run(`"kind": "elastic", "fracture": 1.5`); broken != 0 {
		t.Errorf("bar with fracture at 1.5 (never stretched that far): %d bonds broken", broken)
	}
}

// meltScene is two wax blocks stacked on the floor: rigid below 40 °C, liquid above 50 °C. A heater melts the
// layers where they touch for 0.2 s, then a cooler takes everything to 0 °C.
const meltScene = `{
  "name": "melt", "domain": {"min": [0, 0, 0], "max": [0.4, 0.3, 0.16]},
  "particles": {"spacing": 0.02},
  "materials": [{"name": "wax", "kind": "rigid", "density": 900, "color": [0.9, 0.8, 0.3], "temperature": 20,
    "youngs_modulus": 2e4, "phase_change": {"solidifying": 40, "melting": 50}}],
  "fluid": [{"shape": "box", "center": [0.2, 0.03, 0.08], "size": [0.12, 0.06, 0.08], "material": "wax"},
            {"shape": "box", "center": [0.2, 0.09, 0.08], "size": [0.12, 0.06, 0.08], "material": "wax"}],
  "heaters": [{"shape": "box", "center": [0.2, 0.06, 0.08], "size": [0.4, 0.04, 0.16], "temperature": 90, "rate": 60, "stop": 0.2},
              {"shape": "box", "center": [0.2, 0.15, 0.08], "size": [0.4, 0.3, 0.16], "temperature": 0, "rate": 30, "start": 0.2}]
}`

// A body heated above its melting point turns liquid and solidifies again when cooled, merging with what it
// touches: two blocks that touch stay two bodies until the layers between them melt and freeze, and then they are
// one.
func TestMeltingAndSolidifyingMerges(t *testing.T) {
	s := newSolver(t, meltScene)
	runFrames(t, s, 1, nil)
	if len(s.sol.clus) != 2 {
		t.Fatalf("two touching blocks make %d rigid bodies at the start; want 2 (distinct)", len(s.sol.clus))
	}
	n0 := len(s.x) / 2 // ids below n0 are the lower block's
	melted := 0
	runFrames(t, s, 11, func(float64) { melted = max(melted, s.liquidCount()) })
	if melted == 0 {
		t.Fatalf("no particle melted under the heater")
	}
	runFrames(t, s, 24, nil)
	if l := s.liquidCount(); l != 0 {
		t.Errorf("%d particles still liquid after cooling to 0 °C", l)
	}
	big := 0
	for c := range s.sol.clus {
		if len(s.sol.clus[c].members) > len(s.sol.clus[big].members) {
			big = c
		}
	}
	var lower, upper int
	for _, i := range s.sol.clus[big].members {
		if s.id[i] < uint32(n0) {
			lower++
		} else {
			upper++
		}
	}
	t.Logf("%d particles melted at most; after cooling %d bodies, the largest holding %d of the lower block's and %d of the upper's %d", melted, len(s.sol.clus), lower, upper, n0)
	if lower < n0*8/10 || upper < n0*8/10 {
		t.Errorf("after melting and freezing the largest body holds %d and %d of the blocks' %d particles each; want one body holding both", lower, upper, n0)
	}
}

// liquidCount is the number of particles in the liquid phase.
func (s *Solver) liquidCount() int {
	n := 0
	for i := range s.x {
		if s.phase(i) == phaseLiquid {
			n++
		}
	}
	return n
}

// A state saved while the blocks melt loads into a fresh solver and continues bit for bit through the freezing.
func TestSolidsStateContinuesBitForBit(t *testing.T) {
	a, b := savedTwin(t, meltScene, 9)
	if len(a.sol.slots) == 0 || a.liquidCount() == 0 {
		t.Fatalf("the state was not taken during the melt: %d slots, %d liquid", len(a.sol.slots), a.liquidCount())
	}
	for k := 0; k < 10; k++ {
		runFrames(t, a, 1, nil)
		runFrames(t, b, 1, nil)
	}
	for i := range a.x {
		if a.x[i] != b.x[i] || a.v[i] != b.v[i] || a.temp[i] != b.temp[i] || a.slot[i] != b.slot[i] || a.id[i] != b.id[i] {
			t.Fatalf("particle %d differs after loading: %v %v %g %d against %v %v %g %d", i, a.x[i], a.v[i], a.temp[i], a.slot[i], b.x[i], b.v[i], b.temp[i], b.slot[i])
		}
	}
	if len(a.sol.clus) != len(b.sol.clus) {
		t.Fatalf("%d bodies against %d after loading", len(a.sol.clus), len(b.sol.clus))
	}
	var f sim.Frame
	a.Frame(&f)
}

// A state's solids' table is checked against its particles before it loads: a slot out of range, a slot two
// particles own, a bond to a free slot or to itself, a bond only one side knows, a reference vector beyond reach,
// a non-finite plastic strain, a slot count the bytes cannot hold.
func TestSolidsStateRefusesDamage(t *testing.T) {
	a := newSolver(t, meltScene)
	runFrames(t, a, 3, nil)
	var buf bytes.Buffer
	if err := a.WriteState(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	st, err := DecodeState(bytes.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Slots) == 0 || st.Slots[0].N == 0 {
		t.Fatalf("the state has %d solid slots", len(st.Slots))
	}
	slotCol := particles.Get[int32](&st.Particles, colSlot)
	owner := -1
	for i, sl := range slotCol {
		if sl == 0 {
			owner = i
		}
	}
	reencode := func(edit func(st *State)) []byte { return reencodeState(t, good, edit) }
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"a slot out of range", reencode(func(st *State) { particles.Get[int32](&st.Particles, colSlot)[owner] = int32(len(st.Slots)) }), "solid slot"},
		{"a slot owned twice", reencode(func(st *State) {
			sl := particles.Get[int32](&st.Particles, colSlot)
			sl[(owner+1)%len(sl)] = 0
		}), "belongs to two particles"},
		{"a bond to itself", reencode(func(st *State) { st.Slots[0].Bonds[0].Slot = 0 }), "not another particle's"},
		{"a bond one side knows", reencode(func(st *State) { st.Slots[0].Bonds[0].X[0] += 0.001 }), "but not"},
		{"a bond beyond reach", reencode(func(st *State) { st.Slots[0].Bonds[0].X = [3]float32{1e3, 0, 0} }), "beyond the kernel radius"},
		{"a plastic strain of NaN", reencode(func(st *State) { st.Slots[0].Plastic[2] = float32(math.NaN()) }), "plastic strain"},
		{"41 bonds", reencode(func(st *State) { st.Slots[0].N = 41 }), "bonds"},
	} {
		if _, err := DecodeState(bytes.NewReader(c.data)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
		if err := a.ReadState(bytes.NewReader(c.data)); err == nil {
			t.Errorf("%s: the solver loaded it", c.name)
		}
	}
	// a slot count beyond the bytes: the count sits right after the material table, before the slots
	at := bytes.Index(good, append(binaryInt64(int64(len(st.Slots))), binaryInt32(st.Slots[0].N)...))
	if at < 0 {
		t.Fatal("the slot count is not in the state")
	}
	huge := bytes.Clone(good)
	copy(huge[at:], binaryInt64(1<<40))
	if _, err := DecodeState(bytes.NewReader(huge)); err == nil || !strings.Contains(err.Error(), "solids' table declares") {
		t.Errorf("2^40 slots: %v", err)
	}
}

func binaryInt64(v int64) []byte {
	var b bytes.Buffer
	_ = binary.Write(&b, binary.LittleEndian, v)
	return b.Bytes()
}

func binaryInt32(v int32) []byte {
	var b bytes.Buffer
	_ = binary.Write(&b, binary.LittleEndian, v)
	return b.Bytes()
}

// The five scenes of the unified-model chapter run a second at 1500 particles without non-finite state: the melts,
// freezes, merges and contacts they show do not blow up (each ran 5 s at 4000 particles too, 2026-11-28).
func TestSolidScenesRun(t *testing.T) {
	if testing.Short() {
		t.Skip("about 12 s on 2 cores; make test runs it")
	}
	for _, name := range []string{"melting-bunny", "hot-into-cold", "chocolate-dip", "jelly-blocks", "merge-on-a-plate"} {
		t.Run(name, func(t *testing.T) {
			sc, err := scene.Builtin(name)
			if err != nil {
				t.Fatal(err)
			}
			s := New()
			if err := s.Params().Assign("sph.particles=1500"); err != nil {
				t.Fatal(err)
			}
			if err := s.Reset(sc); err != nil {
				t.Fatal(err)
			}
			if !s.sol.on {
				t.Fatalf("no solids in %s", name)
			}
			runFrames(t, s, 60, nil) // a step's error, non-finite state among them, fails the test
			st := s.Stats()
			t.Logf("%s: %d particles, %.0f %% solid, %.0f rigid bodies after 1 s", name, st.Particles, figure(st, FigSolid), figure(st, FigRigidBodies))
		})
	}
}

// A rigid bar spinning freely, heated in its middle, splits where it melts into two bodies, each turning on with
// its own part of the bar's momentum: the momentum and angular momentum of everything (the bodies and the melt
// between them) are kept to 1e-5 through the split.
func TestRigidBodySplitsWhereItMelts(t *testing.T) {
	s := newSolver(t, `{
  "name": "split", "domain": {"min": [0, 0, 0], "max": [0.8, 0.5, 0.3]},
  "particles": {"spacing": 0.02},
  "materials": [{"name": "wax", "kind": "rigid", "density": 900, "color": [0.9, 0.8, 0.3], "temperature": 20,
    "youngs_modulus": 2e4, "phase_change": {"solidifying": 40, "melting": 50}}],
  "fluid": [{"shape": "box", "center": [0.4, 0.25, 0.15], "size": [0.36, 0.06, 0.06], "material": "wax", "velocity": [0.1, 0, 0]}],
  "heaters": [{"shape": "box", "center": [0.4, 0.25, 0.15], "size": [0.05, 0.5, 0.3], "temperature": 90, "rate": 100, "stop": 0.05}]
}`, "sph.gravity=0,0,0", "sph.viscosity=0")
	for i := range s.x { // spinning slowly about the vertical
		s.v[i][2] += 0.5 * (s.x[i][0] - 0.4)
	}
	runFrames(t, s, 1, nil)
	if len(s.sol.clus) != 1 {
		t.Fatalf("the bar is %d bodies before it melts", len(s.sol.clus))
	}
	p0, l0 := momenta(s)
	runFrames(t, s, 6, nil)
	p1, l1 := momenta(s)
	dp, dl := dist3(p0, p1)/norm3(p0), dist3(l0, l1)/norm3(l0)
	t.Logf("after 0.1 s: %d bodies, %d particles liquid; |ΔP|/|P| %.2g, |ΔL|/|L| %.2g", len(s.sol.clus), s.liquidCount(), dp, dl)
	if len(s.sol.clus) != 2 || s.liquidCount() == 0 {
		t.Errorf("the bar melted in its middle is %d bodies with %d liquid particles; want two bodies", len(s.sol.clus), s.liquidCount())
	}
	if !(dp < 1e-5 && dl < 1e-5) {
		t.Errorf("through the split the momentum changed by %.2g and the angular momentum by %.2g of themselves", dp, dl)
	}
}

// The heat tool held on a block melts what it reaches, and only that: inside its radius the wax passes its
// melting point within half a second, and the particles beyond twice the radius stay at their starting
// temperature (the wax diffuses no heat).
func TestHeatToolMeltsWhatItTouches(t *testing.T) {
	const wax = `{"name": "m", "kind": "rigid", "density": 900, "color": [0.9, 0.8, 0.3], "temperature": 20, "youngs_modulus": 2e4,
		"phase_change": {"solidifying": 40, "melting": 50}}`
	s := newSolver(t, blockScene(0.02, [3]int{8, 4, 6}, wax, "[0, 0, 0]"), "sph.gravity=0,0,0")
	center := [4]float32{0.28, 0.24, 0.26, 0} // the block's middle
	s.SetTools(sim.Tools{Heat: &sim.HeatTool{Center: [3]float32{center[0], center[1], center[2]}, Radius: 0.04, Temperature: 90, Rate: 20}})
	runFrames(t, s, 30, nil)
	inside, far := 0, 0
	for i := range s.x {
		d := sub3(s.x[i], center)
		switch r := sqrt32(dot3(d, d)); {
		case r < 0.03 && s.phase(i) == phaseLiquid:
			inside++
		case r > 0.08 && s.temp[i] != 20:
			far++
		}
	}
	if inside == 0 || far != 0 {
		t.Errorf("under the heat tool %d particles melted; %d far from it changed temperature", inside, far)
	}
	s.SetTools(sim.Tools{})
	if s.heatTool != nil {
		t.Error("the heat tool stays after it is let go")
	}
}

// Rigid bodies of particles float and sink by their density against the liquid: a block of wood at 500 kg/m³ in
// water floats half submerged, as Archimedes says, and a block at 2000 kg/m³ sinks to the floor. Measured
// (2026-11-28) after 1 s, with the water line half a spacing above the top water particles at the wall and the
// block's faces half a spacing beyond its particles: 0.42 submerged for this block three particles thick (0.46 for
// one four thick in a larger tank); the test allows 0.5 ± 0.12.
func TestRigidBodiesFloatAndSinkByDensity(t *testing.T) {
	for _, c := range []struct {
		rho  int
		want func(submerged, bottom float64) bool
	}{
		{500, func(sub, _ float64) bool { return math.Abs(sub-0.5) < 0.12 }},
		{2000, func(_, bottom float64) bool { return bottom < 0.02 }},
	} {
		s := newSolver(t, floatScene(c.rho))
		runFrames(t, s, 60, nil)
		lo, hi, water := math.Inf(1), math.Inf(-1), math.Inf(-1)
		for i := range s.x {
			y := float64(s.x[i][1])
			switch {
			case s.mat[i] == 1:
				lo, hi = math.Min(lo, y), math.Max(hi, y)
			case s.x[i][0] < 0.05:
				water = math.Max(water, y)
			}
		}
		sub := (water + 0.01 - (lo - 0.01)) / (hi - lo + 0.02)
		t.Logf("%d kg/m³: the block spans %.3f–%.3f m, the water line %.3f m: %.2f submerged", c.rho, lo, hi, water+0.01, sub)
		if len(s.sol.clus) != 1 || !c.want(sub, lo) {
			t.Errorf("%d kg/m³: %d bodies, %.2f submerged, its bottom at %.3f m", c.rho, len(s.sol.clus), sub, lo)
		}
	}
}

// floatScene is a tank of water with a rigid block of density rho (kg/m³) dropped into it.
func floatScene(rho int) string {
	return fmt.Sprintf(`{
  "name": "float", "domain": {"min": [0, 0, 0], "max": [0.3, 0.3, 0.2]},
  "particles": {"spacing": 0.02},
  "materials": [{"name": "wood", "kind": "rigid", "density": %d, "color": [0.6, 0.4, 0.2]}],
  "fluid": [{"shape": "box", "center": [0.15, 0.08, 0.1], "size": [0.3, 0.16, 0.2]},
            {"shape": "box", "center": [0.15, 0.2, 0.1], "size": [0.1, 0.06, 0.1], "material": "wood"}]
}`, rho)
}

// A rigid particle that solidified from compressed liquid has bonds shorter than the lattice's and may have more
// body neighbours within h than its bond list holds (maxBonds). Neither may leave it over-dense: no pressure can
// move one particle of a rigid body against another, so PCISPH would iterate to its cap while the particle's
// pressure grew without bound, and the liquid it touches would take that pressure (this diverged chocolate-dip at
// 40k particles 1.26 s in). The test makes such a particle in a floating block: its references shrunk to 0.9 and
// its nearest bond dropped. The largest pressure stays within 1.5 times what it was before (the tank's, about twice
// the hydrostatic ρ g × 0.16 m = 1.6 kPa at the PCISPH solve's tolerance), and no step reaches sph.max_iterations.
func TestCompressedRigidParticleConverges(t *testing.T) {
	s := newSolver(t, floatScene(500))
	before := float32(0) // the largest pressure in the frames before the change
	runFrames(t, s, 30, func(float64) {
		if s.time > 0.3 {
			for _, p := range s.pres {
				before = max(before, p)
			}
		}
	})
	in, most := -1, int32(0) // the block particle with the most bonds: an inner one
	for i := range s.x {
		if s.rbody[i] >= 0 && s.sol.slots[s.slot[i]].N > most {
			in, most = i, s.sol.slots[s.slot[i]].N
		}
	}
	st := &s.sol.slots[s.slot[in]]
	near, nk := float32(math.Inf(1)), int32(-1)
	for k := range st.N {
		st.Bonds[k].X = [3]float32{0.9 * st.Bonds[k].X[0], 0.9 * st.Bonds[k].X[1], 0.9 * st.Bonds[k].X[2]}
		if d := dot3(st.Bonds[k].X, st.Bonds[k].X); d < near {
			near, nk = d, k
		}
	}
	other := st.Bonds[nk].Slot
	s.dropBond(s.slot[in], other)
	s.dropBond(other, s.slot[in])
	pmax := float32(0)
	steps := 0
	runFrames(t, s, 20, func(float64) {
		steps++
		for i := range s.x {
			pmax = max(pmax, s.pres[i])
		}
		if s.iters >= int(s.Cfg.MaxIterations) || pmax > 1.5*before {
			t.Fatalf("step %d: %d PCISPH iterations, a pressure of %.0f Pa (%.0f Pa before the change); want under %d and 1.5 times", steps, s.iters, pmax, before, s.Cfg.MaxIterations)
		}
	})
	t.Logf("%d steps after the change: the largest pressure %.0f Pa (%.0f Pa before), %d bodies", steps, pmax, before, len(s.sol.clus))
	if len(s.sol.clus) != 1 {
		t.Errorf("%d bodies; want the block still one", len(s.sol.clus))
	}
}

// A rigid block dropped onto a jelly (jelly-blocks, Figure 5.6) rests on it without squeezing its particles: the
// jelly's pressure pushes both sides of the contact (mirroredPressure), and its correction is halved there
// (rigidContact). With the full gain a jelly particle under the block's corner swung between no pressure and twice
// what it needed, 12.7 % over-dense at worst, and 44 of the run's steps ended over 2 %; the code before the
// mirrored pressure left 2.5 % at worst. The test allows 3 % and 15 steps over 2 %.
func TestRigidBlockRestsOnJelly(t *testing.T) {
	sc, err := scene.Builtin("jelly-blocks")
	if err != nil {
		t.Fatal(err)
	}
	s := New()
	if err := s.Reset(sc); err != nil {
		t.Fatal(err)
	}
	worst, over, steps := 0.0, 0, 0
	runFrames(t, s, 40, func(float64) {
		steps++
		worst = max(worst, s.errMax)
		if s.errMax > 0.02 {
			over++
		}
	})
	t.Logf("%d steps: the largest predicted density error %.2f %%, %d steps over 2 %%", steps, 100*worst, over)
	if worst > 0.03 || over > 15 {
		t.Errorf("largest density error %.2f %%, %d steps over 2 %%; want at most 3 %% and 15", 100*worst, over)
	}
}

// Particles added while a run goes (a dropped body, an undo, the pour tool) start at their material's starting
// temperature, and a solid's bond into a body at the next step.
func TestAddedParticlesStartAtTheirTemperature(t *testing.T) {
	s := newSolver(t, meltScene)
	var ps []sim.Particle
	for x := range 3 {
		for y := range 3 {
			for z := range 3 {
				ps = append(ps, sim.Particle{Pos: [3]float32{0.05 + 0.02*float32(x), 0.2 + 0.02*float32(y), 0.05 + 0.02*float32(z)}, Material: 1})
			}
		}
	}
	n0 := len(s.x)
	if k := s.Refill(ps); k != len(ps) {
		t.Fatalf("%d of %d particles added", k, len(ps))
	}
	for i := n0; i < len(s.x); i++ {
		if s.temp[i] != 20 {
			t.Fatalf("an added wax particle is at %g °C; the wax starts at 20 °C", s.temp[i])
		}
	}
	runFrames(t, s, 1, nil)
	if len(s.sol.clus) != 3 {
		t.Errorf("after the drop: %d rigid bodies; want the two blocks and the dropped one", len(s.sol.clus))
	}
}

// Draining through a body removes its particles and, at the next step, their slots and every bond to them: the
// table stays consistent (a saved state passes its checks), and an undo brings the particles back where they were,
// where they solidify and bond with the body they touch again.
func TestDrainingABodyFreesItsSlots(t *testing.T) {
	noHeat := meltScene[:strings.Index(meltScene, `,
  "heaters"`)] + "\n}"
	s := newSolver(t, noHeat)
	runFrames(t, s, 1, nil)
	gone, err := s.Drain([3]float32{0.2, 0.01, 0.08}, 0.015) // at the lower block's floor, beyond bonding reach of the upper
	if err != nil || len(gone) == 0 {
		t.Fatalf("drained %d particles: %v", len(gone), err)
	}
	runFrames(t, s, 2, nil)
	owned, free := 0, 0
	for k := range s.sol.slots {
		if s.sol.slots[k].owner >= 0 {
			owned++
		}
		if s.sol.slots[k].free {
			free++
		}
	}
	var st State
	s.SaveState(&st)
	if err := st.Validate(); err != nil {
		t.Fatalf("after draining %d particles the state is refused: %v", len(gone), err)
	}
	if owned != len(s.x) || free != len(gone) || len(s.sol.free) != len(gone) {
		t.Errorf("after draining %d of the blocks' particles: %d slots owned for %d particles, %d free", len(gone), owned, len(s.x), free)
	}
	if n := s.Refill(gone); n != len(gone) {
		t.Fatalf("the undo brought back %d of %d", n, len(gone))
	}
	runFrames(t, s, 1, nil)
	if len(s.sol.clus) != 2 || len(s.sol.free) != 0 {
		t.Errorf("after the undo: %d bodies, %d free slots; want the two blocks again, no free slot", len(s.sol.clus), len(s.sol.free))
	}
}

// A bond never spans more than the kernel radius h and twice its length: a particle torn from an elastic bar that
// has no fracture distance (as a splash tears a thin shell) leaves its bonds behind instead of being flung back by
// them. With the bonds held, the torn particle, 3h away, was flung back at over 300 m/s and the step diverged;
// hot-into-cold diverged the same way at 40k particles (2026-11-29).
func TestBondsLongerThanTheKernelBreak(t *testing.T) {
	const d = 0.02
	s := newSolver(t, blockScene(d, [3]int{6, 3, 3}, `{"name": "m", "kind": "elastic", "density": 1000, "color": [1, 0, 0], "youngs_modulus": 1e5, "poisson_ratio": 0.3}`, "[0, 0, 0]"), "sph.gravity=0,0,0", "sph.viscosity=0")
	runFrames(t, s, 1, nil)
	if s.sol.broken != 0 {
		t.Fatalf("%d bonds broken in a resting bar", s.sol.broken)
	}
	far := 0 // the particle at the bar's +x end, moved 3h further along x
	for i := range s.x {
		if s.x[i][0] > s.x[far][0] {
			far = i
		}
	}
	id := s.id[far]
	s.x[far][0] += 3 * s.dv.H
	runFrames(t, s, 1, nil)
	v := s.v[s.index()[id]]
	speed := math.Sqrt(float64(v[0]*v[0] + v[1]*v[1] + v[2]*v[2]))
	t.Logf("torn particle: %d bonds broken, %.3f m/s after a frame; fastest particle %.3f m/s", s.sol.broken, speed, s.Stats().MaxSpeed)
	if s.sol.broken == 0 || s.Stats().MaxSpeed > 0.5 {
		t.Errorf("a particle torn 3h from its bar: %d bonds broken, fastest particle %.3f m/s; want its bonds broken and nothing flung", s.sol.broken, s.Stats().MaxSpeed)
	}
}
