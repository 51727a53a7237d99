package game

import (
	"fmt"
	"math"

	"github.com/slosh/slosh/sim/reduced"
	"github.com/slosh/slosh/sim/scene"
)

// Work budgets (issue 24).
//
// Before the first frame a scene's currents are painted on the background grid and the dye, made divergence free,
// and each joins the basis as a mode of its own, whose structure coefficients take 2n advections and 2n² inner
// products over the grid (n modes; drawnCoefficients); a saved state draws its sitting's currents again the same
// way. Sixteen 1024-point currents on a 512 grid took 336 s here: the painting (then 200 s in the dye alone, since
// fixed) and the coefficients (90 s). The work is estimated from the description (points, widths, the grid and
// the modes) before any of it is done, and a scene or a state over the budget is refused at once, saying what to
// lower; a stroke the player draws (or a replay holds) that would carry the sitting's currents over the budget is
// projected onto the basis instead of joining it, as once the basis holds maxDrawn of them, and one too costly
// even to paint is refused.

// workBudget is the most estimated work (ns, on the 2-core machine the figures below were measured on) that a
// scene's currents, or the currents a sitting keeps in its basis (what loading it does again), or one stroke may
// take. A variable so that tests can lower it.
var workBudget = 10e9

// The estimates' figures, ns: measured adding 1024-point currents of 5 cm to 2 m width on 128 and 512 grids.
const (
	nsPaint   = 20 // a grid face or a dye cell a stroke's painting visits (13–32 measured)
	nsBasis   = 2  // per modes² × faces: joining the basis, the new mode's structure coefficients most of it (1.3–2.2)
	nsProject = 1  // per faces × (NX + NY): the cosine transforms of the divergence-free projection (0.3–0.7)
	nsModes   = 2  // per modes × faces: projecting the current onto the basis, for Excite
)

// strokeWork estimates drawing a stroke of the given points and width on grid g with modes modes: painting it,
// making it divergence free and projecting it; and, when it joins the basis (joins), the new mode.
func strokeWork(g reduced.Grid, pts [][2]float32, width float64, modes int, joins bool) (paint, basis float64) {
	r := width / 2
	nx, ny := float64(g.NX), float64(g.NY)
	var visits float64
	for k := range pts {
		a, b := pts[k], pts[min(k+1, len(pts)-1)]
		w := math.Abs(float64(a[0])-float64(b[0])) + 2*r
		h := math.Abs(float64(a[1])-float64(b[1])) + 2*r
		// the faces of u and v within the segment's box, and the dye's cells, dyeScale finer
		visits += 2 * min(w/g.DX+2, nx+1) * min(h/g.DY+2, ny+1)
		visits += min(dyeScale*w/g.DX+3, dyeScale*nx) * min(dyeScale*h/g.DY+3, dyeScale*ny)
	}
	faces := float64(g.NU() + g.NV())
	m := float64(modes)
	paint = nsPaint*visits + 2*nsProject*faces*(nx+ny) + nsModes*m*faces
	if joins {
		basis = nsBasis * (m + 1) * (m + 1) * faces
	}
	return paint, basis
}

// strokeWork is strokeWork on the solver's grid.
func (s *Solver) strokeWork(pts [][2]float32, width float64, modes int, joins bool) (paint, basis float64) {
	return strokeWork(s.grid, pts, width, modes, joins)
}

// sceneWork estimates adding sc's currents with the solver's parameters (each one joining the basis, as a scene's
// currents do): the total and the first current that carries it over the budget (−1 if none).
func (s *Solver) sceneWork(sc *scene.Scene) (work float64, over int, err error) {
	f := sc.Flat
	nx, ny := gridCells(f.Size, int(s.cfg.Grid))
	g, err := reduced.NewGrid(f.Size[0], f.Size[1], nx, ny)
	if err != nil {
		return 0, -1, err
	}
	over = -1
	modes := int(s.cfg.Modes)
	for i := range f.Currents {
		c := &f.Currents[i]
		pts := make([][2]float32, len(c.Points))
		for k, p := range c.Points {
			pts[k] = [2]float32{float32(p[0]), float32(p[1])}
		}
		paint, basis := strokeWork(g, pts, c.Width, modes+min(i, maxDrawn), i < maxDrawn)
		work += paint + basis
		if work > workBudget && over < 0 {
			over = i
		}
	}
	return work, over, nil
}

// checkSceneWork refuses a scene whose currents are estimated over the budget, before any of the work.
func (s *Solver) checkSceneWork(sc *scene.Scene) error {
	work, over, err := s.sceneWork(sc)
	if err != nil || over < 0 {
		return nil // a grid the model refuses says so itself
	}
	nx, ny := gridCells(sc.Flat.Size, int(s.cfg.Grid))
	return fmt.Errorf("scene %q: flat.currents[%d]: adding the currents up to this one to the basis would take about %.3g s "+
		"(all %d: %.3g s) on a %d × %d grid with %d modes, over the %.3g s a scene may ask: lower reduced.grid (now %d) or "+
		"reduced.modes (now %d), or use fewer, shorter or narrower currents",
		sc.Name, over, s.workUpTo(sc, over)/1e9, len(sc.Flat.Currents), work/1e9, nx, ny, s.cfg.Modes, workBudget/1e9, s.cfg.Grid, s.cfg.Modes)
}

// workUpTo is sceneWork's total for the currents up to and including the last.
func (s *Solver) workUpTo(sc *scene.Scene, last int) float64 {
	cut := *sc
	f := *sc.Flat
	f.Currents = f.Currents[:last+1]
	cut.Flat = &f
	w, _, _ := s.sceneWork(&cut)
	return w
}
