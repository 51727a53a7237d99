package app

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"time"

	"github.com/slosh/slosh/internal/atomicfile"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/export"
	"github.com/slosh/slosh/sim/export/vdb"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/surface/field"
)

// vdbExport writes each frame's fluid surface as an OpenVDB level set (sim/export/vdb) named "surface": the same
// implicit surface the meshes are made from (the mesh.* settings), its voxels the sampling grid's (mesh.cell ×
// the particle spacing). Each granular material (sand, dough) and each solid gets a level set of its own, named as
// its surface is in OBJ files (grainObjects), from its own particles out of the liquid phase (setGrains).
type vdbExport struct {
	settings field.Settings
	density  bool // each file also holds a fog volume named density (vdb.Fog: 1 inside, falling to 0 across the band)
	// each file also holds a vector grid named velocity on the level set's band: at each voxel the kernel-weighted
	// mean of the liquid particles' velocities within the surface's kernel radius (field.Field.Means), zero where
	// none is
	velocity bool
	mesher   *frameMesher
	grains   []grainObject // the granular materials, each a level set named grainGrid
	origins  [][3]int      // the band's blocks, reused between frames
	phi      []float32     // and their values
	vel      [][4]float32
	voxels   [][3]int32   // the band's voxels
	vs       [][3]float32 // and their velocities
	last     *vdb.Grid
	took     time.Duration
}

func newVDBExport(s field.Settings, density, velocity bool) *vdbExport {
	return &vdbExport{settings: s, density: density, velocity: velocity, mesher: newFrameMesher()}
}

// setGrains makes each file hold a level set of each material of mats (export.SceneMaterials) that is not a liquid:
// sand and dough, as the meshes have them, and Solenthaler's solids too (the meshes leave those as particles, since
// they melt; a level set of a material's particles in the solid phase shows the part still solid, and what melted
// joins the liquid's surface).
func (e *vdbExport) setGrains(mats []export.Material) {
	e.grains = surfaceObjects(mats, func(k scene.Kind) bool { return k.OwnSurface() || k.Solid() })
}

// grids are the names of the grids each file holds, in order.
func (e *vdbExport) grids() []string {
	names := []string{"surface"}
	if e.density {
		names = append(names, "density")
	}
	if e.velocity {
		names = append(names, "velocity")
	}
	for _, g := range e.grains {
		names = append(names, e.grainGrid(g))
	}
	return names
}

// grainGrid is the name of g's level set: its object name, with its material number added when that is the name
// of one of the liquid's grids.
func (e *vdbExport) grainGrid(g grainObject) string {
	switch g.object {
	case "surface", "density", "velocity":
		return fmt.Sprintf("%s_%d", g.object, g.number)
	}
	return g.object
}

// levelSet is the level set named name of the surface the mesher sampled last, with cfg.
func (e *vdbExport) levelSet(name string, cfg field.Config) (*vdb.Grid, error) {
	e.origins, e.phi = e.origins[:0], e.phi[:0]
	outside := e.mesher.mesher.Blocks(func(o [3]int, v []float32) {
		e.origins = append(e.origins, o)
		e.phi = append(e.phi, v...)
	})
	if len(e.origins) == 0 {
		outside = float32(cfg.Support - cfg.Radius) // nothing there: an empty grid, still a file of the sequence
	}
	return vdb.LevelSet(name, cfg.Cell, e.origins, e.phi, outside)
}

// write samples frame n (f) and writes it to dir atomically (never through a link), returning the file's name.
func (e *vdbExport) write(dir string, n int, f *sim.Frame) (string, error) {
	start := time.Now()
	cfg, err := e.mesher.sample(f, e.settings)
	if err != nil {
		return "", err
	}
	g, err := e.levelSet("surface", cfg)
	if err != nil {
		return "", err
	}
	grids := []*vdb.Grid{g}
	if e.density {
		fog, err := vdb.Fog(g, "density")
		if err != nil {
			return "", err
		}
		grids = append(grids, fog)
	}
	if e.velocity {
		v, err := e.velocities(f, g)
		if err != nil {
			return "", err
		}
		grids = append(grids, v)
	}
	for _, gr := range e.grains {
		cfg, err := e.mesher.sampleGrains(f, gr.number, e.settings)
		if err != nil {
			return "", fmt.Errorf("%s: %w", gr.object, err)
		}
		ls, err := e.levelSet(e.grainGrid(gr), cfg)
		if err != nil {
			return "", err
		}
		grids = append(grids, ls)
	}
	path := export.SurfaceName(dir, n, export.VDB)
	if err := atomicfile.Write(path, func(w io.Writer) error { return vdb.Write(w, grids...) }); err != nil {
		return "", err
	}
	e.last, e.took = g, time.Since(start)
	return filepath.Base(path), nil
}

// velocities is the grid named velocity on level set g's band, from the velocities of f's liquid particles, the
// ones its surface was sampled from (fluidOnly's).
func (e *vdbExport) velocities(f *sim.Frame, g *vdb.Grid) (*vdb.Grid, error) {
	vel, err := liquidVelocities(f, &e.vel)
	if err != nil {
		return nil, fmt.Errorf("vdb velocity: %w", err)
	}
	e.voxels = g.ActiveLeafVoxels(e.voxels[:0])
	e.vs = slices.Grow(e.vs[:0], len(e.voxels))[:len(e.voxels)]
	if err := e.mesher.mesher.Field().Means(e.vs, vel, e.voxels); err != nil {
		return nil, fmt.Errorf("vdb velocity: %w", err)
	}
	return vdb.Vectors(g, "velocity", e.vs)
}
