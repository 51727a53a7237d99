package app

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/export"
	"github.com/slosh/slosh/sim/mesh"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/surface/field"
	"github.com/slosh/slosh/sim/surface/upsample"
)

// sandAndWater is a frame of a block of liquid (material 0) beside a block of sand (material 1, granular), nx×n×n
// particles each at spacing h, the sand's block starting gap spacings beyond the water's in x. Ids run backwards,
// as they do once a solver has re-sorted its particles.
func sandAndWater(nx, n, gap int, h float32) *sim.Frame {
	f := &sim.Frame{Radius: h / 2, Palette: [][3]float32{{0.1, 0.4, 0.85}, {0.76, 0.6, 0.38}}}
	f.Resize(2 * nx * n * n)
	f.Material, f.Phase = make([]uint8, f.N), make([]scene.Phase, f.N)
	k := 0
	for block := range 2 {
		for i := range nx {
			for j := range n {
				for l := range n {
					x := float32(i+block*(nx+gap))*h + h
					f.Pos[k] = [4]float32{x, float32(j)*h + h, float32(l)*h + h, 0}
					f.Rho[k] = 1
					f.ID[k] = uint32(f.N - 1 - k)
					if block == 1 {
						f.Material[k], f.Phase[k] = 1, scene.PhaseGranular
					}
					k++
				}
			}
		}
	}
	return f
}

// An upsampled frame draws the grains as they are, each with its own id, so a grain keeps its tint (the renderer
// hashes the id) when the surface is upsampled.
func TestUpsampledGrainsKeepTheirIDs(t *testing.T) {
	f := sandAndWater(4, 4, 2, 0.02)
	var v frameViews
	var out viewOut
	if err := v.upsample(upsample.DefaultParams(), f, &out); err != nil {
		t.Fatal(err)
	}
	up := &out.Up
	grains := 0
	for k := range up.N {
		if k < len(up.Phase) && up.Phase[k] == scene.PhaseGranular {
			grains++
		}
	}
	if grains != f.N/2 || up.N < f.N {
		t.Fatalf("upsampled to %d points with %d grains, want the %d grains among at least %d points", up.N, grains, f.N/2, f.N)
	}
	// the grains come last, in the frame's order
	for g := range grains {
		k, i := up.N-grains+g, f.N/2+g
		if up.Phase[k] != scene.PhaseGranular || up.Pos[k] != f.Pos[i] || up.ID[k] != f.ID[i] {
			t.Fatalf("point %d: phase %v at %v id %d, want grain %d's: at %v id %d", k, up.Phase[k], up.Pos[k], up.ID[k], i, f.Pos[i], f.ID[i])
		}
	}
}

// An upsampled frame carries the grains' and solids' temperatures (render.color temperature shows them), and none
// for the liquid's points (NaN: drawn as water), which are no particle's; a frame without temperatures gives none.
func TestUpsampledSolidsKeepTheirTemperatures(t *testing.T) {
	f := sandAndWater(4, 4, 2, 0.02)
	var v frameViews
	var out viewOut
	if err := v.upsample(upsample.DefaultParams(), f, &out); err != nil {
		t.Fatal(err)
	}
	if out.Up.Temperature != nil {
		t.Errorf("a frame without temperatures upsampled to %d temperatures", len(out.Up.Temperature))
	}
	f.Temperature = make([]float32, f.N)
	for i := range f.Temperature {
		f.Temperature[i] = 10 + float32(i)
	}
	if err := v.upsample(upsample.DefaultParams(), f, &out); err != nil {
		t.Fatal(err)
	}
	up := &out.Up
	if len(up.Temperature) != up.N {
		t.Fatalf("%d temperatures for %d points", len(up.Temperature), up.N)
	}
	grains := f.N / 2 // the second half, last in up in the frame's order
	for k := range up.N {
		got := up.Temperature[k]
		if g := k - (up.N - grains); g >= 0 {
			if i := f.N/2 + g; got != f.Temperature[i] {
				t.Fatalf("point %d (grain %d) is at %g °C, want %g", k, i, got, f.Temperature[i])
			}
		} else if !math.IsNaN(float64(got)) {
			t.Fatalf("liquid point %d is at %g °C, want none (NaN)", k, got)
		}
	}
}

// sandScene is a scene of water (the default material) and sand (material 1).
func sandFrameScene() *scene.Scene {
	return &scene.Scene{Name: "sand", Domain: scene.Box{Max: scene.Vec3{1, 1, 1}}, Materials: []scene.Material{
		{Name: "sand", Kind: scene.KindGranular, Density: 1600, Color: [3]float64{0.76, 0.6, 0.38}, FrictionAngle: 33},
	}}
}

// The particle export names its materials (issue 27): the sidecar lists each material number's name, kind and
// phase, and each frame's header names them beside its material and phase columns.
func TestExportNamesMaterials(t *testing.T) {
	dir := t.TempDir()
	cw, err := newCacheWriter(dir, "flip", sandFrameScene(), param.NewSet())
	if err != nil {
		t.Fatal(err)
	}
	if err := cw.write(sandAndWater(3, 3, 1, 0.02)); err != nil {
		t.Fatal(err)
	}
	if err := cw.finish(); err != nil {
		t.Fatal(err)
	}
	car := readSidecar(t, dir)
	if len(car.Materials) != 2 || car.Materials[1].Name != "sand" || car.Materials[1].Kind != "granular" ||
		car.Materials[1].Phase != int(scene.PhaseGranular) || car.Materials[0].Name != "water" || car.Materials[0].Phase != 0 {
		t.Errorf("the sidecar's materials: %+v", car.Materials)
	}
	fh, err := os.Open(filepath.Join(dir, car.Files[0]))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	_, cols, comments, err := export.ReadPLY(fh)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(comments, `material 1 "sand" granular, phase 1`) || !slices.Contains(comments, `material 0 "water" liquid, phase 0`) ||
		!slices.Contains(export.Names(cols), "material") {
		t.Errorf("the frame's header: comments %q, columns %v", comments, export.Names(cols))
	}
}

// objObjects splits OBJ text into its objects ("o" lines), each parsed on its own by sim/mesh's reader (the scene
// loader's, which shares nothing with the writer), in file order.
func objObjects(t *testing.T, data []byte) (names []string, meshes []*mesh.Mesh) {
	t.Helper()
	var texts []strings.Builder
	base, count := 0, 0 // the current object's first vertex (from 0), the vertices so far
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		switch {
		case len(fields) == 2 && fields[0] == "o":
			names = append(names, fields[1])
			texts = append(texts, strings.Builder{})
			base = count
		case len(fields) > 0 && fields[0] == "v" && len(texts) > 0:
			count++
			texts[len(texts)-1].WriteString(line + "\n")
		case len(fields) > 0 && fields[0] == "f" && len(texts) > 0:
			out := []string{"f"}
			for _, v := range fields[1:] {
				i, err := strconv.Atoi(strings.Split(v, "/")[0])
				if err != nil {
					t.Fatalf("face %q: %v", line, err)
				}
				out = append(out, strconv.Itoa(i-base))
			}
			texts[len(texts)-1].WriteString(strings.Join(out, " ") + "\n")
		}
	}
	for i := range texts {
		m, err := mesh.Parse([]byte(texts[i].String()), names[i])
		if err != nil {
			t.Fatal(err)
		}
		meshes = append(meshes, m)
	}
	return names, meshes
}

// plyBounds is the box of a binary PLY mesh's vertices (export.WriteMeshPLY's layout) and its face count.
func plyBounds(t *testing.T, data []byte) (lo, hi [3]float64, faces int) {
	t.Helper()
	head, body, ok := bytes.Cut(data, []byte("end_header\n"))
	if !ok {
		t.Fatal("no PLY header")
	}
	var verts int
	for _, line := range strings.Split(string(head), "\n") {
		fmt.Sscanf(line, "element vertex %d", &verts)
		fmt.Sscanf(line, "element face %d", &faces)
	}
	if len(body) != 24*verts+13*faces {
		t.Fatalf("%d bytes for %d vertices and %d faces", len(body), verts, faces)
	}
	lo, hi = [3]float64{9, 9, 9}, [3]float64{-9, -9, -9}
	for v := range verts {
		for k := range 3 {
			x := float64(math.Float32frombits(binary.LittleEndian.Uint32(body[24*v+4*k:])))
			lo[k], hi[k] = min(lo[k], x), max(hi[k], x)
		}
	}
	return lo, hi, faces
}

// `slosh export --mesh` meshes sand apart from the water (issue 27): a frame of a block of water beside a block of
// sand gives, in OBJ, a surface file of two objects, "liquid" and "sand", each closed and around its own particles
// only; in PLY, the sand's surface in a file of its own; and the sidecar says where each material's surface is.
func TestExportMeshesSand(t *testing.T) {
	const n, h = 6, 0.02
	f := sandAndWater(n, n, 3, h)
	// the blocks' particles' boxes in x (y and z are the same for both): water from h, sand from (n+3+1)·h
	water, sand := [2]float64{h, n * h}, [2]float64{(n + 4) * h, (2*n + 3) * h}
	for _, format := range export.MeshFormats {
		dir := t.TempDir()
		set := param.NewSet()
		s := field.DefaultSettings()
		s.Register(set)
		cw, err := newCacheWriter(dir, "flip", sandFrameScene(), param.NewSet())
		if err != nil {
			t.Fatal(err)
		}
		cw.setMeshes(newMeshExport(format, s, set), nil)
		if err := cw.write(f); err != nil {
			t.Fatal(err)
		}
		if err := cw.finish(); err != nil {
			t.Fatal(err)
		}
		car := readSidecar(t, dir)
		if len(car.Meshes) != 1 || len(car.Materials) != 2 {
			t.Fatalf("%s: sidecar meshes %v, materials %+v", format, car.Meshes, car.Materials)
		}
		surface, err := os.ReadFile(filepath.Join(dir, car.Meshes[0]))
		if err != nil {
			t.Fatal(err)
		}
		// near: the mesh's box in x is its particles' box widened by at most the mesher's reach (two spacings)
		near := func(what string, lo, hi float64, want [2]float64) {
			if lo > want[0] || hi < want[1] || lo < want[0]-2*h || hi > want[1]+2*h {
				t.Errorf("%s: %s's mesh spans x %.3f–%.3f, its particles %.3f–%.3f", format, what, lo, hi, want[0], want[1])
			}
		}
		if format == export.MeshPLY {
			if m := car.Materials[1]; len(m.Meshes) != 1 || m.MeshObject != "" || car.Materials[0].Meshes != nil {
				t.Fatalf("ply: the sidecar's materials %+v", car.Materials)
			}
			grains, err := os.ReadFile(filepath.Join(dir, car.Materials[1].Meshes[0]))
			if err != nil {
				t.Fatal(err)
			}
			lo, hi, faces := plyBounds(t, surface)
			near("the liquid", lo[0], hi[0], water)
			glo, ghi, gfaces := plyBounds(t, grains)
			near("the sand", glo[0], ghi[0], sand)
			if faces == 0 || gfaces == 0 {
				t.Errorf("ply: %d faces of liquid, %d of sand", faces, gfaces)
			}
			continue
		}
		if car.Materials[0].MeshObject != "liquid" || car.Materials[1].MeshObject != "sand" {
			t.Errorf("obj: the sidecar's materials %+v", car.Materials)
		}
		names, meshes := objObjects(t, surface)
		if !slices.Equal(names, []string{"liquid", "sand"}) {
			t.Fatalf("obj: objects %q, want liquid and sand", names)
		}
		for i, m := range meshes {
			if err := m.Validate(); err != nil {
				t.Errorf("obj: %s: %v", names[i], err)
			}
			lo, hi := m.Bounds()
			near(names[i], lo[0], hi[0], [][2]float64{water, sand}[i])
			// it encloses its own block's particles' volume, not the other's too
			t.Logf("%s: %s x %.3f–%.3f, %.3g m³", format, names[i], lo[0], hi[0], m.Volume())
			if v, want := m.Volume(), float64(f.N/2)*h*h*h; math.Abs(v-want) > 0.3*want {
				t.Errorf("obj: %s encloses %.3g m³, its particles fill %.3g m³", names[i], v, want)
			}
		}
	}
}

// The window's Save mesh meshes sand apart from the water as the export does: one OBJ with the objects "liquid"
// and "sand", each closed and around its own particles; in PLY, the sand's surface in a file of its own.
func TestSaveMeshSeparatesSand(t *testing.T) {
	const n, h = 6, 0.02
	f := sandAndWater(n, n, 3, h)
	grains := grainObjects(export.SceneMaterials(sandFrameScene()))
	if len(grains) != 1 || grains[0].object != "sand" {
		t.Fatalf("the scene's granular materials: %+v", grains)
	}
	s := field.DefaultSettings()
	dir := t.TempDir()
	base := filepath.Join(dir, "frame")
	msg, err := writeFrameMeshes(base, export.MeshOBJ, f, s, nil, grains, "test")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(base + ".obj")
	if err != nil {
		t.Fatalf("%s: %v", msg, err)
	}
	names, meshes := objObjects(t, data)
	if !slices.Equal(names, []string{"liquid", "sand"}) {
		t.Fatalf("objects %q, want liquid and sand (%s)", names, msg)
	}
	water, sand := [2]float64{h, n * h}, [2]float64{(n + 4) * h, (2*n + 3) * h}
	for i, m := range meshes {
		if err := m.Validate(); err != nil {
			t.Errorf("%s: %v", names[i], err)
		}
		lo, hi := m.Bounds()
		if want := [][2]float64{water, sand}[i]; lo[0] > want[0] || hi[0] < want[1] || lo[0] < want[0]-2*h || hi[0] > want[1]+2*h {
			t.Errorf("%s's mesh spans x %.3f–%.3f, its particles %.3f–%.3f", names[i], lo[0], hi[0], want[0], want[1])
		}
	}
	if _, err := writeFrameMeshes(base, export.MeshPLY, f, s, nil, grains, "test"); err != nil {
		t.Fatal(err)
	}
	ply, err := os.ReadFile(base + "-sand.ply")
	if err != nil {
		t.Fatal(err)
	}
	if lo, hi, faces := plyBounds(t, ply); faces == 0 || lo[0] < sand[0]-2*h || hi[0] > sand[1]+2*h {
		t.Errorf("ply: the sand's file spans x %.3f–%.3f with %d faces", lo[0], hi[0], faces)
	}
}

// `slosh export --mesh` meshes an elastoplastic material apart from the water too (issue 29), as sand: an OBJ surface
// file of the objects "liquid" and "dough", the dough's around its own particles only.
func TestExportMeshesDough(t *testing.T) {
	const n, h = 6, 0.02
	f := sandAndWater(n, n, 3, h)
	for i := range f.Phase {
		if f.Phase[i] == scene.PhaseGranular {
			f.Phase[i] = scene.PhaseSolid
		}
	}
	sc := &scene.Scene{Name: "dough", Domain: scene.Box{Max: scene.Vec3{1, 1, 1}}, Materials: []scene.Material{
		{Name: "dough", Kind: scene.KindElastoplastic, Density: 1100, Color: [3]float64{0.9, 0.8, 0.6}, YoungsModulus: 1e4},
	}}
	dir := t.TempDir()
	set := param.NewSet()
	s := field.DefaultSettings()
	s.Register(set)
	cw, err := newCacheWriter(dir, "sph", sc, param.NewSet())
	if err != nil {
		t.Fatal(err)
	}
	cw.setMeshes(newMeshExport(export.MeshOBJ, s, set), nil)
	if err := cw.write(f); err != nil {
		t.Fatal(err)
	}
	if err := cw.finish(); err != nil {
		t.Fatal(err)
	}
	car := readSidecar(t, dir)
	if car.Materials[0].MeshObject != "liquid" || car.Materials[1].MeshObject != "dough" {
		t.Errorf("the sidecar's materials %+v", car.Materials)
	}
	surface, err := os.ReadFile(filepath.Join(dir, car.Meshes[0]))
	if err != nil {
		t.Fatal(err)
	}
	names, meshes := objObjects(t, surface)
	if !slices.Equal(names, []string{"liquid", "dough"}) {
		t.Fatalf("objects %q, want liquid and dough", names)
	}
	lo, hi := meshes[1].Bounds()
	if want := [2]float64{(n + 4) * h, (2*n + 3) * h}; lo[0] > want[0] || hi[0] < want[1] || lo[0] < want[0]-2*h || hi[0] > want[1]+2*h {
		t.Errorf("the dough's mesh spans x %.3f–%.3f, its particles %.3f–%.3f", lo[0], hi[0], want[0], want[1])
	}
}
