package rigid

import (
	"fmt"
	"io"
	"math"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

// A mode whose rigid bodies are shapes (Solid) keeps them in a Set: the bookkeeping every such mode does the same
// way — measuring the scene's bodies and dropped ones, removing and dragging them, the last good state's copy, the
// non-finite check, the speed the time step must follow, the poses a frame carries, gravity and the pose update
// under the fluid's force, the contacts, and the bodies' part of a state file. How the fluid pushes a body (the
// force and torque) and what a mode keeps beside each body for that (sph: its posed distance fields) stay the
// mode's.

// ShapeBody is a body of a Set: the solid, and the fluid's force and torque on it in the last step, which the mode
// sets before Integrate.
type ShapeBody struct {
	Solid
	Force, Torque [3]float64 // N, N·m
	Reach         float64    // the farthest surface point from the centre of mass, m
}

// Shape is b itself: a mode's body type that embeds ShapeBody has it too, which is how a Set reaches it.
func (b *ShapeBody) Shape() *ShapeBody { return b }

// Set holds a mode's shape bodies, each a B: ShapeBody itself, or a mode's struct that embeds it with what the
// mode's coupling keeps per body; PB is *B. The mode reads and changes List (the order is the bodies' indices in
// sim.Hands); the Set's methods keep the rest. Use Bodies for a Set of plain ShapeBodies.
type Set[B any, PB Shaped[B]] struct {
	List []B

	good   []Solid     // the last good state's (Keep, Restore)
	bounds []scene.Box // Contacts' scratch
}

// Shaped is what a Set asks of its body type's pointer: that it reaches the embedded ShapeBody.
type Shaped[B any] interface {
	*B
	Shape() *ShapeBody
}

// Bodies is a Set of plain ShapeBodies.
type Bodies = Set[ShapeBody, *ShapeBody]

// measure measures a body at length scale h (NewSolid) and makes it a B.
func measure[B any, PB Shaped[B]](spec scene.Body, h float64) (B, error) {
	sol, err := NewSolid(spec, h)
	if err != nil {
		var zero B
		return zero, err
	}
	return wrap[B, PB](sol), nil
}

// wrap makes a B of a measured solid, the mode's part of it zero.
func wrap[B any, PB Shaped[B]](sol Solid) B {
	var b B
	*PB(&b).Shape() = ShapeBody{Solid: sol, Reach: sol.Reach()}
	return b
}

// at is body i's ShapeBody.
func (s *Set[B, PB]) at(i int) *ShapeBody { return PB(&s.List[i]).Shape() }

// Len is the number of bodies.
func (s *Set[B, PB]) Len() int { return len(s.List) }

// Clear removes every body and the last good state's (a reset without the scene's bodies).
func (s *Set[B, PB]) Clear() { *s = Set[B, PB]{} }

// Reset measures the scene's bodies at length scale h and makes them the set's. On error the set is empty.
func (s *Set[B, PB]) Reset(sc *scene.Scene, h float64) error {
	s.List = s.List[:0]
	if err := CheckCount(len(sc.Bodies)); err != nil {
		return fmt.Errorf("scene %q: %w", sc.Name, err)
	}
	list := make([]B, 0, len(sc.Bodies))
	for i := range sc.Bodies {
		b, err := measure[B, PB](sc.Bodies[i], h)
		if err != nil {
			return fmt.Errorf("scene %q body %d: %w", sc.Name, i, err)
		}
		list = append(list, b)
	}
	s.List = list
	return nil
}

// Add measures a body at length scale h and appends it (sim.Hands.AddBody; the mode displaces its fluid), and
// returns its index; more than CheckCount allows is refused.
func (s *Set[B, PB]) Add(spec scene.Body, h float64) (int, error) {
	if err := CheckCount(len(s.List) + 1); err != nil {
		return 0, err
	}
	b, err := measure[B, PB](spec, h)
	if err != nil {
		return 0, err
	}
	s.List = append(s.List, b)
	return len(s.List) - 1, nil
}

// Remove removes body i; the later bodies move down an index.
func (s *Set[B, PB]) Remove(i int) error {
	if i < 0 || i >= len(s.List) {
		return fmt.Errorf("no body %d (there are %d)", i, len(s.List))
	}
	s.List = append(s.List[:i], s.List[i+1:]...)
	return nil
}

// Drive starts or ends the drag of body i (Solid.SetDrive) and says whether there is such a body.
func (s *Set[B, PB]) Drive(i int, v [3]float32, on bool) bool {
	if i < 0 || i >= len(s.List) {
		return false
	}
	s.at(i).SetDrive(v, on)
	return true
}

// Keep copies the bodies' solids as the last good state's.
func (s *Set[B, PB]) Keep() {
	s.good = s.good[:0]
	for i := range s.List {
		s.good = append(s.good, s.at(i).Solid)
	}
}

// Restore puts the last good state's solids back and says whether it did: not when their number differs from the
// bodies' (it never does: the mode keeps its state after every hand). The mode's part of each body is left as it
// is.
func (s *Set[B, PB]) Restore() bool {
	if len(s.good) != len(s.List) {
		return false
	}
	for i := range s.List {
		s.at(i).Solid = s.good[i]
	}
	return true
}

// Bad counts the bodies whose pose or velocities are not finite.
func (s *Set[B, PB]) Bad() int {
	n := 0
	for i := range s.List {
		if !s.at(i).Finite() {
			n++
		}
	}
	return n
}

// Speed2 is the larger of v2 and the square of the fastest surface point's speed, |v| + |ω| reach: the bodies'
// share of the velocity condition.
func (s *Set[B, PB]) Speed2(v2 float64) float64 {
	for i := range s.List {
		b := s.at(i)
		v := b.SurfaceSpeed(b.Reach)
		v2 = math.Max(v2, v*v)
	}
	return v2
}

// ClampSpeeds clamps every body's speed to limit (Solid.ClampSpeed) and returns how many it scaled.
func (s *Set[B, PB]) ClampSpeeds(limit float64) int {
	n := 0
	for i := range s.List {
		if b := s.at(i); b.ClampSpeed(limit, b.Reach) {
			n++
		}
	}
	return n
}

// Frame appends the bodies' poses to dst[:0].
func (s *Set[B, PB]) Frame(dst []sim.BodyState) []sim.BodyState {
	dst = dst[:0]
	for i := range s.List {
		dst = append(dst, s.at(i).State())
	}
	return dst
}

// Integrate steps every body by dt under gravity g and its Force and Torque by symplectic Euler (the velocities,
// then the pose); a dragged body moves at its drag's velocity without turning.
func (s *Set[B, PB]) Integrate(dt float64, g [3]float32) {
	for k := range s.List {
		b := s.at(k)
		if b.Driving {
			b.V, b.W = b.Drive, [3]float64{}
		} else {
			ii := b.InvInertia()
			for a := 0; a < 3; a++ {
				b.V[a] += dt * (float64(g[a]) + b.Force[a]/b.Mass)
				b.W[a] += dt * (ii[a][0]*b.Torque[0] + ii[a][1]*b.Torque[1] + ii[a][2]*b.Torque[2])
			}
		}
		b.Advance(dt, [3]float64{}, [3]float64{})
	}
}

// Contacts resolves the bodies' contacts with the domain's walls, the solids obstacles describes (nil: none) and
// each other (ResolveContacts; margin grows the bounds pairs are tested by, for what earlier pairs' pushes move).
func (s *Set[B, PB]) Contacts(domain scene.Box, obstacles func(p scene.Vec3) (float64, scene.Vec3), margin float64) {
	ResolveContacts(s.solids(), domain, obstacles, margin, &s.bounds)
}

// solids is the bodies' solids, in order.
func (s *Set[B, PB]) solids() []*Solid {
	list := make([]*Solid, len(s.List))
	for k := range s.List {
		list[k] = &s.at(k).Solid
	}
	return list
}

// Write writes the bodies for a state of a run of sc (WriteSolids); what names the state in messages ("voronoi
// state").
func (s *Set[B, PB]) Write(w io.Writer, sc *scene.Scene, what string) error {
	return WriteSolids(w, sc, s.solids(), what)
}

// Read reads what Write wrote, for a run of sc at length scale h, and checks it (ReadSolids). It changes nothing:
// the caller makes the list the set's (List) once the whole state has been read.
func (s *Set[B, PB]) Read(r io.Reader, sc *scene.Scene, h float64, what string) ([]B, error) {
	sols, err := ReadSolids(r, sc, h, what)
	if err != nil {
		return nil, err
	}
	list := make([]B, 0, len(sols))
	for _, sol := range sols {
		list = append(list, wrap[B, PB](sol))
	}
	return list, nil
}
