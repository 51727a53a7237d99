package sph

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/slosh/slosh/internal/binio"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/emit"
	"github.com/slosh/slosh/sim/particles"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/shell"
	"github.com/slosh/slosh/sim/solid"
)

// State is the whole state of an SPH run: everything a step reads that it does not compute, so that a loaded run
// continues bit for bit. The shell's part holds the header, the particles in the solver's order (sorted by cell
// and id at the last step) with the columns declareParticles makes state — each particle's material and pressure,
// where PCISPH starts the next step's correction with sph.warm_start, its temperature and solid slot, and its
// elastic deformation gradient and plastic strain (elastoplastic.go; a state written before them reads F = I and
// none) — and the emitters' travel; the rest is sph's own. Densities, volumes, forces and neighbour lists are recomputed by every step and not kept.
type State struct {
	shell.Saved
	// Amax is the largest acceleration of the last step, m/s²: BeginFrame's force condition (eq. 2.28) reads it.
	Amax float64
	// Materials are the run's fluids. With ConfigMaterial, material 0 follows sph.rest_density and sph.viscosity
	// (the scene named no materials and there is one).
	Materials      []Material
	ConfigMaterial bool
	// Bodies are the rigid bodies as bodies.go writes them (rigid.Set.Write), read against the solver's scene when
	// the state is loaded; empty is none.
	Bodies []byte
	// Slots are the solids' table (solids.go): each solid particle's bonds and plastic strain, by the slot its
	// particle's "solid slot" column names. Version 2 had none.
	Slots []solidSlot
	// Pos, Vel, ID and Mat are the particles' positions, velocities, ids and materials, for reading a state: the
	// slices Saved.Particles holds (SaveState and DecodeState set them).
	Pos, Vel [][4]float32
	ID       []uint32
	Mat      []uint8
}

// N is the particle count.
func (st *State) N() int { return st.Particles.Len() }

// Pres is each particle's pressure, Pa (the state's slice).
func (st *State) Pres() []float32 { return particles.Get[float32](&st.Particles, colPressure) }

// view sets Pos, Vel, ID and Mat from the particles.
func (st *State) view() {
	p := &st.Particles
	st.Pos, st.Vel, st.ID, st.Mat = p.Pos, p.Vel, p.ID, particles.Get[uint8](p, colMaterial)
}

// The state file is the shell's frame (sim/shell, state.go) at version 2: the header, the emitters' travel, the
// particles as a table of named columns, then sph's own part (Saved.Extra), little-endian:
//
//	amax float64, flags uint32 (1: material 0 follows the parameters),
//	the material table: its version uint32 (materialTableVersion), the material count uint32, the field count
//	uint32, and per field its name (uint16 length, bytes) and its value for each material (float32 each),
//	from version 3, the solids' table: its slot count int64, then per slot its bond count int32, the bonds
//	(slot int32, reference vector 3 float32) and the plastic strain (6 float32),
//	the bodies: their length int64 and bytes (rigid.WriteSolids).
//
// A reader refuses a material field it does not know by name (a newer slosh wrote it) and gives one the file
// lacks its default (an older slosh wrote it), so a new field of Material changes the format only by a named
// entry. Version 1, written before the particle store, is converted as it is read (decodeV1).
const (
	stateMagic   = "slosh sph state\n"
	stateVersion = 3
	// colMaterial and colPressure are the state's particle columns besides positions, velocities and ids
	// (declareParticles; the material column is shell.Materials').
	colMaterial = shell.MaterialColumn
	colPressure = "pressure"
	// colTemperature and colSlot are each particle's temperature and solid slot (solids.go).
	colTemperature = "temperature"
	colSlot        = "solid slot"
	// colDeformation and colPlasticStrain are each particle's elastic deformation gradient F (row-major) and
	// accumulated plastic strain α (elastoplastic.go).
	colDeformation   = "deformation"
	colPlasticStrain = "plastic strain"
	// maxStateNu bounds a material's kinematic viscosity, m²/s: the most a scene's material gives (1000 Pa·s at
	// 1 kg/m³) and sph.viscosity's most.
	maxStateNu = scene.MaxViscosity/scene.MinMaterialDensity + 1
	// maxStateBodyBytes bounds the bodies' part: two counts, the bodies' description as a scene file, and each
	// body's dynamic state.
	maxStateBodyBytes = 16 + scene.MaxFileBytes + scene.MaxBodies*256
	// materialTableVersion is the material table's; maxMaterialFields and maxFieldName bound what a table read
	// from a file declares.
	materialTableVersion = 1
	maxMaterialFields    = 16
	maxFieldName         = 64
	// maxOwnBytes bounds sph's own part.
	maxOwnBytes = 8 + 4 + 3*4 + maxMaterialFields*(2+maxFieldName+4*MaxMaterials) + 8 + maxStateBodyBytes + 8 + maxStateSlots*slotBytes
	// slotBytes is a solid slot's size in the file; maxStateSlots bounds the slots a state declares.
	slotBytes     = 4 + maxBonds*16 + 6*4
	maxStateSlots = 1 << 22
)

// stateFormat names sph's state file for the shell.
var stateFormat = shell.Format{Magic: stateMagic, Kind: Name, Version: stateVersion, MaxExtra: maxOwnBytes}

// materialField is a field of Material in the state's material table.
type materialField struct {
	name string
	def  float32 // what each material gets when a file lacks the field
	at   func(m *Material) *float32
}

// materialFields are Material's fields by name, in the order they are written: every field of Material has one
// (TestMaterialTableNamesEveryField).
func materialFields() []materialField {
	return []materialField{
		{"rest_density", 1000, func(m *Material) *float32 { return &m.RestDensity }},
		{"viscosity", DefaultViscosity, func(m *Material) *float32 { return &m.Viscosity }},
	}
}

// encodeOwn is sph's own part of the state in its binary form.
func (st *State) encodeOwn() ([]byte, error) {
	var b bytes.Buffer
	flags := uint32(0)
	if st.ConfigMaterial {
		flags = 1
	}
	fields := materialFields()
	vals := []any{st.Amax, flags, uint32(materialTableVersion), uint32(len(st.Materials)), uint32(len(fields))}
	for _, f := range fields {
		v := make([]float32, len(st.Materials))
		for k := range st.Materials {
			v[k] = *f.at(&st.Materials[k])
		}
		vals = append(vals, uint16(len(f.name)), []byte(f.name), v)
	}
	vals = append(vals, int64(len(st.Slots)))
	for k := range st.Slots {
		sl := &st.Slots[k]
		vals = append(vals, sl.N, sl.Bonds, sl.Plastic)
	}
	vals = append(vals, int64(len(st.Bodies)), st.Bodies)
	if err := binio.Write(&b, Name, vals...); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// decodeOwn reads sph's own part from st.Extra, of the given version.
func (st *State) decodeOwn(version uint32) error {
	r := bytes.NewReader(st.Extra)
	var flags uint32
	if err := readAll(r, "header", &st.Amax, &flags); err != nil {
		return err
	}
	if flags > 1 {
		return fmt.Errorf("the flags are %d, not 0 or 1: the state is damaged", flags)
	}
	st.ConfigMaterial = flags == 1
	mats, err := readMaterials(r)
	if err != nil {
		return err
	}
	st.Materials = mats
	st.Slots = nil
	if version >= 3 {
		var ns int64
		if err := readAll(r, "solids' table", &ns); err != nil {
			return err
		}
		if ns < 0 || ns > maxStateSlots || ns*slotBytes > int64(r.Len()) {
			return fmt.Errorf("the solids' table declares %d slots, outside [0, %d] or more than the %d bytes left hold: it is truncated or damaged", ns, maxStateSlots, r.Len())
		}
		st.Slots = make([]solidSlot, ns)
		for k := range st.Slots {
			sl := &st.Slots[k]
			if err := readAll(r, "solid slot", &sl.N, &sl.Bonds, &sl.Plastic); err != nil {
				return err
			}
			sl.owner = -1
		}
	}
	var nb int64
	if err := readAll(r, "bodies' length", &nb); err != nil {
		return err
	}
	if nb < 0 || nb > maxStateBodyBytes || nb != int64(r.Len()) {
		return fmt.Errorf("the bodies take %d bytes, outside [0, %d] or not the %d the state holds after its materials: it is truncated or damaged", nb, maxStateBodyBytes, r.Len())
	}
	st.Bodies = st.Extra[len(st.Extra)-int(nb):]
	return nil
}

// readMaterials reads the material table: its counts are checked before anything is allocated for them, and its
// fields matched to Material's by name.
func readMaterials(r *bytes.Reader) ([]Material, error) {
	var version, nm, nf uint32
	if err := readAll(r, "material table", &version, &nm, &nf); err != nil {
		return nil, err
	}
	switch {
	case version != materialTableVersion:
		return nil, fmt.Errorf("material table version %d; this slosh reads version %d", version, materialTableVersion)
	case nm < 1 || nm > MaxMaterials:
		return nil, fmt.Errorf("material count %d is outside [1, %d]", nm, MaxMaterials)
	case nf > maxMaterialFields:
		return nil, fmt.Errorf("%d material fields, at most %d: the state is damaged", nf, maxMaterialFields)
	}
	known := materialFields()
	mats := make([]Material, nm)
	for k := range mats {
		for _, f := range known {
			*f.at(&mats[k]) = f.def
		}
	}
	seen := map[string]bool{}
	for j := range nf {
		var ln uint16
		if err := readAll(r, "material field", &ln); err != nil {
			return nil, err
		}
		if ln == 0 || ln > maxFieldName || int(ln) > r.Len() {
			return nil, fmt.Errorf("material field %d: a name of %d bytes: the state is damaged", j, ln)
		}
		name := make([]byte, ln)
		_, _ = r.Read(name)
		f, ok := fieldNamed(known, string(name))
		switch {
		case !ok:
			return nil, fmt.Errorf("material field %q is not one this slosh knows (%s): it was written by a newer slosh", name, fieldNames(known))
		case seen[f.name]:
			return nil, fmt.Errorf("material field %s is given twice: the state is damaged", f.name)
		case int64(nm)*4 > int64(r.Len()):
			return nil, fmt.Errorf("material field %s: %d values, but %d bytes remain: it is truncated or damaged", f.name, nm, r.Len())
		}
		seen[f.name] = true
		v := make([]float32, nm)
		if err := readAll(r, "material "+f.name, v); err != nil {
			return nil, err
		}
		for k := range mats {
			*f.at(&mats[k]) = v[k]
		}
	}
	return mats, nil
}

// readAll reads values little-endian; what names them in the error.
func readAll(r io.Reader, what string, vals ...any) error {
	for _, v := range vals {
		if err := binary.Read(r, binary.LittleEndian, v); err != nil {
			return fmt.Errorf("truncated %s: %w", what, err)
		}
	}
	return nil
}

func fieldNamed(fields []materialField, name string) (materialField, bool) {
	for _, f := range fields {
		if f.name == name {
			return f, true
		}
	}
	return materialField{}, false
}

func fieldNames(fields []materialField) string {
	out := ""
	for k, f := range fields {
		if k > 0 {
			out += ", "
		}
		out += f.name
	}
	return out
}

// Encode writes the state in its binary form (the current version).
func (st *State) Encode(w io.Writer) error {
	var d Solver // a store of sph's columns, to write the state's particles
	d.declareParticles()
	if err := d.sh.Restore(&st.Saved); err != nil {
		return fmt.Errorf("sph state: %w", err)
	}
	own, err := st.encodeOwn()
	if err != nil {
		return err
	}
	return d.sh.Encode(w, stateFormat, st.Header, own)
}

// DecodeState reads a state Encode wrote, or one of version 1, and validates it. The counts it declares are
// checked before anything is allocated for them: against fixed limits, and against the bytes left in r when r
// says how many (a bytes.Reader does); arrays otherwise grow as their data arrives (internal/binio).
func DecodeState(r io.Reader) (*State, error) {
	version, br, left, err := shell.ReadVersion(r, stateFormat)
	if err != nil {
		return nil, err
	}
	var st *State
	switch version {
	case 1:
		st, err = decodeV1(br, left)
	case 2, stateVersion:
		st, err = decodeV2(br, left, version)
	default:
		return nil, fmt.Errorf("sph state version %d; this slosh reads versions 1 and %d", version, stateVersion)
	}
	if err != nil {
		return nil, err
	}
	st.view()
	if err := st.Validate(); err != nil {
		return nil, fmt.Errorf("sph state: %w", err)
	}
	return st, nil
}

// decodeV2 reads the rest of a state of version 2 or 3 (the particle store's) after its version.
func decodeV2(br *bufio.Reader, left int64, version uint32) (*State, error) {
	var d Solver // a store of sph's columns without a run: the materials are checked against the state's table
	d.declareParticles()
	sv, err := d.sh.Decode(br, left, stateFormat)
	if err != nil {
		return nil, err
	}
	st := &State{Saved: *sv}
	if err := st.decodeOwn(version); err != nil {
		return nil, fmt.Errorf("sph state: %w", err)
	}
	st.Extra = nil
	return st, nil
}

// Validate checks what does not depend on the scene: array lengths, ids a permutation of 0..N−1, every value
// finite and within what a run can reach, each particle's material in the table.
func (st *State) Validate() error {
	n := st.N()
	p := &st.Particles
	mat, pres := particles.Get[uint8](p, colMaterial), st.Pres()
	if err := st.Header.Check(); err != nil {
		return err
	}
	switch {
	case !(st.Amax >= 0) || math.IsInf(st.Amax, 0):
		return fmt.Errorf("the last step's largest acceleration %g m/s² must be a non-negative number", st.Amax)
	case len(mat) != n || len(pres) != n:
		return fmt.Errorf("%d particles but %d materials and %d pressures", n, len(mat), len(pres))
	case len(st.Materials) < 1 || len(st.Materials) > MaxMaterials:
		return fmt.Errorf("%d materials; 1 to %d", len(st.Materials), MaxMaterials)
	case st.ConfigMaterial && len(st.Materials) != 1:
		return fmt.Errorf("%d materials, but material 0 follows the parameters, which make one", len(st.Materials))
	}
	if err := sim.CheckParticles(p.Pos, p.Vel, p.ID); err != nil {
		return err
	}
	for k, m := range st.Materials {
		if !(m.RestDensity >= scene.MinMaterialDensity && m.RestDensity <= scene.MaxMaterialDensity) || !(m.Viscosity >= 0 && m.Viscosity <= maxStateNu) {
			return fmt.Errorf("material %d has rest density %g kg/m³ and viscosity %g m²/s; the density must be within [%d, %g] and the viscosity within [0, %g]",
				k, m.RestDensity, m.Viscosity, scene.MinMaterialDensity, float64(scene.MaxMaterialDensity), float64(maxStateNu))
		}
	}
	for i := range n {
		if int(mat[i]) >= len(st.Materials) {
			return fmt.Errorf("particle %d is of material %d; there are %d", i, mat[i], len(st.Materials))
		}
		if err := checkPressure(pres[i]); err != nil {
			return fmt.Errorf("particle %d has pressure %w", i, err)
		}
	}
	slot := particles.Get[int32](p, colSlot) // a state of version 2 read as −1 (none), its default
	if len(slot) != n {
		return fmt.Errorf("%d particles but %d solid slots", n, len(slot))
	}
	reach := float32(MaxKernelRadius * st.Spacing * (1 + 1e-5)) // bonds form within the kernel radius h, at most MaxKernelRadius spacings
	if err := checkSolids(st.Slots, slot, reach); err != nil {
		return err
	}
	return emit.CheckTravel(st.Emitted, st.ToolAcc, float32(st.Spacing))
}

// CheckFor validates the state and checks that it fits a solver reset with sc and holding at most budget
// particles: the scene's emitters, every particle inside the scene's domain (to a margin), speeds a solver can
// follow, and particles no more tightly packed than a fluid at the state's spacing (sim.CheckPlacement). A state of
// another scene would otherwise load and blow up on its first step.
func (st *State) CheckFor(sc *scene.Scene, budget int) error {
	if err := st.Validate(); err != nil {
		return err
	}
	return st.Saved.CheckFor(sc, budget, "sph.budget")
}

// checkRun checks that a state belongs to the solver's run: the same fluids, and a particle spacing the scene can
// be sampled at (a save file's sph.particles or sph.spacing may have been changed after its run's reset, so the
// state's spacing is the one that counts, as in the PBF modes).
func (s *Solver) checkRun(st *State) error {
	if st.Spacing != s.spacing {
		if err := s.sc.CheckSpacing(st.Spacing); err != nil {
			return fmt.Errorf("the state's particle spacing does not fit the scene %q: %w", s.sc.Name, err)
		}
	}
	if len(st.Materials) != len(s.mats) || st.ConfigMaterial != s.cfgMats {
		return fmt.Errorf("the state has %d fluids, this run %d (the scene %q names %d materials): it was saved with another scene",
			len(st.Materials), len(s.mats), s.sc.Name, len(s.sc.Materials))
	}
	if !s.cfgMats {
		for k, m := range st.Materials {
			if m.RestDensity != s.mats[k].RestDensity {
				return fmt.Errorf("the state's fluid %d has rest density %g kg/m³, this run's %g kg/m³: it was saved with another scene", k, m.RestDensity, s.mats[k].RestDensity)
			}
		}
	}
	return nil
}

// StateKind implements sim.Stateful.
func (s *Solver) StateKind() string { return Name }

// header is the shell's header of the run now.
func (s *Solver) header() shell.Header {
	return shell.Header{Spacing: s.spacing, Time: s.time, Steps: s.steps}
}

// SaveState copies the whole state but the bodies into dst, reusing its slices.
func (s *Solver) SaveState(dst *State) {
	s.sh.Keep(&dst.Saved, s.header())
	dst.Amax = s.amax
	dst.Materials = append(dst.Materials[:0], s.mats...)
	dst.ConfigMaterial = s.cfgMats
	dst.Slots = append(dst.Slots[:0], s.sol.slots...)
	dst.view()
}

// LoadState replaces the state with st after checking it against the scene the solver was reset with and its run
// (the same fluids and emitters); a state of another spacing sets the solver's. On error the solver keeps its
// state.
func (s *Solver) LoadState(st *State) error {
	if s.sc == nil {
		return fmt.Errorf("sph: load a state after a reset with its scene")
	}
	if err := st.CheckFor(s.sc, s.sh.Budget); err != nil {
		return fmt.Errorf("sph: %w", err)
	}
	if err := s.checkRun(st); err != nil {
		return fmt.Errorf("sph: %w", err)
	}
	var list []body
	if len(st.Bodies) > 0 {
		br := bytes.NewReader(st.Bodies)
		l, err := s.bodies.Read(br, s.sc, float64(s.dv.Spacing), "sph state")
		if err != nil {
			return fmt.Errorf("sph state: %w", err)
		}
		if br.Len() != 0 {
			return fmt.Errorf("sph state: %d bytes after the bodies: the state is damaged", br.Len())
		}
		list = l
	}
	if st.Spacing != s.spacing {
		if err := s.derive(st.Spacing, s.sh.Budget); err != nil {
			return err
		}
	}
	s.loadState(st)
	s.installBodies(list)
	s.save()
	return nil
}

// loadState sets the state from a consistent st (the last good one, or a checked state).
func (s *Solver) loadState(st *State) {
	if err := s.sh.Restore(&st.Saved); err != nil {
		panic("sph: a checked state does not load: " + err.Error())
	}
	s.mats = append(s.mats[:0], st.Materials...)
	s.time, s.steps, s.amax = st.Time, st.Steps, st.Amax
	s.loadSolids(st.Slots) // solids.go
	s.followViscosity()    // a scene's materials follow the parameters, as material 0 of one without does
	s.updateMaterials()
	paddle := s.sh.Tools.Paddle
	s.col.Obstacles = solid.Moved(s.sc, s.time, paddle)
	s.paddled = paddle != nil
	s.stats.Particles, s.stats.Steps, s.stats.Time = st.N(), s.steps, s.time
}

// WriteState implements sim.Stateful.
func (s *Solver) WriteState(w io.Writer) error {
	var b bytes.Buffer
	if err := s.bodies.Write(&b, s.sc, "sph state"); err != nil {
		return err
	}
	own := State{Amax: s.amax, Materials: s.mats, ConfigMaterial: s.cfgMats, Bodies: b.Bytes(), Slots: s.sol.slots}
	extra, err := own.encodeOwn()
	if err != nil {
		return err
	}
	return s.sh.Encode(w, stateFormat, s.header(), extra)
}

// ReadState implements sim.Stateful: the state must come from a run of the scene the solver was reset with. On
// error the solver keeps its state.
func (s *Solver) ReadState(r io.Reader) error {
	st, err := DecodeState(r)
	if err != nil {
		return err
	}
	return s.LoadState(st)
}
