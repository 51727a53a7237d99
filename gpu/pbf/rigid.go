package pbf

import (
	"fmt"
	"unsafe"

	gl "github.com/go-gl/gl/v4.3-core/gl"

	"github.com/slosh/slosh/gpu/compute"
	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/sim"
	cpbf "github.com/slosh/slosh/sim/pbf"
	"github.com/slosh/slosh/sim/rigid"
	"github.com/slosh/slosh/sim/scene"
)

// Rigid bodies by unified particle physics (Macklin et al. 2014), as sim/pbf has them (its rigid.go explains the
// model): body particles take part in the fluid's density constraints as volume and are moved by them in
// proportion to their inverse mass; shape matching after every Δp pass keeps each body rigid.
//
// On the GPU, three per-particle arrays (body, rest offset, inverse mass) travel with the particles through the
// grid's reorder (pbf_rigid_reorder.comp, which also builds the id → slot map and takes the inverse masses from the
// body table, so a change of the rest density reaches them through the table alone); the λ, Δp, vorticity,
// confinement and statistics passes take their body branches only when the uniform body count is non-zero, so a
// fluid-only step costs what it did. Two passes run one workgroup per body: shape matching (pbf_rigid_match.comp)
// after each Δp pass, and the rigid collision (pbf_rigid_collide.comp) after the iterations. The body table
// (bodyRecord) holds each body's particle range, inverse mass, centre and rotation on the GPU.

// bodyGroup is the workgroup size of the per-body passes (BODY_GROUP in GLSL): a body's particles are shared out
// among its invocations and reduced in a tree.
const bodyGroup = 64

// bodyRecord mirrors BodyRecord of pbf_rigid.glsl (std430).
type bodyRecord struct {
	First, Count uint32
	InvMass      float32
	_            float32
	Center       [4]float32
	Rot          rigid.Quat
	Drive        [4]float32
}

const bodyRecordSize = int(unsafe.Sizeof(bodyRecord{}))

// driveOffset and invMassOffset are where Drive and InvMass sit in a bodyRecord, in bytes.
const (
	driveOffset   = int(unsafe.Offsetof(bodyRecord{}.Drive))
	invMassOffset = int(unsafe.Offsetof(bodyRecord{}.InvMass))
)

// rigidState holds the rigid bodies' buffers. Without bodies each buffer is a small placeholder: the passes
// declare the blocks, so something is bound, but they never read them.
type rigidState struct {
	bodies []rigid.Body // as laid out at the reset: ids, inverse mass, density (the poses live on the GPU)

	body, body2   *glh.Buffer // int per particle, sorted order: its body, −1 for fluid
	rest, rest2   *glh.Buffer // vec4 per particle: offset from its body's centre, rest frame
	wInv, wInv2   *glh.Buffer // float per particle: inverse mass relative to a fluid particle's
	slotOf, table *glh.Buffer // uint per id: its sorted slot; the body table
	poseRing      *glh.Buffer // the table copied beside each statistics record (statsRing slots)

	poses []sim.BodyState // from the newest statistics record read back
	rec   []bodyRecord    // scratch for reading the table

	// sumInIDOrder makes shape matching sum each body's particles in id order on one invocation, as the Go code
	// does, instead of in a parallel tree: slow for large bodies, but the CPU and GPU then agree to a few ulps (tests).
	sumInIDOrder bool

	// massRho0 is the rest density the table's inverse masses were last set for by updateMasses; 0 after the
	// table was uploaded or restored from elsewhere.
	massRho0 float32
}

// rigidSnapshot is the rigid part of a snapshot: the body arrays, in the snapshot's particle order, and the table.
type rigidSnapshot struct {
	body, rest, wInv, table *glh.Buffer
}

// ResetWithBodies starts from given fluid particles (ids 0..F−1) and rigid bodies (ids after them, body by body),
// laid out by sim/pbf.LayoutBodies exactly as the CPU solver lays them out.
func (s *Solver) ResetWithBodies(sc *scene.Scene, spacing float64, pos, vel [][4]float32, specs []rigid.BodySpec) error {
	lay, err := rigid.LayoutBodies(s.Cfg.RestDensity, pos, vel, specs)
	if err != nil {
		return err
	}
	return s.reset(sc, spacing, lay.Pos, lay.Vel, nil, &lay)
}

// Bodies returns the rigid bodies' states, read back from the GPU. Like Frame, it first waits for the statistics
// of every step taken, so a non-finite state has been restored.
func (s *Solver) Bodies() []rigid.Body {
	if !s.hasBodies() {
		return nil
	}
	if err := s.poll(true); err != nil && s.pendingErr == nil {
		s.pendingErr = err
	}
	r := &s.rigid
	r.readTable(r.table, 0)
	out := append([]rigid.Body(nil), r.bodies...) // ids, inverse mass, origin and density stay as laid out
	for i, rec := range r.rec {
		out[i].Center = [3]float32{rec.Center[0], rec.Center[1], rec.Center[2]}
		out[i].Rot = rec.Rot
	}
	return out
}

// hasBodies says whether the step runs the rigid-body passes.
func (s *Solver) hasBodies() bool { return len(s.rigid.bodies) > 0 }

// fluidCount is the number of fluid particles, over which the statistics are taken.
func (s *Solver) fluidCount() int {
	return cpbf.FluidCount(s.n, s.rigid.bodies)
}

// updateMasses sets each body's inverse mass from the rest density, in the Go copy and in the GPU's body table,
// before every step (sim/pbf updateBodyMasses): ρ0 is the fluid's density against which the bodies float or sink,
// and a change acts at once. The reorder pass gives each particle its body's.
func (r *rigidState) updateMasses(rho0 float32) {
	if rho0 == r.massRho0 {
		return
	}
	for i := range r.bodies {
		b := &r.bodies[i]
		b.InvMass = rigid.BodyInvMass(rho0, b.Density)
		glh.Upload(r.table, i*bodyRecordSize+invMassOffset, []float32{b.InvMass})
	}
	r.massRho0 = rho0
}

// runBodies dispatches a per-body pass (one workgroup per body) and makes its writes visible to the next.
func (s *Solver) runBodies(prog string) {
	p := s.progs.byName[prog]
	p.Use()
	if prog == "pbf_rigid_match.comp" {
		p.SetInt("uInIDOrder", boolInt(s.rigid.sumInIDOrder))
	}
	compute.Dispatch(len(s.rigid.bodies)*bodyGroup, bodyGroup)
	compute.Barrier()
}

// setBodies (re)creates the rigid bodies' buffers for the s.cap particles just allocated and uploads the state's
// bodies; a state without bodies gets the placeholders.
func (s *Solver) setBodies(st *cpbf.State) error {
	r := &s.rigid
	r.delete(&s.snaps)
	r.bodies, r.poses, r.massRho0 = r.bodies[:0], r.poses[:0], 0
	n, nb := 0, 0 // sizes of the buffers: zero gives the placeholders
	if len(st.Bodies) > 0 {
		if len(st.Body) != s.n || len(st.Rest) != s.n || len(st.WInv) != s.n {
			return fmt.Errorf("gpu pbf: a body layout of %d/%d/%d entries for %d particles", len(st.Body), len(st.Rest), len(st.WInv), s.n)
		}
		n, nb = s.cap, len(st.Bodies)
		r.bodies = append(r.bodies, st.Bodies...)
	}
	bufs := []struct {
		dst  **glh.Buffer
		size int
	}{
		{&r.body, 4 * n}, {&r.body2, 4 * n}, {&r.rest, 16 * n}, {&r.rest2, 16 * n}, {&r.wInv, 4 * n}, {&r.wInv2, 4 * n},
		{&r.slotOf, 4 * n}, {&r.table, bodyRecordSize * nb}, {&r.poseRing, bodyRecordSize * nb * statsRing},
	}
	if nb > 0 {
		for k := range s.snaps {
			sn := &s.snaps[k].rigid
			bufs = append(bufs, []struct {
				dst  **glh.Buffer
				size int
			}{{&sn.body, 4 * n}, {&sn.rest, 16 * n}, {&sn.wInv, 4 * n}, {&sn.table, bodyRecordSize * nb}}...)
		}
	}
	for _, b := range bufs {
		buf, err := glh.NewBuffer(b.size, gl.DYNAMIC_COPY)
		if err != nil {
			return fmt.Errorf("gpu pbf: rigid bodies of %d particles: %w", n, err)
		}
		*b.dst = buf
	}
	if nb == 0 {
		return nil
	}
	glh.Upload(r.body, 0, st.Body)
	glh.Upload(r.rest, 0, st.Rest)
	glh.Upload(r.wInv, 0, st.WInv)
	recs := make([]bodyRecord, nb)
	for i, b := range st.Bodies {
		recs[i] = bodyRecord{First: uint32(b.First), Count: uint32(b.Count), InvMass: b.InvMass,
			Center: [4]float32{b.Center[0], b.Center[1], b.Center[2], 0}, Rot: b.Rot, Drive: b.Drive}
	}
	glh.Upload(r.table, 0, recs)
	r.setPoses(recs)
	return nil
}

// bind attaches the rigid bodies' buffers (or their placeholders).
func (r *rigidState) bind() {
	for _, b := range []struct {
		at  uint32
		buf *glh.Buffer
	}{
		{bindBody, r.body}, {bindBody2, r.body2}, {bindRest, r.rest}, {bindRest2, r.rest2},
		{bindWInv, r.wInv}, {bindWInv2, r.wInv2}, {bindSlotOf, r.slotOf}, {bindBodies, r.table},
	} {
		compute.BindStorage(b.at, b.buf)
	}
}

// swap exchanges the halves of the ping-pong pairs after pbf_rigid_reorder.comp.
func (r *rigidState) swap() {
	r.body, r.body2 = r.body2, r.body
	r.rest, r.rest2 = r.rest2, r.rest
	r.wInv, r.wInv2 = r.wInv2, r.wInv
}

// queuePoses copies the body table into slot k of the pose ring, beside statistics record k.
func (r *rigidState) queuePoses(k int) {
	if nb := len(r.bodies); nb > 0 {
		glh.Copy(r.poseRing, k*nb*bodyRecordSize, r.table, 0, nb*bodyRecordSize)
	}
}

// takePoses reads slot k of the pose ring, whose fence has signalled, into poses.
func (r *rigidState) takePoses(k int) {
	if nb := len(r.bodies); nb > 0 {
		r.readTable(r.poseRing, k*nb*bodyRecordSize)
		r.setPoses(r.rec)
	}
}

// readTable reads a body table from buf at a byte offset into rec.
func (r *rigidState) readTable(buf *glh.Buffer, offset int) {
	if cap(r.rec) < len(r.bodies) {
		r.rec = make([]bodyRecord, len(r.bodies))
	}
	r.rec = r.rec[:len(r.bodies)]
	glh.Read(buf, offset, r.rec)
}

func boolInt(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// setPoses sets poses from body records read back.
func (r *rigidState) setPoses(recs []bodyRecord) {
	r.poses = r.appendPoses(r.poses[:0], recs)
}

// appendPoses appends the poses of body records, in the body order, to dst.
func (r *rigidState) appendPoses(dst []sim.BodyState, recs []bodyRecord) []sim.BodyState {
	for i, rec := range recs {
		dst = append(dst, sim.BodyState{Center: [3]float32{rec.Center[0], rec.Center[1], rec.Center[2]}, Rot: rec.Rot,
			Origin: r.bodies[i].Origin})
	}
	return dst
}

// snapshot copies the body arrays of n particles and the table into sn.
func (r *rigidState) snapshot(sn *rigidSnapshot, n int) {
	if nb := len(r.bodies); nb > 0 {
		glh.Copy(sn.body, 0, r.body, 0, 4*n)
		glh.Copy(sn.rest, 0, r.rest, 0, 16*n)
		glh.Copy(sn.wInv, 0, r.wInv, 0, 4*n)
		glh.Copy(sn.table, 0, r.table, 0, nb*bodyRecordSize)
	}
}

// restore copies a snapshot's body arrays and table back; the id → slot map is rebuilt by the next step's reorder,
// before anything reads it.
func (r *rigidState) restore(sn *rigidSnapshot, n int) {
	if nb := len(r.bodies); nb > 0 {
		glh.Copy(r.body, 0, sn.body, 0, 4*n)
		glh.Copy(r.rest, 0, sn.rest, 0, 16*n)
		glh.Copy(r.wInv, 0, sn.wInv, 0, 4*n)
		glh.Copy(r.table, 0, sn.table, 0, nb*bodyRecordSize)
		r.readTable(r.table, 0)
		r.setPoses(r.rec)
		r.massRho0 = 0 // the snapshot's inverse masses may be for another rest density
	}
}

// frame fills a frame's Body and Bodies as the CPU solver does: empty without bodies.
func (r *rigidState) frame(dst *sim.Frame, n int) {
	dst.Body, dst.Bodies = dst.Body[:0], dst.Bodies[:0]
	if len(r.bodies) == 0 {
		return
	}
	if cap(dst.Body) < n {
		dst.Body = make([]int32, n)
	}
	dst.Body = dst.Body[:n]
	glh.Read(r.body, 0, dst.Body)
	r.readTable(r.table, 0)
	dst.Bodies = r.appendPoses(dst.Bodies, r.rec)
}

// delete frees the rigid bodies' buffers, the snapshots' included; safe to call twice.
func (r *rigidState) delete(snaps *[3]snapshot) {
	for _, b := range []*glh.Buffer{r.body, r.body2, r.rest, r.rest2, r.wInv, r.wInv2, r.slotOf, r.table, r.poseRing} {
		b.Delete()
	}
	for k := range snaps {
		sn := &snaps[k].rigid
		for _, b := range []*glh.Buffer{sn.body, sn.rest, sn.wInv, sn.table} {
			b.Delete()
		}
		*sn = rigidSnapshot{}
	}
	r.bodies = r.bodies[:0]
}
