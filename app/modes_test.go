package app

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/gpu/gltest"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/pbf"
	"github.com/slosh/slosh/sim/scene"
)

func TestModeTable(t *testing.T) {
	modes := Modes()
	seen := map[string]bool{}
	for _, m := range modes {
		if m.Name == "" || m.Title == "" || m.Desc == "" || m.Params == nil || m.New == nil {
			t.Errorf("mode %q is missing a field: %+v", m.Name, m)
		}
		if seen[m.Name] {
			t.Errorf("mode %q is listed twice", m.Name)
		}
		seen[m.Name] = true
		if m.Compute {
			fb, ok := findMode(modes, m.Fallback)
			if !ok || fb.Compute {
				t.Errorf("mode %s needs compute shaders but its fallback %q is not a CPU mode", m.Name, m.Fallback)
				continue
			}
			// the mode's GL-free mirror names the fallback's parameters alike; that the GPU solver's own set does too
			// is TestGPUModeParamsTwinTheCPUMode
			if a, b := describeParams(m.Params()), describeParams(fb.Params()); a != b {
				t.Errorf("mode %s's Params() differs from its fallback %s's:\n%s", m.Name, fb.Name, lineDiff(a, b))
			}
		}
	}
	for _, want := range []string{"pbf", "pbf-cpu", DefaultMode} {
		if !seen[want] {
			t.Errorf("no mode %q", want)
		}
	}
	// the CPU mode builds without GL and its Params describes the solver's set
	pc, _ := findMode(modes, pbf.Name)
	s, err := pc.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := strings.Join(s.Params().Names(), ","), strings.Join(pc.Params().Names(), ","); a != b {
		t.Errorf("pbf-cpu's Params() lists %s, its solver %s", b, a)
	}
}

func TestSelectModeFallsBackWithoutCompute(t *testing.T) {
	modes := Modes()
	gpu, _ := findMode(modes, "pbf")
	cpu, _ := findMode(modes, "pbf-cpu")
	gl41 := &glh.Context{Major: 4, Minor: 1, Version: "4.1 Metal - 83.1", Renderer: "Apple M1"}
	gl45 := &glh.Context{Major: 4, Minor: 5, Version: "4.5 (Core Profile) Mesa 22.3.6", Renderer: "llvmpipe", Compute: true}
	tests := []struct {
		name  string
		ask   Mode
		g     glInfo
		want  string
		notes []string // substrings of the note; none means no note
	}{
		{"4.1 context", gpu, glInfo{ctx: gl41}, "pbf-cpu",
			[]string{"OpenGL 4.3 compute shaders are not available (OpenGL 4.1 Metal - 83.1 on Apple M1)", "running PBF on the CPU (pbf-cpu)"}},
		{"capped by --gl 4.1", gpu, glInfo{ctx: &glh.Context{Major: 4, Minor: 5, Version: "4.5 Mesa", Renderer: "llvmpipe"}, cap: "4.1"}, "pbf-cpu",
			[]string{"compute shaders are not available", "--gl 4.1", "llvmpipe", "(pbf-cpu)"}},
		{"no context", gpu, glInfo{err: errors.New("no display")}, "pbf-cpu",
			[]string{"no OpenGL context (no display)", "running PBF on the CPU (pbf-cpu)"}},
		{"compute available", gpu, glInfo{ctx: gl45}, "pbf", nil},
		{"CPU mode asked for", cpu, glInfo{ctx: gl41}, "pbf-cpu", nil},
		{"CPU mode without GL", cpu, glInfo{}, "pbf-cpu", nil},
	}
	for _, tc := range tests {
		got, note := selectMode(modes, tc.ask, tc.g)
		if got.Name != tc.want {
			t.Errorf("%s: runs %s, want %s", tc.name, got.Name, tc.want)
		}
		if len(tc.notes) == 0 && note != "" {
			t.Errorf("%s: unexpected note %q", tc.name, note)
		}
		for _, w := range tc.notes {
			if !strings.Contains(note, w) {
				t.Errorf("%s: note %q does not say %q", tc.name, note, w)
			}
		}
	}
}

func TestOpenSolverFallsBackWhenTheGPUSolverFails(t *testing.T) {
	cpu, _ := findMode(Modes(), "pbf-cpu")
	broken := Mode{Name: "gpu", Title: "PBF", Compute: true, Fallback: "pbf-cpu", Params: cpu.Params,
		New: func(*glh.Context) (sim.Solver, error) { return nil, errors.New("shader pbf_lambda.comp: syntax error") }}
	modes := []Mode{broken, cpu}
	ctx := &glh.Context{Major: 4, Minor: 5, Version: "4.5", Renderer: "test", Compute: true}
	s, run, note, err := openSolver(modes, broken, glInfo{ctx: ctx})
	if err != nil {
		t.Fatal(err)
	}
	if run.Name != "pbf-cpu" || s.Name() != "pbf-cpu" {
		t.Errorf("runs %s (solver %s), want pbf-cpu", run.Name, s.Name())
	}
	if !strings.Contains(note, "could not start (shader pbf_lambda.comp: syntax error)") || !strings.Contains(note, "(pbf-cpu)") {
		t.Errorf("note %q does not say why", note)
	}

	// a CPU mode that fails is an error, not a fallback
	failing := Mode{Name: "cpu", New: func(*glh.Context) (sim.Solver, error) { return nil, errors.New("boom") }}
	if _, _, _, err := openSolver([]Mode{failing}, failing, glInfo{}); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("a failing CPU mode: err = %v", err)
	}
}

// A compute mode's fallback runs "with the same parameters", and the mode's GL-free Params() mirrors the solver: the
// GPU solver's own set (built on a real context) and the fallback CPU mode's describe every parameter alike — the
// same names in the same order, kinds, hard and soft bounds, choices, defaults and whether a reset applies them.
func TestGPUModeParamsTwinTheCPUMode(t *testing.T) {
	ctx := gltest.Acquire(t)
	gltest.RequireCompute(t, ctx)
	modes := Modes()
	compute := 0
	for _, m := range modes {
		if !m.Compute {
			continue
		}
		compute++
		fb, ok := findMode(modes, m.Fallback)
		if !ok {
			t.Errorf("mode %s: no fallback %q", m.Name, m.Fallback)
			continue
		}
		s, err := m.New(ctx)
		if err != nil {
			t.Fatalf("mode %s: %v", m.Name, err)
		}
		own := describeParams(s.Params())
		if d, ok := s.(interface{ Delete() }); ok {
			d.Delete()
		}
		for _, other := range []struct{ what, desc string }{
			{fmt.Sprintf("the fallback %s's Params()", fb.Name), describeParams(fb.Params())},
			{fmt.Sprintf("the mode %s's Params()", m.Name), describeParams(m.Params())},
		} {
			if other.desc != own {
				t.Errorf("mode %s: its solver's parameters differ from %s:\n%s", m.Name, other.what, lineDiff(own, other.desc))
			}
		}
	}
	if compute == 0 {
		t.Error("no compute mode in the table")
	}
}

// describeParams writes one line per parameter with everything a twin must share.
func describeParams(set *param.Set) string {
	var b strings.Builder
	for _, p := range set.All() {
		fmt.Fprintf(&b, "%s %s [%g, %g] soft [%g, %g] log %v items %q default %s reset %v\n",
			p.Name, p.Kind, p.Min, p.Max, p.SoftMin, p.SoftMax, p.Log, p.Items, p.Format(p.Default()), p.OnReset)
	}
	return b.String()
}

// lineDiff lists the lines of a that b lacks (−) and of b that a lacks (+).
func lineDiff(a, b string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	ia, ib := in(a), in(b)
	var out []string
	for _, l := range strings.Split(a, "\n") {
		if !ib[l] {
			out = append(out, "− "+l)
		}
	}
	for _, l := range strings.Split(b, "\n") {
		if !ia[l] {
			out = append(out, "+ "+l)
		}
	}
	if len(out) == 0 {
		return "(the same lines in another order)"
	}
	return strings.Join(out, "\n")
}

// Every shipped scene opens in the mode it names: a scene that names a mode slosh lacks waits outside assets/scenes.
func TestShippedScenesNameAMode(t *testing.T) {
	modes := Modes()
	for _, name := range scene.BuiltinNames() {
		sc, err := scene.Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		if sc.Mode == "" {
			continue
		}
		if _, ok := findMode(modes, sc.Mode); !ok {
			t.Errorf("scene %s opens in mode %q, which this slosh lacks (the modes are %v)", name, sc.Mode, ModeNames(modes))
		}
	}
}

// A scene that names no mode opens in the default mode, or, when it is flat, in the table's first 2D mode: the
// table, not a name written into the window, says which that is.
func TestDefaultModeFor(t *testing.T) {
	modes := Modes()
	if got := defaultModeFor(modes, false); got != DefaultMode {
		t.Errorf("a 3D scene opens in %s", got)
	}
	got := defaultModeFor(modes, true)
	if m, ok := findMode(modes, got); !ok || !m.Flat {
		t.Errorf("a flat scene opens in %s, not a 2D mode", got)
	}
	if got := defaultModeFor([]Mode{{Name: "a"}, {Name: "flat2", Flat: true}}, true); got != "flat2" {
		t.Errorf("a flat scene in a table whose 2D mode is flat2 opens in %s", got)
	}
}

// TestModesCompareSomething checks each 3D mode's first comparison (Mode.AB, what `b` starts): a parameter of the
// mode, and a B value that is valid and differs from the default, so B differs from A at once (issue 26).
func TestModesCompareSomething(t *testing.T) {
	for _, m := range Modes() {
		if m.Flat {
			continue
		}
		set := m.Params()
		i, val, ok := abDefault(m, set)
		if !ok {
			t.Errorf("mode %s: AB %q is no parameter=value of the mode", m.Name, m.AB)
			continue
		}
		prm := set.All()[i]
		if val == prm.Default() {
			t.Errorf("mode %s: B's %s = %s is the default", m.Name, prm.Name, prm.Format(val))
		}
		if err := prm.Set(val); err != nil {
			t.Errorf("mode %s: B's %s: %v", m.Name, prm.Name, err)
		}
	}
}
