// Package savefile is the sandbox's save file: the current parameters and the whole simulation state (particles
// and bodies) in one file, so that `slosh --load FILE` continues a run as if it had never stopped.
//
// A save file is a zip archive with two entries:
//
//	slosh.json  the header, human-readable and stored uncompressed: format version, software, mode, state kind,
//	            when it was saved, simulated time, steps, particle count, the mode's parameters (a param.Preset)
//	            and the scene the run started from, as a JSON object
//	state.bin   the solver's state as its sim.Stateful.WriteState wrote it, deflated
//
// Saving is atomic: the archive is written to a temporary file beside the target, synced and renamed over it, so a
// failed save never leaves a half-written file or damages the previous one. Loading is strict and its errors name
// the file and what was wrong with it; restoring into a solver changes nothing (parameters or state) unless it
// succeeds, so a bad file never discards the running simulation.
package savefile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"
	"time"

	"github.com/slosh/slosh/internal/jsonmsg"
	"github.com/slosh/slosh/internal/machine"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/scene"
)

// Format is the version of the save file format this package writes and the newest it reads.
const Format = 1

// Software is the header's software field; a file without it is not a slosh save file.
const Software = "slosh"

// Entry names inside the archive.
const (
	HeaderEntry = "slosh.json"
	StateEntry  = "state.bin"
)

// Limits on what Load reads, against damaged files and zip bombs: each is checked before anything is allocated
// or inflated for it.
const (
	MaxHeader = 16 << 20 // bytes of slosh.json
	// MaxParticles is the most particles a save file may declare: the automatic particle budget of a scene at
	// the scene limit (twice scene.MaxParticles: room to pour as much again).
	MaxParticles = 2 * scene.MaxParticles
	// ParticleBytes bounds the bytes of state per declared particle: every state is a few numbers per particle
	// (PBF's is 60 bytes, 140 with each particle's share of the rigid bodies' table).
	ParticleBytes = 256
	// StateSlack is what a state may hold besides its particles: a header, emitters, pending measurements.
	StateSlack = 1 << 20
	// MaxState bounds state.bin, uncompressed: what MaxParticles particles take.
	MaxState = MaxParticles*ParticleBytes + StateSlack
	// MaxArchive bounds the file: the header and the largest state, stored (deflate adds 5 bytes per 64 KiB
	// when it cannot compress), with the zip's own records.
	MaxArchive = MaxHeader + MaxState + MaxState/8192 + 1<<20
	// MaxDirectory bounds the archive's central directory: a save file has two entries, so a directory of more
	// than a few kilobytes is a damaged file or one made to exhaust memory (each entry costs a structure).
	MaxDirectory = 64 << 10
	// MaxTime bounds the simulated time (s) a save file may hold: a few decades, far beyond any run; a larger
	// value is a damaged file and prints as hundreds of digits.
	MaxTime = 1e9
	// MaxSteps bounds the step count, as MaxTime the time.
	MaxSteps = 1 << 50
)

// StateBudget is how many bytes, uncompressed, the state of a file declaring particles particles may take; it
// is never more than MaxState, nor more than a quarter of the machine's memory where that is known (loading
// holds the state about three times over: the entry, the decoded arrays and the solver's copy).
func StateBudget(particles int) int64 {
	b := int64(min(max(particles, 0), MaxParticles))*ParticleBytes + StateSlack
	if mem := machine.Memory(); mem > 0 {
		b = min(b, max(mem/4, StateSlack))
	}
	return b
}

// File is a save file's content.
type File struct {
	Mode      string       // the mode that saved it ("pbf")
	Kind      string       // the solver's StateKind; the state loads into any solver of the same kind
	Time      float64      // simulated time, s
	Steps     int          // steps taken
	Particles int          // particle count, for display before loading
	Params    param.Preset // the mode's parameters
	Scene     *scene.Scene // the scene the run started from (obstacle paths, emitters, reset)
	State     []byte       // what the solver's WriteState wrote (Capture); nil in a File Load read (see ReadInto)
	Saved     time.Time    // when it was saved; Save uses the current time when zero

	// Path is the file Load read, naming it in Restore's errors; empty for a File that Capture made.
	Path string

	packed *packedState // the state as Load found it, inflated as it is read
}

// ReadInto has s read the state (sim.Stateful.ReadState) while it is inflated, never holding it whole, then
// checks that s read all of it and that it was as stored (its length and checksum). A state that is damaged,
// longer than the solver reads or not of its kind is an error; s keeps the state it had (as ReadState promises).
func (f *File) ReadInto(s sim.Stateful) error {
	if f.packed == nil {
		r := bytes.NewReader(f.State)
		if err := s.ReadState(r); err != nil {
			return err
		}
		if r.Len() > 0 {
			return fmt.Errorf("%s: %d bytes after the state the solver read: the file is damaged", StateEntry, r.Len())
		}
		return nil
	}
	r := f.packed.reader()
	if err := s.ReadState(r); err != nil {
		if r.err != nil && r.err != io.EOF {
			return r.err // the entry was damaged under the solver's reader
		}
		return err
	}
	if n, err := io.Copy(io.Discard, r); err != nil {
		return err
	} else if n > 0 {
		return fmt.Errorf("%s: %d bytes after the state the solver read: the file is damaged", StateEntry, n)
	}
	return nil
}

// StateBytes is the whole state, inflated: for tools and tests that decode it themselves.
func (f *File) StateBytes() ([]byte, error) {
	if f.packed == nil {
		return f.State, nil
	}
	return io.ReadAll(f.packed.reader())
}

// Capture fills a File from a running solver: the live parameters of params (as a preset for mode), a copy of
// the scene and the solver's state. simTime, steps and particles are the solver's simulated time, step count and
// particle count (sim.Stats).
func Capture(mode string, params *param.Set, sc *scene.Scene, s sim.Stateful, simTime float64, steps, particles int) (*File, error) {
	if params == nil || sc == nil || s == nil {
		return nil, errors.New("savefile.Capture: params, scene and solver are required")
	}
	var state bytes.Buffer
	if err := s.WriteState(&state); err != nil {
		return nil, fmt.Errorf("saving the %s state: %w", mode, err)
	}
	return &File{
		Mode:      mode,
		Kind:      s.StateKind(),
		Time:      simTime,
		Steps:     steps,
		Particles: particles,
		Params:    params.Preset(mode),
		Scene:     sc.Clone(),
		State:     state.Bytes(),
		Saved:     now(),
	}, nil
}

// now is the save time without its monotonic reading, which a file cannot hold.
func now() time.Time { return time.Now().Round(0) }

// Restore loads the file into a running solver of mode: its parameters into params and its state into s. It
// changes nothing unless everything succeeds:
//
//  1. the file's state kind must be the solver's (a file saved in another mode says which mode to switch to);
//  2. the parameters are checked against params without changing it (unknown names, bad values);
//  3. the parameters are applied, so that the solver reads the state under the values it was saved with;
//  4. the solver reads the state; if that fails, the parameters go back to what they were (and the solver keeps
//     the state it had, as sim.Stateful promises).
//
// Restore does not touch the scene: after it succeeds the caller makes f.Scene the running scene.
func (f *File) Restore(mode string, params *param.Set, s sim.Stateful) error {
	if kind := s.StateKind(); f.Kind != kind {
		return fmt.Errorf("%s was saved in mode %s (state kind %s); the running mode %s (state kind %s) cannot load it: switch to %s first (--mode %s)",
			f.name(), f.Mode, f.Kind, mode, kind, f.Mode, f.Mode)
	}
	// The state kind matching is what makes a file fit; the preset's mode name may be another mode of the same
	// kind (a CPU and a GPU twin), so only the parameter names are checked, by Decode.
	next, err := params.Decode(f.Params.Params)
	if err != nil {
		return fmt.Errorf("%s: parameters: %w", f.name(), err)
	}
	old := params.Snapshot()
	if err := params.Restore(next); err != nil {
		return fmt.Errorf("%s: parameters: %w", f.name(), err)
	}
	if err := f.ReadInto(s); err != nil {
		err = fmt.Errorf("%s: state: %w; the running simulation is unchanged", f.name(), err)
		if rerr := restoreChanged(params, old); rerr != nil {
			err = fmt.Errorf("%w (but putting the parameters back failed: %v)", err, rerr)
		}
		return err
	}
	return nil
}

// restoreChanged puts back the parameters that differ from old. Only those: a live value outside its bounds
// (typed into the panel) that the file did not change must not stop the others from going back.
func restoreChanged(params *param.Set, old param.Snapshot) error {
	back := param.Snapshot{}
	for _, p := range params.Changed(old, params.Snapshot()) {
		back[p.Name] = old[p.Name]
	}
	return params.Restore(back)
}

// name is the file's name for messages.
func (f *File) name() string {
	if f.Path != "" {
		return f.Path
	}
	return "the save file"
}

// check reports what would make f an invalid save file.
func (f *File) check() error {
	switch {
	case f.Mode == "":
		return errors.New("no mode")
	case f.Kind == "":
		return errors.New("no state kind")
	case f.Scene == nil:
		return errors.New("no scene")
	}
	if err := checkCounts(f.Time, f.Steps, f.Particles); err != nil {
		return err
	}
	n := int64(len(f.State))
	if f.packed != nil {
		n = f.packed.size
	}
	if n > MaxState {
		return fmt.Errorf("the state is %s, over the %s a save file may hold", size(n), size(MaxState))
	}
	return nil
}

// checkCounts checks the header's time, steps and particle count against their ranges; the messages name the
// field.
func checkCounts(t float64, steps, particles int) error {
	switch {
	case !(t >= 0 && t <= MaxTime):
		return fmt.Errorf("time: %.6g s is outside [0, %g] s", t, float64(MaxTime))
	case steps < 0 || steps > MaxSteps:
		return fmt.Errorf("steps: %d is outside [0, %d]", steps, int64(MaxSteps))
	case particles < 0 || particles > MaxParticles:
		return fmt.Errorf("particles: %d is outside [0, %d]", particles, MaxParticles)
	}
	return nil
}

// header is slosh.json.
type header struct {
	Format    int             `json:"format"`
	Software  string          `json:"software"`
	Mode      string          `json:"mode"`
	Kind      string          `json:"kind"`
	Saved     time.Time       `json:"saved"`
	Time      float64         `json:"time"`
	Steps     int             `json:"steps"`
	Particles int             `json:"particles"`
	Params    param.Preset    `json:"params"`
	Scene     json.RawMessage `json:"scene"`
}

// UnmarshalJSON decodes slosh.json's object strictly, for decodeHeader: a key given twice anywhere in it is
// refused (jsonmsg.Duplicates; encoding/json kept the last, and matches the fields regardless of case), and so are
// null for any field and a missing count (encoding/json left those fields zero: "particles": null read as no
// particles) and an unknown field. Errors name the field.
func (h *header) UnmarshalJSON(data []byte) error {
	if err := jsonmsg.Duplicates(data); err != nil {
		return err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return err
	}
	t := reflect.TypeOf(*h)
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		raw, ok := fields[name]
		switch {
		case ok && string(bytes.TrimSpace(raw)) == "null":
			return fmt.Errorf("%s: null; want %s", name, headerType(t.Field(i).Type))
		case !ok && (name == "time" || name == "steps" || name == "particles"):
			return fmt.Errorf("%s: missing", name)
		}
	}
	type plain header // header's fields without this method
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p plain
	if err := dec.Decode(&p); err != nil {
		return err
	}
	*h = header(p)
	return nil
}

// headerType says what JSON a header field of type t holds, for messages.
func headerType(t reflect.Type) string {
	switch t {
	case reflect.TypeOf(time.Time{}):
		return "a time (a string like \"2025-01-31T12:00:00Z\")"
	case reflect.TypeOf(json.RawMessage(nil)):
		return "an object"
	}
	return jsonmsg.Type(t)
}

// marshalScene writes a scene as the JSON object the header embeds. Mesh paths relative to the scene file become
// absolute, since the scene is read back relative to the save file; shipped meshes keep their names.
func marshalScene(sc *scene.Scene) ([]byte, error) {
	sc = sc.Portable()
	return json.Marshal(sc)
}

// size64 is size for an unsigned count, which may be beyond int64.
func size64(n uint64) string { return size(int64(min(n, math.MaxInt64))) }

// size writes a byte count for messages.
func size(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
