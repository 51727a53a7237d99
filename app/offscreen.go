package app

import (
	"fmt"
	"image"
	"image/png"
	"io"

	gl "github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"

	gflat "github.com/slosh/slosh/gpu/flat"
	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/gpu/render"
	"github.com/slosh/slosh/internal/atomicfile"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

// sceneCamera is the scene's camera, or a view framed on its domain when it has none.
func sceneCamera(sc *scene.Scene) *render.OrbitCamera {
	c := render.NewOrbitCamera()
	if sc.Camera != nil {
		c.LookAt(vec3(sc.Camera.Eye), vec3(sc.Camera.Target), float32(sc.Camera.FovY))
		return c
	}
	frameDomain(c, sc)
	return c
}

// frameDomain aims the camera at the scene's domain and fits it in view, keeping the angles.
func frameDomain(c *render.OrbitCamera, sc *scene.Scene) {
	c.Frame(vec3(sc.Domain.Min), vec3(sc.Domain.Max))
}

// bodyShapes are the shapes of a scene's rigid bodies, in order.
func bodyShapes(sc *scene.Scene) []scene.Shape {
	out := make([]scene.Shape, len(sc.Bodies))
	for i := range sc.Bodies {
		out[i] = sc.Bodies[i].Shape
	}
	return out
}

func vec3(v scene.Vec3) mgl32.Vec3 { return mgl32.Vec3{float32(v[0]), float32(v[1]), float32(v[2])} }

// offscreen renders scenes into a framebuffer of a fixed size. It needs a current context.
type offscreen struct {
	rend *render.Renderer
	fb   *glh.Framebuffer
	bufs render.FrameBuffers
	// a flat mode's 2D view, made on first use
	flat      *gflat.Renderer
	flatFrame sim.FlatFrame
}

// drawFlat draws a flat solver's picture (the reduced game) into the framebuffer, on ctx, and binds the default
// framebuffer again.
func (o *offscreen) drawFlat(ctx *glh.Context, s sim.Flat) error {
	if o.flat == nil {
		r, err := gflat.New(ctx)
		if err != nil {
			return fmt.Errorf("the 2D view: %w", err)
		}
		o.flat = r
	}
	s.FlatFrame(&o.flatFrame)
	o.fb.Bind()
	o.flat.Draw(&o.flatFrame, o.fb.W, o.fb.H)
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	return glh.CheckError("drawing the 2D view")
}

func newOffscreen(w, h int) (*offscreen, error) {
	rend, err := render.New()
	if err != nil {
		return nil, err
	}
	fb, err := glh.NewFramebuffer(w, h)
	if err != nil {
		rend.Delete()
		return nil, fmt.Errorf("offscreen target: %w", err)
	}
	return &offscreen{rend: rend, fb: fb}, nil
}

// render draws sc (with the bodies last given to SetBodies) and particles p from cam and reads the picture back.
func (o *offscreen) render(sc *scene.Scene, cam *render.OrbitCamera, p render.Particles) (*image.RGBA, error) {
	o.rend.SetScene(sc)
	o.fb.Bind()
	o.rend.Draw(render.Viewport{W: o.fb.W, H: o.fb.H}, cam.Camera(float32(o.fb.W)/float32(o.fb.H)), p)
	img := render.Screenshot(o.fb.ID(), o.fb.W, o.fb.H)
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	if err := glh.CheckError("rendering the screenshot"); err != nil {
		return nil, err
	}
	return img, nil
}

// draw renders p from cam into the framebuffer without reading it back, and binds the default framebuffer again.
func (o *offscreen) draw(cam *render.OrbitCamera, p render.Particles) {
	o.fb.Bind()
	o.rend.Draw(render.Viewport{W: o.fb.W, H: o.fb.H}, cam.Camera(float32(o.fb.W)/float32(o.fb.H)), p)
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
}

// finishGL waits until the GPU has run every command given so far (glFinish): timer queries issued before have
// their results then.
func finishGL(what string) error {
	gl.Finish()
	return glh.CheckError(what)
}

func (o *offscreen) Delete() {
	if o == nil {
		return
	}
	o.bufs.Delete()
	o.fb.Delete()
	o.rend.Delete()
	if o.flat != nil {
		o.flat.Delete()
	}
}

// writePNG saves img atomically: a failed write leaves no partial PNG and keeps a file already there.
func writePNG(path string, img image.Image) error {
	return atomicfile.Write(path, func(w io.Writer) error { return png.Encode(w, img) })
}

// openHidden opens a hidden window whose context serves offscreen rendering and GPU solvers.
func openHidden(w, h int, glCap string) (*glh.Context, error) {
	if err := displayError(); err != nil {
		return nil, fmt.Errorf("%w: %v", glh.ErrNoContext, err)
	}
	return glh.Open(glh.Options{Width: w, Height: h, Title: "slosh (offscreen)", MaxVersion: glCap})
}
