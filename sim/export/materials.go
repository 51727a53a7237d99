package export

import (
	"fmt"
	"strconv"

	"github.com/slosh/slosh/sim/scene"
)

// Material says what one value of the frames' material column stands for: the scene's material of that number, its
// kind and the phase column's value for its particles. The sidecar lists them (Sidecar.Materials), and each frame
// with a material column names them in its header's comments (MaterialComments).
type Material struct {
	// Number is the material column's value: 0 the scene's default material, k its materials[k−1].
	Number int    `json:"number"`
	Name   string `json:"name"` // as the scene names it ("water" for the default material)
	Kind   string `json:"kind"` // scene.Kind: "liquid" or "granular"
	// Phase is the phase column's value for its particles (scene.Phase): 0 liquid, 1 granular, 2 solid.
	Phase int        `json:"phase"`
	Color [3]float64 `json:"color"` // linear RGB in [0, 1], what the renderer draws it in

	// With meshes (`slosh export --mesh`) of a scene with granular materials, whose surfaces are meshed apart from
	// the liquid's: MeshObject is the OBJ object of each surface file (SurfaceName) that holds this material's
	// surface (the liquids share one; each granular material has its own); with PLY meshes Meshes are a granular
	// material's own files (MaterialSurfaceName), in frame order, while the liquids' are the sidecar's Meshes.
	MeshObject string   `json:"mesh_object,omitempty"`
	Meshes     []string `json:"meshes,omitempty"`
}

// SceneMaterials lists the material numbers sc's particles may carry, in order: 0 its default material, then
// k for its Materials[k−1].
func SceneMaterials(sc *scene.Scene) []Material {
	out := make([]Material, sc.MaterialCount())
	for k := range out {
		m := sc.MaterialOf(k)
		out[k] = Material{Number: k, Name: m.Name, Kind: string(m.Kind.Canonical()), Phase: int(sc.PhaseOf(k)), Color: m.Color}
	}
	return out
}

// MaterialComments are PLY header comments naming each material number, for a reader that has a frame without its
// sidecar: `material 1 "sand" granular, phase 1`. Names are quoted as Go quotes them (a line break in a name
// becomes \n, so the comment stays one line).
func MaterialComments(ms []Material) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = fmt.Sprintf("material %d %s %s, phase %d", m.Number, strconv.Quote(m.Name), m.Kind, m.Phase)
	}
	return out
}
