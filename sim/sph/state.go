package sph

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/slosh/slosh/internal/binio"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/emit"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/solid"
)

// State is the whole state of an SPH run: everything a step reads that it does not compute, so that a loaded run
// continues bit for bit. Arrays are per particle in the solver's order (sorted by cell and id at the last step).
// Densities, volumes, forces and neighbour lists are recomputed by every step and not kept.
type State struct {
	Spacing float64 // particle spacing, m
	Time    float64 // simulated time, s
	Steps   int
	// Amax is the largest acceleration of the last step, m/s²: BeginFrame's force condition (eq. 2.28) reads it.
	Amax float64
	Pos  [][4]float32
	Vel  [][4]float32
	ID   []uint32
	Mat  []uint8 // each particle's material, an index into Materials
	// Pres is each particle's pressure, Pa: where PCISPH starts the next step's correction with sph.warm_start.
	Pres []float32
	// Materials are the run's fluids. With ConfigMaterial, material 0 follows sph.rest_density and sph.viscosity
	// (the scene named no materials and there is one).
	Materials      []Material
	ConfigMaterial bool
	// Emitted is how far each of the scene's emitters' streams has moved since it last added a layer, m; ToolAcc
	// the same for the pouring tool.
	Emitted []float32
	ToolAcc float32
	// Bodies are the rigid bodies as bodies.go writes them (appendBodyState), read against the solver's scene when
	// the state is loaded; empty is none.
	Bodies []byte
}

// N is the particle count.
func (st *State) N() int { return len(st.Pos) }

// The binary form: a magic line, a version, the scalars and counts, then the arrays, little-endian.
const (
	stateMagic   = "slosh sph state\n"
	stateVersion = 1
	// maxStateParticles bounds what a state may claim before anything is allocated: the largest budget a solver
	// can have (sph.budget's automatic value at the scene limit).
	maxStateParticles = 2 * scene.MaxParticles
	maxStateEmitters  = 1 << 16
	// MaxStateTime bounds the simulated time a state may hold, s; maxStateSteps the steps.
	MaxStateTime  = 1e9
	maxStateSteps = 1 << 50
	// maxStateNu bounds a material's kinematic viscosity, m²/s: the most a scene's material gives (1000 Pa·s at
	// 1 kg/m³) and sph.viscosity's most.
	maxStateNu = scene.MaxViscosity/scene.MinMaterialDensity + 1
	// the sizes of the binary form's parts, bytes
	headBytes     = len(stateMagic) + 4 + 8*8 // magic, version, spacing, time, steps, amax, flags, three counts
	particleBytes = 16 + 16 + 4 + 1 + 4       // position, velocity, id, material, pressure
	materialBytes = 8
	// maxStateBodyBytes bounds the bodies' part: two counts, the bodies' description as a scene file, and each
	// body's dynamic state.
	maxStateBodyBytes = 16 + scene.MaxFileBytes + scene.MaxBodies*256
)

// Encode writes the state in its binary form.
func (st *State) Encode(w io.Writer) error {
	flags := int64(0)
	if st.ConfigMaterial {
		flags = 1
	}
	return binio.Write(w, "sph",
		[]byte(stateMagic), uint32(stateVersion), st.Spacing, st.Time, int64(st.Steps), st.Amax, flags,
		int64(len(st.Pos)), int64(len(st.Materials)), int64(len(st.Emitted)),
		st.Pos, st.Vel, st.ID, st.Mat, st.Pres, st.Materials, st.Emitted, st.ToolAcc, int64(len(st.Bodies)), st.Bodies)
}

// DecodeState reads a state Encode wrote and validates it. The counts it declares are checked before anything is
// allocated for them: against fixed limits, and against the bytes left in r when r says how many (a bytes.Reader
// does); arrays otherwise grow as their data arrives (internal/binio).
func DecodeState(r io.Reader) (*State, error) {
	br, left, err := binio.Open(r, stateMagic, "sph")
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	var version uint32
	var steps, flags, n, nm, ne int64
	st := &State{}
	for _, v := range []any{&version, &st.Spacing, &st.Time, &steps, &st.Amax, &flags, &n, &nm, &ne} {
		if err := binary.Read(br, le, v); err != nil {
			return nil, fmt.Errorf("sph state: truncated header: %w", err)
		}
	}
	switch {
	case version != stateVersion:
		return nil, fmt.Errorf("sph state version %d; this slosh reads version %d", version, stateVersion)
	case flags != 0 && flags != 1:
		return nil, fmt.Errorf("sph state: the flags are %d, not 0 or 1: the state is damaged", flags)
	case n < 0 || n > maxStateParticles:
		return nil, fmt.Errorf("sph state: particle count %d is outside [0, %d]", n, maxStateParticles)
	case nm < 1 || nm > MaxMaterials:
		return nil, fmt.Errorf("sph state: material count %d is outside [1, %d]", nm, MaxMaterials)
	case ne < 0 || ne > maxStateEmitters:
		return nil, fmt.Errorf("sph state: emitter count %d is outside [0, %d]", ne, maxStateEmitters)
	case steps < 0 || steps > maxStateSteps:
		return nil, fmt.Errorf("sph state: steps: %d is outside [0, %d]", steps, int64(maxStateSteps))
	}
	need := int64(headBytes) + n*particleBytes + nm*materialBytes + ne*4 + 4 + 8
	if left >= 0 && need > left {
		return nil, fmt.Errorf("sph state: it declares %d particles, %d materials and %d emitters, %d bytes, but holds %d bytes: it is truncated or damaged",
			n, nm, ne, need, left)
	}
	st.Steps, st.ConfigMaterial = int(steps), flags == 1
	fail := func(what string, err error) (*State, error) {
		return nil, fmt.Errorf("sph state: truncated %s (%d particles declared): %w", what, n, err)
	}
	if st.Pos, st.Vel, st.ID, err = binio.ReadParticles(br, n); err != nil {
		return nil, fmt.Errorf("sph state: %w (%d particles declared)", err, n)
	}
	if st.Mat, err = binio.ReadArray[uint8](br, n); err != nil {
		return fail("materials", err)
	}
	if st.Pres, err = binio.ReadArray[float32](br, n); err != nil {
		return fail("pressures", err)
	}
	if st.Materials, err = binio.ReadArray[Material](br, nm); err != nil {
		return fail("material table", err)
	}
	if st.Emitted, err = binio.ReadArray[float32](br, ne); err != nil {
		return fail("emitters", err)
	}
	if err := binary.Read(br, le, &st.ToolAcc); err != nil {
		return fail("pouring tool", err)
	}
	var nb int64
	if err := binary.Read(br, le, &nb); err != nil {
		return fail("bodies' length", err)
	}
	if nb < 0 || nb > maxStateBodyBytes || (left >= 0 && need+nb > left) {
		return nil, fmt.Errorf("sph state: the bodies take %d bytes, outside [0, %d] or more than the state holds: it is truncated or damaged", nb, maxStateBodyBytes)
	}
	if st.Bodies, err = binio.ReadArray[byte](br, nb); err != nil {
		return fail("bodies", err)
	}
	if err := binio.End(br, "sph"); err != nil {
		return nil, err
	}
	if err := st.Validate(); err != nil {
		return nil, fmt.Errorf("sph state: %w", err)
	}
	return st, nil
}

// Validate checks what does not depend on the scene: array lengths, ids a permutation of 0..N−1, every value
// finite and within what a run can reach, each particle's material in the table.
func (st *State) Validate() error {
	n := len(st.Pos)
	switch {
	case !(st.Spacing > 0) || math.IsInf(st.Spacing, 0):
		return fmt.Errorf("particle spacing %g must be a positive number", st.Spacing)
	case !(st.Time >= 0 && st.Time <= MaxStateTime):
		return fmt.Errorf("time: %.6g s is outside [0, %g] s", st.Time, float64(MaxStateTime))
	case st.Steps < 0 || st.Steps > maxStateSteps:
		return fmt.Errorf("steps: %d is outside [0, %d]", st.Steps, int64(maxStateSteps))
	case !(st.Amax >= 0) || math.IsInf(st.Amax, 0):
		return fmt.Errorf("the last step's largest acceleration %g m/s² must be a non-negative number", st.Amax)
	case len(st.Mat) != n || len(st.Pres) != n:
		return fmt.Errorf("%d particles but %d materials and %d pressures", n, len(st.Mat), len(st.Pres))
	case len(st.Materials) < 1 || len(st.Materials) > MaxMaterials:
		return fmt.Errorf("%d materials; 1 to %d", len(st.Materials), MaxMaterials)
	case st.ConfigMaterial && len(st.Materials) != 1:
		return fmt.Errorf("%d materials, but material 0 follows the parameters, which make one", len(st.Materials))
	}
	if err := sim.CheckParticles(st.Pos, st.Vel, st.ID); err != nil {
		return err
	}
	for k, m := range st.Materials {
		if !(m.RestDensity >= scene.MinMaterialDensity && m.RestDensity <= scene.MaxMaterialDensity) || !(m.Viscosity >= 0 && m.Viscosity <= maxStateNu) {
			return fmt.Errorf("material %d has rest density %g kg/m³ and viscosity %g m²/s; the density must be within [%d, %g] and the viscosity within [0, %g]",
				k, m.RestDensity, m.Viscosity, scene.MinMaterialDensity, float64(scene.MaxMaterialDensity), float64(maxStateNu))
		}
	}
	for i := range st.Pos {
		if int(st.Mat[i]) >= len(st.Materials) {
			return fmt.Errorf("particle %d is of material %d; there are %d", i, st.Mat[i], len(st.Materials))
		}
		if p := st.Pres[i]; !(p >= 0) || math.IsInf(float64(p), 0) {
			return fmt.Errorf("particle %d has pressure %g Pa; pressures are finite and not negative", i, p)
		}
	}
	return emit.CheckTravel(st.Emitted, st.ToolAcc, float32(st.Spacing))
}

// CheckFor validates the state and checks that it fits a solver reset with sc and holding at most budget
// particles: the scene's emitters, every particle inside the scene's domain (to a margin), speeds a solver can
// follow, and particles no more tightly packed than a fluid at the state's spacing (sim.CheckPlacement). A state of
// another scene would otherwise load and blow up on its first step.
func (st *State) CheckFor(sc *scene.Scene, budget int) error {
	if err := st.Validate(); err != nil {
		return err
	}
	if len(st.Emitted) != len(sc.Emitters) {
		return fmt.Errorf("the state has %d emitters, the scene %q has %d: it was saved with another scene", len(st.Emitted), sc.Name, len(sc.Emitters))
	}
	if st.N() > budget {
		return fmt.Errorf("the state has %d particles, over the budget of %d (raise sph.budget and reset)", st.N(), budget)
	}
	return sim.CheckPlacement(st.Pos, st.Vel, st.ID, sc, st.Spacing)
}

// checkRun checks that a state belongs to the solver's run: the same fluids, and a particle spacing the scene can
// be sampled at (a save file's sph.particles or sph.spacing may have been changed after its run's reset, so the
// state's spacing is the one that counts, as in the PBF modes).
func (s *Solver) checkRun(st *State) error {
	if st.Spacing != s.spacing {
		if err := s.sc.CheckSpacing(st.Spacing); err != nil {
			return fmt.Errorf("the state's particle spacing does not fit the scene %q: %w", s.sc.Name, err)
		}
	}
	if len(st.Materials) != len(s.mats) || st.ConfigMaterial != s.cfgMats {
		return fmt.Errorf("the state has %d fluids, this run %d (the scene %q names %d materials): it was saved with another scene",
			len(st.Materials), len(s.mats), s.sc.Name, len(s.sc.Materials))
	}
	if !s.cfgMats {
		for k, m := range st.Materials {
			if m.RestDensity != s.mats[k].RestDensity {
				return fmt.Errorf("the state's fluid %d has rest density %g kg/m³, this run's %g kg/m³: it was saved with another scene", k, m.RestDensity, s.mats[k].RestDensity)
			}
		}
	}
	return nil
}

// StateKind implements sim.Stateful.
func (s *Solver) StateKind() string { return Name }

// SaveState copies the whole state into dst, reusing its slices.
func (s *Solver) SaveState(dst *State) {
	dst.Spacing, dst.Time, dst.Steps, dst.Amax = s.spacing, s.time, s.steps, s.amax
	dst.Pos = append(dst.Pos[:0], s.x...)
	dst.Vel = append(dst.Vel[:0], s.v...)
	dst.ID = append(dst.ID[:0], s.id...)
	dst.Mat = append(dst.Mat[:0], s.mat...)
	dst.Pres = append(dst.Pres[:0], s.pres[:len(s.x)]...)
	dst.Materials = append(dst.Materials[:0], s.mats...)
	dst.ConfigMaterial = s.cfgMats
	dst.Emitted = append(dst.Emitted[:0], s.emitAcc...)
	dst.ToolAcc = s.toolAcc
}

// LoadState replaces the state with st after checking it against the scene the solver was reset with and its run
// (the same fluids and emitters); a state of another spacing sets the solver's. On error the solver keeps its
// state.
func (s *Solver) LoadState(st *State) error {
	if s.sc == nil {
		return fmt.Errorf("sph: load a state after a reset with its scene")
	}
	if err := st.CheckFor(s.sc, s.budget); err != nil {
		return fmt.Errorf("sph: %w", err)
	}
	if err := s.checkRun(st); err != nil {
		return fmt.Errorf("sph: %w", err)
	}
	var list []body
	if len(st.Bodies) > 0 {
		br := bytes.NewReader(st.Bodies)
		l, err := s.readBodyState(br)
		if err != nil {
			return fmt.Errorf("sph state: %w", err)
		}
		if br.Len() != 0 {
			return fmt.Errorf("sph state: %d bytes after the bodies: the state is damaged", br.Len())
		}
		list = l
	}
	if st.Spacing != s.spacing {
		if err := s.derive(st.Spacing, s.budget); err != nil {
			return err
		}
	}
	s.loadState(st)
	s.installBodies(list)
	s.save()
	return nil
}

// loadState sets the state from a consistent st (the last good one, or a checked state).
func (s *Solver) loadState(st *State) {
	n := st.N()
	s.x = append(s.x[:0], st.Pos...)
	s.v = append(s.v[:0], st.Vel...)
	s.id = append(s.id[:0], st.ID...)
	s.mat = append(s.mat[:0], st.Mat...)
	s.sizeScratch(n)
	copy(s.pres, st.Pres)
	for i := range s.rs {
		s.r[i], s.rs[i] = 1, 1
	}
	s.mats = append(s.mats[:0], st.Materials...)
	s.emitAcc = append(s.emitAcc[:0], st.Emitted...)
	s.toolAcc = st.ToolAcc
	s.time, s.steps, s.amax = st.Time, st.Steps, st.Amax
	s.followViscosity() // a scene's materials follow the parameters, as material 0 of one without does
	s.updateMaterials()
	s.col.Obstacles = solid.Moved(s.sc, s.time, s.tools.Paddle)
	s.paddled = s.tools.Paddle != nil
	s.stats.Particles, s.stats.Steps, s.stats.Time = n, s.steps, s.time
}

// WriteState implements sim.Stateful.
func (s *Solver) WriteState(w io.Writer) error {
	var st State
	s.SaveState(&st)
	var b bytes.Buffer
	if err := s.appendBodyState(&b); err != nil {
		return err
	}
	st.Bodies = b.Bytes()
	return st.Encode(w)
}

// ReadState implements sim.Stateful: the state must come from a run of the scene the solver was reset with. On
// error the solver keeps its state.
func (s *Solver) ReadState(r io.Reader) error {
	st, err := DecodeState(r)
	if err != nil {
		return err
	}
	return s.LoadState(st)
}
