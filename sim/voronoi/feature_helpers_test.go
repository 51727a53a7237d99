package voronoi

import (
	"bytes"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

// handsScene is a small pool (768 particles at 2.5 cm) with a sphere obstacle moving back and forth, an emitter
// pouring into it and a blast under its surface at 0.1 s: every kind of state the tools and save files carry
// except a body (simtest.HandsScene is the same with a floating sphere).
const handsScene = `{
  "name": "hands", "domain": {"min": [0, 0, 0], "max": [0.4, 0.4, 0.2]},
  "particles": {"spacing": 0.025},
  "fluid": [{"shape": "box", "center": [0.2, 0.075, 0.1], "size": [0.4, 0.15, 0.2]}],
  "obstacles": [{"shape": "sphere", "center": [0.05, 0.1, 0.1], "radius": 0.03,
    "motion": {"axis": [1, 0, 0], "amplitude": 0.02, "period": 0.5}}],
  "emitters": [{"center": [0.2, 0.33, 0.1], "direction": [0, -1, 0], "radius": 0.02, "speed": 1}],
  "blasts": [{"time": 0.1, "center": [0.3, 0.05, 0.1], "radius": 0.08, "speed": 1}]
}`

// tools are a paddle in the pool and a pouring emitter above it.
func tools() sim.Tools {
	return sim.Tools{
		Paddle:  &sim.Paddle{Center: [3]float32{0.3, 0.1, 0.1}, Radius: 0.04},
		Emitter: &scene.Emitter{Center: scene.Vec3{0.1, 0.3, 0.1}, Direction: scene.Vec3{0, -1, 0}, Radius: 0.02, Speed: 0.7},
	}
}

// encoded is a solver's whole state file, bodies included.
func encoded(t testing.TB, s *Solver) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := s.WriteState(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// sameState fails unless two solvers hold bit-identical states: particles (positions, velocities, ids and the
// pressures the next solve starts from), the emitters' streams and the bodies.
func sameState(t testing.TB, a, b *Solver, what string) {
	t.Helper()
	var x, y State
	a.SaveState(&x)
	b.SaveState(&y)
	if x.N() != y.N() || x.Time != y.Time || x.Steps != y.Steps || x.Spacing != y.Spacing {
		t.Fatalf("%s: %d particles at t=%g step %d spacing %g against %d at t=%g step %d spacing %g", what,
			x.N(), x.Time, x.Steps, x.Spacing, y.N(), y.Time, y.Steps, y.Spacing)
	}
	for i := range x.Pos {
		if x.Pos[i] != y.Pos[i] || x.Vel[i] != y.Vel[i] || x.ID[i] != y.ID[i] || x.Pres[i] != y.Pres[i] {
			t.Fatalf("%s: particle %d differs: %v %v %d %g against %v %v %d %g", what, i,
				x.Pos[i], x.Vel[i], x.ID[i], x.Pres[i], y.Pos[i], y.Vel[i], y.ID[i], y.Pres[i])
		}
	}
	if a.BodyCount() != b.BodyCount() {
		t.Fatalf("%s: %d bodies against %d", what, a.BodyCount(), b.BodyCount())
	}
	for k := 0; k < a.BodyCount(); k++ {
		p, _ := a.Body(k)
		q, _ := b.Body(k)
		if p.C != q.C || p.Q != q.Q || p.V != q.V || p.W != q.W || p.Driving != q.Driving || p.Drive != q.Drive {
			t.Fatalf("%s: body %d differs: at %v moving %v %v against at %v moving %v %v", what, k, p.C, p.V, p.W, q.C, q.V, q.W)
		}
	}
	if !bytes.Equal(encoded(t, a), encoded(t, b)) {
		t.Fatalf("%s: the state files differ (emitters' streams or bodies): %v %g against %v %g", what, x.Emitted, x.ToolAcc, y.Emitted, y.ToolAcc)
	}
}

// checkIDs fails unless the ids are 0..N−1 each once and every per-particle array holds N.
func checkIDs(t testing.TB, s *Solver) {
	t.Helper()
	n := len(s.x)
	if len(s.v) != n || len(s.id) != n || len(s.p) != n {
		t.Fatalf("%d positions, %d velocities, %d ids, %d pressures", n, len(s.v), len(s.id), len(s.p))
	}
	seen := make([]bool, n)
	for _, id := range s.id {
		if int(id) >= n || seen[id] {
			t.Fatalf("ids are not 0..%d each once (%d)", n-1, id)
		}
		seen[id] = true
	}
}
