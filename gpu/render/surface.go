package render

import (
	"math"

	gl "github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"

	"github.com/slosh/slosh/gpu/glh"
)

// The fluid surface's passes (see framePasses for their order and what each writes). Texture units of the
// full-screen passes:
const (
	unitDepth       = 0 // the fluid eye depth being smoothed or shaded
	unitThickness   = 1
	unitSceneColor  = 2
	unitSceneDepth  = 3
	unitTint        = 4
	unitWater       = 1 // the upsample pass's shaded water (it reads no thickness)
	surfaceTexUnits = 5
)

// meshThicknessFill scales the mesh's chords to what the splats would add up through the same water: spheres of
// the particle radius on the particles' cubic lattice fill π/6 of it, so the splats' thickness is that fraction of
// the water's depth, and render.thickness_scale is tuned to it. With it the meshed and the splatted surface have
// the same colour depth side by side.
const meshThicknessFill = math.Pi / 6

// bindInstanceAttribs binds the instanced-attribute VAO of the ellipsoid and spray programs to f's particles:
// position, velocity and density as for the impostors, and the four vec4s of each ellipsoid when there are any.
func (r *Renderer) bindInstanceAttribs(f *frameState) {
	bindParticleAttribs(r.instances, f.p)
	for k := uint32(0); k < 4; k++ {
		if f.p.Ellipsoids != nil {
			glh.Attrib(attrEll0+k, f.p.Ellipsoids, 4, sizeofEllipsoid, int(k)*sizeofVec4, 1)
		} else {
			gl.DisableVertexAttribArray(attrEll0 + k)
			gl.VertexAttrib4f(attrEll0+k, 0, 0, 0, 0)
		}
	}
}

// useSplatProgram makes prog (built on render_ellipsoid.vert) current with its vertex-stage uniforms set.
// skipSpray leaves spray particles out; interior particles are left out only where drawSplatDepth asks.
func (r *Renderer) useSplatProgram(prog *glh.Program, f *frameState, skipSpray bool) {
	prog.Use()
	hasEll := f.p.Ellipsoids != nil
	prog.SetInt("uEllipsoids", boolInt(hasEll))
	prog.SetFloat("uRadius", f.p.Radius)
	prog.SetFloat("uScale", r.set.splatScale)
	spray := float32(0)
	if skipSpray && hasEll {
		spray = float32(r.set.sprayNeighbors)
	}
	prog.SetFloat("uSprayBelow", spray)
	prog.SetInt("uSkipInterior", 0)
}

// drawEllipsoids (render.mode ellipsoids) ray-casts every particle's ellipsoid and shades it in the render.color
// colour mode, straight into the target: the splats before any smoothing.
func (r *Renderer) drawEllipsoids(f *frameState) {
	bindFramebuffer(f.target, f.vp.W, f.vp.H)
	passState{depthTest: true, depthWrite: true}.apply()
	r.bindInstanceAttribs(f)
	r.useSplatProgram(r.ellipsoidProg, f, false)
	r.setColorUniforms(r.ellipsoidProg, f)
	gl.DrawArraysInstanced(gl.TRIANGLE_STRIP, 0, 4, int32(f.n))
}

// drawSplatDepth renders the eye depth of the nearest ellipsoid at each pixel into the splat image (0 elsewhere),
// depth-tested against a copy of the scene's depth so that water behind obstacles and walls is hidden.
func (r *Renderer) drawSplatDepth(f *frameState) {
	t := r.surf.splat
	r.bindFrameBlock(r.surf.scaled)
	blitDepth(t, r.surf.scene.id, f.vp.W, f.vp.H)
	t.bind()
	gl.ClearColor(0, 0, 0, 0)
	gl.Clear(gl.COLOR_BUFFER_BIT)
	f.depth = t
	if f.meshed {
		// the mesh's front faces: eye depth, depth-tested against the scene's like the splats
		passState{depthTest: true, depthWrite: true, cull: gl.BACK}.apply()
		r.meshDepthProg.Use()
		r.meshDepthProg.SetMat4("uModel", mgl32.Ident4())
		f.p.Mesh.g.draw()
		return
	}
	passState{depthTest: true, depthWrite: true}.apply()
	r.bindInstanceAttribs(f)
	r.useSplatProgram(r.splatDepthProg, f, true)
	// interior particles (flagged by the kernels' pass) never give the nearest depth: leave them out
	r.splatDepthProg.SetInt("uSkipInterior", boolInt(r.set.cullInterior))
	gl.DrawArraysInstanced(gl.TRIANGLE_STRIP, 0, 4, int32(f.n))
}

// drawThickness adds up, at each pixel, the lengths of the chords its ray cuts through the ellipsoids: additive
// blending, depth-tested against the scene's depth (scaled to the thickness image) and not writing depth, so
// water behind water counts. A separable Gaussian over a few particle radii then evens out the speckle of
// particles lining up along rays.
func (r *Renderer) drawThickness(f *frameState) {
	t := r.surf.thick
	r.bindFrameBlock(r.surf.scaled)
	if f.meshed {
		// a closed mesh's chords: each back face adds its eye depth and each front face takes its own away, over
		// every face along the ray (no depth test: a chord behind an obstacle still counts, unlike the splats')
		t.bind()
		gl.ClearColor(0, 0, 0, 0)
		gl.Clear(gl.COLOR_BUFFER_BIT)
		passState{blend: true, additive: true}.apply()
		r.meshThickProg.Use()
		r.meshThickProg.SetMat4("uModel", mgl32.Ident4())
		r.meshThickProg.SetFloat("uThicknessScale", r.set.thicknessScale*meshThicknessFill)
		f.p.Mesh.g.draw()
	} else {
		r.beginAdditiveSplat(t, f)
		r.useSplatProgram(r.splatThickProg, f, true)
		r.splatThickProg.SetFloat("uThicknessScale", r.set.thicknessScale)
		gl.DrawArraysInstanced(gl.TRIANGLE_STRIP, 0, 4, int32(f.thickN()))
	}

	// blur: thick → blur along x, blur → thick along y
	passState{}.apply()
	prog := r.thickBlurProg
	prog.Use()
	prog.SetInt("uThickness", unitThickness)
	prog.SetInt("uDepth", unitDepth)
	prog.SetFloat("uMaxRadius", thicknessBlurMax*r.surf.pixelScale())
	prog.SetFloat("uWorldRadius", thicknessBlurRadii*r.smoothRadius(f))
	f.depth.color.Bind(unitDepth)
	r.empty.Bind()
	for _, pass := range []struct {
		src, dst *target
		dir      [2]int32
	}{{t, r.surf.blur, [2]int32{1, 0}}, {r.surf.blur, t, [2]int32{0, 1}}} {
		pass.dst.bind()
		pass.src.color.Bind(unitThickness)
		gl.Uniform2i(prog.Loc("uDir"), pass.dir[0], pass.dir[1])
		gl.DrawArrays(gl.TRIANGLES, 0, 3)
	}
	unbindTextures(unitThickness + 1)
}

// beginAdditiveSplat readies target t for splats that add up along rays: the scene's depth (scaled to t) to test
// against, cleared colour, additive blending, and the particles' attributes.
func (r *Renderer) beginAdditiveSplat(t *target, f *frameState) {
	blitDepth(t, r.surf.scene.id, f.vp.W, f.vp.H)
	t.bind()
	gl.ClearColor(0, 0, 0, 0)
	gl.Clear(gl.COLOR_BUFFER_BIT)
	passState{depthTest: true, blend: true, additive: true}.apply()
	r.bindInstanceAttribs(f)
}

// drawTint (frames whose particles carry materials) adds up, at each pixel, each particle's fluid colour weighted
// by the chord its ray cuts through the particle's ellipsoid, and the chords, into the tint image: depth-tested
// against the scene like the thickness, so the composite's colour is the mean over the fluid it sees through.
func (r *Renderer) drawTint(f *frameState) {
	t := r.surf.tint
	r.bindFrameBlock(r.surf.scaled)
	r.beginAdditiveSplat(t, f)
	prog := r.splatTintProg
	r.useSplatProgram(prog, f, true)
	r.setColorUniforms(prog, f)
	prog.SetInt("uColorMode", ColorWater) // the fluid's own colour, whatever render.color shows
	gl.DrawArraysInstanced(gl.TRIANGLE_STRIP, 0, 4, int32(f.thickN()))
}

// smoothingOn says whether render.smoothing does anything this frame.
func (r *Renderer) smoothingOn() bool {
	switch r.set.smoothing {
	case SmoothCurvatureFlow:
		return r.set.smoothIters > 0
	case SmoothNarrowRange:
		return true
	}
	return false
}

// smoothRadius is the particle radius the smoothing scales with: the isotropic radius times the splat scale.
func (r *Renderer) smoothRadius(f *frameState) float32 {
	rad := f.p.Radius
	if rad <= 0 {
		rad = 0.01 // ellipsoids without a radius: assume a centimetre
	}
	return rad * r.set.splatScale
}

// pinholeDepth is how far, in smoothing radii (smoothRadius), a pixel must lie behind the surface around it for
// the smoothing's first pass to take it for a pinhole between splats and fill it (render_smooth_fill.glsl). A
// splat surface's own bumps between neighbouring pixels are a small part of a radius wherever a particle covers
// a few pixels or more, and a gap between the front splats shows fluid at least about a radius behind them.
const pinholeDepth = 0.5

// drawSmooth smooths the eye-depth image by ping-ponging full-screen passes between the two smoothing images,
// leaving the splat image as it was. The first pass fills the splats' pinholes (render_smooth_fill.glsl) with the
// method's program, so the method never sees them.
//
// At render.scale < 1 the radii and steps in pixels scale along (pixelScale): the narrow-range filter's largest
// radius, and curvature flow's Δt, whose diffusion per iteration, Δt·f/(2z) pixels² of the image, is then as many
// of the view's pixels.
func (r *Renderer) drawSmooth(f *frameState) {
	r.bindFrameBlock(r.surf.scaled)
	ps := r.surf.pixelScale()
	passState{}.apply()
	r.empty.Bind()
	threshold := r.set.depthThreshold * r.smoothRadius(f)
	src := f.depth
	k := 0
	step := func() {
		dst := r.surf.smooth[k%2]
		dst.bind()
		src.color.Bind(unitDepth)
		gl.DrawArrays(gl.TRIANGLES, 0, 3)
		src = dst
		k++
	}
	fill := func(prog *glh.Program) {
		prog.SetInt("uFill", 1)
		prog.SetFloat("uFillDepth", pinholeDepth*r.smoothRadius(f))
		step()
		prog.SetInt("uFill", 0)
	}
	switch r.set.smoothing {
	case SmoothCurvatureFlow:
		prog := r.curvatureProg
		prog.Use()
		prog.SetInt("uDepth", unitDepth)
		prog.SetFloat("uDt", r.set.smoothDt*ps)
		prog.SetFloat("uThreshold", threshold)
		fill(prog)
		for range r.set.smoothIters {
			step()
		}
	case SmoothNarrowRange:
		prog := r.narrowProg
		prog.Use()
		prog.SetInt("uDepth", unitDepth)
		prog.SetFloat("uMaxRadius", r.set.filterRadius*ps)
		prog.SetFloat("uWorldRadius", filterWorldRadii*r.smoothRadius(f))
		prog.SetFloat("uRange", threshold)
		fill(prog)
		for _, dir := range [2][2]int32{{1, 0}, {0, 1}} {
			gl.Uniform2i(prog.Loc("uDir"), dir[0], dir[1])
			step()
		}
	}
	unbindTextures(unitDepth + 1)
	f.depth = src
}

// drawComposite shades the smoothed surface over the scene image into the target, writing every pixel's colour
// and depth (the scene's where there is no water); in the depth, thickness and normals modes it shows those
// images instead. At render.scale < 1 it shades the water alone into the water image, the surface's size, for
// drawUpsample to put over the scene.
func (r *Renderer) drawComposite(f *frameState) {
	prog := r.compositeProg
	if r.surf.scaled {
		r.bindFrameBlock(true)
		r.surf.water.bind()
		passState{}.apply()
		prog = r.compositeScaledProg
	} else {
		bindFramebuffer(f.target, f.vp.W, f.vp.H)
		passState{depthTest: true, depthWrite: true, depthAlways: true}.apply()
	}
	s := &r.set
	prog.Use()
	f.depth.color.Bind(unitDepth)
	r.surf.shaded = f.depth
	r.surf.thick.color.Bind(unitThickness)
	r.surf.scene.color.Bind(unitSceneColor)
	r.surf.scene.depth.Bind(unitSceneDepth)
	prog.SetInt("uDepth", unitDepth)
	prog.SetInt("uThickness", unitThickness)
	prog.SetInt("uSceneColor", unitSceneColor)
	prog.SetInt("uSceneDepth", unitSceneDepth)
	show := f.mode
	if show == ModeMesh {
		show = ModeSurface
	}
	prog.SetInt("uShow", show)
	prog.SetFloat("uAbsorption", s.absorption)
	prog.SetFloat("uRefraction", s.refraction)
	prog.SetFloat("uSpecular", s.specular)
	prog.SetFloat("uRadius", r.smoothRadius(f))
	prog.SetVec3("uWaterColor", mgl32.Vec3(s.waterColor))
	prog.SetInt("uTint", unitTint)
	prog.SetInt("uTinted", boolInt(f.tinted))
	if f.tinted {
		r.surf.tint.color.Bind(unitTint)
	}
	r.empty.Bind()
	gl.DrawArrays(gl.TRIANGLES, 0, 3)
	unbindTextures(surfaceTexUnits)
}

// drawUpsample (render.scale < 1) puts the water the composite shaded at the surface's size over the full-size
// scene image into the target, writing every pixel's colour and depth as the unscaled composite does: the water
// filtered bilinearly (soft edges a surface pixel wide), hidden where the full-size scene is in front of it, so
// obstacles keep sharp outlines over the water. When the target can take a copy of the scene image
// (blitCompatible) it gets one, and the water is blended over it where there is any: on llvmpipe at 1280×720 the
// copy and a pass that mostly discards take 9.5 ms, a pass that writes every pixel 14. Otherwise one pass does
// both. In the debug views, which dim the scene beside the water, always the latter.
func (r *Renderer) drawUpsample(f *frameState) {
	r.bindFrameBlock(false)
	prog := r.upsampleProg
	if (f.mode == ModeSurface || f.mode == ModeMesh) && blitCompatible(f.target) {
		prog = r.upsampleBlendProg
	}
	if prog == r.upsampleBlendProg {
		gl.BindFramebuffer(gl.READ_FRAMEBUFFER, r.surf.scene.id)
		gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, f.target)
		w, h := int32(f.vp.W), int32(f.vp.H)
		gl.BlitFramebuffer(0, 0, w, h, 0, 0, w, h, gl.COLOR_BUFFER_BIT|gl.DEPTH_BUFFER_BIT, gl.NEAREST)
		bindFramebuffer(f.target, f.vp.W, f.vp.H)
		passState{depthTest: true, depthWrite: true, blend: true, premultiplied: true}.apply()
	} else {
		bindFramebuffer(f.target, f.vp.W, f.vp.H)
		passState{depthTest: true, depthWrite: true, depthAlways: true}.apply()
	}
	prog.Use()
	r.surf.scene.color.Bind(unitSceneColor)
	r.surf.scene.depth.Bind(unitSceneDepth)
	r.surf.water.color.Bind(unitWater)
	f.depth.color.Bind(unitDepth)
	prog.SetInt("uSceneColor", unitSceneColor)
	prog.SetInt("uSceneDepth", unitSceneDepth)
	prog.SetInt("uWater", unitWater)
	prog.SetInt("uDepth", unitDepth)
	dim := float32(1)
	if f.mode != ModeSurface && f.mode != ModeMesh {
		dim = 0.3 // the debug views dim the scene, as the composite does
	}
	prog.SetFloat("uDim", dim)
	r.empty.Bind()
	gl.DrawArrays(gl.TRIANGLES, 0, 3)
	unbindTextures(surfaceTexUnits)
}

// sprayOn says whether this frame has spray to draw: only particles with ellipsoids know their neighbour count.
func (r *Renderer) sprayOn(f *frameState) bool {
	return f.mode == ModeSurface && f.p.Ellipsoids != nil && r.set.sprayNeighbors > 0 && f.p.Radius > 0 && !f.meshed
}

// drawSpray draws the particles with fewer than render.spray_neighbors neighbours as round white points, depth
// tested against the composite (scene and water).
func (r *Renderer) drawSpray(f *frameState) {
	r.bindFrameBlock(false)
	bindFramebuffer(f.target, f.vp.W, f.vp.H)
	passState{depthTest: true, depthWrite: true}.apply()
	gl.Enable(gl.PROGRAM_POINT_SIZE)
	r.bindInstanceAttribs(f)
	prog := r.sprayProg
	prog.Use()
	prog.SetFloat("uSprayBelow", float32(r.set.sprayNeighbors))
	prog.SetFloat("uSize", r.set.spraySize*f.p.Radius)
	gl.DrawArraysInstanced(gl.POINTS, 0, 1, int32(f.n))
	gl.Disable(gl.PROGRAM_POINT_SIZE)
}

// unbindTextures unbinds the 2D textures of units 0 … n−1 and leaves unit 0 active.
func unbindTextures(n int) {
	for u := n - 1; u >= 0; u-- {
		gl.ActiveTexture(gl.TEXTURE0 + uint32(u))
		gl.BindTexture(gl.TEXTURE_2D, 0)
	}
}

func boolInt(b bool) int32 {
	if b {
		return 1
	}
	return 0
}
