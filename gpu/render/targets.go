package render

import (
	"fmt"
	"math"

	gl "github.com/go-gl/gl/v4.1-core/gl"

	"github.com/slosh/slosh/gpu/glh"
)

// target is an offscreen framebuffer with one colour texture and, optionally, a 32-bit float depth texture, both
// of one size. The fluid-surface passes render into targets and sample their textures.
type target struct {
	id    uint32
	color *glh.Texture
	depth *glh.Texture // nil without depth
	w, h  int
}

// newTarget makes a complete w×h target whose colour texture has the internal format internal (gl.RGBA8,
// gl.RGBA32F, gl.RGBA16F, gl.R32F or gl.R16F), with a depth texture when withDepth.
func newTarget(w, h int, internal uint32, withDepth bool) (*target, error) {
	if w <= 0 || h <= 0 {
		return nil, fmt.Errorf("render: target size %dx%d must be positive", w, h)
	}
	format, xtype := uint32(gl.RGBA), uint32(gl.UNSIGNED_BYTE)
	switch internal {
	case gl.R32F, gl.R16F:
		format, xtype = gl.RED, gl.FLOAT
	case gl.RGBA32F, gl.RGBA16F:
		xtype = gl.FLOAT
	}
	t := &target{w: w, h: h}
	t.color = glh.NewTexture2D(w, h, internal, format, xtype)
	if withDepth {
		t.depth = glh.NewTexture2D(w, h, gl.DEPTH_COMPONENT32F, gl.DEPTH_COMPONENT, gl.FLOAT)
	}
	gl.GenFramebuffers(1, &t.id)
	gl.BindFramebuffer(gl.FRAMEBUFFER, t.id)
	gl.FramebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, t.color.ID(), 0)
	if t.depth != nil {
		gl.FramebufferTexture2D(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.TEXTURE_2D, t.depth.ID(), 0)
	}
	status := gl.CheckFramebufferStatus(gl.FRAMEBUFFER)
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	if err := glh.CheckError(fmt.Sprintf("render: making a %dx%d target", w, h)); err != nil {
		t.Delete()
		return nil, fmt.Errorf("%w (out of GPU memory?)", err)
	}
	if status != gl.FRAMEBUFFER_COMPLETE {
		t.Delete()
		return nil, fmt.Errorf("render: %dx%d target incomplete (status 0x%x)", w, h, status)
	}
	return t, nil
}

// bind makes the target the draw and read framebuffer and sets the viewport to cover it.
func (t *target) bind() {
	gl.BindFramebuffer(gl.FRAMEBUFFER, t.id)
	gl.Viewport(0, 0, int32(t.w), int32(t.h))
}

// Delete frees the framebuffer and its textures; safe to call twice and on nil.
func (t *target) Delete() {
	if t == nil {
		return
	}
	if t.id != 0 {
		gl.DeleteFramebuffers(1, &t.id)
		t.id = 0
	}
	t.color.Delete()
	t.depth.Delete()
}

// blitDepth copies the depth of framebuffer src (w×h) into dst, scaling to dst's size with nearest sampling.
func blitDepth(dst *target, src uint32, w, h int) {
	gl.BindFramebuffer(gl.READ_FRAMEBUFFER, src)
	gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, dst.id)
	gl.BlitFramebuffer(0, 0, int32(w), int32(h), 0, 0, int32(dst.w), int32(dst.h), gl.DEPTH_BUFFER_BIT, gl.NEAREST)
}

// surfaceTargets are the offscreen images of the fluid surface, re-created whenever the viewport changes size. The
// scene image has the viewport's size; the fluid's images have the surface's size, the viewport's times
// render.scale (scaledSize), and the thickness's are half that with render.thickness_half.
type surfaceTargets struct {
	vp    Viewport
	scale float32 // render.scale
	half  bool    // thickness at half size
	size  Viewport
	// scaled: the fluid's images are smaller than the viewport; the composite shades the water into water and
	// the upsample pass puts it over the scene
	scaled bool

	scene  *target    // the opaque scene: RGBA8 colour and depth; the composite reads both
	splat  *target    // the fluid's eye depth (R32F), with the scene's depth copied in for the depth test
	smooth [2]*target // R32F ping-pong images of the smoothing passes
	water  *target    // scaled only: the shaded water (RGBA8, premultiplied by its coverage in alpha)
	// thickness, with the scene's depth copied in (scaled when half). R16F: blending into 32-bit float targets is
	// not available everywhere (Apple's GL), and half floats hold a sum of chords well enough
	thick *target
	blur  *target // R16F, thick's size: the thickness blurred along x
	// tint: Σ colour·chord and Σ chord (RGBA16F, thick's size, with the scene's depth), made by ensureTint for
	// frames whose particles carry materials and kept with the others
	tint *target

	shaded *target // the eye-depth image the last composite read: splat or one of smooth
}

// scaledSize is the size of the surface's images for viewport v at render.scale scale: each side scaled and
// rounded, at least a pixel. A scale of 1 (or one that rounds to the viewport) is the viewport.
func scaledSize(v Viewport, scale float32) Viewport {
	if scale >= 1 || !(scale > 0) {
		return v
	}
	side := func(n int) int { return max(1, int(math.Round(float64(n)*float64(scale)))) }
	return Viewport{side(v.W), side(v.H)}
}

// ensure (re)makes the targets for viewport v at render.scale scale; a failure leaves none.
func (s *surfaceTargets) ensure(v Viewport, scale float32, half bool) error {
	if s.scene != nil && s.vp == v && s.scale == scale && s.half == half {
		return nil
	}
	s.Delete()
	size := scaledSize(v, scale)
	scaled := size != v
	tw, th := size.W, size.H
	if half {
		tw, th = (size.W+1)/2, (size.H+1)/2
	}
	var err error
	mk := func(dst **target, w, h int, internal uint32, depth bool) {
		if err == nil {
			*dst, err = newTarget(w, h, internal, depth)
		}
	}
	mk(&s.scene, v.W, v.H, gl.RGBA8, true)
	mk(&s.splat, size.W, size.H, gl.R32F, true)
	mk(&s.smooth[0], size.W, size.H, gl.R32F, false)
	mk(&s.smooth[1], size.W, size.H, gl.R32F, false)
	mk(&s.thick, tw, th, gl.R16F, true)
	mk(&s.blur, tw, th, gl.R16F, false)
	if scaled {
		mk(&s.water, size.W, size.H, gl.RGBA8, false)
	}
	if err != nil {
		s.Delete()
		return fmt.Errorf("render: fluid surface targets for a %dx%d viewport: %w", v.W, v.H, err)
	}
	s.vp, s.scale, s.half, s.size, s.scaled = v, scale, half, size, scaled
	return nil
}

// pixelScale is how many of the surface's pixels a pixel of the view spans (1 unscaled): what the filters' radii
// and steps in pixels are multiplied by, so that they cover as much of the picture at any render.scale.
func (s *surfaceTargets) pixelScale() float32 {
	if !s.scaled {
		return 1
	}
	return float32(s.size.W) / float32(s.vp.W)
}

// ensureTint makes the tint image, the thickness image's size, when there is none; the other targets must exist.
// A failure leaves none (the surface is drawn without it).
func (s *surfaceTargets) ensureTint() error {
	if s.tint != nil {
		return nil
	}
	var err error
	if s.tint, err = newTarget(s.thick.w, s.thick.h, gl.RGBA16F, true); err != nil {
		s.tint = nil
		return fmt.Errorf("render: fluid tint image for a %dx%d viewport: %w", s.vp.W, s.vp.H, err)
	}
	return nil
}

// Delete frees every target; safe to call twice.
func (s *surfaceTargets) Delete() {
	for _, t := range []*target{s.scene, s.splat, s.smooth[0], s.smooth[1], s.thick, s.blur, s.tint, s.water} {
		t.Delete()
	}
	*s = surfaceTargets{}
}
