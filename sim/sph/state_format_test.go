package sph

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"strings"
	"testing"

	"github.com/slosh/slosh/internal/binio"
	"github.com/slosh/slosh/sim/particles"
	"github.com/slosh/slosh/sim/simtest"
)

// layout is where the parts of a state file start, for tests that damage one.
type layout struct {
	spacing   int // the header's first number
	count     int // the particle count
	pos       int // the first position
	own       int // sph's own part: amax
	materials int // the material count
}

// stateLayout finds the parts of a state file of the current version.
func stateLayout(t testing.TB, good []byte) layout {
	t.Helper()
	le := binary.LittleEndian
	var at layout
	at.spacing = len(stateMagic) + 4
	ne := int(le.Uint64(good[at.spacing+24:]))
	at.count = at.spacing + 32 + 4*ne + 4 + 4 // emitters, pouring tool, the particles' version
	p := at.count + 8 + 4
	for range le.Uint32(good[at.count+8:]) {
		p += 2 + int(le.Uint16(good[p:])) + 4
	}
	at.pos = p
	st, err := DecodeState(bytes.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	own, err := st.encodeOwn()
	if err != nil {
		t.Fatal(err)
	}
	at.own = len(good) - len(own)
	at.materials = at.own + 8 + 4 + 4
	return at
}

// encodeV1 writes the solver's state as version 1 did, before the particle store (its Encode, kept here).
func encodeV1(t testing.TB, s *Solver) []byte {
	t.Helper()
	var st State
	s.SaveState(&st)
	var bodies bytes.Buffer
	if err := s.bodies.Write(&bodies, s.sc, "sph state"); err != nil {
		t.Fatal(err)
	}
	flags := int64(0)
	if st.ConfigMaterial {
		flags = 1
	}
	mats := make([][2]float32, len(st.Materials))
	for k, m := range st.Materials {
		mats[k] = [2]float32{m.RestDensity, m.Viscosity}
	}
	var out bytes.Buffer
	if err := binio.Write(&out, "sph",
		[]byte(stateMagic), uint32(1), st.Spacing, st.Time, int64(st.Steps), st.Amax, flags,
		int64(st.N()), int64(len(mats)), int64(len(st.Emitted)),
		st.Pos, st.Vel, st.ID, st.Mat, st.Pres(), mats, st.Emitted, st.ToolAcc, int64(bodies.Len()), bodies.Bytes()); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// frameState writes st in the current frame with the given own part.
func frameState(t testing.TB, st *State, own []byte) []byte {
	t.Helper()
	var d Solver
	d.declareParticles()
	if err := d.sh.Restore(&st.Saved); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := d.sh.Encode(&buf, stateFormat, st.Header, own); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A state of version 1, as the code before the particle store wrote it, loads into a solver and continues bit for
// bit with the run that wrote it: several fluids, warm-start pressures, the emitters and tools, a floating body. It
// is written again as the current version, as the run writes it.
func TestStateV1Converts(t *testing.T) {
	for _, c := range []struct {
		name, scene string
		sets        []string
	}{
		{"two fluids", layersScene, []string{"sph.warm_start=true", "sph.tension=5"}},
		{"emitters and a body", simtest.HandsScene, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := newSolver(t, c.scene, c.sets...)
			a.SetTools(tools())
			runFrames(t, a, 5, nil)
			v1 := encodeV1(t, a)
			st, err := DecodeState(bytes.NewReader(v1))
			if err != nil {
				t.Fatal(err)
			}
			var v2, again bytes.Buffer
			if err := a.WriteState(&v2); err != nil {
				t.Fatal(err)
			}
			if err := st.Encode(&again); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(v2.Bytes(), again.Bytes()) {
				t.Error("the converted state is written otherwise than the run writes its own")
			}
			b := newSolver(t, c.scene, c.sets...)
			if err := b.ReadState(bytes.NewReader(v1)); err != nil {
				t.Fatal(err)
			}
			b.SetTools(tools())
			sameState(t, a, b, "after loading version 1")
			runFrames(t, a, 4, nil)
			runFrames(t, b, 4, nil)
			sameState(t, a, b, "4 frames after loading version 1")
		})
	}
}

// A state of the current version decodes to what encodes to the same bytes, and loads to the same state.
func TestStateV2RoundTrip(t *testing.T) {
	a := newSolver(t, layersScene, "sph.warm_start=true")
	runFrames(t, a, 4, nil)
	var good bytes.Buffer
	if err := a.WriteState(&good); err != nil {
		t.Fatal(err)
	}
	st, err := DecodeState(bytes.NewReader(good.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := st.Encode(&again); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(good.Bytes(), again.Bytes()) {
		t.Fatal("a decoded state encodes to other bytes")
	}
	if len(st.Materials) != 2 || st.Materials[1].RestDensity != 800 || st.ConfigMaterial {
		t.Errorf("the materials: %+v, config %v", st.Materials, st.ConfigMaterial)
	}
	b := newSolver(t, layersScene, "sph.warm_start=true")
	if err := b.LoadState(st); err != nil {
		t.Fatal(err)
	}
	sameState(t, a, b, "after the load")
}

// A state with a particle column or a material field this slosh does not know (a newer one wrote it) is refused
// naming it; damaged counts are refused with a message before anything is allocated for them; a material field
// the file lacks (an older slosh wrote it) takes its default.
func TestStateRefusesUnknownAndDamaged(t *testing.T) {
	a := newSolver(t, layersScene)
	runFrames(t, a, 1, nil)
	var buf bytes.Buffer
	if err := a.WriteState(&buf); err != nil {
		t.Fatal(err)
	}
	good := bytes.Clone(buf.Bytes())
	at := stateLayout(t, good)
	edit := func(pos int, v any) []byte {
		b := bytes.Clone(good)
		var w bytes.Buffer
		_ = binary.Write(&w, binary.LittleEndian, v)
		copy(b[pos:], w.Bytes())
		return b
	}
	newer := newSolver(t, layersScene)
	var salinity []float32
	particles.Add(&newer.sh.P, &salinity, particles.Spec[float32]{Name: "salinity", Role: particles.State})
	buf.Reset()
	if err := newer.WriteState(&buf); err != nil {
		t.Fatal(err)
	}
	withColumn := buf.Bytes()

	st, err := DecodeState(bytes.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	table := func(version uint32, fields ...string) []byte {
		var w bytes.Buffer
		vals := []any{st.Amax, uint32(0), version, uint32(len(st.Materials)), uint32(len(fields))}
		for _, f := range fields {
			v := make([]float32, len(st.Materials))
			for k, m := range st.Materials {
				v[k] = map[string]float32{"rest_density": m.RestDensity, "viscosity": m.Viscosity, "hardness": 7}[f]
			}
			vals = append(vals, uint16(len(f)), []byte(f), v)
		}
		vals = append(vals, int64(0), int64(0)) // no solid slots, no bodies
		if err := binio.Write(&w, "sph", vals...); err != nil {
			t.Fatal(err)
		}
		return frameState(t, st, w.Bytes())
	}

	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"a column of a newer slosh", withColumn, `column "salinity" is not one this slosh keeps`},
		{"a material field of a newer slosh", table(materialTableVersion, "rest_density", "hardness", "viscosity"), `material field "hardness" is not one this slosh knows`},
		{"a material table of a newer version", table(materialTableVersion+1, "rest_density", "viscosity"), "material table version 2"},
		{"a field given twice", table(materialTableVersion, "rest_density", "rest_density"), "given twice"},
		{"2e18 particles", edit(at.count, int64(2e18)), "count 2000000000000000000"},
		{"30 million particles", edit(at.count, int64(30_000_000)), "truncated or damaged"},
		{"40 columns", edit(at.count+8, uint32(40)), "column"},
		{"300 materials", edit(at.materials, uint32(300)), "material count 300"},
		{"1000 material fields", edit(at.materials+4, uint32(1000)), "1000 material fields"},
		{"a damaged field name", edit(at.materials+8, uint16(60000)), "a name of 60000 bytes"},
		{"flags 2", edit(at.own+8, uint32(2)), "flags"},
		{"version 4", edit(len(stateMagic), uint32(4)), "version 4"},
	} {
		if _, err := DecodeState(bytes.NewReader(c.data)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
		if err := a.ReadState(bytes.NewReader(c.data)); err == nil {
			t.Errorf("%s: the solver loaded it", c.name)
		}
	}

	old, err := DecodeState(bytes.NewReader(table(materialTableVersion, "rest_density")))
	if err != nil {
		t.Fatal(err)
	}
	if old.Materials[1].RestDensity != 800 || old.Materials[0].Viscosity != DefaultViscosity || old.Materials[1].Viscosity != DefaultViscosity {
		t.Errorf("a table without viscosities: %+v, want the rest densities kept and the viscosities %g", old.Materials, DefaultViscosity)
	}
}

// Every field of Material is written by name (materialFields), each to its own field: a field added to Material
// without its entry would silently stay out of save files.
func TestMaterialTableNamesEveryField(t *testing.T) {
	fields := materialFields()
	typ := reflect.TypeOf(Material{})
	if typ.NumField() != len(fields) {
		t.Fatalf("Material has %d fields, the state's material table %d", typ.NumField(), len(fields))
	}
	var m Material
	base := reflect.ValueOf(&m).Elem()
	seen := map[uintptr]string{}
	for _, f := range fields {
		p := reflect.ValueOf(f.at(&m)).Pointer()
		if other, dup := seen[p]; dup {
			t.Fatalf("material fields %s and %s write the same field", other, f.name)
		}
		seen[p] = f.name
	}
	for i := range typ.NumField() {
		if _, ok := seen[base.Field(i).Addr().Pointer()]; !ok {
			t.Errorf("Material.%s has no entry in the material table", typ.Field(i).Name)
		}
	}
}
