package render

import (
	"math"

	"unsafe"

	gl "github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"

	"github.com/slosh/slosh/gpu/glh"
)

const (
	sizeofFrameBlock = unsafe.Sizeof(frameBlock{})
	sizeofVertex     = unsafe.Sizeof(vertex{})
	sizeofVec4       = 16
	sizeofFloat      = 4
)

// frameState is what the passes of one Draw share: the viewport, the camera, the particles and the framebuffer
// the caller bound (the final target). Passes that render offscreen (the fluid surface: splat depth, smoothing,
// thickness, composite) keep their targets in the Renderer, sized to vp, and draw the result into target.
type frameState struct {
	vp     Viewport
	cam    Camera
	p      Particles
	n      int    // particles to draw (p.N clamped to the buffers)
	target uint32 // the caller's draw framebuffer
	read   uint32 // the caller's read framebuffer, restored at the end

	fluid    fluidLook // how the particles are drawn this frame
	tinted   bool      // the surface takes its colour from the particles' materials (the tint pass runs)
	sceneFBO uint32    // where the scene passes draw: target, or the surface's scene image
	depth    *target   // the surface's current eye-depth image: the splats', then the smoothed one
	meshed   bool      // render.mode mesh with a fluid mesh: the mesh's depth and thickness replace the splats'
	mode     int32     // the render mode drawn: render.mode, or DrawAs's

	// the still passes (sky, ground, tank, obstacles): where they draw (sceneFBO, or the background image),
	// whether they draw (not when the background image holds their picture), and whether the background pass
	// copies that image into sceneFBO (beginBackground)
	stillFBO             uint32
	drawStill, copyStill bool
}

// thickN is how many particles the thickness and tint passes add up: all, or Particles.ThicknessN.
func (f *frameState) thickN() int {
	if f.p.ThicknessN > 0 {
		return min(f.p.ThicknessN, f.n)
	}
	return f.n
}

// fluidLook is how a frame draws the particles: render.mode, except that a frame without particles draws none and
// one whose surface targets could not be made draws spheres.
type fluidLook int

const (
	lookNone fluidLook = iota
	lookSpheres
	lookEllipsoids
	lookSurface // the surface pipeline, shaded or one of its images (render.mode says which)
)

// look decides the frame's fluidLook and makes the surface targets when it needs them.
func (r *Renderer) look(f *frameState) fluidLook {
	if (f.n == 0 || (f.p.Radius <= 0 && f.p.Ellipsoids == nil)) && !(f.mode == ModeMesh && f.p.Mesh.Triangles() > 0) {
		return lookNone
	}
	switch f.mode {
	case ModeParticles, ModeEllipsoids:
		r.surf.Delete() // a debug view for a while: give the memory back
		if f.mode == ModeEllipsoids {
			return lookEllipsoids
		}
		if f.p.Radius <= 0 {
			return lookNone
		}
		return lookSpheres
	}
	if r.drawErr = r.surf.ensure(f.vp, r.set.scale, r.set.thicknessHalf); r.drawErr != nil {
		if f.p.Radius <= 0 {
			return lookNone
		}
		return lookSpheres
	}
	f.meshed = f.mode == ModeMesh && f.p.Mesh.Triangles() > 0
	if hasMaterials(f.p) && !f.meshed {
		// without its image the surface is still drawn, in the water colour, and Err says why
		r.drawErr = r.surf.ensureTint()
		f.tinted = r.drawErr == nil
	}
	return lookSurface
}

// pass is one step of a frame: a name for the GPU timers, whether it runs this frame, and what it draws.
type pass struct {
	name    string
	enabled func(f *frameState) bool
	draw    func(f *frameState)
}

// framePasses is the order of a frame: background, then opaque and translucent scene geometry back to front as
// far as it matters (the tank's far walls are behind everything inside the tank), then the fluid. The scene
// passes draw into the caller's target, or, for the fluid surface, into an image the composite reads.
//
//	sky, ground, tank, obstacles   the scene's still part, into the background image (background.go) when the
//	                               scene framebuffer can take a copy of it, and only when it changed
//	background                     that image copied into the scene framebuffer
//	bodies, paddle, solids         the scene's moving part
//	particles                      render.mode particles: sphere impostors into the target
//	ellipsoids                     render.mode ellipsoids: shaded ellipsoid impostors into the target
//	splat                          fluid eye depth of the nearest ellipsoid per pixel (R32F), depth-tested
//	                               against the scene; in render.mode mesh, of the fluid mesh's front faces
//	thickness                      summed chord lengths through the ellipsoids (R16F, half size by default),
//	                               then blurred; in render.mode mesh, the mesh's chords (back faces' depths
//	                               less front faces')
//	tint                           frames with materials: chords weighted by each particle's fluid colour
//	                               (RGBA16F, the thickness image's size)
//	smooth                         curvature flow iterations or the narrow-range filter on the eye depth
//	composite                      the shaded surface over the scene (or a debug image) into the target; at
//	                               render.scale < 1 the shaded water alone, premultiplied, into an image of
//	                               the surface's size
//	upsample                       render.scale < 1: that image over the full-size scene into the target
//	spray                          lonely particles as white points into the target
func (r *Renderer) framePasses() []pass {
	look := func(l fluidLook) func(*frameState) bool { return func(f *frameState) bool { return f.fluid == l } }
	surface := look(lookSurface)
	still := func(f *frameState) bool { return f.drawStill }
	return []pass{
		{"sky", still, r.drawSky},
		{"ground", func(f *frameState) bool { return f.drawStill && r.scene.ok && r.set.showGround }, r.drawGround},
		{"tank", func(f *frameState) bool { return f.drawStill && r.set.showTank && r.tank.count > 0 }, r.drawTank},
		{"obstacles", func(f *frameState) bool {
			return f.drawStill && r.set.showObstacles && r.obstacles.count > 0
		}, r.drawObstacles},
		{"background", func(f *frameState) bool { return f.copyStill }, r.copyBackground},
		{"bodies", func(f *frameState) bool { return len(r.bodies) > 0 && len(f.p.Bodies) > 0 }, r.drawBodies},
		{"paddle", func(*frameState) bool { return r.paddle[3] > 0 && r.sphere.count > 0 }, r.drawPaddle},
		{"solids", func(f *frameState) bool { return f.fluid != lookSpheres && f.fluid != lookNone && f.p.Phase != nil }, r.drawSolids},
		{"particles", look(lookSpheres), r.drawParticles},
		{"ellipsoids", look(lookEllipsoids), r.drawEllipsoids},
		{"splat", surface, r.drawSplatDepth},
		{"thickness", surface, r.drawThickness},
		{"tint", func(f *frameState) bool { return f.fluid == lookSurface && f.tinted }, r.drawTint},
		{"smooth", func(f *frameState) bool { return f.fluid == lookSurface && r.smoothingOn() }, r.drawSmooth},
		{"composite", surface, r.drawComposite},
		{"upsample", func(f *frameState) bool { return f.fluid == lookSurface && r.surf.scaled }, r.drawUpsample},
		{"spray", func(f *frameState) bool { return f.fluid == lookSurface && r.sprayOn(f) }, r.drawSpray},
	}
}

// PassNames lists every pass a frame can run, in the order it runs them: the names Timings reports.
func PassNames() []string {
	var r Renderer // the passes' functions are only listed, never called
	passes := r.framePasses()
	names := make([]string, len(passes))
	for i, p := range passes {
		names[i] = p.name
	}
	return names
}

// passState is the fixed-function state a pass draws with; each pass sets all of it.
type passState struct {
	depthTest, depthWrite, blend bool
	depthAlways                  bool   // depth function ALWAYS (to write depth everywhere), else LESS
	additive                     bool   // with blend: ONE, ONE (else the translucent blend of beginFrame)
	premultiplied                bool   // with blend: ONE, ONE_MINUS_SRC_ALPHA (colour premultiplied by alpha)
	cull                         uint32 // 0: no culling, else gl.BACK or gl.FRONT
}

func (s passState) apply() {
	enable(gl.DEPTH_TEST, s.depthTest)
	gl.DepthMask(s.depthWrite)
	if s.depthAlways {
		gl.DepthFunc(gl.ALWAYS)
	} else {
		gl.DepthFunc(gl.LESS)
	}
	enable(gl.BLEND, s.blend)
	if s.additive {
		gl.BlendFunc(gl.ONE, gl.ONE)
	} else if s.premultiplied {
		gl.BlendFunc(gl.ONE, gl.ONE_MINUS_SRC_ALPHA)
	} else {
		gl.BlendFuncSeparate(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA, gl.ZERO, gl.ONE)
	}
	enable(gl.CULL_FACE, s.cull != 0)
	if s.cull != 0 {
		gl.CullFace(s.cull)
	}
}

// bindFramebuffer makes fbo the draw and read framebuffer with a w×h viewport.
func bindFramebuffer(fbo uint32, w, h int) {
	gl.BindFramebuffer(gl.FRAMEBUFFER, fbo)
	gl.Viewport(0, 0, int32(w), int32(h))
}

// bindScene makes the scene passes' framebuffer current.
func (f *frameState) bindScene() { bindFramebuffer(f.sceneFBO, f.vp.W, f.vp.H) }

// bindStill makes the still passes' framebuffer current.
func (f *frameState) bindStill() { bindFramebuffer(f.stillFBO, f.vp.W, f.vp.H) }

func enable(cap uint32, on bool) {
	if on {
		gl.Enable(cap)
	} else {
		gl.Disable(cap)
	}
}

// beginFrame decides how the fluid is drawn, sets the viewport, clears the target (and the surface's scene image)
// and uploads the per-frame uniform block.
func (r *Renderer) beginFrame(f *frameState) {
	r.drawErr = nil
	f.tinted = false
	f.fluid = r.look(f)
	f.sceneFBO = f.target
	gl.Viewport(0, 0, int32(f.vp.W), int32(f.vp.H))
	gl.DepthMask(true)
	gl.ClearColor(0, 0, 0, 1)
	gl.ClearDepth(1)
	gl.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)
	if f.fluid == lookSurface {
		f.sceneFBO = r.surf.scene.id
		r.surf.scene.bind()
		gl.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)
		bindFramebuffer(f.target, f.vp.W, f.vp.H)
	}
	r.beginBackground(f)
	gl.DepthFunc(gl.LESS)
	// translucent passes blend colour only: the target's alpha stays the sky's 1, so screenshots and recordings
	// are opaque and a compositor never sees through the window
	gl.BlendFuncSeparate(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA, gl.ZERO, gl.ONE)
	gl.FrontFace(gl.CCW)

	vp := f.cam.Proj.Mul4(f.cam.View)
	light := mgl32.Vec3{0.35, 0.85, 0.4}.Normalize() // toward the key light: high, in front, to the right
	block := frameBlock{
		View: f.cam.View, Proj: f.cam.Proj, ViewProj: vp, InvViewProj: vp.Inv(),
		Eye:      [4]float32{f.cam.Eye[0], f.cam.Eye[1], f.cam.Eye[2], 1},
		LightDir: [4]float32{light[0], light[1], light[2], 0},
		Viewport: [4]float32{float32(f.vp.W), float32(f.vp.H), 1 / float32(f.vp.W), 1 / float32(f.vp.H)},
		Clip:     [4]float32{f.cam.Near, f.cam.Far, 0, 0},
	}
	glh.Upload(r.frameUBO, 0, []frameBlock{block})
	if f.fluid == lookSurface && r.surf.scaled {
		// the surface's passes draw images of its size: the same view, fewer pixels
		sz := r.surf.size
		block.Viewport = [4]float32{float32(sz.W), float32(sz.H), 1 / float32(sz.W), 1 / float32(sz.H)}
		glh.Upload(r.scaledUBO, 0, []frameBlock{block})
	}
	r.bindFrameBlock(false)
}

// bindFrameBlock binds the per-frame block: the view's, or with scaled the one whose viewport is the size of the
// surface's images (render.scale < 1), for the passes that draw into them.
func (r *Renderer) bindFrameBlock(scaled bool) {
	ubo := r.frameUBO
	if scaled {
		ubo = r.scaledUBO
	}
	gl.BindBufferBase(gl.UNIFORM_BUFFER, frameBinding, ubo.ID())
}

// endFrame leaves the state Draw documents.
func (r *Renderer) endFrame(f *frameState) {
	bindFramebuffer(f.target, f.vp.W, f.vp.H)
	gl.BindFramebuffer(gl.READ_FRAMEBUFFER, f.read)
	passState{depthTest: true, depthWrite: true}.apply()
	unbindTextures(surfaceTexUnits)
	r.bindFrameBlock(false)
	gl.CullFace(gl.BACK)
	gl.UseProgram(0)
	gl.BindVertexArray(0)
	gl.BindBuffer(gl.ARRAY_BUFFER, 0)
}

// drawSky fills the background with a gradient over the view direction: one full-screen triangle, no depth.
func (r *Renderer) drawSky(f *frameState) {
	f.bindStill()
	passState{}.apply()
	r.skyProg.Use()
	alpha := float32(1)
	if r.transparent {
		alpha = 0 // the ground blends over it keeping the target's alpha, so it stays transparent too
	}
	r.skyProg.SetFloat("uAlpha", alpha)
	r.empty.Bind()
	gl.DrawArrays(gl.TRIANGLES, 0, 3)
}

// drawGround draws a large square just below the domain floor, centred under the eye so it never ends in view;
// its grid fades into the sky with distance.
func (r *Renderer) drawGround(f *frameState) {
	f.bindStill()
	passState{depthTest: true, depthWrite: true, blend: true}.apply()
	fade := max(10*r.scene.extent, 20)
	if f.cam.Far > 0 {
		fade = min(fade, 0.9*f.cam.Far)
	}
	r.groundProg.Use()
	r.groundProg.SetVec2("uCenter", mgl32.Vec2{f.cam.Eye[0], f.cam.Eye[2]})
	r.groundProg.SetFloat("uHalf", fade)
	r.groundProg.SetFloat("uGroundY", r.scene.groundY)
	r.groundProg.SetFloat("uFade", fade)
	r.empty.Bind()
	gl.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
}

// drawTank draws the domain box with front faces culled: only walls whose outward normal points away from the
// eye (the far walls, and the floor seen from above) are drawn, so the near walls never hide the water.
func (r *Renderer) drawTank(f *frameState) {
	f.bindStill()
	passState{depthTest: true, depthWrite: true, blend: true, cull: gl.FRONT}.apply()
	r.tankProg.Use()
	r.tankProg.SetMat4("uModel", mgl32.Ident4())
	r.tankProg.SetVec3("uBoxMin", r.scene.min)
	r.tankProg.SetVec3("uBoxMax", r.scene.max)
	r.tank.draw()
}

// drawObstacles draws the static obstacles as opaque lit stone.
func (r *Renderer) drawObstacles(f *frameState) {
	f.bindStill()
	passState{depthTest: true, depthWrite: true, cull: gl.BACK}.apply()
	r.meshProg.Use()
	r.meshProg.SetMat4("uModel", mgl32.Ident4())
	r.meshProg.SetVec3("uColor", mgl32.Vec3(r.set.obstacleColor))
	r.obstacles.draw()
}

// drawBodies draws each rigid body's shape at its pose: a rest-pose point x goes to Center + Rot·(x − Origin).
func (r *Renderer) drawBodies(f *frameState) {
	f.bindScene()
	passState{depthTest: true, depthWrite: true, cull: gl.BACK}.apply()
	r.meshProg.Use()
	for i := range min(len(r.bodies), len(f.p.Bodies)) {
		r.meshProg.SetVec3("uColor", mgl32.Vec3(BodyColor(r.set.bodyColor, i)))
		b := f.p.Bodies[i]
		q := mgl32.Quat{W: b.Rot[3], V: mgl32.Vec3{b.Rot[0], b.Rot[1], b.Rot[2]}}
		model := mgl32.Translate3D(b.Center[0], b.Center[1], b.Center[2]).Mul4(q.Mat4()).
			Mul4(mgl32.Translate3D(-b.Origin[0], -b.Origin[1], -b.Origin[2]))
		r.meshProg.SetMat4("uModel", model)
		r.bodies[i].draw()
	}
}

// drawPaddle draws the paddle tool's sphere (SetPaddle) in a tool's yellow, apart from the bodies' colours.
func (r *Renderer) drawPaddle(f *frameState) {
	f.bindScene()
	passState{depthTest: true, depthWrite: true, cull: gl.BACK}.apply()
	r.meshProg.Use()
	r.meshProg.SetVec3("uColor", mgl32.Vec3{1, 0.82, 0.25})
	c := r.paddle
	r.meshProg.SetMat4("uModel", mgl32.Translate3D(c[0], c[1], c[2]).Mul4(mgl32.Scale3D(c[3], c[3], c[3])))
	r.sphere.draw()
}

// BodyColor is rigid body i's colour: render.body_color for the first, and for each next one that colour's hue
// turned by the golden angle (137.5°), its saturation and brightness kept, so that bodies side by side are told
// apart and no two of the first dozen look alike.
func BodyColor(base [3]float32, i int) [3]float32 {
	if i == 0 {
		return base
	}
	r, g, b := float64(base[0]), float64(base[1]), float64(base[2])
	hi, lo := max(r, g, b), min(r, g, b)
	if hi-lo < 1e-6 { // a grey has no hue to turn: give it the saturation of the default orange
		lo = hi * 0.7
		r, g, b = hi, lo+(hi-lo)*0.5, lo
	}
	var h float64 // hue in turns
	switch c := hi - lo; hi {
	case r:
		h = math.Mod((g-b)/c/6+1, 1)
	case g:
		h = ((b-r)/c + 2) / 6
	default:
		h = ((r-g)/c + 4) / 6
	}
	h = math.Mod(h+float64(i)*137.5/360, 1)
	// back from hue, with the brightest channel hi and the dimmest lo
	ch := func(n float64) float32 {
		k := math.Mod(n+h*6, 6)
		return float32(hi - (hi-lo)*max(0, min(k, 4-k, 1)))
	}
	return [3]float32{ch(5), ch(3), ch(1)}
}

// drawParticles draws one eye-facing quad per particle, instanced from the caller's buffers; the fragment shader
// ray-casts the sphere and writes its depth.
func (r *Renderer) drawParticles(f *frameState) {
	bindFramebuffer(f.target, f.vp.W, f.vp.H)
	passState{depthTest: true, depthWrite: true}.apply()
	bindParticleAttribs(r.particles, f.p)
	prog := r.particleProg
	prog.Use()
	prog.SetFloat("uRadius", f.p.Radius*r.set.radiusScale)
	prog.SetInt("uSolids", 0)
	prog.SetInt("uHaveIDs", boolInt(f.p.ID != nil))
	r.setColorUniforms(prog, f)
	gl.DrawArraysInstanced(gl.TRIANGLE_STRIP, 0, 4, int32(f.n))
}

// drawSolids draws the grains' and solids' particles (Particles.Phase) as shaded spheres before the liquid's surface,
// which leaves them out: what they are, not water. Beside the water surface they take their material's colour, or
// the temperature or phase colours when render.color asks for those (a melting solid shows its heat in the
// surface view); beside the ellipsoids, render.color's colour as the liquid's ellipsoids do.
func (r *Renderer) drawSolids(f *frameState) {
	f.bindScene() // part of the scene the water refracts and hides
	passState{depthTest: true, depthWrite: true}.apply()
	bindParticleAttribs(r.particles, f.p)
	prog := r.particleProg
	prog.Use()
	prog.SetFloat("uRadius", f.p.Radius)
	prog.SetInt("uSolids", 1)
	prog.SetInt("uHaveIDs", boolInt(f.p.ID != nil))
	r.setColorUniforms(prog, f)
	if c := r.set.color; f.fluid != lookEllipsoids && c != ColorTemperature && c != ColorPhase {
		prog.SetInt("uColorMode", ColorWater) // their material's colour, whatever render.color says of the water
	}
	gl.DrawArraysInstanced(gl.TRIANGLE_STRIP, 0, 4, int32(f.n))
}

// setColorUniforms sets the uniforms of render_instance.glsl's particle colours on prog, which is in use: the
// render.color mode and its ranges, and the fluid colours of f's particles.
func (r *Renderer) setColorUniforms(prog *glh.Program, f *frameState) {
	s := &r.set
	prog.SetInt("uColorMode", s.color)
	prog.SetVec3("uWaterColor", mgl32.Vec3(s.waterColor))
	prog.SetFloat("uSpeedMax", s.speedMax)
	prog.SetFloat("uDensityRange", s.densityRange)
	span := s.tempMax - s.tempMin
	if span > -1e-6 && span < 1e-6 { // equal ends: a step at that temperature
		span = 1e-6
	}
	prog.SetInt("uHaveTemperature", boolInt(f.p.Temperature != nil))
	prog.SetFloat("uTempMin", s.tempMin)
	prog.SetFloat("uTempScale", 1/span)
	gl.Uniform3fv(prog.Loc("uPhaseColors[0]"), int32(numPhases), &PhaseColors[0][0])
	setPalette(prog, f.p)
}

// hasMaterials says whether p's particles have fluid colours of their own.
func hasMaterials(p Particles) bool { return p.Material != nil && len(p.Palette) > 0 }

// setPalette sets render_instance.glsl's palette on prog, which is in use: p's colours (at most maxPalette) when
// its particles carry materials, else none (every particle is the water colour).
func setPalette(prog *glh.Program, p Particles) {
	if !hasMaterials(p) {
		prog.SetInt("uPaletteSize", 0)
		return
	}
	n := min(len(p.Palette), maxPalette)
	prog.SetInt("uPaletteSize", int32(n))
	gl.Uniform3fv(prog.Loc("uPalette[0]"), int32(n), &p.Palette[0][0])
}

// uintAttrib points the unsigned integer attribute loc at buf, per instance, one value of typ (gl.UNSIGNED_BYTE or
// gl.UNSIGNED_INT) of size bytes a particle; a nil buf reads as 0 (material 0, the liquid phase, identity 0).
func uintAttrib(loc uint32, buf *glh.Buffer, typ uint32, size int32) {
	if buf == nil {
		gl.DisableVertexAttribArray(loc)
		gl.VertexAttribI1ui(loc, 0)
		return
	}
	gl.BindBuffer(gl.ARRAY_BUFFER, buf.ID())
	gl.EnableVertexAttribArray(loc)
	gl.VertexAttribIPointerWithOffset(loc, 1, typ, size, 0)
	gl.VertexAttribDivisor(loc, 1)
	gl.BindBuffer(gl.ARRAY_BUFFER, 0)
}

// bindParticleAttribs binds vao and points its position, velocity and density attributes at p's buffers (per
// instance); missing velocities and densities read as at rest.
func bindParticleAttribs(vao *glh.VertexArray, p Particles) {
	vao.Bind()
	glh.Attrib(attrPos, p.Pos, 4, sizeofVec4, 0, 1)
	if p.Vel != nil {
		glh.Attrib(attrVel, p.Vel, 4, sizeofVec4, 0, 1)
	} else {
		gl.DisableVertexAttribArray(attrVel)
		gl.VertexAttrib4f(attrVel, 0, 0, 0, 0)
	}
	if p.Rho != nil {
		glh.Attrib(attrRho, p.Rho, 1, sizeofFloat, 0, 1)
	} else {
		gl.DisableVertexAttribArray(attrRho)
		gl.VertexAttrib1f(attrRho, 1)
	}
	var material *glh.Buffer
	if hasMaterials(p) {
		material = p.Material
	}
	uintAttrib(attrMaterial, material, gl.UNSIGNED_BYTE, 1)
	uintAttrib(attrPhase, p.Phase, gl.UNSIGNED_BYTE, 1)
	uintAttrib(attrID, p.ID, gl.UNSIGNED_INT, 4)
	if p.Temperature != nil {
		glh.Attrib(attrTemp, p.Temperature, 1, sizeofFloat, 0, 1)
	} else {
		gl.DisableVertexAttribArray(attrTemp)
		gl.VertexAttrib1f(attrTemp, 0) // unread: uHaveTemperature is 0
	}
	if p.Body != nil {
		gl.BindBuffer(gl.ARRAY_BUFFER, p.Body.ID())
		gl.EnableVertexAttribArray(attrBody)
		gl.VertexAttribIPointerWithOffset(attrBody, 1, gl.INT, 4, 0)
		gl.VertexAttribDivisor(attrBody, 1)
		gl.BindBuffer(gl.ARRAY_BUFFER, 0)
	} else {
		gl.DisableVertexAttribArray(attrBody)
		gl.VertexAttribI1i(attrBody, -1)
	}
}

// particleCount is p.N clamped to what the buffers hold.
func particleCount(p Particles) int {
	if p.Pos == nil || p.N <= 0 {
		return 0
	}
	n := min(p.N, p.Pos.Size()/sizeofVec4)
	if p.Vel != nil {
		n = min(n, p.Vel.Size()/sizeofVec4)
	}
	if p.Rho != nil {
		n = min(n, p.Rho.Size()/sizeofFloat)
	}
	if p.Ellipsoids != nil {
		n = min(n, p.Ellipsoids.Size()/sizeofEllipsoid)
	}
	if hasMaterials(p) {
		n = min(n, p.Material.Size())
	}
	if p.ID != nil {
		n = min(n, p.ID.Size()/4)
	}
	if p.Temperature != nil {
		n = min(n, p.Temperature.Size()/sizeofFloat)
	}
	return n
}
