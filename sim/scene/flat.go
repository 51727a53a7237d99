package scene

import (
	"fmt"
	"math"

	"github.com/slosh/slosh/internal/jsonmsg"
)

// A 2D scene, for the reduced mode's game (000 ch. 5).
//
// A scene with a "flat" section is a rectangle of fluid seen head-on instead of a 3D tank: x to the right, y up,
// the origin at the rectangle's lower-left corner, metres. It holds rigid bodies (boxes, circles and convex
// polygons with a density per unit area, friction and restitution; static ones are the level's rocks and piers),
// currents drawn in advance (strokes that join the fluid's basis at the start, as the player's own strokes do
// during the game) and the level's goal: bring crates into a zone before the time runs out, then go on to the
// next level's scene. It has no 3D parts: domain, particles, fluid blocks and the rest stay empty, and the 3D
// modes say that they cannot open it.
//
//	"flat": {
//	  "size": [2, 1.2],
//	  "bodies": [{"shape": "box", "center": [0.3, 0.6], "size": [0.12, 0.12], "density": 600, "crate": true}],
//	  "currents": [{"points": [[0.2, 0.3], [1.0, 0.5], [1.8, 0.3]], "speed": 0.4, "width": 0.15}],
//	  "goal": {"zone": {"min": [1.6, 0.1], "max": [1.95, 0.5]}, "crates": 1, "time": 60, "next": "reduced-2"}
//	}

// Vec2 is a point or vector in the plane of a 2D scene, m.
type Vec2 = [2]float64

// Flat is a 2D scene's content.
type Flat struct {
	Size     Vec2       `json:"size"` // the rectangle's width and height, m
	Bodies   []FlatBody `json:"bodies,omitempty"`
	Currents []Current  `json:"currents,omitempty"`
	Goal     *Goal      `json:"goal,omitempty"`
}

// Shapes of 2D bodies.
const (
	FlatBox     = "box"
	FlatCircle  = "circle"
	FlatPolygon = "polygon"
)

// FlatBody is a rigid body of a 2D scene.
type FlatBody struct {
	Shape  string  `json:"shape"`            // FlatBox, FlatCircle or FlatPolygon
	Center Vec2    `json:"center"`           // where the body's frame sits, m
	Size   Vec2    `json:"size,omitempty"`   // a box's width and height, m
	Radius float64 `json:"radius,omitempty"` // a circle's, m
	// Points are a polygon's corners around Center in the body's frame: convex, counter-clockwise, at most
	// MaxPolygonPoints.
	Points      []Vec2  `json:"points,omitempty"`
	Angle       float64 `json:"angle,omitempty"`       // degrees, counter-clockwise
	Density     float64 `json:"density,omitempty"`     // kg/m² (the fluid's is reduced.fluid_density); not for static bodies
	Friction    float64 `json:"friction,omitempty"`    // Coulomb coefficient, 0–MaxFriction
	Restitution float64 `json:"restitution,omitempty"` // 0–1
	Velocity    Vec2    `json:"velocity,omitempty"`    // m/s
	Spin        float64 `json:"spin,omitempty"`        // rad/s, counter-clockwise
	Static      bool    `json:"static,omitempty"`      // fixed: a rock or a pier the fluid flows around
	Crate       bool    `json:"crate,omitempty"`       // one of the bodies the goal counts
}

// Current is a stroke drawn in advance: the fluid runs along the polyline at Speed within Width of it. At the
// start it joins the basis as a mode of its own (000 §5.2) and is excited once.
type Current struct {
	Points []Vec2  `json:"points"`
	Speed  float64 `json:"speed"`         // m/s
	Width  float64 `json:"width"`         // m
	Key    int     `json:"key,omitempty"` // 1–9: the digit key that excites it again during the game; 0 none
}

// Goal is what a level asks of the player: Crates crates inside Zone (each counts once it has come to rest
// there), within Time seconds of simulated time (0: no limit). Next names the scene of the following level.
type Goal struct {
	Zone   Rect    `json:"zone"`
	Crates int     `json:"crates"`
	Time   float64 `json:"time,omitempty"`
	Next   string  `json:"next,omitempty"`
}

// Rect is an axis-aligned rectangle in a 2D scene.
type Rect struct {
	Min Vec2 `json:"min"`
	Max Vec2 `json:"max"`
}

// Limits of 2D scenes.
const (
	// MaxPolygonPoints is Box2D's limit on a polygon's corners.
	MaxPolygonPoints = 8
	// MaxCurrents bounds the currents drawn in advance: each becomes a mode of the basis, whose advection
	// grows with the square of the mode count.
	MaxCurrents = 16
	// MaxCurrentPoints bounds a current's polyline.
	MaxCurrentPoints = 1024
	// MaxFriction bounds a body's friction coefficient.
	MaxFriction = 10
	// MaxFlatSpeed bounds a current's speed and the initial speed of any point of a body (m/s): the game's
	// time step follows the fastest flow.
	MaxFlatSpeed = 100
	// MinFlatSide and MaxFlatSide bound the rectangle's sides (m).
	MinFlatSide = 0.01
	MaxFlatSide = 1000
	// MinFlatDetail is the finest detail of a body, as a share of the rectangle's longer side: a box's sides, a
	// circle's diameter, a polygon's width and the distance between any two of its corners. The game's
	// rigid-body engine (Box2D) runs at a fixed number of its units across the longer side (sim/reduced/game's
	// b2Side, 20) and cannot hold finer detail: it merges corners closer than 1/8000 of that side, so that a
	// thinner box loses corners and fails Box2D's assertions, and it keeps bodies apart by a skin of 1/2000.
	MinFlatDetail = 1.0 / 4000
)

func (f *Flat) clone() *Flat {
	c := *f
	c.Bodies = append([]FlatBody(nil), f.Bodies...)
	for i := range c.Bodies {
		c.Bodies[i].Points = append([]Vec2(nil), f.Bodies[i].Points...)
	}
	c.Currents = append([]Current(nil), f.Currents...)
	for i := range c.Currents {
		c.Currents[i].Points = append([]Vec2(nil), f.Currents[i].Points...)
	}
	if f.Goal != nil {
		g := *f.Goal
		c.Goal = &g
	}
	return &c
}

// IsFlat says whether the scene is a 2D one.
func (s *Scene) IsFlat() bool { return s.Flat != nil }

// Need3D is the error a 3D mode gives for a 2D scene, nil for a 3D one; sampling and the spacing rules refuse 2D
// scenes with it, so every particle mode does.
func (s *Scene) Need3D() error {
	if s.Flat != nil {
		return fmt.Errorf("scene %q is a 2D scene (it has a \"flat\" section): open it in the reduced mode (--mode reduced)", s.Name)
	}
	return nil
}

// validateFlat checks a 2D scene: the rectangle, the bodies inside it, the currents and the goal; and that it
// has no 3D parts.
func (s *Scene) validateFlat() error {
	for _, c := range []struct {
		path string
		set  bool
	}{
		{"domain", s.Domain != Box{}}, {"particles", s.Particles != Particles{}}, {"materials", len(s.Materials) > 0},
		{"fluid", len(s.Fluid) > 0}, {"obstacles", len(s.Obstacles) > 0}, {"bodies", len(s.Bodies) > 0},
		{"emitters", len(s.Emitters) > 0}, {"blasts", len(s.Blasts) > 0}, {"heaters", len(s.Heaters) > 0},
		{"camera", s.Camera != nil},
	} {
		if c.set {
			return errAt(c.path, "a 2D scene (one with \"flat\") has no 3D parts: put its bodies in flat.bodies and leave %s out", c.path)
		}
	}
	f := s.Flat
	for c := 0; c < 2; c++ {
		if x := f.Size[c]; !(x >= MinFlatSide && x <= MaxFlatSide) {
			return errAt(fmt.Sprintf("flat.size[%d]", c), "%g m is outside [%g, %g]", x, float64(MinFlatSide), float64(MaxFlatSide))
		}
	}
	if n := len(f.Bodies); n > MaxBodies {
		return errAt("flat.bodies", "%d entries, over the limit of %d (the panel solves grow faster than the bodies' number)", n, MaxBodies)
	}
	if n := len(f.Currents); n > MaxCurrents {
		return errAt("flat.currents", "%d entries, over the limit of %d (each one is a mode of the basis)", n, MaxCurrents)
	}
	for i := range f.Bodies {
		if err := f.Bodies[i].validate(fmt.Sprintf("flat.bodies[%d]", i), f.Size); err != nil {
			return err
		}
	}
	for i := range f.Currents {
		if err := f.Currents[i].validate(fmt.Sprintf("flat.currents[%d]", i), f.Size); err != nil {
			return err
		}
	}
	if g := f.Goal; g != nil {
		if err := checkRect("flat.goal.zone", g.Zone, f.Size); err != nil {
			return err
		}
		crates := 0
		for i := range f.Bodies {
			if f.Bodies[i].Crate {
				crates++
			}
		}
		switch {
		case g.Crates < 1:
			return errAt("flat.goal.crates", "must be at least 1")
		case g.Crates > crates:
			return errAt("flat.goal.crates", "asks for %d crates but the scene has %d (bodies with \"crate\": true)", g.Crates, crates)
		case !(g.Time >= 0 && g.Time <= 24*3600):
			return errAt("flat.goal.time", "%g s is outside [0, 86400] (0: no limit)", g.Time)
		case len(g.Next) > maxNameBytes:
			return errAt("flat.goal.next", "is longer than the %d bytes allowed", maxNameBytes)
		}
	}
	return nil
}

// CheckBody validates a body for this rectangle as a scene's flat.bodies are, errors naming path ("flat_body"):
// for the bodies a game spawns and a replay holds.
func (f *Flat) CheckBody(path string, b *FlatBody) error { return b.validate(path, f.Size) }

// CheckCurrent validates a current for this rectangle as a scene's flat.currents are: for the strokes a player
// draws.
func (f *Flat) CheckCurrent(path string, c *Current) error { return c.validate(path, f.Size) }

// checkPoint2 refuses a point that is not finite or lies outside the rectangle of the given size.
func checkPoint2(path string, p, size Vec2) error {
	for c := 0; c < 2; c++ {
		if !(p[c] >= 0 && p[c] <= size[c]) {
			return errAt(fmt.Sprintf("%s[%d]", path, c), "%g m lies outside the rectangle [0, %g]", p[c], size[c])
		}
	}
	return nil
}

func checkRect(path string, r Rect, size Vec2) error {
	if err := checkPoint2(path+".min", r.Min, size); err != nil {
		return err
	}
	if err := checkPoint2(path+".max", r.Max, size); err != nil {
		return err
	}
	for c := 0; c < 2; c++ {
		if !(r.Max[c] > r.Min[c]) {
			return errAt(fmt.Sprintf("%s.max[%d]", path, c), "must be greater than min[%d] (%g)", c, r.Min[c])
		}
	}
	return nil
}

func checkVector2(path string, v Vec2, limit float64, unit string) error {
	if !(math.Hypot(v[0], v[1]) <= limit) {
		return errAt(path, "%v %s is out of range: at most %g", v, unit, limit)
	}
	return nil
}

func (b *FlatBody) validate(path string, size Vec2) error {
	if err := checkPoint2(path+".center", b.Center, size); err != nil {
		return err
	}
	unused := func(field string, set bool) error {
		if set {
			return errAt(path+"."+field, "a %s has no %s", b.Shape, field)
		}
		return nil
	}
	maxSide := max(size[0], size[1])
	detail := MinFlatDetail * maxSide
	switch b.Shape {
	case FlatBox:
		for c := 0; c < 2; c++ {
			if x := b.Size[c]; !(x > 0 && x <= maxSide) {
				return errAt(fmt.Sprintf("%s.size[%d]", path, c), "%g m is outside (0, %g], the rectangle's longer side", x, maxSide)
			}
		}
		for c := 0; c < 2; c++ {
			if x := b.Size[c]; x < detail {
				return errAt(fmt.Sprintf("%s.size[%d]", path, c), "%g m is thinner than %s", x, detailLimit(detail, maxSide))
			}
		}
		if err := unused("radius", b.Radius != 0); err != nil {
			return err
		}
		if err := unused("points", len(b.Points) > 0); err != nil {
			return err
		}
	case FlatCircle:
		if !(b.Radius > 0 && b.Radius <= maxSide/2) {
			return errAt(path+".radius", "%g m is outside (0, %g], half the rectangle's longer side", b.Radius, maxSide/2)
		}
		if 2*b.Radius < detail {
			return errAt(path+".radius", "%g m is less than half of %s", b.Radius, detailLimit(detail, maxSide))
		}
		if err := unused("size", b.Size != Vec2{}); err != nil {
			return err
		}
		if err := unused("points", len(b.Points) > 0); err != nil {
			return err
		}
	case FlatPolygon:
		if err := checkPolygon(path+".points", b.Points, maxSide, detail); err != nil {
			return err
		}

		if err := unused("size", b.Size != Vec2{}); err != nil {
			return err
		}
		if err := unused("radius", b.Radius != 0); err != nil {
			return err
		}
	case "":
		return errAt(path+".shape", "missing: give \"box\", \"circle\" or \"polygon\"")
	default:
		return errAt(path+".shape", "unknown shape %s: give \"box\", \"circle\" or \"polygon\"", jsonmsg.Quote(b.Shape))
	}
	if !(math.Abs(b.Angle) <= MaxDegrees) {
		return errAt(path+".angle", "%g is out of range: angles are degrees within ±%d", b.Angle, MaxDegrees)
	}
	if !b.Static {
		// it fits whichever way it turns
		if d, short := b.diameter(), min(size[0], size[1]); !(d <= short) {
			return errAt(path, "the body is %.3g m across at its widest, more than the rectangle's shorter side (%g m): a body that moves must fit in it whichever way it turns", d, short)
		}
		// its centre of mass, where the walls keep it (and where a saved state's bodies must lie): inside, and
		// clear of the walls, or Box2D may push the body out through one
		at, field := b.Center, path+".center"
		if b.Shape == FlatPolygon {
			c := polygonCentroid(b.Points)
			s, co := math.Sincos(b.Angle * math.Pi / 180)
			at, field = Vec2{b.Center[0] + co*c[0] - s*c[1], b.Center[1] + s*c[0] + co*c[1]}, path+".points"
		}
		for k := 0; k < 2; k++ {
			if !(at[k] >= detail && at[k] <= size[k]-detail) {
				return errAt(field, "puts the body's centre of mass at (%g, %g), outside the rectangle or on its walls: a body that moves starts inside it, at least %.3g m (1/%.0f of the longer side) from the walls",
					at[0], at[1], detail, 1/MinFlatDetail)
			}
		}
	}
	if b.Static {
		if b.Density != 0 || b.Velocity != (Vec2{}) || b.Spin != 0 {
			return errAt(path, "a static body has no density, velocity or spin")
		}
		if b.Crate {
			return errAt(path+".crate", "a crate cannot be static: the player has to move it")
		}
	} else if !(b.Density >= MinBodyDensity && b.Density <= MaxBodyDensity) {
		return errAt(path+".density", "%g kg/m² is outside [%g, %g]; the fluid's is about 1000", b.Density, float64(MinBodyDensity), MaxBodyDensity)
	}
	if !(b.Friction >= 0 && b.Friction <= MaxFriction) {
		return errAt(path+".friction", "%g is outside [0, %g]", b.Friction, float64(MaxFriction))
	}
	if !(b.Restitution >= 0 && b.Restitution <= 1) {
		return errAt(path+".restitution", "%g is outside [0, 1]", b.Restitution)
	}
	if err := checkVector2(path+".velocity", b.Velocity, MaxFlatSpeed, "m/s"); err != nil {
		return err
	}
	if !(math.Abs(b.Spin) <= MaxSpin) {
		return errAt(path+".spin", "%g rad/s is out of range: at most %g", b.Spin, float64(MaxSpin))
	}
	// no point of the body starts faster than MaxFlatSpeed: a 1 m body spinning at MaxSpin had tips at 5 km/s
	if v, rim := math.Hypot(b.Velocity[0], b.Velocity[1]), math.Abs(b.Spin)*b.Reach(); !(v+rim <= MaxFlatSpeed) {
		return errAt(path+".spin", "%g rad/s turns the body's far point (%.3g m from its centre) at %.3g m/s, which with its velocity of %.3g m/s is over the %g m/s a body's points may start at", b.Spin, b.Reach(), rim, v, float64(MaxFlatSpeed))
	}
	return nil
}

// diameter is a validated body's width at its widest, m: the largest distance between two of its points.
func (b *FlatBody) diameter() float64 {
	switch b.Shape {
	case FlatBox:
		return math.Hypot(b.Size[0], b.Size[1])
	case FlatCircle:
		return 2 * b.Radius
	}
	d := 0.0
	for i, p := range b.Points {
		for _, q := range b.Points[:i] {
			d = max(d, math.Hypot(p[0]-q[0], p[1]-q[1]))
		}
	}
	return d
}

// Reach is the distance from a validated body's centre to its farthest point, m.
func (b *FlatBody) Reach() float64 {
	switch b.Shape {
	case FlatBox:
		return math.Hypot(b.Size[0]/2, b.Size[1]/2)
	case FlatCircle:
		return b.Radius
	}
	r := 0.0
	for _, p := range b.Points {
		r = max(r, math.Hypot(p[0], p[1]))
	}
	return r
}

// detailLimit describes the finest detail a body may have, for messages.
func detailLimit(detail, maxSide float64) string {
	return fmt.Sprintf("%.3g m, 1/%.0f of the rectangle's longer side (%g m): the game's rigid-body engine cannot hold finer detail", detail, 1/MinFlatDetail, maxSide)
}

// checkPolygon refuses a polygon that Box2D cannot take: fewer than 3 or more than MaxPolygonPoints corners, not
// finite, wider than the rectangle, not convex and counter-clockwise, of no area, or with detail finer than
// detail (two corners closer, or narrower across, than that).
func checkPolygon(path string, pts []Vec2, maxSide, detail float64) error {
	n := len(pts)
	if n < 3 || n > MaxPolygonPoints {
		return errAt(path, "%d corners; a polygon has 3 to %d", n, MaxPolygonPoints)
	}
	for i, p := range pts {
		for c := 0; c < 2; c++ {
			if !(math.Abs(p[c]) <= maxSide) {
				return errAt(fmt.Sprintf("%s[%d][%d]", path, i, c), "%g m is out of range: corners lie within the rectangle's longer side (%g m) of the body's centre", p[c], maxSide)
			}
		}
	}
	area := 0.0
	for i := range pts {
		a, b, c := pts[i], pts[(i+1)%n], pts[(i+2)%n]
		cross := (b[0]-a[0])*(c[1]-b[1]) - (b[1]-a[1])*(c[0]-b[0])
		if !(cross > 0) {
			return errAt(fmt.Sprintf("%s[%d]", path, (i+1)%n), "the polygon turns the wrong way or not at all here: corners go counter-clockwise around a convex shape")
		}
		area += a[0]*b[1] - b[0]*a[1]
	}
	if !(area/2 > MinLength*MinLength) {
		return errAt(path, "the polygon has no area")
	}
	for i := range pts {
		for j := 0; j < i; j++ {
			if d := math.Hypot(pts[i][0]-pts[j][0], pts[i][1]-pts[j][1]); d < detail {
				return errAt(fmt.Sprintf("%s[%d]", path, i), "lies %.3g m from corner %d, closer than %s", d, j, detailLimit(detail, maxSide))
			}
		}
	}
	// the width: a convex polygon is narrowest across one of its sides, to the corner farthest from it
	width := math.Inf(1)
	for i := range pts {
		a, b := pts[i], pts[(i+1)%n]
		ex, ey := b[0]-a[0], b[1]-a[1]
		l := math.Hypot(ex, ey)
		far := 0.0
		for _, p := range pts {
			far = max(far, (ex*(p[1]-a[1])-ey*(p[0]-a[0]))/l)
		}
		width = min(width, far)
	}
	if width < detail {
		return errAt(path, "the polygon is %.3g m across at its narrowest, thinner than %s", width, detailLimit(detail, maxSide))
	}
	return nil
}

// polygonCentroid is the centre of area of a polygon's corners (counter-clockwise, of positive area).
func polygonCentroid(pts []Vec2) Vec2 {
	var a, cx, cy float64
	o := pts[0] // about the first corner: no cancellation for a polygon far from its centre
	for i := 1; i+1 < len(pts); i++ {
		p, q := Vec2{pts[i][0] - o[0], pts[i][1] - o[1]}, Vec2{pts[i+1][0] - o[0], pts[i+1][1] - o[1]}
		w := p[0]*q[1] - q[0]*p[1]
		a += w
		cx += w * (p[0] + q[0]) / 3
		cy += w * (p[1] + q[1]) / 3
	}
	return Vec2{o[0] + cx/a, o[1] + cy/a}
}

func (c *Current) validate(path string, size Vec2) error {
	n := len(c.Points)
	if n < 2 || n > MaxCurrentPoints {
		return errAt(path+".points", "%d points; a current is a polyline of 2 to %d", n, MaxCurrentPoints)
	}
	for i, p := range c.Points {
		if err := checkPoint2(fmt.Sprintf("%s.points[%d]", path, i), p, size); err != nil {
			return err
		}
	}
	length := 0.0
	for i := 1; i < n; i++ {
		length += math.Hypot(c.Points[i][0]-c.Points[i-1][0], c.Points[i][1]-c.Points[i-1][1])
	}
	switch {
	case !(length > 0):
		return errAt(path+".points", "the stroke has no length")
	case !(c.Speed > 0 && c.Speed <= MaxFlatSpeed):
		return errAt(path+".speed", "%g m/s is outside (0, %g]", c.Speed, float64(MaxFlatSpeed))
	case !(c.Width > 0 && c.Width <= max(size[0], size[1])):
		return errAt(path+".width", "%g m is outside (0, %g], the rectangle's longer side", c.Width, max(size[0], size[1]))
	case c.Key < 0 || c.Key > 9:
		return errAt(path+".key", "%d is not a digit key 1–9 (0: none)", c.Key)
	}
	return nil
}
