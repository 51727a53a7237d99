package app

import (
	"errors"
	"strings"
	"testing"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/pbf"
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
			// the fallback runs "with the same parameters": every name of the GPU mode exists there
			fs := fb.Params()
			for _, p := range m.Params().All() {
				if q, ok := fs.Lookup(p.Name); !ok || q.Min != p.Min || q.Max != p.Max || q.Kind != p.Kind {
					t.Errorf("parameter %s of %s has no twin with the same bounds in %s", p.Name, m.Name, fb.Name)
				}
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
