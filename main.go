// Command slosh is an interactive fluid sandbox: Position Based Fluids on the GPU (or the CPU) in a window with a
// panel that tunes every parameter live, and the same solvers headless for batch runs and benchmarks.
//
// This file is only the command line; package app does the work.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/slosh/slosh/app"
)

// GLFW and OpenGL must be used from one thread, the one that initialised them: lock main to its OS thread.
func init() { runtime.LockOSThread() }

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// Exit statuses.
const (
	exitOK      = 0
	exitFailure = 1 // the command failed: a bad scene file, no OpenGL, a solver error
	exitUsage   = 2 // the command line was wrong: an unknown command or flag, an invalid --set
)

// multiFlag collects a repeatable flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

// command is one subcommand: its flags, its help text and what it does.
type command struct {
	name     string
	synopsis string // the usage line(s) after "slosh "
	summary  string
	examples string
	flags    func(fs *flag.FlagSet) func() error // registers the flags; the returned function runs the command
	// args takes the arguments after the flags (replay's FILE); nil means the command takes none
	args func(a []string) error
}

func commands(stdout, stderr io.Writer) []command {
	var replayFile *string // where replay's flags function keeps its FILE argument
	common := func(fs *flag.FlagSet, o *app.Options) {
		fs.StringVar(&o.Scene, "scene", "", "shipped scene `name` or path to a scene file (slosh scenes lists them; default "+app.DefaultScene+")")
		fs.StringVar(&o.Mode, "mode", "", "simulation `mode`: "+strings.Join(app.ModeNames(app.Modes()), ", ")+" (default: the scene's mode, else "+app.DefaultMode+")")
		fs.Var((*multiFlag)(&o.Sets), "set", "set a parameter, `name=value`; repeatable (slosh params lists them)")
		fs.StringVar(&o.Load, "load", "", "start from a saved state `file` (.slosh, saved with ctrl-s in the window): its scene, mode and parameters; --mode and --set still apply")
		fs.IntVar(&o.Particles, "particles", 0, "particle count on reset (sets the mode's *.particles parameter; 0 keeps the scene's resolution)")
		fs.StringVar(&o.GLCap, "gl", "", "development: `4.1` caps the OpenGL context at 4.1, without compute shaders, to try the CPU fallback")
		o.Stderr = stderr
	}
	return []command{
		{
			name:     "",
			synopsis: "[--scene S | --load F] [--mode M] [--set name=value ...] [--particles N] [--captures DIR]",
			summary:  "Open the sandbox window.",
			examples: `  slosh
  slosh --scene obstacles
  slosh --scene pool --mode pbf-cpu --particles 20000
  slosh --scene my-scene.json --set pbf.iterations=6 --set render.color=speed`,
			flags: func(fs *flag.FlagSet) func() error {
				var o app.WindowOptions
				common(fs, &o.Options)
				fs.StringVar(&o.Captures, "captures", app.CaptureDir, "`folder` for screenshots (F12), recordings (F9), particle exports and replays")
				return func() error { return app.Window(o) }
			},
		},
		{
			name:     "run",
			synopsis: "run --scene S --frames N [--mode M] [--set name=value ...] [--screenshot F.png [--width W --height H]] [--ab name=value|mode=M,name=value,...]",
			summary: "Simulate without a window, printing one line of statistics per frame (1/60 s).\n" +
				"--screenshot saves the last frame as a PNG. A CPU mode without it needs no GL and no display.",
			examples: `  slosh run --scene pool --mode pbf-cpu --frames 120
  slosh run --scene dambreak --frames 90 --screenshot dambreak.png --width 960 --height 540
  slosh run --scene dambreak --frames 60 --set pbf.substeps=4 --set pbf.iterations=2
  slosh run --scene fountain --frames 120 --save fountain.slosh && slosh run --load fountain.slosh --frames 60`,
			flags: func(fs *flag.FlagSet) func() error {
				var o app.RunOptions
				common(fs, &o.Options)
				fs.IntVar(&o.Frames, "frames", 60, "frames to simulate")
				fs.StringVar(&o.Screenshot, "screenshot", "", "save the last frame as a PNG `file`")
				fs.StringVar(&o.Save, "save", "", "save the final state to `file` (.slosh), to continue it with --load")
				fs.StringVar(&o.AB, "ab", "", "A/B: run a copy with one parameter changed, `name=value`, or another mode from the same scene, mode=M[,name=value...], beside the run; B's columns follow A's")
				fs.IntVar(&o.Width, "width", 1280, "screenshot width, pixels")
				fs.IntVar(&o.Height, "height", 720, "screenshot height, pixels")
				o.Stdout = stdout
				return func() error { return app.Run(o) }
			},
		},
		{
			name:     "export",
			synopsis: "export --scene S --frames N --out DIR [--mesh obj|ply] [--vdb] [--usd] [--mode M] [--set name=value ...]",
			summary: "Simulate without a window and write every frame as a particle cache: DIR/frame_000001.ply on\n" +
				"(binary PLY: x y z, vx vy vz, density, id, body) that Blender and Houdini import, and DIR/" + app.SidecarName + "\n" +
				"with the scene, the parameters and the software version. With --mesh, also the fluid's surface meshed\n" +
				"from the particles (DIR/surface_000001.obj on: closed, with normals; mesh.* settings) and each rigid\n" +
				"body at its pose (DIR/body0_000001.obj on). With --vdb, the same surface as an OpenVDB narrow-band\n" +
				"level set named surface (DIR/surface_000001.vdb on; voxels of mesh.cell spacings). With --usd, the whole\n" +
				"run as one USD stage, DIR/slosh.usda, playing a layer per frame (DIR/usd.000001.usda on).",
			examples: `  slosh export --scene dambreak --frames 120 --out cache/dambreak
  slosh export --scene duck-pond --frames 60 --out cache/ducks --mesh obj --set mesh.cell=0.4
  slosh export --scene fountain --mode pbf-cpu --particles 20000 --frames 240 --out cache/fountain
  slosh export --scene duck-pond --frames 120 --out cache/ducks --vdb --vdb-velocity --usd`,
			flags: func(fs *flag.FlagSet) func() error {
				var o app.ExportOptions
				common(fs, &o.Options)
				fs.IntVar(&o.Frames, "frames", 60, "frames to simulate and write")
				fs.StringVar(&o.Out, "out", "", "`folder` for the frames and the sidecar")
				fs.StringVar(&o.Mesh, "mesh", "", "also write each frame's fluid surface and rigid bodies as meshes: `obj` or ply")
				fs.BoolVar(&o.VDB, "vdb", false, "also write each frame's fluid surface as an OpenVDB level set (surface_000001.vdb on)")
				fs.BoolVar(&o.VDBDensity, "vdb-density", false, "with --vdb, each VDB file also holds a fog volume named density (1 inside the fluid)")
				fs.BoolVar(&o.VDBVelocity, "vdb-velocity", false, "with --vdb, each VDB file also holds a vector grid named velocity on the level set's band")
				fs.BoolVar(&o.USD, "usd", false, "also write the run as one USD stage, slosh.usda: particles, surfaces, bodies and camera, a layer per frame")
				o.Stdout = stdout
				return func() error { return app.Export(o) }
			},
		},
		{
			name:     "record",
			synopsis: "record --scene S --frames N --out clip.mp4|clip.gif|clip.png [--width W --height H] [--mode M] [--set name=value ...] [--ab name=value|mode=M,...]",
			summary: "Simulate without a visible window and render every frame into a clip: an MP4 (H.264, yuv420p, 60 fps;\n" +
				"needs ffmpeg, else PNG frames and the command that makes the video), a GIF, or PNG frames (one frame:\n" +
				"that file; more: clip_000001.png, ...). Works under Xvfb; shows progress and the time left.",
			examples: `  slosh record --scene dambreak --frames 180 --out dambreak.mp4
  slosh record --scene duck-pond --frames 90 --out ducks.gif --width 480 --height 270
  slosh record --scene fountain --frames 1 --out fountain.png --set render.mode=particles
  slosh record --scene dambreak --frames 120 --out iterations.mp4 --set pbf.iterations=2 --ab pbf.iterations=6`,
			flags: func(fs *flag.FlagSet) func() error {
				var o app.RecordOptions
				common(fs, &o.Options)
				fs.IntVar(&o.Frames, "frames", 60, "frames to simulate and record (60 per simulated second)")
				fs.StringVar(&o.Out, "out", "", "the clip `file`: .mp4, .gif or .png")
				fs.IntVar(&o.Width, "width", 1280, "picture width, pixels")
				fs.IntVar(&o.Height, "height", 720, "picture height, pixels")
				fs.StringVar(&o.Quality, "quality", "high", "`high`, medium or low (MP4: H.264 quality 18/23/28; GIF: colours and dithering)")
				fs.StringVar(&o.AB, "ab", "", "A/B: record a copy with one parameter changed, `name=value`, or another mode from the same scene, mode=M[,name=value...], beside the run (left A, right B; the clip is twice as wide)")
				o.Stdout = stdout
				return func() error { return app.Record(o) }
			},
		},
		{
			name:     "replay",
			synopsis: "replay FILE [--record clip.mp4|clip.gif|clip.png [--width W --height H] [--quality Q]] [--save F] [--set name=value ...]",
			summary: "Re-run a sitting saved with the panel's Save replay (its scene, parameters and every tool action with\n" +
				"the step it came before): the same simulation, bit for bit on the same device. --record renders every\n" +
				"frame into a clip at any size, so a sitting played at 30 fps can be rendered at full resolution offline.\n" +
				"The simulation runs with the parameters it recorded: --set takes only render.* and surface.* parameters.",
			examples: `  slosh replay captures/pool.replay.json
  slosh replay captures/pool.replay.json --record pool.mp4 --width 1920 --height 1080
  slosh replay pool.replay.json --record pool.gif --width 480 --height 270 --set render.mode=particles`,
			flags: func(fs *flag.FlagSet) func() error {
				var o app.ReplayOptions
				fs.StringVar(&o.Record, "record", "", "render every frame into a clip `file`: .mp4, .gif or .png")
				fs.IntVar(&o.Width, "width", 1280, "picture width, pixels")
				fs.IntVar(&o.Height, "height", 720, "picture height, pixels")
				fs.StringVar(&o.Quality, "quality", "high", "`high`, medium or low")
				fs.StringVar(&o.Save, "save", "", "save the final state to `file` (.slosh)")
				fs.Var((*multiFlag)(&o.Sets), "set", "set a render.* or surface.* parameter, `name=value`; repeatable")
				fs.StringVar(&o.GLCap, "gl", "", "development: `4.1` caps the OpenGL context at 4.1")
				o.Stdout, o.Stderr = stdout, stderr
				replayFile = &o.File
				return func() error { return app.Replay(o) }
			},
			args: func(a []string) error {
				if len(a) != 1 {
					return fmt.Errorf("replay takes one replay file, got %d arguments", len(a))
				}
				*replayFile = a[0]
				return nil
			},
		},
		{
			name:     "bench",
			synopsis: "bench --scene S [--particles N] [--mode M] [--frames F] [--warmup W] [--set name=value ...] [--json FILE] [--render [--width W --height H]]",
			summary: "Time a mode on a scene: mean milliseconds per pass and per step, particle-steps per second.\n" +
				"It warms up, then measures F frames; --json writes the results with the machine's description.\n" +
				"--render also draws every frame offscreen after its steps, as the window draws it (render.mode, the\n" +
				"surface kernels, each render pass), finishing each before the next: GPU milliseconds per pass, and the\n" +
				"wall time of the steps, the rendering and the whole frame, with frames per second.",
			examples: `  slosh bench --scene dambreak --mode pbf-cpu --particles 32000
  slosh bench --scene dambreak --mode pbf --particles 250000 --frames 120 --json bench-pbf.json
  slosh bench --scene dambreak --mode pbf --particles 1000000 --render --width 1920 --height 1080`,
			flags: func(fs *flag.FlagSet) func() error {
				var o app.BenchOptions
				common(fs, &o.Options)
				fs.IntVar(&o.Frames, "frames", 60, "frames to measure")
				fs.IntVar(&o.Warmup, "warmup", 10, "frames to run before measuring")
				fs.StringVar(&o.JSON, "json", "", "write the results as JSON to `file`")
				fs.BoolVar(&o.Render, "render", false, "also draw every frame offscreen as the window does, and time each pass (needs OpenGL)")
				fs.IntVar(&o.Width, "width", 0, "--render's picture width, pixels (0: 1280)")
				fs.IntVar(&o.Height, "height", 0, "--render's picture height, pixels (0: 720)")
				fs.BoolVar(&o.PassWall, "pass-wall", false, "time --render's passes by the wall clock, finishing each (timer queries are wrong on llvmpipe)")
				o.Stdout = stdout
				return func() error { return app.Bench(o) }
			},
		},
		{
			name:     "scenes",
			synopsis: "scenes",
			summary:  "List the shipped scenes with their descriptions.",
			examples: "  slosh scenes",
			flags: func(fs *flag.FlagSet) func() error {
				return func() error { return app.ListScenes(stdout) }
			},
		},
		{
			name:     "params",
			synopsis: "params [--mode M]",
			summary: "List every parameter of a mode: group, unit, default, hard range and description.\n" +
				"The surface reconstruction's surface.* and the renderer's render.* parameters follow: every mode has them,\n" +
				"and they are set the same way. Needs no OpenGL and no display.",
			examples: "  slosh params\n  slosh params --mode pbf-cpu | grep iterations",
			flags: func(fs *flag.FlagSet) func() error {
				var o app.Options
				fs.StringVar(&o.Mode, "mode", "", "`mode`: "+strings.Join(app.ModeNames(app.Modes()), ", ")+" (default "+app.DefaultMode+")")
				o.Stderr = stderr
				return func() error { return app.ListParams(stdout, o) }
			},
		},
	}
}

// run executes the command line and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	cmds := commands(stdout, stderr)
	cmd := cmds[0] // the window
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name := args[0]
		args = args[1:]
		if name == "help" {
			return help(cmds, args, stdout, stderr)
		}
		found := false
		for _, c := range cmds[1:] {
			if c.name == name {
				cmd, found = c, true
			}
		}
		if !found {
			fmt.Fprintf(stderr, "slosh: unknown command %q\n\n", name)
			usage(stderr, cmds)
			return exitUsage
		}
	}

	fs := flag.NewFlagSet("slosh "+cmd.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	exec := cmd.flags(fs)
	fs.Usage = func() {} // flag calls it for -h too: the help is printed below, to stdout for -h, else to stderr
	// flags may come before and after a command's arguments (slosh replay FILE --record clip.mp4)
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				commandUsage(stdout, cmd, fs, cmds)
				return exitOK
			}
			commandUsage(stderr, cmd, fs, cmds) // after flag's line saying what was wrong
			return exitUsage
		}
		if cmd.args == nil || fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if cmd.args != nil {
		if err := cmd.args(positional); err != nil {
			fmt.Fprintf(stderr, "slosh: %v\n\n", err)
			commandUsage(stderr, cmd, fs, cmds)
			return exitUsage
		}
	} else if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "slosh: unexpected argument %q\n\n", fs.Arg(0))
		commandUsage(stderr, cmd, fs, cmds)
		return exitUsage
	}
	if err := exec(); err != nil {
		fmt.Fprintln(stderr, "slosh: "+err.Error())
		var ue *app.UsageError
		if errors.As(err, &ue) {
			fmt.Fprintf(stderr, "Run `%s -h` for help.\n", strings.TrimSpace("slosh "+cmd.name))
			return exitUsage
		}
		return exitFailure
	}
	return exitOK
}

func help(cmds []command, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stdout, cmds)
		return exitOK
	}
	for _, c := range cmds[1:] {
		if c.name == args[0] {
			fs := flag.NewFlagSet("slosh "+c.name, flag.ContinueOnError)
			c.flags(fs)
			fs.SetOutput(stdout)
			commandUsage(stdout, c, fs, cmds)
			return exitOK
		}
	}
	fmt.Fprintf(stderr, "slosh: no help for unknown command %q\n\n", args[0])
	usage(stderr, cmds)
	return exitUsage
}

// usage is the overview of all commands.
func usage(w io.Writer, cmds []command) {
	fmt.Fprintln(w, "slosh: an interactive fluid sandbox.")
	fmt.Fprintln(w, "\nUsage:")
	for _, c := range cmds {
		fmt.Fprintf(w, "  slosh %s\n", c.synopsis)
	}
	fmt.Fprintln(w, "\nCommands:")
	for _, c := range cmds {
		name := c.name
		if name == "" {
			name = "(none)"
		}
		fmt.Fprintf(w, "  %-8s %s\n", name, strings.SplitN(c.summary, "\n", 2)[0])
	}
	fmt.Fprintln(w, "\nModes:")
	app.ListModes(w)
	fmt.Fprintln(w, "\nRun `slosh COMMAND -h` (or `slosh -h` for the window) for a command's flags and examples.")
}

func commandUsage(w io.Writer, c command, fs *flag.FlagSet, cmds []command) {
	fmt.Fprintf(w, "Usage: slosh %s\n\n%s\n\nFlags:\n", c.synopsis, c.summary)
	printFlags(w, fs)
	fmt.Fprintf(w, "\nExamples:\n%s\n", c.examples)
	if c.name == "" {
		fmt.Fprintln(w, "\nIn the window: left-drag orbits, right- or middle-drag (or shift + left-drag) pans, the wheel zooms;")
		fmt.Fprintln(w, "space pauses and runs, . steps one frame, r resets, f frames the scene, h hides the panel, Esc quits;")
		fmt.Fprintln(w, "F12 saves a screenshot, F9 starts and stops a recording (into --captures); b starts and stops an A/B\n"+
			"comparison (the panel's Compare A/B picks the parameter B changes, or another mode for B).")
		fmt.Fprintln(w, "\nOther commands:")
		for _, o := range cmds[1:] {
			fmt.Fprintf(w, "  slosh %s\n", o.synopsis)
		}
	}
}

// printFlags lists the flags the way they are documented, with two dashes (flag accepts one or two).
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		arg, text := flag.UnquoteUsage(f)
		head := "  --" + f.Name
		if arg != "" {
			head += " " + arg
		}
		def := ""
		if f.DefValue != "" && f.DefValue != "0" && f.DefValue != "false" {
			def = " (default " + f.DefValue + ")"
		}
		fmt.Fprintf(w, "%s\n      %s%s\n", head, text, def)
	})
	fmt.Fprintln(w, "  -h, --help\n      show this help")
}
