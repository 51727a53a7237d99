package app

import (
	"io"
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
)

// pourScene is a small tank of water with the materials a mode simulating kinds can run: oil, and sand where the
// mode simulates it, and extra (an emitter, params) appended to the scene's JSON.
func pourScene(t testing.TB, kinds []scene.Kind, extra string) *scene.Scene {
	t.Helper()
	mats := `{"name": "oil", "density": 800, "color": [0.9, 0.7, 0.1]}`
	if slices.Contains(kinds, scene.KindGranular) {
		mats += `, {"name": "sand", "kind": "granular", "density": 1600, "color": [0.8, 0.7, 0.4], "friction_angle": 40, "cohesion": 3, "wall_friction": 0.2}`
	}
	js := `{"name": "pour", "domain": {"min": [0, 0, 0], "max": [0.3, 0.3, 0.3]}, "particles": {"spacing": 0.03},
		"materials": [` + mats + `],
		"fluid": [{"shape": "box", "center": [0.15, 0.045, 0.15], "size": [0.3, 0.09, 0.3]}]` + extra + `}`
	sc, err := scene.Parse([]byte(js), "pour.json")
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// pourSolver is a solver of mode m reset with the scene pourScene makes for it.
func pourSolver(t testing.TB, m Mode, extra string) (sim.Solver, *scene.Scene) {
	t.Helper()
	s, err := m.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	sc := pourScene(t, sim.KindsOf(s), extra)
	if err := sim.Reset(s, sc); err != nil {
		t.Fatal(err)
	}
	return s, sc
}

// newMaterials are the materials (and phases, where the frame has them) of the particles with ids from n on.
func newMaterials(f *sim.Frame, n int) (mats map[uint8]int, phases map[scene.Phase]int) {
	mats, phases = map[uint8]int{}, map[scene.Phase]int{}
	for i := range f.N {
		if int(f.ID[i]) < n {
			continue
		}
		if f.Material != nil {
			mats[f.Material[i]]++
		}
		if f.Phase != nil {
			phases[f.Phase[i]]++
		}
	}
	return mats, phases
}

// Every 3D particle mode pours what the pouring tool names: particles of that material (sand in flip makes grains);
// and a scene's emitter naming sand pours sand in flip.
func TestContractPoursTheToolsMaterial(t *testing.T) {
	for _, m := range contractModes() {
		if m.Flat {
			continue
		}
		t.Run(m.Name, func(t *testing.T) {
			s, sc := pourSolver(t, m, "")
			h := s.(sim.Hands)
			for _, name := range []string{"oil", "sand", ""} {
				if name == "sand" && sc.FirstGranular() == 0 {
					continue
				}
				n := frameOf(s).N
				want, _ := sc.MaterialNumber(name)
				h.SetTools(sim.Tools{Emitter: &scene.Emitter{Center: scene.Vec3{0.15, 0.25, 0.15}, Direction: scene.Vec3{0, -1, 0},
					Radius: 0.04, Speed: 2, Material: name}})
				for frame := 0; frame < 20 && frameOf(s).N == n; frame++ {
					stepFrames(t, s, 1)
				}
				h.SetTools(sim.Tools{})
				f := frameOf(s)
				if f.N == n {
					t.Fatalf("pouring %q added nothing", name)
				}
				mats, phases := newMaterials(f, n)
				if f.Material == nil {
					t.Fatalf("%s's frame has no materials for a scene with materials", m.Name)
				}
				if len(mats) != 1 || mats[uint8(want)] != f.N-n {
					t.Errorf("pouring %q (material %d) made %d particles of materials %v", name, want, f.N-n, mats)
				}
				if wantPhase := sc.PhaseOf(want); f.Phase != nil && (len(phases) != 1 || phases[wantPhase] != f.N-n) {
					t.Errorf("pouring %q made particles of phases %v, want %s", name, phases, wantPhase)
				}
			}
		})
	}

	// a scene's emitter of sand, in the mode that simulates it
	m, _ := findMode(Modes(), "flip")
	s, sc := pourSolver(t, m, `, "emitters": [{"center": [0.15, 0.25, 0.15], "direction": [0, -1, 0], "radius": 0.04, "speed": 2, "material": "sand"}]`)
	n := frameOf(s).N
	stepFrames(t, s, 6)
	f := frameOf(s)
	mats, phases := newMaterials(f, n)
	if sand := uint8(sc.FirstGranular()); f.N == n || len(mats) != 1 || mats[sand] != f.N-n || phases[scene.PhaseGranular] != f.N-n {
		t.Errorf("the sand emitter made %d particles of materials %v, phases %v", f.N-n, mats, phases)
	}
}

// The pour tool offers the default water and the scene's materials of the kinds the mode simulates, nothing for a
// scene without such materials; a scene's own "water" leaves the default's label marked.
func TestPourChoices(t *testing.T) {
	sc := &scene.Scene{Materials: []scene.Material{{Name: "oil"}, {Name: "sand", Kind: scene.KindGranular}, {Name: "brine", Kind: scene.KindLiquid}}}
	labels := func(cs []pourChoice) string {
		var out []string
		for _, c := range cs {
			out = append(out, c.label+"="+c.name)
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct {
		kinds []scene.Kind
		want  string
	}{
		{[]scene.Kind{scene.KindLiquid}, "water= oil=oil brine=brine"},
		{[]scene.Kind{scene.KindLiquid, scene.KindGranular}, "water= oil=oil sand=sand brine=brine"},
		{[]scene.Kind{scene.KindGranular}, "water= sand=sand"},
		{[]scene.Kind{""}, "water= oil=oil brine=brine"},
	} {
		if got := labels(pourChoices(sc, c.kinds)); got != c.want {
			t.Errorf("kinds %q: %q, want %q", c.kinds, got, c.want)
		}
	}
	if got := pourChoices(&scene.Scene{}, []scene.Kind{scene.KindLiquid}); got != nil {
		t.Errorf("a scene without materials offers %v", got)
	}
	if got := pourChoices(&scene.Scene{Materials: []scene.Material{{Name: "sand", Kind: scene.KindGranular}}}, []scene.Kind{scene.KindLiquid}); got != nil {
		t.Errorf("a scene with only materials the mode lacks offers %v", got)
	}
	own := &scene.Scene{Materials: []scene.Material{{Name: "water"}}}
	if got := labels(pourChoices(own, []scene.Kind{scene.KindLiquid})); got != "water (default)= water=water" {
		t.Errorf("a scene with its own water: %q", got)
	}
}

// The window's pour tool (tool 4) pours the material chosen in the panel: a scene with sand opened in flip offers
// water and sand; the stream chosen sand is sand; the sitting's replay records it and pours sand again, ending in
// the window's state bit for bit. A reset keeps the choice, an A/B of the sand scene resets, and a scene without
// materials offers no choice.
func TestViewerPoursTheChosenMaterial(t *testing.T) {
	if testing.Short() {
		t.Skip("about 3 s on 2 cores: a viewer session in a hidden window; make test runs it")
	}
	v := openViewer(t, gltest.Acquire(t), Options{Scene: sandScene(t, `{}`), Sets: []string{"render.mode=particles"}, Stderr: io.Discard})
	pick, ok := v.hands.set.Lookup("tools.pour_material")
	if !ok || strings.Join(pick.Items, " / ") != "water / sand" || pick.Group != "Tools|Pour" {
		t.Fatalf("the tools offer %v to pour (%v)", pick, ok)
	}
	v.fillModel()
	if v.model.Sets[1] != v.hands.set {
		t.Fatal("the panel does not show the tools' set with the choice")
	}
	count := func() int { return v.drv.Stats().Particles }
	frames(t, v, "running", func() bool { return v.drv.Stats().Steps > 2 })
	if err := v.hands.set.SetString("tools.pour_material", "sand"); err != nil {
		t.Fatal(err)
	}
	press(v, glfw.Key4)
	before := count()
	x, y := screenOf(v, mgl32.Vec3{0.3, 0.2, 0.2})
	holdUntil(t, v, x, y, "the pour", func() bool { return count() > before })
	quiesce(t, v)
	f := v.drv.PickFrame()
	mats, phases := newMaterials(f, before)
	if n := f.N - before; n == 0 || mats[1] != n || phases[scene.PhaseGranular] != n {
		t.Fatalf("pouring sand made %d particles of materials %v, phases %v", n, mats, phases)
	}

	// the replay holds the stream's material and pours sand again
	dir := t.TempDir()
	rp, sp := saveFiles(t, v, dir, "sand")
	rf, err := replay.Read(rp)
	if err != nil {
		t.Fatal(err)
	}
	streams := 0
	for _, a := range rf.Actions {
		if a.Op == replay.OpSetTools && a.Tools.Emitter != nil {
			streams++
			if a.Tools.Emitter.Material != "sand" {
				t.Fatalf("the replay's stream pours %q", a.Tools.Emitter.Material)
			}
		}
	}
	if streams == 0 {
		t.Fatal("the replay records no stream")
	}
	out := filepath.Join(dir, "replayed.slosh")
	if err := Replay(ReplayOptions{File: rp, Save: out, Stdout: io.Discard, Stderr: io.Discard}); err != nil {
		t.Fatal(err)
	}
	sameState(t, sp, out)
	// a replay whose stream names a material its scene lacks is refused, naming the field
	for i := range rf.Actions {
		if e := rf.Actions[i].Tools; e != nil && e.Emitter != nil {
			e.Emitter.Material = "mercury"
		}
	}
	edited := filepath.Join(dir, "mercury"+ReplayExt)
	if err := replay.Write(edited, rf); err != nil {
		t.Fatal(err)
	}
	if err := Replay(ReplayOptions{File: edited, Stdout: io.Discard, Stderr: io.Discard}); err == nil ||
		!strings.Contains(err.Error(), `tools.emitter.material: unknown material "mercury"; the scene's materials are "sand"`) {
		t.Errorf("a replay pouring mercury: %v", err)
	}

	// a reset keeps the choice; an A/B of the sand scene resets with it
	v.drv.SetPaused(false)
	press(v, glfw.KeyR)
	quiesce(t, v)
	if v.hands.pourMaterial() != "sand" {
		t.Errorf("after a reset the tool pours %q", v.hands.pourMaterial())
	}
	v.toggleAB()
	if !v.ab.on {
		t.Fatalf("no A/B: %s", v.status.msg)
	}
	press(v, glfw.KeyR)
	frames(t, v, "the A/B's reset", func() bool { return strings.HasPrefix(v.status.msg, "reset ") || v.status.isErr })
	if v.status.isErr || v.hands.pourMaterial() != "sand" {
		t.Errorf("the A/B of the sand scene: status %q, the tool pours %q", v.status.msg, v.hands.pourMaterial())
	}
	v.toggleAB()

	// a scene without materials: no choice, the tool pours water
	v.switchScene(writeScene(t, `{}`))
	if _, ok := v.hands.set.Lookup("tools.pour_material"); ok || v.hands.pourMaterial() != "" {
		t.Errorf("a scene without materials offers a choice (the tool pours %q)", v.hands.pourMaterial())
	}
}
