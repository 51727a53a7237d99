package shell

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/particles"
	"github.com/slosh/slosh/sim/scene"
)

// mode is a particle mode as far as the shell sees it: its slices, a material column of 3 materials and a pressure.
type mode struct {
	Shell
	x, v [][4]float32
	id   []uint32
	mat  []uint8
	pres []float32
}

func newMode(budget int) *mode {
	m := &mode{}
	m.Mode = "test"
	m.Bind(&m.x, &m.v, &m.id)
	m.Materials(&m.mat, func() int { return 3 })
	particles.Add(&m.P, &m.pres, particles.Spec[float32]{Name: "pressure", Role: particles.State})
	sc := poolScene()
	m.Reset(sc, budget)
	return m
}

// poolScene is a 1 m box with one emitter.
func poolScene() *scene.Scene {
	return &scene.Scene{Name: "pool", Domain: scene.Box{Max: scene.Vec3{1, 1, 1}},
		Emitters: []scene.Emitter{{Center: scene.Vec3{0.5, 0.8, 0.5}, Direction: scene.Vec3{0, -1, 0}, Radius: 0.05, Speed: 1}}}
}

func particle(x float32, m uint8) sim.Particle {
	return sim.Particle{Pos: [3]float32{x, 0.5, 0.5}, Vel: [3]float32{0, -x, 0}, Material: m}
}

// Adding stops at the budget and keeps materials (one the run lacks comes back as 0); a drain takes the particles in
// its sphere with their materials and renumbers the rest in order; putting them back (an undo) restores them with
// the next ids.
func TestHands(t *testing.T) {
	m := newMode(5)
	first, k := m.Add([]sim.Particle{particle(0.1, 1), particle(0.2, 2), particle(0.3, 0), particle(0.4, 7)})
	if first != 0 || k != 4 || m.P.Len() != 4 || m.mat[1] != 2 || m.mat[3] != 0 || m.v[1][1] != -0.2 {
		t.Fatalf("add: first %d, %d added, materials %v, velocities %v", first, k, m.mat, m.v)
	}
	if _, k := m.Add([]sim.Particle{particle(0.5, 1), particle(0.6, 1)}); k != 1 || m.Room() != 0 {
		t.Fatalf("over the budget: %d added, room %d", k, m.Room())
	}
	m.pres[2] = 7
	gone := m.Drain([3]float32{0.15, 0.5, 0.5}, 0.06, nil)
	if len(gone) != 2 || gone[0].Material != 1 || gone[1].Material != 2 || gone[1].Vel[1] != -0.2 {
		t.Fatalf("drained %+v", gone)
	}
	if m.P.Len() != 3 || m.id[0] != 0 || m.id[2] != 2 || m.x[0][0] != 0.3 || m.pres[0] != 7 {
		t.Fatalf("after the drain: ids %v, x %v, pressures %v", m.id, m.x, m.pres)
	}
	if _, k := m.Add(gone); k != 2 || m.id[4] != 4 || m.mat[4] != 2 {
		t.Fatalf("undo: %d back, ids %v, materials %v", k, m.id, m.mat)
	}
	// a drain that may not take some (a body's particles)
	if gone := m.Drain([3]float32{0.5, 0.5, 0.5}, 1, func(i int) bool { return m.mat[i] == 1 }); len(gone) != 2 || m.P.Len() != 3 {
		t.Fatalf("a drain of material 1 only took %d, left %d", len(gone), m.P.Len())
	}
}

// An emitter's layer that does not fit is refused whole, with the budget notice naming the mode's parameter; the
// emitters' travel is the shell's state.
func TestEmitStopsAtTheBudget(t *testing.T) {
	m := newMode(40)
	sc := poolScene()
	layers := 0
	for step := range 20 {
		m.Emit(sc, 0.02, float64(step)*0.02, 0.02, func(pos, vel [][4]float32, mat uint8) {
			if _, ok := m.AddLayer(pos, vel, mat); ok {
				layers++
			}
		})
	}
	if layers == 0 || m.P.Len() > 40 || m.P.Len()%(m.P.Len()/layers) != 0 {
		t.Fatalf("%d layers, %d particles", layers, m.P.Len())
	}
	if !strings.Contains(m.Notice, "particle budget of 40 reached") || !strings.Contains(m.Notice, "test.budget") {
		t.Fatalf("notice %q", m.Notice)
	}
	if !(m.Emitted[0] >= 0 && m.Emitted[0] < 0.02) {
		t.Fatalf("travel %v", m.Emitted)
	}
	m.SetTools(sim.Tools{Emitter: &scene.Emitter{}})
	m.ToolAcc = 0.01
	m.SetTools(sim.Tools{})
	if m.ToolAcc != 0 {
		t.Fatal("putting the pouring tool away keeps its travel")
	}
}

// Emitted layers are of their emitter's material: a scene's emitter's and the pouring tool's, named in the scene; a
// tool naming a material the scene lacks pours material 0, and a mode without a material column takes the layer
// without one.
func TestEmitPoursTheEmittersMaterial(t *testing.T) {
	sc := poolScene()
	sc.Materials = []scene.Material{{Name: "oil", Density: 800}, {Name: "sand", Kind: scene.KindGranular, Density: 1600, FrictionAngle: 30}}
	sc.Emitters = append(sc.Emitters, sc.Emitters[0])
	sc.Emitters[0].Material, sc.Emitters[1].Center[0] = "sand", 0.2
	m := newMode(1000)
	m.Reset(sc, 1000)
	made := map[uint8]int{}
	emit := func(tool *scene.Emitter) {
		m.SetTools(sim.Tools{Emitter: tool})
		for step := range 3 {
			m.Emit(sc, 0.02, float64(step)*0.02, 0.02, func(pos, vel [][4]float32, mat uint8) {
				if first, ok := m.AddLayer(pos, vel, mat); ok {
					made[mat] += len(pos)
					for i := first; i < m.P.Len(); i++ {
						if m.mat[i] != mat {
							t.Fatalf("particle %d of a layer of material %d is of material %d", i, mat, m.mat[i])
						}
					}
				}
			})
		}
	}
	emit(nil)
	if made[2] == 0 || made[0] == 0 || made[2] != made[0] || len(made) != 2 {
		t.Fatalf("the sand emitter and the water emitter made %v", made)
	}
	for i := range m.P.Len() {
		if sand := m.x[i][0] > 0.35; sand != (m.mat[i] == 2) {
			t.Fatalf("particle %d at %v is of material %d: the sand emitter pours at x = 0.5, the water one at 0.2", i, m.x[i], m.mat[i])
		}
	}
	clear(made)
	sc.Emitters = nil
	m.Reset(sc, 1000)
	emit(&scene.Emitter{Center: scene.Vec3{0.5, 0.5, 0.5}, Direction: scene.Vec3{0, -1, 0}, Radius: 0.03, Speed: 1, Material: "oil"})
	if made[1] == 0 || len(made) != 1 {
		t.Fatalf("the tool pouring oil made %v", made)
	}
	clear(made)
	emit(&scene.Emitter{Center: scene.Vec3{0.5, 0.5, 0.5}, Direction: scene.Vec3{0, -1, 0}, Radius: 0.03, Speed: 1, Material: "mercury"})
	if made[0] == 0 || len(made) != 1 {
		t.Fatalf("the tool pouring a material the scene lacks made %v", made)
	}

	// without a material column
	var x, v [][4]float32
	var id []uint32
	plain := &Shell{Mode: "plain"}
	plain.Bind(&x, &v, &id)
	plain.Reset(sc, 100)
	if _, ok := plain.AddLayer(make([][4]float32, 3), make([][4]float32, 3), 2); !ok || plain.P.Len() != 3 {
		t.Fatal("a mode without materials refused a layer of sand")
	}
}

var format = Format{Magic: "slosh test state\n", Kind: "test", Version: 2, MaxExtra: 64}

func encoded(t testing.TB, m *mode, extra []byte) []byte {
	var b bytes.Buffer
	if err := m.Encode(&b, format, Header{Spacing: 0.02, Time: 1.5, Steps: 90}, extra); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func decode(m *mode, data []byte) (*Saved, error) {
	v, br, left, err := ReadVersion(bytes.NewReader(data), format)
	if err != nil {
		return nil, err
	}
	if v != format.Version {
		return nil, errVersion
	}
	return m.Decode(br, left, format)
}

var errVersion = bytesErr("version")

type bytesErr string

func (e bytesErr) Error() string { return string(e) }

// A state round trips exactly (the header, the particles and their columns, the emitters, the mode's own part), is
// checked against the scene it loads into, and restores the shell.
func TestStateRoundTrip(t *testing.T) {
	m := newMode(100)
	m.Add([]sim.Particle{particle(0.1, 1), particle(0.2, 2), particle(0.3, 0)})
	m.pres[1], m.Emitted[0], m.ToolAcc = 3.5, 0.01, 0.005
	data := encoded(t, m, []byte("bodies"))
	st, err := decode(newMode(10), data)
	if err != nil {
		t.Fatal(err)
	}
	if st.Spacing != 0.02 || st.Time != 1.5 || st.Steps != 90 || string(st.Extra) != "bodies" || st.Emitted[0] != 0.01 || st.ToolAcc != 0.005 {
		t.Fatalf("decoded %+v", st)
	}
	if err := st.CheckFor(poolScene(), 100, "test.budget"); err != nil {
		t.Fatal(err)
	}
	if err := st.CheckFor(poolScene(), 2, "test.budget"); err == nil || !strings.Contains(err.Error(), "raise test.budget") {
		t.Fatalf("over the budget: %v", err)
	}
	other := poolScene()
	other.Emitters = nil
	if err := st.CheckFor(other, 100, "test.budget"); err == nil || !strings.Contains(err.Error(), "another scene") {
		t.Fatalf("another scene's: %v", err)
	}
	back := newMode(100)
	if err := back.Restore(st); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(encoded(t, back, []byte("bodies")), data) {
		t.Fatal("a restored state encodes differently")
	}
	var kept Saved
	back.Keep(&kept, Header{})
	back.Drain([3]float32{0.2, 0.5, 0.5}, 0.5, nil)
	if err := back.Restore(&kept); err != nil || back.P.Len() != 3 || back.pres[1] != 3.5 {
		t.Fatalf("kept state: %v, %d particles", err, back.P.Len())
	}
}

// Damaged and foreign states are refused with a message naming the state and what is wrong, and never change the
// shell.
func TestStateRefused(t *testing.T) {
	m := newMode(100)
	m.Add([]sim.Particle{particle(0.1, 1), particle(0.2, 2)})
	good := encoded(t, m, []byte("xy"))
	le := binary.LittleEndian
	head := len(format.Magic) + 4 // after the version
	edit := func(at int, put func(d []byte)) []byte {
		d := bytes.Clone(good)
		put(d[at:])
		return d
	}
	other := newMode(100)
	var unknown bytes.Buffer
	particles.Add(&other.P, &[]float32{0, 0}, particles.Spec[float32]{Name: "temperature", Role: particles.State})
	other.Add([]sim.Particle{particle(0.1, 1)})
	if err := other.Encode(&unknown, format, Header{Spacing: 0.02}, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		in   []byte
		want string
	}{
		{"another kind", []byte("slosh pbf state\n...."), "not a test state"},
		{"spacing", edit(head, func(d []byte) { le.PutUint64(d, 0) }), "particle spacing 0 must be a positive number"},
		{"time", edit(head+8, func(d []byte) { le.PutUint64(d, 0xFFF0000000000000) }), "time: -Inf s is outside"},
		{"steps", edit(head+16, func(d []byte) { le.PutUint64(d, 1<<62) }), "steps: "},
		{"emitters", edit(head+24, func(d []byte) { le.PutUint64(d, 1<<40) }), "emitter count 1099511627776 is outside"},
		{"emitters over the data", edit(head+24, func(d []byte) { le.PutUint64(d, 1000) }), "it declares 1000 emitters but holds"},
		{"travel", edit(head+32, func(d []byte) { le.PutUint32(d, 0x3f800000) }), "emitter 0's travel since its last layer is 1 m"},
		{"a column of a newer slosh", unknown.Bytes(), `column "temperature" is not one this slosh keeps`},
		{"own part", edit(len(good)-2-8, func(d []byte) { le.PutUint64(d, 1<<20) }), "its own part takes 1048576 bytes"},
		{"truncated", good[:len(good)-1], "truncated"},
		{"after the end", append(bytes.Clone(good), 0), "unexpected data after the end"},
	} {
		d := newMode(100)
		d.Add([]sim.Particle{particle(0.5, 0)})
		_, err := decode(d, c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "test state") {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
		if d.P.Len() != 1 || d.x[0][0] != 0.5 {
			t.Errorf("%s: a refused state changed the shell", c.name)
		}
	}
}

func FuzzDecode(f *testing.F) {
	m := newMode(100)
	m.Add([]sim.Particle{particle(0.1, 1), particle(0.2, 2)})
	good := encoded(f, m, []byte("xy"))
	f.Add(good)
	f.Add(good[:40])
	f.Fuzz(func(t *testing.T, data []byte) {
		d := newMode(100)
		st, err := decode(d, data)
		if err != nil {
			if d.P.Len() != 0 {
				t.Fatal("a refused state changed the shell")
			}
			return
		}
		if err := d.Restore(st); err != nil {
			t.Fatalf("a decoded state does not restore: %v", err)
		}
		var again bytes.Buffer
		if err := d.Encode(&again, format, st.Header, st.Extra); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again.Bytes(), data) {
			t.Fatal("what it accepted does not encode back to itself")
		}
	})
}

// A particle that is not finite, or faster than a state may hold, is never added: the edit would be kept as the last
// good state.
func TestAddRefusesBrokenParticles(t *testing.T) {
	m := newMode(10)
	nan := float32(math.NaN())
	ps := []sim.Particle{particle(0.1, 0), {Pos: [3]float32{nan, 0, 0}}, {Vel: [3]float32{0, float32(math.Inf(1)), 0}},
		{Vel: [3]float32{2 * sim.MaxStateSpeed, 0, 0}}, particle(0.2, 1)}
	if first, k := m.Add(ps); first != 0 || k != 2 || m.x[1][0] != 0.2 || m.mat[1] != 1 {
		t.Fatalf("added %d from %d: %v", k, first, m.x)
	}
}

// Notices of one step add up: a step that reaches the budget and fires a blast says both, and taking the notice
// clears it for the next step.
func TestNoticesAddUp(t *testing.T) {
	m := newMode(1)
	m.Note("a scene blast pushed 3 particles")
	if _, ok := m.AddLayer(make([][4]float32, 2), make([][4]float32, 2), 0); ok {
		t.Fatal("a layer over the budget was added")
	}
	if n := m.TakeNotice(); !strings.HasPrefix(n, "a scene blast pushed 3 particles; particle budget of 1 reached") {
		t.Fatalf("notice %q", n)
	}
	if m.Notice != "" || m.TakeNotice() != "" {
		t.Fatal("taking the notice left it")
	}
}
