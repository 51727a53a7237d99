package pbf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/slosh/slosh/internal/binio"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/rigid"
	"github.com/slosh/slosh/sim/scene"
)

// State is the whole state of a PBF run, CPU or GPU: enough to continue it exactly. Arrays are per particle, in
// any order (the next step sorts them by cell and id, so the order does not change the result). Ids are 0..N−1;
// each body's particles hold the contiguous ids First..First+Count−1 of its rigid.Body.
type State struct {
	Spacing float64 // particle spacing, m
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
	// Emitted is how far each of the scene's emitters' streams has moved since it last added a layer, m.
	Emitted []float32
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

// Validate checks the state's consistency: array lengths, ids a permutation of 0..N−1, bodies' id ranges and
// per-particle body indices agreeing, positive inverse masses, finite values.
func (st *State) Validate() error {
	n := len(st.Pos)
	if !(st.Spacing > 0) || math.IsInf(st.Spacing, 0) {
		return fmt.Errorf("particle spacing %g must be a positive number", st.Spacing)
	}
	if !(st.Time >= 0 && st.Time <= MaxStateTime) {
		return fmt.Errorf("time: %.6g s is outside [0, %g] s", st.Time, float64(MaxStateTime))
	}
	if st.Steps < 0 || st.Steps > maxStateSteps {
		return fmt.Errorf("steps: %d is outside [0, %d]", st.Steps, int64(maxStateSteps))
	}
	for k, r := range st.Reach {
		if !(r[0] >= 0) || !(r[1] >= 0) || math.IsInf(float64(r[1]), 0) { // an infinite speed stands for NaN seen
			return fmt.Errorf("frame measurement %d (%g, %g) must be non-negative with a finite height", k, r[0], r[1])
		}
	}
	if err := sim.CheckParticles(st.Pos, st.Vel, st.ID); err != nil {
		return err
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
// state's spacing can be. A state of another scene (a smaller domain, a finer spacing) would otherwise load and
// blow up on its first step, met with advice about time steps that has nothing to do with it.
func (st *State) CheckFor(sc *scene.Scene, budget int) error {
	if err := st.Validate(); err != nil {
		return err
	}
	if len(st.Emitted) != len(sc.Emitters) {
		return fmt.Errorf("the state has %d emitters, the scene %q has %d", len(st.Emitted), sc.Name, len(sc.Emitters))
	}
	if st.N() > budget {
		return fmt.Errorf("the state has %d particles, over the budget of %d (raise pbf.budget and reset)", st.N(), budget)
	}
	if err := sim.CheckPlacement(st.Pos, st.Vel, st.ID, sc, st.Spacing); err != nil {
		return err
	}
	dom := sc.Domain
	size := dom.Size().MaxComp()
	margin := min(2*st.Spacing, size) + 0.01*size
	where := fmt.Sprintf("the scene %q's domain %v–%v (with a margin of %.3g m): the state belongs to another scene", sc.Name, dom.Min, dom.Max, margin)
	diag := dom.Size().Len()
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

// The binary form: a magic line, a version, the scalars, then each array as a little-endian count and values.
const (
	stateMagic   = "slosh pbf state\n"
	stateVersion = 2 // 2 added Reach; version 1 states read with none
	// maxReach bounds the frames of Reach a state may hold.
	maxReach = 64
	// maxStateParticles bounds what a state file may claim before anything is allocated: the largest budget a
	// solver can have (pbf.budget's automatic value at the scene limit, twice scene.MaxParticles).
	maxStateParticles = 2 * scene.MaxParticles
	// maxStateEmitters bounds the emitters a state may list.
	maxStateEmitters = 1 << 16
	// MaxStateTime bounds the simulated time a state may hold, s: decades, far beyond any run; more is a damaged
	// file, and prints as hundreds of digits.
	MaxStateTime = 1e9
	// maxStateSteps bounds the step count as MaxStateTime the time.
	maxStateSteps = 1 << 50
	// the sizes of the binary form's parts, bytes
	headBytes     = len(stateMagic) + 4 + 8*7 // magic, version, spacing, time, steps, four counts
	particleBytes = 16 + 16 + 4               // position, velocity, id
	bodyPartBytes = 4 + 16 + 4                // body index, rest offset, inverse mass
	bodyWireBytes = 80                        // binary.Size(bodyWire{})
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
	hasBodies := int64(0)
	if len(st.Bodies) > 0 {
		hasBodies = 1
	}
	head := []any{
		[]byte(stateMagic), uint32(stateVersion), st.Spacing, st.Time, int64(st.Steps),
		int64(len(st.Pos)), int64(len(st.Bodies)), hasBodies, int64(len(st.Emitted)),
		st.Pos, st.Vel, st.ID,
	}
	if hasBodies != 0 {
		head = append(head, st.Body, st.Rest, st.WInv)
		for _, b := range st.Bodies {
			head = append(head, bodyWire{First: int64(b.First), Count: int64(b.Count), InvMass: b.InvMass, Center: b.Center,
				Origin: b.Origin, Rot: b.Rot, Density: b.Density, Drive: b.Drive})
		}
	}
	head = append(head, st.Emitted, int64(len(st.Reach)), st.Reach)
	return binio.Write(w, "pbf", head...)
}

// DecodeState reads a state Encode wrote and validates it. The counts it declares are checked before anything
// is allocated for them: against fixed limits, and against the bytes left in r when r says how many (a
// bytes.Reader does); arrays otherwise grow as their data arrives, so a short input claiming billions of
// particles costs no more memory than it holds.
func DecodeState(r io.Reader) (*State, error) {
	br, left, err := binio.Open(r, stateMagic, "pbf")
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	var version uint32
	var steps, n, nb, hasBodies, ne int64
	st := &State{}
	for _, v := range []any{&version, &st.Spacing, &st.Time, &steps, &n, &nb, &hasBodies, &ne} {
		if err := binary.Read(br, le, v); err != nil {
			return nil, fmt.Errorf("pbf state: truncated header: %w", err)
		}
	}
	if version < 1 || version > stateVersion {
		return nil, fmt.Errorf("pbf state version %d; this slosh reads versions 1 to %d", version, stateVersion)
	}
	switch {
	case n < 0 || n > maxStateParticles:
		return nil, fmt.Errorf("pbf state: particle count %d is outside [0, %d]", n, maxStateParticles)
	case hasBodies != 0 && hasBodies != 1:
		return nil, fmt.Errorf("pbf state: the bodies flag is %d, not 0 or 1: the state is damaged", hasBodies)
	case nb < 0 || nb > n || nb > 0 && hasBodies == 0:
		return nil, fmt.Errorf("pbf state: body count %d is outside [0, %d] (the particle count, and 0 without the bodies flag)", nb, n)
	case ne < 0 || ne > maxStateEmitters:
		return nil, fmt.Errorf("pbf state: emitter count %d is outside [0, %d]", ne, maxStateEmitters)
	case steps < 0 || steps > maxStateSteps:
		return nil, fmt.Errorf("pbf state: steps: %d is outside [0, %d]", steps, int64(maxStateSteps))
	}
	need := int64(headBytes) + n*(particleBytes+hasBodies*bodyPartBytes) + nb*bodyWireBytes + ne*4
	if left >= 0 && need > left {
		return nil, fmt.Errorf("pbf state: it declares %d particles, %d bodies and %d emitters, %d bytes, but holds %d bytes: it is truncated or damaged",
			n, nb, ne, need, left)
	}
	st.Steps = int(steps)
	fail := func(what string, err error) (*State, error) {
		return nil, fmt.Errorf("pbf state: truncated %s (%d particles, %d bodies declared): %w", what, n, nb, err)
	}
	if st.Pos, st.Vel, st.ID, err = binio.ReadParticles(br, n); err != nil {
		return nil, fmt.Errorf("pbf state: %w (%d particles declared)", err, n)
	}
	if hasBodies != 0 {
		if st.Body, err = binio.ReadArray[int32](br, n); err != nil {
			return fail("body indices", err)
		}
		if st.Rest, err = binio.ReadArray[[4]float32](br, n); err != nil {
			return fail("rest offsets", err)
		}
		if st.WInv, err = binio.ReadArray[float32](br, n); err != nil {
			return fail("inverse masses", err)
		}
	}
	if hasBodies != 0 {
		wire, err := binio.ReadArray[bodyWire](br, nb)
		if err != nil {
			return fail("bodies", err)
		}
		for _, w := range wire {
			if w.First < 0 || w.First > n || w.Count < 0 || w.Count > n {
				return nil, fmt.Errorf("pbf state: body ids %d+%d outside %d particles", w.First, w.Count, n)
			}
			st.Bodies = append(st.Bodies, rigid.Body{First: int(w.First), Count: int(w.Count), InvMass: w.InvMass, Center: w.Center,
				Origin: w.Origin, Rot: w.Rot, Density: w.Density, Drive: w.Drive})
		}
	}
	if st.Emitted, err = binio.ReadArray[float32](br, ne); err != nil {
		return fail("emitters", err)
	}
	if version >= 2 {
		var nr int64
		if err := binary.Read(br, le, &nr); err != nil {
			return nil, fmt.Errorf("pbf state: truncated frame measurements: %w", err)
		}
		if nr < 0 || nr > maxReach {
			return nil, fmt.Errorf("pbf state: %d frame measurements; at most %d", nr, maxReach)
		}
		st.Reach = make([][2]float32, nr)
		if err := binary.Read(br, le, st.Reach); err != nil {
			return nil, fmt.Errorf("pbf state: truncated frame measurements: %w", err)
		}
	}
	if err := binio.End(br, "pbf"); err != nil {
		return nil, err
	}
	if err := st.Validate(); err != nil {
		return nil, fmt.Errorf("pbf state: %w", err)
	}
	return st, nil
}

// AddFluid appends fluid particles with the next ids.
func (st *State) AddFluid(pos, vel [][4]float32) {
	n := uint32(len(st.Pos))
	for i := range pos {
		st.Pos = append(st.Pos, pos[i])
		st.Vel = append(st.Vel, vel[i])
		st.ID = append(st.ID, n+uint32(i))
		if len(st.Bodies) > 0 {
			st.Body = append(st.Body, -1)
			st.Rest = append(st.Rest, [4]float32{})
			st.WInv = append(st.WInv, 1)
		}
	}
}

// Drain removes the fluid particles within radius r of c and returns them.
func (st *State) Drain(c [3]float32, r float32) []sim.Particle {
	var out []sim.Particle
	st.remove(func(i int) bool {
		if len(st.Body) > 0 && st.Body[i] >= 0 {
			return false
		}
		p := st.Pos[i]
		dx, dy, dz := p[0]-c[0], p[1]-c[1], p[2]-c[2]
		if dx*dx+dy*dy+dz*dz > r*r {
			return false
		}
		out = append(out, particle(p, st.Vel[i]))
		return true
	})
	return out
}

func particle(p, v [4]float32) sim.Particle {
	return sim.Particle{Pos: [3]float32{p[0], p[1], p[2]}, Vel: [3]float32{v[0], v[1], v[2]}}
}

// AddBody appends a rigid body with the next ids, first removing the fluid particles for which inside is true
// (where the body lands); it returns them. rho0 is the fluid's rest density; the result may hold at most budget
// particles.
func (st *State) AddBody(spec rigid.BodySpec, rho0 float32, inside func(p [4]float32) bool, budget int) ([]sim.Particle, error) {
	lay, err := rigid.LayoutBodies(rho0, nil, nil, []rigid.BodySpec{spec})
	if err != nil {
		return nil, err
	}
	in := 0
	for i, p := range st.Pos {
		if (len(st.Body) == 0 || st.Body[i] < 0) && inside(p) {
			in++
		}
	}
	if st.N()-in+len(spec.Particles) > budget {
		return nil, fmt.Errorf("the body needs %d particles; %d of the budget of %d are in use (raise pbf.budget and reset)",
			len(spec.Particles), st.N()-in, budget)
	}
	var displaced []sim.Particle
	st.remove(func(i int) bool {
		if (len(st.Body) == 0 || st.Body[i] < 0) && inside(st.Pos[i]) {
			displaced = append(displaced, particle(st.Pos[i], st.Vel[i]))
			return true
		}
		return false
	})
	n := len(st.Pos)
	if len(st.Bodies) == 0 {
		st.Body, st.Rest, st.WInv = make([]int32, n), make([][4]float32, n), make([]float32, n)
		for i := range st.Body {
			st.Body[i], st.WInv[i] = -1, 1
		}
	}
	bd := lay.Bodies[0]
	bd.First = n
	b := int32(len(st.Bodies))
	st.Bodies = append(st.Bodies, bd)
	for k := range lay.Pos {
		st.Pos = append(st.Pos, lay.Pos[k])
		st.Vel = append(st.Vel, lay.Vel[k])
		st.ID = append(st.ID, uint32(n+k))
		st.Body = append(st.Body, b)
		st.Rest = append(st.Rest, lay.Rest[k])
		st.WInv = append(st.WInv, lay.WInv[k])
	}
	return displaced, nil
}

// RemoveBody removes body b and its particles; later bodies move down one index.
func (st *State) RemoveBody(b int) error {
	if b < 0 || b >= len(st.Bodies) {
		return fmt.Errorf("no body %d (there are %d)", b, len(st.Bodies))
	}
	st.remove(func(i int) bool { return st.Body[i] == int32(b) })
	st.Bodies = append(st.Bodies[:b], st.Bodies[b+1:]...)
	for i := range st.Body {
		if st.Body[i] > int32(b) {
			st.Body[i]--
		}
	}
	if len(st.Bodies) == 0 {
		st.Body, st.Rest, st.WInv = nil, nil, nil
	}
	return nil
}

// remove deletes the particles for which drop is true (called once per particle, in array order) and renumbers
// the ids that remain to 0..N'−1 in their old order, moving the bodies' id ranges with them.
func (st *State) remove(drop func(i int) bool) {
	n := len(st.Pos)
	gone := make([]bool, n) // by id
	k := 0
	for i := 0; i < n; i++ {
		if drop(i) {
			gone[st.ID[i]] = true
			continue
		}
		st.Pos[k], st.Vel[k], st.ID[k] = st.Pos[i], st.Vel[i], st.ID[i]
		if len(st.Body) > 0 {
			st.Body[k], st.Rest[k], st.WInv[k] = st.Body[i], st.Rest[i], st.WInv[i]
		}
		k++
	}
	if k == n {
		return
	}
	st.Pos, st.Vel, st.ID = st.Pos[:k], st.Vel[:k], st.ID[:k]
	if len(st.Body) > 0 {
		st.Body, st.Rest, st.WInv = st.Body[:k], st.Rest[:k], st.WInv[:k]
	}
	newID := make([]uint32, n+1) // newID[id] = ids below id that remain
	for id := 0; id < n; id++ {
		newID[id+1] = newID[id]
		if !gone[id] {
			newID[id+1]++
		}
	}
	for i := range st.ID {
		st.ID[i] = newID[st.ID[i]]
	}
	for b := range st.Bodies {
		bd := &st.Bodies[b]
		bd.First = int(newID[bd.First])
	}
}
