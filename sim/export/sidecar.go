package export

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/slosh/slosh/internal/atomicfile"
)

// SidecarFormat is the version of the sidecar layout this package writes.
// 2: time_step and steps replace steps_per_frame (substeps follow a CFL condition); 3: the mesh fields; 4: materials;
// 5: the OpenVDB level sets (vdb, vdb_grids, vdb_voxel_size); 6: the USD stage (usd, usd_frames).
const SidecarFormat = 6

// Sidecar describes an export: what made the frames and what they hold. WriteSidecar writes it as indented JSON
// with the keys in the struct tags.
type Sidecar struct {
	Format    int             `json:"format"`               // SidecarFormat; WriteSidecar fills it in when zero
	Software  string          `json:"software"`             // "slosh"
	Version   string          `json:"version"`              // the software version that wrote the frames
	Mode      string          `json:"mode"`                 // the solver mode ("pbf")
	Scene     string          `json:"scene"`                // the scene as the user named it (a file or built-in name)
	SceneJSON json.RawMessage `json:"scene_json,omitempty"` // the scene itself, as a JSON object

	// Params are the mode's parameters, name → JSON value, as in a param.Preset.
	Params map[string]json.RawMessage `json:"params"`

	Frames  int     `json:"frames"`   // frame files written
	FrameDt float64 `json:"frame_dt"` // simulated time between frames, s
	// TimeStep says how the solver chose its substeps ("CFL 1.5, 4–32 substeps"); Steps is the solver's step
	// count at each frame, in frame order, so the substeps of frame k are Steps[k] − Steps[k−1].
	TimeStep string `json:"time_step"`
	Steps    []int  `json:"steps"`

	// ParticleRadius is the particles' radius (half their spacing at rest), m: the size to draw them.
	ParticleRadius float64 `json:"particle_radius"`

	Files   []string `json:"files"`   // frame file names relative to the sidecar's folder, in frame order
	Columns []string `json:"columns"` // the PLY vertex properties of every frame, in order (Names)

	// Materials says what each value of the material column stands for (SceneMaterials): its name, kind and phase.
	// Sidecars before format 4 have none.
	Materials []Material `json:"materials,omitempty"`

	// With meshes (`slosh export --mesh`): the format (MeshOBJ or MeshPLY), the fluid's surface mesh of each frame
	// (SurfaceName; granular materials' surfaces are objects of those files in OBJ, or files of their own in PLY:
	// Material.MeshObject and Material.Meshes), each rigid body's mesh of each frame (BodyMeshes[b][k]: body b at
	// frame k+1, BodyName), and the parameters the surfaces were meshed with (mesh.*), name → JSON value.
	MeshFormat string                     `json:"mesh_format,omitempty"`
	Meshes     []string                   `json:"meshes,omitempty"`
	BodyMeshes [][]string                 `json:"body_meshes,omitempty"`
	MeshParams map[string]json.RawMessage `json:"mesh_params,omitempty"`

	// With level sets (`slosh export --vdb`): the OpenVDB file of each frame (SurfaceName with VDB), the grids each
	// holds ("surface": the fluid's narrow-band level set, negative inside, in m) and their voxel size, m (mesh.cell
	// × the particle spacing; the last frame's when the particles' radius changed).
	VDB          []string `json:"vdb,omitempty"`
	VDBGrids     []string `json:"vdb_grids,omitempty"`
	VDBVoxelSize float64  `json:"vdb_voxel_size,omitempty"`

	// With a USD stage (`slosh export --usd`): the root stage that plays the run (sim/export/usd: slosh.usda) and
	// each frame's layer, in frame order.
	USD       string   `json:"usd,omitempty"`
	USDFrames []string `json:"usd_frames,omitempty"`

	Created time.Time `json:"created"` // when the export was made; WriteSidecar uses the current time when zero
}

// WriteSidecar writes s to path as indented JSON, atomically: into a temporary file in the same folder, synced,
// then renamed over path, so that a reader sees the old sidecar or the new one and never part of one. On an error
// the temporary file is removed. s itself is not changed.
func WriteSidecar(path string, s *Sidecar) error {
	if s == nil {
		return fmt.Errorf("writing %s: no sidecar to write", path)
	}
	out := *s
	if out.Format == 0 {
		out.Format = SidecarFormat
	}
	if out.Created.IsZero() {
		out.Created = time.Now()
	}
	out.Created = out.Created.Round(0) // no monotonic reading: a file cannot hold it
	if out.Params == nil {
		out.Params = map[string]json.RawMessage{}
	}
	b, err := json.MarshalIndent(&out, "", "  ")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return atomicfile.WriteBytes(path, append(b, '\n'))
}
