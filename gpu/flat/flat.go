// Package flat draws a 2D mode's picture, a sim.FlatFrame, with OpenGL: the frame's rectangle fitted into the
// viewport with its aspect ratio kept (letterboxed, centred, a small margin), a background colour around and
// behind it, then the solver's image of the fluid stretched over the rectangle, the shapes (each filled, then
// outlined), the lines and the tracers, alpha-blended in that order. ToWorld and ToScreen map between window
// pixels and the rectangle for the mode's mouse tools. The frame's status line and message are the window's to
// draw (with imgui), not this package's.
//
// Lines and outlines are triangles built on the CPU, one quad per segment with mitred joints and an antialiased
// edge (core profiles have no wide lines); tracers are point sprites shaded as round dots, uploaded straight from
// the frame's slice (on llvmpipe 20k points cost a quarter of what as many instanced quads do). The image goes
// into an RGBA32F texture with linear filtering, uploaded only when its size or its texels change: the frame
// already holds float RGBA, so the upload is a copy with no conversion, and smooth dye gradients keep more than
// 8 bits. Buffers are reused and grow when a frame needs more, so drawing allocates nothing in steady state.
// Colours reach the framebuffer as they are, with no sRGB encoding, as gpu/render's and the panel's do.
//
// Like gpu/render it uses the OpenGL 4.1 core binding and #version 410 shaders (flat_*.vert, flat_*.frag in
// shaders/), so it runs on any 4.1+ context. All methods must be called on the GL thread with the context current.
package flat

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"unsafe"

	gl "github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/shaders"
	"github.com/slosh/slosh/sim"
)

// Vertex attribute locations, mirrored into the shaders as #defines.
const (
	attrPos   = 0
	attrColor = 1
	attrEdge  = 2 // shapes and lines
	attrSize  = 2 // tracers
)

// Renderer draws FlatFrames. Its exported fields may be changed between Draws.
type Renderer struct {
	Background   [4]float32 // around and behind the image; alpha is written as is
	OutlineWidth float32    // shapes' outlines, px

	bgProg, imageProg, geomProg, tracerProg *glh.Program

	empty, geomVAO, tracerVAO *glh.VertexArray
	geomBuf, tracerBuf        stream

	tex          *glh.Texture // the image, ImageW × ImageH (nil until a frame has one)
	texData      [][4]float32 // what tex holds, to skip uploads of an unchanged image
	texOK        bool         // tex holds the current frame's image
	imageUploads int          // how many times the image went to the GPU, for tests
	maxTex       int32
	pointRange   [2]float32 // the smallest and largest point sizes, px

	tess tessellator
	size [2]float32 // the last frame's rectangle, for ToWorld and ToScreen
}

// New compiles the programs from the embedded shaders and creates the buffers, on the context current on this
// thread.
func New(ctx *glh.Context) (*Renderer, error) {
	if ctx == nil || ctx.Window == nil {
		return nil, errors.New("flat: no open GL context")
	}
	return newRenderer(shaders.FS())
}

func newRenderer(fsys fs.FS) (*Renderer, error) {
	r := &Renderer{Background: [4]float32{0.07, 0.08, 0.10, 1}, OutlineWidth: 1.5}
	defines := []shaders.Define{
		shaders.Int("ATTR_POS", attrPos),
		shaders.Int("ATTR_COLOR", attrColor),
		shaders.Int("ATTR_EDGE", attrEdge),
		shaders.Int("ATTR_SIZE", attrSize),
	}
	progs := []struct {
		dst   **glh.Program
		what  string
		files []string
	}{
		{&r.bgProg, "background", []string{"flat_quad.vert", "flat_color.frag"}},
		{&r.imageProg, "image", []string{"flat_quad.vert", "flat_image.frag"}},
		{&r.geomProg, "shape and line", []string{"flat_geom.vert", "flat_geom.frag"}},
		{&r.tracerProg, "tracer", []string{"flat_tracer.vert", "flat_tracer.frag"}},
	}
	for _, p := range progs {
		prog, err := glh.NewProgram(fsys, defines, p.files...)
		if err != nil {
			r.Delete()
			return nil, fmt.Errorf("flat: building the %s program: %w", p.what, err)
		}
		*p.dst = prog
	}
	r.imageProg.Use()
	r.imageProg.SetInt("uImage", 0)
	gl.UseProgram(0)
	gl.GetIntegerv(gl.MAX_TEXTURE_SIZE, &r.maxTex)
	gl.GetFloatv(gl.POINT_SIZE_RANGE, &r.pointRange[0])

	r.empty = glh.NewVertexArray()
	r.geomBuf.create()
	r.geomVAO = glh.NewVertexArray()
	r.geomVAO.Bind()
	var v vertex
	stride := int32(unsafe.Sizeof(v))
	r.geomBuf.attrib(attrPos, 2, stride, unsafe.Offsetof(v.pos))
	r.geomBuf.attrib(attrColor, 4, stride, unsafe.Offsetof(v.color))
	r.geomBuf.attrib(attrEdge, 2, stride, unsafe.Offsetof(v.edge))

	// tracers are drawn straight from the frame's []sim.FlatPoint: its fields are the points' attributes
	r.tracerBuf.create()
	r.tracerVAO = glh.NewVertexArray()
	r.tracerVAO.Bind()
	var fp sim.FlatPoint
	stride = int32(unsafe.Sizeof(fp))
	r.tracerBuf.attrib(attrPos, 2, stride, unsafe.Offsetof(fp.Pos))
	r.tracerBuf.attrib(attrColor, 4, stride, unsafe.Offsetof(fp.Color))
	r.tracerBuf.attrib(attrSize, 1, stride, unsafe.Offsetof(fp.Size))
	gl.BindVertexArray(0)

	if err := glh.CheckError("flat: setting up the renderer"); err != nil {
		r.Delete()
		return nil, err
	}
	return r, nil
}

// Draw draws f into the current framebuffer's viewport, which the caller has set to width×height pixels. A nil
// frame, or one whose rectangle is not positive, draws only the background. It leaves blending, the depth test
// and program point sizes off and no program or vertex array bound; the scissor and stencil state are the
// caller's.
func (r *Renderer) Draw(f *sim.FlatFrame, width, height int) {
	if r.bgProg == nil || width <= 0 || height <= 0 {
		return
	}
	gl.Disable(gl.DEPTH_TEST)
	gl.Disable(gl.CULL_FACE)
	gl.Disable(gl.BLEND)
	r.empty.Bind()
	r.bgProg.Use()
	r.bgProg.SetVec4("uRect", mgl32.Vec4{-1, -1, 1, 1})
	r.bgProg.SetVec4("uColor", mgl32.Vec4(r.Background))
	gl.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)

	var v View
	ok := false
	if f != nil {
		r.size = f.Size
		v, ok = Fit(f.Size, width, height)
	}
	if ok {
		gl.Enable(gl.BLEND)
		// colour over what is behind; alpha accumulates coverage, for pictures with a transparent background
		gl.BlendFuncSeparate(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA, gl.ONE, gl.ONE_MINUS_SRC_ALPHA)
		a, b, c, d := v.ndc()
		r.drawImage(f, a, b, c, d)
		r.drawGeometry(f, float32(v.Scale), a, b, c, d)
		r.drawTracers(f, a, b, c, d)
		gl.Disable(gl.BLEND)
	}
	gl.BindVertexArray(0)
	gl.UseProgram(0)
}

// drawImage draws the frame's image over the rectangle, uploading it first if it changed. An image whose slice
// is shorter than ImageW × ImageH, or that is larger than the GL's textures can be, is left out.
func (r *Renderer) drawImage(f *sim.FlatFrame, a, b, c, d float32) {
	w, h := f.ImageW, f.ImageH
	if w <= 0 || h <= 0 || w > int(r.maxTex) || h > int(r.maxTex) || len(f.Image) < w*h {
		return
	}
	img := f.Image[:w*h]
	if r.tex == nil || r.tex.W != w || r.tex.H != h {
		r.tex.Delete()
		r.tex = glh.NewTexture2D(w, h, gl.RGBA32F, gl.RGBA, gl.FLOAT)
		r.texOK = false
	}
	if !r.texOK || !bytes.Equal(texels(r.texData), texels(img)) {
		r.texData = append(r.texData[:0], img...)
		r.tex.Bind(0)
		gl.BindBuffer(gl.PIXEL_UNPACK_BUFFER, 0)
		gl.PixelStorei(gl.UNPACK_ALIGNMENT, 4)
		gl.PixelStorei(gl.UNPACK_ROW_LENGTH, 0)
		gl.TexSubImage2D(gl.TEXTURE_2D, 0, 0, 0, int32(w), int32(h), gl.RGBA, gl.FLOAT, unsafe.Pointer(&img[0]))
		r.texOK = true
		r.imageUploads++
	}
	r.tex.Bind(0)
	r.empty.Bind()
	r.imageProg.Use()
	r.imageProg.SetVec4("uRect", mgl32.Vec4{c, d, a*f.Size[0] + c, b*f.Size[1] + d})
	gl.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
}

// drawGeometry draws the shapes and the lines, tessellated at s pixels per metre.
func (r *Renderer) drawGeometry(f *sim.FlatFrame, s, a, b, c, d float32) {
	r.tess.build(f, s, r.OutlineWidth)
	if len(r.tess.verts) == 0 {
		return
	}
	upload(&r.geomBuf, r.tess.verts)
	r.geomVAO.Bind()
	r.geomProg.Use()
	r.geomProg.SetVec4("uWorld", mgl32.Vec4{a, b, c, d})
	gl.DrawArrays(gl.TRIANGLES, 0, int32(len(r.tess.verts)))
}

// drawTracers draws the tracers as points.
func (r *Renderer) drawTracers(f *sim.FlatFrame, a, b, c, d float32) {
	if len(f.Tracers) == 0 {
		return
	}
	upload(&r.tracerBuf, f.Tracers)
	r.tracerVAO.Bind()
	r.tracerProg.Use()
	r.tracerProg.SetVec4("uWorld", mgl32.Vec4{a, b, c, d})
	r.tracerProg.SetFloat("uMaxPoint", r.pointRange[1])
	gl.Enable(gl.PROGRAM_POINT_SIZE)
	gl.DrawArrays(gl.POINTS, 0, int32(len(f.Tracers)))
	gl.Disable(gl.PROGRAM_POINT_SIZE)
}

// View is where the last drawn frame's rectangle lies in a width×height viewport; ok is false before a frame
// with a positive rectangle has been drawn.
func (r *Renderer) View(width, height int) (View, bool) { return Fit(r.size, width, height) }

// ToWorld maps window pixels (origin top-left, y down, as GLFW gives the cursor) in a width×height viewport to
// the last drawn frame's rectangle (metres, origin lower-left, y up), and reports whether the point lies inside
// it. Before any frame it returns the origin, outside.
func (r *Renderer) ToWorld(px, py float64, width, height int) (x, y float32, inside bool) {
	v, _ := r.View(width, height)
	return v.ToWorld(px, py)
}

// ToScreen maps a position in the last drawn frame's rectangle to window pixels (origin top-left, y down) in a
// width×height viewport.
func (r *Renderer) ToScreen(x, y float32, width, height int) (px, py float64) {
	v, _ := r.View(width, height)
	return v.ToScreen(x, y)
}

// PixelsPerMetre is the drawing scale in a width×height viewport (0 before any frame), for hit tests in pixels.
func (r *Renderer) PixelsPerMetre(width, height int) float64 {
	v, _ := r.View(width, height)
	return v.Scale
}

// Delete frees the GL objects; safe to call twice and on nil.
func (r *Renderer) Delete() {
	if r == nil {
		return
	}
	for _, p := range []*glh.Program{r.bgProg, r.imageProg, r.geomProg, r.tracerProg} {
		p.Delete()
	}
	r.bgProg, r.imageProg, r.geomProg, r.tracerProg = nil, nil, nil, nil
	r.empty.Delete()
	r.geomVAO.Delete()
	r.tracerVAO.Delete()
	r.geomBuf.delete()
	r.tracerBuf.delete()
	r.tex.Delete()
	r.tex, r.texData, r.texOK = nil, nil, false
}

// texels views an image's floats as bytes, for an exact comparison (NaNs included).
func texels(img [][4]float32) []byte {
	if len(img) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&img[0])), len(img)*int(unsafe.Sizeof(img[0])))
}

// stream is a vertex buffer refilled every frame: each upload orphans the old storage (so the driver need not
// wait for draws still reading it) and the storage grows, doubling, when a frame needs more.
type stream struct {
	id   uint32
	size int // bytes
}

func (s *stream) create() {
	gl.GenBuffers(1, &s.id)
	s.size = 4096
	gl.BindBuffer(gl.ARRAY_BUFFER, s.id)
	gl.BufferData(gl.ARRAY_BUFFER, s.size, nil, gl.STREAM_DRAW)
	gl.BindBuffer(gl.ARRAY_BUFFER, 0)
}

// attrib points float attribute index of the bound vertex array at the buffer.
func (s *stream) attrib(index uint32, comps, stride int32, offset uintptr) {
	gl.BindBuffer(gl.ARRAY_BUFFER, s.id)
	gl.EnableVertexAttribArray(index)
	gl.VertexAttribPointerWithOffset(index, comps, gl.FLOAT, false, stride, offset)
	gl.BindBuffer(gl.ARRAY_BUFFER, 0)
}

func (s *stream) delete() {
	if s.id != 0 {
		gl.DeleteBuffers(1, &s.id)
		s.id = 0
	}
}

// upload copies data into s from its start.
func upload[T any](s *stream, data []T) {
	n := len(data) * int(unsafe.Sizeof(data[0]))
	gl.BindBuffer(gl.ARRAY_BUFFER, s.id)
	for s.size < n {
		s.size *= 2
	}
	gl.BufferData(gl.ARRAY_BUFFER, s.size, nil, gl.STREAM_DRAW)
	gl.BufferSubData(gl.ARRAY_BUFFER, 0, n, unsafe.Pointer(&data[0]))
	gl.BindBuffer(gl.ARRAY_BUFFER, 0)
}
