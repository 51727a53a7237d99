package app

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/slosh/slosh/gpu/render"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/scene"
)

// A/B: the running simulation duplicated with one parameter changed, both stepping together from the same state.
// B is a second solver of the running mode that reads A's whole state through sim.Stateful (WriteState into a
// buffer, ReadState from it) and then gets its one changed parameter. The two are wrapped in a pair, itself a
// sim.Solver, so whichever driver ran A — the GPU driver on the GL thread, or the CPU runner — runs the pair the
// same way: every frame calls each solver's BeginFrame and steps each through its own substeps. The pair knows
// no mode by name; a mode without sim.Stateful cannot be duplicated and says so.

// abSpec is what B changes: one parameter of the mode's set and its value in B.
type abSpec struct {
	Name  string
	Value param.Value
}

// parseAB reads "name=value" (as given to --ab) against set, a throwaway copy of the mode's parameters (the
// value is checked by setting it there).
func parseAB(set *param.Set, text string) (abSpec, error) {
	name, value, ok := strings.Cut(text, "=")
	if !ok {
		return abSpec{}, usagef("--ab %q: want name=value, e.g. --ab pbf.iterations=6", text)
	}
	name = strings.TrimSpace(name)
	p, ok := set.Lookup(name)
	if !ok {
		return abSpec{}, usagef("--ab %q: the mode has no parameter %s (slosh params lists them)", text, name)
	}
	v, err := p.Parse(value)
	if err == nil {
		err = p.Set(v)
	}
	if err != nil {
		return abSpec{}, usagef("--ab: %v", err)
	}
	return abSpec{Name: name, Value: v}, nil
}

// abLabel is how a side is labelled: "pbf.iterations = 6".
func abLabel(set *param.Set, name string) string {
	p, ok := set.Lookup(name)
	if !ok {
		return name
	}
	return fmt.Sprintf("%s = %s", name, p)
}

// pair steps two solvers of one mode frame for frame: A, the simulation that was running, and B, its copy with
// one parameter changed. To a driver it is A (name, parameters, frames, stats, state); B's frame and stats are
// there for the second view. Each frame both choose their own substeps; the pair steps them interleaved, A's
// k-th step and B's k-th step, for as many steps as the larger count. Parameters edited on A's set follow to B
// before every frame and reset, all but the one B changes.
type pair struct {
	a, b   sim.Solver
	spec   abSpec
	bParam *param.Param
	shared [][2]*param.Param // A's and B's parameters of one name, other than spec.Name

	frameDt float64
	na, nb  int // substeps of the frame in progress
	k       int // steps taken of it
	warn    string
}

// newPair wraps a and b (which holds a copy of a's state) and gives b the changed parameter. It returns a solver
// that also has a's optional interfaces: sim.Hands (acting on both) and the GPU solver's own buffers.
func newPair(a, b sim.Solver, spec abSpec) (sim.Solver, error) {
	bp, ok := b.Params().Lookup(spec.Name)
	if !ok {
		return nil, fmt.Errorf("A/B: mode %s has no parameter %s", a.Name(), spec.Name)
	}
	p := &pair{a: a, b: b, spec: spec, bParam: bp}
	for _, pa := range a.Params().All() {
		if pa.Name == spec.Name {
			continue
		}
		if pb, ok := b.Params().Lookup(pa.Name); ok {
			p.shared = append(p.shared, [2]*param.Param{pa, pb})
		}
	}
	p.sync()
	if err := bp.Set(spec.Value); err != nil {
		return nil, fmt.Errorf("A/B: %w", err)
	}
	_, hands := a.(sim.Hands)
	_, hb := b.(sim.Hands)
	_, gpu := a.(gpuSolver)
	_, gb := b.(gpuSolver)
	switch {
	case hands && hb && gpu && gb:
		return &pairGPUHands{pair: p, pairTools: pairTools{p}, pairDraw: pairDraw{p}}, nil
	case gpu && gb:
		return &pairGPU{pair: p, pairDraw: pairDraw{p}}, nil
	case hands && hb:
		return &pairHands{pair: p, pairTools: pairTools{p}}, nil
	}
	return p, nil
}

// The pair's kinds: with tools, with GPU buffers, with both.
type (
	pairHands struct {
		*pair
		pairTools
	}
	pairGPU struct {
		*pair
		pairDraw
	}
	pairGPUHands struct {
		*pair
		pairTools
		pairDraw
	}
)

// abPair is what the window asks of a running pair.
type abPair interface {
	sim.Solver
	pairOf() *pair
}

func (p *pair) pairOf() *pair { return p }

// sync gives B the values of A's parameters, all but the one B changes.
func (p *pair) sync() {
	for _, s := range p.shared {
		if v := s[0].Get(); s[1].Get() != v {
			_ = s[1].Set(v) // the same mode's parameter takes the same values
		}
	}
}

// setB changes B's value of the compared parameter.
func (p *pair) setB(v param.Value) error {
	if err := p.bParam.Set(v); err != nil {
		return err
	}
	p.spec.Value = v
	return nil
}

func (p *pair) Name() string       { return p.a.Name() }
func (p *pair) Params() *param.Set { return p.a.Params() }
func (p *pair) Frame(dst *sim.Frame) {
	p.a.Frame(dst)
}
func (p *pair) Stats() sim.Stats { return p.a.Stats() }

// TwinFrame copies out B's frame.
func (p *pair) TwinFrame(dst *sim.Frame) { p.b.Frame(dst) }

// TwinStats is B's last step, with a notice when B could not follow a tool A carried out.
func (p *pair) TwinStats() sim.Stats {
	st := p.b.Stats()
	if p.warn != "" && st.Notice == "" {
		st.Notice = p.warn
	}
	return st
}

// Reset resets both with sc; B keeps its changed parameter.
func (p *pair) Reset(sc *scene.Scene) error {
	p.sync()
	p.warn = ""
	if err := p.a.Reset(sc); err != nil {
		return err
	}
	if err := p.b.Reset(sc); err != nil {
		return fmt.Errorf("B (%s): %w", abLabel(p.b.Params(), p.spec.Name), err)
	}
	return nil
}

// BeginFrame starts a frame of both and returns the larger of their substep counts; Step then ignores its dt
// and steps each by frameDt over its own count.
func (p *pair) BeginFrame(frameDt float64) int {
	p.sync()
	p.frameDt = frameDt
	p.na = max(1, p.a.BeginFrame(frameDt))
	p.nb = max(1, p.b.BeginFrame(frameDt))
	p.k = 0
	return max(p.na, p.nb)
}

// Step takes A's and B's next step of the frame, where each has one left.
func (p *pair) Step(float64) error {
	k := p.k
	p.k++
	var ea, eb error
	if k < p.na {
		ea = p.a.Step(p.frameDt / float64(p.na))
	}
	if k < p.nb {
		if eb = p.b.Step(p.frameDt / float64(p.nb)); eb != nil {
			eb = fmt.Errorf("B (%s): %w", abLabel(p.b.Params(), p.spec.Name), eb)
		}
	}
	return errors.Join(ea, eb)
}

// StateKind, WriteState and ReadState are A's: saving in A/B saves A; a state loaded goes into both.
func (p *pair) StateKind() string { return p.a.(sim.Stateful).StateKind() }

func (p *pair) WriteState(w io.Writer) error { return p.a.(sim.Stateful).WriteState(w) }

func (p *pair) ReadState(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if err := p.a.(sim.Stateful).ReadState(bytes.NewReader(data)); err != nil {
		return err
	}
	return p.b.(sim.Stateful).ReadState(bytes.NewReader(data))
}

// pairTools are the tools acting on both, identically: the window's hands compare like everything else.
type pairTools struct{ p *pair }

func (t pairTools) hands() (sim.Hands, sim.Hands) { return t.p.a.(sim.Hands), t.p.b.(sim.Hands) }

func (t pairTools) Budget() int {
	a, b := t.hands()
	return min(a.Budget(), b.Budget())
}

func (t pairTools) AddFluid(pos, vel [][3]float32) int {
	a, b := t.hands()
	k := a.AddFluid(pos, vel)
	if kb := b.AddFluid(pos, vel); kb != k {
		t.p.warn = fmt.Sprintf("B took %d of the %d particles A took", kb, k)
	}
	return k
}

// Refill implements sim.Refiller, so that an undo brings each side's fluids back as they were.
func (t pairTools) Refill(ps []sim.Particle) int {
	a, b := t.hands()
	k := sim.Refill(a, ps)
	if kb := sim.Refill(b, ps); kb != k {
		t.p.warn = fmt.Sprintf("B took %d of the %d particles A took", kb, k)
	}
	return k
}

func (t pairTools) Drain(center [3]float32, radius float32) ([]sim.Particle, error) {
	a, b := t.hands()
	gone, err := a.Drain(center, radius)
	if err != nil {
		return nil, err
	}
	if _, err := b.Drain(center, radius); err != nil {
		t.p.warn = "B: drain: " + err.Error()
	}
	return gone, nil
}

func (t pairTools) AddBody(body scene.Body) (int, []sim.Particle, error) {
	a, b := t.hands()
	i, displaced, err := a.AddBody(body)
	if err != nil {
		return i, displaced, err
	}
	if _, _, err := b.AddBody(body); err != nil {
		t.p.warn = "B: drop: " + err.Error()
	}
	return i, displaced, nil
}

func (t pairTools) RemoveBody(i int) error {
	a, b := t.hands()
	return errors.Join(a.RemoveBody(i), b.RemoveBody(i))
}

func (t pairTools) DriveBody(i int, v [3]float32, on bool) {
	a, b := t.hands()
	a.DriveBody(i, v, on)
	b.DriveBody(i, v, on)
}

func (t pairTools) SetTools(tools sim.Tools) {
	a, b := t.hands()
	a.SetTools(tools)
	b.SetTools(tools)
}

// pairDraw gives a GPU pair's buffers: A's as the pair's, B's as the twin's.
type pairDraw struct{ p *pair }

func (d pairDraw) Particles() render.Particles     { return d.p.a.(gpuSolver).Particles() }
func (d pairDraw) TwinParticles() render.Particles { return d.p.b.(gpuSolver).Particles() }

// Delete frees both solvers' GL objects.
func (d pairDraw) Delete() {
	deleteSolver(d.p.a)
	deleteSolver(d.p.b)
}

// startPair duplicates a (which runs mode m, reset with live as its scene) into a pair with spec changed in B: a
// new solver of m built on g's context, reset with live, given a's parameters and then a's whole state. On error
// a is untouched and nothing else is left behind; a mode without sim.Stateful is an error saying A/B cannot run.
func startPair(m Mode, a sim.Solver, g glInfo, live *scene.Scene, spec abSpec) (sim.Solver, error) {
	st, ok := a.(sim.Stateful)
	if !ok {
		return nil, fmt.Errorf("A/B is unavailable in mode %s: it cannot copy its state (no sim.Stateful)", m.Name)
	}
	if _, ok := a.Params().Lookup(spec.Name); !ok {
		return nil, fmt.Errorf("A/B: mode %s has no parameter %s", m.Name, spec.Name)
	}
	b, err := m.New(g.ctx)
	if err != nil {
		return nil, fmt.Errorf("A/B: a second %s solver: %w", m.Name, err)
	}
	fail := func(err error) (sim.Solver, error) {
		deleteSolver(b)
		return nil, fmt.Errorf("A/B: B (%s): %w", m.Name, err)
	}
	sb, ok := b.(sim.Stateful)
	if !ok {
		return fail(errors.New("the second solver cannot read a state"))
	}
	if err := b.Params().Restore(a.Params().Snapshot()); err != nil {
		return fail(err)
	}
	if err := b.Reset(live); err != nil {
		return fail(err)
	}
	var buf bytes.Buffer
	if err := st.WriteState(&buf); err != nil {
		deleteSolver(b)
		return nil, fmt.Errorf("A/B: copying A's state: %w", err)
	}
	if err := sb.ReadState(&buf); err != nil {
		return fail(err)
	}
	p, err := newPair(a, b, spec)
	if err != nil {
		deleteSolver(b)
		return nil, err
	}
	return p, nil
}

// splitPair ends an A/B: B is deleted and A, which continues as if never duplicated, returned.
func splitPair(s sim.Solver) sim.Solver {
	ap, ok := s.(abPair)
	if !ok {
		return s
	}
	p := ap.pairOf()
	deleteSolver(p.b)
	return p.a
}

// twinParticles is what to draw for the second simulation of a pair: a GPU pair's own buffers, or B's frame
// copied into f and uploaded into bufs.
func twinParticles(s sim.Solver, bufs *render.FrameBuffers, f *sim.Frame) (render.Particles, error) {
	if g, ok := s.(interface{ TwinParticles() render.Particles }); ok {
		return g.TwinParticles(), nil
	}
	ts, ok := s.(twinSolver)
	if !ok {
		return render.Particles{}, errors.New("A/B: the solver runs no second simulation")
	}
	ts.TwinFrame(f)
	return bufs.Upload(f)
}

// startAB turns a headless session into an A/B pair (slosh run and record --ab), saying so on w.
func (s *session) startAB(spec abSpec, w io.Writer) error {
	p, err := startPair(s.mode, s.solver, s.gl, s.st.sc, spec)
	if err != nil {
		return err
	}
	s.solver = p
	fmt.Fprintf(w, "slosh: A/B: A runs %s, B %s\n", abLabel(p.Params(), spec.Name), abLabel(p.(abPair).pairOf().b.Params(), spec.Name))
	return nil
}

// abFrame advances a pair one frame like session.frame, with each side's steps appended to its own list.
func abFrame(p *pair, bufA, bufB []sim.Stats) ([]sim.Stats, []sim.Stats, error) {
	n := p.BeginFrame(FrameDt)
	for k := 0; k < n; k++ {
		if err := p.Step(FrameDt / float64(n)); err != nil {
			return bufA, bufB, err
		}
		if k < p.na {
			bufA = append(bufA, p.a.Stats())
		}
		if k < p.nb {
			bufB = append(bufB, p.b.Stats())
		}
	}
	return bufA, bufB, nil
}
