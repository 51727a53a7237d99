package sph

import (
	"fmt"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

// TEMPORARY: the SPH mode's rigid bodies are being written (bodies.go, which replaces this file). Until they land
// the tools that drop, remove and drag bodies, and scenes with bodies, say so instead of ignoring them.

// AddBody implements sim.Hands: not yet in this mode.
func (s *Solver) AddBody(scene.Body) (int, []sim.Particle, error) {
	return 0, nil, fmt.Errorf("sph: rigid bodies are coming in this mode; use pbf or flip to drop bodies")
}

// RemoveBody implements sim.Hands: there are no bodies to remove.
func (s *Solver) RemoveBody(i int) error {
	return fmt.Errorf("sph: no body %d: this mode has no rigid bodies yet", i)
}

// DriveBody implements sim.Hands: there are no bodies to drive.
func (s *Solver) DriveBody(int, [3]float32, bool) {}

// resetBodies sets up a scene's rigid bodies at a reset, before anything else changes: a scene with bodies is an
// error for now.
func (s *Solver) resetBodies(sc *scene.Scene) error {
	if len(sc.Bodies) == 0 {
		return nil
	}
	return fmt.Errorf("scene %q has %d rigid bodies, and rigid bodies are coming in mode sph: open it in pbf or flip (--mode pbf)", sc.Name, len(sc.Bodies))
}
