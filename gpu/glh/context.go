// Package glh is slosh's OpenGL plumbing: context creation, typed handles for programs, buffers, textures,
// framebuffers and timer queries, with explicit lifetimes (Delete is safe to call twice; finalizers never call GL).
//
// Everything here uses the 4.1 core binding, so the renderer and the panel work on any 4.1+ context (macOS stops
// at 4.1). Compute shaders need 4.3: Context.Compute says whether the 4.3 binding loaded, and only gpu packages
// that dispatch compute work import it.
//
// All calls must come from the thread that opened the context; main locks it in init.
package glh

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	gl "github.com/go-gl/gl/v4.1-core/gl"
	gl43 "github.com/go-gl/gl/v4.3-core/gl"
	"github.com/go-gl/glfw/v3.3/glfw"

	"github.com/slosh/slosh/internal/testenv"
)

// Options configures the window that carries the context.
type Options struct {
	Width, Height int
	Title         string
	Visible       bool // false: a hidden window, for headless runs and tests
	Resizable     bool
	VSync         bool
	// MaxVersion caps the requested version, as "4.1" to try the no-compute path on a machine that has 4.3.
	MaxVersion string
}

// Context is an open window with a current OpenGL core context.
type Context struct {
	Window       *glfw.Window
	Major, Minor int
	Compute      bool // the 4.3 binding loaded: compute shaders and SSBOs are available
	Version      string
	Renderer     string

	shared     map[string]any
	sharedKeys []string // creation order, for deleting in reverse
}

// Shared returns what is stored under key on this context, creating it with create on first use: compiled
// programs that every solver on the context can use, say. Values with a Delete method are deleted, newest first,
// when the context closes. A failed create stores nothing.
func (c *Context) Shared(key string, create func() (any, error)) (any, error) {
	if v, ok := c.shared[key]; ok {
		return v, nil
	}
	v, err := create()
	if err != nil {
		return nil, err
	}
	if c.shared == nil {
		c.shared = map[string]any{}
	}
	c.shared[key] = v
	c.sharedKeys = append(c.sharedKeys, key)
	return v, nil
}

// windows counts the contexts Open has opened and Close has not closed. GLFW is process-wide state: Terminate
// destroys every window, so it runs only when the last context closes (a headless command opened inside the
// window's process, or inside a test binary with its shared context, must not take the others down). Like every
// GLFW call it is used from the one thread GL runs on.
var windows int

// terminate stops GLFW when no context is open.
func terminate() {
	if windows == 0 {
		glfw.Terminate()
	}
}

// ErrNoContext wraps every failure to get a usable context.
var ErrNoContext = errors.New("no OpenGL 4.1+ core context")

// Open initialises GLFW and creates a window with the newest of OpenGL 4.3 and 4.1 core that the platform gives.
func Open(o Options) (ctx *Context, err error) {
	if runtime.GOOS == "linux" && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return nil, fmt.Errorf("%w: no display (DISPLAY is not set); run under a desktop session or Xvfb, e.g. `Xvfb :99 & DISPLAY=:99 slosh ...`", ErrNoContext)
	}
	// The GLFW binding panics on some platform errors (e.g. a display that cannot be opened); report them as errors.
	defer func() {
		if r := recover(); r != nil {
			ctx, err = nil, fmt.Errorf("%w: GLFW could not start on display %q (%v); is the X server running?", ErrNoContext, os.Getenv("DISPLAY"), r)
		}
	}()
	if err := glfw.Init(); err != nil {
		return nil, fmt.Errorf("%w: GLFW could not start (%v); is there a display? Set DISPLAY or run under Xvfb", ErrNoContext, err)
	}
	keepHeap()
	versions := [][2]int{{4, 3}, {4, 1}}
	if o.MaxVersion == "4.1" {
		versions = versions[1:]
	}
	var win *glfw.Window
	var lastErr error
	for _, v := range versions {
		glfw.DefaultWindowHints()
		glfw.WindowHint(glfw.ContextVersionMajor, v[0])
		glfw.WindowHint(glfw.ContextVersionMinor, v[1])
		glfw.WindowHint(glfw.OpenGLProfile, glfw.OpenGLCoreProfile)
		glfw.WindowHint(glfw.OpenGLForwardCompatible, glfw.True)
		glfw.WindowHint(glfw.Visible, boolHint(o.Visible))
		glfw.WindowHint(glfw.Resizable, boolHint(o.Resizable))
		glfw.WindowHint(glfw.ScaleToMonitor, glfw.True)
		glfw.WindowHint(glfw.CocoaRetinaFramebuffer, glfw.True)
		w, h := o.Width, o.Height
		if w <= 0 || h <= 0 {
			w, h = 1280, 720
		}
		win, lastErr = glfw.CreateWindow(w, h, o.Title, nil, nil)
		if lastErr == nil {
			break
		}
	}
	if win == nil {
		terminate()
		return nil, fmt.Errorf("%w: %v", ErrNoContext, lastErr)
	}
	win.MakeContextCurrent()
	if err := gl.Init(); err != nil {
		win.Destroy()
		terminate()
		return nil, fmt.Errorf("%w: loading OpenGL 4.1 functions: %v", ErrNoContext, err)
	}
	windows++
	c := &Context{Window: win, Version: gl.GoStr(gl.GetString(gl.VERSION)), Renderer: gl.GoStr(gl.GetString(gl.RENDERER))}
	var major, minor int32
	gl.GetIntegerv(gl.MAJOR_VERSION, &major)
	gl.GetIntegerv(gl.MINOR_VERSION, &minor)
	c.Major, c.Minor = int(major), int(minor)
	if (c.Major > 4 || c.Major == 4 && c.Minor >= 3) && o.MaxVersion != "4.1" {
		c.Compute = gl43.Init() == nil
	}
	if o.VSync {
		glfw.SwapInterval(1)
	} else {
		glfw.SwapInterval(0)
	}
	return c, nil
}

func boolHint(b bool) int {
	if b {
		return glfw.True
	}
	return glfw.False
}

// Close destroys the window, and stops GLFW when it was the last.
func (c *Context) Close() {
	if c == nil || c.Window == nil {
		return
	}
	for i := len(c.sharedKeys) - 1; i >= 0; i-- {
		if d, ok := c.shared[c.sharedKeys[i]].(interface{ Delete() }); ok {
			d.Delete()
		}
	}
	c.shared, c.sharedKeys = nil, nil
	c.Window.Destroy()
	c.Window = nil
	windows--
	terminate()
}

// String describes the context for logs: "OpenGL 4.5 (Core Profile) Mesa 22.3.6 on llvmpipe, compute".
func (c *Context) String() string {
	s := fmt.Sprintf("OpenGL %s on %s", c.Version, c.Renderer)
	if c.Compute {
		return s + ", compute shaders"
	}
	return s + ", no compute shaders"
}

// CheckError returns the first pending GL error, naming what was being done.
func CheckError(what string) error {
	if e := gl.GetError(); e != gl.NO_ERROR {
		// drain the rest so the next check starts clean
		for i := 0; i < 16 && gl.GetError() != gl.NO_ERROR; i++ {
		}
		return fmt.Errorf("%s: GL error 0x%04x", what, e)
	}
	return nil
}

// RequireGL reports whether tests must fail (not skip) when no context can be had: under SLOSH_REQUIRE_GL=1
// (which `make test` sets) and on CI machines (CI set, as CI services do), where a skipped GL test would count as
// a pass.
func RequireGL() bool { return testenv.Required() }
