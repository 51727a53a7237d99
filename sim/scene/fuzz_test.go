package scene

import (
	"io/fs"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/slosh/slosh/assets"
)

// fuzzSeeds are the smallest scenes of each bad case met (issue 11), beside the valid ones FuzzScene adds.
var fuzzSeeds = []string{
	// a valid scene with one of everything
	`{"name":"all","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"spacing":0.1},
	"fluid":[{"shape":"box","center":[0.5,0.3,0.5],"size":[0.6,0.4,0.6],"velocity":[0.1,0,0]}],
	"obstacles":[{"shape":"capsule","a":[0.2,0.8,0.2],"b":[0.8,0.8,0.2],"radius":0.05,"motion":{"axis":[0,1,0],"amplitude":0.05,"period":2}}],
	"bodies":[{"shape":"sphere","center":[0.5,0.8,0.7],"radius":0.1,"density":500,"spin":[0,1,0]}],
	"emitters":[{"center":[0.5,0.9,0.5],"direction":[0,-1,0],"radius":0.05,"speed":1,"stop":2}],
	"blasts":[{"time":0.5,"center":[0.5,0.2,0.5],"radius":0.2,"speed":3}],
	"camera":{"eye":[2,1,2],"target":[0.5,0.3,0.5],"fov":45},"params":{"pbf.iterations":4}}`,
	`{"name":"m","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"count":500},
	"fluid":[{"shape":"cylinder","center":[0.5,0.3,0.5],"radius":0.3,"height":0.4,"rotation":[10,0,0]}],
	"obstacles":[{"shape":"mesh","mesh":"bunny.obj","center":[0.5,0.8,0.5],"extent":0.2}]}`,
	// materials, and blocks naming them, one unknown
	`{"name":"mat","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"spacing":0.1},
	"materials":[{"name":"oil","density":800,"viscosity":0.05,"color":[0.9,0.7,0.1]},{"name":"heavy","density":10000,"color":[1,0,0]}],
	"fluid":[{"shape":"box","center":[0.5,0.2,0.5],"size":[1,0.4,1],"material":"heavy"},{"shape":"box","center":[0.5,0.6,0.5],"size":[1,0.4,1],"material":"oil"},{"shape":"sphere","center":[0.5,0.8,0.5],"radius":0.1}]}`,
	`{"name":"mat","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"spacing":0.1},"materials":[{"name":"oil","density":1e300,"viscosity":1e300,"color":[1e300,0,0]}],
	"fluid":[{"shape":"box","center":[0.5,0.2,0.5],"size":[1,0.4,1],"material":"oli"}]}`,
	// an emitter far wider than the domain (makeslice: cap out of range; out of memory)
	`{"name":"e","domain":{"min":[0,0,0],"max":[1000,0.004,0.004]},"particles":{"spacing":0.001},"fluid":[{"shape":"box","center":[0.002,0.002,0.002],"size":[0.004,0.004,0.004]}],"emitters":[{"center":[500,0.002,0.002],"direction":[0,1,0],"radius":1000,"speed":1}]}`,
	// more particles than the limit (22 s and 3 GB), and exactly the limit by count
	`{"name":"b","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"spacing":0.0035},"fluid":[{"shape":"box","center":[0.5,0.5,0.5],"size":[1,1,1]}]}`,
	`{"name":"c","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"count":16777216},"fluid":[{"shape":"box","center":[0.5,0.5,0.5],"size":[1,1,1]}]}`,
	// geometry that overflows
	`{"name":"r","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"spacing":0.1},"fluid":[{"shape":"box","center":[0.5,0.5,0.5],"size":[1e308,1,1],"rotation":[1e308,0,0]}]}`,
	`{"name":"k","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"spacing":0.1},"fluid":[{"shape":"capsule","a":[-1e300,0,0],"b":[1e300,0,0],"radius":0.1}]}`,
	// values that reached the solvers unnamed: an empty float32 extent, a zero float32 spacing and density
	`{"name":"z","domain":{"min":[0,0,0],"max":[1e-300,1,1]},"particles":{"spacing":1e-300},"fluid":[{"shape":"sphere","center":[0,0.5,0.5],"radius":0.1}],"bodies":[{"shape":"sphere","center":[0,0.5,0.5],"radius":0.1,"density":1e-300}]}`,
	// counts over the limits
	`{"name":"n","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"spacing":0.1},"fluid":[{"shape":"box","center":[0.5,0.5,0.5],"size":[1,1,1]}],"emitters":[` +
		strings.TrimSuffix(strings.Repeat(`{"center":[0.5,0.5,0.5],"direction":[0,1,0],"radius":0.05,"speed":1},`, MaxEmitters+1), ",") + `]}`,
	// a long field name, a long string value, a long number
	`{"` + strings.Repeat("x", 200) + `":1}`,
	`{"name":"s","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"spacing":0.1},"fluid":[{"shape":"` + strings.Repeat("t", 200) + `"}]}`,
	`{"particles":{"count":1` + strings.Repeat("0", 200) + `}}`,
	// a byte-order mark, UTF-16
	"\xEF\xBB\xBF{}",
	"\xFF\xFE{\x00}\x00",
	// a key given twice, once in another case; null where a value is required and where a part is optional
	// (issue 24)
	`{"name":"a","name":"b","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"spacing":0.1},"fluid":[{"shape":"sphere","center":[0.5,0.5,0.5],"radius":0.2,"Radius":0.3}]}`,
	`{"name":"x","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"spacing":null},"fluid":[{"shape":"sphere","center":[0.5,null,0.5],"radius":0.2}],"camera":null}`,
	// 2D scenes: one with one of everything, a concave polygon, a goal asking for more crates than there are,
	// 3D parts in a 2D scene
	`{"name":"flat","mode":"reduced","flat":{"size":[2,1.2],"bodies":[{"shape":"box","center":[0.3,0.6],"size":[0.12,0.12],"density":600,"crate":true,"angle":10},
	{"shape":"circle","center":[1,0.6],"radius":0.1,"static":true},{"shape":"polygon","center":[1.5,0.3],"points":[[-0.1,-0.1],[0.1,-0.1],[0,0.1]],"density":300,"friction":0.5,"restitution":0.2}],
	"currents":[{"points":[[0.2,0.3],[1,0.5],[1.8,0.3]],"speed":0.4,"width":0.15,"key":1}],"goal":{"zone":{"min":[1.6,0.1],"max":[1.95,0.5]},"crates":1,"time":60,"next":"reduced-2"}}}`,
	`{"name":"c","flat":{"size":[1,1],"bodies":[{"shape":"polygon","center":[0.5,0.5],"points":[[0,0],[0.1,0],[0.02,0.02],[0,0.1]],"density":300}]}}`,
	`{"name":"g","flat":{"size":[1,1],"bodies":[{"shape":"box","center":[0.5,0.5],"size":[0.1,0.1],"density":300}],"goal":{"zone":{"min":[0,0],"max":[0.2,0.2]},"crates":2}}}`,
	`{"name":"d","domain":{"min":[0,0,0],"max":[1,1,1]},"flat":{"size":[1,1]}}`,
	// a pipe or device as a mesh
	`{"name":"p","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"spacing":0.1},"fluid":[{"shape":"mesh","mesh":"/dev/zero","center":[0.5,0.5,0.5],"extent":0.3}]}`,
}

// FuzzScene feeds the scene reader arbitrary bytes: it must refuse them with a message of a readable length, or
// return a scene that validates, samples inside its domain within the limits, and writes back to a file that
// reads again. Run by go test on the seeds (the shipped scenes and the bad cases above, plus testdata/fuzz);
// make fuzz runs it for longer.
func FuzzScene(f *testing.F) {
	for _, name := range BuiltinNames() {
		data, err := fs.ReadFile(assets.Scenes(), name+".json")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	if data, err := os.ReadFile("testdata/bunny-obstacle.json"); err == nil {
		f.Add(data)
	}
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := Parse(data, "testdata/fuzz.json")
		if err != nil {
			if len(err.Error()) > 3000 {
				t.Fatalf("a %d-byte message: %.300s", len(err.Error()), err)
			}
			return
		}
		if err := sc.Validate(); err != nil {
			t.Fatalf("Parse accepted a scene Validate refuses: %v", err)
		}
		out, err := sc.Marshal()
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		if _, err := Parse(out, "testdata/fuzz.json"); err != nil {
			t.Fatalf("the scene written back does not read: %v\n%s", err, out)
		}
		d := sc.Particles.Spacing
		if d == 0 {
			return // by count: the spacing search is SpacingFor's, tested on its own
		}
		for k := range sc.Emitters {
			if n := len(sc.Emitters[k].Disc(d)); n > MaxDiscPoints || n == 0 {
				t.Fatalf("emitters[%d]: a disc of %d points", k, n)
			}
		}
		if sc.visitRange(d).count() > 2e5 {
			return // sampling large scenes is too slow to fuzz; CheckSpacing bounded them
		}
		ps, err := sc.Sample(d)
		if err != nil {
			t.Fatalf("Sample at the scene's own spacing: %v", err)
		}
		least := sc.leastParticles(d)
		if float64(len(ps)) < least {
			t.Fatalf("%d particles, fewer than the lower bound %g", len(ps), least)
		}
		for _, p := range ps {
			if p.Material < 0 || p.Material >= sc.MaterialCount() {
				t.Fatalf("particle %v has material number %d of %d", p.Pos, p.Material, sc.MaterialCount())
			}
			for c := 0; c < 3; c++ {
				if !(p.Pos[c] > sc.Domain.Min[c] && p.Pos[c] < sc.Domain.Max[c]) || math.IsNaN(p.Vel[c]) {
					t.Fatalf("particle %v (velocity %v) outside the domain %v–%v", p.Pos, p.Vel, sc.Domain.Min, sc.Domain.Max)
				}
			}
		}
		if _, err := sc.SampleBodies(d); err != nil && !strings.Contains(err.Error(), "holds no particle") {
			t.Fatalf("SampleBodies: %v", err)
		}
	})
}
