package app

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/export"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/scene"
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

// sandScene is a scene of water (the default material) and sand (material 1).
func sandScene() *scene.Scene {
	return &scene.Scene{Name: "sand", Domain: scene.Box{Max: scene.Vec3{1, 1, 1}}, Materials: []scene.Material{
		{Name: "sand", Kind: scene.KindGranular, Density: 1600, Color: [3]float64{0.76, 0.6, 0.38}, FrictionAngle: 33},
	}}
}

// The particle export names its materials (issue 27): the sidecar lists each material number's name, kind and
// phase, and each frame's header names them beside its material and phase columns.
func TestExportNamesMaterials(t *testing.T) {
	dir := t.TempDir()
	cw, err := newCacheWriter(dir, "flip", sandScene(), param.NewSet())
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
