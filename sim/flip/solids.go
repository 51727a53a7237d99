package flip

import (
	"math"

	"github.com/slosh/slosh/internal/grow"
	"github.com/slosh/slosh/sim/scene"
)

// Blurred obstacles (§3.3). Solids — the domain's walls, the scene's obstacles, moving obstacles, the paddle and the
// rigid bodies — are sampled on the fluid's own seeding lattice (spacing h/2, offset h/4 from the cell faces, one
// cell beyond the domain on every side) as occupancies in [0, 1], and rasterised with the trilinear stencil the
// liquid's particles use. A cell's fraction gives ρ_max = ρ_f (1 − s_c) (eq. 3.13), a face's gives the volume
// fraction V_f = 1 − s_f, and a moving solid's fraction of a face carries its velocity into the divergence. Because
// the stencil is the liquid's, a lattice of liquid particles packed against a solid rasterises to exactly ρ_max:
// a cell beside a wall holds 7/8 of a full cell, and so does its ρ_max.
//
// The static part (walls and obstacles without motion) is sampled once at reset; each step re-samples only the
// boxes around the moving solids and the boxes they left.

// subW are the trilinear weights of the four lattice samples within one cell of a grid sample along an axis.
var subW = [4]float64{0.25, 0.75, 0.75, 0.25}

// box is a box of samples [lo, hi) of one kind (or of the occupancy lattice).
type box struct{ lo, hi [3]int }

func (b box) empty() bool { return b.hi[0] <= b.lo[0] || b.hi[1] <= b.lo[1] || b.hi[2] <= b.lo[2] }

// movingSolid is a solid that moves this step: its shape now and its velocity field.
type movingSolid struct {
	shape  scene.Shape
	lin    [3]float64 // velocity of the point at center
	ang    [3]float64 // angular velocity, rad/s
	cen    [3]float64
	body   int // index of the rigid body, −1 for an obstacle or the paddle
	occ    []float32
	ob     box        // its occupancy box
	lo, hi [3]float64 // a body's bounds where it ends the step (advection's collisions)
}

// vel is the solid's velocity at x.
func (m *movingSolid) vel(x [3]float64) [3]float64 {
	r := [3]float64{x[0] - m.cen[0], x[1] - m.cen[1], x[2] - m.cen[2]}
	w := m.ang
	return [3]float64{m.lin[0] + w[1]*r[2] - w[2]*r[1], m.lin[1] + w[2]*r[0] - w[0]*r[2], m.lin[2] + w[0]*r[1] - w[1]*r[0]}
}

// solids holds the blurred solids on the grid.
type solids struct {
	on        [3]int    // occupancy lattice size: 2n + 4 (one cell beyond each side)
	occStatic []float32 // walls and static obstacles
	occ       []float32 // with the moving solids
	cell      []float64 // solid fraction of each cell
	face      [3][]float64
	flux      [3][]float64 // Σ over moving solids of fraction × velocity along the axis, per face
	moving    []movingSolid
	dirty     []box // occupancy boxes the moving solids covered last step
}

// occIndex is the index of occupancy sample q (q from −2).
func (so *solids) occIndex(q0, q1, q2 int) int {
	return (q0 + 2) + so.on[0]*((q1+2)+so.on[1]*(q2+2))
}

// occupancy of a point at signed distance d from a solid, for a sample standing for a cube of side a.
func occupancy(d, a float64) float32 {
	return float32(min(max(0.5-d/a, 0), 1))
}

// occBox is the occupancy box covering world bounds b widened by a cell, clamped to the lattice.
func (s *Solver) occBox(b scene.Box) box {
	var out box
	a := s.g.h / 2
	for k := 0; k < 3; k++ {
		lo := int(math.Floor((b.Min[k]-s.g.lo[k]-s.g.h)/a)) - 1
		hi := int(math.Ceil((b.Max[k]-s.g.lo[k]+s.g.h)/a)) + 1
		out.lo[k] = max(lo, -2)
		out.hi[k] = min(hi, 2*s.g.n[k]+2)
	}
	return out
}

// occPos is the world position of occupancy sample q.
func (s *Solver) occPos(q0, q1, q2 int) scene.Vec3 {
	a := s.g.h / 2
	return scene.Vec3{s.g.lo[0] + (float64(q0)+0.5)*a, s.g.lo[1] + (float64(q1)+0.5)*a, s.g.lo[2] + (float64(q2)+0.5)*a}
}

// initSolids sizes the fields and samples the static solids: outside the domain, and every obstacle without a
// motion.
func (s *Solver) initSolids() {
	so := &s.sol
	for k := 0; k < 3; k++ {
		so.on[k] = 2*s.g.n[k] + 4
	}
	no := so.on[0] * so.on[1] * so.on[2]
	so.occStatic = grow.Resize(so.occStatic, no)
	dom := s.sc.Domain
	s.pool.For(so.on[2], 1, func(lo, hi int) {
		for z := lo; z < hi; z++ {
			for y := 0; y < so.on[1]; y++ {
				for x := 0; x < so.on[0]; x++ {
					p := s.occPos(x-2, y-2, z-2)
					var o float32
					for k := 0; k < 3; k++ {
						if p[k] < dom.Min[k] || p[k] > dom.Max[k] {
							o = 1
						}
					}
					so.occStatic[x+so.on[0]*(y+so.on[1]*z)] = o
				}
			}
		}
	})
	for i := range s.sc.Obstacles {
		o := &s.sc.Obstacles[i]
		if o.Motion != nil {
			continue
		}
		b := s.occBox(o.Shape.Bounds())
		s.sampleShape(&o.Shape, b, func(idx int, v float32) {
			so.occStatic[idx] = max(so.occStatic[idx], v)
		})
	}
	so.occ = append(so.occ[:0], so.occStatic...)
	nc := s.g.cells()
	so.cell = grow.Resize(so.cell, nc)
	for a := 0; a < 3; a++ {
		d := s.g.dims(a)
		so.face[a] = grow.Resize(so.face[a], d[0]*d[1]*d[2])
		so.flux[a] = grow.Resize(so.flux[a], d[0]*d[1]*d[2])
		clear(so.flux[a])
	}
	so.dirty = so.dirty[:0]
	s.gatherAll(box{hi: [3]int{so.on[0] - 2, so.on[1] - 2, so.on[2] - 2}, lo: [3]int{-2, -2, -2}})
}

// sampleShape evaluates a shape's occupancy over an occupancy box, in parallel over z, handing each sample to put
// (idx the lattice index); put is called for distinct indices from several goroutines.
func (s *Solver) sampleShape(sh *scene.Shape, b box, put func(idx int, v float32)) {
	if b.empty() {
		return
	}
	a := s.g.h / 2
	s.pool.For(b.hi[2]-b.lo[2], 1, func(lo, hi int) {
		for z := b.lo[2] + lo; z < b.lo[2]+hi; z++ {
			for y := b.lo[1]; y < b.hi[1]; y++ {
				for x := b.lo[0]; x < b.hi[0]; x++ {
					d := sh.Distance(s.occPos(x, y, z))
					put(s.sol.occIndex(x, y, z), occupancy(d, a))
				}
			}
		}
	})
}

// sampleBox is the box of samples of kind whose stencils reach into occupancy box b.
func (s *Solver) sampleBox(kind int, b box) box {
	d := s.g.dims(kind)
	var out box
	for a := 0; a < 3; a++ {
		off := 1
		if kind == a {
			off = 0
		}
		// sample i reaches occupancy samples 2i+off−2 .. 2i+off+1
		out.lo[a] = max(0, (b.lo[a]-off)/2-1)
		out.hi[a] = min(d[a], (b.hi[a]+2-off)/2+2)
	}
	return out
}

// gather is the trilinear sum over occupancy samples around sample (i, j, k) of kind, as a fraction of a full one.
func (so *solids) gather(occ []float32, kind int, i, j, k int) float64 {
	var s [3]int
	for a, v := range [3]int{i, j, k} {
		s[a] = 2*v - 2
		if kind != a {
			s[a]++
		}
	}
	var sum float64
	for c := 0; c < 4; c++ {
		for b := 0; b < 4; b++ {
			base := so.occIndex(s[0], s[1]+b, s[2]+c)
			wbc := subW[b] * subW[c]
			o := occ[base : base+4]
			sum += wbc * (subW[0]*float64(o[0]) + subW[1]*float64(o[1]) + subW[2]*float64(o[2]) + subW[3]*float64(o[3]))
		}
	}
	return sum / 8
}

// gatherAll recomputes the cell and face fractions of every sample whose stencil reaches into occupancy box b.
func (s *Solver) gatherAll(b box) {
	so := &s.sol
	for kind := 0; kind <= cellKind; kind++ {
		sb := s.sampleBox(kind, b)
		if sb.empty() {
			continue
		}
		d := s.g.dims(kind)
		dst := so.cell
		if kind < 3 {
			dst = so.face[kind]
		}
		s.pool.For(sb.hi[2]-sb.lo[2], 1, func(lo, hi int) {
			for k := sb.lo[2] + lo; k < sb.lo[2]+hi; k++ {
				for j := sb.lo[1]; j < sb.hi[1]; j++ {
					for i := sb.lo[0]; i < sb.hi[0]; i++ {
						v := min(so.gather(so.occ, kind, i, j, k), 1)
						if kind < 3 && (i == 0 && kind == 0 || j == 0 && kind == 1 || k == 0 && kind == 2 ||
							kind == 0 && i == d[0]-1 || kind == 1 && j == d[1]-1 || kind == 2 && k == d[2]-1) {
							v = 1 // the domain's walls: no flow through a boundary face
						}
						dst[i+d[0]*(j+d[1]*k)] = v
					}
				}
			}
		})
	}
}

// updateSolids samples the moving solids at time t with the bodies' velocities for this step, and recomputes the
// fractions where they are and where they were.
func (s *Solver) updateSolids(t float64) {
	so := &s.sol
	so.moving = so.moving[:0]
	for i := range s.sc.Obstacles {
		o := &s.sc.Obstacles[i]
		if o.Motion == nil {
			continue
		}
		sh := o.ShapeAt(t)
		v := o.Motion.Velocity(t)
		c := sh.Bounds().Center()
		so.moving = append(so.moving, movingSolid{shape: sh, lin: v, cen: c, body: -1})
	}
	if p := s.sh.Tools.Paddle; p != nil {
		sh := scene.Shape{Kind: scene.ShapeSphere, Center: scene.Vec3{float64(p.Center[0]), float64(p.Center[1]), float64(p.Center[2])}, Radius: float64(p.Radius)}
		so.moving = append(so.moving, movingSolid{shape: sh, lin: s.paddleVel, cen: sh.Center, body: -1})
	}
	for b := range s.bodies {
		bd := &s.bodies[b]
		so.moving = append(so.moving, movingSolid{shape: bd.Posed(), lin: bd.vStar, ang: bd.wStar, cen: bd.C, body: b})
	}
	// put back the static occupancy where moving solids were, and clear their flux
	for _, b := range so.dirty {
		s.restoreStatic(b)
	}
	for a := 0; a < 3; a++ {
		for _, b := range so.dirty {
			s.clearBox(so.flux[a], a, s.sampleBox(a, b))
		}
	}
	old := append([]box(nil), so.dirty...)
	so.dirty = so.dirty[:0]
	for m := range so.moving {
		ms := &so.moving[m]
		ms.ob = s.occBox(ms.shape.Bounds())
		if ms.ob.empty() {
			continue
		}
		n := (ms.ob.hi[0] - ms.ob.lo[0]) * (ms.ob.hi[1] - ms.ob.lo[1]) * (ms.ob.hi[2] - ms.ob.lo[2])
		ms.occ = grow.Resize(ms.occ, n)
		b := ms.ob
		w0, w1 := b.hi[0]-b.lo[0], b.hi[1]-b.lo[1]
		a := s.g.h / 2
		sh := &ms.shape
		s.pool.For(b.hi[2]-b.lo[2], 1, func(lo, hi int) {
			for z := b.lo[2] + lo; z < b.lo[2]+hi; z++ {
				for y := b.lo[1]; y < b.hi[1]; y++ {
					for x := b.lo[0]; x < b.hi[0]; x++ {
						ms.occ[(x-b.lo[0])+w0*((y-b.lo[1])+w1*(z-b.lo[2]))] = occupancy(sh.Distance(s.occPos(x, y, z)), a)
					}
				}
			}
		})
		so.dirty = append(so.dirty, b)
	}
	// the union: the largest occupancy of any solid at a sample
	for m := range so.moving {
		ms := &so.moving[m]
		b := ms.ob
		if b.empty() {
			continue
		}
		w0, w1 := b.hi[0]-b.lo[0], b.hi[1]-b.lo[1]
		for z := b.lo[2]; z < b.hi[2]; z++ {
			for y := b.lo[1]; y < b.hi[1]; y++ {
				for x := b.lo[0]; x < b.hi[0]; x++ {
					i := so.occIndex(x, y, z)
					so.occ[i] = max(so.occ[i], ms.occ[(x-b.lo[0])+w0*((y-b.lo[1])+w1*(z-b.lo[2]))])
				}
			}
		}
	}
	for _, b := range old {
		s.gatherAll(b)
	}
	for _, b := range so.dirty {
		s.gatherAll(b)
	}
	// each moving solid's own fraction of the faces it reaches, times its velocity: the solid's flux
	for m := range so.moving {
		s.solidFlux(&so.moving[m])
	}
}

// restoreStatic copies the static occupancy back over box b.
func (s *Solver) restoreStatic(b box) {
	so := &s.sol
	for z := b.lo[2]; z < b.hi[2]; z++ {
		for y := b.lo[1]; y < b.hi[1]; y++ {
			i := so.occIndex(b.lo[0], y, z)
			n := b.hi[0] - b.lo[0]
			copy(so.occ[i:i+n], so.occStatic[i:i+n])
		}
	}
}

// clearBox zeroes field f of kind over sample box b.
func (s *Solver) clearBox(f []float64, kind int, b box) {
	d := s.g.dims(kind)
	for k := b.lo[2]; k < b.hi[2]; k++ {
		for j := b.lo[1]; j < b.hi[1]; j++ {
			i := b.lo[0] + d[0]*(j+d[1]*k)
			clear(f[i : i+b.hi[0]-b.lo[0]])
		}
	}
}

// ownFraction is moving solid m's own fraction at sample (i, j, k) of kind: the gather over its occupancy box.
func (s *Solver) ownFraction(m *movingSolid, kind, i, j, k int) float64 {
	var st [3]int
	for a, v := range [3]int{i, j, k} {
		st[a] = 2*v - 2
		if kind != a {
			st[a]++
		}
	}
	b := m.ob
	w0, w1 := b.hi[0]-b.lo[0], b.hi[1]-b.lo[1]
	var sum float64
	for c := 0; c < 4; c++ {
		z := st[2] + c
		if z < b.lo[2] || z >= b.hi[2] {
			continue
		}
		for bb := 0; bb < 4; bb++ {
			y := st[1] + bb
			if y < b.lo[1] || y >= b.hi[1] {
				continue
			}
			for a := 0; a < 4; a++ {
				x := st[0] + a
				if x < b.lo[0] || x >= b.hi[0] {
					continue
				}
				sum += subW[a] * subW[bb] * subW[c] * float64(m.occ[(x-b.lo[0])+w0*((y-b.lo[1])+w1*(z-b.lo[2]))])
			}
		}
	}
	return min(sum/8, 1)
}

// solidFlux adds a moving solid's flux to the faces it reaches and, for a rigid body, records its fraction of each
// face for the coupling (bodies.go).
func (s *Solver) solidFlux(m *movingSolid) {
	if m.ob.empty() {
		return
	}
	var bd *body
	if m.body >= 0 {
		bd = &s.bodies[m.body]
		bd.faces = bd.faces[:0]
	}
	classic := s.Cfg.Pressure == PressureClassic
	s.boxFaces(m.ob, func(a, f int, ijk [3]int) {
		if ijk[a] == 0 || ijk[a] == s.g.dims(a)[a]-1 {
			return // a wall's face: nothing flows through it
		}
		frac := s.ownFraction(m, a, ijk[0], ijk[1], ijk[2])
		if classic {
			frac = sharp(frac)
		}
		if frac <= 0 {
			return
		}
		x := s.g.samplePos(a, ijk[0], ijk[1], ijk[2])
		u := m.vel(x)
		s.sol.flux[a][f] += frac * u[a]
		if bd != nil {
			bd.faces = append(bd.faces, bodyFace{axis: int8(a), idx: int32(f), frac: frac, x: x})
		}
	})
}

// boxFaces calls fn for every face a moving solid's occupancy box ob reaches (sampleBox), axis by axis in index
// order, with its index and indices.
func (s *Solver) boxFaces(ob box, fn func(a, f int, ijk [3]int)) {
	for a := 0; a < 3; a++ {
		sb := s.sampleBox(a, ob)
		d := s.g.dims(a)
		for k := sb.lo[2]; k < sb.hi[2]; k++ {
			for j := sb.lo[1]; j < sb.hi[1]; j++ {
				for i := sb.lo[0]; i < sb.hi[0]; i++ {
					fn(a, i+d[0]*(j+d[1]*k), [3]int{i, j, k})
				}
			}
		}
	}
}

// sharp is classic FLIP's obstacle: a sample is solid when it is more than half covered.
func sharp(f float64) float64 {
	if f >= 0.5 {
		return 1
	}
	return 0
}
