package app

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"hash"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/replay"
	"github.com/slosh/slosh/sim/savefile"
	"github.com/slosh/slosh/sim/scene"
)

// The compatibility fixtures (issue 25): a replay and a save file of every CPU mode, made by the code as it was
// before the particle store, with the frames they lead to. Whatever the modes' insides become, a replay made then
// must replay to the same frame bit for bit, and a save file made then must load and continue as it did (or, where
// a format had to change, be converted or refused by version with a message that says so). The frame is compared
// through a hash of what sim.Frame copies out (positions, velocities, ids, densities, bodies, time and steps), not
// of the state's bytes, so that a new state layout of the same simulation still matches.
//
//	go test ./app -run TestCompatFixtures -update-compat
//
// writes them anew from the code as it is; only do that when a change is meant to change what a mode computes,
// and say so in the commit.
var updateCompat = flag.Bool("update-compat", false, "write testdata/compat's replays, save files and frame hashes from the code as it is")

const compatDir = "testdata/compat"

// compatManifest is testdata/compat/manifest.json: per mode, the files and the frames they lead to.
type compatManifest map[string]compatEntry

type compatEntry struct {
	Replay      string `json:"replay"`       // a sitting with every tool of the mode, as a replay file
	ReplayFrame string `json:"replay_frame"` // frameHash of the solver after replaying it
	Save        string `json:"save"`         // a save file made mid-sitting
	Continue    int    `json:"continue"`     // frames run after loading it
	SaveFrame   string `json:"save_frame"`   // frameHash after loading it and running Continue frames
}

// compatModes are the modes and scenes of the fixtures: small, so the files stay small and the test fast.
var compatModes = []struct {
	mode, scene string
	particles   int
}{
	{"pbf-cpu", "pool", 800},
	{"flip", "pool", 1500},
	{"sph", "oil-and-water", 800},
	{"voronoi", "pool", 300},
	{"reduced", "reduced-1", 0},
}

func TestCompatFixtures(t *testing.T) {
	if testing.Short() {
		t.Skip("about 2 s on 2 cores: a headless run of the app; make test runs it")
	}
	if *updateCompat {
		writeCompat(t)
	}
	data, err := os.ReadFile(filepath.Join(compatDir, "manifest.json"))
	if err != nil {
		t.Fatalf("the compatibility fixtures: %v (go test ./app -run TestCompatFixtures -update-compat writes them)", err)
	}
	var man compatManifest
	if err := json.Unmarshal(data, &man); err != nil {
		t.Fatal(err)
	}
	for _, c := range compatModes {
		t.Run(c.mode, func(t *testing.T) {
			e, ok := man[c.mode]
			if !ok {
				t.Fatalf("no fixture for mode %s", c.mode)
			}
			if got := replayFrame(t, filepath.Join(compatDir, e.Replay)); got != e.ReplayFrame {
				t.Errorf("%s replays to frame %s, the code that made it to %s", e.Replay, got, e.ReplayFrame)
			}
			if got := continueFrame(t, filepath.Join(compatDir, e.Save), e.Continue); got != e.SaveFrame {
				t.Errorf("%s continues %d frames to frame %s, the code that made it to %s", e.Save, e.Continue, got, e.SaveFrame)
			}
		})
	}
}

// replayFrame replays path headless in a fresh solver of its mode and returns the hash of the frame it ends on.
func replayFrame(t *testing.T, path string) string {
	t.Helper()
	f, err := replay.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := lookupMode(Modes(), f.Mode)
	if err != nil {
		t.Fatal(err)
	}
	s, err := m.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := replay.Run(s, f, nil); err != nil {
		t.Fatal(err)
	}
	return frameHash(s)
}

// continueFrame loads the save file at path as `slosh --load` does, runs frames frames and returns the hash of the
// frame it ends on.
func continueFrame(t *testing.T, path string, frames int) string {
	t.Helper()
	s, m := loadSaved(t, path)
	ss := &session{solver: s, mode: m}
	for range frames {
		if _, err := ss.frame(nil); err != nil {
			t.Fatal(err)
		}
	}
	return frameHash(s)
}

// loadSaved loads the save file at path as `slosh --load` does: the solver in its state, and its mode.
func loadSaved(t *testing.T, path string) (sim.Solver, Mode) {
	t.Helper()
	f, err := savefile.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := savedMode(Modes(), f)
	if err != nil {
		t.Fatal(err)
	}
	s, _, _, err := restoreSession(Modes(), m, glInfo{}, f)
	if err != nil {
		t.Fatal(err)
	}
	return s, m
}

// frameHash is a hash of what the solver's Frame copies out, particles in id order: the simulation, whatever the
// layout of its state.
func frameHash(s sim.Solver) string {
	var f sim.Frame
	s.Frame(&f)
	h := sha256.New()
	put := func(v any) { _ = binary.Write(h, binary.LittleEndian, v) }
	put(int64(f.N))
	put(math.Float64bits(f.Time))
	put(int64(f.Steps))
	order := make([]int, f.N)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return int(f.ID[a]) - int(f.ID[b]) })
	for _, i := range order {
		put(f.ID[i])
		put(f.Pos[i])
		put(f.Vel[i])
		if i < len(f.Rho) {
			put(f.Rho[i])
		}
		if i < len(f.Body) {
			put(f.Body[i])
		}
		if i < len(f.Material) {
			put(f.Material[i])
		}
	}
	hashBodies(h, f.Bodies)
	return hex.EncodeToString(h.Sum(nil))[:32]
}

func hashBodies(h hash.Hash, bodies []sim.BodyState) {
	for _, b := range bodies {
		_ = binary.Write(h, binary.LittleEndian, b)
	}
}

// writeCompat makes the fixtures: for each mode a sitting with its tools, recorded as a replay, and a save file
// from the middle of it.
func writeCompat(t *testing.T) {
	if err := os.MkdirAll(compatDir, 0o755); err != nil {
		t.Fatal(err)
	}
	man := compatManifest{}
	for _, c := range compatModes {
		e := compatEntry{Replay: c.mode + ".replay.json", Save: c.mode + ".slosh", Continue: 8}
		compatSitting(t, c.mode, c.scene, c.particles, filepath.Join(compatDir, e.Replay), filepath.Join(compatDir, e.Save))
		e.ReplayFrame = replayFrame(t, filepath.Join(compatDir, e.Replay))
		e.SaveFrame = continueFrame(t, filepath.Join(compatDir, e.Save), e.Continue)
		man[c.mode] = e
	}
	data, err := json.MarshalIndent(man, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(compatDir, "manifest.json"), append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// compatSitting plays a scripted sitting of mode on a shipped scene — every tool of the mode, a parameter change — and
// writes its replay to replayPath and a save file from its middle to savePath.
func compatSitting(t *testing.T, mode, sceneName string, particles int, replayPath, savePath string) {
	t.Helper()
	m, err := lookupMode(Modes(), mode)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scene.Builtin(sceneName)
	if err != nil {
		t.Fatal(err)
	}
	s, err := m.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := applySceneParams(s.Params(), sc, mode); err != nil {
		t.Fatal(err)
	}
	if particles > 0 {
		p, ok := sim.ParamNamed(s.Params(), "particles")
		if !ok {
			t.Fatalf("mode %s has no particle count", mode)
		}
		if err := p.Set(param.Value{F: float64(particles)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Reset(sc); err != nil {
		t.Fatal(err)
	}
	var log replay.Log
	if err := log.Start(mode, sc, s.Params(), FrameDt); err != nil {
		t.Fatal(err)
	}
	var script func(frame int)
	if m.Flat {
		script = sitting2D(t, &log, s)
	} else {
		script = sitting3D(t, &log, s, sc)
	}
	const frames, saveAt = 24, 12
	for frame := 0; frame < frames; frame++ {
		script(frame)
		log.Params(s)
		n := max(1, s.BeginFrame(FrameDt))
		for range n {
			if err := s.Step(FrameDt / float64(n)); err != nil {
				t.Fatalf("%s: frame %d: %v", mode, frame, err)
			}
		}
		if frame == saveAt {
			if _, err := saveStateFile(savePath, mode, s, liveScene(sc, nil)); err != nil {
				t.Fatal(err)
			}
		}
	}
	f, err := log.Snapshot(s.Stats().Steps)
	if err != nil {
		t.Fatal(err)
	}
	if err := replay.Write(replayPath, f); err != nil {
		t.Fatal(err)
	}
}

// sitting3D is the script of a 3D mode's sitting: drain, drop, drag and let go of a body, the paddle swept through
// the water, a parameter changed, water poured, and the drop removed.
func sitting3D(t *testing.T, log *replay.Log, s sim.Solver, sc *scene.Scene) func(frame int) {
	h, ok := log.Hands(s)
	if !ok {
		t.Fatalf("mode %s has no hands", s.Name())
	}
	lo, hi := sc.Domain.Min, sc.Domain.Max
	at := func(fx, fy, fz float64) [3]float32 {
		return [3]float32{float32(lo[0] + fx*(hi[0]-lo[0])), float32(lo[1] + fy*(hi[1]-lo[1])), float32(lo[2] + fz*(hi[2]-lo[2]))}
	}
	size := float32(min(hi[0]-lo[0], hi[1]-lo[1], hi[2]-lo[2]))
	bodies := len(sc.Bodies)
	return func(frame int) {
		var err error
		switch frame {
		case 2:
			_, err = h.Drain(at(0.3, 0.1, 0.5), 0.15*size)
		case 4:
			c := at(0.6, 0.7, 0.5)
			_, _, err = h.AddBody(scene.Body{Shape: scene.Shape{Kind: scene.ShapeSphere, Center: scene.Vec3{float64(c[0]), float64(c[1]), float64(c[2])},
				Radius: 0.1 * float64(size)}, Density: 600})
		case 6:
			h.DriveBody(bodies, [3]float32{0.3, 0.5, 0}, true)
		case 8:
			h.DriveBody(bodies, [3]float32{0.3, 0.5, 0}, false)
			h.SetTools(sim.Tools{Paddle: &sim.Paddle{Center: at(0.2, 0.1, 0.5), Radius: 0.1 * size}})
		case 9, 10:
			h.SetTools(sim.Tools{Paddle: &sim.Paddle{Center: at(0.2+0.05*float64(frame-8), 0.1, 0.5), Radius: 0.1 * size}})
		case 11:
			h.SetTools(sim.Tools{})
			if p, ok := sim.ParamNamed(s.Params(), "cfl"); ok {
				err = p.Set(param.Value{F: p.Get().F * 0.8})
			}
		case 14:
			c := at(0.5, 0.8, 0.5)
			h.SetTools(sim.Tools{Emitter: &scene.Emitter{Center: scene.Vec3{float64(c[0]), float64(c[1]), float64(c[2])},
				Direction: scene.Vec3{0, -1, 0}, Radius: 0.05 * float64(size), Speed: 1}})
		case 18:
			h.SetTools(sim.Tools{})
		case 20:
			err = h.RemoveBody(bodies)
		}
		if err != nil {
			t.Fatalf("%s: frame %d: %v", s.Name(), frame, err)
		}
	}
}

// sitting2D is the script of the 2D game's sitting: a current drawn and excited again, a body spawned, held,
// dragged and let go, and removed.
func sitting2D(t *testing.T, log *replay.Log, s sim.Solver) func(frame int) {
	h, ok := log.FlatHands(s)
	if !ok {
		t.Fatalf("mode %s has no 2D hands", s.Name())
	}
	var spawned int
	return func(frame int) {
		var err error
		switch frame {
		case 2:
			_, err = h.Draw([][2]float32{{0.3, 0.3}, {0.8, 0.45}, {1.3, 0.35}}, 0.4, 0.15)
		case 5:
			err = h.Excite(1)
		case 7:
			spawned, err = h.Spawn(scene.FlatBody{Shape: scene.FlatCircle, Center: scene.Vec2{1, 0.8}, Radius: 0.06, Density: 500})
		case 9:
			h.Grab([2]float32{1, 0.8})
		case 10, 11:
			h.MoveGrab([2]float32{1 - 0.05*float32(frame-9), 0.8})
		case 12:
			h.Release()
		case 20:
			err = h.RemoveFlatBody(spawned)
		}
		if err != nil {
			t.Fatalf("%s: frame %d: %v", s.Name(), frame, err)
		}
	}
}
