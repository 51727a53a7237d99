package app

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-gl/glfw/v3.3/glfw"

	"github.com/slosh/slosh/gpu/gltest"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/sph"
	"github.com/slosh/slosh/sim/voronoi"
	"github.com/slosh/slosh/ui"
)

// smallColumn writes a column of water 0.1 × 0.2 × 0.1 m at 0.02 m spacing (250 particles) resting in a tank of
// its footprint, a small Figure 6 of the Voronoi paper, and returns its path.
func smallColumn(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "small-column.json")
	const js = `{
  "name": "small-column",
  "description": "A small column of water at rest in a tank of its footprint.",
  "domain": {"min": [0, 0, 0], "max": [0.1, 0.3, 0.1]},
  "particles": {"spacing": 0.02},
  "fluid": [{"shape": "box", "center": [0.05, 0.1, 0.05], "size": [0.1, 0.2, 0.1]}],
  "camera": {"eye": [0.05, 0.2, 0.6], "target": [0.05, 0.1, 0.05], "fov": 45}
}`
	if err := os.WriteFile(path, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// --ab's two forms: name=value changes one of A's parameters; mode=M,name=value,... runs mode M with those of its
// own parameters set. Every bad input is a usage error naming the part at fault.
func TestParseABForms(t *testing.T) {
	modes := Modes()
	vor, _ := findMode(modes, voronoi.Name)
	cpu, _ := findMode(modes, "pbf-cpu")

	spec, err := parseABFor(modes, vor, "mode=sph,sph.pressure=wcsph, sph.stiffness=1000")
	if err != nil {
		t.Fatal(err)
	}
	set := sph.New().Params()
	if spec.Mode != "sph" || spec.Name != "" || len(spec.Sets) != 2 || spec.Sets[0].Name != "sph.pressure" ||
		spec.Sets[1].Name != "sph.stiffness" || spec.Sets[1].Value.F != 1000 {
		t.Errorf("mode=sph,...: %+v", spec)
	}
	if p, _ := set.Lookup("sph.pressure"); p.Format(spec.Sets[0].Value) != "wcsph" {
		t.Errorf("sph.pressure parsed as %s", p.Format(spec.Sets[0].Value))
	}
	if got := crossLabel("sph", set, spec.Sets); got != "sph: sph.pressure = wcsph, sph.stiffness = 1000" {
		t.Errorf("B's label %q", got)
	}
	if spec, err := parseABFor(modes, vor, "mode=flip"); err != nil || spec.Mode != "flip" || len(spec.Sets) != 0 {
		t.Errorf("mode=flip: %+v, %v", spec, err)
	}
	if spec, err := parseABFor(modes, cpu, "pbf.iterations=6"); err != nil || spec.cross() || spec.Name != "pbf.iterations" || spec.Value.F != 6 {
		t.Errorf("pbf.iterations=6: %+v, %v", spec, err)
	}

	for _, tc := range []struct{ text, want string }{
		{"mode=", "mode= names B's mode, one of"},
		{"mode=nope", `unknown mode "nope"; B may run`},
		{"mode=reduced", "mode reduced is 2D; B runs a 3D mode"},
		{"mode=sph,stiffness=10", "mode sph has no parameter stiffness"},
		{"mode=sph,pbf.iterations=6", "mode sph has no parameter pbf.iterations"},
		{"mode=sph,sph.stiffness", `"sph.stiffness": want name=value after the mode`},
		{"mode=sph,,sph.stiffness=1000", `"": want name=value after the mode`},
		{"mode=sph,sph.stiffness=1", "sph.stiffness=1: out of range [10, "},
		{"mode=sph,sph.pressure=iisph", `sph.pressure="iisph": choose one of wcsph, pcisph`},
		{"mode=sph,mode=flip", `"mode=flip": B runs one mode`},
		{"voronoi.radius", "want name=value, e.g. --ab pbf.iterations=6, or mode=NAME"},
		{"sph.stiffness=1000", "the mode has no parameter sph.stiffness"},
	} {
		_, err := parseABFor(modes, vor, tc.text)
		var ue *UsageError
		if err == nil || !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--ab %q: %v, want a usage error with %q", tc.text, err, tc.want)
		}
	}
}

// slosh run --ab mode=sph,... in mode voronoi: B is an SPH solver with B's settings, reset from the same scene
// with the same particles, and each frame's line carries B's columns (SPH's figures) after A's (Voronoi's).
func TestRunABOtherMode(t *testing.T) {
	path := smallColumn(t)
	ab := "mode=sph,sph.pressure=wcsph,sph.stiffness=1000"
	var out, errs bytes.Buffer
	o := RunOptions{Options: Options{Scene: path, Mode: voronoi.Name}, Frames: 4, AB: ab, Stdout: &out}
	o.Stderr = &errs
	if err := Run(o); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errs.String(), "A/B: A runs voronoi, B sph: sph.pressure = wcsph, sph.stiffness = 1000") ||
		!strings.Contains(errs.String(), "A starts with 250 particles, B with 250") {
		t.Errorf("stderr: %s", errs.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2+4 {
		t.Fatalf("%d lines:\n%s", len(lines), out.String())
	}
	head := strings.SplitN(lines[1], "| B", 2)
	if len(head) != 2 || !strings.Contains(head[0], "liquid_volume") || !strings.Contains(head[1], "density_error_mean") ||
		strings.Contains(head[1], "liquid_volume") {
		t.Errorf("header: A's columns are Voronoi's and B's SPH's: %q", lines[1])
	}
	for _, l := range lines[2:] {
		if !strings.Contains(l, "| B ") {
			t.Errorf("a frame's line lacks B's columns: %q", l)
		}
	}

	// the session the command builds: B is an SPH solver of B's settings with A's particles
	st, err := prepare(Modes(), &o.Options)
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []int{0, 120} { // the scene's spacing, then a particle target passed on to B
		st.solverSets = nil
		if target > 0 {
			st.solverSets = []string{"voronoi.particles=120"}
		}
		ss, err := openSession(Modes(), st, glInfo{}, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		spec, err := parseABFor(Modes(), ss.mode, ab)
		if err != nil {
			t.Fatal(err)
		}
		if err := ss.startABIn(Modes(), spec, io.Discard); err != nil {
			t.Fatal(err)
		}
		p := ss.solver.(abPair).pairOf()
		if _, ok := p.b.(*sph.Solver); !ok {
			t.Fatalf("B is a %T", p.b)
		}
		if _, ok := p.a.(*voronoi.Solver); !ok {
			t.Fatalf("A is a %T", p.a)
		}
		bs := p.b.Params()
		if paramValue(bs, "sph.stiffness") != "1000" || paramValue(bs, "sph.pressure") != "wcsph" {
			t.Errorf("B runs sph.stiffness %s, sph.pressure %s", paramValue(bs, "sph.stiffness"), paramValue(bs, "sph.pressure"))
		}
		na, nb := p.a.Stats().Particles, p.b.Stats().Particles
		if na != nb || (target == 0 && na != 250) || (target > 0 && (na > 200 || na < 60)) {
			t.Errorf("target %d: A starts with %d particles, B with %d", target, na, nb)
		}
		if _, _, err := abFrame(p, nil, nil); err != nil {
			t.Fatal(err)
		}
		if p.a.Stats().Steps == 0 || p.b.Stats().Steps == 0 {
			t.Errorf("a frame stepped A %d and B %d times", p.a.Stats().Steps, p.b.Stats().Steps)
		}
		// the tools act on both
		h, ok := ss.solver.(sim.Hands)
		if !ok {
			t.Fatal("the pair of voronoi and sph has no hands")
		}
		if _, err := h.Drain([3]float32{0.05, 0.19, 0.05}, 0.035); err != nil {
			t.Fatal(err)
		}
		if da, db := na-p.a.Stats().Particles, nb-p.b.Stats().Particles; da <= 0 || da != db {
			t.Errorf("a drain took %d particles of A and %d of B", da, db)
		}
		// saving saves A; a state loaded goes into A, and B, which cannot read it, restarts from the scene (with
		// the particles it started with)
		var saved bytes.Buffer
		if p.StateKind() != voronoi.Name || p.WriteState(&saved) != nil {
			t.Fatalf("the pair saves a %s state", p.StateKind())
		}
		steps := p.a.Stats().Steps
		if _, _, err := abFrame(p, nil, nil); err != nil {
			t.Fatal(err)
		}
		if err := p.ReadState(&saved); err != nil {
			t.Fatal(err)
		}
		if p.a.Stats().Steps != steps || p.b.Stats().Steps != 0 || p.b.Stats().Particles != nb ||
			!strings.Contains(p.TwinStats().Notice, "B restarted from the scene") {
			t.Errorf("after a load: A at step %d (saved at %d), B at step %d with %d particles, notice %q",
				p.a.Stats().Steps, steps, p.b.Stats().Steps, p.b.Stats().Particles, p.TwinStats().Notice)
		}
		ss.Close()
	}
}

// slosh record --ab mode=sph,... writes a clip twice as wide, with the column in both halves.
func TestRecordABOtherMode(t *testing.T) {
	gltest.Acquire(t)
	dir := t.TempDir()
	o := RecordOptions{Options: Options{Scene: smallColumn(t), Mode: voronoi.Name, Sets: []string{"render.mode=particles"}},
		Frames: 2, Width: 96, Height: 64, AB: "mode=sph,sph.pressure=wcsph,sph.stiffness=1000", Stdout: io.Discard,
		Out: filepath.Join(dir, "ab.png")}
	var errs bytes.Buffer
	o.Stderr = &errs
	if err := Record(o); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errs.String(), "B sph: sph.pressure = wcsph") {
		t.Errorf("stderr: %s", errs.String())
	}
	files := pngFiles(t, dir)
	if len(files) != 2 {
		t.Fatalf("%d frames: %v", len(files), files)
	}
	img := decodePNG(t, files[len(files)-1])
	if img.Bounds().Dx() != 192 || img.Bounds().Dy() != 64 {
		t.Fatalf("the A/B clip is %v, want 192×64", img.Bounds())
	}
	left, right := meanRGB(img, image.Rect(0, 0, 96, 64)), meanRGB(img, image.Rect(96, 0, 192, 64))
	if left == [3]float64{} || right == [3]float64{} {
		t.Errorf("a half is black: %v %v", left, right)
	}
	o.AB = "mode=sph,sph.nope=1"
	if err := Record(o); err == nil || !strings.Contains(err.Error(), "mode sph has no parameter sph.nope") {
		t.Errorf("--ab with an unknown parameter of B's mode: %v", err)
	}
}

// In the window, the panel's "B: another mode" starts sph beside voronoi from the same scene, with the picked
// parameter at B's value; the labels name both modes, both step, a new value reaches the running B, reset resets
// both, and b ends it with A running on.
func TestViewerABOtherMode(t *testing.T) {
	ctx := gltest.Acquire(t)
	v := openViewer(t, ctx, Options{Scene: smallColumn(t), Mode: voronoi.Name, Sets: []string{"render.mode=particles"}})
	frames(t, v, "steps", func() bool { return v.drv.Stats().Steps >= 2 })

	// the panel's choices, as its combos and widget make them: another mode, sph, sph.stiffness = 1000
	v.fillModel()
	m := &v.model.AB
	if len(m.Modes) == 0 || m.BSet == nil {
		t.Fatalf("the panel offers modes %v, B's parameters %v", m.Modes, m.BSet)
	}
	for _, name := range m.Modes {
		if name == "reduced" {
			t.Error("the panel offers the 2D mode for B")
		}
	}
	m.Other = true
	for i, name := range m.Modes {
		if name == "sph" {
			m.ModePick = i
		}
	}
	v.apply(ui.Actions{Mode: v.model.Mode, Scene: v.model.Scene})
	v.fillModel() // sph's parameters arrive with the next model
	m = &v.model.AB
	for i, p := range m.BSet.All() {
		if p.Name == "sph.stiffness" {
			m.BPick, m.BValue = i+1, param.Value{F: 1000}
		}
	}
	if m.BPick == 0 {
		t.Fatalf("B's parameters (%d) lack sph.stiffness", len(m.BSet.All()))
	}
	v.apply(ui.Actions{Mode: v.model.Mode, Scene: v.model.Scene, ABValue: true, ToggleAB: true})
	if !v.ab.on || v.status.isErr || v.ab.spec.Mode != "sph" {
		t.Fatalf("the button did not start A/B with mode sph: on %v, B's mode %q, status %q", v.ab.on, v.ab.spec.Mode, v.status.msg)
	}
	frames(t, v, "both views drawn", func() bool {
		pb, sb, ok := v.drv.Twin()
		return ok && pb.N == 250 && sb.Steps > 0 && v.drv.Stats().Steps > 0 && v.ab.half[1] != nil
	})
	v.fillModel()
	if m := v.model.AB; !m.On || m.LabelA != "voronoi" || m.LabelB != "sph: sph.stiffness = 1000" {
		t.Fatalf("the panel's A/B: on %v, A %q, B %q", m.On, m.LabelA, m.LabelB)
	}
	frames(t, v, "the title naming B", func() bool { return strings.Contains(v.title, "A/B: sph: sph.stiffness = 1000") })

	// pause, then check B and give it a new stiffness from the panel
	press(v, glfw.KeySpace)
	idle := func() bool { return v.drv.(*cpuDriver).runner.Status().Pending == 0 }
	frames(t, v, "the pause", idle)
	b := v.drv.(*cpuDriver).runner.solver.(abPair).pairOf().b
	if _, ok := b.(*sph.Solver); !ok || paramValue(b.Params(), "sph.stiffness") != "1000" {
		t.Fatalf("B is a %T with sph.stiffness %s", b, paramValue(b.Params(), "sph.stiffness"))
	}
	v.fillModel()
	v.model.AB.BValue = param.Value{F: 5000}
	v.apply(ui.Actions{Mode: v.model.Mode, Scene: v.model.Scene, ABValue: true})
	frames(t, v, "the new value's command done", idle)
	if got := paramValue(b.Params(), "sph.stiffness"); got != "5000" || v.ab.spec.Sets[0].Value.F != 5000 {
		t.Errorf("B's stiffness after the panel's edit: %s", got)
	}
	press(v, glfw.KeyR)
	frames(t, v, "the reset of both", func() bool {
		_, sb, _ := v.drv.Twin()
		return v.drv.Stats().Steps == 0 && sb.Steps == 0 && idle()
	})
	if got := paramValue(b.Params(), "sph.stiffness"); got != "5000" {
		t.Errorf("B's stiffness after the reset: %s", got)
	}
	press(v, glfw.KeySpace)

	press(v, glfw.KeyB)
	if v.ab.on {
		t.Fatal("b did not end A/B")
	}
	frames(t, v, "A alone", func() bool {
		_, _, ok := v.drv.Twin()
		return !ok && v.drv.Stats().Steps > 2 && v.drv.Mode().Name == voronoi.Name
	})
}

// A/B never labels B with a value B does not run (issue 24). A parameter that acts only on reset (sph.particles)
// cannot reach a copy of A's state, so B starts from the scene with it, and a load into the pair or a new value from
// the panel restarts B with it again. Across modes, B's own resolution (voronoi.spacing) is not overridden by A's
// particle count, which used to win over it while the label showed the spacing.
func TestABRunsTheValueItsLabelShows(t *testing.T) {
	path := smallColumn(t)
	open := func(mode string) *session {
		t.Helper()
		ss, _ := headless(t, Options{Scene: path, Mode: mode})
		return ss
	}

	ss := open(sph.Name)
	spec, err := parseABFor(Modes(), ss.mode, "sph.particles=1000")
	if err != nil {
		t.Fatal(err)
	}
	var said bytes.Buffer
	if err := ss.startABIn(Modes(), spec, &said); err != nil {
		t.Fatal(err)
	}
	p := ss.solver.(abPair).pairOf()
	na, nb := p.a.Stats().Particles, p.b.Stats().Particles
	if _, lb := p.labels(); lb != "sph.particles = 1000" || na != 250 || nb < 900 || nb > 1100 {
		t.Errorf("B labelled %q runs %d particles (A %d)", lb, nb, na)
	}
	if !strings.Contains(said.String(), fmt.Sprintf("A starts with 250 particles, B with %d", nb)) {
		t.Errorf("the run does not say what each side starts with: %s", said.String())
	}
	var saved bytes.Buffer
	if err := p.WriteState(&saved); err != nil {
		t.Fatal(err)
	}
	if _, _, err := abFrame(p, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := p.ReadState(&saved); err != nil {
		t.Fatal(err)
	}
	if got := p.b.Stats().Particles; got != nb || !strings.Contains(p.TwinStats().Notice, "sph.particles") {
		t.Errorf("after a load B runs %d particles (notice %q), want its own %d", got, p.TwinStats().Notice, nb)
	}
	if err := p.setB(param.Value{F: 500}); err != nil {
		t.Fatal(err)
	}
	if got := p.b.Stats().Particles; got < 400 || got > 600 {
		t.Errorf("B set to 500 particles from the panel runs %d", got)
	}

	ss = open("pbf-cpu")
	spec, err = parseABFor(Modes(), ss.mode, "mode=voronoi,voronoi.spacing=0.025")
	if err != nil {
		t.Fatal(err)
	}
	if err := ss.startABIn(Modes(), spec, io.Discard); err != nil {
		t.Fatal(err)
	}
	p = ss.solver.(abPair).pairOf()
	alone := open(voronoi.Name) // B's settings on their own
	if err := alone.solver.Params().Assign("voronoi.spacing=0.025"); err != nil {
		t.Fatal(err)
	}
	if err := alone.solver.Reset(alone.st.sc); err != nil {
		t.Fatal(err)
	}
	if got, want := p.b.Stats().Particles, alone.solver.Stats().Particles; got != want || want == p.a.Stats().Particles ||
		paramValue(p.b.Params(), "voronoi.particles") != "0" {
		t.Errorf("B of voronoi.spacing = 0.025 runs %d particles (voronoi.particles %s), want the %d of that spacing",
			got, paramValue(p.b.Params(), "voronoi.particles"), want)
	}
}
