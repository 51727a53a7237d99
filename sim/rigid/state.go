package rigid

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/slosh/slosh/internal/binio"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

// The bodies in a mode's state file: int64 count, int64 description length, the description (the bodies as a
// scene's JSON, read back through the scene parser's validation, meshes and all), then per body its Motion.
// Everything that carries over a step is there (pose, velocities, the drag); mass properties are measured again
// from the shapes at the run's spacing, the same numbers to the bit, so a loaded run continues bit for bit.

// WriteSolids writes bodies for a run of sc (the shapes relative to the scene, for mesh paths); what names the
// state in messages ("sph state").
func WriteSolids(w io.Writer, sc *scene.Scene, list []*Solid, what string) error {
	var specs []byte
	if len(list) > 0 {
		one := *sc.Portable() // a copy: Portable returns the scene itself for built-in scenes
		one.Bodies = make([]scene.Body, len(list))
		for i, b := range list {
			one.Bodies[i] = b.Spec
		}
		var err error
		if specs, err = one.Marshal(); err != nil {
			return fmt.Errorf("writing the %s's bodies: %w", what, err)
		}
	}
	items := []any{int64(len(list)), int64(len(specs)), specs}
	for _, b := range list {
		items = append(items, b.Motion())
	}
	for _, v := range items {
		if err := binary.Write(w, binary.LittleEndian, v); err != nil {
			return fmt.Errorf("writing the %s's bodies: %w", what, err)
		}
	}
	return nil
}

// ReadSolids reads what WriteSolids wrote, for a run of sc at spacing h, and checks it: the count against
// CheckCount and the description's length against scene.MaxFileBytes before anything is allocated, finite values
// within ±10⁶, unit quaternions, speeds within sim.MaxStateSpeed. It changes nothing: the caller installs the bodies
// once the whole state has been read.
func ReadSolids(r io.Reader, sc *scene.Scene, h float64, what string) ([]Solid, error) {
	var nb, nj int64
	for _, v := range []any{&nb, &nj} {
		if err := binary.Read(r, binary.LittleEndian, v); err != nil {
			return nil, fmt.Errorf("%s: truncated bodies: %w", what, err)
		}
	}
	if nb < 0 || nb > math.MaxInt32 {
		return nil, fmt.Errorf("%s: body count %d is negative or absurd", what, nb)
	}
	if err := CheckCount(int(nb)); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if nj < 0 || nj > scene.MaxFileBytes || (nb > 0) != (nj > 0) {
		return nil, fmt.Errorf("%s: %d bodies with a description of %d bytes (at most %d): the state is damaged", what, nb, nj, scene.MaxFileBytes)
	}
	specs, err := binio.ReadArray[byte](r, nj)
	if err != nil {
		return nil, fmt.Errorf("%s: truncated bodies: %w", what, err)
	}
	wires, err := binio.ReadArray[Motion](r, nb)
	if err != nil {
		return nil, fmt.Errorf("%s: truncated bodies: %w", what, err)
	}
	if nb == 0 {
		return nil, nil
	}
	src := "the saved state's bodies"
	if sc != nil && sc.Source != "" {
		src = sc.Source + " (the saved state's bodies)"
	}
	one, err := scene.Parse(specs, src)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if int64(len(one.Bodies)) != nb {
		return nil, fmt.Errorf("%s: %d bodies described but %d declared", what, len(one.Bodies), nb)
	}
	list := make([]Solid, 0, nb)
	for i, w := range wires {
		if err := checkMotion(&w); err != nil {
			return nil, fmt.Errorf("%s: body %d: %w", what, i, err)
		}
		b, err := NewSolid(one.Bodies[i], h)
		if err != nil {
			return nil, fmt.Errorf("%s: body %d: %w", what, i, err)
		}
		b.SetMotion(w)
		list = append(list, b)
	}
	return list, nil
}

// checkMotion refuses a stored body that is not finite, out of range, faster than sim.MaxStateSpeed or not a
// rotation.
func checkMotion(w *Motion) error {
	vals := []float64{w.Q[0], w.Q[1], w.Q[2], w.Q[3], float64(w.Driving)}
	for _, v := range [][3]float64{w.Origin, w.C, w.V, w.W, w.Drive} {
		vals = append(vals, v[:]...)
	}
	for _, x := range vals {
		if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > 1e6 {
			return fmt.Errorf("its state is not finite or out of range")
		}
	}
	if w.Driving != 0 && w.Driving != 1 {
		return fmt.Errorf("its drag flag is %d, not 0 or 1", w.Driving)
	}
	for _, v := range [][3]float64{w.V, w.Drive} {
		if sp := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2]); sp > sim.MaxStateSpeed {
			return fmt.Errorf("it moves at %.3g m/s; at most %g m/s", sp, float64(sim.MaxStateSpeed))
		}
	}
	if l := w.Q[0]*w.Q[0] + w.Q[1]*w.Q[1] + w.Q[2]*w.Q[2] + w.Q[3]*w.Q[3]; math.Abs(l-1) > 1e-3 {
		return fmt.Errorf("its orientation is not a unit quaternion (|q|² = %g)", l)
	}
	return nil
}
