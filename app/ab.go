package app

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/slosh/slosh/gpu/render"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/scene"
)

// A/B: the running simulation beside a second one, both stepping together. B is either
//   - the running mode with one parameter changed: a second solver of that mode that reads A's whole state through
//     sim.Stateful (WriteState into a buffer, ReadState from it) and then gets its one changed parameter — or, for
//     a parameter that acts only on reset (a particle count, a cell size), one reset from the same scene with it,
//     since a copy of A's state would never take it; or
//   - another 3D mode, reset from the same scene (different modes keep different kinds of state, so nothing is
//     copied): B gets the scene's overrides for its own mode, A's particle target (<mode>.particles and
//     <mode>.spacing, so both sample the scene alike), then its own settings.
// The two are wrapped in a pair, itself a sim.Solver, so whichever driver ran A — the GPU driver on the GL thread,
// or the CPU runner — runs the pair the same way: every frame calls each solver's BeginFrame and steps each through
// its own substeps. The pair knows no mode by name; a mode without sim.Stateful cannot be duplicated and says so.

// abSpec is what B runs: one parameter of A's mode changed (Name, Value), or another mode (Mode) with some of its
// own parameters set (Sets).
type abSpec struct {
	Name  string
	Value param.Value

	Mode string  // B's mode when it is another one; "" is A's mode with Name changed
	Sets []abSet // B's own parameters, in order, for another mode
}

// abSet is one of B's parameters in another mode.
type abSet struct {
	Name  string
	Value param.Value
}

// cross says B runs another mode, reset from the scene rather than copied from A.
func (s abSpec) cross() bool { return s.Mode != "" }

// onReset says B's changed parameter (of A's mode) acts only on reset, in set: B starts from the scene with it.
func (s abSpec) onReset(set *param.Set) bool {
	p, ok := set.Lookup(s.Name)
	return !s.cross() && ok && p.OnReset
}

// abModePrefix starts --ab's form for another mode: mode=NAME[,name=value...].
const abModePrefix = "mode="

// parseABFor reads --ab against a, the mode A runs: "name=value" (one of a's parameters changed in B) or
// "mode=NAME,name=value,..." (B runs mode NAME, a 3D mode of modes, with those of its own parameters set). Every
// message names the part of the text at fault.
func parseABFor(modes []Mode, a Mode, text string) (abSpec, error) {
	if !strings.HasPrefix(strings.TrimSpace(text), abModePrefix) {
		return parseAB(a.Params(), text)
	}
	parts := strings.Split(strings.TrimSpace(text), ",")
	name := strings.TrimSpace(strings.TrimPrefix(parts[0], abModePrefix))
	var threeD []string
	for _, m := range modes {
		if !m.Flat {
			threeD = append(threeD, m.Name)
		}
	}
	m, ok := findMode(modes, name)
	switch {
	case name == "":
		return abSpec{}, usagef("--ab %q: mode= names B's mode, one of %s", text, strings.Join(threeD, ", "))
	case !ok:
		return abSpec{}, usagef("--ab %q: unknown mode %q; B may run %s", text, name, strings.Join(threeD, ", "))
	case m.Flat:
		return abSpec{}, usagef("--ab %q: mode %s is 2D; B runs a 3D mode: %s", text, name, strings.Join(threeD, ", "))
	}
	spec := abSpec{Mode: m.Name}
	set := m.Params()
	for _, part := range parts[1:] {
		pn, value, ok := strings.Cut(part, "=")
		pn = strings.TrimSpace(pn)
		if !ok || pn == "" {
			return abSpec{}, usagef("--ab %q: %q: want name=value after the mode, e.g. --ab mode=sph,sph.stiffness=1000", text, part)
		}
		if pn == "mode" {
			return abSpec{}, usagef("--ab %q: %q: B runs one mode, named first", text, part)
		}
		p, ok := set.Lookup(pn)
		if !ok {
			return abSpec{}, usagef("--ab %q: mode %s has no parameter %s (slosh params --mode %s lists them)", text, m.Name, pn, m.Name)
		}
		v, err := p.Parse(value)
		if err == nil {
			err = p.Set(v)
		}
		if err != nil {
			return abSpec{}, usagef("--ab %q: %v", text, err) // param's message names the parameter and the value
		}
		spec.Sets = append(spec.Sets, abSet{Name: pn, Value: v})
	}
	return spec, nil
}

// parseAB reads "name=value" (as given to --ab) against set, a throwaway copy of the mode's parameters (the
// value is checked by setting it there).
func parseAB(set *param.Set, text string) (abSpec, error) {
	name, value, ok := strings.Cut(text, "=")
	if !ok {
		return abSpec{}, usagef("--ab %q: want name=value, e.g. --ab pbf.iterations=6, or mode=NAME,name=value,... for another mode", text)
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

// crossLabel is how a side running another mode is labelled: "sph: sph.pressure = wcsph, sph.stiffness = 1000",
// the values formatted by set (that mode's parameters, or a mirror of them).
func crossLabel(mode string, set *param.Set, sets []abSet) string {
	if len(sets) == 0 {
		return mode
	}
	parts := make([]string, len(sets))
	for i, s := range sets {
		parts[i] = s.Name + " = " + fmt.Sprint(s.Value)
		if p, ok := set.Lookup(s.Name); ok {
			parts[i] = s.Name + " = " + p.Format(s.Value)
		}
	}
	return mode + ": " + strings.Join(parts, ", ")
}

// abLabel is how a side is labelled: "pbf.iterations = 6".
func abLabel(set *param.Set, name string) string {
	p, ok := set.Lookup(name)
	if !ok {
		return name
	}
	return fmt.Sprintf("%s = %s", name, p)
}

// pair steps two solvers frame for frame: A, the simulation that was running, and B, its copy with one parameter
// changed or a solver of another mode. To a driver it is A (name, parameters, frames, stats, state); B's frame
// and stats are there for the second view. Each frame both choose their own substeps; the pair steps them
// interleaved, A's k-th step and B's k-th step, for as many steps as the larger count. In one mode, parameters
// edited on A's set follow to B before every frame and reset, all but the one B changes; another mode's B keeps
// its own.
type pair struct {
	a, b   sim.Solver
	spec   abSpec
	bParam *param.Param      // the parameter the panel edits in B: spec.Name, or another mode's first setting (or nil)
	shared [][2]*param.Param // A's and B's parameters of one name, other than spec.Name (none across modes)
	sc     *scene.Scene      // the scene both were last reset with: another mode's B restarts from it on a load
	fresh  bool              // B is reset from the scene, never given A's state (another mode, or a reset parameter)

	frameDt float64
	na, nb  int // substeps of the frame in progress
	k       int // steps taken of it
	warn    string
}

// newPair wraps a and b, reset with sc: in one mode b holds a copy of a's state and gets the changed parameter;
// another mode's b is already configured and reset. It returns a solver that also has a's optional interfaces
// where b has them too: sim.Hands (acting on both) and the GPU solver's own buffers.
func newPair(a, b sim.Solver, sc *scene.Scene, spec abSpec) (sim.Solver, error) {
	p := &pair{a: a, b: b, spec: spec, sc: sc, fresh: spec.cross() || spec.onReset(a.Params())}
	if spec.cross() {
		if len(spec.Sets) > 0 {
			p.bParam, _ = b.Params().Lookup(spec.Sets[0].Name)
		}
	} else {
		bp, ok := b.Params().Lookup(spec.Name)
		if !ok {
			return nil, fmt.Errorf("A/B: mode %s has no parameter %s", a.Name(), spec.Name)
		}
		p.bParam = bp
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

// setB changes B's value of the compared parameter (another mode's: its first setting). One that acts only on
// reset restarts B from the scene with it, so that B runs the value its label shows.
func (p *pair) setB(v param.Value) error {
	if p.bParam == nil {
		return errors.New("A/B: B changes no parameter")
	}
	if err := p.bParam.Set(v); err != nil {
		return err
	}
	if p.spec.cross() {
		p.spec.Sets[0].Value = v
	} else {
		p.spec.Value = v
	}
	if p.bParam.OnReset {
		if err := sim.Reset(p.b, p.sc); err != nil {
			return fmt.Errorf("B (%s): %w", p.labelB(), err)
		}
		p.warn = fmt.Sprintf("B restarted from the scene: %s acts on reset", p.bParam.Name)
	}
	return nil
}

// labels say what each side runs: "pbf.iterations = 2" and "pbf.iterations = 6" in one mode, or each side's mode
// ("voronoi") with B's own settings ("sph: sph.stiffness = 1000").
func (p *pair) labels() (string, string) {
	if p.spec.cross() {
		return p.a.Name(), crossLabel(p.b.Name(), p.b.Params(), p.spec.Sets)
	}
	return abLabel(p.a.Params(), p.spec.Name), abLabel(p.b.Params(), p.spec.Name)
}

// labelB is B's label, for its errors.
func (p *pair) labelB() string {
	_, b := p.labels()
	return b
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

// Kinds implements sim.Kinds: the kinds of material both A and B simulate, so that a reset of the pair (sim.Reset)
// takes a scene with sand where both run it, and the pour tool offers what both can pour.
func (p *pair) Kinds() []scene.Kind {
	var out []scene.Kind
	kb := sim.KindsOf(p.b)
	for _, k := range sim.KindsOf(p.a) {
		if slices.ContainsFunc(kb, func(h scene.Kind) bool { return h.Canonical() == k.Canonical() }) {
			out = append(out, k)
		}
	}
	return out
}

// Reset resets both with sc; B keeps its changed parameter (another mode's B, its own settings).
func (p *pair) Reset(sc *scene.Scene) error {
	p.sync()
	p.warn = ""
	if err := sim.Reset(p.a, sc); err != nil {
		return err
	}
	p.sc = sc
	if err := sim.Reset(p.b, sc); err != nil {
		return fmt.Errorf("B (%s): %w", p.labelB(), err)
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
			eb = fmt.Errorf("B (%s): %w", p.labelB(), eb)
		}
	}
	return errors.Join(ea, eb)
}

// StateKind, WriteState and ReadState are A's: saving in A/B saves A; a state loaded goes into both, or where B
// runs another mode (whose state is of another kind), B restarts from the scene.
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
	if p.fresh {
		if err := sim.Reset(p.b, p.sc); err != nil {
			return fmt.Errorf("B (%s): %w", p.labelB(), err)
		}
		p.warn = "B restarted from the scene: A's state is not of B's kind"
		if !p.spec.cross() {
			p.warn = fmt.Sprintf("B restarted from the scene: A's state does not have B's %s", p.spec.Name)
		}
		return nil
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
	fresh := spec.onReset(a.Params())
	if fresh {
		// a copy of A's state would never take the value: B starts from the scene with it
		bp, _ := b.Params().Lookup(spec.Name)
		if err := bp.Set(spec.Value); err != nil {
			return fail(err)
		}
	}
	if err := sim.Reset(b, live); err != nil {
		return fail(err)
	}
	if !fresh {
		var buf bytes.Buffer
		if err := st.WriteState(&buf); err != nil {
			deleteSolver(b)
			return nil, fmt.Errorf("A/B: copying A's state: %w", err)
		}
		if err := sb.ReadState(&buf); err != nil {
			return fail(err)
		}
	}
	p, err := newPair(a, b, live, spec)
	if err != nil {
		deleteSolver(b)
		return nil, err
	}
	return p, nil
}

// startCross puts beside a (which runs mode am, reset with live) a solver of another mode, spec.Mode from modes,
// reset from live: the scene's overrides for its own mode, then a's particle target, then spec.Sets. A GPU A
// takes a GPU B; a CPU A takes a compute mode's CPU fallback (both are stepped on one thread). On error a is
// untouched and nothing else is left behind.
func startCross(modes []Mode, am Mode, a sim.Solver, g glInfo, live *scene.Scene, spec abSpec) (sim.Solver, error) {
	bm, ok := findMode(modes, spec.Mode)
	if !ok {
		return nil, fmt.Errorf("A/B: unknown mode %q for B", spec.Mode)
	}
	if bm.Flat {
		return nil, fmt.Errorf("A/B: mode %s is 2D; B runs a 3D mode", bm.Name)
	}
	_, aGPU := a.(gpuSolver)
	switch {
	case aGPU && !bm.Compute:
		return nil, fmt.Errorf("A/B: A runs on the GPU (%s) and B's mode %s on the CPU; run A in a CPU mode (%s) to put %s beside it", am.Name, bm.Name, orName(am.Fallback, "pbf-cpu"), bm.Name)
	case !aGPU && bm.Compute:
		fb, ok := findMode(modes, bm.Fallback)
		if !ok {
			return nil, fmt.Errorf("A/B: A runs on the CPU and B's mode %s needs the GPU", bm.Name)
		}
		bm = fb
	}
	b, err := bm.New(g.ctx)
	if err != nil {
		return nil, fmt.Errorf("A/B: a %s solver for B: %w", bm.Name, err)
	}
	fail := func(err error) (sim.Solver, error) {
		deleteSolver(b)
		return nil, fmt.Errorf("A/B: B (%s): %w", bm.Name, err)
	}
	if _, ok := b.(gpuSolver); ok != aGPU {
		return fail(errors.New("B's solver does not run where A's does (GPU and CPU)"))
	}
	set := b.Params()
	if _, err := applyModeParams(set, live, bm); err != nil {
		return fail(err)
	}
	// A's particle target, so both sample the scene alike — unless B's settings give its own: a count wins over a
	// spacing, so A's count would have overridden a spacing B was given while its label said otherwise
	own := false
	for _, s := range spec.Sets {
		for _, last := range []string{"particles", "spacing", "cell"} {
			if p, ok := sim.ParamNamed(set, last); ok && p.Name == s.Name {
				own = true
			}
		}
	}
	for _, last := range []string{"particles", "spacing"} {
		pa, okA := sim.ParamNamed(a.Params(), last)
		pb, okB := sim.ParamNamed(set, last)
		if own || !okA || !okB {
			continue
		}
		if v, err := pb.Parse(pa.String()); err == nil {
			_ = pb.Set(v) // a value out of B's range leaves B's own
		}
	}
	for _, s := range spec.Sets {
		p, ok := set.Lookup(s.Name)
		if !ok {
			return fail(fmt.Errorf("no parameter %s", s.Name))
		}
		if err := p.Set(s.Value); err != nil {
			return fail(err)
		}
	}
	spec.Mode = bm.Name
	if err := sim.Reset(b, live); err != nil {
		return fail(err)
	}
	p, err := newPair(a, b, live, spec)
	if err != nil {
		deleteSolver(b)
		return nil, err
	}
	return p, nil
}

func orName(name, other string) string {
	if name != "" {
		return name
	}
	return other
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
func (s *session) startAB(spec abSpec, w io.Writer) error { return s.startABIn(Modes(), spec, w) }

// startABIn is startAB with modes as the table another mode for B is found in.
func (s *session) startABIn(modes []Mode, spec abSpec, w io.Writer) error {
	var p sim.Solver
	var err error
	if spec.cross() {
		p, err = startCross(modes, s.mode, s.solver, s.gl, s.st.sc, spec)
	} else {
		p, err = startPair(s.mode, s.solver, s.gl, s.st.sc, spec)
	}
	if err != nil {
		return err
	}
	s.solver = p
	pp := p.(abPair).pairOf()
	la, lb := pp.labels()
	fmt.Fprintf(w, "slosh: A/B: A runs %s, B %s\n", la, lb)
	if pp.fresh {
		fmt.Fprintf(w, "slosh: A/B: A starts with %d particles, B with %d\n", pp.a.Stats().Particles, pp.b.Stats().Particles)
	}
	return nil
}

// abFrame advances a pair one frame like session.frame (off the GL thread for CPU solvers), with each side's steps
// appended to its own list.
func abFrame(p *pair, bufA, bufB []sim.Stats) (outA, outB []sim.Stats, err error) {
	offGLThread(func() { outA, outB, err = abFrameSteps(p, bufA, bufB) }, p.a, p.b)
	return outA, outB, err
}

// abFrameSteps is abFrame's work.
func abFrameSteps(p *pair, bufA, bufB []sim.Stats) ([]sim.Stats, []sim.Stats, error) {
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
