package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/slosh/slosh/internal/jsonmsg"
	"github.com/slosh/slosh/internal/safeio"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

// Read reads and checks a replay file; errors name the file and what is wrong with it (see Decode). Only a
// regular file of at most MaxSize bytes is read (internal/safeio): a folder, a named pipe or a device is refused
// with what it is.
func Read(path string) (*File, error) {
	data, err := safeio.ReadFile(path, MaxSize)
	if err != nil {
		var tooLarge *safeio.TooLargeError
		var notRegular *safeio.NotRegularError
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("replay file %s does not exist", path)
		case errors.As(err, &tooLarge):
			return nil, tooBig(path, tooLarge.Size)
		case errors.As(err, &notRegular):
			return nil, err // names the path and what it is
		}
		return nil, fmt.Errorf("reading replay: %w", err)
	}
	return parse(data, path)
}

// Decode reads and checks a replay from r. It is strict: a file that is not a slosh replay, has a newer or
// unknown version, a key given twice anywhere (jsonmsg.Prepare; a UTF-8 byte-order mark is skipped, as scenes
// skip it), an unknown or missing field, null where a value is required, a value of the wrong type or out of
// range (a number too large for its type: JSON has no NaN or infinity), an unknown op or one without its
// arguments, actions out of order or after the end, a scene, a dropped body or a spawned 2D body that the scene
// package refuses, a 3D tool in a 2D scene's replay or a 2D game's hand in a 3D scene's, or data after the replay
// object is refused with the field's path. Mesh paths relative to the scene resolve against the working folder
// (Read resolves them against the file's).
func Decode(r io.Reader) (*File, error) {
	data, err := readLimited(r)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	return parse(data, "")
}

func tooBig(name string, n int64) error {
	if n < 0 { // it grew while it was read
		return fmt.Errorf("%s: over the %d MiB a replay may hold: refusing it (it is damaged or not a slosh replay)", name, MaxSize>>20)
	}
	return fmt.Errorf("%s: %d bytes is over the %d MiB a replay may hold: refusing it (it is damaged or not a slosh replay)", name, n, MaxSize>>20)
}

// readLimited reads at most MaxSize bytes, and fails beyond.
func readLimited(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxSize {
		return nil, fmt.Errorf("over the %d MiB a replay may hold: refusing it (it is damaged or not a slosh replay)", MaxSize>>20)
	}
	return data, nil
}

// topFields are a file's fields; all but software and software_version are required.
var topFields = []string{"format", "version", "software", "software_version", "mode", "frame_dt", "steps", "scene", "params", "actions"}

// parse decodes and checks a replay file's content; path names it ("" for one that was not read from a file).
func parse(data []byte, path string) (*File, error) {
	f := &File{Path: path}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s", f.name(), fmt.Sprintf(format, args...))
	}
	// a UTF-8 byte-order mark is read as scenes read it; other encodings and a key given twice anywhere (which
	// encoding/json would read as its last value) are refused
	data, err := jsonmsg.Prepare(data)
	if err != nil {
		return nil, bad("%v", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, bad("empty file: a replay is a JSON object {\"format\": %q, ...}", FormatName)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var top map[string]json.RawMessage
	if err := dec.Decode(&top); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, bad("not a slosh replay: a replay is a JSON object, this is a JSON %s", te.Value)
		}
		return nil, bad("%s", jsonmsg.Explain(data, err, "empty: a replay is a JSON object"))
	}
	// the format and version first, so that a newer file says so rather than failing on a field it added
	var format string
	var version int
	if raw, ok := top["format"]; !ok || json.Unmarshal(raw, &format) != nil {
		return nil, bad("not a slosh replay: it has no \"format\": %q", FormatName)
	}
	switch raw, ok := top["version"]; {
	case format != FormatName:
		return nil, bad("not a slosh replay (format %q, not %q)", format, FormatName)
	case !ok:
		return nil, bad("version: missing")
	case string(raw) == "null":
		return nil, bad("version: missing: null where a replay needs a whole number")
	case json.Unmarshal(raw, &version) != nil:
		return nil, bad("version: %s is not a whole number", raw)
	case version > Version:
		return nil, bad("version %d is newer than this slosh reads (%d): update slosh to play it", version, Version)
	case version < 1:
		return nil, bad("version: unknown version %d", version)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, bad("%s: unexpected data after the replay object", jsonmsg.Position(data, dec.InputOffset()))
	}
	keys := make([]string, 0, len(top))
	for k := range top {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		known := false
		for _, n := range topFields {
			known = known || k == n
		}
		if !known {
			return nil, bad("%s: unknown field; the fields of a replay are %s", k, strings.Join(topFields, ", "))
		}
	}
	var actions []json.RawMessage
	for _, d := range []struct {
		name     string
		dst      any
		optional bool
	}{
		{"software", &f.Software, true},
		{"software_version", &f.SoftwareVersion, true},
		{"mode", &f.Mode, false},
		{"frame_dt", &f.FrameDt, false},
		{"steps", &f.Steps, false},
		{"scene", &f.Scene, false},
		{"params", &f.Params, false},
		{"actions", &actions, false},
	} {
		raw, ok := top[d.name]
		switch {
		case (!ok || string(raw) == "null") && d.optional:
			continue // absent
		case !ok:
			return nil, bad("%s: missing", d.name)
		case string(raw) == "null" && d.name == "scene":
			return nil, bad("scene: missing: null where a replay needs an object")
		case string(raw) == "null": // encoding/json would leave the field as it is: a zero
			return nil, bad("%s: missing: null where a replay needs %s", d.name, jsonmsg.Type(reflect.TypeOf(d.dst).Elem()))
		}
		if d.name == "scene" {
			f.Scene = raw
			continue
		}
		if err := json.Unmarshal(raw, d.dst); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) && te.Field == "" {
				return nil, bad("%s: want %s, got %s", d.name, jsonmsg.Type(te.Type), short(raw))
			}
			return nil, bad("%s: %s", d.name, jsonmsg.Explain(raw, err, "empty: a replay is a JSON object"))
		}
	}
	compactValues(f.Params)
	f.Actions = make([]Action, len(actions))
	for i, raw := range actions {
		if err := decodeAction(raw, fmt.Sprintf("actions[%d]", i), &f.Actions[i]); err != nil {
			return nil, bad("%v", err)
		}
	}
	if err := f.check(); err != nil {
		return nil, bad("%v", err)
	}

	sc, err := scene.Parse(f.Scene, f.sceneSource())
	if err != nil {
		return nil, err // scene.Parse names the source and the field
	}
	f.parsed = sc
	if f.Scene, err = sc.Marshal(); err != nil { // as Log.Start holds it, whatever the file's layout
		return nil, bad("scene: %v", err)
	}
	f.parsedFrom = f.Scene
	if err := checkKinds(sc, f.Actions); err != nil {
		return nil, bad("%v", err)
	}
	meshes := map[string]*scene.MeshData{}
	for i := range f.Actions {
		if a := &f.Actions[i]; a.Op == OpAddBody {
			if err := checkBody(sc, a.Body, meshes); err != nil {
				return nil, bad("actions[%d] (%s): %v", i, a, err)
			}
		}
	}
	if err := checkInScene(sc, f.Actions); err != nil {
		return nil, bad("%v", err)
	}
	return f, nil
}

// checkInScene checks the actions against the scene the sitting started from, naming the field: the bodies they
// drive and remove exist when they do (the scene's, and those dropped since, less those removed); fluid is added
// inside the domain at speeds a solver can follow and not piled on itself; the paddle, the drain and the heat tool
// stay within toolReach domain sizes of it (the window moves them with the cursor, which may leave the domain) and
// no larger than the window's tools make them; a tool emitter passes the scene's own
// checks for emitters (inside the domain, speed and radius within scene.MaxSpeed and the domain's size).
//
// A 2D scene's actions are checked by flatScene.check.
func checkInScene(sc *scene.Scene, actions []Action) error {
	if sc.IsFlat() {
		fs := newFlatScene(sc)
		for i := range actions {
			if err := fs.check(&actions[i]); err != nil {
				return fmt.Errorf("actions[%d] (%s): %w", i, &actions[i], err)
			}
		}
		return nil
	}
	dom := sc.Domain
	size := dom.Size().MaxComp()
	near := func(field string, p [3]float32, margin float64) error {
		for k := 0; k < 3; k++ {
			if x := float64(p[k]); !(x >= dom.Min[k]-margin && x <= dom.Max[k]+margin) {
				return fmt.Errorf("%s: (%g, %g, %g) lies more than %.3g m outside the scene's domain %v–%v", field, p[0], p[1], p[2], margin, dom.Min, dom.Max)
			}
		}
		return nil
	}
	radius := func(field string, r float32) error {
		if lim := max(size, MaxToolRadius); float64(r) > lim {
			return fmt.Errorf("%s: %g m is over %g m (the tools' largest radius, or the domain's size)", field, r, lim)
		}
		return nil
	}
	bodies := len(sc.Bodies)
	for i := range actions {
		a := &actions[i]
		var err error
		switch a.Op {
		case OpAddFluid:
			err = checkFluid(sc, a.Fluid, near)
		case OpDrain:
			if err = near("drain.center", a.Drain.Center, toolReach*size); err == nil {
				err = radius("drain.radius", a.Drain.Radius)
			}
		case OpAddBody:
			bodies++
		case OpRemoveBody:
			if a.Index >= bodies {
				err = fmt.Errorf("index: there is no body %d: %s", a.Index, bodyCount(bodies, len(sc.Bodies)))
			}
			bodies--
		case OpDriveBody:
			if d := a.Drive; d.Index >= bodies {
				err = fmt.Errorf("drive.index: there is no body %d: %s", d.Index, bodyCount(bodies, len(sc.Bodies)))
			} else if v := speed(d.Velocity); v > scene.MaxSpeed {
				err = fmt.Errorf("drive.velocity: %.3g m/s is over %d m/s", v, scene.MaxSpeed)
			}
		case OpSetTools:
			if p := a.Tools.Paddle; p != nil {
				if err = near("tools.paddle.center", p.Center, toolReach*size); err == nil {
					err = radius("tools.paddle.radius", p.Radius)
				}
				if lim := sim.PaddleLimit(dom); err == nil && p.Radius > lim {
					err = fmt.Errorf("tools.paddle.radius: %g m is over the %.3g m a paddle may have in this scene (a sphere of an eighth of its domain: a larger one leaves the water no room)", p.Radius, lim)
				}
			}
			// the heat tool takes no room from the fluid, as the paddle does: a sphere over the whole tank only
			// heats all of it, as a scene's heater may; it is held to the drain's bound
			if h := a.Tools.Heat; h != nil && err == nil {
				if err = near("tools.heat.center", h.Center, toolReach*size); err == nil {
					err = radius("tools.heat.radius", h.Radius)
				}
			}
			if e := a.Tools.Emitter; e != nil && err == nil {
				err = checkEmitter(sc, *e)
			}
		}
		if err != nil {
			return fmt.Errorf("actions[%d] (%s): %w", i, a, err)
		}
	}
	return nil
}

// toolReach is how many domain (or rectangle) sizes beyond it a tool that follows the cursor may go: the cursor
// leaves the view while it drags.
const toolReach = 10

// flatMargin is how far outside a 2D scene's rectangle, in its longer side, a stroke's points and a grab may lie:
// the game takes them inside it.
const flatMargin = 0.1

// checkKinds refuses a 3D tool in a 2D scene's replay and a 2D game's hand in a 3D scene's: no solver that opens
// the scene has them.
func checkKinds(sc *scene.Scene, actions []Action) error {
	for i := range actions {
		a := &actions[i]
		switch {
		case a.Op == OpParams:
		case sc.IsFlat() && !a.Op.IsFlat():
			return fmt.Errorf("actions[%d] (%s): op %s is a 3D tool, and this replay's scene is a 2D one (it has \"flat\"): "+
				"a 2D sitting holds params and the game's hands, %s", i, a, a.Op, flatOpList())
		case !sc.IsFlat() && a.Op.IsFlat():
			return fmt.Errorf("actions[%d] (%s): op %s is one of the 2D game's hands, and this replay's scene is a 3D one (it has no \"flat\"): "+
				"a 3D sitting holds params and the tools, %s", i, a, a.Op, tools3DList())
		}
	}
	return nil
}

// flatOpList and tools3DList name the ops of a 2D and of a 3D scene's sitting, params aside.
func flatOpList() string  { return opNames(func(op Op) bool { return op.IsFlat() }) }
func tools3DList() string { return opNames(func(op Op) bool { return op != OpParams && !op.IsFlat() }) }

func opNames(keep func(Op) bool) string {
	var names []string
	for _, op := range ops {
		if keep(op) {
			names = append(names, string(op))
		}
	}
	return strings.Join(names, ", ")
}

// flatScene follows a 2D scene's sitting through its actions, checking each against the scene, naming the field:
// a stroke's points lie in the rectangle (to flatMargin of its longer side) and it is no wider than that side (a
// scene's currents' bound); a grab is in the rectangle to that margin, and the held body is pulled to within
// toolReach rectangle sizes of it; a spawned body passes the scene's own checks for its bodies (scene.Validate)
// and there are at most scene.MaxBodies; the body removed exists then.
type flatScene struct {
	size      scene.Vec2
	fromScene int
	bodies    int // the bodies there are: the scene's, and those spawned since, less those removed
}

func newFlatScene(sc *scene.Scene) *flatScene {
	return &flatScene{size: sc.Flat.Size, fromScene: len(sc.Flat.Bodies), bodies: len(sc.Flat.Bodies)}
}

// check checks action a, which Action.check passed, and follows it: a spawn adds a body, a removal takes one.
func (fs *flatScene) check(a *Action) error {
	longer := max(fs.size[0], fs.size[1])
	near := func(field string, p [2]float32, margin float64) error {
		for k := 0; k < 2; k++ {
			if x := float64(p[k]); !(x >= -margin && x <= fs.size[k]+margin) {
				return fmt.Errorf("%s: (%g, %g) lies more than %.3g m outside the scene's rectangle [0, %g]×[0, %g]", field, p[0], p[1], margin, fs.size[0], fs.size[1])
			}
		}
		return nil
	}
	switch a.Op {
	case OpDraw:
		for i, p := range a.Stroke.Points {
			if err := near(fmt.Sprintf("points[%d]", i), p, flatMargin*longer); err != nil {
				return err
			}
		}
		if w := float64(a.Stroke.Width); w > longer {
			return fmt.Errorf("width: %g m is over %g m, the rectangle's longer side", w, longer)
		}
	case OpGrab:
		return near("at", *a.At, flatMargin*longer)
	case OpMoveGrab:
		return near("at", *a.At, toolReach*longer)
	case OpSpawn:
		if fs.bodies >= scene.MaxBodies {
			return fmt.Errorf("flat_body: there are %d bodies then, the most a scene may have", fs.bodies)
		}
		if err := (&scene.Flat{Size: fs.size}).CheckBody("flat_body", a.FlatBody); err != nil {
			return err
		}
		fs.bodies++
	case OpRemoveFlatBody:
		if a.Index >= fs.bodies {
			return fmt.Errorf("index: there is no body %d: %s", a.Index, bodyCount(fs.bodies, fs.fromScene))
		}
		fs.bodies--
	}
	return nil
}

// bodyCount says how many bodies there are at an action.
func bodyCount(n, fromScene int) string {
	switch {
	case n <= 0:
		return "there are none then"
	case n == 1:
		return fmt.Sprintf("there is one then, body 0 (the scene has %d)", fromScene)
	}
	return fmt.Sprintf("there are %d then, 0..%d (the scene has %d)", n, n-1, fromScene)
}

// alone is a scene to validate one dropped body or tool emitter in: sc's domain, resolution and first fluid
// block (a scene needs one), without its obstacles, bodies, emitters, camera and parameters. Cloning the whole
// scene for every action made reading a long replay of a large scene quadratic.
func alone(sc *scene.Scene) *scene.Scene {
	c := *sc
	c.Fluid = append([]scene.Fluid(nil), sc.Fluid[:min(len(sc.Fluid), 1)]...)
	c.Obstacles, c.Bodies, c.Emitters, c.Camera, c.Params = nil, nil, nil, nil, nil
	return &c
}

// checkEmitter checks a tool's emitter as a scene's emitters are checked, on a copy of it (the action keeps its
// values bit for bit).
func checkEmitter(sc *scene.Scene, e scene.Emitter) error {
	c := alone(sc)
	c.Emitters = []scene.Emitter{e}
	if err := c.Validate(); err != nil {
		return fmt.Errorf("%s", strings.Replace(err.Error(), "emitters[0]", "tools.emitter", 1))
	}
	return nil
}

// checkFluid checks added fluid: inside the domain (to a tenth of its size), at speeds below MaxFluidSpeed, and
// no more than maxPacked particles in any cell of the finest lattice that twice scene.MaxParticles particles
// (the largest budget) would fill the domain with. Fluid a sitting gives back (an undo) was in the solver at the
// solver's spacing, far coarser than that; particles piled on one point would make a solver's neighbour search
// quadratic in their number.
func checkFluid(sc *scene.Scene, fl *Fluid, near func(string, [3]float32, float64) error) error {
	if n := len(fl.Pos); n > 2*scene.MaxParticles {
		return fmt.Errorf("fluid.pos: %d particles is over the %d a solver can hold", n, 2*scene.MaxParticles)
	}
	dom := sc.Domain
	margin := 0.1 * dom.Size().MaxComp()
	for i := range fl.Pos {
		if err := near(fmt.Sprintf("fluid.pos[%d]", i), fl.Pos[i], margin); err != nil {
			return err
		}
		if v := speed(fl.Vel[i]); v > MaxFluidSpeed {
			return fmt.Errorf("fluid.vel[%d]: %.3g m/s is over %g m/s", i, v, float64(MaxFluidSpeed))
		}
	}
	if len(fl.Pos) <= maxPacked {
		return nil
	}
	sz := dom.Size()
	cell := math.Cbrt(sz[0] * sz[1] * sz[2] / (2 * scene.MaxParticles))
	count := map[[3]int64]int{}
	for i, p := range fl.Pos {
		var key [3]int64
		for k := 0; k < 3; k++ {
			key[k] = int64(math.Floor((float64(p[k]) - dom.Min[k]) / cell))
		}
		if count[key]++; count[key] > maxPacked {
			return fmt.Errorf("fluid.pos[%d]: more than %d of the added particles lie within %.3g m of (%g, %g, %g): fluid piled on one point", i, maxPacked, cell, p[0], p[1], p[2])
		}
	}
	return nil
}

func speed(v [3]float32) float64 {
	return math.Sqrt(float64(v[0])*float64(v[0]) + float64(v[1])*float64(v[1]) + float64(v[2])*float64(v[2]))
}

// decodeAction decodes one action strictly: checkJSON first (unknown and missing fields, types, array lengths),
// then encoding/json into the typed form.
func decodeAction(raw json.RawMessage, path string, a *Action) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var tree any
	if err := d.Decode(&tree); err != nil {
		return fmt.Errorf("%s: %s", path, jsonmsg.Explain(raw, err, "empty: a replay is a JSON object"))
	}
	if err := checkJSON(tree, reflect.TypeOf(actionJSON{}), path); err != nil {
		return err
	}
	if body, ok := tree.(map[string]any)["body"]; ok {
		if err := checkJSON(body, reflect.TypeOf(scene.Body{}), path+".body"); err != nil {
			return err
		}
	}
	if body, ok := tree.(map[string]any)["flat_body"]; ok {
		if err := checkJSON(body, reflect.TypeOf(scene.FlatBody{}), path+".flat_body"); err != nil {
			return err
		}
	}
	var j actionJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		return fmt.Errorf("%s: %s", path, jsonmsg.Explain(raw, err, "empty: a replay is a JSON object")) // checkJSON lets nothing through that fails here
	}
	compactValues(j.Params)
	*a = Action{Step: j.Step, Op: Op(j.Op), Params: j.Params}
	if j.Fluid != nil {
		a.Fluid = &Fluid{Pos: j.Fluid.Pos, Vel: j.Fluid.Vel}
		if j.Fluid.Material != nil {
			a.Fluid.Material = make([]uint8, len(j.Fluid.Material))
			for i, m := range j.Fluid.Material {
				if m < 0 || m > scene.MaxMaterials {
					return fmt.Errorf("%s: fluid.material[%d]: %d is outside [0, %d]", path, i, m, scene.MaxMaterials)
				}
				a.Fluid.Material[i] = uint8(m)
			}
		}
	}
	if j.Drain != nil {
		a.Drain = &Drain{Center: j.Drain.Center, Radius: j.Drain.Radius}
	}
	if j.Body != nil {
		a.Body = &scene.Body{}
		if err := json.Unmarshal(j.Body, a.Body); err != nil {
			return fmt.Errorf("%s.body: %s", path, jsonmsg.Explain(j.Body, err, "empty: a replay is a JSON object"))
		}
	}
	if j.FlatBody != nil {
		a.FlatBody = &scene.FlatBody{}
		if err := json.Unmarshal(j.FlatBody, a.FlatBody); err != nil {
			return fmt.Errorf("%s.flat_body: %s", path, jsonmsg.Explain(j.FlatBody, err, "empty: a replay is a JSON object"))
		}
	}
	// the fields whose zero is a value, and a draw's, which lie in the action itself: present or missing here
	// (Action.check cannot tell an index 0 from none)
	if known(a.Op) {
		for _, f := range []struct {
			name    string
			present bool
			ops     []Op
		}{
			{"index", j.Index != nil, []Op{OpRemoveBody, OpRemoveFlatBody}},
			{"points", j.Points != nil, []Op{OpDraw}},
			{"speed", j.Speed != nil, []Op{OpDraw}},
			{"width", j.Width != nil, []Op{OpDraw}},
			{"key", j.Key != nil, []Op{OpExcite}},
			{"at", j.At != nil, []Op{OpGrab, OpMoveGrab}},
		} {
			switch {
			case f.present && !uses(f.ops, a.Op):
				return fmt.Errorf("%s: %w", path, fieldMisused(f.name, a.Op, f.ops))
			case !f.present && uses(f.ops, a.Op):
				return fmt.Errorf("%s: %w", path, fieldMissing(f.name, a.Op))
			}
		}
	}
	if j.Index != nil {
		a.Index = *j.Index
	}
	if j.Points != nil && j.Speed != nil && j.Width != nil {
		a.Stroke = &Stroke{Points: *j.Points, Speed: *j.Speed, Width: *j.Width}
	}
	if j.Key != nil {
		a.Key = *j.Key
	}
	a.At = j.At
	if j.Drive != nil {
		a.Drive = &Drive{Index: j.Drive.Index, Velocity: j.Drive.Velocity, On: j.Drive.On}
	}
	if j.Tools != nil {
		a.Tools = &sim.Tools{Emitter: j.Tools.Emitter}
		if p := j.Tools.Paddle; p != nil {
			a.Tools.Paddle = &sim.Paddle{Center: p.Center, Radius: p.Radius}
		}
		if h := j.Tools.Heat; h != nil {
			a.Tools.Heat = &sim.HeatTool{Center: h.Center, Radius: h.Radius, Temperature: h.Temperature, Rate: h.Rate}
		}
	}
	return nil
}

// compactValues removes the spaces from parameter values, as param.Param.JSON writes them.
func compactValues(values map[string]json.RawMessage) {
	for n, raw := range values {
		var c bytes.Buffer
		if json.Compact(&c, raw) == nil {
			values[n] = c.Bytes()
		}
	}
}

// checkBody checks a dropped body as the scene package checks a scene's bodies (its shape's fields, its density;
// a mesh is loaded relative to the scene, each file once through meshes) and attaches its mesh. The body may lie
// outside the scene's domain: a solver takes what is inside.
func checkBody(sc *scene.Scene, b *scene.Body, meshes map[string]*scene.MeshData) error {
	// a box around the body before its mesh is loaded: a mesh's vertices lie within √3/2·extent of its centre
	bb := b.Bounds()
	if b.Kind == scene.ShapeMesh {
		e := scene.Vec3{b.Extent, b.Extent, b.Extent}
		bb = scene.Box{Min: b.Center.Sub(e), Max: b.Center.Add(e)}
	}
	dom := sc.Domain
	for c := 0; c < 3; c++ {
		dom.Min[c] = math.Min(dom.Min[c], math.Min(bb.Min[c], bb.Max[c]))
		dom.Max[c] = math.Max(dom.Max[c], math.Max(bb.Min[c], bb.Max[c]))
	}
	margin := 0.01 * dom.Size().MaxComp()
	dom.Min = dom.Min.Sub(scene.Vec3{margin, margin, margin})
	dom.Max = dom.Max.Add(scene.Vec3{margin, margin, margin})
	if dom.Size().MaxComp() > 1000 {
		return fmt.Errorf("body: %s lies far outside the scene's domain %v–%v", b.String(), sc.Domain.Min, sc.Domain.Max)
	}
	c := alone(sc)
	c.Domain, c.Bodies = dom, []scene.Body{*b}
	if md := meshes[b.Mesh]; b.Kind == scene.ShapeMesh && md != nil {
		c.Bodies[0].SetMesh(md)
	}
	if err := c.Validate(); err != nil {
		return fmt.Errorf("%s", strings.Replace(err.Error(), "bodies[0]", "body", 1))
	}
	*b = c.Bodies[0]
	if md := b.MeshData(); md != nil {
		meshes[b.Mesh] = md
	}
	return nil
}

// checkJSON reports the first place where tree (decoded with UseNumber) does not fit type t exactly: an unknown
// field, a missing one (a struct field without omitempty), an array of the wrong length, a value of the wrong kind
// or a number out of its type's range. encoding/json zero-fills short arrays and drops extra elements, which a
// strict format must refuse.
func checkJSON(tree any, t reflect.Type, path string) error {
	if t == rawType {
		return nil
	}
	switch t.Kind() {
	case reflect.Pointer:
		if tree == nil {
			return nil
		}
		return checkJSON(tree, t.Elem(), path)
	case reflect.Struct:
		obj, ok := tree.(map[string]any)
		if !ok {
			return errAt(path, "want an object, got %s", jsonmsg.Describe(tree))
		}
		fields := typeFields(t)
		byName := map[string]typeField{}
		names := make([]string, len(fields))
		for i, f := range fields {
			byName[f.name] = f
			names[i] = f.name
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			f, ok := byName[k]
			if !ok {
				return errAt(jsonmsg.Join(path, k), "unknown field; known fields here are %s", strings.Join(names, ", "))
			}
			if err := checkJSON(obj[k], f.typ, jsonmsg.Join(path, k)); err != nil {
				return err
			}
		}
		for _, f := range fields {
			if _, ok := obj[f.name]; !ok && !f.optional {
				return errAt(jsonmsg.Join(path, f.name), "missing")
			}
		}
	case reflect.Slice:
		arr, ok := tree.([]any)
		if !ok {
			return errAt(path, "want an array, got %s", jsonmsg.Describe(tree))
		}
		for i, e := range arr {
			if err := checkJSON(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Array:
		arr, ok := tree.([]any)
		if !ok || len(arr) != t.Len() {
			return errAt(path, "want an array of %d numbers, got %s", t.Len(), jsonmsg.Describe(tree))
		}
		for i, e := range arr {
			if err := checkJSON(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		obj, ok := tree.(map[string]any)
		if !ok {
			return errAt(path, "want an object, got %s", jsonmsg.Describe(tree))
		}
		for k, e := range obj {
			if err := checkJSON(e, t.Elem(), jsonmsg.Join(path, k)); err != nil {
				return err
			}
		}
	case reflect.Float32, reflect.Float64:
		n, ok := tree.(json.Number)
		if !ok {
			return errAt(path, "want a number, got %s", jsonmsg.Describe(tree))
		}
		if _, err := strconv.ParseFloat(n.String(), t.Bits()); err != nil {
			return errAt(path, "%s is out of range for a float%d (a replay holds finite numbers)", n, t.Bits())
		}
	case reflect.Int:
		n, ok := tree.(json.Number)
		if !ok {
			return errAt(path, "want a whole number, got %s", jsonmsg.Describe(tree))
		}
		if _, err := strconv.ParseInt(n.String(), 10, 0); err != nil {
			return errAt(path, "want a whole number, got %s", n)
		}
	case reflect.String:
		if _, ok := tree.(string); !ok {
			return errAt(path, "want a string, got %s", jsonmsg.Describe(tree))
		}
	case reflect.Bool:
		if _, ok := tree.(bool); !ok {
			return errAt(path, "want true or false, got %s", jsonmsg.Describe(tree))
		}
	default:
		return errAt(path, "cannot read a %s", t)
	}
	return nil
}

var rawType = reflect.TypeOf(json.RawMessage(nil))

// typeField is a struct field as JSON names it.
type typeField struct {
	name     string
	typ      reflect.Type
	optional bool // omitempty
}

// typeFields lists the JSON fields of struct type t in declaration order, embedded structs flattened.
func typeFields(t reflect.Type) []typeField {
	var out []typeField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			out = append(out, typeFields(f.Type)...)
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		out = append(out, typeField{name: name, typ: f.Type, optional: strings.Contains(","+opts+",", ",omitempty,")})
	}
	return out
}

func errAt(path, format string, args ...any) error {
	return fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...))
}

// short is a JSON value for messages, cut after 40 bytes.
func short(raw json.RawMessage) string {
	if len(raw) > 40 {
		return string(raw[:37]) + "..."
	}
	return string(raw)
}
