package pbf

import (
	"fmt"
	"io"
	"math"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/blast"
	"github.com/slosh/slosh/sim/emit"
	"github.com/slosh/slosh/sim/par"
	cpbf "github.com/slosh/slosh/sim/pbf"
	"github.com/slosh/slosh/sim/rigid"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/solid"
)

// The sandbox's tools (sim.Hands) and save files (sim.Stateful) on the GPU, as sim/pbf has them. The buffers hold
// the particle budget from the reset on, so adding fluid — an emitter's layer, fluid the user pours — is an upload
// of the new particles behind the others, with the next ids, and never a reallocation. Removing particles or adding
// a body reads the state back, edits it with sim/pbf's State (which keeps ids dense and bodies contiguous, as the
// CPU solver does) and uploads it: a discrete action, not something done every frame.

// StateKind implements sim.Stateful: CPU and GPU PBF states load into each other.
func (s *Solver) StateKind() string { return "pbf" }

// Budget implements sim.Hands.
func (s *Solver) Budget() int { return s.cap }

// SaveState reads the whole state back into dst.
func (s *Solver) SaveState(dst *cpbf.State) error {
	if s.sc == nil || s.n == 0 {
		return fmt.Errorf("gpu pbf: no state (reset first)")
	}
	if err := s.poll(true); err != nil {
		return err
	}
	n := s.n
	dst.Spacing, dst.Rounded, dst.Time, dst.Steps = s.dv.From, false, s.time, s.steps
	dst.Pos, dst.Vel, dst.ID = grow(dst.Pos, n), grow(dst.Vel, n), grow(dst.ID, n)
	glh.Read(s.pos, 0, dst.Pos)
	glh.Read(s.vel, 0, dst.Vel)
	glh.Read(s.ids, 0, dst.ID)
	dst.Material = nil
	if s.palette != nil { // the scene names materials
		dst.Material = make([]uint8, n)
		glh.Read(s.mat, 0, dst.Material)
	}
	dst.Bodies = dst.Bodies[:0]
	dst.Body, dst.Rest, dst.WInv = nil, nil, nil
	if r := &s.rigid; s.hasBodies() {
		dst.Body, dst.Rest, dst.WInv = make([]int32, n), make([][4]float32, n), make([]float32, n)
		glh.Read(r.body, 0, dst.Body)
		glh.Read(r.rest, 0, dst.Rest)
		glh.Read(r.wInv, 0, dst.WInv)
		r.readTable(r.table, 0)
		for i, rec := range r.rec {
			b := r.bodies[i]
			b.Center, b.Rot, b.Drive = [3]float32{rec.Center[0], rec.Center[1], rec.Center[2]}, rec.Rot, rec.Drive
			dst.Bodies = append(dst.Bodies, b)
		}
	}
	dst.Emitted = append(dst.Emitted[:0], s.emitAcc...)
	dst.ToolAcc = s.toolAcc
	dst.Reach = s.plan.pending()
	return glh.CheckError("gpu pbf: reading the state back")
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// LoadState replaces the state with st after checking it against the scene the solver was reset with. On error
// the solver keeps its state.
func (s *Solver) LoadState(st *cpbf.State) error {
	if s.sc == nil {
		return fmt.Errorf("gpu pbf: load a state after a reset with its scene")
	}
	if err := st.CheckFor(s.sc, s.cap); err != nil {
		return fmt.Errorf("gpu pbf: %w", err)
	}
	if !s.dv.SameSpacing(st) {
		if err := s.derive(st.Spacing); err != nil {
			return err
		}
	}
	return s.load(st, s.cap)
}

// WriteState implements sim.Stateful.
func (s *Solver) WriteState(w io.Writer) error {
	var st cpbf.State
	if err := s.SaveState(&st); err != nil {
		return err
	}
	return st.Encode(w)
}

// ReadState implements sim.Stateful.
func (s *Solver) ReadState(r io.Reader) error {
	st, err := cpbf.DecodeState(r)
	if err != nil {
		return err
	}
	return s.LoadState(st)
}

// edit applies a change to the state read back and uploads the result.
func (s *Solver) edit(change func(st *cpbf.State) error) error {
	var st cpbf.State
	if err := s.SaveState(&st); err != nil {
		return err
	}
	if err := change(&st); err != nil {
		return err
	}
	return s.load(&st, s.cap)
}

// AddFluid implements sim.Hands: the fluid is of material 0, the scene's default.
func (s *Solver) AddFluid(pos, vel [][3]float32) int {
	k := min(len(pos), max(0, s.cap-s.n))
	p, v := make([][4]float32, k), make([][4]float32, k)
	for i := range p {
		p[i] = [4]float32{pos[i][0], pos[i][1], pos[i][2], 0}
		v[i] = [4]float32{vel[i][0], vel[i][1], vel[i][2], 0}
	}
	s.appendFluid(p, v, nil)
	return k
}

// Refill implements sim.Refiller: drained particles come back with their materials (an undo), as the CPU solver's
// Refill puts them back — those that fit the budget, leaving out any non-finite or too fast (shell.Add), and a
// material the scene does not have as material 0.
func (s *Solver) Refill(ps []sim.Particle) int {
	if s.sc == nil || s.n == 0 {
		return 0
	}
	var p, v [][4]float32
	var m []uint8
	for _, q := range ps {
		if len(p) == s.cap-s.n {
			break
		}
		if !sound(q) {
			continue
		}
		mat := q.Material
		if int(mat) >= s.sc.MaterialCount() {
			mat = 0
		}
		p = append(p, [4]float32{q.Pos[0], q.Pos[1], q.Pos[2], 0})
		v = append(v, [4]float32{q.Vel[0], q.Vel[1], q.Vel[2], 0})
		m = append(m, mat)
	}
	s.appendFluid(p, v, m)
	return len(p)
}

// sound says whether a refilled particle is finite and no faster than a state may hold, as shell.Add asks.
func sound(q sim.Particle) bool {
	for a := range 3 {
		if !finite(q.Pos[a]) || !finite(q.Vel[a]) {
			return false
		}
	}
	return sim.Speed([4]float32{q.Vel[0], q.Vel[1], q.Vel[2]}) <= sim.MaxStateSpeed
}

func finite(x float32) bool { return !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0) }

// appendFluid uploads fluid particles behind the others, with the next ids, of the materials mat (nil: 0).
func (s *Solver) appendFluid(pos, vel [][4]float32, mat []uint8) {
	k := len(pos)
	if k == 0 || s.n == 0 {
		return
	}
	n := s.n
	ids := make([]uint32, k)
	ones := make([]float32, k)
	for i := range ids {
		ids[i], ones[i] = uint32(n+i), 1
	}
	glh.Upload(s.pos, 16*n, pos)
	glh.Upload(s.vel, 16*n, vel)
	glh.Upload(s.ids, 4*n, ids)
	glh.Upload(s.rho, 4*n, ones)
	if mat == nil {
		mat = make([]uint8, k)
	}
	glh.Upload(s.mat, n, mat)
	if r := &s.rigid; s.hasBodies() {
		fluid := make([]int32, k)
		for i := range fluid {
			fluid[i] = -1
		}
		glh.Upload(r.body, 4*n, fluid)
		glh.Upload(r.rest, 16*n, make([][4]float32, k))
		glh.Upload(r.wInv, 4*n, ones)
	}
	s.n += k
}

// Drain implements sim.Hands.
func (s *Solver) Drain(center [3]float32, radius float32) ([]sim.Particle, error) {
	var out []sim.Particle
	err := s.edit(func(st *cpbf.State) error {
		out = st.Drain(center, radius)
		if st.N() == 0 {
			return fmt.Errorf("draining every particle would leave nothing to simulate")
		}
		return nil
	})
	return out, err
}

// AddBody implements sim.Hands.
func (s *Solver) AddBody(b scene.Body) (int, []sim.Particle, error) {
	if s.sc == nil {
		return 0, nil, fmt.Errorf("gpu pbf: no scene (reset first)")
	}
	if err := rigid.CheckCount(len(s.rigid.bodies) + 1); err != nil {
		return 0, nil, err
	}
	spec, inside, err := rigid.SampleBody(s.sc, b, float64(s.dv.Spacing))
	if err != nil {
		return 0, nil, err
	}
	var displaced []sim.Particle
	err = s.edit(func(st *cpbf.State) error {
		displaced, err = st.AddBody(spec, s.Cfg.RestDensity, inside, s.cap)
		return err
	})
	return len(s.rigid.bodies) - 1, displaced, err
}

// RemoveBody implements sim.Hands.
func (s *Solver) RemoveBody(i int) error {
	return s.edit(func(st *cpbf.State) error { return st.RemoveBody(i) })
}

// DriveBody implements sim.Hands: the body table's drive field is updated in place.
func (s *Solver) DriveBody(i int, v [3]float32, on bool) {
	r := &s.rigid
	if i < 0 || i >= len(r.bodies) {
		return
	}
	d := &r.bodies[i].Drive
	if on {
		*d = [4]float32{v[0], v[1], v[2], 1}
	} else {
		d[3] = 0
	}
	glh.Upload(r.table, i*bodyRecordSize+driveOffset, []float32{d[0], d[1], d[2], d[3]})
}

// SetTools implements sim.Hands.
func (s *Solver) SetTools(t sim.Tools) {
	if t.Emitter == nil {
		s.toolAcc = 0
	}
	s.tools = t
}

// emit runs the scene's emitters and the tool's over a step of dt, as the CPU solver does.
func (s *Solver) emit(dt float64) {
	emit.Run(s.sc.Emitters, s.emitAcc, s.tools.Emitter, &s.toolAcc, s.dv.Spacing, s.time, dt, s.cap-s.n, s.addEmitted)
}

func (s *Solver) addEmitted(pos, vel [][4]float32) {
	if len(pos) == 0 {
		return
	}
	if s.n+len(pos) > s.cap {
		s.notice = emit.BudgetNotice(s.cap, "pbf.budget")
		return
	}
	s.appendFluid(pos, vel, nil)
}

// blast fires the scene's blasts whose time falls in the step from the current time to t + dt, as the CPU solver
// does and with its code: the state is read back, sim/blast pushes the fluid's particles, and the state is
// uploaded again. A blast is a discrete event, like draining, so the round trip is taken only in the step one
// fires.
func (s *Solver) blast(dt float64) error {
	fires := false
	for i := range s.sc.Blasts {
		fires = fires || s.sc.Blasts[i].Fires(s.time, s.time+dt)
	}
	if !fires {
		return nil
	}
	t0, t1 := s.time, s.time+dt
	return s.edit(func(st *cpbf.State) error {
		blast.ApplyFluid(par.Pool{}, s.sc.Blasts, t0, t1, st.Pos, st.Vel, st.Body)
		return nil
	})
}

// moveObstacles uploads the kinematic obstacles where they are at time t.
func (s *Solver) moveObstacles(t float64) {
	if s.sc.HasMotion() || s.tools.Paddle != nil || s.paddled {
		s.col.Obstacles = solid.Moved(s.sc, t, s.tools.Paddle)
		glh.Upload(s.obstacles, 0, s.col.Obstacles)
		s.paddled = s.tools.Paddle != nil
	}
}
