package game

import (
	"fmt"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim"
)

// figure56 is Figure 5.6's setting: 73 modes on a 65×65 grid (a square tank), 15 bodies of about ten panels each
// (about 147 panels), a drawn current stirring them.
func figure56() string {
	var b strings.Builder
	b.WriteString(`{"name":"figure-5.6","flat":{"size":[2,2],"bodies":[`)
	for i := 0; i < 15; i++ {
		x, y := 0.3+0.35*float64(i%5), 0.5+0.45*float64(i/5)
		if i > 0 {
			b.WriteString(",")
		}
		if i%2 == 0 {
			fmt.Fprintf(&b, `{"shape":"box","center":[%g,%g],"size":[0.08,0.08],"density":1000,"crate":true}`, x, y)
		} else {
			fmt.Fprintf(&b, `{"shape":"circle","center":[%g,%g],"radius":0.045,"density":1000}`, x, y)
		}
	}
	b.WriteString(`],"currents":[{"points":[[0.2,0.3],[1,1.2],[1.8,0.3]],"speed":0.5,"width":0.3}]}}`)
	return b.String()
}

// BenchmarkFigure56 steps Figure 5.6's game (Table 5.1's breakdown: advect 0.744, diffuse 0.005, panel solves
// 5.6, feedback naive 41.2 and quadtree 5.8 ms) with the quadtree and the naive feedback, and reports each stage's
// mean ms per step beside the whole step.
func BenchmarkFigure56(b *testing.B) {
	for _, fb := range []string{"quadtree", "naive"} {
		b.Run(fb, func(b *testing.B) {
			s := newGame(b, figure56(), "reduced.feedback="+fb, "reduced.substeps=1", "reduced.substeps_max=1")
			frames(b, s, 10)
			stages := map[string]float64{}
			var order []string
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := s.Step(sim.FrameDt); err != nil {
					b.Fatal(err)
				}
				for _, p := range s.Stats().Passes {
					if _, ok := stages[p.Name]; !ok {
						order = append(order, p.Name)
					}
					stages[p.Name] += p.Ms
				}
			}
			for _, name := range order {
				b.ReportMetric(stages[name]/float64(b.N), strings.ReplaceAll(name, " ", "_")+"_ms")
			}
			b.ReportMetric(float64(s.sys.Panels()), "panels")
			b.ReportMetric(float64(s.solve.Images), "mirrored")
		})
	}
}
