package param

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"

	"github.com/slosh/slosh/internal/jsonmsg"
	"github.com/slosh/slosh/internal/safeio"
)

// Preset is the file form of a set of parameter values: small, readable and editable by hand.
//
//	{"mode": "pbf", "params": {"pbf.iterations": 4, "pbf.gravity": [0, -9.81, 0], "pbf.color": "speed"}}
type Preset struct {
	Mode   string                     `json:"mode,omitempty"`
	Params map[string]json.RawMessage `json:"params"`

	// Source says where the values came from for messages ("run.slosh: slosh.json: params"); "" is "preset".
	// Not part of the file.
	Source string `json:"-"`
}

// JSON returns the value as a JSON literal: a number, a boolean, a choice name or a three-number array.
func (p *Param) JSON(v Value) json.RawMessage {
	var x any
	switch p.Kind {
	case Float:
		x = float32(v.F) // the shortest text that reads back to the same float32
	case Int:
		x = v.F
	case Bool:
		x = v.B
	case Choice:
		x = p.Format(v)
	case Vec3:
		x = [3]float32{float32(v.V[0]), float32(v.V[1]), float32(v.V[2])}
	}
	b, _ := json.Marshal(x) // plain numbers, bools and strings always marshal
	return b
}

// DecodeJSON reads a value written as JSON: what JSON returns, or for convenience a string in the command-line form.
// null is no value (encoding/json would read it as a zero); what the file holds is quoted cut to a readable length.
func (p *Param) DecodeJSON(raw json.RawMessage) (Value, error) {
	raw = bytes.TrimSpace(raw)
	got := jsonmsg.Clip(string(raw))
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return Value{}, fmt.Errorf("%s: %v", p.Name, err)
		}
		if len(s) > jsonmsg.MaxQuote { // no value is written this long
			return Value{}, fmt.Errorf("%s: %s is not a value of this parameter", p.Name, jsonmsg.Quote(s))
		}
		return p.Parse(s)
	}
	isNull := string(raw) == "null"
	switch p.Kind {
	case Float, Int, Choice:
		var f float64
		if err := json.Unmarshal(raw, &f); err != nil || isNull {
			return Value{}, fmt.Errorf("%s: want a number, got %s", p.Name, got)
		}
		return Value{F: f}, nil
	case Bool:
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil || isNull {
			return Value{}, fmt.Errorf("%s: want true or false, got %s", p.Name, got)
		}
		return Value{B: b}, nil
	case Vec3:
		var a []float64
		if err := json.Unmarshal(raw, &a); err != nil || len(a) != 3 {
			return Value{}, fmt.Errorf("%s: want an array of three numbers, got %s", p.Name, got)
		}
		return Value{V: [3]float64{a[0], a[1], a[2]}}, nil
	}
	return Value{}, fmt.Errorf("%s: unknown kind %v", p.Name, p.Kind)
}

// Preset captures the live values of every parameter.
func (s *Set) Preset(mode string) Preset {
	pr := Preset{Mode: mode, Params: map[string]json.RawMessage{}}
	for _, p := range s.params {
		pr.Params[p.Name] = p.JSON(p.Get())
	}
	return pr
}

// MarshalPreset writes the live values as indented JSON with sorted keys.
func (s *Set) MarshalPreset(mode string) ([]byte, error) {
	return json.MarshalIndent(s.Preset(mode), "", "  ")
}

// Decode checks every value of a preset against the set without changing anything. Unknown names are errors:
// a preset made for another mode, or with a typo, should say so rather than half-apply.
func (s *Set) Decode(values map[string]json.RawMessage) (Snapshot, error) {
	names := make([]string, 0, len(values))
	for n := range values {
		names = append(names, n)
	}
	sort.Strings(names)
	snap := Snapshot{}
	for _, n := range names {
		p, ok := s.byName[n]
		if !ok {
			return nil, fmt.Errorf("unknown parameter %s%s", jsonmsg.Quote(n), s.suggest(n))
		}
		v, err := p.DecodeJSON(values[n])
		if err != nil {
			return nil, err
		}
		if err := p.check(v); err != nil {
			return nil, err
		}
		snap[n] = v
	}
	return snap, nil
}

// ParsePreset decodes a preset file's content without applying it. It is strict: unknown fields, a key given twice
// (encoding/json would keep the last), null for the mode or the parameters, trailing data and an empty file are
// errors. A UTF-8 byte-order mark is skipped, as scenes and replays skip it (jsonmsg.Prepare).
func ParsePreset(data []byte) (Preset, error) {
	var pr Preset
	data, err := jsonmsg.Prepare(data)
	if err != nil {
		return Preset{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&pr); err != nil {
		const empty = "empty file: a preset is a JSON object like {\"mode\": \"pbf\", \"params\": {...}}"
		if errors.Is(err, io.EOF) {
			return Preset{}, errors.New(empty)
		}
		return Preset{}, errors.New(jsonmsg.Explain(data, err, empty)) // where, and what was wanted there
	}
	if dec.More() {
		return Preset{}, fmt.Errorf("unexpected data after the preset object (at byte %d)", dec.InputOffset())
	}
	var top map[string]json.RawMessage // it decoded as a Preset, so as an object
	json.Unmarshal(data, &top)
	for _, f := range []struct{ name, want string }{{"mode", "a string"}, {"params", "an object"}} {
		if raw, ok := top[f.name]; ok && string(raw) == "null" {
			return Preset{}, fmt.Errorf("%s: null; want %s", f.name, f.want)
		}
	}
	return pr, nil
}

// ApplyPreset validates a preset against the set and applies it, all or nothing. A preset for another mode is
// refused (one without a mode, or an empty mode argument, skips that check); unknown names are refused with the
// names they may be typos of.
func (s *Set) ApplyPreset(pr Preset, mode string) error {
	source := pr.Source
	if source == "" {
		source = "preset"
	}
	return s.applyPreset(pr, mode, source)
}

func (s *Set) applyPreset(pr Preset, mode, source string) error {
	if pr.Mode != "" && mode != "" && pr.Mode != mode {
		hint := fmt.Sprintf("; switch mode first (--mode %s)", pr.Mode)
		if jsonmsg.Clip(pr.Mode) != pr.Mode {
			hint = "" // no mode is named so long
		}
		return fmt.Errorf("%s is for mode %s, not %q%s", source, jsonmsg.Quote(pr.Mode), mode, hint)
	}
	snap, err := s.Decode(pr.Params)
	if err != nil {
		return fmt.Errorf("%s: %w", source, err)
	}
	return s.Restore(snap)
}

// LoadPreset validates a preset file's content and applies it. Nothing changes when any part is invalid.
func (s *Set) LoadPreset(data []byte, mode string) error {
	return s.loadPreset(data, mode, "preset")
}

// MaxPresetSize bounds a preset file: a few hundred parameters take a few kilobytes.
const MaxPresetSize = 1 << 20

// LoadPresetFile reads a preset file and applies it as LoadPreset does; errors name the file. Only a regular file
// of at most MaxPresetSize bytes is read (internal/safeio): a folder, a named pipe or a device is refused.
func (s *Set) LoadPresetFile(path, mode string) error {
	data, err := safeio.ReadFile(path, MaxPresetSize)
	if err != nil {
		var tooLarge *safeio.TooLargeError
		var notRegular *safeio.NotRegularError
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("preset file %s does not exist", path)
		case errors.As(err, &tooLarge):
			return fmt.Errorf("%s: over the %s a preset may hold: it is not a slosh preset", path, safeio.Bytes(MaxPresetSize))
		case errors.As(err, &notRegular):
			return err // names the path and what it is
		}
		return fmt.Errorf("reading preset: %w", err)
	}
	return s.loadPreset(data, mode, path)
}

func (s *Set) loadPreset(data []byte, mode, source string) error {
	pr, err := ParsePreset(data)
	if err != nil {
		return fmt.Errorf("%s: %w", source, err)
	}
	return s.applyPreset(pr, mode, source)
}
