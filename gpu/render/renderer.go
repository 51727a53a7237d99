// Package render draws a slosh scene with OpenGL 4.1 core: a sky, a ground grid, the tank, the obstacles and the
// fluid — by default as a screen-space surface, or as ray-cast particles for debugging.
//
// The fluid surface follows van der Laan, Green & Sainz 2009 with the ellipsoid splats of Yu & Turk 2013 (§7 of
// Macklin & Müller 2013): each particle's ellipsoid (its anisotropic kernel, or a sphere) is ray-cast exactly into
// an eye-depth image and, additively, into a thickness image; the depth image is smoothed by curvature flow or the
// narrow-range filter of Truong & Yuksel 2018; a composite pass shades it with normals from the depth, Fresnel
// reflection of the sky, refraction of the scene behind and Beer–Lambert absorption; lonely particles are drawn
// as spray. The render.mode parameter also shows the particles, the raw ellipsoids or the intermediate images, or
// shades a triangle mesh of the fluid (Particles.Mesh) with the same water: its depth and thickness images replace
// the splats'.
//
// A frame is a sequence of passes over shared targets (see passes.go and surface.go); each pass is a small
// function that sets the GL state it needs. Particle data comes in as instanced vertex attributes from
// caller-owned buffers, so the GPU solver's state buffers are drawn in place and CPU solvers upload their frames
// through FrameBuffers. Nothing here needs compute shaders or SSBOs, so it runs on macOS's GL 4.1 too.
//
// All methods must be called on the GL thread with the context current.
package render

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"

	gl "github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/internal/grow"
	"github.com/slosh/slosh/shaders"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/trimesh"
)

// Particle colour modes, the values of the render.color parameter.
const (
	ColorWater   int32 = iota // a flat water colour (render.water_color)
	ColorSpeed                // speed through blue → cyan → yellow → red over [0, render.speed_max]
	ColorDensity              // density error ρ/ρ0 − 1 through blue → white → red over ±render.density_range
	// ColorTemperature is temperature through blue → light grey → red (Moreland's cool-warm map) over
	// [render.temperature_min, render.temperature_max]; particles without a temperature take ColorWater's colour.
	ColorTemperature
	ColorPhase // the particle's phase (scene.Phase) in its PhaseColors colour
)

// PhaseColors is each phase's colour in the phase colour mode (render.color phase), indexed by scene.Phase; a
// phase past them is grey. Linear RGB, apart in hue so that they read at a glance under any shading.
var PhaseColors = [numPhases][3]float32{
	scene.PhaseLiquid:   {0.15, 0.45, 0.95}, // blue
	scene.PhaseGranular: {0.95, 0.75, 0.15}, // sand yellow
	scene.PhaseSolid:    {0.20, 0.75, 0.25}, // green: an elastic or plastic solid
	scene.PhaseRigid:    {0.85, 0.20, 0.75}, // magenta
}

// numPhases is how many phases PhaseColors colours.
const numPhases = int(scene.PhaseRigid) + 1

// Render modes, the values of the render.mode parameter.
const (
	ModeSurface    int32 = iota // the smoothed, shaded fluid surface with spray
	ModeParticles               // sphere impostors in the render.color colour mode
	ModeEllipsoids              // each particle's ellipsoid, ray-cast and shaded, unsmoothed
	ModeDepth                   // the surface's smoothed eye-depth image, grey (darker is nearer)
	ModeThickness               // the surface's thickness image
	ModeNormals                 // the surface's normals, world space, as RGB = n/2 + ½
	// ModeMesh shades the fluid's triangle mesh (Particles.Mesh: marching cubes of an implicit surface) with the
	// surface's water: its eye depth and thickness replace the splats', then the same smoothing and composite.
	// Without a mesh it draws the splatted surface.
	ModeMesh
)

// Depth smoothing methods, the values of the render.smoothing parameter.
const (
	SmoothCurvatureFlow int32 = iota // van der Laan et al. 2009
	SmoothNarrowRange                // Truong & Yuksel 2018, separable
	SmoothNone
)

// Vertex attribute locations and the uniform-block binding, mirrored into GLSL as #defines.
const (
	attrPos        = 0  // particles: vec4 position (xyz), per instance
	attrVel        = 1  // particles: vec4 velocity (xyz), per instance
	attrRho        = 2  // particles: float ρ/ρ0, per instance
	attrEll0       = 3  // particles: Particles.Ellipsoids' four vec4s, per instance (attrEll0+k for the k-th)
	attrBody       = 7  // particles: int rigid body (−1: fluid), per instance
	attrMaterial   = 8  // particles: unsigned byte material number (Particles.Material), per instance
	attrPhase      = 9  // particles: unsigned byte phase (Particles.Phase), per instance
	attrID         = 10 // particles: uint32 identity (Particles.ID), per instance
	attrTemp       = 11 // particles: float temperature, °C (Particles.Temperature), per instance
	attrMeshPos    = 0  // meshes: vec3 position
	attrMeshNormal = 1  // meshes: vec3 normal

	// sizeofEllipsoid is the stride of Particles.Ellipsoids: four vec4s per particle.
	sizeofEllipsoid = 4 * sizeofVec4
	// maxFilterRadius bounds the narrow-range filter's half-width in pixels (the loop bound in its shader).
	maxFilterRadius = 64
	// filterWorldRadii is how many particle radii of surface the narrow-range filter's kernel covers (when that is
	// fewer pixels than render.filter_radius).
	filterWorldRadii = 3
	// The thickness blur spans thicknessBlurRadii particle radii, at most thicknessBlurMax pixels of its image.
	thicknessBlurRadii = 3
	thicknessBlurMax   = 12

	// maxPalette is the number of colours the shaders' palette holds: the default material and a scene's
	// materials. Material numbers past the palette take its last colour.
	maxPalette = scene.MaxMaterials + 1

	// frameBinding is the uniform-buffer binding point of the per-frame block (FrameBlock in render_common.glsl).
	frameBinding = 1
)

// Viewport is the size of the target in framebuffer pixels (on high-DPI screens, the framebuffer size, not the
// window size).
type Viewport struct{ W, H int }

// Particles says what to draw. The buffers belong to the caller and are read in place: Pos and Vel hold a vec4 per
// particle (xyz used), Rho a float per particle (ρ/ρ0). Vel and Rho may be nil (drawn as at rest, at rest
// density). N is clamped to what the buffers hold.
type Particles struct {
	Pos, Vel *glh.Buffer
	Rho      *glh.Buffer
	// Ellipsoids, when non-nil, holds per particle its anisotropic kernel (Yu & Turk 2013), four vec4s (64 bytes):
	//   [0] xyz: the smoothed kernel centre (draw the ellipsoid here, not at Pos); w: the particle's neighbour count
	//   [1], [2], [3] xyz: the ellipsoid's three semi-axis vectors in world space (mutually orthogonal, lengths are
	//   the radii in metres); w unused.
	// When nil, particles are spheres of radius Radius at Pos with neighbour count unknown (treat as not spray).
	Ellipsoids *glh.Buffer
	// Body, when non-nil, holds per particle an int32: the rigid body it belongs to, or −1 for fluid. Body
	// particles are never drawn as water; their bodies are drawn as the shapes given to SetBodies, at Bodies' poses.
	Body   *glh.Buffer
	Bodies []sim.BodyState
	N      int
	Radius float32 // sphere radius, m: the particles mode's spheres, the surface's without Ellipsoids, spray size
	// Material, when non-nil and Palette is not empty, holds per particle an unsigned byte: its material number
	// (sim.Frame.Material), indexing Palette (linear RGB). The water then takes each particle's colour: the
	// particles and ellipsoids modes draw particles in it (render.color water), and the surface's absorption and
	// in-scattered colour follow the chord-weighted mean colour of the fluid along each pixel's ray, so fluids
	// that mix blend. Without them every particle is render.water_color. At most maxPalette colours are used;
	// larger numbers take the last.
	Material *glh.Buffer
	Palette  [][3]float32
	// Phase, when non-nil, holds per particle an unsigned byte: its phase (sim.Frame.Phase, scene.Phase). Grains
	// and solids (a phase other than liquid) are left out of the surface, the ellipsoids and the spray and drawn
	// as shaded spheres in their material's colour; without it every particle is liquid.
	Phase *glh.Buffer
	// ID, when non-nil, holds per particle a uint32: its stable identity (sim.Frame.ID). Each grain's colour varies
	// by a hash of it (brighter or darker, warmer or cooler), so sand reads as grains and a grain keeps its look
	// when the solver re-sorts its particles; without it every grain takes its material's colour. Liquid particles
	// ignore it. FrameBuffers.Upload sets it for frames with phases; a GPU solver may pass its own ids.
	ID *glh.Buffer
	// Temperature, when non-nil, holds per particle a float: its temperature, °C (sim.Frame.Temperature), which
	// render.color temperature shows. Without it, and for a particle whose temperature is not finite, that mode
	// draws the particle as render.color water does.
	Temperature *glh.Buffer
	// ThicknessN, when positive, is how many of the particles (the first) the thickness and tint passes add up:
	// an upsampled surface draws the physical particles first and then points that refine their surface, which
	// shape the depth but would count the water near the surface several times over. 0 counts all.
	ThicknessN int
	// Mesh, when non-nil and not empty, is the fluid's surface as a closed triangle mesh (FrameBuffers.UploadMesh),
	// which render.mode mesh draws in place of the splats.
	Mesh *FluidMesh
}

// FluidMesh is a triangle mesh of the fluid in GL buffers, filled by FrameBuffers.UploadMesh.
type FluidMesh struct{ g gpuMesh }

// Triangles is how many triangles the mesh holds.
func (m *FluidMesh) Triangles() int {
	if m == nil {
		return 0
	}
	return int(m.g.count / 3)
}

// settings are the live values of the render parameters.
type settings struct {
	mode          int32
	color         int32
	speedMax      float32
	densityRange  float32
	tempMin       float32 // °C
	tempMax       float32
	radiusScale   float32
	waterColor    [3]float32
	obstacleColor [3]float32
	bodyColor     [3]float32
	showTank      bool
	showGround    bool
	showObstacles bool

	// the fluid surface
	scale          float32 // render.scale: the surface's images' resolution, a fraction of the view's
	splatScale     float32
	smoothing      int32
	smoothIters    int32
	smoothDt       float32
	filterRadius   float32 // pixels
	depthThreshold float32 // particle radii
	thicknessScale float32
	thicknessHalf  bool
	cullInterior   bool    // the splat depth pass leaves out particles whose kernels are flagged interior
	absorption     float32 // 1/m
	refraction     float32
	specular       float32
	sprayNeighbors int32
	spraySize      float32
}

// frameBlock mirrors FrameBlock in render_common.glsl (std140: mat4s, then vec4s).
type frameBlock struct {
	View, Proj, ViewProj, InvViewProj mgl32.Mat4
	Eye, LightDir, Viewport, Clip     [4]float32
}

// Renderer draws scenes and particles. Make one with New after the GL context is current; free it with Delete.
type Renderer struct {
	params *param.Set
	set    settings

	skyProg, groundProg, tankProg, meshProg, particleProg *glh.Program
	// the fluid surface's programs (surface.go); compositeScaledProg and upsampleProg draw it at render.scale < 1
	splatDepthProg, splatThickProg, thickBlurProg, ellipsoidProg *glh.Program
	compositeScaledProg, upsampleProg, upsampleBlendProg         *glh.Program
	splatTintProg                                                *glh.Program
	meshDepthProg, meshThickProg                                 *glh.Program // ModeMesh's depth and thickness
	curvatureProg, narrowProg, compositeProg, sprayProg          *glh.Program

	empty     *glh.VertexArray // for draws that pull no attributes
	particles *glh.VertexArray // sphere impostors
	instances *glh.VertexArray // ellipsoid splats and spray
	frameUBO  *glh.Buffer
	scaledUBO *glh.Buffer // the per-frame block of the surface's passes at render.scale < 1: their images' size
	tank      gpuMesh
	obstacles gpuMesh
	bodies    []gpuMesh // one per rigid body, in its rest pose (SetBodies)
	sphere    gpuMesh   // a unit sphere: the paddle (SetPaddle)
	paddle    [4]float32
	scene     sceneInfo
	surf      surfaceTargets
	bg        background // the still passes' picture, kept while it holds (background.go)
	// sceneCount counts SetScene calls: the background's picture is of one scene
	sceneCount uint64

	passes  []pass
	timers  glh.Timers
	err     error // what SetScene could not build
	drawErr error // why the last Draw could not draw the surface (nil when it could)
	deleted bool
	// transparent draws the sky and the ground with alpha 0 (SetTransparent)
	transparent bool
}

// SetTransparent makes the following Draws leave alpha 0 where only the sky or the ground shows, and 1 over the
// fluid, the bodies, the obstacles and the tank's walls seen against them: a screenshot with a transparent
// background to composite over something else. The colours stay those of the opaque picture (the water still
// refracts the sky and the ground), so an image drawn this way differs from the opaque one only in alpha.
func (r *Renderer) SetTransparent(on bool) { r.transparent = on }

// sceneInfo is what the passes need to know about the scene set with SetScene.
type sceneInfo struct {
	ok       bool
	min, max mgl32.Vec3 // the domain
	groundY  float32
	extent   float32 // the domain's largest side, m
}

// New compiles the render programs from the embedded shaders and registers the render parameters.
func New() (*Renderer, error) { return newRenderer(shaders.FS()) }

// NewParams returns a set of the render parameters with their defaults, without a GL context: for listing them
// and for checking --set render.* where nothing is drawn.
func NewParams() *param.Set {
	st := defaultSettings()
	return st.register()
}

func defaultSettings() *settings {
	return &settings{
		mode:          ModeSurface,
		color:         ColorWater,
		speedMax:      3,
		densityRange:  0.05,
		tempMin:       0,
		tempMax:       100,
		radiusScale:   1,
		waterColor:    [3]float32{0.12, 0.40, 0.85},
		obstacleColor: [3]float32{0.58, 0.56, 0.52},
		bodyColor:     [3]float32{0.85, 0.55, 0.25},
		showTank:      true,
		showGround:    true,
		showObstacles: true,

		scale:          1,
		splatScale:     1,
		smoothing:      SmoothNarrowRange,
		smoothIters:    60,
		smoothDt:       0.005,
		filterRadius:   20,
		depthThreshold: 6,
		thicknessScale: 1,
		thicknessHalf:  true,
		cullInterior:   true,
		absorption:     30,
		refraction:     0.15,
		specular:       0.8,
		sprayNeighbors: 8,
		spraySize:      0.5,
	}
}

func newRenderer(fsys fs.FS) (*Renderer, error) {
	r := &Renderer{set: *defaultSettings()}
	r.params = r.set.register()
	defines := []shaders.Define{
		shaders.Int("ATTR_POS", attrPos),
		shaders.Int("ATTR_VEL", attrVel),
		shaders.Int("ATTR_RHO", attrRho),
		shaders.Int("ATTR_ELL0", attrEll0),
		shaders.Int("ATTR_ELL1", attrEll0+1),
		shaders.Int("ATTR_ELL2", attrEll0+2),
		shaders.Int("ATTR_ELL3", attrEll0+3),
		shaders.Int("ATTR_BODY", attrBody),
		shaders.Int("ATTR_MATERIAL", attrMaterial),
		shaders.Int("ATTR_PHASE", attrPhase),
		shaders.Int("ATTR_ID", attrID),
		shaders.Int("ATTR_TEMPERATURE", attrTemp),
		shaders.Int("PHASE_GRANULAR", int(scene.PhaseGranular)),
		shaders.Int("NUM_PHASES", numPhases),
		shaders.Int("MAX_PALETTE", maxPalette),
		shaders.Int("ATTR_MESH_POS", attrMeshPos),
		shaders.Int("ATTR_MESH_NORMAL", attrMeshNormal),
		shaders.Int("COLOR_WATER", int(ColorWater)),
		shaders.Int("COLOR_SPEED", int(ColorSpeed)),
		shaders.Int("COLOR_DENSITY", int(ColorDensity)),
		shaders.Int("COLOR_TEMPERATURE", int(ColorTemperature)),
		shaders.Int("COLOR_PHASE", int(ColorPhase)),
		shaders.Int("VIEW_SURFACE", int(ModeSurface)),
		shaders.Int("VIEW_DEPTH", int(ModeDepth)),
		shaders.Int("VIEW_THICKNESS", int(ModeThickness)),
		shaders.Int("VIEW_NORMALS", int(ModeNormals)),
		shaders.Int("MAX_FILTER_RADIUS", maxFilterRadius),
	}
	scaled := []shaders.Define{{Name: "COMPOSITE_SCALED", Value: "1"}}
	progs := []struct {
		dst   **glh.Program
		what  string
		files []string
		extra []shaders.Define
	}{
		{&r.skyProg, "sky", []string{"render_fullscreen.vert", "render_sky.frag"}, nil},
		{&r.groundProg, "ground", []string{"render_ground.vert", "render_ground.frag"}, nil},
		{&r.tankProg, "tank", []string{"render_mesh.vert", "render_tank.frag"}, nil},
		{&r.meshProg, "obstacle", []string{"render_mesh.vert", "render_mesh.frag"}, nil},
		{&r.particleProg, "particle", []string{"render_particles.vert", "render_particles.frag"}, nil},
		{&r.splatDepthProg, "fluid depth", []string{"render_ellipsoid.vert", "render_splat_depth.frag"}, nil},
		{&r.splatThickProg, "fluid thickness", []string{"render_ellipsoid.vert", "render_splat_thickness.frag"}, nil},
		{&r.splatTintProg, "fluid tint", []string{"render_ellipsoid.vert", "render_splat_tint.frag"}, nil},
		{&r.meshDepthProg, "fluid mesh depth", []string{"render_mesh.vert", "render_mesh_depth.frag"}, nil},
		{&r.meshThickProg, "fluid mesh thickness", []string{"render_mesh.vert", "render_mesh_thickness.frag"}, nil},
		{&r.thickBlurProg, "thickness blur", []string{"render_fullscreen.vert", "render_thickness_blur.frag"}, nil},
		{&r.ellipsoidProg, "ellipsoid", []string{"render_ellipsoid.vert", "render_ellipsoid_shade.frag"}, nil},
		{&r.curvatureProg, "curvature flow", []string{"render_fullscreen.vert", "render_smooth_curvature.frag"}, nil},
		{&r.narrowProg, "narrow-range filter", []string{"render_fullscreen.vert", "render_smooth_narrow.frag"}, nil},
		{&r.compositeProg, "composite", []string{"render_fullscreen.vert", "render_composite.frag"}, nil},
		{&r.compositeScaledProg, "scaled composite", []string{"render_fullscreen.vert", "render_composite.frag"}, scaled},
		{&r.upsampleProg, "upsample", []string{"render_fullscreen.vert", "render_upsample.frag"}, nil},
		{&r.upsampleBlendProg, "upsample over a copy", []string{"render_fullscreen.vert", "render_upsample.frag"},
			[]shaders.Define{{Name: "UPSAMPLE_BLEND", Value: "1"}}},
		{&r.sprayProg, "spray", []string{"render_spray.vert", "render_spray.frag"}, nil},
	}
	for _, p := range progs {
		prog, err := glh.NewProgram(fsys, slices.Concat(defines, p.extra), p.files...)
		if err != nil {
			r.Delete()
			return nil, fmt.Errorf("render: building the %s program: %w", p.what, err)
		}
		prog.BindBlock("FrameBlock", frameBinding)
		*p.dst = prog
	}
	var err error
	for _, b := range []**glh.Buffer{&r.frameUBO, &r.scaledUBO} {
		if *b, err = glh.NewBuffer(int(sizeofFrameBlock), gl.DYNAMIC_DRAW); err != nil {
			r.Delete()
			return nil, fmt.Errorf("render: per-frame uniform buffer: %w", err)
		}
	}
	r.empty = glh.NewVertexArray()
	r.particles = glh.NewVertexArray()
	r.instances = glh.NewVertexArray()
	r.passes = r.framePasses()
	if err := glh.CheckError("render: setting up the renderer"); err != nil {
		r.Delete()
		return nil, err
	}
	return r, nil
}

// register adds the render parameters, with their values in st, to a new set.
func (st *settings) register() *param.Set {
	s := param.NewSet()
	const g, gs = "Render", "Render|Surface"
	s.Choice(&st.mode, param.Spec{Name: "render.mode", Label: "mode", Group: g,
		Items: []string{"surface", "particles", "ellipsoids", "depth", "thickness", "normals", "mesh"},
		Desc:  "What the fluid is drawn as: a water surface, particles, raw ellipsoids, the surface's depth, thickness or normal images, or the water surface of a triangle mesh meshed from the particles (mesh.* settings)"})
	s.Choice(&st.color, param.Spec{Name: "render.color", Label: "colour", Group: g,
		Items: []string{"water", "speed", "density", "temperature", "phase"},
		Desc: "How particles are coloured: flat water, speed, density error ρ/ρ0 − 1, temperature (blue cold → grey → red hot, " +
			"over render.temperature_min to _max; water colour without temperatures), or phase (liquid blue, granular sand " +
			"yellow, elastic or plastic solid green, rigid magenta). In the surface mode the water stays water and " +
			"grains' and solids' particles take the temperature or phase colours (else their material's)"})
	s.Float(&st.speedMax, param.Spec{Name: "render.speed_max", Label: "speed max", Group: g, Unit: "m/s",
		Min: 0.01, Max: 100, SoftMin: 0.1, SoftMax: 10,
		Desc: "Speed at the red end of the speed colormap"})
	s.Float(&st.densityRange, param.Spec{Name: "render.density_range", Label: "density range", Group: g,
		Min: 0.001, Max: 1, SoftMin: 0.005, SoftMax: 0.3, Log: true,
		Desc: "Density error |ρ/ρ0 − 1| at the blue and red ends of the density colormap"})
	s.Float(&st.tempMin, param.Spec{Name: "render.temperature_min", Label: "temperature min", Group: g, Unit: "°C",
		Min: scene.MinTemperature, Max: scene.MaxTemperature, SoftMin: -50, SoftMax: 250,
		Desc: "Temperature at the blue (cold) end of the temperature colormap"})
	s.Float(&st.tempMax, param.Spec{Name: "render.temperature_max", Label: "temperature max", Group: g, Unit: "°C",
		Min: scene.MinTemperature, Max: scene.MaxTemperature, SoftMin: -50, SoftMax: 250,
		Desc: "Temperature at the red (hot) end of the temperature colormap (a maximum below the minimum turns the map around)"})
	s.Float(&st.radiusScale, param.Spec{Name: "render.radius_scale", Label: "radius scale", Group: g,
		Min: 0.2, Max: 2,
		Desc: "Drawn sphere radius relative to the particle radius"})
	s.Vec3(&st.waterColor, param.Spec{Name: "render.water_color", Label: "water colour", Group: g,
		Min: 0, Max: 1,
		Desc: "RGB colour of water: particles in the water colour mode, and what thick water looks like (it absorbs the rest)"})
	s.Bool(&st.showTank, param.Spec{Name: "render.show_tank", Label: "show tank", Group: g,
		Desc: "Draw the domain box as glass walls and floor"})
	s.Bool(&st.showGround, param.Spec{Name: "render.show_ground", Label: "show ground", Group: g,
		Desc: "Draw the ground plane with its 1 m and 10 cm grid"})
	s.Bool(&st.showObstacles, param.Spec{Name: "render.show_obstacles", Label: "show obstacles", Group: g,
		Desc: "Draw the scene's static obstacles"})
	s.Vec3(&st.obstacleColor, param.Spec{Name: "render.obstacle_color", Label: "obstacle colour", Group: g,
		Min: 0, Max: 1,
		Desc: "RGB colour of the static obstacles"})
	s.Vec3(&st.bodyColor, param.Spec{Name: "render.body_color", Label: "body colour", Group: g, Min: 0, Max: 1,
		Desc: "RGB colour of the first rigid body; each next one takes this colour with its hue turned by the golden angle"})

	s.Float(&st.scale, param.Spec{Name: "render.scale", Label: "resolution scale", Group: gs,
		Min: 0.25, Max: 1,
		Desc: "Resolution of the surface's images (depth, thickness, smoothing, shading) as a fraction of the view's; " +
			"the shaded water is upsampled over the full-size scene. Lower is faster on a slow GPU or a software " +
			"rasteriser; the filters' pixel radii scale along, so the water looks the same, only softer"})
	s.Float(&st.splatScale, param.Spec{Name: "render.splat_scale", Label: "splat scale", Group: gs,
		Min: 0.1, Max: 4, SoftMin: 0.5, SoftMax: 2,
		Desc: "Size of each particle's ellipsoid (or sphere) in the surface, relative to its kernel (or radius)"})
	s.Choice(&st.smoothing, param.Spec{Name: "render.smoothing", Label: "smoothing", Group: gs,
		Items: []string{"curvature-flow", "narrow-range", "none"},
		Desc:  "How the surface's depth image is smoothed: curvature flow, the narrow-range filter, or not at all"})
	s.Int(&st.smoothIters, param.Spec{Name: "render.smooth_iterations", Label: "flow iterations", Group: gs,
		Min: 0, Max: 200, SoftMin: 0, SoftMax: 100,
		Desc: "Curvature flow: iterations per frame (each is a full-screen pass)"})
	s.Float(&st.smoothDt, param.Spec{Name: "render.smooth_dt", Label: "flow Δt", Group: gs, Unit: "m·px",
		Min: 1e-6, Max: 1, SoftMin: 1e-5, SoftMax: 0.01, Log: true,
		Desc: "Curvature flow: time step Δt of z ← z + Δt·H, capped per pixel at the stable step"})
	s.Float(&st.filterRadius, param.Spec{Name: "render.filter_radius", Label: "filter radius", Group: gs, Unit: "px",
		Min: 1, Max: maxFilterRadius, SoftMin: 2, SoftMax: 32,
		Desc: "Narrow-range filter: largest kernel radius in pixels (near fluid; the kernel spans 3 particle radii)"})
	s.Float(&st.depthThreshold, param.Spec{Name: "render.depth_threshold", Label: "depth threshold", Group: gs,
		Min: 0.1, Max: 100, SoftMin: 0.5, SoftMax: 20, Log: true,
		Desc: "Smoothing never reaches across a depth step larger than this many particle radii (silhouettes stay)"})
	s.Float(&st.thicknessScale, param.Spec{Name: "render.thickness_scale", Label: "thickness scale", Group: gs,
		Min: 0, Max: 10, SoftMin: 0, SoftMax: 3,
		Desc: "Multiplies the water thickness that absorption and refraction see"})
	s.Bool(&st.thicknessHalf, param.Spec{Name: "render.thickness_half", Label: "half-size thickness", Group: gs,
		Desc: "Render the thickness image at half resolution (faster; it is smooth anyway)"})
	s.Bool(&st.cullInterior, param.Spec{Name: "render.cull_interior", Label: "skip the interior in depth", Group: gs,
		Desc: "Leave particles deep inside the fluid (a full neighbourhood) out of the splat depth pass: they are never the front-most; the thickness still counts them"})
	s.Float(&st.absorption, param.Spec{Name: "render.absorption", Label: "absorption", Group: gs, Unit: "1/m",
		Min: 0, Max: 1000, SoftMin: 0, SoftMax: 50,
		Desc: "Beer–Lambert strength k: light through thickness t keeps exp(−k·(1 − water colour)·t)"})
	s.Float(&st.refraction, param.Spec{Name: "render.refraction", Label: "refraction", Group: gs, Unit: "1/m",
		Min: 0, Max: 10, SoftMin: 0, SoftMax: 1,
		Desc: "How far the scene behind the water shifts: screen fraction per metre of thickness along the normal"})
	s.Float(&st.specular, param.Spec{Name: "render.specular", Label: "specular", Group: gs,
		Min: 0, Max: 4, SoftMin: 0, SoftMax: 2,
		Desc: "Strength of the light's highlight on the water"})
	s.Int(&st.sprayNeighbors, param.Spec{Name: "render.spray_neighbors", Label: "spray below", Group: gs,
		Min: 0, Max: 200, SoftMin: 0, SoftMax: 20,
		Desc: "Particles with fewer neighbours than this are spray: white points, not surface (needs ellipsoids)"})
	s.Float(&st.spraySize, param.Spec{Name: "render.spray_size", Label: "spray size", Group: gs,
		Min: 0.05, Max: 4, SoftMin: 0.1, SoftMax: 2,
		Desc: "Radius of a spray point relative to the particle radius"})
	return s
}

// WantsEllipsoids says whether the current render mode draws with each particle's anisotropic kernel
// (Particles.Ellipsoids): every mode but particles. Without kernels those modes fall back to spheres.
func (r *Renderer) WantsEllipsoids() bool { return r.set.mode != ModeParticles }

// WantsNeighborCounts says whether a frame reads each particle's neighbour count (the w of the first vec4 of
// Particles.Ellipsoids): only the surface's spray does, in render.mode surface with render.spray_neighbors above 0.
// split asks about the window's side-by-side view, whose left half is the surface whatever the mode.
func (r *Renderer) WantsNeighborCounts(split bool) bool {
	return r.set.sprayNeighbors > 0 && (split || r.set.mode == ModeSurface)
}

// WantsMesh says whether the render mode draws a mesh of the fluid (Particles.Mesh): render.mode mesh.
func (r *Renderer) WantsMesh() bool { return r.set.mode == ModeMesh }

// Params returns the render settings (render.color, render.speed_max, ...). They take effect at the next Draw.
func (r *Renderer) Params() *param.Set { return r.params }

// SetPaddle draws the paddle tool's sphere (centre xyz, radius w) in the frames that follow; a radius of 0 (or
// less) hides it. The sphere is what pushes the fluid, so it is drawn as it is, among the scene's solids.
func (r *Renderer) SetPaddle(center [3]float32, radius float32) {
	if r == nil {
		return
	}
	if r.deleted || !(radius > 0) {
		r.paddle = [4]float32{}
		return
	}
	if r.sphere.count == 0 {
		m, err := trimesh.Shape(&scene.Shape{Kind: "sphere", Radius: 1})
		if err == nil {
			err = r.sphere.upload(m)
		}
		if err != nil {
			r.err = errors.Join(r.err, fmt.Errorf("the paddle's sphere: %w", err))
			return
		}
	}
	r.paddle = [4]float32{center[0], center[1], center[2], radius}
}

// SetBodies (re)builds the meshes of the rigid bodies, body i from shapes[i] in the pose the scene gives it; each
// frame draws body i moved to Particles.Bodies[i]. Shapes it cannot draw are reported by Err.
func (r *Renderer) SetBodies(shapes []scene.Shape) {
	for i := range r.bodies {
		r.bodies[i].Delete()
	}
	r.bodies = r.bodies[:0]
	if r.deleted {
		return
	}
	var errs []error
	for i := range shapes {
		var g gpuMesh
		m, err := trimesh.Shape(&shapes[i])
		if err == nil {
			err = g.upload(m)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("bodies[%d]: %w", i, err))
		}
		r.bodies = append(r.bodies, g) // an empty mesh keeps the indices aligned with the poses
	}
	r.err = errors.Join(append([]error{r.err}, errs...)...)
}

// SetScene (re)builds the tank, ground and obstacle geometry for sc; nil removes it. Obstacles it cannot draw
// (meshes, for now) are left out and reported by Err.
func (r *Renderer) SetScene(sc *scene.Scene) {
	r.err = nil
	r.scene = sceneInfo{}
	r.sceneCount++
	r.tank.Delete()
	r.obstacles.Delete()
	if sc == nil || r.deleted {
		return
	}
	d := sc.Domain
	r.scene = sceneInfo{ok: true, min: vec3(d.Min), max: vec3(d.Max), extent: float32(d.Size().MaxComp())}
	r.scene.groundY = float32(d.Min[1]) - max(1e-3, 0.002*r.scene.extent)

	var errs []error
	tank := trimesh.Box(d.Center(), d.Size().Scale(0.5))
	if err := r.tank.upload(tank); err != nil {
		errs = append(errs, fmt.Errorf("render: tank: %w", err))
	}
	obs := new(trimesh.Mesh)
	for i := range sc.Obstacles {
		m, err := trimesh.Shape(&sc.Obstacles[i].Shape)
		if err != nil {
			errs = append(errs, fmt.Errorf("obstacles[%d]: %w", i, err))
			continue
		}
		obs.Append(m)
	}
	if err := r.obstacles.upload(obs); err != nil {
		errs = append(errs, fmt.Errorf("render: obstacles: %w", err))
	}
	r.err = errors.Join(errs...)
}

// Err reports what the last SetScene could not build, and why the last Draw could not make the fluid surface's
// offscreen images (it drew spheres instead); nil when everything is drawn.
func (r *Renderer) Err() error { return errors.Join(r.err, r.drawErr) }

// Draw renders one frame into the currently bound framebuffer: it sets the viewport to v, clears colour and
// depth, and runs the passes (sky, ground, tank, obstacles, then the fluid as render.mode says; see
// framePasses). The target's alpha ends up 1 everywhere (but see SetTransparent) and its depth holds the scene's
// and the fluid's depth.
//
// It leaves: the caller's draw and read framebuffers bound; viewport (0, 0, v.W, v.H); depth test on, GL_LESS,
// depth writes on; blending off, with blend functions SRC_ALPHA, ONE_MINUS_SRC_ALPHA for colour and ZERO, ONE for
// alpha; face culling off, cull face BACK, front face CCW; program point size off; program 0; vertex array 0;
// ARRAY_BUFFER 0; texture unit 0 active, with no 2D texture bound on units 0–3; and the renderer's per-frame
// uniform buffer on uniform-buffer binding point 1.
func (r *Renderer) Draw(v Viewport, cam Camera, p Particles) { r.DrawAs(r.set.mode, v, cam, p) }

// DrawAs draws like Draw in render mode mode (ModeSurface, ModeMesh, ...) instead of render.mode: the two halves
// of a side-by-side comparison of the splatted and the meshed surface.
func (r *Renderer) DrawAs(mode int32, v Viewport, cam Camera, p Particles) {
	if r.deleted || v.W <= 0 || v.H <= 0 {
		return
	}
	var target, read int32
	gl.GetIntegerv(gl.DRAW_FRAMEBUFFER_BINDING, &target)
	gl.GetIntegerv(gl.READ_FRAMEBUFFER_BINDING, &read)
	f := &frameState{vp: v, cam: cam, p: p, n: particleCount(p), target: uint32(target), read: uint32(read), mode: mode}
	r.timers.Begin()
	r.beginFrame(f)
	for _, ps := range r.passes {
		if ps.enabled(f) {
			ps.draw(f)
			r.timers.Mark(ps.name)
		}
	}
	r.timers.End()
	r.endFrame(f)
}

// Timings returns the GPU milliseconds of each pass of a recent frame. Results arrive a frame or two late; ok is
// false until the first has.
func (r *Renderer) Timings() ([]sim.Pass, bool) {
	if r.deleted {
		return nil, false
	}
	passes, _, ok := r.timers.Poll()
	return passes, ok
}

// SetWallTimings makes Timings report each pass's wall time, finishing it (glFinish) before the next begins,
// instead of GPU timer queries: slower, but true on a software rasteriser such as llvmpipe, whose timer queries
// give one pass's work to another.
func (r *Renderer) SetWallTimings(on bool) { r.timers.SetWall(on) }

// Delete frees every GL object the renderer made; safe to call twice. The particle buffers are the caller's.
func (r *Renderer) Delete() {
	if r == nil {
		return
	}
	for _, p := range r.programs() {
		p.Delete()
	}
	r.empty.Delete()
	r.particles.Delete()
	r.instances.Delete()
	r.surf.Delete()
	r.bg.Delete()
	r.frameUBO.Delete()
	r.scaledUBO.Delete()
	r.tank.Delete()
	r.obstacles.Delete()
	for i := range r.bodies {
		r.bodies[i].Delete()
	}
	r.bodies = nil
	r.sphere.Delete()
	r.timers.Delete()
	r.scene = sceneInfo{}
	r.deleted = true
}

// programs lists every program the renderer owns.
func (r *Renderer) programs() []*glh.Program {
	return []*glh.Program{r.skyProg, r.groundProg, r.tankProg, r.meshProg, r.particleProg,
		r.splatDepthProg, r.splatThickProg, r.splatTintProg, r.meshDepthProg, r.meshThickProg, r.thickBlurProg, r.ellipsoidProg, r.curvatureProg, r.narrowProg, r.compositeProg, r.sprayProg,
		r.compositeScaledProg, r.upsampleProg, r.upsampleBlendProg}
}

func vec3(v scene.Vec3) mgl32.Vec3 { return mgl32.Vec3{float32(v[0]), float32(v[1]), float32(v[2])} }

// vertex is one mesh vertex as the mesh programs read it: world position and unit normal, interleaved.
type vertex struct {
	Pos, Normal [3]float32
}

// gpuMesh is a mesh in GL buffers, drawn as indexed triangles.
type gpuMesh struct {
	vao      *glh.VertexArray
	vbo, ibo *glh.Buffer
	count    int32
	verts    []vertex // the interleaved vertices of the last upload
}

// upload puts m into the mesh's buffers, reusing them when they are large enough (a fluid mesh changes every
// frame) and making larger ones otherwise.
func (g *gpuMesh) upload(m *trimesh.Mesh) error {
	g.count = 0
	if len(m.Triangles) == 0 {
		return nil
	}
	if len(m.Normals) != len(m.Positions) {
		return fmt.Errorf("a mesh of %d positions has %d normals", len(m.Positions), len(m.Normals))
	}
	g.verts = grow.Resize(g.verts, len(m.Positions)) // kept: a fluid mesh comes every frame
	verts := g.verts
	for i := range verts {
		verts[i] = vertex{m.Positions[i], m.Normals[i]}
	}
	vbytes, ibytes := len(verts)*int(sizeofVertex), len(m.Triangles)*12
	if g.vbo == nil || g.vbo.Size() < vbytes || g.ibo.Size() < ibytes {
		g.Delete()
		var err error
		// room to grow by a quarter before the next reallocation
		if g.vbo, err = glh.NewBuffer(vbytes+vbytes/4, gl.DYNAMIC_DRAW); err != nil {
			return err
		}
		if g.ibo, err = glh.NewBuffer(ibytes+ibytes/4, gl.DYNAMIC_DRAW); err != nil {
			g.Delete()
			return err
		}
		g.vao = glh.NewVertexArray()
		g.vao.Bind()
		glh.Attrib(attrMeshPos, g.vbo, 3, int32(sizeofVertex), 0, 0)
		glh.Attrib(attrMeshNormal, g.vbo, 3, int32(sizeofVertex), 12, 0)
		gl.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, g.ibo.ID()) // recorded in the VAO
		gl.BindVertexArray(0)
		gl.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, 0)
	}
	glh.Upload(g.vbo, 0, verts)
	glh.Upload(g.ibo, 0, m.Triangles)
	g.count = int32(3 * len(m.Triangles))
	if err := glh.CheckError("uploading a mesh"); err != nil {
		g.Delete()
		return err
	}
	return nil
}

func (g *gpuMesh) draw() {
	if g.count == 0 {
		return
	}
	g.vao.Bind()
	gl.DrawElementsWithOffset(gl.TRIANGLES, g.count, gl.UNSIGNED_INT, 0)
}

// Delete frees the mesh's buffers; safe to call twice.
func (g *gpuMesh) Delete() {
	g.vao.Delete()
	g.vbo.Delete()
	g.ibo.Delete()
	*g = gpuMesh{}
}
