package flip

import (
	"os"
	"testing"
	"time"

	"github.com/slosh/slosh/sim/simtest"
)

func TestDiag7(t *testing.T) {
	sc := simtest.Parse(t, `{
  "name": "float", "domain": {"min": [0, 0, 0], "max": [0.5, 0.45, 0.5]},
  "particles": {"spacing": 0.025},
  "fluid": [{"shape": "box", "center": [0.25, 0.1, 0.25], "size": [0.5, 0.2, 0.5]}],
  "bodies": [{"shape": "sphere", "center": [0.25, 0.2, 0.25], "radius": 0.08, "density": 500}]
}`)
	s := newSolver(t, sc, "flip.cell="+os.Getenv("CELL"), os.Getenv("SETS"))
	t0 := time.Now()
	var sum float64
	n := 0
	for f := 0; f < 150; f++ {
		frames(t, s, 1)
		b := &s.bodies[0]
		lv := level(s, 0.13, 0.37)
		if f >= 90 {
			sum += (lv - b.c[1]) / 0.08
			n++
		}
		if f%15 == 14 {
			t.Logf("f%d c=%.4f v=%.3f level %.4f (level-c)/r %.3f force %.2f weight %.2f", f, b.c[1], b.v[1], lv, (lv-b.c[1])/0.08, b.force[1], b.mass*9.81)
		}
	}
	t.Logf("cell %s particles %d mean (level-c)/r over the last second %.3f; %v", os.Getenv("CELL"), len(s.x), sum/float64(n), time.Since(t0))
}

func TestDiag8(t *testing.T) {
	sc := simtest.Parse(t, `{
  "name": "float", "domain": {"min": [0, 0, 0], "max": [0.5, 0.45, 0.5]},
  "particles": {"spacing": 0.025},
  "fluid": [{"shape": "box", "center": [0.25, 0.1, 0.25], "size": [0.5, 0.2, 0.5]}]`+os.Getenv("BODY")+`
}`)
	s := newSolver(t, sc, "flip.cell=0.05")
	for f := 0; f < 150; f++ {
		frames(t, s, 1)
		if f%50 == 0 || f == 149 {
			var top [20]float64
			for _, p := range s.x {
				i := min(19, int(p[0]/0.025))
				if p[2] > 0.2 && p[2] < 0.3 && float64(p[1]) > top[i] {
					top[i] = float64(p[1])
				}
			}
			t.Logf("f%d top by x: %.3f", f, top)
		}
	}
	if len(s.bodies) > 0 {
		t.Logf("body c %.3f", s.bodies[0].c)
	}
	t.Logf("particles %d", len(s.x))
}

func TestDiag9(t *testing.T) {
	sc := simtest.Parse(t, `{
  "name": "float", "domain": {"min": [0, 0, 0], "max": [0.5, 0.45, 0.5]},
  "particles": {"spacing": 0.025},
  "fluid": [{"shape": "box", "center": [0.25, 0.1, 0.25], "size": [0.5, 0.2, 0.5]}]`+os.Getenv("BODY")+`
}`)
	s := newSolver(t, sc, "flip.cell=0.05", os.Getenv("SETS"))
	for f := 0; f < 150; f++ {
		frames(t, s, 1)
		if f%30 == 0 || f == 149 {
			var bands [10]int
			inside := 0
			for _, p := range s.x {
				bands[min(9, int(p[1]/0.025))]++
				if len(s.bodies) > 0 {
					sh := s.bodies[0].posed()
					if d := sh.Distance([3]float64{float64(p[0]), float64(p[1]), float64(p[2])}); d < 0 {
						inside++
					}
				}
			}
			var cap float64
			for c := range s.sys {
				cap += s.rhoMax[c]
			}
			t.Logf("f%d bands %v inside %d", f, bands, inside)
		}
	}
}

func TestDiag10(t *testing.T) {
	sc := simtest.Parse(t, `{
  "name": "float", "domain": {"min": [0, 0, 0], "max": [0.5, 0.45, 0.5]},
  "particles": {"spacing": 0.025},
  "fluid": [{"shape": "box", "center": [0.25, 0.1, 0.25], "size": [0.5, 0.2, 0.5]}],
  "bodies": [{"shape": "sphere", "center": [0.25, 0.2, 0.25], "radius": 0.08, "density": 500}]
}`)
	s := newSolver(t, sc, "flip.cell="+os.Getenv("CELL"), os.Getenv("SETS"))
	s.DriveBody(0, [3]float32{}, true)
	for f := 0; f < 90; f++ {
		frames(t, s, 1)
	}
	b := &s.bodies[0]
	lv := level(s, 0.13, 0.37) + s.spacing/2
	// the sphere's volume below the level
	d := lv - (b.c[1] - 0.08)
	vsub := 3.14159265 * d * d * (3*0.08 - d) / 3
	t.Logf("cell %s level %.4f c %.3f: force %.2f N, ρ g V_sub %.2f N (V_sub/V %.2f)", os.Getenv("CELL"), lv, b.c[1], b.force[1], 1000*9.81*vsub, vsub/(4.0/3*3.14159265*0.08*0.08*0.08))
}
