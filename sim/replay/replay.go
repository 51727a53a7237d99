// Package replay records a sitting at the sandbox as its inputs and plays it back.
//
// A replay holds what a sitting started from — the mode, the scene and every parameter's value at the reset — and
// what happened during it: each tool action (sim.Hands, or sim.FlatHands in a 2D scene's game) and each parameter
// change, keyed on the number of solver
// steps taken since the reset when it happened. The solvers are deterministic on a given device, so resetting a
// fresh solver of the same mode from the same scene and parameters and applying the same inputs before the same
// steps reproduces the sitting bit for bit: a clip played at 30 fps on a laptop can be rendered again offline at
// full resolution, frame by frame.
//
// A replay file is small, readable JSON: one top-level field a line, the scene as sim/scene writes it, the
// parameters one a line, the actions one a line:
//
//	{
//	  "format": "slosh-replay",
//	  "version": 1,
//	  "software": "slosh",
//	  "software_version": "v0.4.0",
//	  "mode": "pbf-cpu",
//	  "frame_dt": 0.016666666666666666,
//	  "steps": 96,
//	  "scene": {
//	    "name": "pool",
//	    ...
//	  },
//	  "params": {
//	    "pbf.iterations": 3,
//	    "pbf.vorticity": 0.02,
//	    ...
//	  },
//	  "actions": [
//	    {"step": 8, "op": "drain", "drain": {"center": [0.3, 0.05, 0.1], "radius": 0.06}},
//	    {"step": 16, "op": "params", "params": {"pbf.vorticity": 0.1}},
//	    {"step": 20, "op": "add_body", "body": {"shape": "sphere", "center": [0.2, 0.25, 0.1], "radius": 0.04, "density": 700}},
//	    {"step": 24, "op": "drive_body", "drive": {"index": 1, "velocity": [1.5, 0.5, 0], "on": true}},
//	    {"step": 32, "op": "set_tools", "tools": {"paddle": {"center": [0.1, 0.1, 0.1], "radius": 0.05}}},
//	    {"step": 36, "op": "set_tools", "tools": {}},
//	    {"step": 38, "op": "set_tools", "tools": {"heat": {"center": [0.2, 0.1, 0.1], "radius": 0.05, "temperature": 100, "rate": 5}}},
//	    {"step": 40, "op": "remove_body", "index": 1},
//	    {"step": 48, "op": "add_fluid", "fluid": {"pos": [[0.3, 0.05, 0.1]], "vel": [[0, -0.2, 0]]}}
//	  ]
//	}
//
// A 2D scene's sitting (a scene with "flat", the reduced mode's game) holds the game's hands (sim.FlatHands)
// instead of the 3D tools, in the rectangle's coordinates (x right, y up, m); its parameter changes are params
// actions as above:
//
//	"actions": [
//	  {"step": 4, "op": "draw", "points": [[0.2, 0.3], [1, 0.5], [1.8, 0.3]], "speed": 0.4, "width": 0.15},
//	  {"step": 30, "op": "excite", "key": 1},
//	  {"step": 42, "op": "grab", "at": [0.31, 0.58]},
//	  {"step": 43, "op": "move_grab", "at": [0.4, 0.7]},
//	  {"step": 50, "op": "release"},
//	  {"step": 60, "op": "spawn", "flat_body": {"shape": "circle", "center": [1, 0.9], "radius": 0.06, "density": 500}},
//	  {"step": 75, "op": "remove_flat_body", "index": 3}
//	]
//
// A 3D tool in a 2D scene's replay, or a 2D one in a 3D scene's, is refused.
//
// Numbers are written in the fewest digits that read back to the same value: float32 fields (positions,
// velocities, radii, the paddle, strokes and grab points, float parameters) as float32, scene values (bodies,
// emitters, spawned 2D bodies) as float64, so nothing is rounded on the way through a file.
//
// Log records a sitting; Player applies a file's actions to a solver as it steps, and Run plays a whole file
// headless. Stepping must be the sitting's: each display frame is n steps of FrameDt/n seconds, n from the solver's
// BeginFrame at the start of the frame after the frame's actions are applied.
//
// What a replay cannot hold: a loaded saved state, or a step that failed and restored an earlier state (both put
// the solver in a state no input reproduces). The app calls Log.Break for them; the recording resumes at the next
// reset.
package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/scene"
)

// FormatName is a replay file's "format" field.
const FormatName = "slosh-replay"

// Version is the version of the file format this package writes and the newest it reads.
const Version = 1

// Software is the "software" field of the files this package writes, unless File.Software says otherwise.
const Software = "slosh"

// MaxSize bounds the files Read and Decode accept: a sitting of an hour with a tool in use every frame is a few
// megabytes; anything near this is damaged or not a replay.
const MaxSize = 256 << 20

// Limits on a replay's numbers, checked when it is read and written: each is far beyond what a sitting produces,
// and a value past it is a damaged or hand-made file that would otherwise run for ever or blow up the solver.
const (
	// MinFrameDt and MaxFrameDt bound the display frame's simulated time, s (a sitting records sim.FrameDt, 1/60).
	MinFrameDt = 1e-4
	MaxFrameDt = 0.1
	// MaxSteps bounds a replay's length in solver steps: years of a sitting at 60 frames a second.
	MaxSteps = 1 << 40
	// MaxFluidSpeed bounds the velocities of added fluid, m/s: a hundred times what the scene lets emitters and
	// moving obstacles reach.
	MaxFluidSpeed = 100 * scene.MaxSpeed
	// MaxToolRadius is the most the window's paddle, drain and heat tool reach, m (tools.paddle_radius,
	// tools.drain_radius and tools.heat_radius); a larger domain allows its own size.
	MaxToolRadius = 1
	// maxPacked bounds the added particles that may share one cell of the finest lattice a solver's budget could
	// fill the domain with (see packing).
	maxPacked = 64
)

// Op names an action's kind.
type Op string

// The actions a replay holds: a parameter change, the sim.Hands calls that change a 3D simulation and the
// sim.FlatHands calls that change a 2D one.
const (
	OpParams     Op = "params"      // Action.Params: parameter values that changed
	OpAddFluid   Op = "add_fluid"   // Action.Fluid: sim.Hands.AddFluid
	OpDrain      Op = "drain"       // Action.Drain: sim.Hands.Drain
	OpAddBody    Op = "add_body"    // Action.Body: sim.Hands.AddBody
	OpRemoveBody Op = "remove_body" // Action.Index: sim.Hands.RemoveBody
	OpDriveBody  Op = "drive_body"  // Action.Drive: sim.Hands.DriveBody
	OpSetTools   Op = "set_tools"   // Action.Tools: sim.Hands.SetTools

	OpDraw           Op = "draw"             // Action.Stroke: sim.FlatHands.Draw
	OpExcite         Op = "excite"           // Action.Key: sim.FlatHands.Excite
	OpGrab           Op = "grab"             // Action.At: sim.FlatHands.Grab (one that took hold of a body)
	OpMoveGrab       Op = "move_grab"        // Action.At: sim.FlatHands.MoveGrab
	OpRelease        Op = "release"          // no arguments: sim.FlatHands.Release
	OpSpawn          Op = "spawn"            // Action.FlatBody: sim.FlatHands.Spawn
	OpRemoveFlatBody Op = "remove_flat_body" // Action.Index: sim.FlatHands.RemoveFlatBody
)

// ops lists the known ops in the order messages name them.
var ops = []Op{OpParams, OpAddFluid, OpDrain, OpAddBody, OpRemoveBody, OpDriveBody, OpSetTools,
	OpDraw, OpExcite, OpGrab, OpMoveGrab, OpRelease, OpSpawn, OpRemoveFlatBody}

// IsFlat reports whether op is one of the 2D game's hands (sim.FlatHands), which only a 2D scene's replay holds;
// the 3D tools only a 3D scene's do, and params either.
func (op Op) IsFlat() bool {
	switch op {
	case OpDraw, OpExcite, OpGrab, OpMoveGrab, OpRelease, OpSpawn, OpRemoveFlatBody:
		return true
	}
	return false
}

// File is a replay: where a sitting started and what happened in it.
type File struct {
	// Software and SoftwareVersion say what recorded the sitting ("slosh", "v0.4.0"); Marshal writes Software
	// when it is empty.
	Software        string
	SoftwareVersion string

	// Mode is the solver's mode name ("pbf", "pbf-cpu"): sim.Solver.Name of the solver that ran the sitting.
	// A Player applies the inputs to a solver of any mode with the same parameters, but only the same mode on the
	// same device reproduces the sitting bit for bit (Run refuses another mode).
	Mode string
	// Scene is the scene the sitting was reset with, as scene.Scene.Marshal writes it (mesh paths made absolute
	// where they were relative to the scene file). OpenScene reads it.
	Scene json.RawMessage
	// Params holds every parameter's value at the reset, by full name, as param.Set.Preset writes them.
	Params map[string]json.RawMessage
	// FrameDt is the simulated time of one display frame, s (1/60): each frame is n steps of FrameDt/n, n the
	// solver's BeginFrame.
	FrameDt float64
	// Steps is how many solver steps the sitting took after the reset; a replay stops there.
	Steps int
	// Actions are the inputs in the order they happened: Step never decreases and never exceeds Steps.
	Actions []Action

	// Path is the file Read read, naming it in messages; mesh paths in the scene that are relative resolve
	// against its folder. Empty for a File that Snapshot or Decode made. Not part of the file.
	Path string

	parsed     *scene.Scene    // the scene Decode validated, for OpenScene; nil for a File made in memory
	parsedFrom json.RawMessage // the Scene it was parsed from
}

// Action is one input of a sitting. Op says which of the fields after Op it uses; the others are left zero.
type Action struct {
	// Step is the number of steps taken since the reset (sim.Stats.Steps) when the action happened: it applies
	// before that step.
	Step int
	Op   Op

	// Params (OpParams) are the parameters that changed, by full name, with their new values as in a
	// param.Preset.
	Params map[string]json.RawMessage
	// Fluid (OpAddFluid) is what was added.
	Fluid *Fluid
	// Drain (OpDrain) is where fluid was removed.
	Drain *Drain
	// Body (OpAddBody) is the body dropped in.
	Body *scene.Body
	// Index (OpRemoveBody, OpRemoveFlatBody) is the body removed.
	Index int
	// Drive (OpDriveBody) is the body driven or let go.
	Drive *Drive
	// Tools (OpSetTools) are the tools set; a Tools with neither is none.
	Tools *sim.Tools

	// Stroke (OpDraw) is the current drawn.
	Stroke *Stroke
	// Key (OpExcite) is the digit key, 1–9, of the drawn current excited again.
	Key int
	// At (OpGrab, OpMoveGrab) is where the body was grabbed, or where the held one was pulled, in the 2D scene's
	// rectangle.
	At *[2]float32
	// FlatBody (OpSpawn) is the body spawned.
	FlatBody *scene.FlatBody
}

// Fluid is an AddFluid call: particle positions and their velocities, as many of each.
type Fluid struct {
	Pos, Vel [][3]float32
	// Material is each particle's material (scene.Particle's numbering) where fluid is put back as it was
	// (sim.Refill: an undone drain of several fluids); nil is the mode's own fluid (sim.Hands.AddFluid).
	Material []uint8
}

// Particles are the fluid as sim.Refill takes it.
func (f *Fluid) Particles() []sim.Particle {
	ps := make([]sim.Particle, len(f.Pos))
	for i := range ps {
		ps[i] = sim.Particle{Pos: f.Pos[i], Vel: f.Vel[i]}
		if f.Material != nil {
			ps[i].Material = f.Material[i]
		}
	}
	return ps
}

// Drain is a Drain call: the fluid within Radius of Center is removed.
type Drain struct {
	Center [3]float32
	Radius float32
}

// Drive is a DriveBody call: body Index moves with Velocity while On; On false lets it go.
type Drive struct {
	Index    int
	Velocity [3]float32
	On       bool
}

// Stroke is a Draw call: the current along Points (in the 2D scene's rectangle) at Speed, m/s, within Width of
// them, m.
type Stroke struct {
	Points       [][2]float32
	Speed, Width float32
}

// String describes an action for messages: "drain at step 40".
func (a *Action) String() string { return fmt.Sprintf("%s at step %d", a.Op, a.Step) }

// name is the file's name for messages.
func (f *File) name() string {
	if f.Path != "" {
		return f.Path
	}
	return "the replay"
}

// sceneSource is the name the scene is parsed under: mesh paths resolve against its folder.
func (f *File) sceneSource() string {
	if f.Path != "" {
		return f.Path + ":scene"
	}
	return "replay:scene"
}

// OpenScene returns the scene the sitting was reset with, ready for sim.Solver.Reset; each call returns a new
// copy.
func (f *File) OpenScene() (*scene.Scene, error) {
	if f.parsed != nil && bytes.Equal(f.parsedFrom, f.Scene) {
		return f.parsed.Clone(), nil
	}
	if len(f.Scene) == 0 {
		return nil, fmt.Errorf("%s: no scene", f.name())
	}
	return scene.Parse(f.Scene, f.sceneSource())
}

// ApplyParams sets every parameter the file holds to its value at the reset, all or nothing. A name the set does
// not have is an error naming it (a file recorded in another mode, or by another version); parameters of the set
// the file does not name keep their values.
func (f *File) ApplyParams(set *param.Set) error {
	if err := applyValues(set, f.Params); err != nil {
		return fmt.Errorf("%s: params: %w", f.name(), err)
	}
	return nil
}

// Reset applies the file's parameters to s and resets it with the file's scene, which it returns: the start of a
// replay. Apply nothing else to s's parameters between this and the first step (a scene's parameter overrides
// are already among the file's values).
func (f *File) Reset(s sim.Solver) (*scene.Scene, error) {
	if err := f.ApplyParams(s.Params()); err != nil {
		return nil, err
	}
	sc, err := f.OpenScene()
	if err != nil {
		return nil, err
	}
	if err := sim.Reset(s, sc); err != nil {
		return nil, fmt.Errorf("%s: reset: %w", f.name(), err)
	}
	return sc, nil
}

// applyValues checks every value against set and then assigns them all, or changes nothing. Float and vector
// values are read as float32 directly, so that a value reads back bit for bit.
func applyValues(set *param.Set, values map[string]json.RawMessage) error {
	names := make([]string, 0, len(values))
	for n := range values {
		names = append(names, n)
	}
	sort.Strings(names)
	snap := param.Snapshot{}
	for _, n := range names {
		p, ok := set.Lookup(n)
		if !ok {
			// Decode's message suggests the names it may be a typo of
			_, err := set.Decode(map[string]json.RawMessage{n: values[n]})
			if err == nil {
				err = fmt.Errorf("unknown parameter %q", n)
			}
			return err
		}
		v, err := decodeValue(p, values[n])
		if err != nil {
			return err
		}
		snap[n] = v
	}
	return set.Restore(snap) // validates all values before assigning any
}

// decodeValue reads a parameter value as param.Param.JSON writes it. Numbers of float parameters are parsed as
// float32 directly, so that they read back exactly by construction rather than because parsing as float64 and
// rounding to float32 happens to agree for float32's shortest digits.
func decodeValue(p *param.Param, raw json.RawMessage) (param.Value, error) {
	switch p.Kind {
	case param.Float:
		var x float32
		if isNumber(raw) && json.Unmarshal(raw, &x) == nil {
			return param.Value{F: float64(x)}, nil
		}
	case param.Vec3:
		var x []float32
		if len(raw) > 0 && raw[0] == '[' && json.Unmarshal(raw, &x) == nil && len(x) == 3 {
			return param.Value{V: [3]float64{float64(x[0]), float64(x[1]), float64(x[2])}}, nil
		}
	}
	return p.DecodeJSON(raw) // its messages for everything else
}

func isNumber(raw json.RawMessage) bool {
	return len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9')
}

// check reports what would make f an invalid replay, naming the field: what Marshal refuses to write and Parse
// refuses to read, short of parsing the scene and the bodies.
func (f *File) check() error {
	switch {
	case f.Mode == "":
		return fmt.Errorf("mode: missing")
	case !(f.FrameDt >= MinFrameDt && f.FrameDt <= MaxFrameDt):
		return fmt.Errorf("frame_dt: %.6g s is outside [%g, %g] s (a display frame: slosh records 1/60)", f.FrameDt, MinFrameDt, MaxFrameDt)
	case f.Steps < 0:
		return fmt.Errorf("steps: %d is negative", f.Steps)
	case f.Steps > MaxSteps:
		return fmt.Errorf("steps: %d is over the %d a replay may hold", f.Steps, int64(MaxSteps))
	case len(f.Scene) == 0 || string(f.Scene) == "null":
		return fmt.Errorf("scene: missing")
	case !json.Valid(f.Scene):
		return fmt.Errorf("scene: not valid JSON")
	}
	if err := checkValues("params", f.Params); err != nil {
		return err
	}
	prev := 0
	for i := range f.Actions {
		a := &f.Actions[i]
		at := fmt.Sprintf("actions[%d] (%s)", i, a)
		switch {
		case a.Step < 0:
			return fmt.Errorf("%s: step %d is negative", at, a.Step)
		case a.Step < prev:
			return fmt.Errorf("%s: step %d is before the previous action's step %d: actions are in the order they happened", at, a.Step, prev)
		case a.Step > f.Steps:
			return fmt.Errorf("%s: step %d is after the end of the replay (steps %d)", at, a.Step, f.Steps)
		}
		prev = a.Step
		if err := a.check(); err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
	}
	return nil
}

// actionFields are an action's argument fields after step and op, by their JSON names, with the ops that use
// them. has reports whether an action holds the field; index and key, whose zero is a value, count as held when
// they are not zero (decodeAction checks their presence in the JSON).
var actionFields = []struct {
	name string
	ops  []Op
	has  func(a *Action) bool
}{
	{"params", []Op{OpParams}, func(a *Action) bool { return a.Params != nil }},
	{"fluid", []Op{OpAddFluid}, func(a *Action) bool { return a.Fluid != nil }},
	{"drain", []Op{OpDrain}, func(a *Action) bool { return a.Drain != nil }},
	{"body", []Op{OpAddBody}, func(a *Action) bool { return a.Body != nil }},
	{"index", []Op{OpRemoveBody, OpRemoveFlatBody}, func(a *Action) bool { return a.Index != 0 }},
	{"drive", []Op{OpDriveBody}, func(a *Action) bool { return a.Drive != nil }},
	{"tools", []Op{OpSetTools}, func(a *Action) bool { return a.Tools != nil }},
	{"points", []Op{OpDraw}, func(a *Action) bool { return a.Stroke != nil }}, // and speed and width
	{"key", []Op{OpExcite}, func(a *Action) bool { return a.Key != 0 }},
	{"at", []Op{OpGrab, OpMoveGrab}, func(a *Action) bool { return a.At != nil }},
	{"flat_body", []Op{OpSpawn}, func(a *Action) bool { return a.FlatBody != nil }},
}

// known reports whether op is one of the ops a replay holds.
func known(op Op) bool { return uses(ops, op) }

// uses reports whether op is one of ops.
func uses(ops []Op, op Op) bool {
	for _, o := range ops {
		if o == op {
			return true
		}
	}
	return false
}

// belongsTo names the ops of a field for messages: "op drain", "ops grab and move_grab".
func belongsTo(ops []Op) string {
	if len(ops) == 1 {
		return "op " + string(ops[0])
	}
	names := make([]string, len(ops))
	for i, op := range ops {
		names[i] = string(op)
	}
	return "ops " + strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// fieldMisused reports a field that op does not use, naming the ops it belongs to.
func fieldMisused(field string, op Op, owners []Op) error {
	return fmt.Errorf("%s: not used by op %s (it belongs to %s)", field, op, belongsTo(owners))
}

// fieldMissing reports a field op needs.
func fieldMissing(field string, op Op) error {
	return fmt.Errorf("%s: missing: op %s needs it", field, op)
}

// check reports what is wrong with an action's fields: a missing group, a group another op uses, a value that
// is not finite or out of its range. What depends on the scene (positions in its domain or rectangle, the bodies
// there are) is checkInScene's.
func (a *Action) check() error {
	if !known(a.Op) {
		return fmt.Errorf("unknown op %q; one of %s", a.Op, opList())
	}
	for _, f := range actionFields {
		// index and key are checked for presence in the JSON, and for their range below
		if f.name != "index" && f.name != "key" && uses(f.ops, a.Op) && !f.has(a) {
			return fieldMissing(f.name, a.Op)
		}
	}
	for _, f := range actionFields {
		if !uses(f.ops, a.Op) && f.has(a) {
			return fieldMisused(f.name, a.Op, f.ops)
		}
	}
	switch a.Op {
	case OpParams:
		if len(a.Params) == 0 {
			return fmt.Errorf("params: empty: a params action changes at least one parameter")
		}
		return checkValues("params", a.Params)
	case OpAddFluid:
		if len(a.Fluid.Pos) != len(a.Fluid.Vel) {
			return fmt.Errorf("fluid: %d positions but %d velocities", len(a.Fluid.Pos), len(a.Fluid.Vel))
		}
		if a.Fluid.Material != nil && len(a.Fluid.Material) != len(a.Fluid.Pos) {
			return fmt.Errorf("fluid: %d positions but %d materials", len(a.Fluid.Pos), len(a.Fluid.Material))
		}
		for i, m := range a.Fluid.Material {
			if int(m) > scene.MaxMaterials {
				return fmt.Errorf("fluid.material[%d]: %d is over the %d materials a scene can name", i, m, scene.MaxMaterials)
			}
		}
		for i := range a.Fluid.Pos {
			if err := finite32(fmt.Sprintf("fluid.pos[%d]", i), a.Fluid.Pos[i][:]...); err != nil {
				return err
			}
			if err := finite32(fmt.Sprintf("fluid.vel[%d]", i), a.Fluid.Vel[i][:]...); err != nil {
				return err
			}
		}
	case OpDrain:
		if err := finite32("drain.center", a.Drain.Center[:]...); err != nil {
			return err
		}
		if err := finite32("drain.radius", a.Drain.Radius); err != nil {
			return err
		}
		if a.Drain.Radius < 0 {
			return fmt.Errorf("drain.radius: %g is negative", a.Drain.Radius)
		}
	case OpAddBody:
		b := a.Body
		if err := finite64("body", b.Center[:]...); err != nil {
			return err
		}
		for _, v := range []scene.Vec3{b.Size, b.A, b.B, b.Rotation, b.Velocity, b.Spin} {
			if err := finite64("body", v[:]...); err != nil {
				return err
			}
		}
		if err := finite64("body", b.Radius, b.Height, b.Extent, b.Density); err != nil {
			return err
		}
	case OpRemoveBody, OpRemoveFlatBody:
		if a.Index < 0 {
			return fmt.Errorf("index: %d is negative", a.Index)
		}
	case OpDriveBody:
		if a.Drive.Index < 0 {
			return fmt.Errorf("drive.index: %d is negative", a.Drive.Index)
		}
		return finite32("drive.velocity", a.Drive.Velocity[:]...)
	case OpSetTools:
		if p := a.Tools.Paddle; p != nil {
			if err := finite32("tools.paddle", p.Center[0], p.Center[1], p.Center[2], p.Radius); err != nil {
				return err
			}
			if p.Radius < 0 {
				return fmt.Errorf("tools.paddle.radius: %g is negative", p.Radius)
			}
		}
		if h := a.Tools.Heat; h != nil {
			if err := checkHeat(h); err != nil {
				return err
			}
		}
		if e := a.Tools.Emitter; e != nil {
			if err := finite64("tools.emitter", e.Center[0], e.Center[1], e.Center[2], e.Direction[0], e.Direction[1],
				e.Direction[2], e.Radius, e.Speed, e.Start, e.Stop); err != nil {
				return err
			}
			if e.Radius < 0 {
				return fmt.Errorf("tools.emitter.radius: %g is negative", e.Radius)
			}
		}
	case OpDraw:
		st := a.Stroke
		if n := len(st.Points); n < 2 || n > scene.MaxCurrentPoints {
			return fmt.Errorf("points: %d points; a drawn current is a stroke of 2 to %d", n, scene.MaxCurrentPoints)
		}
		for i, p := range st.Points {
			if err := finite32(fmt.Sprintf("points[%d]", i), p[:]...); err != nil {
				return err
			}
		}
		if err := finite32("speed", st.Speed); err != nil {
			return err
		}
		if err := finite32("width", st.Width); err != nil {
			return err
		}
		// the bounds of a scene's currents (scene.Current); the width's upper bound, the rectangle's longer side,
		// is checkInScene's
		if !(st.Speed > 0 && st.Speed <= scene.MaxFlatSpeed) {
			return fmt.Errorf("speed: %g m/s is outside (0, %g]", st.Speed, float64(scene.MaxFlatSpeed))
		}
		if !(st.Width > 0) {
			return fmt.Errorf("width: %g m is not positive", st.Width)
		}
	case OpExcite:
		if a.Key < 1 || a.Key > 9 {
			return fmt.Errorf("key: %d is not a digit key 1–9", a.Key)
		}
	case OpGrab, OpMoveGrab:
		return finite32("at", a.At[:]...)
	case OpSpawn:
		b := a.FlatBody
		for _, f := range []struct {
			name string
			xs   []float64
		}{
			{"center", b.Center[:]}, {"size", b.Size[:]}, {"radius", []float64{b.Radius}}, {"angle", []float64{b.Angle}},
			{"density", []float64{b.Density}}, {"friction", []float64{b.Friction}},
			{"restitution", []float64{b.Restitution}}, {"velocity", b.Velocity[:]}, {"spin", []float64{b.Spin}},
		} {
			if err := finite64("flat_body."+f.name, f.xs...); err != nil {
				return err
			}
		}
		for i := range b.Points {
			if err := finite64(fmt.Sprintf("flat_body.points[%d]", i), b.Points[i][:]...); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkHeat checks the heat tool's numbers as a scene's heaters are checked (scene.Heater): finite, a radius
// that is not negative, a temperature within [scene.MinTemperature, scene.MaxTemperature] and a rate within
// (0, scene.MaxHeatRate]. Its reach is checkInScene's.
func checkHeat(h *sim.HeatTool) error {
	for _, f := range []struct {
		name string
		xs   []float32
	}{{"center", h.Center[:]}, {"radius", []float32{h.Radius}}, {"temperature", []float32{h.Temperature}}, {"rate", []float32{h.Rate}}} {
		if err := finite32("tools.heat."+f.name, f.xs...); err != nil {
			return err
		}
	}
	switch t := float64(h.Temperature); {
	case h.Radius < 0:
		return fmt.Errorf("tools.heat.radius: %g is negative", h.Radius)
	case !(t >= scene.MinTemperature && t <= scene.MaxTemperature):
		return fmt.Errorf("tools.heat.temperature: %g °C is outside [%g, %g]", h.Temperature, scene.MinTemperature, float64(scene.MaxTemperature))
	case !(h.Rate > 0) || float64(h.Rate) > scene.MaxHeatRate:
		return fmt.Errorf("tools.heat.rate: %g /s is outside (0, %g]", h.Rate, float64(scene.MaxHeatRate))
	}
	return nil
}

func opList() string {
	names := make([]string, len(ops))
	for i, op := range ops {
		names[i] = string(op)
	}
	return strings.Join(names, ", ")
}

func finite32(field string, xs ...float32) error {
	for _, x := range xs {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("%s: %g is not a finite number: a replay holds finite numbers", field, x)
		}
	}
	return nil
}

func finite64(field string, xs ...float64) error {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%s: %g is not a finite number: a replay holds finite numbers", field, x)
		}
	}
	return nil
}

// checkValues checks that parameter values are what a preset holds: a number, true or false, a name, or an
// array of three numbers.
func checkValues(field string, values map[string]json.RawMessage) error {
	names := make([]string, 0, len(values))
	for n := range values {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		var x any
		raw := values[n]
		if len(raw) == 0 || json.Unmarshal(raw, &x) != nil {
			return fmt.Errorf("%s.%s: no value (a number that is not finite cannot be written)", field, n)
		}
		ok := false
		switch x := x.(type) {
		case float64, bool, string:
			ok = true
		case []any:
			ok = len(x) == 3
			for _, c := range x {
				_, num := c.(float64)
				ok = ok && num
			}
		}
		if !ok {
			return fmt.Errorf("%s.%s: %s is not a parameter value: want a number, true or false, a name or three numbers", field, n, raw)
		}
	}
	return nil
}
