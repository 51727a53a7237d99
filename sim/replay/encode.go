package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/slosh/slosh/internal/atomicfile"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

// The JSON forms of an action and its argument groups. A field without omitempty is required when reading.
type (
	actionJSON struct {
		Step   int                        `json:"step"`
		Op     string                     `json:"op"`
		Params map[string]json.RawMessage `json:"params,omitempty"`
		Fluid  *fluidJSON                 `json:"fluid,omitempty"`
		Drain  *drainJSON                 `json:"drain,omitempty"`
		Body   json.RawMessage            `json:"body,omitempty"` // a scene.Body, as a scene file writes it
		Index  *int                       `json:"index,omitempty"`
		Drive  *driveJSON                 `json:"drive,omitempty"`
		Tools  *toolsJSON                 `json:"tools,omitempty"`
		// a draw's stroke, flat in the action: {"op": "draw", "points": [...], "speed": 0.4, "width": 0.15}
		Points   *[][2]float32   `json:"points,omitempty"`
		Speed    *float32        `json:"speed,omitempty"`
		Width    *float32        `json:"width,omitempty"`
		Key      *int            `json:"key,omitempty"`
		At       *[2]float32     `json:"at,omitempty"`
		FlatBody json.RawMessage `json:"flat_body,omitempty"` // a scene.FlatBody, as a 2D scene file writes it
	}
	fluidJSON struct {
		Pos      [][3]float32 `json:"pos"`
		Vel      [][3]float32 `json:"vel"`
		Material []int        `json:"material,omitempty"` // numbers, not the base64 string JSON gives a []uint8
	}
	drainJSON struct {
		Center [3]float32 `json:"center"`
		Radius float32    `json:"radius"`
	}
	driveJSON struct {
		Index    int        `json:"index"`
		Velocity [3]float32 `json:"velocity"`
		On       bool       `json:"on"`
	}
	toolsJSON struct {
		Paddle  *paddleJSON    `json:"paddle,omitempty"`
		Emitter *scene.Emitter `json:"emitter,omitempty"`
		Heat    *heatJSON      `json:"heat,omitempty"`
	}
	paddleJSON struct {
		Center [3]float32 `json:"center"`
		Radius float32    `json:"radius"`
	}
	heatJSON struct {
		Center      [3]float32 `json:"center"`
		Radius      float32    `json:"radius"`
		Temperature float32    `json:"temperature"`
		Rate        float32    `json:"rate"`
	}
)

// Write writes f to path atomically (internal/atomicfile): a failed write leaves no partial file and an existing
// file at path unchanged. An invalid File is refused with what is wrong with it.
func Write(path string, f *File) error {
	if f == nil {
		return fmt.Errorf("saving %s: no replay to save", path)
	}
	data, err := f.Marshal()
	if err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	return atomicfile.WriteBytes(path, data)
}

// Marshal writes f as a replay file (see the package documentation): one top-level field a line, the parameters
// one a line, the actions one a line. A File that Decode would refuse (a missing field, actions out of order, a
// number that is not finite) is an error that names the field.
func (f *File) Marshal() ([]byte, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("{\n")
	field := func(name string, value []byte, last bool) {
		b.WriteString("  ")
		writeString(&b, name)
		b.WriteString(": ")
		b.Write(value)
		if !last {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	str := func(s string) []byte {
		var q bytes.Buffer
		writeString(&q, s)
		return q.Bytes()
	}
	num := func(x any) []byte {
		out, _ := json.Marshal(x) // a finite number (check) or an int always marshals
		return out
	}
	sw := f.Software
	if sw == "" {
		sw = Software
	}
	field("format", str(FormatName), false)
	field("version", num(Version), false)
	field("software", str(sw), false)
	if f.SoftwareVersion != "" {
		field("software_version", str(f.SoftwareVersion), false)
	}
	field("mode", str(f.Mode), false)
	field("frame_dt", num(f.FrameDt), false)
	field("steps", num(f.Steps), false)
	// the scene as it was written, indented one level more
	field("scene", bytes.ReplaceAll(bytes.TrimSpace(f.Scene), []byte("\n"), []byte("\n  ")), false)

	var params bytes.Buffer
	writeValues(&params, f.Params, "    ")
	field("params", params.Bytes(), false)

	var actions bytes.Buffer
	if len(f.Actions) == 0 {
		actions.WriteString("[]")
	} else {
		actions.WriteString("[\n")
		for i := range f.Actions {
			line, err := f.Actions[i].marshal()
			if err != nil {
				return nil, fmt.Errorf("actions[%d] (%s): %w", i, &f.Actions[i], err)
			}
			actions.WriteString("    ")
			actions.Write(line)
			if i < len(f.Actions)-1 {
				actions.WriteByte(',')
			}
			actions.WriteByte('\n')
		}
		actions.WriteString("  ]")
	}
	field("actions", actions.Bytes(), true)
	b.WriteString("}\n")
	return b.Bytes(), nil
}

// writeValues writes parameter values as an object with one name a line, sorted; {} when there are none.
func writeValues(b *bytes.Buffer, values map[string]json.RawMessage, indent string) {
	if len(values) == 0 {
		b.WriteString("{}")
		return
	}
	names := make([]string, 0, len(values))
	for n := range values {
		names = append(names, n)
	}
	sort.Strings(names)
	b.WriteString("{\n")
	for i, n := range names {
		b.WriteString(indent)
		writeString(b, n)
		b.WriteString(": ")
		var c bytes.Buffer
		_ = json.Compact(&c, values[n]) // checked valid
		b.Write(spaced(c.Bytes()))
		if i < len(names)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString(indent[:len(indent)-2] + "}")
}

// marshal writes the action as one line of JSON with a space after each colon and comma.
func (a *Action) marshal() ([]byte, error) {
	j := actionJSON{Step: a.Step, Op: string(a.Op), Params: a.Params}
	switch a.Op {
	case OpAddFluid:
		j.Fluid = &fluidJSON{Pos: a.Fluid.Pos, Vel: a.Fluid.Vel}
		for _, m := range a.Fluid.Material {
			j.Fluid.Material = append(j.Fluid.Material, int(m))
		}
		if j.Fluid.Pos == nil {
			j.Fluid.Pos, j.Fluid.Vel = [][3]float32{}, [][3]float32{} // [], not null
		}
	case OpDrain:
		j.Drain = &drainJSON{Center: a.Drain.Center, Radius: a.Drain.Radius}
	case OpAddBody:
		body, err := marshalBody(a.Body)
		if err != nil {
			return nil, err
		}
		j.Body = body
	case OpRemoveBody, OpRemoveFlatBody:
		j.Index = &a.Index
	case OpDriveBody:
		j.Drive = &driveJSON{Index: a.Drive.Index, Velocity: a.Drive.Velocity, On: a.Drive.On}
	case OpSetTools:
		j.Tools = toolsToJSON(*a.Tools)
	case OpDraw:
		j.Points, j.Speed, j.Width = &a.Stroke.Points, &a.Stroke.Speed, &a.Stroke.Width
	case OpExcite:
		j.Key = &a.Key
	case OpGrab, OpMoveGrab:
		j.At = a.At
	case OpSpawn:
		body, err := marshalFlatBody(a.FlatBody)
		if err != nil {
			return nil, err
		}
		j.FlatBody = body
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&j); err != nil {
		return nil, err
	}
	return spaced(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), nil
}

func toolsToJSON(t sim.Tools) *toolsJSON {
	j := &toolsJSON{Emitter: t.Emitter}
	if p := t.Paddle; p != nil {
		j.Paddle = &paddleJSON{Center: p.Center, Radius: p.Radius}
	}
	if h := t.Heat; h != nil {
		j.Heat = &heatJSON{Center: h.Center, Radius: h.Radius, Temperature: h.Temperature, Rate: h.Rate}
	}
	return j
}

// marshalBody writes a body as a scene file does (scene.Scene.Marshal): its shape's empty fields left out, numbers
// in the fewest digits that read back exactly.
func marshalBody(b *scene.Body) (json.RawMessage, error) {
	sc := scene.Scene{Bodies: []scene.Body{*b}}
	data, err := sc.Marshal()
	if err != nil {
		return nil, fmt.Errorf("%s", strings.Replace(err.Error(), "bodies[0]", "body", 1))
	}
	var out struct {
		Bodies []json.RawMessage `json:"bodies"`
	}
	if err := json.Unmarshal(data, &out); err != nil || len(out.Bodies) != 1 {
		return nil, fmt.Errorf("body: cannot be written (%v)", err)
	}
	return out.Bodies[0], nil
}

// marshalFlatBody writes a 2D body as a 2D scene file does (scene.Scene.Marshal): its shape's empty fields left
// out, numbers in the fewest digits that read back exactly.
func marshalFlatBody(b *scene.FlatBody) (json.RawMessage, error) {
	sc := scene.Scene{Flat: &scene.Flat{Bodies: []scene.FlatBody{*b}}}
	data, err := sc.Marshal()
	if err != nil {
		return nil, fmt.Errorf("%s", strings.Replace(err.Error(), "flat.bodies[0]", "flat_body", 1))
	}
	var out struct {
		Flat struct {
			Bodies []json.RawMessage `json:"bodies"`
		} `json:"flat"`
	}
	if err := json.Unmarshal(data, &out); err != nil || len(out.Flat.Bodies) != 1 {
		return nil, fmt.Errorf("flat_body: cannot be written (%v)", err)
	}
	return out.Flat.Bodies[0], nil
}

// spaced puts a space after each colon and comma of compact JSON outside strings.
func spaced(compact []byte) []byte {
	out := make([]byte, 0, len(compact)+len(compact)/4)
	inString, escaped := false, false
	for _, c := range compact {
		out = append(out, c)
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ':' || c == ','):
			out = append(out, ' ')
		}
	}
	return out
}

// writeString writes s as a JSON string, leaving <, > and & as they are.
func writeString(b *bytes.Buffer, s string) {
	var q bytes.Buffer
	enc := json.NewEncoder(&q)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	b.Write(bytes.TrimSuffix(q.Bytes(), []byte("\n")))
}
