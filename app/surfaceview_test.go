package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/slosh/slosh/gpu/gltest"
	"github.com/slosh/slosh/gpu/render"
	"github.com/slosh/slosh/sim/export/usd"
	"github.com/slosh/slosh/sim/mesh"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/ui"
)

// In the window, render.mode mesh draws a closed mesh of the fluid made from each frame (by the runner for a CPU
// mode, on the GL thread from a read-back for the GPU mode); upsample.enabled draws more points than particles;
// Save mesh writes the frame's surface and bodies as OBJ objects; the particle export writes meshes per frame when
// capture.meshes asks.
func TestViewerMeshes(t *testing.T) {
	if testing.Short() {
		t.Skip("about 4 s on 2 cores: a viewer session in a hidden window; make test runs it")
	}
	ctx := gltest.Acquire(t)
	v := openViewer(t, ctx, Options{Scene: "duck-pond", Mode: "pbf-cpu", Particles: 1500, Sets: []string{"render.mode=mesh"}})
	v.captures = t.TempDir()
	frames(t, v, "a frame drawn with its mesh", func() bool {
		p, err := v.surf.particles(v.drv, v.rend, v.sc)
		return err == nil && p.Mesh.Triangles() > 0 && v.drv.Stats().Steps > 2
	})
	if pub := v.drv.(*cpuDriver).last; pub == nil || pub.View.Mesh == nil || len(pub.View.Ellipsoids) != 0 {
		t.Fatal("the runner publishes no mesh, or kernels it does not need, in render.mode mesh")
	} else if _, err := pub.View.Mesh.CheckClosed(); err != nil {
		t.Fatalf("the published mesh: %v", err)
	}

	// Save mesh: one OBJ, the surface first (closed) and an object per body
	v.saveMesh()
	frames(t, v, "the mesh saved", func() bool { return v.meshing == 0 && strings.Contains(v.status.msg, "saved") })
	objs, _ := filepath.Glob(filepath.Join(v.captures, "*.obj"))
	if len(objs) != 1 || v.status.isErr {
		t.Fatalf("files %v, status %q", objs, v.status.msg)
	}
	data, err := os.ReadFile(objs[0])
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(string(data), "\no ")
	if len(parts) != 1+1+10 || !strings.HasPrefix(parts[1], "surface\n") || !strings.HasPrefix(parts[2], "body0\n") {
		t.Fatalf("%d objects in the OBJ", len(parts)-1)
	}
	surface, err := mesh.Parse([]byte(parts[0]+"\no "+parts[1]), "surface")
	if err != nil {
		t.Fatal(err)
	}
	if err := surface.Validate(); err != nil {
		t.Errorf("the saved surface: %v", err)
	}
	if all, err := mesh.Parse(data, objs[0]); err != nil || len(all.Triangles) <= len(surface.Triangles) {
		t.Errorf("the whole file: %v", err)
	}

	// the export with meshes
	if err := v.capSet.SetString("capture.meshes", "ply"); err != nil {
		t.Fatal(err)
	}
	if err := v.capSet.SetString("capture.vdb", "true"); err != nil {
		t.Fatal(err)
	}
	if err := v.capSet.SetString("capture.usd", "true"); err != nil {
		t.Fatal(err)
	}
	v.toggleExport()
	if v.export == nil {
		t.Fatalf("export not started: %q", v.status.msg)
	}
	dir := v.export.dir
	frames(t, v, "exported frames", func() bool { return v.export.frames() >= 3 })
	v.toggleExport()
	frames(t, v, "the sidecar", func() bool { return len(v.exported) == 0 })
	car := readSidecar(t, dir)
	if car.MeshFormat != "ply" || len(car.Meshes) != car.Frames || len(car.BodyMeshes) != 10 || len(car.BodyMeshes[9]) != car.Frames {
		t.Fatalf("sidecar: %d frames, format %q, meshes %v, %d bodies' meshes", car.Frames, car.MeshFormat, car.Meshes, len(car.BodyMeshes))
	}
	if len(car.VDB) != car.Frames || len(car.VDBGrids) != 1 || !(car.VDBVoxelSize > 0) {
		t.Fatalf("sidecar: %d frames, level sets %v of %v, voxel size %g", car.Frames, car.VDB, car.VDBGrids, car.VDBVoxelSize)
	}
	// the stage: a layer per frame, and a root that plays them all with the ten bodies moving
	if car.USD != usd.RootName || len(car.USDFrames) != car.Frames {
		t.Fatalf("sidecar: %d frames, USD stage %q with %d layers", car.Frames, car.USD, len(car.USDFrames))
	}
	root, err := os.ReadFile(filepath.Join(dir, car.USD))
	if err != nil || !strings.Contains(string(root), fmt.Sprintf("endTimeCode = %d\n", car.Frames)) || !strings.Contains(string(root), `def Mesh "Body9"`) {
		t.Fatalf("the root stage (%v):\n%.600s", err, root)
	}
	for _, name := range append(append(append(car.Meshes, car.BodyMeshes[9]...), car.VDB...), car.USDFrames...) {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.Size() < 200 {
			t.Errorf("%s: %v", name, err)
		}
	}

	// side by side: the particles come with their kernels (the left half's splats) and the mesh (the right's)
	if err := v.rend.Params().Assign("render.mode=surface"); err != nil {
		t.Fatal(err)
	}
	if err := v.surf.Params().Assign("mesh.side_by_side=true"); err != nil {
		t.Fatal(err)
	}
	frames(t, v, "a frame with kernels and a mesh, in two halves", func() bool {
		p, err := v.surf.particles(v.drv, v.rend, v.sc)
		return err == nil && p.Mesh.Triangles() > 0 && p.Ellipsoids != nil && v.ab.half[0] != nil && v.ab.half[1] != nil
	})
	if err := v.surf.Params().Assign("mesh.side_by_side=false"); err != nil {
		t.Fatal(err)
	}
	frames(t, v, "one view again", func() bool { return v.ab.half[0] == nil })

	// the upsampled surface: more points drawn than there are particles, no mesh
	if err := v.surf.Params().Assign("upsample.enabled=true"); err != nil {
		t.Fatal(err)
	}
	n := v.drv.Stats().Particles
	frames(t, v, "an upsampled frame", func() bool {
		p, err := v.surf.particles(v.drv, v.rend, v.sc)
		return err == nil && p.N > n && p.Ellipsoids != nil && p.Mesh == nil
	})
	// the physical particles alone make the water's thickness
	if p, _ := v.surf.particles(v.drv, v.rend, v.sc); p.ThicknessN > n || p.ThicknessN < n/4 {
		t.Errorf("upsampled: %d points, the thickness counts %d of them (%d particles)", p.N, p.ThicknessN, n)
	}
}

// The GPU mode meshes a read-back of its particles on the GL thread, again only when they change.
func TestViewerMeshGPU(t *testing.T) {
	ctx := gltest.Acquire(t)
	gltest.RequireCompute(t, ctx) // fails under make test and CI: llvmpipe has compute shaders
	v := openViewer(t, ctx, Options{Scene: "pool", Mode: "pbf", Particles: 1500, Sets: []string{"render.mode=mesh"}})
	frames(t, v, "a GPU frame drawn with its mesh", func() bool {
		p, err := v.surf.particles(v.drv, v.rend, v.sc)
		return err == nil && p.Mesh.Triangles() > 0 && p.Pos == v.drv.Particles().Pos
	})
	v.drv.SetPaused(true)
	settle(v, 50*time.Millisecond)
	v.surf.particles(v.drv, v.rend, v.sc)
	m := v.surf.out.Mesh // each meshing makes a new mesh
	v.surf.particles(v.drv, v.rend, v.sc)
	if v.surf.out.Mesh != m || m == nil {
		t.Error("the same frame was meshed twice")
	}

	// an A/B pair of the GPU mode meshes B from a read-back of B's buffers, into B's own mesh
	v.drv.SetPaused(false)
	v.fillModel()
	v.apply(ui.Actions{Mode: v.model.Mode, Scene: v.model.Scene, ToggleAB: true})
	if _, ok := v.drv.(*gpuDriver); !ok || !v.ab.on {
		t.Fatalf("A/B of the GPU mode: on %v, status %q", v.ab.on, v.status.msg)
	}
	frames(t, v, "both GPU halves meshed", func() bool {
		pa, erra := v.surf.particles(v.drv, v.rend, v.sc)
		pb, errb := v.ab.surf.twin(v.drv, v.rend, v.sc)
		return erra == nil && errb == nil && pa.Mesh.Triangles() > 0 && pb.Mesh.Triangles() > 0 && pa.Mesh != pb.Mesh
	})
}

// The anisotropic kernels are made only when something reads them: with surface.enabled false and surface.ks 1
// they are the spheres the renderer draws without them, and then only the spray (render.mode surface, or the
// side-by-side view's left half, with render.spray_neighbors above 0) reads their neighbour counts.
func TestKernelsOnlyWhenRead(t *testing.T) {
	gltest.Acquire(t)
	rend, err := render.New()
	if err != nil {
		t.Fatal(err)
	}
	defer rend.Delete()
	s, err := newSurfacer(nil) // the CPU's kernels: job says whether the runner makes them
	if err != nil {
		t.Fatal(err)
	}
	sc := &scene.Scene{Domain: scene.Box{Max: scene.Vec3{1, 1, 1}}}
	for _, c := range []struct {
		sets  []string
		split bool
		want  bool
	}{
		{nil, false, true},
		{[]string{"surface.enabled=false"}, false, true}, // the spray counts neighbours
		{[]string{"surface.enabled=false", "render.spray_neighbors=0"}, false, false},
		{[]string{"surface.enabled=false", "render.spray_neighbors=0", "surface.ks=1.2"}, false, true},
		{[]string{"surface.enabled=false", "render.spray_neighbors=0"}, true, false},
		{[]string{"surface.enabled=false"}, true, true}, // the left half's spray
		{[]string{"surface.enabled=false", "render.mode=ellipsoids"}, false, false},
		{[]string{"render.mode=ellipsoids", "render.spray_neighbors=0"}, false, true},
		{[]string{"render.mode=particles"}, false, false},
	} {
		for _, set := range []*param.Set{s.Params(), rend.Params()} {
			set.ResetDefaults()
		}
		for _, nv := range c.sets {
			set := s.Params()
			if strings.HasPrefix(nv, "render.") {
				set = rend.Params()
			}
			if err := set.Assign(nv); err != nil {
				t.Fatal(err)
			}
		}
		j := s.job(rend, sc, c.split)
		if j.kernels != c.want || s.needKernels(rend, j) != c.want {
			t.Errorf("%v, split %v: kernels made %v, needed %v; want %v", c.sets, c.split, j.kernels, s.needKernels(rend, j), c.want)
		}
	}
}
