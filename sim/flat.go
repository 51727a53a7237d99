package sim

import "github.com/slosh/slosh/sim/scene"

// FlatFrame is what a 2D mode (reduced) shows instead of particles in 3D: a rectangle of fluid seen head-on, with
// x to the right, y up and the origin at the rectangle's lower-left corner, in metres. The solver paints the
// fluid's picture itself (dye, a speed map, streaks: whatever its view setting says) as an image over the
// rectangle; the renderer (gpu/flat) fits the rectangle into the window, draws the image, then the shapes, the
// lines and the tracers on top, in that order. Slices are reused between calls when they are large enough.
type FlatFrame struct {
	Size [2]float32 // the rectangle's width and height, m

	// Image is ImageW × ImageH texels covering the rectangle, row-major from the bottom row, linear RGBA in
	// [0, 1]; alpha blends it over the background. Empty: no image.
	ImageW, ImageH int
	Image          [][4]float32

	Shapes  []FlatShape // bodies, obstacles, zones: filled convex polygons with outlines
	Lines   []FlatLine  // strokes being drawn, arrows, trails
	Tracers []FlatPoint // particles carried by the flow

	// Status is a line about the game the window shows over the view ("Level 2 · 3/5 crates · 0:41 left");
	// Message, when set, a banner in the middle ("Level complete! Press N for the next one").
	Status, Message string
}

// FlatShape is a filled convex polygon (counter-clockwise, world coordinates) with an outline; a circle comes as
// a polygon of enough sides. Alpha 0 in Fill or Line leaves that part out.
type FlatShape struct {
	Points     [][2]float32
	Fill, Line [4]float32
	// Body is the solver's index of the body the shape draws, for picking with the mouse; −1 for shapes that are
	// no body (a goal zone). Grabbable says the hands may hold and throw it, Removable that they may take it away.
	Body                 int
	Grabbable, Removable bool
}

// InConvex says whether p lies inside (or on) the convex counter-clockwise polygon pts: the 2D view's picking and
// a flat solver's tests of points against its bodies' outlines.
func InConvex(pts [][2]float32, p [2]float32) bool {
	if len(pts) < 3 {
		return false
	}
	for k := range pts {
		a, b := pts[k], pts[(k+1)%len(pts)]
		if (b[0]-a[0])*(p[1]-a[1])-(b[1]-a[1])*(p[0]-a[0]) < 0 {
			return false
		}
	}
	return true
}

// FlatLine is a polyline of the given width in pixels.
type FlatLine struct {
	Points [][2]float32
	Color  [4]float32
	Width  float32
}

// FlatPoint is a tracer: a dot of the given size in pixels.
type FlatPoint struct {
	Pos   [2]float32
	Color [4]float32
	Size  float32
}

// Flat is a solver that shows a FlatFrame: the window draws it in place of the particles and the surface, and
// maps the mouse into the rectangle for the mode's hands.
type Flat interface {
	Solver
	FlatFrame(dst *FlatFrame)
}

// FlatHands is what the 2D game's hands ask of a flat solver, between steps as Hands' calls are: draw a current,
// excite a drawn one again, grab, drag and throw a body, spawn and remove bodies. Positions are in the
// rectangle's coordinates (FlatFrame).
type FlatHands interface {
	// Draw adds the current the player drew: the flow along the polyline at speed (m/s) within width (m) of it,
	// made divergence free, joins the basis as a new mode unless the basis already holds it, and is excited once.
	// It returns a message for the status line ("current 3 on key 3").
	Draw(points [][2]float32, speed, width float32) (string, error)
	// Excite excites the drawn current on digit key k (1–9) again.
	Excite(k int) error
	// Grab takes hold of the body under p and returns its index, or −1 when there is none; MoveGrab pulls the
	// held body towards p; Release lets go, and the body keeps the velocity it had.
	Grab(p [2]float32) int
	MoveGrab(p [2]float32)
	Release()
	// Spawn adds a body (in scene.FlatBody's terms) and returns its index; RemoveFlatBody removes body i.
	Spawn(b scene.FlatBody) (int, error)
	RemoveFlatBody(i int) error
}
