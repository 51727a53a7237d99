package vdb

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/slosh/slosh/internal/testenv"
	"github.com/slosh/slosh/sim/surface/field"
)

// openVDBPython is a Python interpreter that imports pyopenvdb (Debian's python3-openvdb installs it for the
// system's /usr/bin/python3). Without one the round trips skip, or fail where tests may not skip.
func openVDBPython(t *testing.T) string {
	t.Helper()
	return testenv.Python(t, "pyopenvdb", "python3-openvdb")
}

// readBack is what OpenVDB read from a file.
type readBack struct {
	Library []int
	Grids   []struct {
		Name, Class, Type string
		Voxel             []float64
		Background        float64   // a float grid's
		VecBackground     []float64 `json:"vec_background"` // a vector grid's
		VectorType        string    `json:"vector_type"`
		Active, Leaves    int64
		BBox              [2][3]int
		Values            []struct {
			IJK    [3]int
			Value  float64   // a float grid's
			Vec    []float64 // a vector grid's
			Active bool
		}
	}
}

// openVDB writes grids to a file and reads it back with OpenVDB, sampling the voxels probes.
func openVDB(t *testing.T, py string, probes [][3]int, grids ...*Grid) readBack {
	t.Helper()
	path := filepath.Join(t.TempDir(), "grids.vdb")
	var buf bytes.Buffer
	start := time.Now()
	if err := Write(&buf, grids...); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d bytes written in %v", buf.Len(), time.Since(start))
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if probes == nil {
		probes = [][3]int{}
	}
	pj, _ := json.Marshal(probes)
	pp := filepath.Join(filepath.Dir(path), "probes.json")
	if err := os.WriteFile(pp, pj, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{filepath.Join("testdata", "readvdb.py"), path, "@" + pp}
	for _, g := range grids {
		args = append(args, g.Name)
	}
	cmd := exec.Command(py, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("OpenVDB did not read the file: %v\n%s", err, stderr.String())
	}
	// OpenVDB's warnings come first on stdout; the answer is the last line.
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) > 1 {
		t.Errorf("OpenVDB said more than its answer:\n%s", strings.Join(lines[:len(lines)-1], "\n"))
	}
	var rb readBack
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &rb); err != nil {
		t.Fatalf("reading readvdb.py's answer: %v\n%s", err, out)
	}
	if len(rb.Grids) != len(grids) {
		t.Fatalf("OpenVDB read %d grids, want %d", len(rb.Grids), len(grids))
	}
	return rb
}

// sphere samples φ = |x − c| − r on the blocks that meet the ball of radius r + 4 voxels.
func sphere(c [3]float64, r, h float64) (origins [][3]int, phi []float32) {
	reach := r + 4*h
	lo := func(a int) int { return int(math.Floor((c[a]-reach)/h)) &^ 7 }
	hi := func(a int) int { return int(math.Ceil((c[a] + reach) / h)) }
	for z := lo(2); z <= hi(2); z += 8 {
		for y := lo(1); y <= hi(1); y += 8 {
			for x := lo(0); x <= hi(0); x += 8 {
				// The block's nearest point to the centre.
				var d2 float64
				for a, o := range [3]int{x, y, z} {
					q := math.Max(float64(o)*h, math.Min(c[a], float64(o+7)*h))
					d2 += (q - c[a]) * (q - c[a])
				}
				if math.Sqrt(d2) > reach {
					continue
				}
				origins = append(origins, [3]int{x, y, z})
				for k := range 8 {
					for j := range 8 {
						for i := range 8 {
							p := [3]float64{float64(x+i) * h, float64(y+j) * h, float64(z+k) * h}
							d := math.Sqrt((p[0]-c[0])*(p[0]-c[0]) + (p[1]-c[1])*(p[1]-c[1]) + (p[2]-c[2])*(p[2]-c[2]))
							phi = append(phi, float32(d-r))
						}
					}
				}
			}
		}
	}
	return origins, phi
}

// checkGrid compares what OpenVDB read with the grid written, voxel size and values exactly.
func checkGrid(t *testing.T, i int, rb readBack, g *Grid, probes [][3]int) {
	t.Helper()
	got := rb.Grids[i]
	class, typ := g.class(), "float"
	if g.kind == vector {
		class, typ = "unknown", "vec3s"
		if got.VectorType != "contravariant relative" || len(got.VecBackground) != 3 ||
			got.VecBackground[0] != 0 || got.VecBackground[1] != 0 || got.VecBackground[2] != 0 {
			t.Errorf("grid %q: vector type %q, background %v; want contravariant relative, (0, 0, 0)", g.Name, got.VectorType, got.VecBackground)
		}
	}
	if got.Name != g.Name || got.Class != class || got.Type != typ {
		t.Errorf("grid %d: name %q, class %q, type %q; want %q, %s, %s", i, got.Name, got.Class, got.Type, g.Name, class, typ)
	}
	if len(got.Voxel) != 3 || got.Voxel[0] != g.Voxel || got.Voxel[1] != g.Voxel || got.Voxel[2] != g.Voxel {
		t.Errorf("grid %q: voxel size %v, want %g", g.Name, got.Voxel, g.Voxel)
	}
	if float32(got.Background) != g.Background {
		t.Errorf("grid %q: background %g, want %g", g.Name, got.Background, g.Background)
	}
	if got.Active != g.ActiveVoxels() || got.Leaves != int64(g.Leaves()) {
		t.Errorf("grid %q: %d active voxels in %d leaves, want %d in %d", g.Name, got.Active, got.Leaves, g.ActiveVoxels(), g.Leaves())
	}
	for k, v := range got.Values {
		if g.kind == vector {
			want, on := g.Vector(probes[k])
			if len(v.Vec) != 3 || float32(v.Vec[0]) != want[0] || float32(v.Vec[1]) != want[1] || float32(v.Vec[2]) != want[2] || v.Active != on {
				t.Errorf("grid %q: voxel %v is %v (active %v), want %v (active %v)", g.Name, probes[k], v.Vec, v.Active, want, on)
			}
			continue
		}
		want, on := g.Value(probes[k])
		if float32(v.Value) != want || v.Active != on {
			t.Errorf("grid %q: voxel %v is %g (active %v), want %g (active %v)", g.Name, probes[k], v.Value, v.Active, want, on)
		}
	}
}

func TestSphereReadByOpenVDB(t *testing.T) {
	py := openVDBPython(t)
	const r, h = 1.0, 0.05 // 20 voxels of radius, centred off the origin so the tree spans negative coordinates
	c := [3]float64{0.013, -0.021, 0.37}
	origins, phi := sphere(c, r, h)
	g, err := LevelSet("surface", h, origins, phi, float32(4*h))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d blocks sampled: %d leaves, %d inside tiles, %d active voxels", len(origins), g.Leaves(), len(g.inside), g.ActiveVoxels())
	// Probes: the centre (deep inside: a tile), far outside, and every voxel along the x axis through the centre.
	ci := [3]int{int(math.Round(c[0] / h)), int(math.Round(c[1] / h)), int(math.Round(c[2] / h))}
	probes := [][3]int{ci, {ci[0] + 100, ci[1], ci[2]}}
	for i := -26; i <= 26; i++ {
		probes = append(probes, [3]int{ci[0] + i, ci[1], ci[2]})
	}
	// A lattice of voxels through the whole box, inactive ones too (what the mask compression leaves out).
	for i := ci[0] - 24; i <= ci[0]+24; i++ {
		for j := ci[1] - 24; j <= ci[1]+24; j++ {
			for k := ci[2] - 24; k <= ci[2]+24; k++ {
				if (i+j+k)%3 == 0 {
					probes = append(probes, [3]int{i, j, k})
				}
			}
		}
	}
	lattice := len(probes)
	// And every voxel within half a voxel of the sphere, all of which must be active: a missing leaf shows.
	axis := len(probes)
	for i := ci[0] - 22; i <= ci[0]+22; i++ {
		for j := ci[1] - 22; j <= ci[1]+22; j++ {
			for k := ci[2] - 22; k <= ci[2]+22; k++ {
				x, y, z := float64(i)*h-c[0], float64(j)*h-c[1], float64(k)*h-c[2]
				if math.Abs(math.Sqrt(x*x+y*y+z*z)-r) < h/2 {
					probes = append(probes, [3]int{i, j, k})
				}
			}
		}
	}
	rb := openVDB(t, py, probes, g)
	checkGrid(t, 0, rb, g, probes)
	if v := rb.Grids[0].Values; len(v) == len(probes) {
		if float32(v[0].Value) != -g.Background || v[0].Active {
			t.Errorf("the centre reads %g (active %v), want −background %g: negative inside", v[0].Value, v[0].Active, -g.Background)
		}
		// Active voxels hold the sphere's signed distance itself, negative inside; those at the surface are active.
		for n, p := range v[2:] {
			if n+2 >= 55 && n+2 < lattice {
				continue // the lattice: checkGrid compared it with the grid
			}
			x := float64(p.IJK[0])*h - c[0]
			y, z := float64(p.IJK[1])*h-c[1], float64(p.IJK[2])*h-c[2]
			want := float32(math.Sqrt(x*x+y*y+z*z) - r)
			if (p.Active || n+2 >= axis) && float32(p.Value) != want || n+2 >= axis && !p.Active {
				t.Errorf("voxel %v reads %g (active %v), want the signed distance %g", p.IJK, p.Value, p.Active, want)
			}
		}
		t.Logf("%d voxels at the sphere read back active with their distances, %d of the box as written", len(v)-axis, lattice-55)
		v = v[:55]
		// The zero crossings along x lie within a voxel of the sphere.
		var cross []float64
		for k := 2; k+1 < len(v); k++ {
			a, b := v[k].Value, v[k+1].Value
			if (a < 0) != (b < 0) {
				x := (float64(v[k].IJK[0]) + a/(a-b)) * h
				cross = append(cross, math.Abs(x-c[0]))
			}
		}
		if len(cross) != 2 {
			t.Fatalf("%d zero crossings along x through the centre, want 2", len(cross))
		}
		for _, d := range cross {
			if math.Abs(d-r) > h {
				t.Errorf("a zero crossing %g m from the centre, want %g within a voxel %g", d, r, h)
			}
		}
	}
}

func TestFluidBlockReadByOpenVDB(t *testing.T) {
	py := openVDBPython(t)
	const s = 0.02
	pos := particleBlock(16, 10, 12, s)
	cfg := field.DefaultConfig(s)
	var m field.Mesher
	mesh, _, err := m.Mesh(pos, cfg)
	if err != nil {
		t.Fatal(err)
	}
	origins, phi, outside := sampledBlocks(&m)
	g, err := LevelSet("surface", cfg.Cell, origins, phi, outside)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d particles, %d blocks sampled: %d leaves, %d inside tiles, %d active voxels", len(pos), len(origins), g.Leaves(), len(g.inside), g.ActiveVoxels())
	// Probes: the voxels nearest some of the mesh's vertices, which lie on the zero level set.
	var probes [][3]int
	seen := map[[3]int]bool{}
	for _, p := range mesh.Positions {
		c := [3]int{int(math.Round(float64(p[0]) / cfg.Cell)), int(math.Round(float64(p[1]) / cfg.Cell)), int(math.Round(float64(p[2]) / cfg.Cell))}
		if !seen[c] {
			seen[c] = true
			probes = append(probes, c)
		}
	}
	t.Logf("%d mesh vertices, %d voxels beside them", len(mesh.Positions), len(probes))
	// And the block's centre, inside, and a voxel beyond the band, outside.
	probes = append(probes, [3]int{int(0.25 / cfg.Cell), int(0.14 / cfg.Cell), int(0.31 / cfg.Cell)}, [3]int{-50, 0, 0})
	rb := openVDB(t, py, probes, g)
	checkGrid(t, 0, rb, g, probes)
	vs := rb.Grids[0].Values
	if len(vs) != len(probes) {
		t.Fatalf("%d values read for %d probes", len(vs), len(probes))
	}
	if in, out := vs[len(vs)-2], vs[len(vs)-1]; !(in.Value < 0) || float32(out.Value) != g.Background {
		t.Errorf("the block's centre reads %g, want negative; a voxel outside reads %g, want the background %g", in.Value, out.Value, g.Background)
	}
	for _, v := range vs[:len(vs)-2] {
		if !v.Active || math.Abs(v.Value) > cfg.Cell {
			t.Errorf("voxel %v beside a mesh vertex reads %g (active %v), want an active value within a voxel %g of zero", v.IJK, v.Value, v.Active, cfg.Cell)
		}
	}
}

// A fog volume of the sphere: 0 outside, rising through the band to 1 inside, the inside active (tiles too).
func TestFogReadByOpenVDB(t *testing.T) {
	py := openVDBPython(t)
	const r, h = 0.5, 0.02
	c := [3]float64{0.3, 0.2, 0.1}
	origins, phi := sphere(c, r, h)
	ls, err := LevelSet("surface", h, origins, phi, 1)
	if err != nil {
		t.Fatal(err)
	}
	fog, err := Fog(ls, "density")
	if err != nil {
		t.Fatal(err)
	}
	if len(fog.inside) == 0 {
		t.Fatal("no inside tiles to test")
	}
	ci := [3]int{int(math.Round(c[0] / h)), int(math.Round(c[1] / h)), int(math.Round(c[2] / h))}
	var probes [][3]int
	for i := ci[0] - 28; i <= ci[0]+28; i++ {
		for j := ci[1] - 28; j <= ci[1]+28; j++ {
			for k := ci[2] - 28; k <= ci[2]+28; k += 2 {
				probes = append(probes, [3]int{i, j, k})
			}
		}
	}
	rb := openVDB(t, py, probes, ls, fog)
	checkGrid(t, 0, rb, ls, probes)
	checkGrid(t, 1, rb, fog, probes)
	if v, on := fog.Value(ci); v != 1 || !on {
		t.Errorf("the fog's centre is %g (active %v), want 1, active", v, on)
	}
	if v, on := fog.Value([3]int{ci[0] + 40, ci[1], ci[2]}); v != 0 || on {
		t.Errorf("the fog outside is %g (active %v), want 0, inactive", v, on)
	}
	if _, err := Fog(fog, "again"); err == nil {
		t.Error("a fog volume of a fog volume")
	}
}

func TestTwoGridsReadByOpenVDB(t *testing.T) {
	py := openVDBPython(t)
	o1, p1 := sphere([3]float64{0.5, 0.5, 0.5}, 0.3, 0.02)
	o2, p2 := sphere([3]float64{-2, 0, 0}, 0.2, 0.01)
	a, err := LevelSet("surface", 0.02, o1, p1, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := LevelSet("drop", 0.01, o2, p2, 1)
	if err != nil {
		t.Fatal(err)
	}
	empty, err := LevelSet("empty", 0.01, nil, nil, 1) // a frame with no fluid
	if err != nil {
		t.Fatal(err)
	}
	rb := openVDB(t, py, nil, a, b, empty)
	checkGrid(t, 0, rb, a, nil)
	checkGrid(t, 1, rb, b, nil)
	checkGrid(t, 2, rb, empty, nil)
}

func TestLevelSetRefuses(t *testing.T) {
	one := make([]float32, 512)
	for _, c := range []struct {
		name    string
		grid    string
		voxel   float64
		origins [][3]int
		phi     []float32
		want    string
	}{
		{"no name", "", 1, nil, nil, "name"},
		{"zero voxel", "s", 0, nil, nil, "voxel size"},
		{"NaN voxel", "s", math.NaN(), nil, nil, "voxel size"},
		{"short values", "s", 1, [][3]int{{0, 0, 0}}, one[:511], "values"},
		{"unaligned", "s", 1, [][3]int{{4, 0, 0}}, one, "multiple of 8"},
		{"far", "s", 1, [][3]int{{0, 0, 1 << 31}}, one, "multiple of 8"},
		{"twice", "s", 1, [][3]int{{0, 0, 0}, {0, 0, 0}}, append(one, one...), "twice"},
		{"NaN", "s", 1, [][3]int{{0, 0, 0}}, append([]float32{float32(math.NaN())}, one[1:]...), "NaN"},
		{"too many", "s", 1, make([][3]int, MaxLeaves+1), nil, "MaxLeaves"},
	} {
		_, err := LevelSet(c.grid, c.voxel, c.origins, c.phi, 1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error about %s", c.name, err, c.want)
		}
	}
	g, _ := LevelSet("s", 1, nil, nil, 1)
	if err := Write(&bytes.Buffer{}, g, g); err == nil || !strings.Contains(err.Error(), "two grids") {
		t.Errorf("two grids of one name: %v", err)
	}
}

// The file is a function of its grids: equal grids make equal bytes.
func TestWriteDeterministic(t *testing.T) {
	o, p := sphere([3]float64{0, 0, 0}, 0.2, 0.02)
	var files [2]bytes.Buffer
	for i := range files {
		g, err := LevelSet("surface", 0.02, o, p, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := Write(&files[i], g); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(files[0].Bytes(), files[1].Bytes()) {
		t.Error("two writes of one grid differ")
	}
}

// Without OpenVDB at hand: the header and each grid's descriptor, whose offsets must lead from one grid to the
// next and end at the file's end (OpenVDB seeks by them).
func TestWriteLayout(t *testing.T) {
	o1, p1 := sphere([3]float64{0.5, 0.5, 0.5}, 0.3, 0.02)
	a, err := LevelSet("surface", 0.02, o1, p1, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := LevelSet("empty", 0.02, nil, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, a, b); err != nil {
		t.Fatal(err)
	}
	f := buf.Bytes()
	p := 0
	u32 := func() uint32 { v := binary.LittleEndian.Uint32(f[p:]); p += 4; return v }
	u64 := func() uint64 { v := binary.LittleEndian.Uint64(f[p:]); p += 8; return v }
	str := func() string { n := int(u32()); s := string(f[p : p+n]); p += n; return s }
	if m, v := u64(), u32(); m != 0x56444220 || v != 224 {
		t.Fatalf("magic %#x, format %d", m, v)
	}
	p += 8 + 1 // library version, "has grid offsets"
	if id := string(f[p : p+36]); id[8] != '-' || id[14] != '4' {
		t.Errorf("UUID %q", id)
	}
	p += 36
	for range u32() { // the file's metadata
		str()
		str()
		str()
	}
	if n := u32(); n != 2 {
		t.Fatalf("%d grids", n)
	}
	for _, g := range []*Grid{a, b} {
		name, typ, parent := str(), str(), str()
		grid, blocks, end := u64(), u64(), u64()
		if name != g.Name || typ != "Tree_float_5_4_3" || parent != "" || grid != uint64(p) || !(blocks > grid && end >= blocks) {
			t.Fatalf("descriptor %q %q %q, offsets %d %d %d at byte %d", name, typ, parent, grid, blocks, end, p)
		}
		if c := u32(); c != 2 {
			t.Errorf("grid %q: compression %d, want the active mask's 2", name, c)
		}
		if want := uint64(g.Leaves()) * (64 + 1); end-blocks < want {
			t.Errorf("grid %q: %d bytes of leaf buffers for %d leaves", name, end-blocks, g.Leaves())
		}
		p = int(end)
	}
	if p != len(f) {
		t.Errorf("the last grid ends at byte %d of %d", p, len(f))
	}
}

// A vector grid on a sphere's band, each voxel's vector a function of its coordinates (negative zeros among them),
// read back by OpenVDB as vec3s on the level set's very voxels; and one on an empty level set.
func TestVectorsReadByOpenVDB(t *testing.T) {
	py := openVDBPython(t)
	const r, h = 0.4, 0.02
	c := [3]float64{-0.11, 0.2, 0.05}
	origins, phi := sphere(c, r, h)
	ls, err := LevelSet("surface", h, origins, phi, 1)
	if err != nil {
		t.Fatal(err)
	}
	voxels := ls.ActiveLeafVoxels(nil)
	if int64(len(voxels)) != ls.ActiveVoxels() {
		t.Fatalf("%d active leaf voxels listed, %d active", len(voxels), ls.ActiveVoxels())
	}
	vs := make([][3]float32, len(voxels))
	for n, v := range voxels {
		vs[n] = [3]float32{float32(v[0]) * 0.25, float32(v[1]) - 3.5, float32(-v[2]) * 1e-3}
	}
	vel, err := Vectors(ls, "velocity", vs)
	if err != nil {
		t.Fatal(err)
	}
	empty, err := LevelSet("empty", h, nil, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	none, err := Vectors(empty, "still", nil)
	if err != nil {
		t.Fatal(err)
	}
	// Probes: every active voxel, and a lattice through the box (inactive voxels, zero, among them).
	var probes [][3]int
	for _, v := range voxels {
		probes = append(probes, [3]int{int(v[0]), int(v[1]), int(v[2])})
	}
	ci := [3]int{int(math.Round(c[0] / h)), int(math.Round(c[1] / h)), int(math.Round(c[2] / h))}
	for i := ci[0] - 26; i <= ci[0]+26; i += 2 {
		for j := ci[1] - 26; j <= ci[1]+26; j += 3 {
			for k := ci[2] - 26; k <= ci[2]+26; k += 2 {
				probes = append(probes, [3]int{i, j, k})
			}
		}
	}
	for n, v := range voxels {
		if got, on := vel.Vector(probes[n]); got != vs[n] || !on {
			t.Fatalf("voxel %v holds %v (active %v), want %v, active", v, got, on, vs[n])
		}
	}
	rb := openVDB(t, py, probes, ls, vel, none)
	checkGrid(t, 0, rb, ls, probes)
	checkGrid(t, 1, rb, vel, probes)
	checkGrid(t, 2, rb, none, probes)
	if got := rb.Grids[1]; got.Active != rb.Grids[0].Active || got.Voxel[0] != rb.Grids[0].Voxel[0] {
		t.Errorf("velocity: %d active voxels of %v m, the level set %d of %v m", got.Active, got.Voxel, rb.Grids[0].Active, rb.Grids[0].Voxel)
	}
	if rb.Grids[2].Active != 0 || rb.Grids[2].Type != "vec3s" {
		t.Errorf("the empty vector grid: %d active voxels, type %q", rb.Grids[2].Active, rb.Grids[2].Type)
	}
}

func TestVectorsRefuses(t *testing.T) {
	origins, phi := sphere([3]float64{}, 0.1, 0.02)
	ls, err := LevelSet("surface", 0.02, origins, phi, 1)
	if err != nil {
		t.Fatal(err)
	}
	fog, err := Fog(ls, "density")
	if err != nil {
		t.Fatal(err)
	}
	n := ls.ActiveVoxels()
	good := make([][3]float32, n)
	bad := make([][3]float32, n)
	bad[n/2][1] = float32(math.Inf(-1))
	for _, c := range []struct {
		what string
		g    *Grid
		name string
		vs   [][3]float32
		want string
	}{
		{"of a fog volume", fog, "v", good, "not a level set"},
		{"unnamed", ls, "", good, "name"},
		{"one short", ls, "v", good[1:], "vectors for the"},
		{"infinite", ls, "v", bad, "finite"},
	} {
		if _, err := Vectors(c.g, c.name, c.vs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error about %s", c.what, err, c.want)
		}
	}
	v, err := Vectors(ls, "v", good)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Vectors(v, "again", good); err == nil {
		t.Error("a vector grid of a vector grid")
	}
}

// particleBlock is a block of nx × ny × nz particles spacing s apart, its corner at (0.1, 0.05, 0.2).
func particleBlock(nx, ny, nz int, s float64) [][4]float32 {
	var pos [][4]float32
	for k := range nz {
		for j := range ny {
			for i := range nx {
				pos = append(pos, [4]float32{float32(0.1 + s*float64(i)), float32(0.05 + s*float64(j)), float32(0.2 + s*float64(k))})
			}
		}
	}
	return pos
}

// sampledBlocks collects the band's blocks m sampled last (field.Mesher.Blocks): their origins, their values one
// block after another, and the value outside them.
func sampledBlocks(m *field.Mesher) (origins [][3]int, phi []float32, outside float32) {
	outside = m.Blocks(func(o [3]int, v []float32) {
		origins = append(origins, o)
		phi = append(phi, v...)
	})
	return origins, phi, outside
}

// fluidVelocity samples the level set of particles at pos (field.DefaultConfig(s)) and their velocities vel on its
// band (field.Field.Means), as the app's export does.
func fluidVelocity(t *testing.T, pos, vel [][4]float32, s float64) (ls, v *Grid, voxels [][3]int32, cfg field.Config) {
	t.Helper()
	cfg = field.DefaultConfig(s)
	m := field.NewMesher()
	if _, err := m.Sample(pos, cfg); err != nil {
		t.Fatal(err)
	}
	origins, phi, outside := sampledBlocks(m)
	ls, err := LevelSet("surface", cfg.Cell, origins, phi, outside)
	if err != nil {
		t.Fatal(err)
	}
	voxels = ls.ActiveLeafVoxels(nil)
	vs := make([][3]float32, len(voxels))
	if err := m.Field().Means(vs, vel, voxels); err != nil {
		t.Fatal(err)
	}
	if v, err = Vectors(ls, "velocity", vs); err != nil {
		t.Fatal(err)
	}
	return ls, v, voxels, cfg
}

// A block of particles moving as a rigid body, its velocity read back by OpenVDB at every voxel of the level set's
// band: a translation by (1, 2, 3) m/s as (1, 2, 3) within 1e-5 wherever a particle is within R of the voxel (zero
// where none is, every voxel inside the liquid among the former). A rotation v = ω × (x − c) about the block's
// centre c is linear in x, so the kernel-weighted mean reads ω × (x̄ − c), x̄ the kernel-weighted mean position
// about the voxel (brute force here): that within 1e-5 relative; and ω × (x − c) at the voxel itself within |ω|·R
// anywhere in the band (x̄ lies within R of x) and within 1.25·|ω|·h inside the liquid (h the voxel; measured
// 1.07·|ω|·h: the band reaches only 3h inside, where the particles within R lie mostly on the liquid's side).
func TestVelocityReadByOpenVDB(t *testing.T) {
	py := openVDBPython(t)
	const s = 0.02
	pos := particleBlock(16, 10, 12, s)
	c := [3]float64{0.1 + 7.5*s, 0.05 + 4.5*s, 0.2 + 5.5*s}
	omega := [3]float64{0.5, -1.5, 2.5}
	rot := func(p [3]float64) [3]float64 {
		r := [3]float64{p[0] - c[0], p[1] - c[1], p[2] - c[2]}
		return [3]float64{omega[1]*r[2] - omega[2]*r[1], omega[2]*r[0] - omega[0]*r[2], omega[0]*r[1] - omega[1]*r[0]}
	}
	wn := math.Sqrt(omega[0]*omega[0] + omega[1]*omega[1] + omega[2]*omega[2])
	uniform := make([][4]float32, len(pos))
	spin := make([][4]float32, len(pos))
	for i, p := range pos {
		uniform[i] = [4]float32{1, 2, 3}
		r := rot([3]float64{float64(p[0]), float64(p[1]), float64(p[2])})
		spin[i] = [4]float32{float32(r[0]), float32(r[1]), float32(r[2])}
	}
	for _, tc := range []struct {
		name string
		vel  [][4]float32
	}{{"translation", uniform}, {"rotation", spin}} {
		t.Run(tc.name, func(t *testing.T) {
			ls, v, voxels, cfg := fluidVelocity(t, pos, tc.vel, s)
			probes := make([][3]int, len(voxels))
			for n, p := range voxels {
				probes[n] = [3]int{int(p[0]), int(p[1]), int(p[2])}
			}
			rb := openVDB(t, py, probes, ls, v)
			checkGrid(t, 0, rb, ls, probes)
			checkGrid(t, 1, rb, v, probes)
			got := rb.Grids[1]
			if got.Name != "velocity" || got.Type != "vec3s" || got.Active != rb.Grids[0].Active || got.Active != int64(len(voxels)) ||
				len(got.Voxel) != 3 || got.Voxel[0] != rb.Grids[0].Voxel[0] {
				t.Fatalf("velocity: %q of %s, %d active voxels of %v m; want velocity, vec3s, the level set's %d of %v m",
					got.Name, got.Type, got.Active, got.Voxel, rb.Grids[0].Active, rb.Grids[0].Voxel)
			}
			if len(got.Values) != len(probes) {
				t.Fatalf("%d values for %d probes", len(got.Values), len(probes))
			}
			var near, far, inside int
			var worstIn, worst float64
			for n, p := range got.Values {
				x := [3]float64{cfg.Cell * float64(p.IJK[0]), cfg.Cell * float64(p.IJK[1]), cfg.Cell * float64(p.IJK[2])}
				var k float64
				var kx [3]float64
				for _, q := range pos {
					d0, d1, d2 := float64(q[0])-x[0], float64(q[1])-x[1], float64(q[2])-x[2]
					if s2 := (d0*d0 + d1*d1 + d2*d2) / (cfg.Support * cfg.Support); s2 < 1 {
						w := (1 - s2) * (1 - s2) * (1 - s2)
						k += w
						kx[0] += w * float64(q[0])
						kx[1] += w * float64(q[1])
						kx[2] += w * float64(q[2])
					}
				}
				reach := k > 0
				phi, _ := ls.Value(probes[n])
				if !p.Active || len(p.Vec) != 3 {
					t.Fatalf("voxel %v of the band reads %v, active %v", p.IJK, p.Vec, p.Active)
				}
				if !reach {
					far++
					if p.Vec[0] != 0 || p.Vec[1] != 0 || p.Vec[2] != 0 {
						t.Errorf("voxel %v, beyond R of every particle, reads %v, want zero", p.IJK, p.Vec)
					}
					if phi < 0 {
						t.Errorf("voxel %v inside the liquid (φ %g) is beyond R of every particle", p.IJK, phi)
					}
					continue
				}
				near++
				dist := func(w [3]float64) float64 {
					return math.Sqrt((p.Vec[0]-w[0])*(p.Vec[0]-w[0]) + (p.Vec[1]-w[1])*(p.Vec[1]-w[1]) + (p.Vec[2]-w[2])*(p.Vec[2]-w[2]))
				}
				if tc.name == "translation" {
					d := dist([3]float64{1, 2, 3})
					worst = max(worst, d)
					if d > 1e-5 {
						t.Errorf("voxel %v reads %v, want (1, 2, 3) within 1e-5", p.IJK, p.Vec)
					}
					if phi < 0 {
						inside++
						worstIn = max(worstIn, d)
					}
					continue
				}
				mean := rot([3]float64{kx[0] / k, kx[1] / k, kx[2] / k})
				if d := dist(mean); d > 1e-5*(1+math.Sqrt(mean[0]*mean[0]+mean[1]*mean[1]+mean[2]*mean[2])) {
					t.Errorf("voxel %v reads %v, want ω × (x̄ − c) = %v within 1e-5", p.IJK, p.Vec, mean)
				}
				d := dist(rot(x))
				worst = max(worst, d)
				tol := wn * cfg.Support
				if phi < 0 {
					inside++
					worstIn = max(worstIn, d)
					tol = 1.25 * wn * cfg.Cell
				}
				if d > tol {
					t.Errorf("voxel %v (φ %g) reads %v, want ω × (x − c) = %v within %g", p.IJK, phi, p.Vec, rot(x), tol)
				}
			}
			t.Logf("%d band voxels: %d within R of a particle (%d inside the liquid), %d beyond; from the rigid motion's velocity at the voxel at most %.3g m/s, %.3g inside (|ω|·h = %.3g, |ω|·R = %.3g)",
				len(got.Values), near, inside, far, worst, worstIn, wn*cfg.Cell, wn*cfg.Support)
			if near == 0 || inside == 0 {
				t.Errorf("no band voxels near the particles (%d) or inside the liquid (%d) to check", near, inside)
			}
		})
	}
}

// The metadata byte before a node's values tells its inactive values as OpenVDB's MaskCompress does, the
// background before −background: a fog volume's or a vector grid's inactive zeros are the background (0), not
// −background (−0, which the writer told them as before vector grids came).
func TestValuesMetadata(t *testing.T) {
	for _, c := range []struct {
		what   string
		w      int
		vals   []float32
		active []uint64
		bg     value
		want   uint8
	}{
		{"a fog's zeros", 1, []float32{0, 0, 0.5, 0}, []uint64{4}, value{}, noMaskOrInactiveVals},
		{"a vector grid's zeros", 3, []float32{0, 0, 0, 1, 2, 3}, []uint64{2}, value{}, noMaskOrInactiveVals},
		{"a level set's inside", 1, []float32{-3, -3, 0.5}, []uint64{4}, value{3}, noMaskAndMinusBG},
		{"a level set's outside", 1, []float32{3, 3, 0.5}, []uint64{4}, value{3}, noMaskOrInactiveVals},
		{"both sides", 1, []float32{-3, 3, 0.5}, []uint64{4}, value{3}, maskAndNoInactiveVals},
		{"a fog's inside tile and outside", 1, []float32{1, 0, 0.5}, []uint64{4}, value{}, maskAndOneInactiveVal},
		{"three values", 1, []float32{1, 0, 2, 0.5}, []uint64{8}, value{}, noMaskAndAllVals},
	} {
		var b bytes.Buffer
		e := &enc{w: &b}
		e.values(c.vals, c.w, c.active, nil, c.bg)
		if e.err != nil || b.Len() == 0 || b.Bytes()[0] != c.want {
			t.Errorf("%s: metadata %v, want %d (%v)", c.what, b.Bytes()[:min(1, b.Len())], c.want, e.err)
		}
	}
}
