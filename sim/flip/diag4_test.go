package flip

import (
	"os"
	"testing"

	"github.com/slosh/slosh/sim/simtest"
)

const floatScene = `{
  "name": "float", "domain": {"min": [0, 0, 0], "max": [0.8, 0.6, 0.8]},
  "particles": {"spacing": 0.025},
  "fluid": [{"shape": "box", "center": [0.4, 0.15, 0.4], "size": [0.8, 0.3, 0.8]}],
  "bodies": [{"shape": "box", "center": [0.4, 0.33, 0.4], "size": [0.4, 0.1, 0.4], "density": 500}]
}`

func TestDiag4(t *testing.T) {
	sets := []string{"flip.cell=0.05"}
	if e := os.Getenv("SETS"); e != "" {
		sets = append(sets, e)
	}
	s := newSolver(t, simtest.Parse(t, floatScene), sets...)
	for f := 0; f < 120; f++ {
		frames(t, s, 1)
		if f%10 == 9 {
			b := &s.bodies[0]
			top := level(s, 0.15, 0.65)
			bottom := 0.0
			_ = bottom
			t.Logf("f%d c=%.4f v=%.3f w=%.3v level %.3f submerged %.3f vmax %.3f it %v", f, b.c[1], b.v[1], b.w, top, (top-(b.c[1]-0.05))/0.1, s.Stats().MaxSpeed, s.last.pressure.Iterations)
		}
	}
}
