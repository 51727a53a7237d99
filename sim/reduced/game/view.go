package game

import (
	"math"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/par"
	"github.com/slosh/slosh/sim/reduced"
)

// What the game shows: tracers and dye carried by the combined field u_r + u_p, the bodies, the goal zone.

// dyeScale is the dye's cells per background grid cell along each axis.
const dyeScale = 2

// dyeFade is how many seconds the dye takes to return most of the way to its stripes, so that a long game
// does not mix it into one colour.
const dyeFade = 30

// dyeField is RGB dye on cells dyeScale times finer than the background grid, moved semi-Lagrangian.
type dyeField struct {
	nx, ny  int
	dx, dy  float64
	c, next [][3]float32
	base    [][3]float32 // the stripes it fades back to
	w, h    float64
	scratch []float64 // paint's distances
}

var (
	waterDeep  = [3]float32{0.05, 0.22, 0.42}
	waterLight = [3]float32{0.12, 0.42, 0.62}
)

func (d *dyeField) reset(g reduced.Grid) {
	d.nx, d.ny = dyeScale*g.NX, dyeScale*g.NY
	d.w, d.h = g.DX*float64(g.NX), g.DY*float64(g.NY)
	d.dx, d.dy = d.w/float64(d.nx), d.h/float64(d.ny)
	n := d.nx * d.ny
	d.c, d.next, d.base = make([][3]float32, n), make([][3]float32, n), make([][3]float32, n)
	// diagonal stripes, so that any motion shows
	for j := 0; j < d.ny; j++ {
		for i := 0; i < d.nx; i++ {
			x, y := (float64(i)+0.5)*d.dx, (float64(j)+0.5)*d.dy
			s := 0.5 + 0.5*math.Sin(2*math.Pi*(x+y)/(0.12*math.Max(d.w, d.h)))
			var c [3]float32
			for k := range c {
				c[k] = waterDeep[k] + float32(s*s)*(waterLight[k]-waterDeep[k])
			}
			d.base[j*d.nx+i], d.c[j*d.nx+i] = c, c
		}
	}
}

// sample is the dye at (x, y), bilinear between cell centres, clamped at the walls.
func (d *dyeField) sample(x, y float64) [3]float32 {
	fx := min(max(x/d.dx-0.5, 0), float64(d.nx-1))
	fy := min(max(y/d.dy-0.5, 0), float64(d.ny-1))
	i, j := min(int(fx), d.nx-2), min(int(fy), d.ny-2)
	tx, ty := float32(fx-float64(i)), float32(fy-float64(j))
	a, b := d.c[j*d.nx+i], d.c[j*d.nx+i+1]
	c, e := d.c[(j+1)*d.nx+i], d.c[(j+1)*d.nx+i+1]
	var out [3]float32
	for k := range out {
		out[k] = (1-ty)*((1-tx)*a[k]+tx*b[k]) + ty*((1-tx)*c[k]+tx*e[k])
	}
	return out
}

// advect moves the dye one step of dt through the combined field uc: each cell takes the dye from where its flow
// came from (traced back with the midpoint rule), and fades a little towards the stripes.
func (d *dyeField) advect(g reduced.Grid, uc reduced.Field, dt float64, pool par.Pool) {
	fade := float32(1 - math.Exp(-dt/dyeFade))
	vel := func(x, y float64) (float64, float64) { return g.Sample(uc, x, y) }
	pool.For(d.ny, 8, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			for i := 0; i < d.nx; i++ {
				x, y := (float64(i)+0.5)*d.dx, (float64(j)+0.5)*d.dy
				u, v := vel(x, y)
				u, v = vel(x-0.5*dt*u, y-0.5*dt*v)
				c := d.sample(x-dt*u, y-dt*v)
				b := d.base[j*d.nx+i]
				for k := range c {
					c[k] += fade * (b[k] - c[k])
				}
				d.next[j*d.nx+i] = c
			}
		}
	})
	d.c, d.next = d.next, d.c
}

// paint adds colour col along a polyline, fading out over radius: each cell by its distance to the nearest
// segment, measured only against the segments it lies within radius of (every cell of the polyline's box against
// every segment took minutes for 16 long currents on a fine grid, issue 24).
func (d *dyeField) paint(pts [][2]float32, radius float64, col [3]float32) {
	lo, hi := [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
	for _, p := range pts {
		for k := range 2 {
			lo[k], hi[k] = min(lo[k], float64(p[k])-radius), max(hi[k], float64(p[k])+radius)
		}
	}
	i0, i1 := max(int(lo[0]/d.dx), 0), min(int(hi[0]/d.dx)+1, d.nx)
	j0, j1 := max(int(lo[1]/d.dy), 0), min(int(hi[1]/d.dy)+1, d.ny)
	if i0 >= i1 || j0 >= j1 {
		return
	}
	w := i1 - i0
	best := d.scratch[:0]
	for range w * (j1 - j0) {
		best = append(best, math.Inf(1))
	}
	d.scratch = best
	for k := range pts {
		ax, ay := float64(pts[k][0]), float64(pts[k][1])
		bx, by := ax, ay
		if k+1 < len(pts) {
			bx, by = float64(pts[k+1][0]), float64(pts[k+1][1])
		}
		// the cells whose centres lie within radius of the segment, and a cell more
		si0 := max(int(math.Floor((min(ax, bx)-radius)/d.dx-0.5))-1, i0)
		si1 := min(int(math.Ceil((max(ax, bx)+radius)/d.dx-0.5))+2, i1)
		sj0 := max(int(math.Floor((min(ay, by)-radius)/d.dy-0.5))-1, j0)
		sj1 := min(int(math.Ceil((max(ay, by)+radius)/d.dy-0.5))+2, j1)
		ex, ey := bx-ax, by-ay
		l2 := ex*ex + ey*ey
		for j := sj0; j < sj1; j++ {
			y := (float64(j) + 0.5) * d.dy
			row := best[(j-j0)*w : (j-j0+1)*w]
			for i := si0; i < si1; i++ {
				x := (float64(i) + 0.5) * d.dx
				t := 0.0
				if l2 > 0 {
					t = min(max(((x-ax)*ex+(y-ay)*ey)/l2, 0), 1)
				}
				row[i-i0] = min(row[i-i0], math.Hypot(x-ax-t*ex, y-ay-t*ey))
			}
		}
	}
	for j := j0; j < j1; j++ {
		for i := i0; i < i1; i++ {
			dist := best[(j-j0)*w+i-i0]
			if dist >= radius {
				continue
			}
			a := float32(1 - dist/radius)
			c := &d.c[j*d.nx+i]
			for k := range c {
				c[k] += a * (col[k] - c[k])
			}
		}
	}
}

// seedTracers scatters n tracers over the rectangle outside the bodies.
func (s *Solver) seedTracers(n int) {
	s.tracers = s.tracers[:0]
	for len(s.tracers) < n {
		s.tracers = append(s.tracers, s.freePoint())
	}
}

// freePoint is a random point of the rectangle outside every body (or anywhere, if a few tries find none).
func (s *Solver) freePoint() [2]float32 {
	W, H := s.world.size[0], s.world.size[1]
	var p [2]float64
	for try := 0; try < 8; try++ {
		p = [2]float64{W * s.rng.Float64(), H * s.rng.Float64()}
		if s.world.at(p) < 0 {
			break
		}
	}
	return [2]float32{float32(p[0]), float32(p[1])}
}

// advectTracers moves the tracers with the midpoint rule through u_r + u_p, in parallel; one that ends inside a
// body or outside the rectangle starts again elsewhere, in order afterwards, so that the random draws do not
// depend on the workers.
func (s *Solver) advectTracers(dt float64) {
	W, H := s.world.size[0], s.world.size[1]
	s.lost = grow(s.lost, len(s.tracers))
	s.pool.For(len(s.tracers), 256, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			p := s.tracers[k]
			x, y := float64(p[0]), float64(p[1])
			u, v := s.velocity(x, y)
			u, v = s.velocity(x+0.5*dt*u, y+0.5*dt*v)
			x, y = x+dt*u, y+dt*v
			s.lost[k] = !(x > 0 && x < W && y > 0 && y < H) || (len(s.world.bodies) > 0 && s.world.at([2]float64{x, y}) >= 0)
			s.tracers[k] = [2]float32{float32(x), float32(y)}
		}
	})
	for k, gone := range s.lost {
		if gone {
			s.tracers[k] = s.freePoint()
		}
	}
}

// Colours of the game's things, linear RGBA.
var (
	crateFill    = [4]float32{0.85, 0.55, 0.2, 1}
	crateHome    = [4]float32{0.35, 0.8, 0.3, 1}
	bodyFill     = [4]float32{0.75, 0.75, 0.72, 1}
	staticFill   = [4]float32{0.35, 0.3, 0.27, 1}
	edgeColour   = [4]float32{0.05, 0.05, 0.05, 1}
	zoneFill     = [4]float32{0.3, 0.9, 0.3, 0.18}
	zoneLine     = [4]float32{0.3, 0.9, 0.3, 0.9}
	tracerColour = [4]float32{0.9, 0.95, 1, 0.55}
)

// FlatFrame implements sim.Flat.
func (s *Solver) FlatFrame(dst *sim.FlatFrame) {
	g := s.grid
	dst.Size = [2]float32{float32(s.world.size[0]), float32(s.world.size[1])}
	dst.Shapes, dst.Lines, dst.Tracers = dst.Shapes[:0], dst.Lines[:0], dst.Tracers[:0]
	switch s.cfg.View {
	case ViewDye:
		d := &s.dye
		dst.ImageW, dst.ImageH = d.nx, d.ny
		dst.Image = grow(dst.Image, d.nx*d.ny)
		for k, c := range d.c {
			dst.Image[k] = [4]float32{c[0], c[1], c[2], 1}
		}
	case ViewSpeed:
		dst.ImageW, dst.ImageH = g.NX, g.NY
		dst.Image = grow(dst.Image, g.NX*g.NY)
		top := max(s.speed, 1e-6)
		for j := 0; j < g.NY; j++ {
			for i := 0; i < g.NX; i++ {
				u, v := s.velocity((float64(i)+0.5)*g.DX, (float64(j)+0.5)*g.DY)
				dst.Image[j*g.NX+i] = speedColour(math.Hypot(u, v) / top)
			}
		}
	default:
		dst.ImageW, dst.ImageH, dst.Image = 0, 0, dst.Image[:0]
	}
	if gl := s.lvl.goal; gl != nil {
		z := gl.Zone
		dst.Shapes = append(dst.Shapes, sim.FlatShape{Points: [][2]float32{
			{float32(z.Min[0]), float32(z.Min[1])}, {float32(z.Max[0]), float32(z.Min[1])},
			{float32(z.Max[0]), float32(z.Max[1])}, {float32(z.Min[0]), float32(z.Max[1])}}, Fill: zoneFill, Line: zoneLine, Body: -1})
	}
	for i, b := range s.world.bodies {
		fill := bodyFill
		switch {
		case b.spec.Static:
			fill = staticFill
		case b.delivered:
			fill = crateHome
		case b.spec.Crate:
			fill = crateFill
		}
		k := len(dst.Shapes)
		if k < cap(dst.Shapes) {
			dst.Shapes = dst.Shapes[:k+1] // reuse the outline's slice
		} else {
			dst.Shapes = append(dst.Shapes, sim.FlatShape{})
		}
		dst.Shapes[k] = sim.FlatShape{Points: s.world.worldOutline(i, dst.Shapes[k].Points), Fill: fill, Line: edgeColour, Body: i,
			Grabbable: grabbable(b), Removable: !b.spec.Static && !b.spec.Crate}
	}
	for _, p := range s.tracers {
		dst.Tracers = append(dst.Tracers, sim.FlatPoint{Pos: p, Color: tracerColour, Size: 2})
	}
	dst.Status = s.lvl.status(s.time)
	dst.Message = s.lvl.message()
}

// speedColour maps a speed in [0, 1] of the fastest to a dark-blue-to-yellow ramp.
func speedColour(f float64) [4]float32 {
	f = min(max(f, 0), 1)
	return [4]float32{float32(0.05 + 0.9*f*f), float32(0.1 + 0.75*f), float32(0.35 + 0.3*f - 0.5*f*f), 1}
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// Frame implements sim.Solver: the tracers as particles in the plane z = 0, and the bodies' poses, for export
// and the headless commands.
func (s *Solver) Frame(dst *sim.Frame) {
	n := len(s.tracers)
	dst.Resize(n)
	for k, p := range s.tracers {
		u, v := s.velocity(float64(p[0]), float64(p[1]))
		dst.Pos[k] = [4]float32{p[0], p[1], 0, 0}
		dst.Vel[k] = [4]float32{float32(u), float32(v), 0, 0}
		dst.Rho[k] = 1
		dst.ID[k] = uint32(k)
	}
	dst.Body, dst.Material, dst.Palette = nil, nil, nil
	dst.Bodies = dst.Bodies[:0]
	for i := range s.world.bodies {
		p, a, _, _ := s.world.pose(i)
		c := s.world.bodies[i].spec.Center
		dst.Bodies = append(dst.Bodies, sim.BodyState{
			Center: [3]float32{float32(p[0]), float32(p[1]), 0},
			Rot:    [4]float32{0, 0, float32(math.Sin(a / 2)), float32(math.Cos(a / 2))},
			Origin: [3]float32{float32(c[0]), float32(c[1]), 0},
		})
	}
	dst.Radius = float32(0.25 * min(s.grid.DX, s.grid.DY))
	dst.Time, dst.Steps = s.time, s.steps
}
