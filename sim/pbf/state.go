package pbf

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/slosh/slosh/internal/binio"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/particles"
	"github.com/slosh/slosh/sim/rigid"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/shell"
)

// State is the whole state of a PBF run, CPU or GPU: enough to continue it exactly. Arrays are per particle, in
// any order (the next step sorts them by cell and id, so the order does not change the result). Ids are 0..N−1;
// each body's particles hold the contiguous ids First..First+Count−1 of its rigid.Body.
type State struct {
	// Spacing is the particle spacing, m, exactly as the run derived its constants from it (Derived.From), so that
	// a load derives the same constants whatever spacing the scene it is loaded with gives a reset.
	Spacing float64
	// Rounded says Spacing is the float32 the run held, not the exact spacing: states before version 3. A load
	// keeps the reset's constants when they round to it (a reset of the same scene), as those versions did.
	Rounded bool
	Time    float64 // simulated time, s
	Steps   int
	Pos     [][4]float32
	Vel     [][4]float32
	ID      []uint32
	// Body, Rest and WInv are the rigid bodies' per-particle arrays (rigid.go); nil when there are no bodies.
	Body   []int32
	Rest   [][4]float32
	WInv   []float32
	Bodies []rigid.Body
	// Material is each particle's material number (scene.Particle.Material: 0 the scene's default material, k its
	// Materials[k−1]), for its colour only: PBF simulates one fluid. nil when every particle is of material 0 (a
	// scene that names no materials, or a state saved before the column, which loads as material 0).
	Material []uint8
	// Emitted is how far each of the scene's emitters' streams has moved since it last added a layer, m; ToolAcc
	// the same for the pouring tool.
	Emitted []float32
	ToolAcc float32
	// Reach is what the GPU solver measured at the start of the frames whose substeps it has not chosen yet,
	// oldest first: (largest squared speed, height along gravity). The GPU plans each frame from a measurement a
	// few frames old, so as not to wait for the GPU; a state carries the pending ones so that a loaded run picks
	// the substeps the saved one would have. The CPU solver measures the present and writes none.
	Reach [][2]float32
}

// N is the particle count.
func (st *State) N() int { return len(st.Pos) }

// FluidCount is the number of fluid particles.
func (st *State) FluidCount() int { return FluidCount(len(st.Pos), st.Bodies) }

// FluidCount is how many of n particles are fluid when these are the bodies.
func FluidCount(n int, bodies []rigid.Body) int {
	for _, b := range bodies {
		n -= b.Count
	}
	return n
}

// The per-particle columns of a PBF run besides positions, velocities and ids: the rigid bodies' (rigid.go), state
// in files and snapshots. A fluid particle is of body −1, with no rest offset and an inverse mass of 1.
const (
	colBody = "body"
	colRest = "rest offset"
	colWInv = "inverse mass"

	fluidBody int32   = -1
	fluidWInv float32 = 1

	// anyMaterial is how many material numbers a state may hold before it meets a scene (CheckFor checks the
	// scene's): any a byte holds.
	anyMaterial = 1 << 8
)

// declare binds h to a PBF run's particle arrays and declares the bodies' columns and the material column (a
// material number of materials() at most): the particles of a solver (which adds its scratch columns) or of a
// State being edited, encoded or decoded.
func declare(h *shell.Shell, pos, vel *[][4]float32, id *[]uint32, body *[]int32, rest *[][4]float32, wInv *[]float32,
	mat *[]uint8, materials func() int) {
	h.Mode = "pbf"
	h.Bind(pos, vel, id)
	particles.Add(&h.P, body, particles.Spec[int32]{Name: colBody, Role: particles.State, Default: fluidBody,
		Check: func(b int32) error {
			if b < fluidBody || b >= scene.MaxBodies {
				return fmt.Errorf("body %d; at most %d bodies", b, scene.MaxBodies)
			}
			return nil
		}})
	particles.Add(&h.P, rest, particles.Spec[[4]float32]{Name: colRest, Role: particles.State})
	particles.Add(&h.P, wInv, particles.Spec[float32]{Name: colWInv, Role: particles.State, Default: fluidWInv,
		Check: func(w float32) error {
			if !(w > 0) || !finite(w) {
				return fmt.Errorf("%g must be a positive number", w)
			}
			return nil
		}})
	h.Materials(mat, materials)
}

// bind makes h the shell of st's particles, to edit or encode them: st's arrays are bound to it, and a state
// without bodies gets the fluid's values in the bodies' columns, one without materials material 0 (unbind takes
// them away again).
func (st *State) bind(h *shell.Shell) {
	pos, vel, id, body, rest, wInv, mat := st.Pos, st.Vel, st.ID, st.Body, st.Rest, st.WInv, st.Material
	st.Pos, st.Vel, st.ID, st.Body, st.Rest, st.WInv, st.Material = nil, nil, nil, nil, nil, nil, nil
	// declared empty, so nothing is overwritten
	declare(h, &st.Pos, &st.Vel, &st.ID, &st.Body, &st.Rest, &st.WInv, &st.Material, func() int { return anyMaterial })
	st.Pos, st.Vel, st.ID = pos, vel, id
	st.Body, st.Rest, st.WInv, st.Material = body, rest, wInv, mat
	if len(st.Bodies) == 0 {
		st.Body, st.Rest, st.WInv = fluidColumns(len(pos))
	}
	if st.Material == nil {
		st.Material = make([]uint8, len(pos))
	}
}

// unbind drops the bodies' columns of a state left without bodies, and the materials of one left all of material 0.
func (st *State) unbind() {
	if len(st.Bodies) == 0 {
		st.Body, st.Rest, st.WInv = nil, nil, nil
	}
	if !slices.ContainsFunc(st.Material, func(m uint8) bool { return m != 0 }) {
		st.Material = nil
	}
}

// fluidColumns are the bodies' columns of n fluid particles.
func fluidColumns(n int) (body []int32, rest [][4]float32, wInv []float32) {
	body, rest, wInv = make([]int32, n), make([][4]float32, n), make([]float32, n)
	for i := range body {
		body[i], wInv[i] = fluidBody, fluidWInv
	}
	return body, rest, wInv
}

// header is the shell's header of the state.
func (st *State) header() shell.Header {
	return shell.Header{Spacing: st.Spacing, Time: st.Time, Steps: st.Steps}
}

// saved is st as the shell keeps a state, for a solver to restore (its arrays are shared, not copied).
func (st *State) saved() *shell.Saved {
	sv := &shell.Saved{Header: st.header(), Emitted: st.Emitted, ToolAcc: st.ToolAcc}
	p := &sv.Particles
	p.Pos, p.Vel, p.ID = st.Pos, st.Vel, st.ID
	body, rest, wInv := st.Body, st.Rest, st.WInv
	if len(st.Bodies) == 0 {
		body, rest, wInv = fluidColumns(st.N())
	}
	particles.Put(p, colBody, body)
	particles.Put(p, colRest, rest)
	particles.Put(p, colWInv, wInv)
	mat := st.Material
	if mat == nil {
		mat = make([]uint8, st.N())
	}
	particles.Put(p, shell.MaterialColumn, mat)
	return sv
}

// Validate checks the state's consistency: array lengths, ids a permutation of 0..N−1, bodies' id ranges and
// per-particle body indices agreeing, positive inverse masses, finite values.
func (st *State) Validate() error {
	n := len(st.Pos)
	if err := st.header().Check(); err != nil {
		return err
	}
	for k, r := range st.Reach {
		if !(r[0] >= 0) || !(r[1] >= 0) || math.IsInf(float64(r[1]), 0) { // an infinite speed stands for NaN seen
			return fmt.Errorf("frame measurement %d (%g, %g) must be non-negative with a finite height", k, r[0], r[1])
		}
	}
	if err := sim.CheckParticles(st.Pos, st.Vel, st.ID); err != nil {
		return err
	}
	if err := rigid.CheckCount(len(st.Bodies)); err != nil {
		return err
	}
	if st.Material != nil && len(st.Material) != n {
		return fmt.Errorf("%d particles but %d materials", n, len(st.Material))
	}
	if len(st.Bodies) == 0 {
		if st.Body != nil || st.Rest != nil || st.WInv != nil {
			return errors.New("per-particle body arrays without bodies")
		}
		return nil
	}
	if len(st.Body) != n || len(st.Rest) != n || len(st.WInv) != n {
		return fmt.Errorf("%d particles but %d body indices, %d rest offsets and %d inverse masses", n, len(st.Body), len(st.Rest), len(st.WInv))
	}
	for b, bd := range st.Bodies {
		if bd.Count <= 0 || bd.First < 0 || bd.First+bd.Count > n {
			return fmt.Errorf("body %d: ids %d..%d are outside 0..%d", b, bd.First, bd.First+bd.Count-1, n-1)
		}
		if !(bd.InvMass > 0) || !finite(bd.InvMass) || !(bd.Density > 0) {
			return fmt.Errorf("body %d: inverse mass %g and density %g must be positive", b, bd.InvMass, bd.Density)
		}
		for k := 0; k < 3; k++ {
			if !finite(bd.Center[k]) || !finite(bd.Origin[k]) || !finite(bd.Rot[k]) || !finite(bd.Drive[k]) {
				return fmt.Errorf("body %d has a non-finite pose", b)
			}
		}
	}
	for i := range st.ID {
		b, id := st.Body[i], int(st.ID[i])
		if b < -1 || int(b) >= len(st.Bodies) {
			return fmt.Errorf("particle %d belongs to body %d of %d", i, b, len(st.Bodies))
		}
		if b >= 0 {
			if bd := st.Bodies[b]; id < bd.First || id >= bd.First+bd.Count {
				return fmt.Errorf("particle %d (id %d) of body %d is outside the body's ids %d..%d", i, id, b, bd.First, bd.First+bd.Count-1)
			}
		} else {
			for bi, bd := range st.Bodies {
				if id >= bd.First && id < bd.First+bd.Count {
					return fmt.Errorf("fluid particle %d has id %d, inside body %d's ids", i, id, bi)
				}
			}
		}
		if !(st.WInv[i] > 0) || !finite(st.WInv[i]) {
			return fmt.Errorf("particle %d has inverse mass %g", i, st.WInv[i])
		}
	}
	return nil
}

// CheckFor validates the state and checks it fits a solver reset with sc and holding at most budget particles:
// the scene's emitters, every particle and body inside the scene's domain (to a margin), speeds a solver can
// follow, rest offsets no larger than the domain, and particles no more tightly packed than a fluid at the
// state's spacing can be (shell.Saved.CheckFor). A state of another scene (a smaller domain, a finer spacing)
// would otherwise load and blow up on its first step, met with advice about time steps that has nothing to do
// with it.
func (st *State) CheckFor(sc *scene.Scene, budget int) error {
	if err := st.Validate(); err != nil {
		return err
	}
	if err := st.saved().CheckFor(sc, budget, "pbf.budget"); err != nil {
		return err
	}
	dom := sc.Domain
	size := dom.Size().MaxComp()
	margin := min(2*st.Spacing, size) + 0.01*size
	where := fmt.Sprintf("the scene %q's domain %v–%v (with a margin of %.3g m): the state belongs to another scene", sc.Name, dom.Min, dom.Max, margin)
	diag := dom.Size().Len()
	for i, m := range st.Material {
		if int(m) >= sc.MaterialCount() {
			return fmt.Errorf("particle %d is of material %d; the scene %q has %d (the state belongs to another scene)", i, m, sc.Name, sc.MaterialCount())
		}
	}
	for b, bd := range st.Bodies {
		if sim.Outside(bd.Center, dom, margin) {
			return fmt.Errorf("body %d's centre (%.6g, %.6g, %.6g) lies outside %s", b, bd.Center[0], bd.Center[1], bd.Center[2], where)
		}
		if sp := sim.Speed(bd.Drive); sp > sim.MaxStateSpeed {
			return fmt.Errorf("body %d is driven at %.3g m/s; at most %g m/s", b, sp, float64(sim.MaxStateSpeed))
		}
	}
	for i, r := range st.Rest {
		if l := math.Sqrt(float64(r[0])*float64(r[0]) + float64(r[1])*float64(r[1]) + float64(r[2])*float64(r[2])); !(l <= diag) {
			return fmt.Errorf("particle %d's rest offset from its body's centre is %.3g m, more than the domain's diagonal %.3g m", i, l, diag)
		}
	}
	return nil
}

// Format is the PBF state file, the CPU's and the GPU's: the shell's frame (sim/shell), the particles with the
// bodies' columns, and as the mode's own part the bodies and the GPU's pending frame measurements:
//
//	bodies int64, each body (bodyWire), measurements int64, each (largest squared speed, height) as 2 float32.
//
// Versions 1 and 2 are the format before the frame, converted on reading (state_v2.go).
var Format = shell.Format{Magic: "slosh pbf state\n", Kind: "pbf", Version: 3,
	MaxExtra: 8 + scene.MaxBodies*bodyWireBytes + 8 + maxReach*8}

const (
	// maxReach bounds the frames of Reach a state may hold.
	maxReach      = 64
	bodyWireBytes = 80 // binary.Size(bodyWire{})
)

// bodyWire is rigid.Body in fixed-size fields.
type bodyWire struct {
	First, Count   int64
	InvMass        float32
	Center, Origin [3]float32
	Rot            rigid.Quat
	Density        float32
	Drive          [4]float32
}

// Encode writes the state in its binary form.
func (st *State) Encode(w io.Writer) error {
	c := *st // bound, not st: bind gives a state without bodies its fluid columns
	var h shell.Shell
	c.bind(&h)
	h.Emitted, h.ToolAcc = c.Emitted, c.ToolAcc
	return h.Encode(w, Format, c.header(), encodeOwn(c.Bodies, c.Reach))
}

// encodeOwn is the mode's own part of the state file: the bodies and the frame measurements.
func encodeOwn(bodies []rigid.Body, reach [][2]float32) []byte {
	var b bytes.Buffer
	le := binary.LittleEndian
	_ = binary.Write(&b, le, int64(len(bodies))) // a bytes.Buffer takes every write
	for _, bd := range bodies {
		_ = binary.Write(&b, le, bodyWire{First: int64(bd.First), Count: int64(bd.Count), InvMass: bd.InvMass, Center: bd.Center,
			Origin: bd.Origin, Rot: bd.Rot, Density: bd.Density, Drive: bd.Drive})
	}
	_ = binary.Write(&b, le, int64(len(reach)))
	_ = binary.Write(&b, le, reach)
	return b.Bytes()
}

// DecodeState reads a state Encode wrote, or one of the versions before the shell's frame, and validates it. The
// counts it declares are checked before anything is allocated for them: against fixed limits, and against the
// bytes left in r when r says how many (a bytes.Reader does); arrays otherwise grow as their data arrives, so a
// short input claiming billions of particles costs no more memory than it holds.
func DecodeState(r io.Reader) (*State, error) {
	version, br, left, err := shell.ReadVersion(r, Format)
	if err != nil {
		return nil, err
	}
	var st *State
	switch version {
	case Format.Version:
		st, err = decodeFrame(br, left)
	case 1, 2:
		st, err = decodeV2(br, left, version)
	default:
		return nil, fmt.Errorf("pbf state version %d; this slosh reads versions 1 to %d", version, Format.Version)
	}
	if err != nil {
		return nil, err
	}
	if err := st.Validate(); err != nil {
		return nil, fmt.Errorf("pbf state: %w", err)
	}
	return st, nil
}

// decodeFrame reads the rest of a state in the shell's frame.
func decodeFrame(br *bufio.Reader, left int64) (*State, error) {
	var c State // empty: a shell of the state's columns to decode them
	var h shell.Shell
	c.bind(&h)
	sv, err := h.Decode(br, left, Format)
	if err != nil {
		return nil, err
	}
	p := &sv.Particles
	st := &State{Spacing: sv.Spacing, Time: sv.Time, Steps: sv.Steps, Pos: p.Pos, Vel: p.Vel, ID: p.ID,
		Body: particles.Get[int32](p, colBody), Rest: particles.Get[[4]float32](p, colRest), WInv: particles.Get[float32](p, colWInv),
		Material: particles.Get[uint8](p, shell.MaterialColumn), Emitted: sv.Emitted, ToolAcc: sv.ToolAcc}
	if st.Bodies, st.Reach, err = decodeOwn(sv.Extra, st.N()); err != nil {
		return nil, fmt.Errorf("pbf state: %w", err)
	}
	if len(st.Bodies) == 0 {
		for i, b := range st.Body {
			if b != fluidBody {
				return nil, fmt.Errorf("pbf state: particle %d belongs to body %d of 0", i, b)
			}
		}
	}
	st.unbind()
	return st, nil
}

// decodeOwn reads encodeOwn's bytes for a state of n particles.
func decodeOwn(own []byte, n int) ([]rigid.Body, [][2]float32, error) {
	r := bytes.NewReader(own)
	le := binary.LittleEndian
	var nb int64
	if err := binary.Read(r, le, &nb); err != nil {
		return nil, nil, fmt.Errorf("truncated bodies: %w", err)
	}
	if nb < 0 || nb > scene.MaxBodies {
		return nil, nil, fmt.Errorf("%d bodies; at most %d", nb, scene.MaxBodies)
	}
	wire, err := binio.ReadArray[bodyWire](r, nb)
	if err != nil {
		return nil, nil, fmt.Errorf("truncated bodies: %w", err)
	}
	bodies, err := fromWire(wire, int64(n))
	if err != nil {
		return nil, nil, err
	}
	reach, err := readReach(r)
	if err != nil {
		return nil, nil, err
	}
	if r.Len() != 0 {
		return nil, nil, fmt.Errorf("%d bytes after the frame measurements: the state is damaged", r.Len())
	}
	return bodies, reach, nil
}

// readReach reads the frame measurements: their count (int64) and values.
func readReach(r io.Reader) ([][2]float32, error) {
	var nr int64
	if err := binary.Read(r, binary.LittleEndian, &nr); err != nil {
		return nil, fmt.Errorf("truncated frame measurements: %w", err)
	}
	if nr < 0 || nr > maxReach {
		return nil, fmt.Errorf("%d frame measurements; at most %d", nr, maxReach)
	}
	reach, err := binio.ReadArray[[2]float32](r, nr)
	if err != nil {
		return nil, fmt.Errorf("truncated frame measurements: %w", err)
	}
	return reach, nil
}

// fromWire converts the bodies of a state of n particles.
func fromWire(wire []bodyWire, n int64) ([]rigid.Body, error) {
	var bodies []rigid.Body
	for _, w := range wire {
		if w.First < 0 || w.First > n || w.Count < 0 || w.Count > n {
			return nil, fmt.Errorf("body ids %d+%d outside %d particles", w.First, w.Count, n)
		}
		bodies = append(bodies, rigid.Body{First: int(w.First), Count: int(w.Count), InvMass: w.InvMass, Center: w.Center,
			Origin: w.Origin, Rot: w.Rot, Density: w.Density, Drive: w.Drive})
	}
	return bodies, nil
}

// edit makes a change through the shell bound to the state's particles (a hand on the GPU's state read back).
func (st *State) edit(change func(e hands) error) error {
	var h shell.Shell
	st.bind(&h)
	defer st.unbind()
	return change(hands{h: &h, body: &st.Body, rest: &st.Rest, wInv: &st.WInv, bodies: &st.Bodies})
}

// Drain removes the fluid particles within radius r of c and returns them.
func (st *State) Drain(c [3]float32, r float32) []sim.Particle {
	var out []sim.Particle
	_ = st.edit(func(e hands) error {
		out = e.drain(c, r)
		return nil
	})
	return out
}

// AddBody appends a rigid body with the next ids, first removing the fluid particles for which inside is true
// (where the body lands); it returns them. rho0 is the fluid's rest density; the result may hold at most budget
// particles.
func (st *State) AddBody(spec rigid.BodySpec, rho0 float32, inside func(p [4]float32) bool, budget int) ([]sim.Particle, error) {
	var displaced []sim.Particle
	err := st.edit(func(e hands) error {
		var err error
		displaced, err = e.addBody(spec, rho0, inside, budget)
		return err
	})
	return displaced, err
}

// RemoveBody removes body b and its particles; later bodies move down one index.
func (st *State) RemoveBody(b int) error {
	return st.edit(func(e hands) error { return e.removeBody(b) })
}
