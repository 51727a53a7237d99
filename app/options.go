package app

import (
	"fmt"
	"io"
	"os"
	"runtime"
)

// UsageError is an error in how slosh was called: a bad flag value, an unknown mode, an invalid or unknown --set.
// The command line prints it and exits with status 2.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usagef(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// Options are what every command shares.
type Options struct {
	Scene     string   // a shipped scene's name or a path to a scene file; "" opens DefaultScene
	Load      string   // a save file to start from (its scene, mode, parameters and state); excludes Scene
	Mode      string   // a mode name; "" uses the scene's mode, else DefaultMode
	Sets      []string // "name=value" assignments (--set), applied in order after the scene's overrides
	Particles int      // --particles: the solver's particle count on reset; 0 keeps the scene's resolution
	GLCap     string   // --gl: "4.1" caps the context at OpenGL 4.1 (no compute shaders); "" or "4.3" does not

	Stderr io.Writer // notes and warnings; nil is os.Stderr
}

func (o *Options) stderr() io.Writer {
	if o.Stderr == nil {
		return os.Stderr
	}
	return o.Stderr
}

// check validates what can be checked without opening anything.
func (o *Options) check() error {
	switch o.GLCap {
	case "", "4.1", "4.3":
	default:
		return usagef("--gl %q: want 4.1 (cap the context at OpenGL 4.1, without compute shaders) or 4.3", o.GLCap)
	}
	if o.Load != "" && o.Scene != "" {
		return usagef("--load and --scene both name what to start from; give one")
	}
	if o.Particles < 0 {
		return usagef("--particles %d: must be 0 (the scene's resolution) or more", o.Particles)
	}
	return nil
}

// WindowOptions configure the interactive sandbox.
type WindowOptions struct {
	Options
	Width, Height int    // window size in screen coordinates; 0 is 1280×720
	Captures      string // folder for screenshots; "" is CaptureDir
}

// RunOptions configure a batch run.
type RunOptions struct {
	Options
	Frames        int    // simulated frames of 1/60 s
	Screenshot    string // PNG path for the last frame; "" renders nothing (and needs no GL for CPU modes)
	Save          string // save file for the final state; "" saves none
	Width, Height int    // screenshot size in pixels; 0 is 1280×720
	// AB, "name=value", runs an A/B comparison: the run copied at the start with that parameter changed (or,
	// "mode=M,name=value,...", mode M reset from the same scene with its own settings), each frame's line printed
	// with B's beside A's.
	AB     string
	Stdout io.Writer
}

// BenchOptions configure a benchmark.
type BenchOptions struct {
	Options
	Frames int    // measured frames, at least 1
	Warmup int    // frames run before measuring, 0 or more
	JSON   string // file to write the results to as JSON; "" writes none
	Stdout io.Writer
	// Render also draws every frame offscreen as the window does, Width×Height pixels (0×0 is 1280×720), and
	// times the upload, the surface kernels and each of the renderer's passes.
	Render        bool
	Width, Height int
	// PassWall times --render's passes by the wall clock, each finished before the next begins, instead of GPU
	// timer queries, which a software rasteriser (llvmpipe) gets wrong. The finishes add to the render time.
	PassWall bool
}

func orStdout(w io.Writer) io.Writer {
	if w == nil {
		return os.Stdout
	}
	return w
}

// displayError says why no window can be opened on this machine, or nil when a display is set. GLFW's X11
// platform cannot start without one, so checking here gives a clear message instead of a platform error.
func displayError() error {
	if runtime.GOOS != "linux" && runtime.GOOS != "freebsd" && runtime.GOOS != "openbsd" && runtime.GOOS != "netbsd" {
		return nil
	}
	if os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != "" {
		return nil
	}
	return fmt.Errorf("no display: neither DISPLAY nor WAYLAND_DISPLAY is set; run slosh in a desktop session, " +
		"or under Xvfb (Xvfb :99 & export DISPLAY=:99)")
}
