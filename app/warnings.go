package app

import (
	"fmt"
	"strings"

	"github.com/slosh/slosh/sim"
)

// solverWarnings are what s says, after a reset, of settings it runs beyond what its method was shown to handle
// (sim.Warner), for stderr and the status line; none for a solver that says nothing.
func solverWarnings(s sim.Solver) []string {
	if w, ok := s.(sim.Warner); ok {
		return w.Warnings()
	}
	return nil
}

// withWarnings is a status message followed by the solver's warnings, and whether there were any.
func withWarnings(msg string, s sim.Solver) (string, bool) {
	ws := solverWarnings(s)
	if len(ws) == 0 {
		return msg, false
	}
	return msg + "; warning: " + strings.Join(ws, "; "), true
}

// capFrames is how many frames in a row at a mode's substep cap make capWatch speak.
const capFrames = 10

// capWatch notices a mode whose time step conditions ask for more steps than <mode>.substeps_max allows, frame
// after frame: its steps are then longer than the conditions allow and every frame costs the most steps. A scene
// at the limits of a method (a density ratio of 10⁵ in sph) does this; the run goes on, and the user is told why it
// crawls. It speaks once. In real-time mode (<mode>.realtime) a frame within <mode>.realtime_substeps breaks no
// condition at the most steps, since the mode clamps its speeds to what the CFL number allows (sim.CFL), so it is not
// counted; a frame over that cap took its steps for a condition real-time mode does not serve (sph's stability
// conditions) and is.
type capWatch struct {
	run  int
	said bool
}

// frame is called with each frame's substeps; it returns the warning the first time the cap has held for
// capFrames frames, else "".
func (c *capWatch) frame(s sim.Solver, substeps int) string {
	p, ok := sim.ParamNamed(s.Params(), "substeps_max")
	if !ok || substeps < int(p.Get().F) || realTimeHolds(s, substeps) {
		c.run = 0
		return ""
	}
	c.run++
	if c.said || c.run < capFrames {
		return ""
	}
	c.said = true
	return fmt.Sprintf("warning: %d frames in a row at %s = %d steps: the time step conditions ask for more, so each step is longer than they allow and every frame costs the most steps; lower what shrinks the steps (a density ratio, a stiffness, a speed) or raise %s",
		c.run, p.Name, substeps, p.Name)
}

// realTimeHolds says whether s is in real-time mode and a frame of substeps steps is within its cap.
func realTimeHolds(s sim.Solver, substeps int) bool {
	on, ok := sim.ParamNamed(s.Params(), "realtime")
	most, ok2 := sim.ParamNamed(s.Params(), "realtime_substeps")
	return ok && ok2 && on.Get().B && substeps <= int(most.Get().F)
}
