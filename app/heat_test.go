package app

import (
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/go-gl/mathgl/mgl32"

	"github.com/slosh/slosh/gpu/gltest"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/replay"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/ui"
)

// The melting point and solidifying point of waxScene's wax, °C.
const (
	waxMelts  = 45
	waxSets   = 40
	waxNumber = 1 // wax's material number; jelly is 2
)

// waxScene writes a scene that opens in mode sph: a 10 cm block of rigid wax (20 °C, melting at 45 °C, setting at
// 40 °C) on the floor of a tall tank, and an elastic jelly the drop-body button may drop; about 125 particles.
func waxScene(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "wax.json")
	data := `{
  "name": "wax",
  "mode": "sph",
  "domain": {"min": [0, 0, 0], "max": [0.3, 0.4, 0.2]},
  "particles": {"spacing": 0.02},
  "materials": [
    {"name": "wax", "kind": "rigid", "density": 900, "color": [0.15, 0.3, 0.85], "temperature": 20, "diffusivity": 0.0003,
     "youngs_modulus": 20000, "poisson_ratio": 0.3, "phase_change": {"solidifying": 40, "melting": 45}, "viscosity": 0.2},
    {"name": "jelly", "kind": "elastic", "density": 1000, "color": [0.85, 0.2, 0.2], "temperature": 20,
     "youngs_modulus": 10000, "poisson_ratio": 0.3}
  ],
  "fluid": [{"shape": "box", "center": [0.15, 0.05, 0.1], "size": [0.1, 0.1, 0.1], "material": "wax"}],
  "camera": {"eye": [0.15, 0.3, 0.55], "target": [0.15, 0.06, 0.1], "fov": 45}
}`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// hotter counts the frame's particles of material mat warmer than temp, and returns their ids.
func hotter(f *sim.Frame, mat uint8, temp float32) []uint32 {
	var ids []uint32
	for i := 0; i < f.N && i < len(f.Temperature); i++ {
		if f.Material[i] == mat && f.Temperature[i] > temp {
			ids = append(ids, f.ID[i])
		}
	}
	return ids
}

// savedTemperatures are the temperatures of a saved state's particles, in id order.
func savedTemperatures(t *testing.T, path string) []float32 {
	t.Helper()
	s, _ := loadSaved(t, path)
	f := frameOf(s)
	if len(f.Temperature) != f.N {
		t.Fatalf("%s: %d temperatures for %d particles", filepath.Base(path), len(f.Temperature), f.N)
	}
	out := make([]float32, f.N)
	for i := range f.N {
		out[f.ID[i]] = f.Temperature[i]
	}
	return out
}

// The heat and cool tools (keys 6 and 7) and the drop-body button, offered in sph for a scene with solids: the heat
// tool held on a wax block warms the particles under it past the melting point, and they melt, while the rest stays
// solid; the cool tool held there sets some of them again; the button drops a block of the jelly chosen under the
// tools above the wax. The sitting's replay records the heat and cool tools and the block and ends in the window's
// state bit for bit, temperatures included. A mode without solids offers neither.
func TestViewerHeatCoolAndDropBody(t *testing.T) {
	if testing.Short() {
		t.Skip("about 3 s on 2 cores: a viewer session in a hidden window; make test runs it")
	}
	v := openViewer(t, gltest.Acquire(t), Options{Scene: waxScene(t), Sets: []string{"render.mode=particles"}, Stderr: io.Discard})
	if v.drv.Mode().Name != "sph" || !v.hands.offer.heat {
		t.Fatalf("mode %s offers heat: %v", v.drv.Mode().Name, v.hands.offer.heat)
	}
	tool, _ := v.hands.set.Lookup("tools.tool")
	if got := strings.Join(tool.Items, " "); got != "grab paddle drop pour drain heat cool" {
		t.Fatalf("the tools offered: %s", got)
	}
	for _, name := range []string{"tools.heat_radius", "tools.heat_temperature", "tools.cool_temperature", "tools.heat_rate", "tools.body_shape", "tools.body_size"} {
		if _, ok := v.hands.set.Lookup(name); !ok {
			t.Fatalf("no %s", name)
		}
	}
	if pick, _ := v.hands.set.Lookup("tools.body_material"); pick == nil || strings.Join(pick.Items, " ") != "wax jelly" {
		t.Fatalf("the drop-body button offers %v", pick)
	}
	frames(t, v, "running", func() bool { return v.drv.Stats().Steps > 2 })

	// heat: hold it on the block's front until particles there pass the melting point
	press(v, glfw.Key6)
	if v.hands.cfg.Tool != toolHeat {
		t.Fatalf("key 6 chose tool %d", v.hands.cfg.Tool)
	}
	x, y := screenOf(v, mgl32.Vec3{0.15, 0.08, 0.15})
	holdUntil(t, v, x, y, "particles melted by the heat tool", func() bool { return len(hotter(v.drv.PickFrame(), waxNumber, waxMelts)) >= 4 })
	quiesce(t, v)
	f := v.drv.PickFrame()
	hot := hotter(f, waxNumber, waxMelts)
	cold := f.N - len(hotter(f, waxNumber, waxSets))
	liquid := 0
	for i := range f.N {
		if f.Temperature[i] > waxMelts && f.Phase[i] == scene.PhaseLiquid {
			liquid++
		}
	}
	if len(hot) == 0 || liquid != len(hot) || cold == 0 {
		t.Fatalf("after the heat tool %d particles are above the melting point, %d of them liquid, %d below the solidifying point", len(hot), liquid, cold)
	}

	// cool: hold it in the same place until some of the melted particles set again
	press(v, glfw.Key7)
	holdUntil(t, v, x, y, "melted particles set by the cool tool", func() bool {
		f := v.drv.PickFrame()
		for i := range f.N {
			if slices.Contains(hot, f.ID[i]) && f.Temperature[i] < waxSets {
				return true
			}
		}
		return false
	})
	quiesce(t, v)
	if v.hands.gesture != gestureNone {
		t.Fatal("the cool tool is still held after the release")
	}

	// drop a block of jelly from the button
	if err := v.hands.set.SetString("tools.body_material", "jelly"); err != nil {
		t.Fatal(err)
	}
	v.fillModel()
	if v.model.DropBody != "Drop a block of jelly" {
		t.Fatalf("the button says %q", v.model.DropBody)
	}
	before := v.drv.Stats().Particles
	v.apply(ui.Actions{Mode: v.model.Mode, Scene: v.model.Scene, DropBody: true})
	frames(t, v, "the dropped block", func() bool { return v.drv.Stats().Particles > before || v.status.isErr })
	if v.status.isErr {
		t.Fatalf("drop body: %s", v.status.msg)
	}
	quiesce(t, v)
	f = v.drv.PickFrame()
	mats, phases := newMaterials(f, before)
	if n := f.N - before; mats[2] != n || phases[scene.PhaseSolid] != n || n < 27 {
		t.Fatalf("the button dropped %d particles of materials %v, phases %v; want a block of solid jelly, material 2", n, mats, phases)
	}
	// the sitting's replay: the heat and cool tools, the block, and the window's state at its end
	dir := t.TempDir()
	rp, sp := saveFiles(t, v, dir, "wax")
	rf, err := replay.Read(rp)
	if err != nil {
		t.Fatal(err)
	}
	temps := map[float32]int{}
	solids, lowest := 0, float32(math.Inf(1))
	for _, a := range rf.Actions {
		if a.Op == replay.OpSetTools && a.Tools.Heat != nil {
			temps[a.Tools.Heat.Temperature]++
			if h := a.Tools.Heat; h.Radius != 0.05 || h.Rate != 10 {
				t.Fatalf("the replay's heat tool: %+v", *h)
			}
		}
		if a.Op == replay.OpAddFluid && a.Fluid.Material != nil && a.Fluid.Material[0] == 2 {
			solids += len(a.Fluid.Pos)
			for _, p := range a.Fluid.Pos {
				lowest = min(lowest, p[1])
			}
		}
	}
	if temps[100] == 0 || temps[0] == 0 || len(temps) != 2 || solids != f.N-before {
		t.Fatalf("the replay holds heat tools at %v °C and %d particles of jelly", temps, solids)
	}
	// dropped clear of the wax, whose top particles lie at 9 cm: more than the kernel radius, two spacings, above
	if lowest < 0.09+2*0.02 {
		t.Errorf("the block was dropped down to y = %g m, within bonding reach of the wax", lowest)
	}
	out := filepath.Join(dir, "replayed.slosh")
	if err := Replay(ReplayOptions{File: rp, Save: out, Stdout: io.Discard, Stderr: io.Discard}); err != nil {
		t.Fatal(err)
	}
	sameState(t, sp, out)
	a, b := savedTemperatures(t, sp), savedTemperatures(t, out)
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			t.Fatalf("particle %d: %g °C in the window, %g °C replayed", i, a[i], b[i])
		}
	}

	// a scene in a mode without solids offers neither the heat tools nor the button; the tool falls back to the grab
	v.drv.SetPaused(false)
	press(v, glfw.Key6)
	v.switchScene(writeScene(t, `{}`))
	tool, _ = v.hands.set.Lookup("tools.tool")
	if v.hands.offer.heat || len(tool.Items) != 5 || v.hands.cfg.Tool != toolGrab {
		t.Fatalf("mode %s offers %v, heat %v, tool %d", v.drv.Mode().Name, tool.Items, v.hands.offer.heat, v.hands.cfg.Tool)
	}
	press(v, glfw.Key6)
	v.fillModel()
	if v.hands.cfg.Tool != toolGrab || v.model.DropBody != "" {
		t.Fatalf("key 6 chose tool %d; the button says %q", v.hands.cfg.Tool, v.model.DropBody)
	}
}

// The tools offer the heat and cool tools to a mode of Solenthaler's solids where the scene has something that
// carries heat (a solid, a diffusivity, a heater), and the drop-body button the scene's solid materials.
func TestToolOfferHeat(t *testing.T) {
	solids := []scene.Kind{scene.KindLiquid, scene.KindElastic, scene.KindPlastic, scene.KindRigid, scene.KindElastoplastic}
	liquid := []scene.Kind{scene.KindLiquid}
	wax := scene.Material{Name: "wax", Kind: scene.KindRigid}
	dough := scene.Material{Name: "dough", Kind: scene.KindElastoplastic}
	jelly := scene.Material{Name: "jelly", Kind: scene.KindElastic}
	warm := scene.Material{Name: "warm", Diffusivity: 1e-4}
	for _, c := range []struct {
		name   string
		sc     scene.Scene
		kinds  []scene.Kind
		heat   bool
		solids string
	}{
		{"water", scene.Scene{}, solids, false, ""},
		{"solids", scene.Scene{Materials: []scene.Material{{Name: "oil"}, wax, jelly}}, solids, true, "wax jelly"},
		{"solids in a liquid mode", scene.Scene{Materials: []scene.Material{wax}}, liquid, false, ""},
		{"a diffusive liquid", scene.Scene{Materials: []scene.Material{warm}}, solids, true, ""},
		{"a heater", scene.Scene{Heaters: []scene.Heater{{}}}, solids, true, ""},
		{"dough", scene.Scene{Materials: []scene.Material{dough, jelly}}, solids, true, "dough jelly"},
	} {
		o := offerFor(&c.sc, c.kinds)
		if o.heat != c.heat || strings.Join(o.solids, " ") != c.solids {
			t.Errorf("%s: heat %v, solids %q; want %v, %q", c.name, o.heat, o.solids, c.heat, c.solids)
		}
		if want := map[bool]int{false: 5, true: 7}[c.heat]; o.tools() != want {
			t.Errorf("%s: %d tools", c.name, o.tools())
		}
	}
}
