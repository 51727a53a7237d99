package export

import (
	"path/filepath"
	"testing"
)

// IsFileName knows every name FrameName, SurfaceName, BodyName and MaterialSurfaceName make, and nothing else.
func TestIsFileName(t *testing.T) {
	for _, n := range []int{0, 1, 999999, 1000000, 12345678} {
		names := []string{FrameName("d", n), SurfaceName("d", n, VDB)}
		for _, f := range MeshFormats {
			names = append(names, SurfaceName("d", n, f), BodyName("d", 0, n, f), BodyName("d", 255, n, f),
				MaterialSurfaceName("d", 1, n, f), MaterialSurfaceName("d", 16, n, f))
		}
		for _, p := range names {
			if !IsFileName(filepath.Base(p)) {
				t.Errorf("IsFileName(%q) is false", filepath.Base(p))
			}
		}
	}
	for _, name := range []string{
		"", "notes", "frame_.ply", "frame_00001.ply", "frame_0000001.ply", "frame_000001.obj", "frame_00000a.ply",
		"frame_000001.ply.bak", "Frame_000001.ply", "surface_000001.stl", "surface_000001", "surface_-00001.obj",
		"body_000001.ply", "bodyx_000001.ply", "body01_000001.ply", "body1-000001.ply", "body1_01.obj",
		"slosh-export.json", ".frame_000001.ply.3.tmp", "material_000001.ply", "materialx_000001.obj",
		"material01_000001.ply", "material1_000001.stl", "sand_000001.obj",
		"body0_000001.vdb", "material1_000001.vdb", "frame_000001.vdb", "surface_00001.vdb", "surface_000001.vdb.tmp",
	} {
		if IsFileName(name) {
			t.Errorf("IsFileName(%q) is true", name)
		}
	}
}
