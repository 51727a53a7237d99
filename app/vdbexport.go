package app

import (
	"io"
	"path/filepath"
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
	mesher   *frameMesher
	origins  [][3]int  // the band's blocks, reused between frames
	phi      []float32 // and their values
	last     *vdb.Grid
	took     time.Duration
}

func newVDBExport(s field.Settings, density bool) *vdbExport {
	return &vdbExport{settings: s, density: density, mesher: newFrameMesher()}
}

// grids are the names of the grids each file holds, in order.
func (e *vdbExport) grids() []string {
	if e.density {
		return []string{"surface", "density"}
	}
	return []string{"surface"}
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
	path := export.SurfaceName(dir, n, export.VDB)
	if err := atomicfile.Write(path, func(w io.Writer) error { return vdb.Write(w, grids...) }); err != nil {
		return "", err
	}
	e.last, e.took = g, time.Since(start)
	return filepath.Base(path), nil
}
