package panel

import (
	"fmt"
	"math"

	"github.com/slosh/slosh/sim/par"
)

// Grid is a staggered (MAC) grid of NX×NY cells over [0, Width]×[0, Height]: u on the vertical faces,
// (NX+1)×NY values at (i·dx, (j+½)·dy) with index i + j·(NX+1); v on the horizontal faces, NX×(NY+1) values at
// ((i+½)·dx, j·dy) with index i + j·NX; dx = Width/NX, dy = Height/NY.
type Grid struct {
	NX, NY        int
	Width, Height float64
}

// MaxGridCells bounds a feedback grid.
const MaxGridCells = 1 << 22

func (g Grid) validate() error {
	if g.NX < 1 || g.NY < 1 || g.NX > MaxGridCells/g.NY {
		return fmt.Errorf("panel: grid %d×%d must have at least one cell and at most %d", g.NX, g.NY, MaxGridCells)
	}
	if !finite(g.Width) || g.Width <= 0 || !finite(g.Height) || g.Height <= 0 {
		return fmt.Errorf("panel: grid size %g×%g must be positive and finite", g.Width, g.Height)
	}
	return nil
}

// USize and VSize are the lengths of the u and v arrays.
func (g Grid) USize() int { return (g.NX + 1) * g.NY }
func (g Grid) VSize() int { return g.NX * (g.NY + 1) }

// Feedback puts the panels' velocity on a staggered grid (§5.3.4), naively or through a quadtree.
type Feedback struct {
	grid   Grid
	dx, dy float64
	pool   par.Pool
	nodes  []qnode
	tasks  []int32   // subtrees handled in parallel
	anc    [][]int32 // each task's ancestors, root first
	lref   float64   // panel length of the error table
	binW   float64   // width of a distance bin
	errTab [][]float64
	acc    []Vec // per node: the constant velocity added to all its faces
	counts []QuadStats
}

// qnode is a quadtree node: cells [i0, i1)×[j0, j1), a leaf when both sides are at most leafCells.
type qnode struct {
	i0, i1, j0, j1 int32
	child          [4]int32 // -1: none
	depth          int32
	c              Vec     // centre of its rectangle
	reach          float64 // half-diagonal of its rectangle
}

// leafCells is the largest side of a leaf in cells (4×4 in the paper).
const leafCells = 4

// QuadStats counts the quadtree feedback's work: evaluations at node centres and at faces.
type QuadStats struct {
	NodeEvals, FaceEvals int
}

// NewFeedback builds the quadtree over g and precomputes its error metric (eq. 5.19) for unit-strength panels of
// length panelLength (the shapes' spacing).
func NewFeedback(g Grid, panelLength float64, pool par.Pool) (*Feedback, error) {
	if err := g.validate(); err != nil {
		return nil, err
	}
	if !finite(panelLength) || panelLength <= 0 {
		return nil, fmt.Errorf("panel: feedback panel length %g must be positive and finite", panelLength)
	}
	f := &Feedback{grid: g, dx: g.Width / float64(g.NX), dy: g.Height / float64(g.NY), pool: pool, lref: panelLength}
	f.build(0, int32(g.NX), 0, int32(g.NY), 0)
	// tasks: the nodes two levels down (16 subtrees on a square grid), or leaves above that
	var walk func(n int32, path []int32)
	walk = func(n int32, path []int32) {
		nd := &f.nodes[n]
		if nd.depth == 2 || nd.child[0] < 0 {
			f.tasks = append(f.tasks, n)
			f.anc = append(f.anc, append([]int32(nil), path...))
			return
		}
		for _, c := range nd.child {
			if c >= 0 {
				walk(c, append(path, n))
			}
		}
	}
	walk(0, nil)
	f.acc = make([]Vec, len(f.nodes))
	f.counts = make([]QuadStats, len(f.tasks))
	f.errorTable()
	return f, nil
}

// build appends the node over cells [i0,i1)×[j0,j1) and its children (halves of each side longer than a leaf).
func (f *Feedback) build(i0, i1, j0, j1, depth int32) int32 {
	id := int32(len(f.nodes))
	x0, x1 := float64(i0)*f.dx, float64(i1)*f.dx
	y0, y1 := float64(j0)*f.dy, float64(j1)*f.dy
	f.nodes = append(f.nodes, qnode{
		i0: i0, i1: i1, j0: j0, j1: j1, child: [4]int32{-1, -1, -1, -1}, depth: depth,
		c: Vec{(x0 + x1) / 2, (y0 + y1) / 2}, reach: math.Hypot(x1-x0, y1-y0) / 2,
	})
	if i1-i0 <= leafCells && j1-j0 <= leafCells {
		return id
	}
	is := [][2]int32{{i0, i1}}
	if i1-i0 > leafCells {
		m := (i0 + i1 + 1) / 2
		is = [][2]int32{{i0, m}, {m, i1}}
	}
	js := [][2]int32{{j0, j1}}
	if j1-j0 > leafCells {
		m := (j0 + j1 + 1) / 2
		js = [][2]int32{{j0, m}, {m, j1}}
	}
	c := 0
	for _, jr := range js {
		for _, ir := range is {
			ch := f.build(ir[0], ir[1], jr[0], jr[1], depth+1)
			f.nodes[id].child[c] = ch
			c++
		}
	}
	return id
}

// errorTable precomputes eq. 5.19 for each depth: for a unit-strength panel of length lref at distance d from a
// node's centre (in 16 directions, 4 orientations), the largest difference between its velocity at the centre
// and at a 5×5 lattice over the node's rectangle (corners included), for the largest node of that depth; bins of
// half a cell, made non-increasing with distance so a lookup at the bin below a distance is an upper bound.
// Distances where the panel may touch the node are infinite (always descend).
func (f *Feedback) errorTable() {
	var depths int32
	hw := map[int32][2]float64{}
	for _, n := range f.nodes {
		depths = max(depths, n.depth+1)
		w := float64(n.i1-n.i0) * f.dx
		h := float64(n.j1-n.j0) * f.dy
		o := hw[n.depth]
		hw[n.depth] = [2]float64{max(o[0], w), max(o[1], h)}
	}
	f.binW = min(f.dx, f.dy) / 2
	bins := int(math.Hypot(f.grid.Width, f.grid.Height)/f.binW) + 2
	f.errTab = make([][]float64, depths)
	e2 := sq(DefaultEpsilon * f.lref)
	f.pool.For(int(depths), 1, func(lo, hi int) {
		for d := lo; d < hi; d++ {
			w, h := hw[int32(d)][0], hw[int32(d)][1]
			reach := math.Hypot(w, h)/2 + f.lref
			tab := make([]float64, bins)
			for b := range tab {
				dist := float64(b) * f.binW
				if dist <= reach {
					tab[b] = math.Inf(1)
					continue
				}
				var worst float64
				for dir := range 16 {
					sd, cd := math.Sincos(2 * math.Pi * float64(dir) / 16)
					mid := Vec{dist * cd, dist * sd}
					for o := range 4 {
						so, co := math.Sincos(math.Pi * float64(o) / 4)
						t := Vec{co, so}
						a := mid.sub(t.scale(f.lref / 2))
						cx, cy := unitVelocity(Vec{}, a, t, f.lref, e2)
						for sy := range 5 {
							for sx := range 5 {
								p := Vec{w * (float64(sx)/4 - 0.5), h * (float64(sy)/4 - 0.5)}
								ux, uy := unitVelocity(p, a, t, f.lref, e2)
								worst = max(worst, math.Hypot(ux-cx, uy-cy)*inv2Pi)
							}
						}
					}
				}
				tab[b] = worst
			}
			for b := bins - 2; b >= 0; b-- {
				tab[b] = max(tab[b], tab[b+1])
			}
			f.errTab[d] = tab
		}
	})
}

// Grid is the feedback's grid.
func (f *Feedback) Grid() Grid { return f.grid }

func (f *Feedback) check(u, v []float64, s *System) error {
	g := f.grid
	if len(u) != g.USize() || len(v) != g.VSize() {
		return fmt.Errorf("panel: feedback: u and v have %d and %d values, the %d×%d grid %d and %d",
			len(u), len(v), g.NX, g.NY, g.USize(), g.VSize())
	}
	o := s.opt
	if math.Abs(o.Width-g.Width) > 1e-9*g.Width || math.Abs(o.Height-g.Height) > 1e-9*g.Height {
		return fmt.Errorf("panel: feedback: grid %g×%g but panel domain %g×%g", g.Width, g.Height, o.Width, o.Height)
	}
	return nil
}

// Naive sets u and v to the velocity of all panels (mirrored ones included) at every face, at the strengths of
// s's last Solve: eq. 5.11 evaluated per face and summed (eq. 5.18). Faces in parallel.
func (f *Feedback) Naive(u, v []float64, s *System) error {
	if err := f.check(u, v, s); err != nil {
		return err
	}
	g := f.grid
	nu := len(u)
	f.pool.For(nu+len(v), 64, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			if k < nu {
				i, j := k%(g.NX+1), k/(g.NX+1)
				u[k] = s.velocityAt(Vec{float64(i) * f.dx, (float64(j) + 0.5) * f.dy}).X
			} else {
				i, j := (k-nu)%g.NX, (k-nu)/g.NX
				v[k-nu] = s.velocityAt(Vec{(float64(i) + 0.5) * f.dx, float64(j) * f.dy}).Y
			}
		}
	})
	return nil
}

// Quadtree sets u and v to the panels' velocity like Naive, but descends the quadtree per panel: where the error
// metric (eq. 5.19) times the panel's strength and relative length is below threshold (a velocity), the panel is
// evaluated once at the node's centre for all the node's faces; otherwise it descends, down to exact evaluation
// at the faces of a 4×4-cell leaf. Threshold 0 gives exactly Naive's values. Subtrees are done in parallel, each
// face's sum in a fixed order, so the result does not depend on the number of workers.
func (f *Feedback) Quadtree(u, v []float64, s *System, threshold float64) (QuadStats, error) {
	if err := f.check(u, v, s); err != nil {
		return QuadStats{}, err
	}
	if !finite(threshold) || threshold < 0 {
		return QuadStats{}, fmt.Errorf("panel: feedback: threshold %g must be finite and non-negative", threshold)
	}
	clear(u)
	clear(v)
	clear(f.acc)
	clear(f.counts)
	f.pool.For(len(f.tasks), 1, func(lo, hi int) {
		for t := lo; t < hi; t++ {
			f.task(t, u, v, s, threshold)
		}
	})
	var st QuadStats
	for _, c := range f.counts {
		st.NodeEvals += c.NodeEvals
		st.FaceEvals += c.FaceEvals
	}
	return st, nil
}

// task does subtree t for every panel (real, then mirrored), then pushes the node constants down to the faces.
func (f *Feedback) task(t int, u, v []float64, s *System, threshold float64) {
	root := f.tasks[t]
	st := &f.counts[t]
	do := func(e *emitters, k int) {
		g := e.g[k]
		if g == 0 {
			return
		}
		w := math.Abs(g) * 2 * math.Pi * e.l[k] / f.lref // |γ| × relative length
		mid := e.a[k].add(e.t[k].scale(e.l[k] / 2))
		for _, a := range f.anc[t] {
			if f.accept(a, mid, w, threshold) {
				f.addConst(root, a, e, k, st)
				return
			}
		}
		f.descend(root, mid, w, e, k, u, v, threshold, st)
	}
	for k := range s.real.g {
		do(&s.real, k)
	}
	for k := range s.img.g {
		do(&s.img, k)
	}
	f.push(root, Vec{}, u, v)
}

func (f *Feedback) accept(n int32, mid Vec, w, threshold float64) bool {
	nd := &f.nodes[n]
	b := int(mid.sub(nd.c).norm() / f.binW)
	tab := f.errTab[nd.depth]
	if b >= len(tab) {
		b = len(tab) - 1
	}
	return w*tab[b] < threshold
}

// addConst adds panel k's velocity at node at's centre to node to's constant.
func (f *Feedback) addConst(to, at int32, e *emitters, k int, st *QuadStats) {
	ux, uy := unitVelocity(f.nodes[at].c, e.a[k], e.t[k], e.l[k], e.e2[k])
	f.acc[to].X += e.g[k] * ux
	f.acc[to].Y += e.g[k] * uy
	st.NodeEvals++
}

func (f *Feedback) descend(n int32, mid Vec, w float64, e *emitters, k int, u, v []float64, threshold float64, st *QuadStats) {
	if f.accept(n, mid, w, threshold) {
		f.addConst(n, n, e, k, st)
		return
	}
	nd := &f.nodes[n]
	if nd.child[0] < 0 {
		f.leafExact(nd, e, k, u, v, st)
		return
	}
	for _, c := range nd.child {
		if c >= 0 {
			f.descend(c, mid, w, e, k, u, v, threshold, st)
		}
	}
}

// faceRange is the faces a node owns along one axis: its cells, plus the last face where it reaches the edge.
func faceRange(i0, i1 int32, n int) (int, int) {
	if int(i1) == n {
		return int(i0), n + 1
	}
	return int(i0), int(i1)
}

func (f *Feedback) leafExact(nd *qnode, e *emitters, k int, u, v []float64, st *QuadStats) {
	g, gk := f.grid, e.g[k]
	fi0, fi1 := faceRange(nd.i0, nd.i1, g.NX)
	for j := nd.j0; j < nd.j1; j++ {
		y := (float64(j) + 0.5) * f.dy
		for i := fi0; i < fi1; i++ {
			ux, _ := unitVelocity(Vec{float64(i) * f.dx, y}, e.a[k], e.t[k], e.l[k], e.e2[k])
			u[i+int(j)*(g.NX+1)] += gk * ux
			st.FaceEvals++
		}
	}
	fj0, fj1 := faceRange(nd.j0, nd.j1, g.NY)
	for j := fj0; j < fj1; j++ {
		y := float64(j) * f.dy
		for i := nd.i0; i < nd.i1; i++ {
			_, uy := unitVelocity(Vec{(float64(i) + 0.5) * f.dx, y}, e.a[k], e.t[k], e.l[k], e.e2[k])
			v[int(i)+j*g.NX] += gk * uy
			st.FaceEvals++
		}
	}
}

// push adds the constants of n and its ancestors within the task (sum) to the faces of n's leaves.
func (f *Feedback) push(n int32, sum Vec, u, v []float64) {
	nd := &f.nodes[n]
	sum = sum.add(f.acc[n])
	if nd.child[0] >= 0 {
		for _, c := range nd.child {
			if c >= 0 {
				f.push(c, sum, u, v)
			}
		}
		return
	}
	g := f.grid
	fi0, fi1 := faceRange(nd.i0, nd.i1, g.NX)
	for j := int(nd.j0); j < int(nd.j1); j++ {
		for i := fi0; i < fi1; i++ {
			u[i+j*(g.NX+1)] += sum.X
		}
	}
	fj0, fj1 := faceRange(nd.j0, nd.j1, g.NY)
	for j := fj0; j < fj1; j++ {
		for i := int(nd.i0); i < int(nd.i1); i++ {
			v[i+j*g.NX] += sum.Y
		}
	}
}
