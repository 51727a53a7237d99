package panel

import (
	"errors"
	"fmt"
	"math"

	"github.com/slosh/slosh/sim/par"
)

// maxSweepGrowth is how many times the strengths of the bodies solved alone the Schwarz sweeps may reach before
// they count as diverged.
const maxSweepGrowth = 1e4

// MaxSystemPanels bounds the panels of all bodies of a System together (its coupling matrices are dense).
const MaxSystemPanels = 2048

// Options configure a System.
type Options struct {
	// Width and Height are the fluid domain [0, Width]×[0, Height]: its walls mirror panels (§5.3.3), and
	// buoyancy's depth (eq. 5.22) is measured down from its top.
	Width, Height float64
	// Tolerance ends the Schwarz iterations (§5.3.2) once a sweep changes no strength by more than Tolerance
	// times the largest strength.
	Tolerance float64
	// MaxIterations is the most Schwarz sweeps after the bodies' independent solves (eq. 5.16); 0 leaves the
	// bodies uncoupled.
	MaxIterations int
	// Images mirrors bodies across the walls they are near (§5.3.3).
	Images bool
	// ImageThreshold is the estimated error above which a body is mirrored across a wall: a body of radius R
	// whose centre is d from a wall induces a normal velocity there of about (R/d)² times its relative speed
	// (its far field is a dipole), so it is mirrored when (R/d)² > ImageThreshold (or when it touches the wall).
	ImageThreshold float64
	// Pool runs the evaluation loops.
	Pool par.Pool
}

// DefaultOptions are the options for a width×height domain: tolerance 1e-6, at most 50 sweeps, images at a
// threshold of 0.05 (bodies within about 4.5 radii of a wall).
func DefaultOptions(width, height float64) Options {
	return Options{Width: width, Height: height, Tolerance: 1e-6, MaxIterations: 50, Images: true, ImageThreshold: 0.05}
}

func (o Options) validate() error {
	switch {
	case !finite(o.Width) || o.Width <= 0 || !finite(o.Height) || o.Height <= 0:
		return fmt.Errorf("panel: domain %g×%g must be positive and finite", o.Width, o.Height)
	case !finite(o.Tolerance) || o.Tolerance < 0:
		return fmt.Errorf("panel: tolerance %g must be finite and non-negative", o.Tolerance)
	case o.MaxIterations < 0:
		return fmt.Errorf("panel: max iterations %d must be non-negative", o.MaxIterations)
	case !finite(o.ImageThreshold) || o.ImageThreshold < 0:
		return fmt.Errorf("panel: image threshold %g must be finite and non-negative", o.ImageThreshold)
	}
	return nil
}

// Body is a shape at a pose (position of the body origin, angle in radians counter-clockwise) moving rigidly
// with linear velocity Vel and angular velocity Omega (radians per second, counter-clockwise).
type Body struct {
	Shape *Shape
	Pos   Vec
	Angle float64
	Vel   Vec
	Omega float64
}

// Result is what one Solve did: the mode's figures.
type Result struct {
	Iterations int     // Schwarz sweeps done after the independent solves
	Change     float64 // the last sweep's largest strength change relative to the largest strength (0 if none ran)
	Converged  bool    // the last sweep's change was within the tolerance, or the bodies do not interact
	Images     int     // mirrored panels
	// Diverged says the sweeps blew up instead of settling (a body overlapping another or its own mirror image,
	// as a fixed rock set into a wall does when its panels are long for its thickness), and the strengths are
	// those of the bodies solved alone.
	Diverged bool
}

// image is a mirror of one panel across one wall or two (a corner); its strength is sign times its source's.
type image struct {
	src   int32
	walls uint8 // mirror* bits
	sign  float64
}

// System holds bodies at their poses, their panels in world space, and the strengths of the last Solve.
// It is not safe for concurrent use; its buffers are reused from one SetBodies and Solve to the next.
type System struct {
	opt    Options
	bodies []Body
	off    []int // body i owns panels off[i]..off[i+1]-1

	// per panel, world space
	mid, n []Vec
	l      []float64
	owner  []int32
	gamma  []float64
	gnew   []float64
	galone []float64 // the strengths of the bodies solved alone, to go back to when the sweeps diverge
	real   emitters
	img    emitters
	imgSrc []image
	// per collocation point (CollocationPoints per panel, panel order), world space
	cp      []Vec
	r0      []float64 // ambient relative normal velocity (eq. 5.14 without the area)
	rhs     []float64
	rel     []Vec     // relative velocity of the external field (ambient, other bodies, images)
	ambMean []Vec     // per body: the mean ambient velocity at its collocation points
	cx, cy  []float64 // rows: points, columns: panels; velocity per unit strength of others' panels and all images
	coupled bool
}

// NewSystem makes an empty system.
func NewSystem(opt Options) (*System, error) {
	if err := opt.validate(); err != nil {
		return nil, err
	}
	return &System{opt: opt}, nil
}

// Options returns the system's options.
func (s *System) Options() Options { return s.opt }

// SetBodies places bodies (copied) for the next Solve: their panels go to world space and the walls they are
// near get their mirrors. Strengths are cleared. A nil shape, a non-finite pose or velocity, or more than
// MaxSystemPanels panels in all are errors, which leave the system empty.
func (s *System) SetBodies(bodies []Body) error {
	s.bodies = s.bodies[:0]
	s.off = append(s.off[:0], 0)
	s.resize(0)
	s.imgSrc = s.imgSrc[:0]
	s.img.resize(0)
	s.coupled = false
	total := 0
	for i, b := range bodies {
		if b.Shape == nil {
			return fmt.Errorf("panel: body %d has no shape", i)
		}
		if !b.Pos.finite() || !finite(b.Angle) || !b.Vel.finite() || !finite(b.Omega) {
			return fmt.Errorf("panel: body %d has a non-finite pose or velocity", i)
		}
		total += b.Shape.Panels()
		if total > MaxSystemPanels {
			return fmt.Errorf("panel: %d bodies have more than %d panels", i+1, MaxSystemPanels)
		}
	}
	s.bodies = append(s.bodies, bodies...)
	s.resize(total)
	for i, b := range s.bodies {
		sh := b.Shape
		c, sn := math.Cos(b.Angle), math.Sin(b.Angle)
		lo := s.off[i]
		for k := range sh.cp {
			s.cp[lo*CollocationPoints+k] = sh.cp[k].rotate(c, sn).add(b.Pos)
		}
		for k := range sh.l {
			p := lo + k
			s.mid[p] = sh.mid[k].rotate(c, sn).add(b.Pos)
			s.n[p] = sh.n[k].rotate(c, sn)
			s.l[p] = sh.l[k]
			s.owner[p] = int32(i)
			s.real.a[p] = sh.a[k].rotate(c, sn).add(b.Pos)
			s.real.t[p] = sh.t[k].rotate(c, sn)
			s.real.l[p] = sh.l[k]
			s.real.e2[p] = sq(sh.eps * sh.l[k])
		}
		s.off = append(s.off, lo+sh.Panels())
	}
	if s.opt.Images {
		for i := range s.bodies {
			s.mirror(i)
		}
	}
	s.img.resize(len(s.imgSrc))
	clear(s.img.g)
	for q, im := range s.imgSrc {
		s.img.a[q], s.img.t[q] = s.reflect(im)
		s.img.l[q] = s.real.l[im.src]
		s.img.e2[q] = s.real.e2[im.src]
	}
	s.coupled = len(s.bodies) > 1 || len(s.imgSrc) > 0
	return nil
}

func (s *System) resize(n int) {
	s.mid = resizeVec(s.mid, n)
	s.n = resizeVec(s.n, n)
	s.l = resizeF(s.l, n)
	s.gamma = resizeF(s.gamma, n)
	s.gnew = resizeF(s.gnew, n)
	s.galone = resizeF(s.galone, n)
	np := n * CollocationPoints
	s.cp = resizeVec(s.cp, np)
	s.rel = resizeVec(s.rel, np)
	clear(s.rel)
	s.r0 = resizeF(s.r0, np)
	s.rhs = resizeF(s.rhs, np)
	if cap(s.owner) < n {
		s.owner = make([]int32, n)
	}
	s.owner = s.owner[:n]
	s.real.resize(n)
	clear(s.gamma)
	clear(s.real.g)
}

// wall bits of an image: which walls a panel is reflected across.
const (
	mirrorLeft = 1 << iota
	mirrorRight
	mirrorBottom
	mirrorTop
)

// mirror adds images of body i's panels across the nearer x wall and the nearer y wall when each is near
// (ImageThreshold), and across both (the corner) when both are.
func (s *System) mirror(i int) {
	b := s.bodies[i]
	r := b.Shape.Radius()
	near := func(d float64) bool { return d <= r || sq(r/d) > s.opt.ImageThreshold }
	var wx, wy uint8
	if dl, dr := b.Pos.X, s.opt.Width-b.Pos.X; dl <= dr && near(dl) {
		wx = mirrorLeft
	} else if dr < dl && near(dr) {
		wx = mirrorRight
	}
	if db, dt := b.Pos.Y, s.opt.Height-b.Pos.Y; db <= dt && near(db) {
		wy = mirrorBottom
	} else if dt < db && near(dt) {
		wy = mirrorTop
	}
	add := func(walls uint8, sign float64) {
		for p := s.off[i]; p < s.off[i+1]; p++ {
			s.imgSrc = append(s.imgSrc, image{src: int32(p), walls: walls, sign: sign})
		}
	}
	if wx != 0 {
		add(wx, -1)
	}
	if wy != 0 {
		add(wy, -1)
	}
	if wx != 0 && wy != 0 {
		add(wx|wy, 1) // reflected twice
	}
}

// reflect mirrors image im's source panel across its walls; a reflection reverses a panel's direction, which
// does not change its field (a line of point vortices), so the image keeps start and end as reflected.
func (s *System) reflect(im image) (a, t Vec) {
	a = s.real.a[im.src]
	e := a.add(s.real.t[im.src].scale(s.real.l[im.src]))
	for _, w := range [4]uint8{mirrorLeft, mirrorRight, mirrorBottom, mirrorTop} {
		if im.walls&w != 0 {
			a, e = s.reflectPoint(a, w), s.reflectPoint(e, w)
		}
	}
	return a, e.sub(a).scale(1 / s.real.l[im.src])
}

func (s *System) reflectPoint(p Vec, w uint8) Vec {
	switch w {
	case mirrorLeft:
		p.X = -p.X
	case mirrorRight:
		p.X = 2*s.opt.Width - p.X
	case mirrorBottom:
		p.Y = -p.Y
	default:
		p.Y = 2*s.opt.Height - p.Y
	}
	return p
}

// inside reports whether p is in the closed domain: mirrored panels act only there (§5.3.3).
func (s *System) inside(p Vec) bool {
	ex, ey := 1e-12*s.opt.Width, 1e-12*s.opt.Height
	return p.X >= -ex && p.X <= s.opt.Width+ex && p.Y >= -ey && p.Y <= s.opt.Height+ey
}

// Bodies is the number of bodies.
func (s *System) Bodies() int { return len(s.bodies) }

// Panels is the number of panels of all bodies.
func (s *System) Panels() int { return len(s.l) }

// Images is the number of mirrored panels.
func (s *System) Images() int { return len(s.imgSrc) }

// BodyPanels returns the range [lo, hi) of body i's panels in the system's panel order.
func (s *System) BodyPanels(i int) (lo, hi int) { return s.off[i], s.off[i+1] }

// Collocation appends the world-space collocation points, where Solve wants the ambient velocity:
// CollocationPoints per panel, in panel order.
func (s *System) Collocation(dst []Vec) []Vec { return append(dst, s.cp...) }

// Centres appends the world-space panel centres in panel order.
func (s *System) Centres(dst []Vec) []Vec { return append(dst, s.mid...) }

// Strengths appends the panel strengths γ of the last Solve (vorticity per unit length, counter-clockwise
// positive) in panel order.
func (s *System) Strengths(dst []float64) []float64 { return append(dst, s.gamma...) }

// bodyVelocity is the rigid velocity of body i at p.
func (s *System) bodyVelocity(i int, p Vec) Vec {
	b := &s.bodies[i]
	d := p.sub(b.Pos)
	return Vec{b.Vel.X - b.Omega*d.Y, b.Vel.Y + b.Omega*d.X}
}

// Solve finds the panel strengths that cancel the normal velocity of the total field relative to each body at
// its collocation points (§5.3.1): ambient[p] is the fluid's velocity, without any panels, at collocation point p
// (Collocation's order). Each body is first solved alone (eq. 5.16); then Schwarz sweeps (eq. 5.17) add, body by
// body, the velocity of every other body's panels and of all mirrored panels (a body's own images included), at
// the newest strengths, until the tolerance or MaxIterations, or until they diverge (Result.Diverged: the
// bodies keep the strengths they had alone). Non-finite ambient velocities are errors.
func (s *System) Solve(ambient []Vec) (Result, error) {
	const kq = CollocationPoints
	np := len(s.cp)
	if len(ambient) != np {
		return Result{}, fmt.Errorf("panel: solve: %d ambient velocities for %d collocation points", len(ambient), np)
	}
	for j, u := range ambient {
		if !u.finite() {
			return Result{}, fmt.Errorf("panel: solve: ambient velocity at collocation point %d is not finite", j)
		}
	}
	res := Result{Images: len(s.imgSrc), Converged: true}
	for p := range np {
		k := p / kq
		rel := ambient[p].sub(s.bodyVelocity(int(s.owner[k]), s.cp[p]))
		s.rel[p] = rel
		s.r0[p] = rel.dot(s.n[k])
	}
	s.ambMean = resizeVec(s.ambMean, len(s.bodies))
	for i := range s.bodies {
		var m Vec
		for p := s.off[i] * kq; p < s.off[i+1]*kq; p++ {
			m = m.add(ambient[p])
		}
		s.ambMean[i] = m.scale(1 / float64((s.off[i+1]-s.off[i])*kq))
	}
	for i := range s.bodies {
		s.solveBody(i, s.r0, s.gamma)
	}
	if s.coupled {
		s.couplingMatrix()
		res.Converged = false
		copy(s.galone, s.gamma)
		alone := 0.0
		for _, g := range s.galone {
			alone = max(alone, math.Abs(g))
		}
		for it := 0; it < s.opt.MaxIterations; it++ {
			var dmax, gmax float64
			for i := range s.bodies {
				lo, hi := s.off[i], s.off[i+1]
				for p := lo * kq; p < hi*kq; p++ {
					ux, uy := s.external(p)
					nk := s.n[p/kq]
					s.rhs[p] = s.r0[p] + ux*nk.X + uy*nk.Y
				}
				s.solveBody(i, s.rhs, s.gnew)
				for j := lo; j < hi; j++ {
					dmax = max(dmax, math.Abs(s.gnew[j]-s.gamma[j]))
					gmax = max(gmax, math.Abs(s.gnew[j]))
				}
				copy(s.gamma[lo:hi], s.gnew[lo:hi])
			}
			res.Iterations = it + 1
			res.Change = 0
			if gmax > 0 {
				res.Change = dmax / gmax
			}
			// strengths ten thousand times those alone: the sweeps blow up (block Gauss–Seidel diverges when
			// the coupling is stronger than a body's own panels: a plank overlapping its own image reached 1e9
			// times in twenty sweeps), and the bodies are left as they were solved alone. Milder growth runs its
			// course: level reduced-3's crates on the floor take the sweeps past a hundred times within twenty,
			// and the level is balanced on what they give.
			if !(gmax <= maxSweepGrowth*alone+1e-300) {
				copy(s.gamma, s.galone)
				res.Diverged = true
				break
			}
			if res.Change <= s.opt.Tolerance {
				res.Converged = true
				break
			}
		}
		for p := range np {
			ux, uy := s.external(p)
			s.rel[p] = s.rel[p].add(Vec{ux, uy})
		}
	}
	for j, g := range s.gamma {
		if !finite(g) {
			return res, errors.New("panel: solve: non-finite strengths")
		}
		s.real.g[j] = g * inv2Pi
	}
	for q, im := range s.imgSrc {
		s.img.g[q] = im.sign * s.real.g[im.src]
	}
	return res, nil
}

// solveBody sets dst's strengths of body i from the relative normal velocities r at the collocation points
// (eqs. 5.13, 5.15).
func (s *System) solveBody(i int, r, dst []float64) {
	lo, hi := s.off[i], s.off[i+1]
	m := hi - lo
	w := m * CollocationPoints
	op := s.bodies[i].Shape.solve
	rb := r[lo*CollocationPoints : hi*CollocationPoints]
	for j := range m {
		row := op[j*w : (j+1)*w]
		var g float64
		for k, x := range row {
			g += x * rb[k]
		}
		dst[lo+j] = g
	}
}

// external is the velocity at collocation point p of the other bodies' panels and all images, at the current
// strengths.
func (s *System) external(p int) (ux, uy float64) {
	n := len(s.l)
	rx, ry := s.cx[p*n:(p+1)*n], s.cy[p*n:(p+1)*n]
	for k, g := range s.gamma {
		ux += rx[k] * g
		uy += ry[k] * g
	}
	return ux, uy
}

// couplingMatrix fills cx, cy: the velocity at collocation point p per unit strength of panel k from k's panel if
// it belongs to another body, plus k's images if p is inside the domain. Rows in parallel.
func (s *System) couplingMatrix() {
	n, np := len(s.l), len(s.cp)
	s.cx = resizeF(s.cx, np*n)
	s.cy = resizeF(s.cy, np*n)
	s.opt.Pool.For(np, 4, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			rx, ry := s.cx[p*n:(p+1)*n], s.cy[p*n:(p+1)*n]
			x, own := s.cp[p], s.owner[p/CollocationPoints]
			for k := range n {
				if s.owner[k] == own {
					rx[k], ry[k] = 0, 0
					continue
				}
				ux, uy := unitVelocity(x, s.real.a[k], s.real.t[k], s.real.l[k], s.real.e2[k])
				rx[k], ry[k] = ux*inv2Pi, uy*inv2Pi
			}
			if !s.inside(x) {
				continue
			}
			for q, im := range s.imgSrc {
				ux, uy := unitVelocity(x, s.img.a[q], s.img.t[q], s.img.l[q], s.img.e2[q])
				rx[im.src] += im.sign * ux * inv2Pi
				ry[im.src] += im.sign * uy * inv2Pi
			}
		}
	})
}

// Velocity sets dst[i] to the velocity all panels induce at pts[i] (mirrored panels only inside the domain),
// at the strengths of the last Solve; add the ambient fluid's velocity for the total field (§5.3.4). Points are
// evaluated in parallel. Non-finite points are errors.
func (s *System) Velocity(dst, pts []Vec) error {
	if len(dst) != len(pts) {
		return fmt.Errorf("panel: velocity: %d outputs for %d points", len(dst), len(pts))
	}
	for i, p := range pts {
		if !p.finite() {
			return fmt.Errorf("panel: velocity: point %d is not finite", i)
		}
	}
	s.opt.Pool.For(len(pts), 16, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			dst[i] = s.velocityAt(pts[i])
		}
	})
	return nil
}

func (s *System) velocityAt(p Vec) Vec {
	ux, uy := s.real.velocity(p, 0, 0)
	if len(s.imgSrc) > 0 && s.inside(p) {
		ux, uy = s.img.velocity(p, ux, uy)
	}
	return Vec{ux, uy}
}
