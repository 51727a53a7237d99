// Package nsearch builds a uniform neighbour grid on the GPU for any buffer of particle positions (Green 2008):
// each particle's cell, atomic counts per cell, a parallel prefix sum into cell starts, a scatter of particle
// indices into their cells' ranges, and a per-cell insertion sort by a key (the particle's id, or its index) so
// the order is a function of the positions and keys alone — the same order sim/grid builds on the CPU.
//
// Compute passes find neighbours through shaders/nsearch.glsl: nsCellCoord gives a position's cell, nsRow the
// range of sorted slots holding a row of three cells, and nsOrder[slot] the particle in a slot. A caller that
// reorders its own arrays by nsOrder (as gpu/pbf does) can then read slot k's particle at index k directly.
package nsearch

import (
	"fmt"
	"math"
	"unsafe"

	gl "github.com/go-gl/gl/v4.3-core/gl"

	"github.com/slosh/slosh/gpu/compute"
	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/shaders"
	"github.com/slosh/slosh/sim/grid"
)

// Binding points of the grid (shader storage, and one uniform block). Consumers include nsearch.glsl, whose
// declarations use these through the Defines below; they stay clear of gpu/pbf's (0–21) and the scan's (30, 31).
const (
	BindParams = 2 // uniform block NSParams

	BindPos   = 24 // vec4 positions being binned (read by the build)
	BindKey   = 25 // uint sort key per particle (read by the build when present)
	BindCell  = 26 // uint cell of each particle (build scratch)
	BindStart = 27 // uint cell starts: the counts, scanned in place; numCells+1 entries
	BindFill  = 28 // uint per-cell fill counters (build scratch)
	BindOrder = 29 // uint particle index in each sorted slot
)

// Defines are the constants a shader including nsearch.glsl needs.
func Defines() []shaders.Define {
	return append(compute.Defines(),
		shaders.Int("NS_BIND_PARAMS", BindParams), shaders.Int("NS_BIND_POS", BindPos), shaders.Int("NS_BIND_KEY", BindKey),
		shaders.Int("NS_BIND_CELL", BindCell), shaders.Int("NS_BIND_START", BindStart), shaders.Int("NS_BIND_FILL", BindFill),
		shaders.Int("NS_BIND_ORDER", BindOrder))
}

// params mirrors the NSParams uniform block of nsearch.glsl (std140).
type params struct {
	Dims     [4]int32
	Origin   [4]float32 // w = 1 / cell size
	N        uint32
	NumCells uint32
	HasKey   uint32
	_        uint32
}

// Programs are the compiled build passes; one set serves every Grid on a context.
type Programs struct {
	cell, scatter, sort *glh.Program
	scan                *compute.ScanPrograms
}

// CompilePrograms compiles the build passes; the context must have compute shaders.
func CompilePrograms() (*Programs, error) {
	p := &Programs{}
	for _, c := range []struct {
		dst  **glh.Program
		file string
	}{{&p.cell, "nsearch_cell.comp"}, {&p.scatter, "nsearch_scatter.comp"}, {&p.sort, "nsearch_sort.comp"}} {
		prog, err := glh.NewProgram(shaders.FS(), Defines(), c.file)
		if err != nil {
			p.Delete()
			return nil, fmt.Errorf("nsearch: %w", err)
		}
		*c.dst = prog
	}
	var err error
	if p.scan, err = compute.NewScanPrograms(); err != nil {
		p.Delete()
		return nil, fmt.Errorf("nsearch: %w", err)
	}
	return p, nil
}

// Delete frees the programs; safe to call twice.
func (p *Programs) Delete() {
	if p == nil {
		return
	}
	p.cell.Delete()
	p.sort.Delete()
	p.scatter.Delete()
	p.scan.Delete()
}

// Grid is the neighbour grid of one particle set; Build refreshes it.
type Grid struct {
	progs *Programs
	block params

	Dims     [3]int32
	Origin   [3]float32
	Cell     float32
	n, cells int

	ubo                        *glh.Buffer
	cellOf, start, fill, order *glh.Buffer
	scan                       *compute.Scan
}

// NewGrid returns an empty grid using compiled programs.
func NewGrid(progs *Programs) (*Grid, error) {
	g := &Grid{progs: progs}
	var err error
	if g.ubo, err = glh.NewBuffer(int(unsafe.Sizeof(params{})), gl.DYNAMIC_DRAW); err != nil {
		return nil, fmt.Errorf("nsearch: %w", err)
	}
	return g, nil
}

// Build bins the first n positions of pos (vec4 each) into cubic cells of side `cell` over [lo, hi] (positions
// outside are clamped into the border cells) and sorts them by (cell, key): key holds one uint per particle, or
// is nil to sort by index. Afterwards Order and Start describe the arrangement; Bind attaches them for consumers.
func (g *Grid) Build(pos, key *glh.Buffer, n int, lo, hi [3]float32, cell float32) error {
	dims, err := grid.Dims(lo, hi, cell)
	if err != nil {
		return fmt.Errorf("nsearch: %w", err)
	}
	if err := g.allocate(n, int(dims[0])*int(dims[1])*int(dims[2])); err != nil {
		return err
	}
	g.Dims, g.Origin, g.Cell = dims, lo, cell
	hasKey := uint32(0)
	if key != nil {
		hasKey = 1
	}
	g.block = params{
		Dims:   [4]int32{dims[0], dims[1], dims[2], 0},
		Origin: [4]float32{lo[0], lo[1], lo[2], 1 / cell},
		N:      uint32(n), NumCells: uint32(g.cells), HasKey: hasKey,
	}
	glh.Upload(g.ubo, 0, []params{g.block})
	if n == 0 {
		return nil
	}
	g.bindBuild(pos, key)
	compute.ClearUint(g.start, 0)
	g.progs.cell.Use()
	compute.Dispatch(n, compute.GroupSize)
	compute.Barrier()
	g.scan.Run(g.start, g.cells+1)
	g.bindBuild(pos, key) // the scan used binding points of its own
	compute.ClearUint(g.fill, 0)
	g.progs.scatter.Use()
	compute.Dispatch(n, compute.GroupSize)
	compute.Barrier()
	g.progs.sort.Use()
	compute.Dispatch(g.cells, compute.GroupSize)
	compute.Barrier()
	return nil
}

func (g *Grid) bindBuild(pos, key *glh.Buffer) {
	g.Bind()
	compute.BindStorage(BindPos, pos)
	if key != nil {
		compute.BindStorage(BindKey, key)
	} else {
		compute.BindStorage(BindKey, g.order) // bound but unread: GL wants every active block backed
	}
	compute.BindStorage(BindCell, g.cellOf)
	compute.BindStorage(BindFill, g.fill)
}

// Bind attaches the parameters, the cell starts and the sorted order for shaders that include nsearch.glsl.
// Before the first Build there is nothing to attach.
func (g *Grid) Bind() {
	if g.start == nil {
		return
	}
	gl.BindBufferBase(gl.UNIFORM_BUFFER, BindParams, g.ubo.ID())
	compute.BindStorage(BindStart, g.start)
	compute.BindStorage(BindOrder, g.order)
}

// Order holds, for each sorted slot, the index of the particle in it.
func (g *Grid) Order() *glh.Buffer { return g.order }

// Start holds the first slot of each cell; entry numCells is n.
func (g *Grid) Start() *glh.Buffer { return g.start }

// NumCells is the number of cells of the last Build.
func (g *Grid) NumCells() int { return g.cells }

// Reserve allocates the per-particle arrays for n particles now, so that builds of up to n particles never
// allocate (a solver whose particle count grows while it runs reserves its budget).
func (g *Grid) Reserve(n int) error {
	if n <= g.n && g.order != nil {
		return nil
	}
	return g.allocate(n, max(g.cells, 1))
}

func (g *Grid) allocate(n, cells int) error {
	for _, c := range []struct {
		what  string
		bytes int64
	}{{"the neighbour grid's particle arrays", int64(n) * 4}, {"the neighbour grid", int64(cells+1) * 4}} {
		if err := compute.CheckStorageSize(c.what, c.bytes); err != nil {
			return fmt.Errorf("nsearch: %w", err)
		}
	}
	if n > g.n || g.order == nil {
		m := max(n, 1)
		g.cellOf.Delete()
		g.order.Delete()
		var err error
		if g.cellOf, err = glh.NewBuffer(4*m, gl.DYNAMIC_COPY); err != nil {
			return fmt.Errorf("nsearch: %d particles: %w", n, err)
		}
		if g.order, err = glh.NewBuffer(4*m, gl.DYNAMIC_COPY); err != nil {
			return fmt.Errorf("nsearch: %d particles: %w", n, err)
		}
		g.n = m
	}
	if cells != g.cells || g.start == nil {
		g.start.Delete()
		g.fill.Delete()
		var err error
		if g.start, err = glh.NewBuffer(4*(cells+1), gl.DYNAMIC_COPY); err != nil {
			return fmt.Errorf("nsearch: a grid of %d cells: %w", cells, err)
		}
		if g.fill, err = glh.NewBuffer(4*cells, gl.DYNAMIC_COPY); err != nil {
			return fmt.Errorf("nsearch: a grid of %d cells: %w", cells, err)
		}
		if g.scan == nil {
			if g.scan, err = compute.NewScan(g.progs.scan, cells+1); err != nil {
				return fmt.Errorf("nsearch: %w", err)
			}
		} else if err := g.scan.Resize(cells + 1); err != nil {
			return fmt.Errorf("nsearch: %w", err)
		}
		g.cells = cells
	}
	return nil
}

// Delete frees the grid's buffers (not the shared programs); safe to call twice.
func (g *Grid) Delete() {
	if g == nil {
		return
	}
	for _, b := range []*glh.Buffer{g.ubo, g.cellOf, g.start, g.fill, g.order} {
		b.Delete()
	}
	if g.scan != nil {
		g.scan.Delete()
		g.scan = nil
	}
	g.n, g.cells = 0, 0
}

// CellFor is the float32 cell index of a point as nsearch.glsl computes it, for tests and CPU mirrors.
func (g *Grid) CellFor(p [3]float32) int32 {
	var c [3]int32
	for k := 0; k < 3; k++ {
		f := math.Floor(float64((p[k] - g.Origin[k]) * (1 / g.Cell)))
		f = math.Max(-1e9, math.Min(1e9, f))
		c[k] = int32(max(0, min(int(g.Dims[k])-1, int(f))))
	}
	return (c[2]*g.Dims[1]+c[1])*g.Dims[0] + c[0]
}
