package nsearch

import (
	"io/fs"
	"math/rand"
	"testing"
	"testing/fstest"

	gl "github.com/go-gl/gl/v4.3-core/gl"

	"github.com/slosh/slosh/gpu/compute"
	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/gpu/gltest"
	"github.com/slosh/slosh/shaders"
	"github.com/slosh/slosh/sim/grid"
)

func TestMain(m *testing.M) { gltest.Main(m) }

func cloud(n int, seed int64) [][4]float32 {
	rng := rand.New(rand.NewSource(seed))
	pos := make([][4]float32, n)
	for i := range pos {
		if i%4 == 0 { // some clusters and a few points outside the grid
			c := float32(i%5) / 5
			pos[i] = [4]float32{c + 0.05*rng.Float32(), 0.5 + 0.05*rng.Float32(), c + 0.05*rng.Float32()}
		} else {
			pos[i] = [4]float32{1.2*rng.Float32() - 0.1, 1.2*rng.Float32() - 0.1, 1.2*rng.Float32() - 0.1}
		}
	}
	return pos
}

func setup(t *testing.T) (*Programs, *Grid) {
	ctx := gltest.Acquire(t)
	gltest.RequireCompute(t, ctx)
	progs, err := CompilePrograms()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(progs.Delete)
	g, err := NewGrid(progs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Delete)
	return progs, g
}

func upload[T any](t *testing.T, data []T, size int) *glh.Buffer {
	b, err := glh.NewBuffer(len(data)*size, gl.DYNAMIC_COPY)
	if err != nil {
		t.Fatal(err)
	}
	glh.Upload(b, 0, data)
	t.Cleanup(b.Delete)
	return b
}

// The build sorts by (cell, key) — with ids as keys and by index without — exactly as sim/grid does.
func TestBuildMatchesCPUGrid(t *testing.T) {
	_, g := setup(t)
	lo, hi := [3]float32{0, 0, 0}, [3]float32{1, 1, 1}
	const cell = 0.06
	pos := cloud(5000, 1)
	ids := rand.New(rand.NewSource(2)).Perm(len(pos))
	keys := make([]uint32, len(pos))
	for i, v := range ids {
		keys[i] = uint32(v)
	}
	posBuf := upload(t, pos, 16)
	keyBuf := upload(t, keys, 4)
	cpu, err := grid.New(lo, hi, cell)
	if err != nil {
		t.Fatal(err)
	}
	identity := make([]uint32, len(pos))
	for i := range identity {
		identity[i] = uint32(i)
	}
	for _, tc := range []struct {
		name string
		key  *glh.Buffer
		ids  []uint32
	}{{"by key", keyBuf, keys}, {"by index", nil, identity}} {
		if err := g.Build(posBuf, tc.key, len(pos), lo, hi, cell); err != nil {
			t.Fatal(err)
		}
		order := make([]uint32, len(pos))
		start := make([]uint32, g.NumCells()+1)
		glh.Read(g.Order(), 0, order)
		glh.Read(g.Start(), 0, start)
		cpu.Build(pos, tc.ids)
		for k := range order {
			if order[k] != uint32(cpu.Order[k]) {
				t.Fatalf("%s: slot %d holds particle %d on the GPU, %d on the CPU", tc.name, k, order[k], cpu.Order[k])
			}
		}
		for c := 0; c <= g.NumCells(); c++ {
			if start[c] != uint32(cpu.Start[c]) {
				t.Fatalf("%s: cell %d starts at %d on the GPU, %d on the CPU", tc.name, c, start[c], cpu.Start[c])
			}
		}
	}
	if err := glh.CheckError("nsearch build"); err != nil {
		t.Fatal(err)
	}
}

// A consumer shader counting neighbours through nsRow finds what brute force finds.
func TestConsumerFindsNeighbours(t *testing.T) {
	_, g := setup(t)
	lo, hi := [3]float32{0, 0, 0}, [3]float32{1, 1, 1}
	const r = 0.07
	pos := cloud(4000, 3)
	posBuf := upload(t, pos, 16)
	if err := g.Build(posBuf, nil, len(pos), lo, hi, r); err != nil {
		t.Fatal(err)
	}
	overlay := fstest.MapFS{"count.comp": {Data: []byte(`#version 430 core
layout(local_size_x = GROUP_SIZE) in;
#include "nsearch.glsl"
layout(std430, binding = 3) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = 4) writeonly buffer Count { uint count[]; };
uniform float uR2;
void main() {
	uint i = globalIndex();
	if (i >= nsN) return;
	vec3 p = pos[i].xyz;
	ivec3 c = nsCellCoord(p);
	uint n = 0u;
	for (int dz = -1; dz <= 1; dz++) {
		for (int dy = -1; dy <= 1; dy++) {
			uint b, e;
			if (!nsRow(c, dy, dz, b, e)) continue;
			for (uint k = b; k < e; k++) {
				uint j = nsOrder[k];
				vec3 d = p - pos[j].xyz;
				if (j != i && dot(d, d) < uR2) n++;
			}
		}
	}
	count[i] = n;
}
`)}}
	for _, f := range []string{"compute_common.glsl", "nsearch.glsl", "nsearch_params.glsl"} {
		data, err := fs.ReadFile(shaders.FS(), f)
		if err != nil {
			t.Fatal(err)
		}
		overlay[f] = &fstest.MapFile{Data: data}
	}
	prog, err := glh.NewProgram(overlay, Defines(), "count.comp")
	if err != nil {
		t.Fatal(err)
	}
	defer prog.Delete()
	countBuf := upload(t, make([]uint32, len(pos)), 4)
	prog.Use()
	prog.SetFloat("uR2", r*r)
	g.Bind()
	compute.BindStorage(3, posBuf)
	compute.BindStorage(4, countBuf)
	compute.Dispatch(len(pos), compute.GroupSize)
	gl.MemoryBarrier(gl.BUFFER_UPDATE_BARRIER_BIT)
	got := make([]uint32, len(pos))
	glh.Read(countBuf, 0, got)
	// brute force, with the clamping of points outside the grid applied as the GPU sees them (they are binned into
	// border cells, so their true neighbours beyond the border may be missed only if farther than a cell: r = cell)
	brute := grid.Brute(pos, r)
	for i := range pos {
		if int(got[i]) != len(brute[i]) {
			t.Fatalf("particle %d at %v: %d neighbours on the GPU, %d by brute force", i, pos[i], got[i], len(brute[i]))
		}
	}
}
