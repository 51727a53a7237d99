package pbf

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	gl "github.com/go-gl/gl/v4.3-core/gl"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/gpu/gltest"
	"github.com/slosh/slosh/sim"
	cpbf "github.com/slosh/slosh/sim/pbf"
	"github.com/slosh/slosh/sim/rigid"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/simtest"
)

// bodyResetter is either solver with rigid bodies.
type bodyResetter interface {
	sim.Solver
	ResetWithBodies(sc *scene.Scene, spacing float64, pos, vel [][4]float32, specs []rigid.BodySpec) error
}

// sphere is a sphere body to drop into the pool.
type sphere struct {
	center    scene.Vec3
	radius    float64
	density   float32
	vel, spin [3]float32
}

// resetPoolWithSpheres resets a solver on the pool scene at a spacing with sphere bodies placed in it (the fluid
// they cover removed), laid out as sim/pbf's tests lay them out.
func resetPoolWithSpheres(t testing.TB, s bodyResetter, spacing float64, spheres ...sphere) *scene.Scene {
	t.Helper()
	sc := builtin(t, "pool")
	shapes := make([]scene.Shape, len(spheres))
	for i, sp := range spheres {
		shapes[i] = scene.Shape{Kind: scene.ShapeSphere, Center: sp.center, Radius: sp.radius}
	}
	pos, vel, bodies := simtest.SpheresInFluid(t, sc, spacing, shapes)
	specs := make([]rigid.BodySpec, len(spheres))
	for i, sp := range spheres {
		specs[i] = rigid.BodySpec{Particles: bodies[i], Density: sp.density, Velocity: sp.vel, Spin: sp.spin}
	}
	if err := s.ResetWithBodies(sc, spacing, pos, vel, specs); err != nil {
		t.Fatal(err)
	}
	return sc
}

// thrown is a light sphere, spinning, thrown at the surface of the pool towards a heavy one moving down to the
// floor: within 24 steps it exercises the body branches of λ and Δp, shape matching with rotation, contact
// between the bodies and the rigid collision with the floor.
var thrown = []sphere{
	{center: scene.Vec3{0.5, 0.36, 0.4}, radius: 0.12, density: 500, vel: [3]float32{0.6, -0.3, 0}, spin: [3]float32{0, 2, 4}},
	{center: scene.Vec3{0.76, 0.15, 0.42}, radius: 0.12, density: 2000, vel: [3]float32{0, -0.3, 0}},
}

// frameDiff compares a GPU frame with a CPU frame particle by particle (matched by id): the largest difference of
// a position or of a velocity times dt per particle, sorted, and the largest difference of a body's centre and of
// a component of its rotation. The particles' bodies must agree exactly.
func frameDiff(t *testing.T, g, c *sim.Frame, dt float64) (diffs []float64, center, rot float64) {
	t.Helper()
	if g.N != c.N || len(g.Body) != len(c.Body) || len(g.Bodies) != len(c.Bodies) {
		t.Fatalf("GPU frame of %d particles, %d body entries, %d bodies; CPU %d, %d, %d", g.N, len(g.Body), len(g.Bodies), c.N, len(c.Body), len(c.Bodies))
	}
	byID := make([]int, c.N)
	for i := 0; i < c.N; i++ {
		byID[c.ID[i]] = i
	}
	diffs = make([]float64, g.N)
	for i := 0; i < g.N; i++ {
		j := byID[g.ID[i]]
		if len(g.Body) > 0 && g.Body[i] != c.Body[j] {
			t.Fatalf("particle %d belongs to body %d on the GPU, %d on the CPU", g.ID[i], g.Body[i], c.Body[j])
		}
		for k := 0; k < 3; k++ {
			diffs[i] = math.Max(diffs[i], math.Abs(float64(g.Pos[i][k]-c.Pos[j][k])))
			diffs[i] = math.Max(diffs[i], math.Abs(float64(g.Vel[i][k]-c.Vel[j][k]))*dt)
		}
	}
	slices.Sort(diffs)
	for b := range g.Bodies {
		for k := 0; k < 3; k++ {
			center = math.Max(center, math.Abs(float64(g.Bodies[b].Center[k]-c.Bodies[b].Center[k])))
		}
		for k := 0; k < 4; k++ {
			rot = math.Max(rot, math.Abs(float64(g.Bodies[b].Rot[k]-c.Bodies[b].Rot[k])))
		}
	}
	return diffs, center, rot
}

// roundingJumps counts the particles whose difference (diffs, sorted) exceeds bound. Solvers that differ only in
// float rounding stay within the rounding-growth bound but for a particle now and then, whose difference jumps for
// a step or two: a neighbour list built at a pair's exact kernel radius keeps or drops the pair on an ulp (see
// TestGPUBodiesMatchCPU), and a particle squeezed between a body and the floor amplifies its difference more than
// twice in a step (measured: one particle of 4798, at 1.7 times the bound). One in a thousand is tolerated
// (maxJumps); a real difference in the arithmetic moves many particles.
func roundingJumps(diffs []float64, bound float64) int {
	n := 0
	for k := len(diffs) - 1; k >= 0 && diffs[k] > bound; k-- {
		n++
	}
	return n
}

// maxJumps is how many of n particles may jump beyond the rounding-growth bound (roundingJumps).
func maxJumps(n int) int { return n / 1000 }

// roundingGrowth is the rounding-growth bound on positions (metres) and body centres after step steps, as
// TestGPUMatchesCPU: a few ulps (2.4e-7 m is 4 ulps of a 0.5 m coordinate), growing at most 2× a step.
func roundingGrowth(step int) float64 { return 2.4e-7 * math.Pow(2, float64(step-1)) }

// trigAbsErr is how far the GPU's sin and cos may be from the exact values. GLSL leaves their precision undefined
// (GLSL 4.30 §4.7.1: built-ins not listed there, "for example, the trigonometric functions", have undefined
// precision). Mesa's llvmpipe computes them to a few ulps; NVIDIA's GPUs in the special function unit, which
// NVIDIA documents (CUDA C++ Programming Guide, __sinf and __cosf) as off by at most 2^-21.41 ≈ 3.6e-7 absolute on
// [−π, π] — not relative: sin of a small angle may be off by far more than its ulps. 2^-21 rounds that up.
// TestGPUTrigWithinRotationAllowance checks it on the GL in use.
const trigAbsErr = 1.0 / (1 << 21)

// rotationBound is the bound on the difference of a body's rotation (a unit quaternion's components) after step
// steps of a solver taking iterations shape-matching passes a step. The rotation differs by float rounding like the
// positions (roundingGrowth: ulps of components below 1 are smaller than those of a 0.5 m coordinate), and by the
// GPU's sin and cos: each pass's rotation extraction ends by turning the rotation by axisAngle(ω) =
// (ω/|ω| sin(|ω|/2), cos(|ω|/2)), whose sin and cos are each off by up to trigAbsErr, so that quaternion is off by
// up to √2·trigAbsErr in length; multiplying by a unit quaternion keeps that length and normalising does not grow
// it. Earlier iterations' errors are undone by the later ones within a pass (they converge on the polar rotation
// of the same matrix), but each pass's error stays: the next pass's matrix is built from particles placed by that
// rotation. So a step adds up to iterations·√2·trigAbsErr, and like every difference it grows at most 2× a step:
// after k steps at most that times 2^k − 1. (On llvmpipe the rotations stay within roundingGrowth; on an NVIDIA
// H100 they differed by 3.7e-7 after one step, above roundingGrowth's 2.4e-7, and its sin and cos were off by up
// to 3.3e-7 and 3.5e-7.) In the positions the same error turns the body's particles by up to about twice it
// (radians) times their radius, 0.12 m here; measured on both, the particles stay within roundingGrowth (1.2e-7 m
// after one step on the H100), so their bound is unchanged.
func rotationBound(step int, iterations int32) float64 {
	return roundingGrowth(step) + float64(iterations)*math.Sqrt2*trigAbsErr*(math.Pow(2, float64(step))-1)
}

// roundingExcess says which of a step's differences go beyond rounding growth — more than maxJumps particles beyond
// roundingGrowth, a body centre beyond it, a rotation beyond rotationBound — or "" when none does.
func roundingExcess(diffs []float64, center, rot float64, step int, iterations int32) string {
	bound, rotBound := roundingGrowth(step), rotationBound(step, iterations)
	var what []string
	if jumps, most := roundingJumps(diffs, bound), maxJumps(len(diffs)); jumps > most {
		what = append(what, fmt.Sprintf("%d particles (up to %.3g m) beyond the rounding growth %.3g m, where %d may jump", jumps, diffs[len(diffs)-1], bound, most))
	}
	if center > bound {
		what = append(what, fmt.Sprintf("body centres differ by %.3g m, beyond the rounding growth %.3g m", center, bound))
	}
	if rot > rotBound {
		what = append(what, fmt.Sprintf("body rotations differ by %.3g, beyond their bound %.3g (rounding and the GPU's sin and cos)", rot, rotBound))
	}
	return strings.Join(what, "; ")
}

// The GPU solver with rigid bodies agrees with the CPU solver per particle and on the bodies' poses over 24 steps
// of the thrown spheres, in two ways:
//
//   - Shape matching summing each body's particles in id order on one invocation, as the Go code does: then the two
//     differ only in float rounding (fused multiply-adds, sqrt, division, sin and cos on the GPU) and agree like the
//     fluid-only TestGPUMatchesCPU — 1.2e-7 m after one step, growing under 2× a step but for a particle now and then
//     (roundingJumps); the rotations within rotationBound, which allows for the GPU's sin and cos. Measured after 24 steps: 7.9e-5 m worst, 1.4e-5 m at the 99th percentile, centres within
//     9.5e-7 m, rotations within 5.2e-6.
//   - The solver's own parallel tree reduction: its centres of mass differ from the Go code's sequential float32
//     sums by their rounding — the sums are of offsets from the body's last centre, up to a few metres for 113
//     particles of a 0.12 m ball, whose half ulp is 1.2e-7 m (sums of positions reached 90 m and 3.8e-6 m) — and a
//     rigid body carries such differences on in its velocity. The 99th percentile, the centres and the rotations
//     stay within 2e-6 m · 2^(step−1) (measured after 24 steps: 99th percentile 6e-5 m, worst 3.3e-4 m,
//     centres 6.2e-6 m, rotations 5.5e-5); the worst particle jumps now and then, because a neighbour list built at a
//     pair's exact kernel radius (the lattice's second neighbours at the default h = 2 spacings) keeps or drops the
//     pair on an ulp — the CPU solver against itself with positions nudged by one ulp differs by 1e-4 m after one
//     step for that reason.
func TestGPUBodiesMatchCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("about 7 s on 2 cores: a GPU simulation run on the shared context; make test runs it")
	}
	const spacing, steps = 0.04, 24
	dt := frameDt / 4 // the default step (s_corr as given, ScorrPerStep = 1)
	c := cpbf.New()
	resetPoolWithSpheres(t, c, spacing, thrown...)
	cpu := make([]sim.Frame, steps+1)
	for step := 1; step <= steps; step++ {
		if err := c.Step(dt); err != nil {
			t.Fatal(err)
		}
		c.Frame(&cpu[step])
	}
	for _, inIDOrder := range []bool{true, false} {
		mode := "tree sums"
		if inIDOrder {
			mode = "sums in id order"
		}
		g := newGPU(t)
		g.rigid.sumInIDOrder = inIDOrder
		resetPoolWithSpheres(t, g, spacing, thrown...)
		var f sim.Frame
		for step := 1; step <= steps; step++ {
			if err := g.Step(dt); err != nil {
				t.Fatal(err)
			}
			g.Frame(&f)
			diffs, center, rot := frameDiff(t, &f, &cpu[step], dt)
			worst, p99 := diffs[len(diffs)-1], diffs[len(diffs)*99/100]
			if inIDOrder {
				// as TestGPUMatchesCPU: rounding grows at most 2× per step from a few ulps
				if what := roundingExcess(diffs, center, rot, step, g.Cfg.Iterations); what != "" {
					t.Fatalf("%s, step %d: %s (particles differ by up to %.3g m, centres by %.3g m, rotations by %.3g)",
						mode, step, what, worst, center, rot)
				}
			} else if bound := 2e-6 * math.Pow(2, float64(step-1)); p99 > bound || center > bound || rot > bound {
				t.Fatalf("%s, step %d: GPU and CPU differ by %.3g m at the 99th percentile, centres by %.3g m, rotations by %.3g, beyond rounding growth (%.3g)",
					mode, step, p99, center, rot, bound)
			}
			if step < steps {
				continue
			}
			t.Logf("%s, after %d steps: worst %.3g m (%.3g spacings), 99th percentile %.3g m, centres %.3g m, rotations %.3g",
				mode, steps, worst, worst/spacing, p99, center, rot)
			maxWorst, maxP99 := 0.05, 0.01
			if !inIDOrder {
				maxWorst, maxP99 = 0.15, 0.02
			}
			if worst > maxWorst*spacing || p99 > maxP99*spacing || center > 1e-3*spacing || rot > 1e-3 {
				t.Errorf("%s, after %d steps: worst %.3g spacings (bound %g), 99th percentile %.3g spacings (bound %g), centres %.3g spacings (bound 0.001), rotations %.3g (bound 0.001)",
					mode, steps, worst/spacing, maxWorst, p99/spacing, maxP99, center/spacing, rot)
			}
		}
		sg, sc := g.Stats(), c.Stats()
		gErr, _ := cpbf.DensityError(sg)
		cErr, _ := cpbf.DensityError(sc)
		if sg.Particles != sc.Particles || math.Abs(gErr-cErr) > 0.05*cErr {
			t.Errorf("%s: statistics differ: GPU %d particles, density error %g; CPU %d, %g", mode, sg.Particles, gErr, sc.Particles, cErr)
		}
	}
}

// Reset samples a scene's rigid bodies (the duck pond: a ball, a block, the bunny, a capsule, a cylinder) and lays
// them out as the CPU solver does, and the two agree on the falling bodies to rounding growth (sums in id order).
func TestGPUResetSamplesSceneBodies(t *testing.T) {
	if testing.Short() {
		t.Skip("about 2 s on 2 cores: a GPU simulation run on the shared context; make test runs it")
	}
	g := newGPU(t)
	g.rigid.sumInIDOrder = true
	c := cpbf.New()
	sc := builtin(t, "duck-pond")
	for _, s := range []sim.Solver{g, c} {
		assign(t, s, "pbf.spacing=0.04")
		if err := s.Reset(sc); err != nil {
			t.Fatal(err)
		}
	}
	if gb, cb := g.Bodies(), c.Bodies(); len(gb) != len(sc.Bodies) || !slices.Equal(gb, cb) {
		t.Fatalf("after the reset, GPU bodies %+v, CPU %+v", gb, cb)
	}
	dt := frameDt / 4 // the default step (s_corr as given, ScorrPerStep = 1)
	var fg, fc sim.Frame
	for step := 1; step <= 12; step++ {
		stepBoth(t, g, c, step, dt, &fg, &fc)
	}
	for b := range fg.Bodies {
		if fg.Bodies[b].Origin != fc.Bodies[b].Origin {
			t.Errorf("body %d: origin %v on the GPU, %v on the CPU", b, fg.Bodies[b].Origin, fc.Bodies[b].Origin)
		}
	}
}

// stepBoth takes step number step on both solvers and fails when their frames differ by more than the rounding
// growth of that many steps: particles (but for the odd jump, maxJumps), body centres and rotations.
func stepBoth(t *testing.T, g *Solver, c *cpbf.Solver, step int, dt float64, fg, fc *sim.Frame) {
	t.Helper()
	if err := g.Step(dt); err != nil {
		t.Fatal(err)
	}
	if err := c.Step(dt); err != nil {
		t.Fatal(err)
	}
	g.Frame(fg)
	c.Frame(fc)
	diffs, center, rot := frameDiff(t, fg, fc, dt)
	if what := roundingExcess(diffs, center, rot, step, g.Cfg.Iterations); what != "" {
		t.Fatalf("step %d: %s (particles differ by up to %.3g m, centres by %.3g m, rotations by %.3g)",
			step, what, diffs[len(diffs)-1], center, rot)
	}
}

// A change of the rest density acts on the GPU as on the CPU: the bodies' inverse masses follow ρ0 from the next
// step on (through the body table and the reorder pass), and the two solvers stay within rounding growth of each
// other across the change — also across a restored snapshot taken before it, whose table holds the old masses.
func TestGPURestDensityChangeMatchesCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("about 2 s on 2 cores: a GPU simulation run on the shared context; make test runs it")
	}
	const spacing, steps, change = 0.04, 12, 4
	dt := frameDt / 4 // the default step (s_corr as given, ScorrPerStep = 1)
	c := cpbf.New()
	g := newGPU(t)
	g.rigid.sumInIDOrder = true
	resetPoolWithSpheres(t, c, spacing, thrown...)
	resetPoolWithSpheres(t, g, spacing, thrown...)
	var fg, fc sim.Frame
	for step := 1; step <= steps; step++ {
		if step == change {
			c.Cfg.RestDensity, g.Cfg.RestDensity = 700, 700
		}
		stepBoth(t, g, c, step, dt, &fg, &fc)
	}
	for i, b := range g.Bodies() {
		if want := rigid.BodyInvMass(700, thrown[i].density); b.InvMass != want || c.Bodies()[i].InvMass != want {
			t.Errorf("body %d: inverse mass %g on the GPU, %g on the CPU; want ρ0/ρ_body = %g", i, b.InvMass, c.Bodies()[i].InvMass, want)
		}
	}
	var st cpbf.State
	if err := g.SaveState(&st); err != nil {
		t.Fatal(err)
	}
	for k, w := range st.WInv {
		if b := st.Body[k]; b >= 0 && w != rigid.BodyInvMass(700, thrown[b].density) {
			t.Fatalf("particle %d of body %d has inverse mass %g on the GPU after the change", k, b, w)
		}
	}
	// The GPU's snapshot of the reset, restored (as after a non-finite step), holds the table of ρ0 = 1000; it
	// continues with ρ0 = 700 as a CPU solver reset with 700 does.
	g.restore()
	c = cpbf.New()
	c.Cfg.RestDensity = 700
	resetPoolWithSpheres(t, c, spacing, thrown...)
	for step := 1; step <= change; step++ {
		if err := c.Step(dt); err != nil {
			t.Fatal(err)
		}
		if err := g.Step(dt); err != nil {
			t.Fatal(err)
		}
		g.Frame(&fg)
		c.Frame(&fc)
		diffs, center, rot := frameDiff(t, &fg, &fc, dt)
		if what := roundingExcess(diffs, center, rot, step, g.Cfg.Iterations); what != "" {
			t.Fatalf("after the restore, step %d: %s (particles differ by up to %.3g m, centres by %.3g m, rotations by %.3g)",
				step, what, diffs[len(diffs)-1], center, rot)
		}
	}
}

// Two GPU runs with rigid bodies are bit-identical: particles, their bodies, and the bodies' poses.
func TestGPUBodyRunsAreBitIdentical(t *testing.T) {
	if testing.Short() {
		t.Skip("about 7 s on 2 cores: a GPU simulation run on the shared context; make test runs it")
	}
	run := func() (sim.Frame, []rigid.Body) {
		s := newGPU(t)
		resetPoolWithSpheres(t, s, 0.04, thrown...)
		return stepFrame(t, s, 30), s.Bodies()
	}
	a, ab := run()
	b, bb := run()
	for i := 0; i < a.N; i++ {
		if a.Pos[i] != b.Pos[i] || a.Vel[i] != b.Vel[i] || a.ID[i] != b.ID[i] || a.Rho[i] != b.Rho[i] || a.Body[i] != b.Body[i] {
			t.Fatalf("particle %d differs between runs: %v %v %d vs %v %v %d", i, a.Pos[i], a.Vel[i], a.Body[i], b.Pos[i], b.Vel[i], b.Body[i])
		}
	}
	if !slices.Equal(ab, bb) || !slices.Equal(a.Bodies, b.Bodies) {
		t.Fatalf("the bodies differ between runs: %+v vs %+v", ab, bb)
	}
}

// waterLevel is the mean height of the highest fluid particles in columns of a spacing away from a point, plus a
// particle radius: about a third of a spacing below the level the fluid's volume gives (the free surface is
// ragged), close enough to tell floating from sinking. sim/pbf's TestBuoyancy takes the level from the volume.
func waterLevel(f *sim.Frame, spacing float32, away [3]float32, keep float32) float64 {
	tops := map[[2]int]float32{}
	for i := 0; i < f.N; i++ {
		if f.Body[i] >= 0 {
			continue
		}
		x := f.Pos[i]
		if dx, dz := x[0]-away[0], x[2]-away[2]; dx*dx+dz*dz < keep*keep {
			continue
		}
		key := [2]int{int(x[0] / spacing), int(x[2] / spacing)}
		tops[key] = max(tops[key], x[1])
	}
	sum := 0.0
	for _, y := range tops {
		sum += float64(y)
	}
	return sum/float64(len(tops)) + float64(f.Radius)
}

// submerged is the fraction of a sphere of radius r below a level, for its centre at height cy.
func submerged(cy, r, level float64) float64 {
	d := math.Max(0, math.Min(2*r, level-(cy-r))) // height of the submerged cap
	return d * d * (3*r - d) / (4 * r * r * r)
}

// Spheres of half and of twice the water's density dropped into the pool, on the GPU: the light one floats and
// the heavy one sinks to the floor, each within a few spacings of where the CPU solver puts it after the same
// steps; and both stay rigid to float precision throughout — every pair of a body's particles keeps its distance.
// (sim/pbf's TestBuoyancy checks the floating fraction after 3 s; here 0.75 s, two substeps a frame, keep llvmpipe
// quick, so the light sphere is still bobbing: it is only required to float.)
func TestGPUBodiesFloatSinkAndStayRigid(t *testing.T) {
	if testing.Short() {
		t.Skip("about 15 s on 2 cores: a GPU simulation run on the shared context; make test runs it")
	}
	const spacing, frames, substeps = 0.04, 45, 2
	spheres := []sphere{
		{center: scene.Vec3{0.35, 0.45, 0.4}, radius: 0.12, density: 500},
		{center: scene.Vec3{0.85, 0.45, 0.4}, radius: 0.12, density: 2000},
	}
	g := newGPU(t)
	c := cpbf.New()
	for _, s := range []sim.Solver{g, c} {
		assign(t, s, "pbf.substeps=2")
	}
	sc := resetPoolWithSpheres(t, g, spacing, spheres...)
	resetPoolWithSpheres(t, c, spacing, spheres...)
	var f sim.Frame
	g.Frame(&f)
	// the rest shape: each body's particle positions by id at the reset
	byID := make([][4]float32, f.N)
	for i := 0; i < f.N; i++ {
		byID[f.ID[i]] = f.Pos[i]
	}
	bodies := g.Bodies()
	worst := 0.0
	for fr := 0; fr < frames; fr++ {
		for k := 0; k < substeps; k++ {
			if err := g.Step(frameDt / substeps); err != nil {
				t.Fatalf("frame %d: %v", fr, err)
			}
			if err := c.Step(frameDt / substeps); err != nil {
				t.Fatalf("CPU, frame %d: %v", fr, err)
			}
		}
		g.Frame(&f)
		pos := make([][4]float32, f.N)
		for i := 0; i < f.N; i++ {
			pos[f.ID[i]] = f.Pos[i]
		}
		for _, b := range bodies {
			for i := b.First; i < b.First+b.Count; i++ {
				for j := i + 1; j < b.First+b.Count; j++ {
					worst = math.Max(worst, math.Abs(dist(pos[i], pos[j])-dist(byID[i], byID[j])))
				}
			}
		}
	}
	t.Logf("rigidity: the largest change of a pairwise distance within a body: %.3g m", worst)
	if worst > 3e-7 { // 5 ulps of a 0.5 m coordinate
		t.Errorf("a body deformed by %.3g m, more than float rounding (3e-7 m)", worst)
	}
	var fc sim.Frame
	c.Frame(&fc)
	light, heavy := f.Bodies[0].Center, f.Bodies[1].Center
	level := waterLevel(&f, spacing, light, 2*float32(spheres[0].radius))
	frac := submerged(float64(light[1]), spheres[0].radius, level)
	floor := sc.Domain.Min[1] + spheres[1].radius
	t.Logf("after %d frames: light sphere at %.3f m (CPU %.3f m), %.0f%% under the water at %.3f m; heavy sphere at %.3f m (CPU %.3f m, floor %.3f m)",
		frames, light[1], fc.Bodies[0].Center[1], 100*frac, level, heavy[1], fc.Bodies[1].Center[1], floor)
	for b := range f.Bodies {
		d := dist3(f.Bodies[b].Center, fc.Bodies[b].Center)
		t.Logf("body %d: %.3g m (%.2g spacings) from the CPU solver's centre", b, d, d/spacing)
		if d > 2*spacing {
			t.Errorf("body %d: its centre is %.3g m (%.2g spacings) from the CPU solver's, want at most 2 spacings", b, d, d/spacing)
		}
	}
	if frac < 0.2 || frac > 0.8 {
		t.Errorf("the light sphere is %.0f%% under water: it should float", 100*frac)
	}
	if float64(heavy[1]) > floor+1.5*spacing {
		t.Errorf("the heavy sphere's centre is at %.3f m, want it on the floor (%.3f m)", heavy[1], floor)
	}
}

func dist(a, b [4]float32) float64 {
	dx, dy, dz := float64(a[0]-b[0]), float64(a[1]-b[1]), float64(a[2]-b[2])
	return math.Sqrt(dx*dx + dy*dy + dz*dz)
}

func dist3(a, b [3]float32) float64 {
	return dist([4]float32{a[0], a[1], a[2]}, [4]float32{b[0], b[1], b[2]})
}

// A non-finite value in a scene with bodies restores the newest finite snapshot with the body arrays (in the
// snapshot's particle order) and the body table: stepping on from it reproduces, bit for bit, a run that never
// failed.
func TestGPUNonFiniteIsRestoredWithBodies(t *testing.T) {
	if testing.Short() {
		t.Skip("about 8 s on 2 cores: a GPU simulation run on the shared context; make test runs it")
	}
	const spacing = 0.05
	drop := sphere{center: scene.Vec3{0.6, 0.4, 0.4}, radius: 0.12, density: 700, spin: [3]float32{1, 0, 2}}
	ref := newGPU(t)
	resetPoolWithSpheres(t, ref, spacing, drop)
	want := stepFrame(t, ref, snapInterval+5)

	s := newGPU(t)
	resetPoolWithSpheres(t, s, spacing, drop)
	f := stepFrame(t, s, snapInterval+3) // Frame waits for every step's statistics: nothing is pending
	// a body particle's velocity
	slot := slices.IndexFunc(f.Body, func(b int32) bool { return b == 0 })
	nan := float32(math.NaN())
	glh.Upload(s.vel, 16*slot, [][4]float32{{0, nan, 0, 0}})
	var nf *sim.NonFiniteError
	var err error
	for i := 0; i < 5 && err == nil; i++ {
		err = s.Step(frameDt / 2)
		if err == nil {
			err = s.Sync()
		}
	}
	if !errors.As(err, &nf) {
		t.Fatalf("after injecting NaN: %v, want a NonFiniteError", err)
	}
	if s.steps != snapInterval {
		t.Fatalf("restored step %d, want the snapshot of step %d", s.steps, snapInterval)
	}
	got := stepFrame(t, s, 5)
	for i := 0; i < got.N; i++ {
		if got.Pos[i] != want.Pos[i] || got.Vel[i] != want.Vel[i] || got.ID[i] != want.ID[i] || got.Body[i] != want.Body[i] {
			t.Fatalf("slot %d after the restore and 5 steps: %v %v id %d body %d; a run without the failure: %v %v id %d body %d",
				i, got.Pos[i], got.Vel[i], got.ID[i], got.Body[i], want.Pos[i], want.Vel[i], want.ID[i], want.Body[i])
		}
	}
	if !slices.Equal(got.Bodies, want.Bodies) {
		t.Fatalf("bodies after the restore and 5 steps: %+v; without the failure: %+v", got.Bodies, want.Bodies)
	}
}

// A fluid-only reset after one with bodies leaves no trace of them: the same steps as a fresh solver's, bit for
// bit, with no body arrays in the frame. Bad body specifications are refused.
func TestGPUFluidResetAfterBodies(t *testing.T) {
	run := func(s *Solver) sim.Frame {
		assign(t, s, "pbf.spacing=0.05")
		if err := s.Reset(builtin(t, "pool")); err != nil {
			t.Fatal(err)
		}
		return stepFrame(t, s, 5)
	}
	s := newGPU(t)
	resetPoolWithSpheres(t, s, 0.05, thrown...)
	if err := s.Step(frameDt / 2); err != nil {
		t.Fatal(err)
	}
	got, want := run(s), run(newGPU(t))
	if len(got.Body) != 0 || len(got.Bodies) != 0 || s.Bodies() != nil || s.Particles().Body != nil {
		t.Errorf("a fluid-only reset still reports bodies: %d body entries, %d bodies", len(got.Body), len(got.Bodies))
	}
	for i := 0; i < want.N; i++ {
		if got.Pos[i] != want.Pos[i] || got.Vel[i] != want.Vel[i] || got.ID[i] != want.ID[i] {
			t.Fatalf("slot %d: %v %v after bodies, %v %v fresh", i, got.Pos[i], got.Vel[i], want.Pos[i], want.Vel[i])
		}
	}
	sc := builtin(t, "pool")
	pos, vel, _ := simtest.SpheresInFluid(t, sc, 0.05, nil)
	for _, spec := range []rigid.BodySpec{{Density: 500}, {Particles: [][4]float32{{0.6, 0.5, 0.4}}, Density: 0}} {
		if err := s.ResetWithBodies(sc, 0.05, pos, vel, []rigid.BodySpec{spec}); err == nil {
			t.Errorf("a body %+v was accepted", spec)
		}
	}
}

func BenchmarkStepPool(b *testing.B)       { benchmarkPool(b, false) }
func BenchmarkStepPoolBodies(b *testing.B) { benchmarkPool(b, true) }

// benchmarkPool times whole steps of the pool at spacing 0.04 (4800 fluid particles), with or without the two
// spheres of TestGPUBodiesFloatSinkAndStayRigid (each 113 particles, replacing the fluid they cover), and reports
// the GPU time of each pass averaged over the steps.
func benchmarkPool(b *testing.B, bodies bool) {
	s := newGPU(b)
	assign(b, s, "pbf.spacing=0.04")
	if bodies {
		resetPoolWithSpheres(b, s, 0.04, sphere{center: scene.Vec3{0.35, 0.35, 0.4}, radius: 0.12, density: 500},
			sphere{center: scene.Vec3{0.85, 0.35, 0.4}, radius: 0.12, density: 2000})
	} else if err := s.Reset(builtin(b, "pool")); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		if err := s.Step(frameDt / 4); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Sync(); err != nil {
		b.Fatal(err)
	}
	var names []string
	ms := map[string]float64{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.Step(frameDt / 4); err != nil {
			b.Fatal(err)
		}
		if err := s.Sync(); err != nil {
			b.Fatal(err)
		}
		for _, p := range s.Stats().Passes {
			if _, ok := ms[p.Name]; !ok {
				names = append(names, p.Name)
			}
			ms[p.Name] += p.Ms
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/step")
	for _, name := range names {
		b.ReportMetric(ms[name]/float64(b.N), "ms-"+strings.ReplaceAll(name, " ", "-"))
	}
}

// trigProbe computes sin and cos of each angle on the GPU, as axisAngle in pbf_rigid.glsl does.
const trigProbe = `#version 430 core
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In { float x[]; };
layout(std430, binding = 1) writeonly buffer Out { vec2 sc[]; };
void main() {
	uint i = gl_GlobalInvocationID.x;
	if (i < uint(x.length())) sc[i] = vec2(sin(x[i]), cos(x[i]));
}
`

// The GL's sin and cos stay within trigAbsErr of the exact values over the half-angles axisAngle takes them of:
// the rotation bound of the GPU-against-CPU tests (rotationBound) rests on it.
func TestGPUTrigWithinRotationAllowance(t *testing.T) {
	ctx := gltest.Acquire(t)
	gltest.RequireCompute(t, ctx)
	prog, err := glh.NewProgram(fstest.MapFS{"trig.comp": {Data: []byte(trigProbe)}}, nil, "trig.comp")
	if err != nil {
		t.Fatal(err)
	}
	defer prog.Delete()
	// every angle of [0, π] in steps of π/8192, and small ones down to 1e-7 (ω of a nearly converged iteration)
	var xs []float32
	for k := 0; k <= 8192; k++ {
		xs = append(xs, float32(math.Pi*float64(k)/8192))
	}
	for x := 1e-7; x < 1e-2; x *= 1.1 {
		xs = append(xs, float32(x))
	}
	in, err := glh.NewBuffer(4*len(xs), gl.STATIC_DRAW)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Delete()
	out, err := glh.NewBuffer(8*len(xs), gl.DYNAMIC_READ)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Delete()
	glh.Upload(in, 0, xs)
	prog.Use()
	gl.BindBufferBase(gl.SHADER_STORAGE_BUFFER, 0, in.ID())
	gl.BindBufferBase(gl.SHADER_STORAGE_BUFFER, 1, out.ID())
	gl.DispatchCompute(uint32(len(xs)+63)/64, 1, 1)
	gl.MemoryBarrier(gl.BUFFER_UPDATE_BARRIER_BIT)
	sc := make([][2]float32, len(xs))
	glh.Read(out, 0, sc)
	if err := glh.CheckError("trig probe"); err != nil {
		t.Fatal(err)
	}
	var worstSin, worstCos float64
	var atSin, atCos float32
	for i, x := range xs {
		s, c := math.Sincos(float64(x))
		if d := math.Abs(float64(sc[i][0]) - s); d > worstSin {
			worstSin, atSin = d, x
		}
		if d := math.Abs(float64(sc[i][1]) - c); d > worstCos {
			worstCos, atCos = d, x
		}
	}
	t.Logf("%s: sin off by up to %.3g (at %g), cos by up to %.3g (at %g); allowance %.3g", ctx, worstSin, atSin, worstCos, atCos, trigAbsErr)
	if worstSin > trigAbsErr || worstCos > trigAbsErr {
		t.Errorf("the GL's sin is off by up to %.3g (at %g) and cos by up to %.3g (at %g), beyond the %.3g the rotation bound allows",
			worstSin, atSin, worstCos, atCos, trigAbsErr)
	}
}
