package compute

import (
	"fmt"
	"unsafe"

	gl "github.com/go-gl/gl/v4.3-core/gl"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/shaders"
)

// ScanBlock is how many elements one workgroup scans (two per thread, Blelloch 1990).
const ScanBlock = 1024

// Binding points the scan shaders use; callers must not expect buffers there to survive a Scan.
const (
	bindScanData = 30
	bindScanSums = 31
)

// ScanPrograms are the compiled scan passes; one set serves any number of Scans on a context.
type ScanPrograms struct {
	block, add *glh.Program
}

// NewScanPrograms compiles the scan passes.
func NewScanPrograms() (*ScanPrograms, error) {
	defs := append(Defines(), shaders.Int("BIND_SCAN_DATA", bindScanData), shaders.Int("BIND_SCAN_SUMS", bindScanSums))
	block, err := glh.NewProgram(shaders.FS(), defs, "scan_block.comp")
	if err != nil {
		return nil, err
	}
	add, err := glh.NewProgram(shaders.FS(), defs, "scan_add.comp")
	if err != nil {
		block.Delete()
		return nil, err
	}
	return &ScanPrograms{block: block, add: add}, nil
}

// Delete frees the programs; safe to call twice.
func (p *ScanPrograms) Delete() {
	if p != nil {
		p.block.Delete()
		p.add.Delete()
	}
}

// Scan computes exclusive prefix sums of uint32 arrays in place: a work-efficient scan per block of ScanBlock
// elements, the block totals scanned recursively, and the scanned totals added back. Integer arithmetic, so the
// result is exact and deterministic.
type Scan struct {
	*ScanPrograms
	levels []*glh.Buffer // block totals of each level
	n      int
}

// NewScan prepares a scan of arrays of up to n elements with compiled programs.
func NewScan(progs *ScanPrograms, n int) (*Scan, error) {
	s := &Scan{ScanPrograms: progs}
	if err := s.Resize(n); err != nil {
		s.Delete()
		return nil, err
	}
	return s, nil
}

// Resize prepares for arrays of up to n elements.
func (s *Scan) Resize(n int) error {
	for _, b := range s.levels {
		b.Delete()
	}
	s.levels = s.levels[:0]
	s.n = n
	for m := n; m > 1; {
		blocks := (m + ScanBlock - 1) / ScanBlock
		b, err := glh.NewBuffer(4*blocks, gl.DYNAMIC_COPY)
		if err != nil {
			return fmt.Errorf("scan of %d elements: %w", n, err)
		}
		s.levels = append(s.levels, b)
		m = blocks
		if blocks == 1 {
			break
		}
	}
	return nil
}

// Run scans the first n uint32 elements of data in place; n must not exceed the size given to NewScan or Resize.
func (s *Scan) Run(data *glh.Buffer, n int) {
	if n > s.n {
		panic(fmt.Sprintf("compute: scan of %d elements, prepared for %d", n, s.n))
	}
	s.run(data, n, 0)
}

func (s *Scan) run(data *glh.Buffer, n, level int) {
	if n <= 0 {
		return
	}
	blocks := (n + ScanBlock - 1) / ScanBlock
	sums := s.levels[level]
	s.block.Use()
	s.block.SetUint("uCount", uint32(n))
	BindStorage(bindScanData, data)
	BindStorage(bindScanSums, sums)
	Dispatch(blocks*ScanBlock/2, ScanBlock/2)
	Barrier()
	if blocks == 1 {
		return
	}
	s.run(sums, blocks, level+1)
	s.add.Use()
	s.add.SetUint("uCount", uint32(n))
	BindStorage(bindScanData, data)
	BindStorage(bindScanSums, sums)
	Dispatch(n, GroupSize)
	Barrier()
}

// Delete frees the buffers (not the shared programs); safe to call twice.
func (s *Scan) Delete() {
	for _, b := range s.levels {
		b.Delete()
	}
	s.levels = nil
}

func glPtr[T any](v *T) unsafe.Pointer { return unsafe.Pointer(v) }
