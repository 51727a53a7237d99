// Package emit pours fluid into any particle mode: a scene's emitters and the pouring tool add layers of particles
// on the mode's lattice as their streams move, the same particles in the same order on every solver that runs them.
package emit

import (
	"fmt"
	"math"

	"github.com/slosh/slosh/sim/scene"
)

// CheckTravel checks a state's emitters' travel since their last layers (acc, and the pouring tool's toolAcc): each
// is under a spacing after every step, so a value outside [0, spacing] is a damaged state.
func CheckTravel(acc []float32, toolAcc, spacing float32) error {
	for k, e := range acc {
		if !(e >= 0 && e <= spacing) {
			return fmt.Errorf("emitter %d's travel since its last layer is %g m; it lies within [0, %g] (the spacing)", k, e, spacing)
		}
	}
	if e := toolAcc; !(e >= 0 && e <= spacing) {
		return fmt.Errorf("the pouring tool's travel since its last layer is %g m; it lies within [0, %g] (the spacing)", e, spacing)
	}
	return nil
}

// Run advances the scene's emitters (their travel in acc) and the tool's emitter, when there is one (its
// travel in toolAcc), over a step from t to t + dt, handing each one's new particles to add: every solver runs its
// emitters through it, so they add the same particles in the same order. room is how many particles the solver
// can still take (its budget less what it holds): no emitter makes more than a layer beyond it.
func Run(emitters []scene.Emitter, acc []float32, tool *scene.Emitter, toolAcc *float32, spacing float32, t, dt float64, room int, add func(pos, vel [][4]float32)) {
	RunEach(emitters, acc, tool, toolAcc, spacing, t, dt, room, func(_ *scene.Emitter, pos, vel [][4]float32) { add(pos, vel) })
}

// RunEach is Run handing each layer with the emitter that made it, whose Material says what its particles are.
func RunEach(emitters []scene.Emitter, acc []float32, tool *scene.Emitter, toolAcc *float32, spacing float32, t, dt float64, room int,
	add func(e *scene.Emitter, pos, vel [][4]float32)) {
	for k := range emitters {
		pos, vel := Step(&emitters[k], spacing, &acc[k], t, dt, room)
		room -= len(pos)
		add(&emitters[k], pos, vel)
	}
	if tool != nil {
		pos, vel := Step(tool, spacing, toolAcc, t, dt, room)
		add(tool, pos, vel)
	}
}

// Step advances an emitter over a step from t to t + dt: acc, the distance its stream has moved since the
// last layer, grows by speed·dt, and every whole spacing adds a layer — the emitter's disc moved along the
// direction by how far that layer has already travelled — with the emitter's velocity. Once more than room
// particles are made the rest of the stream's layers are dropped (a solver refuses a batch over its budget anyway),
// so a fast stream over a long step cannot make more than a layer beyond what the solver can take.
func Step(e *scene.Emitter, spacing float32, acc *float32, t, dt float64, room int) (pos, vel [][4]float32) {
	if !e.Active(t) {
		return nil, nil
	}
	dir := [3]float32{float32(e.Direction[0]), float32(e.Direction[1]), float32(e.Direction[2])}
	speed := float32(e.Speed)
	*acc += speed * float32(dt)
	var disc []scene.Vec3
	for *acc >= spacing {
		if len(pos) > room { // over the room already: the stream's other layers are dropped
			*acc = float32(math.Mod(float64(*acc), float64(spacing)))
			break
		}
		*acc -= spacing
		if disc == nil {
			disc = e.Disc(float64(spacing))
		}
		off := *acc
		for _, q := range disc {
			pos = append(pos, [4]float32{float32(q[0]) + dir[0]*off, float32(q[1]) + dir[1]*off, float32(q[2]) + dir[2]*off, 0})
			vel = append(vel, [4]float32{dir[0] * speed, dir[1] * speed, dir[2] * speed, 0})
		}
	}
	return pos, vel
}

// BudgetNotice is the message shown when an emitter stops at the particle budget, param naming the mode's budget
// parameter.
func BudgetNotice(budget int, param string) string {
	return fmt.Sprintf("particle budget of %d reached: emitters stop here (raise %s and reset, or drain some fluid)", budget, param)
}
