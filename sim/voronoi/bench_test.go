package voronoi

import (
	"fmt"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

// benchScene is the dam break of the bench: a 0.2 × 0.3 × 0.2 m column in a 0.6 × 0.5 × 0.2 m tank, at whatever
// spacing gives the particle count asked for.
const benchScene = damBreak

// BenchmarkStep times steps of the dam break after 10 frames (the column has begun to fall and spread) at the
// particle counts of the paper's Table 1 (13k, 35k, 100k), reporting the seconds a step takes and its split into
// the paper's stages: building the diagram (with the removal of close particles), clipping it, the projection
// (components, neighbourhoods, divergence, the solve, the gradient, the volume correction) and advection.
func BenchmarkStep(b *testing.B) {
	for _, n := range []int{13000, 35000, 100000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			s := newSolver(b, benchScene, fmt.Sprintf("voronoi.particles=%d", n))
			runFrames(b, s, 10, nil)
			benchmarkSteps(b, s)
		})
	}
}

// BenchmarkSplash times steps of the shipped splash scene (Figure 7: a ball thrown into a shallow pool, about 10k
// particles) after 20 frames, when the ball has sunk into the pool and thrown up its crown, like BenchmarkStep.
// Issue 30 holds its cost per particle to 1.5× the dam break's: here almost every cell reaches past its sphere
// (refined/particle), against a third in the dam break.
func BenchmarkSplash(b *testing.B) {
	sc, err := scene.Builtin("splash")
	if err != nil {
		b.Fatal(err)
	}
	s := newSolverOn(b, sc)
	runFrames(b, s, 20, nil)
	benchmarkSteps(b, s)
}

// benchmarkSteps times b.N steps of s at the frame's substep and reports the seconds a step takes, its split
// into the paper's stages, the microseconds a particle and how many cells the free surface clipped.
func benchmarkSteps(b *testing.B, s *Solver) {
	k := s.BeginFrame(sim.FrameDt)
	stages := map[string]float64{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.Step(sim.FrameDt / float64(k)); err != nil {
			b.Fatal(err)
		}
		for _, p := range s.Stats().Passes {
			stages[stageOf(p.Name)] += p.Ms
		}
	}
	b.StopTimer()
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/step")
	b.ReportMetric(b.Elapsed().Seconds()*1e6/float64(b.N)/float64(len(s.x)), "µs/particle")
	for _, name := range []string{"diagram", "clipping", "projection", "advection"} {
		b.ReportMetric(stages[name]/1000/float64(b.N), name+"-s/step")
	}
	st := s.clp.Stats()
	b.ReportMetric(float64(st.Refined)/float64(len(s.x)), "refined/particle")
	b.ReportMetric(float64(st.Polygons)/float64(max(st.Refined, 1)), "polys/refined")
	b.ReportMetric(float64(len(s.x)), "particles")
}

// stageOf groups the solver's passes into the paper's stages.
func stageOf(pass string) string {
	switch pass {
	case "remove", "diagram":
		return "diagram"
	case "clipping":
		return "clipping"
	case "advection":
		return "advection"
	}
	return "projection"
}
