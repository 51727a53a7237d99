package app

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/slosh/slosh/assets"
	"github.com/slosh/slosh/gpu/render"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/replay"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/sph"
	"github.com/slosh/slosh/ui"
)

// The hands: tools the mouse works in the window. A left drag that starts on a rigid body grabs it and throws it
// with the mouse's velocity when released (the grab tool); otherwise it orbits the camera. Ctrl + left drag, or
// the paddle tool, pushes the fluid with a sphere at the cursor; the drop tool drops the object chosen in the panel
// above the point clicked; the pour tool pours a stream there while the button is held, of the material chosen in
// the panel when the scene has materials; the drain tool removes the fluid near the cursor while held. Where the
// mode has heat (offer), the heat and cool tools warm or cool the particles near the cursor while held
// (sim.Tools.Heat: a hot one melts solids, a cold one sets what melted), and the panel's drop-body button drops a
// block or sphere of particles of one of the scene's solid materials above the fluid. Every action goes to the
// solver through sim.Hands between steps; the last drop or drain can be undone.

// Tools, as the values of tools.tool.
const (
	toolGrab = iota
	toolPaddle
	toolDrop
	toolPour
	toolDrain
	toolHeat // the heat and cool tools come last: they are offered only where the mode has heat
	toolCool
)

var toolNames = []string{"grab", "paddle", "drop", "pour", "drain", "heat", "cool"}

var toolHints = []string{
	"Grab: drag a body to throw it; drag elsewhere to orbit",
	"Paddle: drag to push the fluid with a sphere",
	"Drop: click to drop the object chosen under Tools",
	"Pour: hold the button to pour where you point",
	"Drain: hold the button to remove fluid where you point",
	"Heat: hold the button to warm what you point at; solids melt",
	"Cool: hold the button to cool what you point at; what melted sets again",
}

// heatKeys are the 3D sandbox's shortcuts where the heat and cool tools are offered: keys 6 and 7 too.
var heatKeys = func() []string {
	out := slices.Clone(ui.DefaultKeys)
	for i := range out {
		out[i] = strings.Replace(out[i], "5 drain", "5 drain · 6 heat · 7 cool", 1)
	}
	return out
}()

// Shapes the drop-body button drops, as the values of tools.body_shape.
var solidShapes = []string{"block", "sphere"}

// Objects the drop tool makes, as the values of tools.drop_shape.
var dropShapes = []string{"sphere", "box", "capsule", "bunny"}

// toolConfig holds the tools' settings, shown in the panel as the set tools.*.
type toolConfig struct {
	Tool         int32
	DropShape    int32
	DropSize     float32 // m: diameter, side, length or the bunny's extent
	DropDensity  float32 // kg/m³
	PaddleRadius float32 // m
	PourMaterial int32   // index into offer.pour
	PourRadius   float32 // m
	PourSpeed    float32 // m/s
	PourHeight   float32 // m above the point clicked
	DrainRadius  float32 // m
	HeatRadius   float32 // m
	HeatTemp     float32 // °C: the heat tool's
	CoolTemp     float32 // °C: the cool tool's
	HeatRate     float32 // 1/s
	BodyMaterial int32   // index into offer.solids
	BodyShape    int32   // index into solidShapes
	BodySize     float32 // m: the block's side or the sphere's diameter
}

func defaultToolConfig() toolConfig {
	return toolConfig{DropSize: 0.12, DropDensity: 500, PaddleRadius: 0.06, PourRadius: 0.03, PourSpeed: 1.5,
		PourHeight: 0.15, DrainRadius: 0.06, HeatRadius: 0.05, HeatTemp: 100, CoolTemp: 0, HeatRate: 10, BodySize: 0.08}
}

// toolOffer is what the tools offer for a scene in a mode: the materials to pour (pourChoices), the heat and cool
// tools where the mode has heat, and the solid materials the drop-body button drops (solidChoices).
type toolOffer struct {
	pour   []pourChoice
	heat   bool
	solids []string
}

func (o toolOffer) equal(p toolOffer) bool {
	return slices.Equal(o.pour, p.pour) && o.heat == p.heat && slices.Equal(o.solids, p.solids)
}

// tools is how many tools are offered: the heat and cool tools only with heat.
func (o toolOffer) tools() int {
	if o.heat {
		return len(toolNames)
	}
	return toolHeat
}

// offerFor is what the tools offer for sc in a mode that simulates kinds.
func offerFor(sc *scene.Scene, kinds []scene.Kind) toolOffer {
	return toolOffer{pour: pourChoices(sc, kinds), heat: hasHeat(sc, kinds), solids: solidChoices(sc, kinds)}
}

// register adds the tools' settings to s: the tools offered, a choice among the materials pour offers when there
// are any, the heat and cool tools' settings with heat, and the drop-body button's with solid materials.
func (c *toolConfig) register(s *param.Set, o toolOffer) {
	keys := fmt.Sprintf("1–%d", o.tools())
	s.Choice(&c.Tool, param.Spec{Name: "tools.tool", Label: "Tool", Group: "Tools", Items: toolNames[:o.tools()],
		Desc: "What a left drag in the view does (keys " + keys + "); a drag starting on a body always grabs it with the grab tool, ctrl + drag is always the paddle"})
	s.Choice(&c.DropShape, param.Spec{Name: "tools.drop_shape", Label: "Drop: object", Group: "Tools|Drop", Items: dropShapes,
		Desc: "The object the drop tool drops"})
	s.Float(&c.DropSize, param.Spec{Name: "tools.drop_size", Label: "Drop: size", Group: "Tools|Drop", Unit: "m", Min: 0.01, Max: 2, SoftMin: 0.03, SoftMax: 0.4,
		Desc: "Diameter of the sphere, side of the box, length of the capsule, longest side of the bunny"})
	s.Float(&c.DropDensity, param.Spec{Name: "tools.drop_density", Label: "Drop: density", Group: "Tools|Drop", Unit: "kg/m³", Min: 1, Max: scene.MaxBodyDensity, SoftMin: 50, SoftMax: 8000, Log: true,
		Desc: "Density of the dropped object: below the fluid's it floats (wood 600), above it sinks (stone 2600)"})
	s.Float(&c.PaddleRadius, param.Spec{Name: "tools.paddle_radius", Label: "Paddle radius", Group: "Tools|Paddle", Unit: "m", Min: 0.005, Max: 1, SoftMin: 0.02, SoftMax: 0.2,
		Desc: "Radius of the sphere the paddle pushes the fluid with; at most a sphere of an eighth of the scene's tank, which leaves the water room"})
	if pour := o.pour; len(pour) > 0 {
		items := make([]string, len(pour))
		for i := range pour {
			items[i] = pour[i].label
		}
		s.Choice(&c.PourMaterial, param.Spec{Name: "tools.pour_material", Label: "Pour: material", Group: "Tools|Pour", Items: items,
			Desc: "What the pour tool pours: water or one of the scene's materials that this mode simulates"})
	}
	s.Float(&c.PourRadius, param.Spec{Name: "tools.pour_radius", Label: "Pour: radius", Group: "Tools|Pour", Unit: "m", Min: 0.005, Max: 0.5, SoftMin: 0.01, SoftMax: 0.1,
		Desc: "Radius of the poured stream"})
	s.Float(&c.PourSpeed, param.Spec{Name: "tools.pour_speed", Label: "Pour: speed", Group: "Tools|Pour", Unit: "m/s", Min: 0.1, Max: scene.MaxSpeed, SoftMin: 0.5, SoftMax: 5,
		Desc: "Speed of the stream; with the radius it sets the rate, π r² × speed"})
	s.Float(&c.PourHeight, param.Spec{Name: "tools.pour_height", Label: "Pour: height", Group: "Tools|Pour", Unit: "m", Min: 0, Max: 2, SoftMin: 0, SoftMax: 0.5,
		Desc: "How far above the point under the cursor the stream starts"})
	s.Float(&c.DrainRadius, param.Spec{Name: "tools.drain_radius", Label: "Drain radius", Group: "Tools|Drain", Unit: "m", Min: 0.005, Max: 1, SoftMin: 0.02, SoftMax: 0.3,
		Desc: "Radius of the region the drain removes fluid from"})
	if o.heat {
		c.registerHeat(s)
	}
	if len(o.solids) > 0 {
		s.Choice(&c.BodyMaterial, param.Spec{Name: "tools.body_material", Label: "Body: material", Group: "Tools|Solid body", Items: o.solids,
			Desc: "What the Drop button under the tools drops: one of the scene's elastic, plastic, rigid or elastoplastic materials, at its starting temperature"})
		s.Choice(&c.BodyShape, param.Spec{Name: "tools.body_shape", Label: "Body: shape", Group: "Tools|Solid body", Items: solidShapes,
			Desc: "A block or a sphere of particles on the solver's lattice, one body from the next step (bonded, or for an elastoplastic material held by its own neighbours)"})
		s.Float(&c.BodySize, param.Spec{Name: "tools.body_size", Label: "Body: size", Group: "Tools|Solid body", Unit: "m", Min: 0.01, Max: 1, SoftMin: 0.03, SoftMax: 0.2,
			Desc: "Side of the block or diameter of the sphere; it drops above the fluid under the view's centre"})
	}
}

// registerHeat adds the heat and cool tools' settings, within the bounds a replay holds (a scene heater's).
func (c *toolConfig) registerHeat(s *param.Set) {
	s.Float(&c.HeatRadius, param.Spec{Name: "tools.heat_radius", Label: "Heat: radius", Group: "Tools|Heat", Unit: "m", Min: 0.005, Max: replay.MaxToolRadius, SoftMin: 0.01, SoftMax: 0.2,
		Desc: "Radius of the sphere the heat and cool tools act in"})
	s.Float(&c.HeatTemp, param.Spec{Name: "tools.heat_temperature", Label: "Heat: temperature", Group: "Tools|Heat", Unit: "°C", Min: scene.MinTemperature, Max: scene.MaxTemperature, SoftMin: 0, SoftMax: 300,
		Desc: "The temperature the heat tool brings particles towards: above a solid's melting point it melts"})
	s.Float(&c.CoolTemp, param.Spec{Name: "tools.cool_temperature", Label: "Cool: temperature", Group: "Tools|Heat", Unit: "°C", Min: scene.MinTemperature, Max: scene.MaxTemperature, SoftMin: -50, SoftMax: 100,
		Desc: "The temperature the cool tool brings particles towards: below a solid's solidifying point what melted sets again"})
	s.Float(&c.HeatRate, param.Spec{Name: "tools.heat_rate", Label: "Heat: rate", Group: "Tools|Heat", Unit: "1/s", Min: 0.01, Max: scene.MaxHeatRate, SoftMin: 0.5, SoftMax: 100, Log: true,
		Desc: "How fast the particles under the tool reach its temperature, as a scene heater's rate: T moves by the fraction 1 − e^(−rate·Δt) each step, so 10 brings them most of the way in a tenth of a second"})
}

// gesture is the drag in progress with a tool.
type gesture int

const (
	gestureNone gesture = iota
	gestureGrab
	gesturePaddle
	gesturePour
	gestureDrain
	gestureHeat // the heat or the cool tool, at temperature hands.heatAt
)

// grabTime is how quickly a grabbed body catches up with the cursor: its velocity is the distance over this time.
const grabTime = 1.0 / 20

// maxThrow caps a grabbed body's speed, m/s.
const maxThrow = 10

// drainEvery is how many display frames pass between the drain's removals while the button is held (each one reads
// the state back on the GPU).
const drainEvery = 4

// hands is the state of the tools in the window; all of it belongs to the GL thread.
type hands struct {
	cfg toolConfig
	set *param.Set

	// offer is what the tools offer (offerFor) for the scene and the mode's kinds, which the running solver
	// simulates (sim.KindsOf; set with each driver)
	offer toolOffer
	kinds []scene.Kind

	gesture gesture
	body    int        // the grabbed body
	depth   float32    // distance along the cursor ray at which the gesture acts
	offset  mgl32.Vec3 // grab point − body centre when grabbed
	frames  int        // display frames since the gesture began
	heatAt  float32    // °C: the heat or cool tool's temperature while it is held
	undo    *undoRecord
	// bodies are the shapes of the solver's rigid bodies, in its order: the scene's, then those dropped
	bodies []scene.Body
	bunny  *scene.MeshData // loaded on the first bunny drop
}

// undoRecord is the last tool action that can be undone.
type undoRecord struct {
	label   string         // "drop", "drain"
	body    int            // the body a drop added
	removed []sim.Particle // the fluid a drain removed, or a drop displaced
}

func newHands() *hands {
	h := &hands{cfg: defaultToolConfig(), set: param.NewSet()}
	h.cfg.register(h.set, toolOffer{})
	return h
}

// pourChoice is a material the pour tool offers: its name in the scene ("" the default material) and its label.
type pourChoice struct{ name, label string }

// pourChoices are the materials the pour tool offers in sc to a mode that simulates kinds: the default material,
// water, then each of the scene's materials of those kinds; none when the scene has no such material, and the tool
// pours the default.
func pourChoices(sc *scene.Scene, kinds []scene.Kind) []pourChoice {
	def := scene.DefaultMaterial().Name
	out := []pourChoice{{label: def}}
	simulated := func(k scene.Kind) bool {
		return slices.ContainsFunc(kinds, func(have scene.Kind) bool { return have.Canonical() == k.Canonical() })
	}
	for _, m := range sc.Materials {
		if !simulated(m.Kind) {
			continue
		}
		out = append(out, pourChoice{name: m.Name, label: m.Name})
		if m.Name == def {
			out[0].label = def + " (default)" // the scene's own water is another material
		}
	}
	if len(out) == 1 {
		return nil
	}
	return out
}

// hasHeat says whether a mode that simulates kinds has heat in sc: whether its particles carry temperatures
// (sim.Frame.Temperature), which a solver of Solenthaler's solids keeps for a scene with solids, diffusivities or
// heaters. Elsewhere the heat and cool tools would change nothing.
func hasHeat(sc *scene.Scene, kinds []scene.Kind) bool {
	if !slices.ContainsFunc(kinds, func(k scene.Kind) bool { return k.Canonical().Solid() }) {
		return false
	}
	if len(sc.Heaters) > 0 {
		return true
	}
	return slices.ContainsFunc(sc.Materials, func(m scene.Material) bool { return m.Kind.Canonical().Solid() || m.Diffusivity > 0 })
}

// solidChoices are the scene's materials of a kind that makes bodies (elastic, plastic, rigid, elastoplastic:
// scene.Kind.Body) that a mode simulating kinds simulates, by name: what the drop-body button drops.
func solidChoices(sc *scene.Scene, kinds []scene.Kind) []string {
	var out []string
	for _, m := range sc.Materials {
		k := m.Kind.Canonical()
		if k.Body() && slices.ContainsFunc(kinds, func(have scene.Kind) bool { return have.Canonical() == k }) {
			out = append(out, m.Name)
		}
	}
	return out
}

// setOffer makes o what the tools offer, keeping the material chosen to pour and to drop when it is still
// offered, and the tool unless it is no longer offered (then the grab). When the offer changes the panel's set is
// built again (registered from the defaults, then given the values the tools had).
func (h *hands) setOffer(o toolOffer) {
	if o.equal(h.offer) {
		return
	}
	pour, body := h.pourMaterial(), h.bodyMaterial()
	cfg := h.cfg
	h.offer, h.cfg, h.set = o, defaultToolConfig(), param.NewSet()
	h.cfg.register(h.set, o)
	h.cfg = cfg
	if int(h.cfg.Tool) >= o.tools() {
		h.cfg.Tool = toolGrab
	}
	h.cfg.PourMaterial, h.cfg.BodyMaterial = 0, 0
	for i := range o.pour {
		if o.pour[i].name == pour {
			h.cfg.PourMaterial = int32(i)
		}
	}
	for i, name := range o.solids {
		if name == body {
			h.cfg.BodyMaterial = int32(i)
		}
	}
}

// pourMaterial is the name of the material the pour tool pours (scene.Emitter.Material): the one chosen in the
// panel, "" for the default.
func (h *hands) pourMaterial() string {
	if i := int(h.cfg.PourMaterial); i > 0 && i < len(h.offer.pour) {
		return h.offer.pour[i].name
	}
	return ""
}

// bodyMaterial is the name of the solid material the drop-body button drops, "" when none is offered.
func (h *hands) bodyMaterial() string {
	if i := int(h.cfg.BodyMaterial); i >= 0 && i < len(h.offer.solids) {
		return h.offer.solids[i]
	}
	return ""
}

// ray is a half-line from the eye through a point of the view.
type ray struct {
	origin, dir mgl32.Vec3
}

func (r ray) at(t float32) mgl32.Vec3 { return r.origin.Add(r.dir.Mul(t)) }

// cursorRay is the ray through window point (x, y) (screen coordinates, origin top left) of a w × h window.
func cursorRay(cam render.Camera, x, y, w, h float64) (ray, bool) {
	if !(w > 0 && h > 0) {
		return ray{}, false
	}
	nx, ny := float32(2*x/w-1), float32(1-2*y/h)
	inv := cam.Proj.Mul4(cam.View).Inv()
	near := mgl32.TransformCoordinate(mgl32.Vec3{nx, ny, -1}, inv)
	far := mgl32.TransformCoordinate(mgl32.Vec3{nx, ny, 1}, inv)
	d := far.Sub(near)
	if l := d.Len(); l > 0 && !math.IsNaN(float64(l)) && !math.IsInf(float64(l), 0) {
		return ray{origin: near, dir: d.Mul(1 / l)}, true
	}
	return ray{}, false
}

// pickParticle finds the first particle the ray passes within one particle spacing of: its index and distance
// along the ray, or −1.
func pickParticle(f *sim.Frame, r ray) (int, float32) {
	if f == nil {
		return -1, 0
	}
	best, bestT := -1, float32(math.Inf(1))
	rad := 2 * f.Radius
	for i := 0; i < f.N; i++ {
		p := mgl32.Vec3{f.Pos[i][0], f.Pos[i][1], f.Pos[i][2]}
		d := p.Sub(r.origin)
		t := d.Dot(r.dir)
		if t <= 0 || t >= bestT {
			continue
		}
		if d.Dot(d)-t*t < rad*rad {
			best, bestT = i, t
		}
	}
	return best, bestT
}

// boxExit is the distance along the ray at which it leaves the box [lo, hi] (the far wall or floor the cursor
// points at), or false when it misses the box.
func boxExit(r ray, lo, hi mgl32.Vec3) (float32, bool) {
	tmin, tmax := float32(math.Inf(-1)), float32(math.Inf(1))
	for k := 0; k < 3; k++ {
		if r.dir[k] == 0 {
			if r.origin[k] < lo[k] || r.origin[k] > hi[k] {
				return 0, false
			}
			continue
		}
		t1, t2 := (lo[k]-r.origin[k])/r.dir[k], (hi[k]-r.origin[k])/r.dir[k]
		tmin, tmax = max(tmin, min(t1, t2)), min(tmax, max(t1, t2))
	}
	if tmax < max(tmin, 0) {
		return 0, false
	}
	return tmax, true
}

// target is where the cursor ray meets what is under it: the first particle, else the far side of the domain;
// body is the rigid body that particle belongs to, or −1.
func target(f *sim.Frame, r ray, sc *scene.Scene) (t float32, body int, ok bool) {
	if i, ti := pickParticle(f, r); i >= 0 {
		body = -1
		if i < len(f.Body) {
			body = int(f.Body[i])
		}
		return ti, body, true
	}
	t, ok = boxExit(r, vec3(sc.Domain.Min), vec3(sc.Domain.Max))
	return t, -1, ok
}

// clampInto keeps p at least margin inside the domain.
func clampInto(p mgl32.Vec3, sc *scene.Scene, margin float32) mgl32.Vec3 {
	for k := 0; k < 3; k++ {
		lo, hi := float32(sc.Domain.Min[k])+margin, float32(sc.Domain.Max[k])-margin
		if lo > hi {
			lo, hi = (lo+hi)/2, (lo+hi)/2
		}
		p[k] = min(max(p[k], lo), hi)
	}
	return p
}

// dropBody is the object the drop tool makes, resting on its lowest point at p.
func (h *hands) dropBody(p mgl32.Vec3, sc *scene.Scene) (scene.Body, error) {
	c := &h.cfg
	size := float64(c.DropSize)
	var sh scene.Shape
	switch dropShapes[c.DropShape] {
	case "sphere":
		sh = scene.Shape{Kind: scene.ShapeSphere, Radius: size / 2}
	case "box":
		sh = scene.Shape{Kind: scene.ShapeBox, Size: scene.Vec3{size, size, size}, Rotation: scene.Vec3{0, 30, 0}}
	case "capsule":
		r := size / 4
		sh = scene.Shape{Kind: scene.ShapeCapsule, A: scene.Vec3{-(size/2 - r), 0, 0}, B: scene.Vec3{size/2 - r, 0, 0}, Radius: r}
	case "bunny":
		if h.bunny == nil {
			md, err := scene.LoadMesh(assets.Meshes(), "bunny.obj")
			if err != nil {
				return scene.Body{}, err
			}
			h.bunny = md
		}
		sh = scene.Shape{Kind: scene.ShapeMesh, Extent: size}
		sh.SetMesh(h.bunny)
	}
	half := sh.Bounds().Size().Scale(0.5)
	lift := float32(half[1]) + 0.05
	q := clampInto(p.Add(mgl32.Vec3{0, lift, 0}), sc, float32(max(half[0], half[1], half[2])))
	c3 := scene.Vec3{float64(q[0]), float64(q[1]), float64(q[2])}
	if sh.Kind == scene.ShapeCapsule {
		sh.A, sh.B = sh.A.Add(c3), sh.B.Add(c3)
	} else {
		sh.Center = c3
	}
	// the clamp above is in float32: against the far wall it can leave the shape 2e-8 m outside, and a save
	// file's scene must hold its bodies inside the domain
	sh = fitInside(sh, sc.Domain)
	return scene.Body{Shape: sh, Density: float64(c.DropDensity)}, nil
}

// withHands runs f with the solver's tools, or says that the mode has none. The calls go through the replay log,
// which records them with the step they came before.
func (v *viewer) withHands(f func(h sim.Hands) (string, error)) func(sim.Solver) (string, error) {
	log := v.log
	return func(s sim.Solver) (string, error) {
		h, ok := log.Hands(s)
		if !ok {
			return "", fmt.Errorf("mode %s has no tools", s.Name())
		}
		return f(h)
	}
}

// resetHands forgets gestures and undo and takes the bodies and the materials to pour from the scene the solver was
// reset with.
func (v *viewer) resetHands(sc *scene.Scene) {
	h := v.hands
	h.gesture, h.undo = gestureNone, nil
	h.bodies = append(h.bodies[:0], sc.Bodies...)
	h.setOffer(offerFor(sc, h.kinds))
	v.rend.SetBodies(v.bodyShapes())
}

// bodyShapes are the shapes of the solver's bodies, in its order.
func (v *viewer) bodyShapes() []scene.Shape {
	out := make([]scene.Shape, len(v.hands.bodies))
	for i := range v.hands.bodies {
		out[i] = v.hands.bodies[i].Shape
	}
	return out
}

// cursor is the ray under the mouse.
func (v *viewer) cursor() (ray, bool) {
	x, y, w, h := v.viewPoint()
	r, _, _ := v.viewPixels()
	fw, fh := r.W, r.H
	if fw <= 0 || fh <= 0 || w <= 0 || h <= 0 {
		return ray{}, false
	}
	if v.ab.on {
		// two views of one camera side by side: the ray through the same point of the half under the cursor
		wa, wb := abHalves(int(w))
		fa, fb := abHalves(fw)
		if x < float64(wa) {
			w, fw = float64(wa), fa
		} else {
			x, w, fw = x-float64(wa), float64(wb), fb
		}
		if w <= 0 || fw <= 0 {
			return ray{}, false
		}
	}
	return cursorRay(v.viewCamera(fw, fh), x, y, w, h)
}

// startGesture begins what a left press in the view does; it returns false when the press should orbit the camera.
func (v *viewer) startGesture(ctrl bool) bool {
	h := v.hands
	r, ok := v.cursor()
	if !ok {
		return false
	}
	f := v.drv.PickFrame()
	t, body, hit := target(f, r, v.sc)
	if !hit {
		return false
	}
	h.depth, h.frames = t, 0
	tool := int(h.cfg.Tool)
	if ctrl {
		tool = toolPaddle
	}
	switch {
	case tool == toolGrab && body >= 0 && body < len(f.Bodies):
		h.gesture, h.body = gestureGrab, body
		c := f.Bodies[body].Center
		h.offset = r.at(t).Sub(mgl32.Vec3{c[0], c[1], c[2]})
		v.status.set(fmt.Sprintf("grabbed body %d: release to throw it", body), false)
	case tool == toolPaddle:
		h.gesture = gesturePaddle
	case tool == toolPour:
		h.gesture = gesturePour
	case tool == toolDrain:
		h.gesture = gestureDrain
		h.undo = &undoRecord{label: "drain"}
	case (tool == toolHeat || tool == toolCool) && h.offer.heat:
		h.gesture, h.heatAt = gestureHeat, h.cfg.HeatTemp
		if tool == toolCool {
			h.heatAt = h.cfg.CoolTemp
		}
	case tool == toolDrop:
		v.drop(r.at(t))
		return true
	default:
		return false
	}
	v.updateGesture()
	return true
}

// updateGesture passes the gesture in progress to the solver; called every display frame while it lasts.
func (v *viewer) updateGesture() {
	h := v.hands
	if h.gesture == gestureNone {
		return
	}
	r, ok := v.cursor()
	if !ok {
		return
	}
	p := r.at(h.depth)
	h.frames++
	switch h.gesture {
	case gestureGrab:
		b := h.body
		bodies := v.drv.Particles().Bodies
		if b >= len(bodies) {
			return
		}
		c := bodies[b].Center
		vel := p.Sub(h.offset).Sub(mgl32.Vec3{c[0], c[1], c[2]}).Mul(1 / grabTime)
		if l := vel.Len(); l > maxThrow {
			vel = vel.Mul(maxThrow / l)
		}
		v.drv.Do(v.withHands(func(hs sim.Hands) (string, error) {
			hs.DriveBody(b, [3]float32(vel), true)
			return "", nil
		}), nil)
	case gesturePaddle:
		pad := &sim.Paddle{Center: [3]float32(p), Radius: min(h.cfg.PaddleRadius, sim.PaddleLimit(v.sc.Domain))}
		v.rend.SetPaddle(pad.Center, pad.Radius) // what pushes the fluid, in sight
		v.drv.Do(v.withHands(func(hs sim.Hands) (string, error) {
			hs.SetTools(sim.Tools{Paddle: pad})
			return "", nil
		}), nil)
	case gesturePour:
		r := pourRadius(h.cfg.PourRadius, 2*v.drv.PickFrame().Radius)
		q := clampInto(p.Add(mgl32.Vec3{0, h.cfg.PourHeight, 0}), v.sc, r)
		e := &scene.Emitter{Center: scene.Vec3{float64(q[0]), float64(q[1]), float64(q[2])}, Direction: scene.Vec3{0, -1, 0},
			Radius: float64(r), Speed: float64(h.cfg.PourSpeed), Material: h.pourMaterial()}
		v.drv.Do(v.withHands(func(hs sim.Hands) (string, error) {
			hs.SetTools(sim.Tools{Emitter: e})
			return "", nil
		}), nil)
	case gestureHeat:
		ht := &sim.HeatTool{Center: [3]float32(p), Radius: h.cfg.HeatRadius, Temperature: h.heatAt, Rate: h.cfg.HeatRate}
		v.drv.Do(v.withHands(func(hs sim.Hands) (string, error) {
			hs.SetTools(sim.Tools{Heat: ht})
			return "", nil
		}), nil)
	case gestureDrain:
		if (h.frames-1)%drainEvery != 0 {
			return
		}
		rec, radius := h.undo, h.cfg.DrainRadius
		var gone []sim.Particle
		v.drv.Do(v.withHands(func(hs sim.Hands) (string, error) {
			var err error
			gone, err = hs.Drain([3]float32(p), radius)
			if err != nil || len(gone) == 0 {
				return "", err
			}
			return fmt.Sprintf("drained %d particles", len(gone)), nil
		}), func() { rec.removed = append(rec.removed, gone...) })
	}
}

// giveBack returns particles an undo gives back to s through its hands hs: where there is room in s now, at rest
// (sim.Returning), and returns how many came back.
func giveBack(s sim.Solver, hs sim.Hands, ps []sim.Particle, dom scene.Box) int {
	var f sim.Frame
	s.Frame(&f)
	return sim.Refill(hs, sim.Returning(&f, ps, dom))
}

// pourRadius is the pouring stream's radius: tools.pour_radius, but at least one and a half particle spacings, so
// that a coarse run (a spacing as large as the radius) pours a stream of nine particles across its disc rather
// than a thread of one.
func pourRadius(radius, spacing float32) float32 { return max(radius, 1.5*spacing) }

// endGesture finishes the gesture in progress: a grabbed body is let go with its velocity, the paddle, the
// stream and the heat tool are put away.
func (v *viewer) endGesture() {
	h := v.hands
	switch h.gesture {
	case gestureGrab:
		b := h.body
		v.drv.Do(v.withHands(func(hs sim.Hands) (string, error) {
			hs.DriveBody(b, [3]float32{}, false)
			return fmt.Sprintf("threw body %d", b), nil
		}), nil)
	case gesturePaddle, gesturePour, gestureHeat:
		v.drv.Do(v.withHands(func(hs sim.Hands) (string, error) {
			hs.SetTools(sim.Tools{})
			return "", nil
		}), nil)
	}
	v.rend.SetPaddle([3]float32{}, 0)
	h.gesture = gestureNone
}

// drop drops the object chosen in the panel above p.
func (v *viewer) drop(p mgl32.Vec3) {
	b, err := v.hands.dropBody(p, v.sc)
	if err != nil {
		v.status.set(err.Error(), true)
		return
	}
	var index int
	var displaced []sim.Particle
	what := dropShapes[v.hands.cfg.DropShape]
	v.drv.Do(v.withHands(func(hs sim.Hands) (string, error) {
		var err error
		index, displaced, err = hs.AddBody(b)
		if err != nil {
			return "", fmt.Errorf("drop: %w", err)
		}
		return fmt.Sprintf("dropped a %s of %g kg/m³ (ctrl-z takes it back)", what, b.Density), nil
	}), func() {
		h := v.hands
		h.bodies = append(h.bodies, b)
		v.rend.SetBodies(v.bodyShapes())
		h.undo = &undoRecord{label: "drop", body: index, removed: displaced}
	})
}

// solidBody is the block or sphere of particles the drop-body button drops: of the solid material chosen in the
// panel, at rest, on the solver's lattice (spacing twice f's particle radius; the lattice scene.Sample fills a
// scene's fluid blocks on, so the body packs as the scene's own solids do), centred horizontally on at within the
// domain, its lowest particles more than sph's largest kernel radius above the highest particle under it: a solid
// bonds to every solid particle within the kernel radius at the step it appears, and the body must not weld itself
// to what it falls on. It is an error when the material is not the scene's, the body holds no lattice point, or
// there is no room for it above the fluid.
func (h *hands) solidBody(f *sim.Frame, sc *scene.Scene, at mgl32.Vec3) ([]sim.Particle, error) {
	name := h.bodyMaterial()
	if name == "" {
		return nil, fmt.Errorf("drop body: the scene has no elastic, plastic, rigid or elastoplastic material that this mode simulates")
	}
	if f == nil || !(f.Radius > 0) {
		return nil, fmt.Errorf("drop body: no particles yet to drop it above")
	}
	d := 2 * float64(f.Radius)
	size := float64(h.cfg.BodySize)
	half := size / 2
	dom := sc.Domain
	var c scene.Vec3
	for _, k := range []int{0, 2} {
		lo, hi := dom.Min[k]+half+d/2, dom.Max[k]-half-d/2
		if lo > hi {
			return nil, fmt.Errorf("drop body: a %g m body does not fit in the %g m domain", size, dom.Max[k]-dom.Min[k])
		}
		c[k] = min(max(float64(at[k]), lo), hi)
	}
	reach := sph.MaxKernelRadius * d
	top := dom.Min[1] // the highest particle within reach of the body's footprint, or the floor
	for i := 0; i < f.N; i++ {
		p := f.Pos[i]
		if math.Abs(float64(p[0])-c[0]) < half+reach && math.Abs(float64(p[2])-c[2]) < half+reach {
			top = max(top, float64(p[1]))
		}
	}
	c[1] = top + reach + d/2 + half
	if c[1]+half > dom.Max[1]-d/2 {
		return nil, fmt.Errorf("drop body: no room for a %g m body above the fluid at (%.3g, %.3g) under the domain's top at %g m: make it smaller or look elsewhere",
			size, c[0], c[2], dom.Max[1])
	}
	sh := scene.Shape{Kind: scene.ShapeBox, Center: c, Size: scene.Vec3{size, size, size}}
	if solidShapes[h.cfg.BodyShape] == "sphere" {
		sh = scene.Shape{Kind: scene.ShapeSphere, Center: c, Radius: half}
	}
	one := scene.Scene{Name: sc.Name, Domain: dom, Materials: sc.Materials, Obstacles: sc.Obstacles, Fluid: []scene.Fluid{{Shape: sh, Material: name}}}
	sampled, err := one.Sample(d)
	if err != nil {
		return nil, fmt.Errorf("drop body: %w", err)
	}
	if len(sampled) == 0 {
		return nil, fmt.Errorf("drop body: a %g m %s holds no particle at the spacing %.3g m", size, solidShapes[h.cfg.BodyShape], d)
	}
	out := make([]sim.Particle, len(sampled))
	for i, p := range sampled {
		out[i] = sim.Particle{Pos: [3]float32{float32(p.Pos[0]), float32(p.Pos[1]), float32(p.Pos[2])}, Material: uint8(p.Material)}
	}
	return out, nil
}

// dropSolid drops the body the panel's Solid body settings describe above the fluid under the view's target, through
// the solver's hands (sim.Refill, with the material); the solver bonds it into one body at its next step.
func (v *viewer) dropSolid() {
	h := v.hands
	ps, err := h.solidBody(v.drv.PickFrame(), v.sc, v.cam.Target)
	if err != nil {
		v.status.set(err.Error(), true)
		return
	}
	what := fmt.Sprintf("a %s of %s", solidShapes[h.cfg.BodyShape], h.bodyMaterial())
	budget := v.drv.Mode().Name + ".budget"
	v.drv.Do(v.withHands(func(hs sim.Hands) (string, error) {
		k := sim.Refill(hs, ps)
		if k < len(ps) {
			return "", fmt.Errorf("dropped %d of the %d particles of %s: the rest is over the particle budget (%s)", k, len(ps), what, budget)
		}
		return fmt.Sprintf("dropped %s, %d particles", what, k), nil
	}), nil)
}

// undoLast takes back the last drop (removing the body and giving back the fluid it displaced) or drain (pouring
// the particles back where there is room now: sim.Returning).
func (v *viewer) undoLast() {
	h := v.hands
	rec := h.undo
	if rec == nil {
		v.status.set("nothing to undo", false)
		return
	}
	h.undo = nil
	dom := v.sc.Domain
	v.drv.Do(func(s sim.Solver) (string, error) {
		return v.withHands(func(hs sim.Hands) (string, error) {
			if rec.label == "drop" {
				if err := hs.RemoveBody(rec.body); err != nil {
					return "", fmt.Errorf("undo drop: %w", err)
				}
			}
			k := giveBack(s, hs, rec.removed, dom)
			return fmt.Sprintf("undid the %s (%d of %d particles back)", rec.label, k, len(rec.removed)), nil
		})(s)
	}, func() {
		if rec.label == "drop" && rec.body < len(h.bodies) {
			h.bodies = append(h.bodies[:rec.body], h.bodies[rec.body+1:]...)
			v.rend.SetBodies(v.bodyShapes())
		}
	})
}
