package glh

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	gl "github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"

	"github.com/slosh/slosh/shaders"
)

// Program is a linked GL program with a cache of uniform locations.
type Program struct {
	id   uint32
	name string
	locs map[string]int32
}

// Stage types by file extension.
var stages = map[string]uint32{
	".vert": gl.VERTEX_SHADER,
	".frag": gl.FRAGMENT_SHADER,
	".comp": 0x91B9, // GL_COMPUTE_SHADER (4.3), compiled through the same entry points
}

// NewProgram compiles and links the given shader files from fsys, each expanded with the defines. Errors name
// the file and line of the source the author wrote. No GL object is left behind on failure.
func NewProgram(fsys fs.FS, defines []shaders.Define, files ...string) (*Program, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("glh: program with no shaders")
	}
	name := strings.Join(files, "+")
	var ids []uint32
	defer func() {
		for _, id := range ids {
			gl.DeleteShader(id)
		}
	}()
	for _, f := range files {
		kind, ok := stages[path.Ext(f)]
		if !ok {
			return nil, fmt.Errorf("glh: %s: unknown shader stage (want .vert, .frag or .comp)", f)
		}
		src, err := shaders.Expand(fsys, f, defines)
		if err != nil {
			return nil, err
		}
		id, err := compile(kind, src)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	prog := gl.CreateProgram()
	for _, id := range ids {
		gl.AttachShader(prog, id)
	}
	gl.LinkProgram(prog)
	for _, id := range ids {
		gl.DetachShader(prog, id)
	}
	var status int32
	gl.GetProgramiv(prog, gl.LINK_STATUS, &status)
	if status == gl.FALSE {
		log := programLog(prog)
		gl.DeleteProgram(prog)
		return nil, fmt.Errorf("shader link failed: %s:\n%s", name, log)
	}
	return &Program{id: prog, name: name, locs: map[string]int32{}}, nil
}

func compile(kind uint32, src shaders.Source) (uint32, error) {
	id := gl.CreateShader(kind)
	csrc, free := gl.Strs(src.Text + "\x00")
	gl.ShaderSource(id, 1, csrc, nil)
	free()
	gl.CompileShader(id)
	var status int32
	gl.GetShaderiv(id, gl.COMPILE_STATUS, &status)
	if status == gl.FALSE {
		var n int32
		gl.GetShaderiv(id, gl.INFO_LOG_LENGTH, &n)
		log := make([]byte, n+1)
		gl.GetShaderInfoLog(id, n, nil, &log[0])
		gl.DeleteShader(id)
		return 0, fmt.Errorf("shader compile failed: %s", src.Annotate(string(log)))
	}
	return id, nil
}

func programLog(prog uint32) string {
	var n int32
	gl.GetProgramiv(prog, gl.INFO_LOG_LENGTH, &n)
	if n <= 0 {
		return "(no log)"
	}
	log := make([]byte, n+1)
	gl.GetProgramInfoLog(prog, n, nil, &log[0])
	return strings.TrimRight(string(log), "\x00\n ")
}

// ID is the GL name of the program.
func (p *Program) ID() uint32 { return p.id }

// Name is the files the program was built from, for messages.
func (p *Program) Name() string { return p.name }

// Use makes the program current.
func (p *Program) Use() { gl.UseProgram(p.id) }

// Delete frees the program; safe to call twice.
func (p *Program) Delete() {
	if p != nil && p.id != 0 {
		gl.DeleteProgram(p.id)
		p.id = 0
	}
}

// Loc returns a uniform's location (-1 when the linker removed or never had it).
func (p *Program) Loc(name string) int32 {
	if l, ok := p.locs[name]; ok {
		return l
	}
	l := gl.GetUniformLocation(p.id, gl.Str(name+"\x00"))
	p.locs[name] = l
	return l
}

// The setters below act on the program in use.

func (p *Program) SetInt(name string, v int32)     { gl.Uniform1i(p.Loc(name), v) }
func (p *Program) SetUint(name string, v uint32)   { gl.Uniform1ui(p.Loc(name), v) }
func (p *Program) SetFloat(name string, v float32) { gl.Uniform1f(p.Loc(name), v) }
func (p *Program) SetVec2(name string, v mgl32.Vec2) {
	gl.Uniform2f(p.Loc(name), v[0], v[1])
}
func (p *Program) SetVec3(name string, v mgl32.Vec3) {
	gl.Uniform3f(p.Loc(name), v[0], v[1], v[2])
}
func (p *Program) SetVec4(name string, v mgl32.Vec4) {
	gl.Uniform4f(p.Loc(name), v[0], v[1], v[2], v[3])
}
func (p *Program) SetMat4(name string, m mgl32.Mat4) {
	gl.UniformMatrix4fv(p.Loc(name), 1, false, &m[0])
}
func (p *Program) SetMat3(name string, m mgl32.Mat3) {
	gl.UniformMatrix3fv(p.Loc(name), 1, false, &m[0])
}

// BindBlock binds a named uniform block to a binding point.
func (p *Program) BindBlock(name string, binding uint32) {
	if i := gl.GetUniformBlockIndex(p.id, gl.Str(name+"\x00")); i != gl.INVALID_INDEX {
		gl.UniformBlockBinding(p.id, i, binding)
	}
}
