package app

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/scene"
)

// capSolver is a solver whose frames take n substeps under a cap of fake.substeps_max = 8.
type capSolver struct {
	sim.Solver
	set *param.Set
}

func newCapSolver() *capSolver {
	s := &capSolver{set: param.NewSet()}
	max := int32(8)
	s.set.Int(&max, param.Spec{Name: "fake.substeps_max", Min: 1, Max: 256})
	return s
}

func (s *capSolver) Params() *param.Set             { return s.set }
func (s *capSolver) Reset(*scene.Scene) error       { return nil }
func (s *capSolver) Stats() sim.Stats               { return sim.Stats{} }
func (s *capSolver) BeginFrame(frameDt float64) int { return 8 }
func (s *capSolver) Step(float64) error             { return nil }
func (s *capSolver) Frame(*sim.Frame)               {}
func (s *capSolver) Name() string                   { return "fake" }

// A mode at its substep cap frame after frame is said once, after capFrames frames, naming the cap; a frame below
// the cap starts the count again.
func TestCapWatch(t *testing.T) {
	s := newCapSolver()
	var c capWatch
	said := 0
	for f := 1; f <= 3*capFrames; f++ {
		n := 8
		if f == capFrames/2 {
			n = 3 // one frame under the cap
		}
		if msg := c.frame(s, n); msg != "" {
			said++
			if f != capFrames/2+capFrames || !strings.Contains(msg, "fake.substeps_max = 8") {
				t.Errorf("frame %d: %q", f, msg)
			}
		}
	}
	if said != 1 {
		t.Errorf("said %d times, want once", said)
	}
}

// The solvers' warnings reach the command line: sph of fluids from 1 to 10⁵ kg/m³ (the sweep's 16 fluids: minutes
// for ten frames at the substep cap, without a word), and voronoi with 64 emitters.
func TestSolverWarnings(t *testing.T) {
	var mats, fluid []string
	for k := 0; k < 16; k++ {
		d := strconv.FormatFloat(math.Pow(10, float64(k)/3), 'g', 4, 64) // 1 to 10⁵ kg/m³
		mats = append(mats, `{"name": "m`+string(rune('a'+k))+`", "density": `+d+`}`)
		fluid = append(fluid, `{"shape": "box", "center": [`+sprintG(0.025+0.05*float64(k%8))+`, 0.05, `+sprintG(0.05+0.1*float64(k/8))+`], "size": [0.05, 0.1, 0.1], "material": "m`+string(rune('a'+k))+`"}`)
	}
	js := `{"name": "sixteen", "domain": {"min": [0, 0, 0], "max": [0.4, 0.3, 0.2]}, "particles": {"spacing": 0.02},
 "materials": [` + strings.Join(mats, ", ") + `], "fluid": [` + strings.Join(fluid, ", ") + `]}`
	sc, err := scene.Parse([]byte(js), "sixteen.json")
	if err != nil {
		t.Fatal(err)
	}
	st, err := prepare(Modes(), &Options{Scene: "pool", Mode: "sph"})
	if err != nil {
		t.Fatal(err)
	}
	st.sc = sc
	var out strings.Builder
	ss, err := openSession(Modes(), st, glInfo{}, &out)
	if err != nil {
		t.Fatal(err)
	}
	ss.Close()
	if !strings.Contains(out.String(), "slosh: warning: sph: the fluids' rest densities range from 1 to 1e+05 kg/m³, a ratio of 1e+05, beyond the 100") {
		t.Errorf("sph of 16 fluids said: %q", out.String())
	}

	var em []string
	for k := 0; k < 64; k++ {
		em = append(em, `{"center": [`+sprintG(0.1+0.8*float64(k%8)/8)+`, 0.9, `+sprintG(0.1+0.8*float64(k/8)/8)+`], "direction": [0, -1, 0], "radius": 0.04, "speed": 2}`)
	}
	js = `{"name": "sprinklers", "domain": {"min": [0, 0, 0], "max": [1, 1, 1]}, "particles": {"spacing": 0.02},
 "fluid": [{"shape": "box", "center": [0.5, 0.05, 0.5], "size": [1, 0.1, 1]}], "emitters": [` + strings.Join(em, ", ") + `]}`
	if st.sc, err = scene.Parse([]byte(js), "sprinklers.json"); err != nil {
		t.Fatal(err)
	}
	st.mode, _ = findMode(Modes(), "voronoi")
	out.Reset()
	if ss, err = openSession(Modes(), st, glInfo{}, &out); err != nil {
		t.Fatal(err)
	}
	ss.Close()
	if !strings.Contains(out.String(), "slosh: warning: voronoi: the scene's 64 emitters pour about") {
		t.Errorf("voronoi with 64 emitters said: %q", out.String())
	}

	st.sc, _ = scene.Builtin("oil-and-water")
	st.mode, _ = findMode(Modes(), "sph")
	out.Reset()
	if ss, err = openSession(Modes(), st, glInfo{}, &out); err != nil {
		t.Fatal(err)
	}
	ss.Close()
	if strings.Contains(out.String(), "warning") {
		t.Errorf("a shipped scene within the method's range warned: %q", out.String())
	}
}

func sprintG(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
