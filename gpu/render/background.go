package render

import (
	gl "github.com/go-gl/gl/v4.1-core/gl"
)

// background keeps the still part of a frame — the sky, the ground, the tank and the obstacles, its first passes —
// in an image of its own, and copies it into the frames that follow while nothing it shows has changed: the
// viewport, the camera, the scene and the parameters those passes read. The copy is a glBlitFramebuffer between
// images of one size and format, a memory copy, where a software rasteriser (llvmpipe) spends milliseconds on each
// of those passes (about 14 ms together at 1280×720 on two cores); with the camera still, as it mostly is, a frame
// pays for them once. The copied pixels are the drawn ones, bit for bit.
type background struct {
	img   *target // RGBA8 colour and 32-bit float depth, the formats of the scene image and of glh.Framebuffer
	key   backgroundKey
	valid bool // img holds the passes' picture for key
}

// backgroundKey is everything the still passes' picture depends on.
type backgroundKey struct {
	vp                                  Viewport
	cam                                 Camera
	scene                               uint64 // counts SetScene calls
	showGround, showTank, showObstacles bool
	obstacleColor                       [3]float32
	transparent                         bool
}

// Delete frees the image; safe to call twice.
func (b *background) Delete() {
	b.img.Delete()
	*b = background{}
}

// beginBackground decides where the frame's still passes draw. When the frame's scene framebuffer can take a
// copy of the background image, they draw into that image, and only when its picture is not the one this frame
// needs (f.drawStill); the background pass then copies it. Otherwise they draw into the scene framebuffer as
// ever. f.sceneFBO must be set.
func (r *Renderer) beginBackground(f *frameState) {
	f.stillFBO, f.drawStill, f.copyStill = f.sceneFBO, true, false
	if f.sceneFBO == f.target && !blitCompatible(f.target) { // else it is the surface's scene image
		return
	}
	b := &r.bg
	if b.img == nil || b.img.w != f.vp.W || b.img.h != f.vp.H {
		b.Delete()
		img, err := newTarget(f.vp.W, f.vp.H, gl.RGBA8, true)
		if err != nil {
			return // the passes draw into the scene framebuffer
		}
		b.img = img
	}
	key := backgroundKey{vp: f.vp, cam: f.cam, scene: r.sceneCount, showGround: r.set.showGround,
		showTank: r.set.showTank, showObstacles: r.set.showObstacles, obstacleColor: r.set.obstacleColor,
		transparent: r.transparent}
	f.stillFBO, f.copyStill = b.img.id, true
	if b.valid && b.key == key {
		f.drawStill = false
		return
	}
	// cleared as beginFrame clears the target: the passes then draw the same pixels as they would there
	b.img.bind()
	gl.DepthMask(true)
	gl.ClearColor(0, 0, 0, 1)
	gl.ClearDepth(1)
	gl.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)
	bindFramebuffer(f.target, f.vp.W, f.vp.H)
	b.key, b.valid = key, true
}

// copyBackground copies the background image, colour and depth, into the scene framebuffer.
func (r *Renderer) copyBackground(f *frameState) {
	gl.BindFramebuffer(gl.READ_FRAMEBUFFER, r.bg.img.id)
	gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, f.sceneFBO)
	w, h := int32(f.vp.W), int32(f.vp.H)
	gl.BlitFramebuffer(0, 0, w, h, 0, 0, w, h, gl.COLOR_BUFFER_BIT|gl.DEPTH_BUFFER_BIT, gl.NEAREST)
}

// blitCompatible says whether the framebuffer fbo (0: the window's) takes an exact copy of the background image:
// single-sampled, a linear RGBA8 colour buffer and a 32-bit float depth buffer without stencil, as
// glh.Framebuffer's are. A blit of depth needs both depth formats the same; the window's own framebuffer usually
// has 24-bit depth and stencil, and then the still passes draw into it every frame.
func blitCompatible(fbo uint32) bool {
	var prev int32
	gl.GetIntegerv(gl.DRAW_FRAMEBUFFER_BINDING, &prev)
	defer gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, uint32(prev))
	gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, fbo)
	var samples int32
	gl.GetIntegerv(gl.SAMPLE_BUFFERS, &samples)
	color, depth := uint32(gl.COLOR_ATTACHMENT0), uint32(gl.DEPTH_ATTACHMENT)
	if fbo == 0 {
		color, depth = gl.BACK_LEFT, gl.DEPTH
	}
	get := func(attachment, pname uint32) int32 {
		var v int32
		gl.GetFramebufferAttachmentParameteriv(gl.DRAW_FRAMEBUFFER, attachment, pname, &v)
		return v
	}
	// each query after the one saying the attachment exists: asking a missing one is an error
	return samples == 0 &&
		get(color, gl.FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE) != gl.NONE &&
		get(color, gl.FRAMEBUFFER_ATTACHMENT_RED_SIZE) == 8 && get(color, gl.FRAMEBUFFER_ATTACHMENT_GREEN_SIZE) == 8 &&
		get(color, gl.FRAMEBUFFER_ATTACHMENT_BLUE_SIZE) == 8 && get(color, gl.FRAMEBUFFER_ATTACHMENT_ALPHA_SIZE) == 8 &&
		get(color, gl.FRAMEBUFFER_ATTACHMENT_COMPONENT_TYPE) == gl.UNSIGNED_NORMALIZED &&
		get(color, gl.FRAMEBUFFER_ATTACHMENT_COLOR_ENCODING) == gl.LINEAR &&
		get(depth, gl.FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE) != gl.NONE &&
		get(depth, gl.FRAMEBUFFER_ATTACHMENT_DEPTH_SIZE) == 32 &&
		get(depth, gl.FRAMEBUFFER_ATTACHMENT_COMPONENT_TYPE) == gl.FLOAT &&
		get(depth, gl.FRAMEBUFFER_ATTACHMENT_STENCIL_SIZE) == 0
}
