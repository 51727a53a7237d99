package glh

import (
	"fmt"
	"image"
	"unsafe"

	gl "github.com/go-gl/gl/v4.1-core/gl"
)

// Texture is a 2D texture.
type Texture struct {
	id   uint32
	W, H int
}

// NewTexture2D allocates a w×h texture with the given internal format (gl.RGBA8, gl.RGBA16F, gl.R32F,
// gl.DEPTH_COMPONENT32F, ...), linear filtering and edge clamping.
func NewTexture2D(w, h int, internal, format, xtype uint32) *Texture {
	var id uint32
	gl.GenTextures(1, &id)
	gl.BindTexture(gl.TEXTURE_2D, id)
	gl.TexImage2D(gl.TEXTURE_2D, 0, int32(internal), int32(w), int32(h), 0, format, xtype, nil)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE)
	gl.BindTexture(gl.TEXTURE_2D, 0)
	return &Texture{id: id, W: w, H: h}
}

// ID is the GL name of the texture.
func (t *Texture) ID() uint32 { return t.id }

// Bind binds the texture to a texture unit.
func (t *Texture) Bind(unit uint32) {
	gl.ActiveTexture(gl.TEXTURE0 + unit)
	gl.BindTexture(gl.TEXTURE_2D, t.id)
}

// Delete frees the texture; safe to call twice and on nil.
func (t *Texture) Delete() {
	if t != nil && t.id != 0 {
		gl.DeleteTextures(1, &t.id)
		t.id = 0
	}
}

// Framebuffer is an offscreen render target with one RGBA8 colour texture and a 32-bit float depth texture.
type Framebuffer struct {
	id    uint32
	Color *Texture
	Depth *Texture
	W, H  int
}

// NewFramebuffer creates a complete w×h framebuffer.
func NewFramebuffer(w, h int) (*Framebuffer, error) {
	if w <= 0 || h <= 0 {
		return nil, fmt.Errorf("glh: framebuffer size %dx%d must be positive", w, h)
	}
	f := &Framebuffer{W: w, H: h}
	f.Color = NewTexture2D(w, h, gl.RGBA8, gl.RGBA, gl.UNSIGNED_BYTE)
	f.Depth = NewTexture2D(w, h, gl.DEPTH_COMPONENT32F, gl.DEPTH_COMPONENT, gl.FLOAT)
	gl.GenFramebuffers(1, &f.id)
	gl.BindFramebuffer(gl.FRAMEBUFFER, f.id)
	gl.FramebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, f.Color.id, 0)
	gl.FramebufferTexture2D(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.TEXTURE_2D, f.Depth.id, 0)
	status := gl.CheckFramebufferStatus(gl.FRAMEBUFFER)
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	if status != gl.FRAMEBUFFER_COMPLETE {
		f.Delete()
		return nil, fmt.Errorf("glh: framebuffer %dx%d incomplete (status 0x%x)", w, h, status)
	}
	return f, nil
}

// ID is the GL name of the framebuffer (0 is the window).
func (f *Framebuffer) ID() uint32 {
	if f == nil {
		return 0
	}
	return f.id
}

// Bind makes it the draw and read target and sets the viewport to cover it.
func (f *Framebuffer) Bind() {
	gl.BindFramebuffer(gl.FRAMEBUFFER, f.id)
	gl.Viewport(0, 0, int32(f.W), int32(f.H))
}

// Delete frees the framebuffer and its textures; safe to call twice.
func (f *Framebuffer) Delete() {
	if f == nil {
		return
	}
	if f.id != 0 {
		gl.DeleteFramebuffers(1, &f.id)
		f.id = 0
	}
	f.Color.Delete()
	f.Depth.Delete()
}

// ReadRGBA reads the colour of framebuffer fbo (0: the window's back buffer) into an image, top row first.
func ReadRGBA(fbo uint32, w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	gl.BindFramebuffer(gl.READ_FRAMEBUFFER, fbo)
	if fbo == 0 {
		gl.ReadBuffer(gl.BACK)
	}
	gl.PixelStorei(gl.PACK_ALIGNMENT, 1)
	gl.ReadPixels(0, 0, int32(w), int32(h), gl.RGBA, gl.UNSIGNED_BYTE, unsafe.Pointer(&img.Pix[0]))
	gl.BindFramebuffer(gl.READ_FRAMEBUFFER, 0)
	// GL's first row is the bottom one.
	row := make([]byte, img.Stride)
	for y := 0; y < h/2; y++ {
		a := img.Pix[y*img.Stride : (y+1)*img.Stride]
		b := img.Pix[(h-1-y)*img.Stride : (h-y)*img.Stride]
		copy(row, a)
		copy(a, b)
		copy(b, row)
	}
	return img
}

// ReadDepth reads the depth texture of a framebuffer (values in [0,1]), top row first.
func ReadDepth(f *Framebuffer) []float32 {
	return ReadFloats[float32](f.id, 0, gl.DEPTH_COMPONENT, f.W, f.H)
}

// ReadFloats reads w×h pixels of framebuffer fbo as floats, top row first: one float per pixel (T = float32, format
// gl.RED or gl.DEPTH_COMPONENT) or four (T = [4]float32, format gl.RGBA). attachment is the colour attachment to
// read (gl.COLOR_ATTACHMENT0, ...), or 0 for depth.
func ReadFloats[T float32 | [4]float32](fbo, attachment, format uint32, w, h int) []T {
	out := make([]T, w*h)
	if len(out) == 0 {
		return out
	}
	gl.BindFramebuffer(gl.READ_FRAMEBUFFER, fbo)
	if attachment != 0 {
		gl.ReadBuffer(attachment)
	}
	gl.PixelStorei(gl.PACK_ALIGNMENT, 4)
	gl.ReadPixels(0, 0, int32(w), int32(h), format, gl.FLOAT, unsafe.Pointer(&out[0]))
	gl.BindFramebuffer(gl.READ_FRAMEBUFFER, 0)
	// GL's first row is the bottom one.
	flipped := make([]T, len(out))
	for y := 0; y < h; y++ {
		copy(flipped[y*w:(y+1)*w], out[(h-1-y)*w:(h-y)*w])
	}
	return flipped
}
