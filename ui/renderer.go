package ui

import (
	"fmt"

	gl "github.com/go-gl/gl/v4.1-core/gl"
	"github.com/inkyblackness/imgui-go/v4"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/shaders"
)

// Renderer draws imgui draw data with OpenGL 4.1 core into whatever framebuffer is bound: the window, or an
// offscreen glh.Framebuffer when a screenshot should include the panel. It saves and restores every piece of GL
// state it changes, so it can run after the 3D scene without disturbing the caller.
type Renderer struct {
	prog    *glh.Program
	font    *glh.Texture
	vao     *glh.VertexArray
	vbo     uint32 // resized every frame (STREAM_DRAW), so plain GL names rather than fixed-size glh.Buffers
	ebo     uint32
	idxType uint32 // gl.UNSIGNED_SHORT or gl.UNSIGNED_INT, as imgui was compiled
	idxSize int

	locProj, locTex int32
}

// NewRenderer compiles the imgui program, uploads the font atlas of io (building it if needed) and tells io that
// the renderer honours vertex offsets. The GL context must be current.
func NewRenderer(io imgui.IO) (*Renderer, error) {
	prog, err := glh.NewProgram(shaders.FS(), nil, "imgui.vert", "imgui.frag")
	if err != nil {
		return nil, fmt.Errorf("ui: imgui program: %w", err)
	}
	r := &Renderer{prog: prog, locProj: prog.Loc("uProj"), locTex: prog.Loc("uTexture")}
	if r.locProj < 0 || r.locTex < 0 {
		r.Delete()
		return nil, fmt.Errorf("ui: imgui program lacks uniform uProj or uTexture")
	}

	switch n := imgui.IndexBufferLayout(); n {
	case 2:
		r.idxType, r.idxSize = gl.UNSIGNED_SHORT, 2
	case 4:
		r.idxType, r.idxSize = gl.UNSIGNED_INT, 4
	default:
		r.Delete()
		return nil, fmt.Errorf("ui: unsupported imgui index size %d", n)
	}

	if err := r.uploadFont(io.Fonts()); err != nil {
		r.Delete()
		return nil, err
	}
	if err := r.createBuffers(); err != nil {
		r.Delete()
		return nil, err
	}
	io.SetBackendFlags(io.GetBackendFlags() | imgui.BackendFlagsRendererHasVtxOffset)
	return r, nil
}

func (r *Renderer) uploadFont(atlas imgui.FontAtlas) error {
	img := atlas.TextureDataRGBA32()
	if img == nil || img.Width <= 0 || img.Height <= 0 || img.Pixels == nil {
		return fmt.Errorf("ui: imgui font atlas is empty")
	}
	var prevTex, prevAlign, prevRow int32
	gl.GetIntegerv(gl.TEXTURE_BINDING_2D, &prevTex)
	gl.GetIntegerv(gl.UNPACK_ALIGNMENT, &prevAlign)
	gl.GetIntegerv(gl.UNPACK_ROW_LENGTH, &prevRow)

	r.font = glh.NewTexture2D(img.Width, img.Height, gl.RGBA8, gl.RGBA, gl.UNSIGNED_BYTE)
	gl.BindTexture(gl.TEXTURE_2D, r.font.ID())
	gl.PixelStorei(gl.UNPACK_ALIGNMENT, 4)
	gl.PixelStorei(gl.UNPACK_ROW_LENGTH, 0)
	gl.TexSubImage2D(gl.TEXTURE_2D, 0, 0, 0, int32(img.Width), int32(img.Height), gl.RGBA, gl.UNSIGNED_BYTE, img.Pixels)

	gl.PixelStorei(gl.UNPACK_ALIGNMENT, prevAlign)
	gl.PixelStorei(gl.UNPACK_ROW_LENGTH, prevRow)
	gl.BindTexture(gl.TEXTURE_2D, uint32(prevTex))
	if err := glh.CheckError(fmt.Sprintf("ui: uploading the %dx%d font atlas", img.Width, img.Height)); err != nil {
		return err
	}
	atlas.SetTextureID(imgui.TextureID(r.font.ID()))
	return nil
}

func (r *Renderer) createBuffers() error {
	var prevVAO, prevArray int32
	gl.GetIntegerv(gl.VERTEX_ARRAY_BINDING, &prevVAO)
	gl.GetIntegerv(gl.ARRAY_BUFFER_BINDING, &prevArray)

	r.vao = glh.NewVertexArray()
	gl.GenBuffers(1, &r.vbo)
	gl.GenBuffers(1, &r.ebo)

	// The vertex layout is imgui's ImDrawVert: vec2 pos, vec2 uv, 4 x uint8 colour.
	stride, posOff, uvOff, colOff := imgui.VertexBufferLayout()
	r.vao.Bind()
	gl.BindBuffer(gl.ARRAY_BUFFER, r.vbo)
	gl.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, r.ebo) // recorded in the VAO
	gl.EnableVertexAttribArray(0)
	gl.EnableVertexAttribArray(1)
	gl.EnableVertexAttribArray(2)
	gl.VertexAttribPointerWithOffset(0, 2, gl.FLOAT, false, int32(stride), uintptr(posOff))
	gl.VertexAttribPointerWithOffset(1, 2, gl.FLOAT, false, int32(stride), uintptr(uvOff))
	gl.VertexAttribPointerWithOffset(2, 4, gl.UNSIGNED_BYTE, true, int32(stride), uintptr(colOff))

	gl.BindVertexArray(uint32(prevVAO))
	gl.BindBuffer(gl.ARRAY_BUFFER, uint32(prevArray))
	return glh.CheckError("ui: creating the imgui vertex array")
}

// Delete frees the renderer's GL objects; safe to call twice.
func (r *Renderer) Delete() {
	if r == nil {
		return
	}
	r.prog.Delete()
	r.font.Delete()
	r.vao.Delete()
	if r.vbo != 0 {
		gl.DeleteBuffers(1, &r.vbo)
		r.vbo = 0
	}
	if r.ebo != 0 {
		gl.DeleteBuffers(1, &r.ebo)
		r.ebo = 0
	}
}

// glState is the GL state Render changes, captured before and put back after.
type glState struct {
	program, activeTexture, texture, sampler int32
	arrayBuffer, vertexArray                 int32
	polygonMode                              [2]int32
	viewport, scissorBox                     [4]int32
	blendSrcRGB, blendDstRGB                 int32
	blendSrcAlpha, blendDstAlpha             int32
	blendEqRGB, blendEqAlpha                 int32
	blend, cull, depth, stencil, scissor     bool
	primitiveRestart                         bool
}

func saveGLState() glState {
	var s glState
	gl.GetIntegerv(gl.ACTIVE_TEXTURE, &s.activeTexture)
	gl.ActiveTexture(gl.TEXTURE0)
	gl.GetIntegerv(gl.TEXTURE_BINDING_2D, &s.texture)
	gl.GetIntegerv(gl.SAMPLER_BINDING, &s.sampler)
	gl.GetIntegerv(gl.CURRENT_PROGRAM, &s.program)
	gl.GetIntegerv(gl.ARRAY_BUFFER_BINDING, &s.arrayBuffer)
	gl.GetIntegerv(gl.VERTEX_ARRAY_BINDING, &s.vertexArray) // the element buffer binding belongs to the VAO
	gl.GetIntegerv(gl.POLYGON_MODE, &s.polygonMode[0])
	gl.GetIntegerv(gl.VIEWPORT, &s.viewport[0])
	gl.GetIntegerv(gl.SCISSOR_BOX, &s.scissorBox[0])
	gl.GetIntegerv(gl.BLEND_SRC_RGB, &s.blendSrcRGB)
	gl.GetIntegerv(gl.BLEND_DST_RGB, &s.blendDstRGB)
	gl.GetIntegerv(gl.BLEND_SRC_ALPHA, &s.blendSrcAlpha)
	gl.GetIntegerv(gl.BLEND_DST_ALPHA, &s.blendDstAlpha)
	gl.GetIntegerv(gl.BLEND_EQUATION_RGB, &s.blendEqRGB)
	gl.GetIntegerv(gl.BLEND_EQUATION_ALPHA, &s.blendEqAlpha)
	s.blend = gl.IsEnabled(gl.BLEND)
	s.cull = gl.IsEnabled(gl.CULL_FACE)
	s.depth = gl.IsEnabled(gl.DEPTH_TEST)
	s.stencil = gl.IsEnabled(gl.STENCIL_TEST)
	s.scissor = gl.IsEnabled(gl.SCISSOR_TEST)
	s.primitiveRestart = gl.IsEnabled(gl.PRIMITIVE_RESTART)
	return s
}

func setEnabled(capability uint32, on bool) {
	if on {
		gl.Enable(capability)
	} else {
		gl.Disable(capability)
	}
}

func (s *glState) restore() {
	gl.UseProgram(uint32(s.program))
	gl.ActiveTexture(gl.TEXTURE0)
	gl.BindTexture(gl.TEXTURE_2D, uint32(s.texture))
	gl.BindSampler(0, uint32(s.sampler))
	gl.ActiveTexture(uint32(s.activeTexture))
	gl.BindVertexArray(uint32(s.vertexArray))
	gl.BindBuffer(gl.ARRAY_BUFFER, uint32(s.arrayBuffer))
	gl.BlendEquationSeparate(uint32(s.blendEqRGB), uint32(s.blendEqAlpha))
	gl.BlendFuncSeparate(uint32(s.blendSrcRGB), uint32(s.blendDstRGB), uint32(s.blendSrcAlpha), uint32(s.blendDstAlpha))
	setEnabled(gl.BLEND, s.blend)
	setEnabled(gl.CULL_FACE, s.cull)
	setEnabled(gl.DEPTH_TEST, s.depth)
	setEnabled(gl.STENCIL_TEST, s.stencil)
	setEnabled(gl.SCISSOR_TEST, s.scissor)
	setEnabled(gl.PRIMITIVE_RESTART, s.primitiveRestart)
	gl.PolygonMode(gl.FRONT_AND_BACK, uint32(s.polygonMode[0]))
	gl.Viewport(s.viewport[0], s.viewport[1], s.viewport[2], s.viewport[3])
	gl.Scissor(s.scissorBox[0], s.scissorBox[1], s.scissorBox[2], s.scissorBox[3])
}

// Render draws drawData into the bound framebuffer. displaySize is the size imgui laid the frame out in (window
// coordinates); framebufferSize is the bound target's size in pixels, so clip rectangles are scaled by
// framebufferSize/displaySize. Nothing is drawn when either size is empty (a minimised window).
func (r *Renderer) Render(displaySize, framebufferSize [2]float32, drawData imgui.DrawData) {
	r.RenderLists(displaySize, framebufferSize, drawData, nil)
}

// RenderLists is Render for the draw lists keep accepts (nil keeps all).
func (r *Renderer) RenderLists(displaySize, framebufferSize [2]float32, drawData imgui.DrawData, keep func(imgui.DrawList) bool) {
	if r == nil || r.prog == nil || r.prog.ID() == 0 || !drawData.Valid() {
		return
	}
	dw, dh := displaySize[0], displaySize[1]
	fw, fh := framebufferSize[0], framebufferSize[1]
	if dw <= 0 || dh <= 0 || fw <= 0 || fh <= 0 {
		return
	}
	lists := drawData.CommandLists()
	if len(lists) == 0 {
		return
	}
	sx, sy := fw/dw, fh/dh
	origin := drawData.DisplayPos()

	saved := saveGLState()
	defer saved.restore()

	gl.Enable(gl.BLEND)
	gl.BlendEquation(gl.FUNC_ADD)
	gl.BlendFuncSeparate(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA, gl.ONE, gl.ONE_MINUS_SRC_ALPHA)
	gl.Disable(gl.CULL_FACE)
	gl.Disable(gl.DEPTH_TEST)
	gl.Disable(gl.STENCIL_TEST)
	gl.Disable(gl.PRIMITIVE_RESTART)
	gl.Enable(gl.SCISSOR_TEST)
	gl.PolygonMode(gl.FRONT_AND_BACK, gl.FILL)
	gl.Viewport(0, 0, int32(fw), int32(fh))

	// Orthographic projection of the display rectangle [origin, origin+size] with y pointing down.
	l, rt := origin.X, origin.X+dw
	t, b := origin.Y, origin.Y+dh
	proj := [16]float32{
		2 / (rt - l), 0, 0, 0,
		0, 2 / (t - b), 0, 0,
		0, 0, -1, 0,
		(rt + l) / (l - rt), (t + b) / (b - t), 0, 1,
	}
	gl.UseProgram(r.prog.ID())
	gl.Uniform1i(r.locTex, 0)
	gl.UniformMatrix4fv(r.locProj, 1, false, &proj[0])
	gl.BindSampler(0, 0)
	gl.ActiveTexture(gl.TEXTURE0)
	r.vao.Bind()
	gl.BindBuffer(gl.ARRAY_BUFFER, r.vbo)

	for _, list := range lists {
		if keep != nil && !keep(list) {
			continue
		}
		vtx, vtxBytes := list.VertexBuffer()
		idx, idxBytes := list.IndexBuffer()
		gl.BufferData(gl.ARRAY_BUFFER, vtxBytes, vtx, gl.STREAM_DRAW)
		gl.BufferData(gl.ELEMENT_ARRAY_BUFFER, idxBytes, idx, gl.STREAM_DRAW)

		for _, cmd := range list.Commands() {
			if cmd.HasUserCallback() {
				cmd.CallUserCallback(list)
				continue
			}
			clip := cmd.ClipRect() // x1, y1, x2, y2 in display coordinates
			x1, y1 := (clip.X-origin.X)*sx, (clip.Y-origin.Y)*sy
			x2, y2 := (clip.Z-origin.X)*sx, (clip.W-origin.Y)*sy
			if x1 < 0 {
				x1 = 0
			}
			if y1 < 0 {
				y1 = 0
			}
			if x2 > fw {
				x2 = fw
			}
			if y2 > fh {
				y2 = fh
			}
			if x2 <= x1 || y2 <= y1 {
				continue
			}
			// GL's scissor origin is the bottom-left corner.
			gl.Scissor(int32(x1), int32(fh-y2), int32(x2-x1), int32(y2-y1))
			gl.BindTexture(gl.TEXTURE_2D, uint32(cmd.TextureID()))
			gl.DrawElementsBaseVertexWithOffset(gl.TRIANGLES, int32(cmd.ElementCount()), r.idxType,
				uintptr(cmd.IndexOffset()*r.idxSize), int32(cmd.VertexOffset()))
		}
	}
}
