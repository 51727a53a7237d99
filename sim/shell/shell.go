// Package shell is what every particle mode (pbf-cpu, flip, sph, voronoi) offers the sandbox around its step,
// written once: the particles (a particles.Store holding the mode's own slices), the particle budget and its
// notices, the hands (add fluid, drain, refill an undo), the scene's emitters and the pouring tool, the kinematic
// tools, the cadence of the last good state kept against a non-finite step, and the state file's common frame
// (state.go). A mode keeps what is honestly its own: its step, its body coupling and its extra state.
package shell

import (
	"fmt"

	"github.com/slosh/slosh/internal/grow"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/emit"
	"github.com/slosh/slosh/sim/particles"
	"github.com/slosh/slosh/sim/scene"
)

// SaveEvery is how many steps apart a mode keeps its last good state, the one a non-finite step restores: every
// mode keeps it at the same cadence, and after every edit of the hands (which a restore must not undo).
const SaveEvery = 30

// Due says whether the state after step steps is kept as the last good one.
func Due(steps int) bool { return steps%SaveEvery == 0 }

// Shell is a particle mode's part that the sandbox's tools, emitters and save files act on. The mode binds its
// position, velocity and id slices to P and declares its columns there; the shell's methods change their lengths
// and order through P, so the mode's slices stay its own fields.
type Shell struct {
	// Mode is the mode's name, for messages and its parameters' names ("flip" → flip.budget).
	Mode string
	// P holds the particles.
	P particles.Store
	// Budget is the most particles the mode holds (sim.ResolveBudget at the reset).
	Budget int
	// Tools are the kinematic tools acting inside the steps.
	Tools sim.Tools
	// Emitted is how far each of the scene's emitters' streams has moved since its last layer, m; ToolAcc the same
	// for the pouring tool. Both are state.
	Emitted []float32
	ToolAcc float32
	// Notice is what the last step or edit wants the user to know (the budget reached); the mode reports it in
	// its stats and clears it.
	Notice string

	mat      *[]uint8   // the material column, when the mode keeps several fluids
	matCount func() int // how many materials the run has
}

// Bind binds the mode's particle slices, as particles.Store.Bind.
func (h *Shell) Bind(pos, vel *[][4]float32, id *[]uint32) { h.P.Bind(pos, vel, id) }

// MaterialColumn is the name of the material column (Materials) in the store and the state file.
const MaterialColumn = "material"

// Materials declares the mode's material column (scene.Particle.Material's numbering, state), held in *mat:
// drained particles carry their material and come back as it. count is how many materials a run may have; a
// value at or over it read from a file is refused.
func (h *Shell) Materials(mat *[]uint8, count func() int) {
	particles.Add(&h.P, mat, particles.Spec[uint8]{Name: MaterialColumn, Role: particles.State,
		Check: func(m uint8) error {
			if n := count(); int(m) >= n {
				return fmt.Errorf("material %d of %d", m, n)
			}
			return nil
		}})
	h.mat, h.matCount = mat, count
}

// Reset puts the tools away, clears the notice and starts the scene's emitters, with a budget of budget particles.
func (h *Shell) Reset(sc *scene.Scene, budget int) {
	h.Budget, h.Tools, h.ToolAcc, h.Notice = budget, sim.Tools{}, 0, ""
	h.Emitted = grow.Resize(h.Emitted, len(sc.Emitters))
	clear(h.Emitted)
}

// Room is how many particles fit under the budget.
func (h *Shell) Room() int { return max(0, h.Budget-h.P.Len()) }

// Add appends as many of the particles (positions, velocities, and materials where ps says them) as fit under the
// budget, with the next ids and every other column at its default, and returns the index of the first and how
// many were added. A material the run does not have (from another run's undo) comes back as material 0. A particle
// with a non-finite position or velocity, or faster than sim.MaxStateSpeed, is left out: an edit is kept as the last
// good state, which a restore must never bring back broken.
func (h *Shell) Add(ps []sim.Particle) (first, k int) {
	ok := ps
	for i := range ps {
		if !sound(ps[i]) {
			ok = make([]sim.Particle, 0, len(ps))
			for _, q := range ps {
				if sound(q) {
					ok = append(ok, q)
				}
			}
			break
		}
	}
	k = min(len(ok), h.Room())
	first = h.P.Grow(k)
	pos, vel := h.P.Pos(), h.P.Vel()
	for j, q := range ok[:k] {
		i := first + j
		pos[i] = [4]float32{q.Pos[0], q.Pos[1], q.Pos[2], 0}
		vel[i] = [4]float32{q.Vel[0], q.Vel[1], q.Vel[2], 0}
		if h.mat != nil && int(q.Material) < h.matCount() {
			(*h.mat)[i] = q.Material
		}
	}
	return first, k
}

// sound says whether a particle given to Add is finite and no faster than a state may hold.
func sound(q sim.Particle) bool {
	for a := range 3 {
		if !particles.Finite(float64(q.Pos[a])) || !particles.Finite(float64(q.Vel[a])) {
			return false
		}
	}
	return sim.Speed([4]float32{q.Vel[0], q.Vel[1], q.Vel[2]}) <= sim.MaxStateSpeed
}

// Note adds msg to the notice of the step or edit, after what is there already: a step that reaches the budget and
// fires a blast says both.
func (h *Shell) Note(msg string) {
	if h.Notice == "" {
		h.Notice = msg
		return
	}
	h.Notice += "; " + msg
}

// TakeNotice returns the notice and clears it, for the stats of the step that made it.
func (h *Shell) TakeNotice() string {
	n := h.Notice
	h.Notice = ""
	return n
}

// Fluid is AddFluid's particles as sim.Particles of material 0.
func Fluid(pos, vel [][3]float32) []sim.Particle {
	ps := make([]sim.Particle, min(len(pos), len(vel)))
	for i := range ps {
		ps[i] = sim.Particle{Pos: pos[i], Vel: vel[i]}
	}
	return ps
}

// AddLayer appends an emitter's layer (positions and velocities, w unused) of material mat when all of it fits under
// the budget, and returns the index of the first particle and whether it was added; a layer that does not fit sets
// the budget notice and adds nothing, so a stream stops at a whole layer. A mode without a material column ignores
// mat; a material the run does not have makes material 0, as Add does.
func (h *Shell) AddLayer(pos, vel [][4]float32, mat uint8) (first int, ok bool) {
	if len(pos) == 0 {
		return h.P.Len(), false
	}
	if h.P.Len()+len(pos) > h.Budget {
		h.Note(emit.BudgetNotice(h.Budget, h.Mode+".budget"))
		return h.P.Len(), false
	}
	first = h.P.Grow(len(pos))
	copy(h.P.Pos()[first:], pos)
	copy(h.P.Vel()[first:], vel)
	if h.mat != nil && mat != 0 && int(mat) < h.matCount() {
		m := (*h.mat)[first:]
		for i := range m {
			m[i] = mat
		}
	}
	return first, true
}

// Emit runs the scene's emitters and the pouring tool over a step of dt from time t on the lattice of spacing,
// handing each layer to add (AddLayer, and what the mode does to new particles) with its material number: the
// emitter's material in sc (scene.Scene.MaterialNumber).
func (h *Shell) Emit(sc *scene.Scene, spacing float32, t, dt float64, add func(pos, vel [][4]float32, mat uint8)) {
	if len(sc.Emitters) == 0 && h.Tools.Emitter == nil {
		return
	}
	emit.RunEach(sc.Emitters, h.Emitted, h.Tools.Emitter, &h.ToolAcc, spacing, t, dt, h.Room(), func(e *scene.Emitter, pos, vel [][4]float32) {
		add(pos, vel, pours(sc, e))
	})
}

// pours is the material number of what e pours in sc: its material's, or 0, water, for a name sc does not have (a
// scene's emitters are checked when it is read; a tool's emitter is the window's or a replay's, checked there).
func pours(sc *scene.Scene, e *scene.Emitter) uint8 {
	k, err := sc.MaterialNumber(e.Material)
	if err != nil {
		return 0
	}
	return uint8(k)
}

// Drain removes the particles within radius of center that may go (nil: every one) and returns them, with their
// materials, for an undo.
func (h *Shell) Drain(center [3]float32, radius float32, may func(i int) bool) []sim.Particle {
	r2 := radius * radius
	pos, vel := h.P.Pos(), h.P.Vel()
	var out []sim.Particle
	h.P.Remove(func(i int) bool {
		p := pos[i]
		dx, dy, dz := p[0]-center[0], p[1]-center[1], p[2]-center[2]
		if !(dx*dx+dy*dy+dz*dz <= r2) || (may != nil && !may(i)) {
			return false
		}
		out = append(out, h.particle(i, pos, vel))
		return true
	})
	return out
}

// RemoveWhere removes the particles gone selects and returns them, with their materials (a body that lands
// displaces them).
func (h *Shell) RemoveWhere(gone func(i int) bool) []sim.Particle {
	pos, vel := h.P.Pos(), h.P.Vel()
	var out []sim.Particle
	h.P.Remove(func(i int) bool {
		if !gone(i) {
			return false
		}
		out = append(out, h.particle(i, pos, vel))
		return true
	})
	return out
}

func (h *Shell) particle(i int, pos, vel [][4]float32) sim.Particle {
	q := sim.Particle{Pos: [3]float32{pos[i][0], pos[i][1], pos[i][2]}, Vel: [3]float32{vel[i][0], vel[i][1], vel[i][2]}}
	if h.mat != nil {
		q.Material = (*h.mat)[i]
	}
	return q
}

// SetTools sets the tools (copies: the caller may change its own); putting the pouring tool away restarts its
// stream.
func (h *Shell) SetTools(t sim.Tools) {
	if t.Emitter == nil {
		h.ToolAcc = 0
	}
	h.Tools = t.Copy()
}
