package render

import (
	"fmt"
	"math"
	"testing"

	gl "github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"

	"github.com/slosh/slosh/gpu/gltest"
)

// TestSurfaceScale draws the resting pool, and a splash over it, at render.scale 1 and lower. At 1 the picture is
// the unscaled renderer's, bit for bit, before and after drawing at another scale, and no upsample pass runs;
// lower, the surface's images are that fraction of the view (the scene's stay full size) and the picture stays
// close to the full-size one: the same water, its outline and highlights a little softer. Measured at 480×360 on
// llvmpipe: at 0.75 a mean absolute difference of 0.79 (of 255) with 0.8 % of the pixels off by more than 32, at
// 0.5 1.06 and 1.2 %. Both ways of upsampling (blended over a copy of the scene, or in one pass into a framebuffer
// that cannot take the copy) give the same picture within a unit of rounding.
func TestSurfaceScale(t *testing.T) {
	gltest.Acquire(t)
	const w, h = 480, 360
	r := newTestRenderer(t)
	fb := newTestFramebuffer(t, w, h)
	plain := depth24Target(t, w, h)
	fs, _ := poolSetup(t, r)
	drops := splash(400, mgl32.Vec3{0, 10, 0}, 7)
	for i := range drops.pos {
		if !finite32(drops.pos[i][0]) {
			continue
		}
		fs.add(drops.pos[i].Mul(0.8).Add(mgl32.Vec3{0.15, 0.35, 0.15}), drops.kernels[i])
	}
	p := fs.upload(t)
	oc := NewOrbitCamera()
	oc.Yaw, oc.Pitch = 0.4, 0.45
	oc.Frame(mgl32.Vec3{0, 0, 0}, mgl32.Vec3{1.3, 0.8, 1.3})
	cam := oc.Camera(float32(w) / h)

	ref := draw(t, r, fb, cam, p)
	save(t, ref, "scale_1")
	for _, c := range []struct {
		scale     float32
		mad, frac float64 // at most: the mean absolute difference (0–255) and the fraction of pixels off by > 32
	}{{0.75, 2, 0.02}, {0.5, 2.5, 0.03}} {
		setParam(t, r, "render.scale", fmt.Sprint(c.scale))
		img := draw(t, r, fb, cam, p)
		save(t, img, fmt.Sprintf("scale_%g", c.scale))
		sw, sh := int(math.Round(float64(w*c.scale))), int(math.Round(float64(h*c.scale)))
		if r.surf.splat.w != sw || r.surf.splat.h != sh || r.surf.scene.w != w || r.surf.water == nil {
			t.Errorf("scale %g: splat image %dx%d, scene %dx%d; want %dx%d and %dx%d", c.scale,
				r.surf.splat.w, r.surf.splat.h, r.surf.scene.w, r.surf.scene.h, sw, sh, w, h)
		}
		mad, frac := gltest.PictureDiff(ref, img, 32)
		t.Logf("scale %g: mean absolute difference %.3f, %.2f%% of pixels off by more than 32", c.scale, mad, 100*frac)
		if mad > c.mad || frac > c.frac {
			t.Errorf("scale %g: mean absolute difference %.3f (at most %g), %.2f%% of pixels off by more than 32 (at most %g%%)",
				c.scale, mad, c.mad, 100*frac, 100*c.frac)
		}
		// a target that cannot take a copy of the scene image gets the same picture from the one-pass upsample
		gl.BindFramebuffer(gl.FRAMEBUFFER, plain)
		r.Draw(Viewport{w, h}, cam, p)
		one := Screenshot(plain, w, h)
		gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
		if mad, frac := gltest.PictureDiff(img, one, 1); frac > 0 {
			t.Errorf("scale %g: the one-pass upsample's picture differs from the blended one's: mean absolute "+
				"difference %.4f, %.2f%% of pixels off by more than 1", c.scale, mad, 100*frac)
		}
	}
	setParam(t, r, "render.scale", "1")
	again := draw(t, r, fb, cam, p)
	if mad, _ := gltest.PictureDiff(ref, again, 0); mad != 0 || r.surf.water != nil {
		t.Errorf("back at scale 1 the picture differs (mean absolute difference %g) or the water image stays", mad)
	}

	// the surface's images, shown by the debug views, scale the same way
	for _, c := range []struct {
		mode      string
		mad, frac float64
	}{{"depth", 3, 0.05}, {"thickness", 3, 0.05}, {"normals", 6, 0.1}} {
		setParam(t, r, "render.mode", c.mode)
		setParam(t, r, "render.scale", "1")
		full := draw(t, r, fb, cam, p)
		setParam(t, r, "render.scale", "0.5")
		half := draw(t, r, fb, cam, p)
		save(t, half, "scale_0.5_"+c.mode)
		mad, frac := gltest.PictureDiff(full, half, 32)
		t.Logf("%s at scale 0.5: mean absolute difference %.3f, %.2f%% of pixels off by more than 32", c.mode, mad, 100*frac)
		if mad > c.mad || frac > c.frac {
			t.Errorf("%s at scale 0.5: mean absolute difference %.3f (at most %g), %.2f%% of pixels off by more than 32 (at most %g%%)",
				c.mode, mad, c.mad, 100*frac, 100*c.frac)
		}
	}
}
