package game

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"

	"github.com/ByteArena/box2d"

	"github.com/slosh/slosh/internal/binio"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

// Saved states (sim.Stateful).
//
// A state holds what the steps read and do not compute: the simulated time and step count, the currents drawn so
// far (a load draws them again, in order, which rebuilds the same basis bit for bit, then sets the coefficients),
// the coefficients, the bodies (as a 2D scene's bodies, read back by the scene package's strict reader, and each
// one's pose, velocities and progress towards the goal), the body held and where, the tracers, the dye, the level
// and the tracers' random source. The fluid, the tracers and the dye continue bit for bit after a load. Box2D keeps
// a cache of its contacts' impulses from one step to the next, which no saved state restores (it lives in its
// broad phase's pair order): bodies resting on one another or on a wall start that cache afresh after a load and
// continue within Box2D's tolerance rather than bit for bit. (Its joints and its ratio of successive time steps, which
// scale the next warm start, are restored.)

const (
	stateMagic = "slosh reduced state\n"
	// stateVersion 2 adds the level's clock (whether the player has moved, and when); a version 1 state ran the
	// clock from the start, and reads as a clock started at time 0.
	stateVersion = 2
	// MaxStateTime bounds the simulated time a state may hold, s; maxStateSteps the steps.
	MaxStateTime  = 1e9
	maxStateSteps = 1 << 50
	// bodyBytes is one body's dynamic record: pose, velocities, awake, time at home, delivered
	bodyBytes = 6*8 + 1 + 8 + 1
)

// StateKind implements sim.Stateful.
func (s *Solver) StateKind() string { return Name }

// WriteState implements sim.Stateful.
func (s *Solver) WriteState(w io.Writer) error {
	src, err := s.src.MarshalBinary()
	if err != nil {
		return err
	}
	specs := make([]scene.FlatBody, len(s.world.bodies))
	for i, b := range s.world.bodies {
		specs[i] = b.spec
	}
	bodyScene := scene.Scene{Name: "bodies", Flat: &scene.Flat{Size: s.world.size, Bodies: specs}}
	bodyJSON, err := bodyScene.Marshal()
	if err != nil {
		return fmt.Errorf("writing the reduced state's bodies: %w", err)
	}
	var b bytes.Buffer
	put := func(v ...any) {
		for _, x := range v {
			_ = binary.Write(&b, binary.LittleEndian, x) // a bytes.Buffer does not fail
		}
	}
	// Box2D scales its warm start by the ratio of this step's Δt to the last one's, which it keeps
	// the combined field's fastest flow sets the next frame's substeps, and the panels' part of it is not
	// recomputed before the next step: it is kept as it was
	put([]byte(stateMagic), uint32(stateVersion), s.time, int64(s.steps), s.world.b2.M_inv_dt0, s.speed, int32(s.nextKey), int64(len(src)), src,
		int32(s.lvl.delivered), int32(s.lvl.outcome), s.lvl.endTime, boolByte(s.lvl.started), s.lvl.start)
	put(int64(len(s.strokes)))
	for _, st := range s.strokes {
		put(int64(len(st.points)), st.points, st.speed, st.width, st.key)
	}
	r := s.model.Coefficients()
	put(int64(len(r)), r, int64(len(bodyJSON)), bodyJSON)
	for _, bd := range s.world.bodies {
		// Box2D's own numbers (its units, the centre of mass): converted, they would not read back bit for bit
		sw, v := bd.b.M_sweep, bd.b.M_linearVelocity
		put([2]float64{sw.C.X, sw.C.Y}, sw.A, [2]float64{v.X, v.Y}, bd.b.M_angularVelocity, boolByte(bd.b.IsAwake()), bd.home, boolByte(bd.delivered))
	}
	held, anchor, target, impulse := int32(-1), [2]float64{}, [2]float64{}, [2]float64{}
	if g := s.world.grab; g != nil {
		// in Box2D's units, as they are: the joint's warm start must come back bit for bit
		held = int32(s.world.held)
		anchor = [2]float64{g.M_localAnchorB.X, g.M_localAnchorB.Y}
		target = [2]float64{g.M_targetA.X, g.M_targetA.Y}
		impulse = [2]float64{g.M_impulse.X, g.M_impulse.Y}
	}
	put(held, anchor, target, impulse, int64(len(s.tracers)), s.tracers, int64(s.dye.nx), int64(s.dye.ny), s.dye.c)
	_, err = w.Write(b.Bytes())
	if err != nil {
		return fmt.Errorf("writing the reduced state: %w", err)
	}
	return nil
}

func boolByte(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// ReadState implements sim.Stateful: the state must come from a run of the scene the solver was reset with, at
// the same basis and grid parameters. On error the solver keeps its state.
func (s *Solver) ReadState(r io.Reader) error {
	if s.sc == nil {
		return errors.New("reduced state: reset the solver with a scene before loading a state")
	}
	n, err := s.readState(r)
	if err != nil {
		return fmt.Errorf("reduced state: %w", err)
	}
	*s = *n
	return nil
}

func (s *Solver) readState(r io.Reader) (*Solver, error) {
	br, left, err := binio.Open(r, stateMagic, Name)
	if err != nil {
		return nil, err
	}
	get := func(v any) error { return binary.Read(br, binary.LittleEndian, v) }
	var (
		version             uint32
		time, endTime       float64
		invDt0, speed       float64
		steps, srcLen       int64
		nextKey             int32
		delivered, outcome  int32
		strokes, coef, nbuf int64
	)
	for _, v := range []any{&version, &time, &steps, &invDt0, &speed, &nextKey, &srcLen} {
		if err := get(v); err != nil {
			return nil, errors.New("truncated header")
		}
	}
	switch {
	case version < 1 || version > stateVersion:
		return nil, fmt.Errorf("version %d; this slosh reads versions 1 to %d", version, stateVersion)
	case !(time >= 0 && time <= MaxStateTime):
		return nil, fmt.Errorf("simulated time %g s is outside [0, %g]", time, float64(MaxStateTime))
	case !(speed >= 0 && speed <= sim.MaxStateSpeed):
		return nil, fmt.Errorf("a flow of %g m/s", speed)
	case !(invDt0 >= 0 && invDt0 <= 1e9):
		return nil, fmt.Errorf("a last step of 1/%g s", invDt0)
	case steps < 0 || steps > maxStateSteps:
		return nil, fmt.Errorf("%d steps is outside [0, %d]", steps, int64(maxStateSteps))
	case nextKey < 1 || nextKey > 9:
		return nil, fmt.Errorf("next current key %d is not 1–9", nextKey)
	case srcLen < 0 || srcLen > 64:
		return nil, fmt.Errorf("a random source of %d bytes", srcLen)
	}
	src, err := binio.ReadArray[byte](br, srcLen)
	if err != nil {
		return nil, errors.New("truncated random source")
	}
	for _, v := range []any{&delivered, &outcome, &endTime} {
		if err := get(v); err != nil {
			return nil, errors.New("truncated level")
		}
	}
	clk := clockState{started: 1} // version 1: the clock ran from the start
	if version >= 2 {
		for _, v := range []any{&clk.started, &clk.start} {
			if err := get(v); err != nil {
				return nil, errors.New("truncated level")
			}
		}
	}
	if err := get(&strokes); err != nil {
		return nil, errors.New("truncated level")
	}
	if clk.started > 1 || !(clk.start >= 0 && clk.start <= time) {
		return nil, fmt.Errorf("a level clock started (%d) at %g s, after the state's %g s", clk.started, clk.start, time)
	}
	if strokes < 0 || strokes > maxStrokes {
		return nil, fmt.Errorf("%d drawn currents; at most %d", strokes, maxStrokes)
	}
	// the same scene and parameters, with no bodies yet: they come from the state
	n, err := s.build(s.sc, nil)
	if err != nil {
		return nil, err
	}
	for k := int64(0); k < strokes; k++ {
		var np int64
		if err := get(&np); err != nil || np < 2 || np > scene.MaxCurrentPoints {
			return nil, fmt.Errorf("drawn current %d: %d points (2 to %d)", k, np, scene.MaxCurrentPoints)
		}
		pts, err := binio.ReadArray[[2]float32](br, np)
		if err != nil {
			return nil, fmt.Errorf("drawn current %d: truncated points", k)
		}
		var speed, width float64
		var key int32
		for _, v := range []any{&speed, &width, &key} {
			if err := get(v); err != nil {
				return nil, fmt.Errorf("drawn current %d: truncated", k)
			}
		}
		if key < 1 || key > 9 {
			return nil, fmt.Errorf("drawn current %d: key %d is not 1–9", k, key)
		}
		// the sitting kept no more currents than it could draw again within the budget (a width or points that
		// are no numbers fall through to draw's own check)
		paint, basis := n.strokeWork(pts, width, n.model.Modes(), true)
		if w := n.work + paint + basis; w > workBudget {
			return nil, fmt.Errorf("drawn current %d: the state's currents up to this one would take about %.3g s to draw again on the %d × %d grid, over the %.3g s a sitting may keep (a game keeps fewer)",
				k, w/1e9, n.grid.NX, n.grid.NY, workBudget/1e9)
		}
		if _, err := n.draw(pts, speed, width, int(key)); err != nil {
			return nil, fmt.Errorf("drawn current %d: %w", k, err)
		}
	}
	n.nextKey = int(nextKey)
	if err := get(&coef); err != nil || coef != int64(n.model.Modes()) {
		return nil, fmt.Errorf("%d coefficients where the scene, the drawn currents and reduced.modes give %d modes: the state belongs to another scene or other parameters", coef, n.model.Modes())
	}
	rc, err := binio.ReadArray[float64](br, coef)
	if err != nil {
		return nil, errors.New("truncated coefficients")
	}
	if err := n.model.SetCoefficients(rc); err != nil {
		return nil, err
	}
	if err := get(&nbuf); err != nil || nbuf < 0 || nbuf > scene.MaxFileBytes || left >= 0 && nbuf > left {
		return nil, fmt.Errorf("a bodies' description of %d bytes", nbuf)
	}
	js, err := binio.ReadArray[byte](br, nbuf)
	if err != nil {
		return nil, errors.New("truncated bodies")
	}
	bsc, err := scene.Parse(js, "the state's bodies")
	if err != nil {
		return nil, err
	}
	if bsc.Flat == nil || bsc.Flat.Size != n.world.size {
		return nil, fmt.Errorf("the bodies belong to another rectangle than the scene %q's %v m", s.sc.Name, n.world.size)
	}
	for i, spec := range bsc.Flat.Bodies {
		if err := n.readBody(br, i, spec); err != nil {
			return nil, err
		}
	}
	if err := n.readRest(br, delivered, outcome, endTime, clk); err != nil {
		return nil, err
	}
	if err := binio.End(br, Name); err != nil {
		return nil, err
	}
	pcg := &rand.PCG{}
	if err := pcg.UnmarshalBinary(src); err != nil {
		return nil, fmt.Errorf("the tracers' random source: %w", err)
	}
	n.src, n.rng = pcg, rand.New(pcg)
	n.time, n.steps, n.world.b2.M_inv_dt0 = time, int(steps), invDt0
	if err := n.model.Velocity(n.ur); err != nil {
		return nil, err
	}
	n.combine() // the picture's field: the fluid's alone until the next step adds the panels'
	n.speed = speed
	n.stats = sim.Stats{Particles: len(n.tracers), Steps: n.steps, Time: n.time}
	return n, nil
}

// readBody adds body i from its scene description and its dynamic record.
func (s *Solver) readBody(br *bufio.Reader, i int, spec scene.FlatBody) error {
	var rec struct { // in Box2D's units: the centre of mass, the angle, the velocities
		Pos       [2]float64
		Angle     float64
		Vel       [2]float64
		Spin      float64
		Awake     uint8
		Home      float64
		Delivered uint8
	}
	if err := binary.Read(br, binary.LittleEndian, &rec); err != nil {
		return fmt.Errorf("body %d: truncated", i)
	}
	for _, x := range []float64{rec.Pos[0], rec.Pos[1], rec.Angle, rec.Vel[0], rec.Vel[1], rec.Spin, rec.Home} {
		if !finite(x) {
			return fmt.Errorf("body %d: a value that is not a finite number", i)
		}
	}
	// the limits of a scene's bodies (flat.bodies), which the running game keeps to (world.limit)
	k, size := s.world.k, s.world.size
	slack := stateSlack * max(size[0], size[1])
	for c := 0; c < 2; c++ {
		if x := rec.Pos[c] / k; !(x >= -slack && x <= size[c]+slack) {
			return fmt.Errorf("body %d: position[%d] (its centre of mass) %g m lies outside the rectangle's [0, %g] by more than the %g m its walls may yield", i, c, x, size[c], slack)
		}
	}
	switch v := math.Hypot(rec.Vel[0], rec.Vel[1]) / k; {
	case !(v <= scene.MaxFlatSpeed*(1+1e-9)):
		return fmt.Errorf("body %d: velocity (%g, %g) m/s is out of range: at most %g m/s, as for a scene's bodies", i, rec.Vel[0]/k, rec.Vel[1]/k, float64(scene.MaxFlatSpeed))
	case !(math.Abs(rec.Spin) <= scene.MaxSpin):
		return fmt.Errorf("body %d: spin %g rad/s is out of range: at most %g rad/s, as for a scene's bodies", i, rec.Spin, float64(scene.MaxSpin))
	case !(math.Abs(rec.Spin) <= maxSpin(spec.Reach())*(1+1e-9)):
		return fmt.Errorf("body %d: spin %g rad/s turns its far point (%.3g m from its centre) at %.3g m/s: at most %g m/s, as for a scene's bodies", i, rec.Spin, spec.Reach(), math.Abs(rec.Spin)*spec.Reach(), float64(scene.MaxFlatSpeed))
	case !(math.Abs(rec.Angle) <= maxStateAngle):
		return fmt.Errorf("body %d: angle %g rad is out of range: at most %g", i, rec.Angle, float64(maxStateAngle))
	case rec.Awake > 1 || rec.Delivered > 1 || !(rec.Home >= 0 && rec.Home <= MaxStateTime):
		return fmt.Errorf("body %d: damaged flags", i)
	}
	idx, err := s.world.add(spec)
	if err != nil {
		return fmt.Errorf("body %d: %w", i, err)
	}
	b := s.world.bodies[idx]
	bb := b.b
	err = box2dCall(fmt.Sprintf("placing body %d", i), func() {
		bb.SetTransform(box2d.MakeB2Vec2(rec.Pos[0], rec.Pos[1]), rec.Angle) // the broad phase
		c := box2d.MakeB2Vec2(rec.Pos[0], rec.Pos[1])
		bb.M_sweep.C, bb.M_sweep.C0, bb.M_sweep.A, bb.M_sweep.A0 = c, c, rec.Angle, rec.Angle
		bb.SynchronizeTransform() // the frame's origin from the centre of mass, as a step leaves it
		bb.SynchronizeFixtures()
		bb.SetLinearVelocity(box2d.MakeB2Vec2(rec.Vel[0], rec.Vel[1]))
		bb.SetAngularVelocity(rec.Spin)
		bb.SetAwake(rec.Awake == 1)
	})
	if err != nil {
		return err
	}
	b.home, b.delivered = rec.Home, rec.Delivered == 1
	return nil
}

// stateSlack is how far outside the rectangle, as a share of its longer side, a saved body's centre of mass may
// lie: Box2D lets bodies sink into its walls by a few thousandths of the longer side (its slop and skin), no
// more; a body beyond this is not in the tank.
const stateSlack = 0.01

// maxStateAngle bounds a saved body's angle (rad): Box2D does not wrap it, and the game wraps it past half this.
const maxStateAngle = 1e6

// readRest reads the body held, the tracers and the dye, and sets the level.
func (s *Solver) readRest(br *bufio.Reader, delivered, outcome int32, endTime float64, clk clockState) error {
	var held int32
	var anchor, target, impulse [2]float64
	var nt, nx, ny int64
	for _, v := range []any{&held, &anchor, &target, &impulse, &nt} {
		if err := binary.Read(br, binary.LittleEndian, v); err != nil {
			return errors.New("truncated held body")
		}
	}
	if held < -1 || int(held) >= len(s.world.bodies) {
		return fmt.Errorf("holds body %d of %d", held, len(s.world.bodies))
	}
	if held >= 0 {
		reach := 100.0 * b2Side // Box2D's units
		for _, x := range []float64{anchor[0], anchor[1], target[0], target[1], impulse[0], impulse[1]} {
			if !(math.Abs(x) <= reach*1e6) {
				return errors.New("the held body's anchor, target or impulse is out of range")
			}
		}
		p, _, _, _ := s.world.pose(int(held))
		s.world.hold(int(held), p, float64(s.cfg.Gravity))
		if g := s.world.grab; g != nil {
			// the joint as it was: the body's point it holds, pulled towards the target, and its warm start
			g.M_localAnchorB = box2d.MakeB2Vec2(anchor[0], anchor[1])
			g.M_targetA = box2d.MakeB2Vec2(target[0], target[1])
			g.M_impulse = box2d.MakeB2Vec2(impulse[0], impulse[1])
		}
	}
	if nt < 0 || nt > maxTracers {
		return fmt.Errorf("%d tracers; at most %d", nt, maxTracers)
	}
	tr, err := binio.ReadArray[[2]float32](br, nt)
	if err != nil {
		return errors.New("truncated tracers")
	}
	for k, p := range tr {
		if !(p[0] >= 0 && float64(p[0]) <= s.world.size[0] && p[1] >= 0 && float64(p[1]) <= s.world.size[1]) {
			return fmt.Errorf("tracer %d at (%g, %g) lies outside the rectangle", k, p[0], p[1])
		}
	}
	s.tracers = tr
	if err := binary.Read(br, binary.LittleEndian, &nx); err != nil {
		return errors.New("truncated dye")
	}
	if err := binary.Read(br, binary.LittleEndian, &ny); err != nil {
		return errors.New("truncated dye")
	}
	if nx != int64(s.dye.nx) || ny != int64(s.dye.ny) {
		return fmt.Errorf("dye of %d × %d cells where the grid gives %d × %d: the state belongs to other parameters", nx, ny, s.dye.nx, s.dye.ny)
	}
	dye, err := binio.ReadArray[[3]float32](br, nx*ny)
	if err != nil {
		return errors.New("truncated dye")
	}
	for _, c := range dye {
		for _, x := range c {
			if !(x >= -1 && x <= 2) {
				return errors.New("dye colours out of range")
			}
		}
	}
	s.dye.c = dye
	if g := s.lvl.goal; g != nil {
		if delivered < 0 || int(delivered) > g.Crates || outcome < int32(Playing) || outcome > int32(Lost) || !(endTime >= 0 && endTime <= MaxStateTime) {
			return errors.New("damaged level")
		}
		s.lvl.delivered, s.lvl.outcome, s.lvl.endTime = int(delivered), Outcome(outcome), endTime
		s.lvl.started, s.lvl.start = clk.started == 1, clk.start
	}
	return nil
}

// maxTracers is the most tracers a state may hold: reduced.tracers' most.
const maxTracers = 1 << 20

// clockState is the level's clock as a state holds it.
type clockState struct {
	started uint8
	start   float64
}
