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
	"github.com/slosh/slosh/sim/surface/field"
)

// vdbExport writes each frame's fluid surface as an OpenVDB level set (sim/export/vdb) named "surface": the same
// implicit surface the meshes are made from (the mesh.* settings), its voxels the sampling grid's (mesh.cell ×
// the particle spacing).
type vdbExport struct {
	settings field.Settings
	density  bool // each file also holds a fog volume named density (vdb.Fog: 1 inside, falling to 0 across the band)
	// each file also holds a vector grid named velocity on the level set's band: at each voxel the kernel-weighted
	// mean of the liquid particles' velocities within the surface's kernel radius (field.Field.Means), zero where
	// none is
	velocity bool
	mesher   *frameMesher
	origins  [][3]int  // the band's blocks, reused between frames
	phi      []float32 // and their values
	vel      [][4]float32
	voxels   [][3]int32   // the band's voxels
	vs       [][3]float32 // and their velocities
	last     *vdb.Grid
	took     time.Duration
}

func newVDBExport(s field.Settings, density, velocity bool) *vdbExport {
	return &vdbExport{settings: s, density: density, velocity: velocity, mesher: newFrameMesher()}
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
	return names
}

// write samples frame n (f) and writes it to dir atomically (never through a link), returning the file's name.
func (e *vdbExport) write(dir string, n int, f *sim.Frame) (string, error) {
	start := time.Now()
	cfg, err := e.mesher.sample(f, e.settings)
	if err != nil {
		return "", err
	}
	e.origins, e.phi = e.origins[:0], e.phi[:0]
	outside := e.mesher.mesher.Blocks(func(o [3]int, v []float32) {
		e.origins = append(e.origins, o)
		e.phi = append(e.phi, v...)
	})
	if len(e.origins) == 0 {
		outside = float32(cfg.Support - cfg.Radius) // no fluid: an empty grid, still a file of the sequence
	}
	g, err := vdb.LevelSet("surface", cfg.Cell, e.origins, e.phi, outside)
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
	if len(f.Vel) < f.N {
		return nil, fmt.Errorf("vdb velocity: the frame has %d velocities for %d particles", len(f.Vel), f.N)
	}
	vel := f.Vel[:f.N]
	if f.Body != nil || f.Phase != nil {
		e.vel = e.vel[:0]
		for i, v := range vel {
			if f.Liquid(i) {
				e.vel = append(e.vel, v)
			}
		}
		vel = e.vel
	}
	e.voxels = g.ActiveLeafVoxels(e.voxels[:0])
	e.vs = slices.Grow(e.vs[:0], len(e.voxels))[:len(e.voxels)]
	if err := e.mesher.mesher.Field().Means(e.vs, vel, e.voxels); err != nil {
		return nil, fmt.Errorf("vdb velocity: %w", err)
	}
	return vdb.Vectors(g, "velocity", e.vs)
}
