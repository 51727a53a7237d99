package voronoi

import (
	"math"

	"github.com/slosh/slosh/internal/grow"
	"github.com/slosh/slosh/sim/scene"
)

// solidAt is a solid the cells are clipped against in a step: a scene obstacle where its motion has taken it, the
// paddle, or a rigid body at its pose, with its rigid velocity.
type solidAt struct {
	shape  scene.Shape
	bounds scene.Box  // the shape's bounds grown by a margin: outside, the distance is the bounds' own
	lin    [3]float64 // velocity of the point center, m/s
	ang    [3]float64 // angular velocity, rad/s
	center [3]float64
	body   int // the rigid body's index, −1 for obstacles and the paddle
}

// velocity is the solid's velocity at x.
func (o *solidAt) velocity(x [3]float64) [3]float64 {
	r := [3]float64{x[0] - o.center[0], x[1] - o.center[1], x[2] - o.center[2]}
	w := o.ang
	return [3]float64{
		o.lin[0] + w[1]*r[2] - w[2]*r[1],
		o.lin[1] + w[2]*r[0] - w[0]*r[2],
		o.lin[2] + w[0]*r[1] - w[1]*r[0],
	}
}

// distance is the shape's signed distance (negative inside); far from the shape, a positive lower bound of it
// (the distance to its grown bounds), which keeps the sign, all the clipping needs there, without a mesh's search.
func (o *solidAt) distance(p [3]float64) float64 {
	b := o.bounds
	var d2 float64
	for k := 0; k < 3; k++ {
		if e := b.Min[k] - p[k]; e > 0 {
			d2 += e * e
		} else if e := p[k] - b.Max[k]; e > 0 {
			d2 += e * e
		}
	}
	if d2 > 0 {
		return math.Sqrt(d2)
	}
	return o.shape.Distance(scene.Vec3(p))
}

// addSolid appends a solid with its bounds grown by two spacings.
func (s *Solver) addSolid(sh scene.Shape, lin, ang, center [3]float64, body int) {
	b := sh.Bounds()
	m := 2 * s.spacing
	for k := 0; k < 3; k++ {
		b.Min[k] -= m
		b.Max[k] += m
	}
	s.solids = append(s.solids, solidAt{shape: sh, bounds: b, lin: lin, ang: ang, center: center, body: body})
}

// placeSolids sets the solids of a step starting at time t: the scene's obstacles moved along their paths, the
// paddle, and the rigid bodies (bodies.go), and the signed distance functions the clipper calls.
func (s *Solver) placeSolids(t float64) {
	s.solids = s.solids[:0]
	for k := range s.sc.Obstacles {
		o := &s.sc.Obstacles[k]
		sh := o.ShapeAt(t)
		s.addSolid(sh, [3]float64(o.Motion.Velocity(t)), [3]float64{}, [3]float64{}, -1)
	}
	if p := s.hands.Tools.Paddle; p != nil {
		c := [3]float64{float64(p.Center[0]), float64(p.Center[1]), float64(p.Center[2])}
		s.addSolid(scene.Shape{Kind: scene.ShapeSphere, Center: scene.Vec3(c), Radius: float64(p.Radius)}, s.paddleVel, [3]float64{}, c, -1)
	}
	s.addBodySolids() // bodies.go
	s.sdfs = s.sdfs[:0]
	for k := range s.solids {
		o := &s.solids[k]
		s.sdfs = append(s.sdfs, o.distance)
	}
}

// contactMargin is how far from a solid's surface a particle that went into it is put back, in spacings: off the
// surface, so its cell is not cut at its own site.
const contactMargin = 0.25

// collide projects the particles that ended inside a solid onto its surface (to the margin) and takes away their
// velocity into it (relative to the solid's), and keeps them inside the domain the same way (§3.4).
func (s *Solver) collide() {
	m := contactMargin * s.spacing
	dom := s.sc.Domain
	s.pool.For(len(s.x), 1024, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			x := s.x[i]
			p := [3]float64{float64(x[0]), float64(x[1]), float64(x[2])}
			v := [3]float64{float64(s.v[i][0]), float64(s.v[i][1]), float64(s.v[i][2])}
			for k := range s.solids {
				o := &s.solids[k]
				if o.distance(p) >= m {
					continue
				}
				d, nrm := o.shape.SDF(scene.Vec3(p))
				ln := math.Sqrt(nrm[0]*nrm[0] + nrm[1]*nrm[1] + nrm[2]*nrm[2])
				if !(ln > 0) || !(d < m) {
					continue
				}
				for a := 0; a < 3; a++ {
					nrm[a] /= ln
					p[a] += (m - d) * nrm[a]
				}
				us := o.velocity(p)
				if vn := (v[0]-us[0])*nrm[0] + (v[1]-us[1])*nrm[1] + (v[2]-us[2])*nrm[2]; vn < 0 {
					for a := 0; a < 3; a++ {
						v[a] -= vn * nrm[a]
					}
				}
			}
			for a := 0; a < 3; a++ {
				if lo := dom.Min[a] + m; p[a] < lo {
					p[a] = lo
					v[a] = math.Max(v[a], 0)
				} else if hi := dom.Max[a] - m; p[a] > hi {
					p[a] = hi
					v[a] = math.Min(v[a], 0)
				}
			}
			s.x[i] = [4]float32{float32(p[0]), float32(p[1]), float32(p[2]), 0}
			s.v[i] = [4]float32{float32(v[0]), float32(v[1]), float32(v[2]), 0}
		}
	})
}

// removeClose removes every particle nearer than voronoi.min_gap spacings (at least a thousandth, so coincident
// particles always go) to a particle before it that stays (§3.3), and returns how many went. It sorts the
// neighbour grid, which the MLS neighbourhoods use later in the step: after a removal it sorts it again.
func (s *Solver) removeClose() int {
	n := len(s.x)
	g := s.grid
	g.Build(s.x, s.id)
	if n < 2 {
		return 0
	}
	gap := float32(math.Max(float64(s.Cfg.MinGap), 1e-3) * s.spacing)
	gap2 := gap * gap
	// candidates in parallel (a particle with a nearer lower-numbered one), then the decisions in order, since
	// whether j stays depends on the particles before it
	var cand []int32
	s.near = grow.Resize(s.near, n)
	flag := s.near
	clear(flag)
	s.pool.For(n, 1024, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			xi := s.x[i]
			cx, cy, cz := g.Coord(xi[0], xi[1], xi[2])
			for dz := int32(-1); dz <= 1 && !flag[i]; dz++ {
				for dy := int32(-1); dy <= 1 && !flag[i]; dy++ {
					b, e, ok := g.Row(cx, cy, cz, dy, dz)
					if !ok {
						continue
					}
					for _, j := range g.Order[b:e] {
						if int(j) >= i {
							continue
						}
						xj := s.x[j]
						dx, dy, dz := xj[0]-xi[0], xj[1]-xi[1], xj[2]-xi[2]
						if dx*dx+dy*dy+dz*dz < gap2 {
							flag[i] = true
							break
						}
					}
				}
			}
		}
	})
	for i, f := range flag {
		if f {
			cand = append(cand, int32(i))
		}
	}
	if len(cand) == 0 {
		return 0
	}
	defer func() { g.Build(s.x, s.id) }() // the remaining particles
	gone := make([]bool, n)               // by index
	for _, i := range cand {
		xi := s.x[i]
		cx, cy, cz := g.Coord(xi[0], xi[1], xi[2])
		drop := false
		for dz := int32(-1); dz <= 1 && !drop; dz++ {
			for dy := int32(-1); dy <= 1 && !drop; dy++ {
				b, e, ok := g.Row(cx, cy, cz, dy, dz)
				if !ok {
					continue
				}
				for _, j := range g.Order[b:e] {
					if j >= i || gone[j] {
						continue
					}
					xj := s.x[j]
					dx, dy, dz := xj[0]-xi[0], xj[1]-xi[1], xj[2]-xi[2]
					if dx*dx+dy*dy+dz*dz < gap2 {
						drop = true
						break
					}
				}
			}
		}
		gone[i] = drop
	}
	return s.remove(func(i int) bool { return gone[i] })
}

// remove deletes the particles drop selects (called once per particle, in order), renumbers the ids that remain
// to 0..N'−1 in their old order (particles.Store.Remove), and returns how many went.
func (s *Solver) remove(drop func(i int) bool) int {
	k := s.hands.P.Remove(drop)
	s.stats.Particles = len(s.x)
	return k
}
