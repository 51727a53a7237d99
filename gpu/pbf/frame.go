package pbf

import (
	"math"
	"unsafe"

	gl "github.com/go-gl/gl/v4.3-core/gl"

	"github.com/slosh/slosh/gpu/compute"
	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/par"
	cpbf "github.com/slosh/slosh/sim/pbf"
)

// reachLag is how many frames old the measurement a frame is planned from is. The statistics pass measures the
// fastest particle and the fluid's height after every step; BeginFrame queues a copy of that measurement and
// plans the frame from the one queued reachLag frames before, which the GPU has long finished, so choosing the
// substeps never waits for the GPU. The CFL speed adds what gravity can add over the lag.
const reachLag = 2

// frameReach holds the measurements queued for planning frames, oldest first: each a copy on the GPU with a fence,
// or a value already read back.
type frameReach struct {
	buf      *glh.Buffer // reachLag+1 slots of 16 bytes
	queue    []reachEntry
	next     int        // the next slot to copy into
	fallback [2]float32 // the measurement of the state loaded last, for the frames before any queued one is old enough
	substeps int        // the current frame's choice, for Stats
}

type reachEntry struct {
	slot  int
	fence uintptr
	val   [2]float32 // (largest squared speed, height) once read back
	read  bool
}

const reachSlotBytes = 16

// load starts the queue from a state's pending measurements (a GPU state saved mid-run) and the state's own
// measurement fallback, computed on the CPU from the state as loaded.
func (r *frameReach) load(pending [][2]float32, fallback [2]float32) {
	r.drop()
	r.fallback = fallback
	for _, v := range pending {
		r.queue = append(r.queue, reachEntry{val: v, read: true})
	}
}

// drop forgets every queued measurement.
func (r *frameReach) drop() {
	for _, e := range r.queue {
		if e.fence != 0 {
			gl.DeleteSync(e.fence)
		}
	}
	r.queue = r.queue[:0]
}

func (r *frameReach) delete() {
	r.drop()
	r.buf.Delete()
	r.buf = nil
}

// resolve reads entry e back, waiting for the GPU when it has not finished (it has, reachLag frames later).
func (r *frameReach) resolve(e *reachEntry) {
	if e.read {
		return
	}
	gl.ClientWaitSync(e.fence, gl.SYNC_FLUSH_COMMANDS_BIT, 10e9)
	gl.DeleteSync(e.fence)
	e.fence = 0
	var rec [3]float32 // MaxV2All, UpLo, UpHi
	glh.Read(r.buf, e.slot*reachSlotBytes, rec[:])
	e.val = [2]float32{rec[0], max(rec[2]-rec[1], 0)}
	e.read = true
}

// pending returns the measurements a saved state carries so that a run loaded from it plans its next frames as
// this one would: exactly reachLag of them, the load's own measurement standing in for frames not yet measured.
func (r *frameReach) pending() [][2]float32 {
	out := make([][2]float32, 0, reachLag)
	for k := len(r.queue); k < reachLag; k++ {
		out = append(out, r.fallback)
	}
	for k := range r.queue {
		r.resolve(&r.queue[k])
		out = append(out, r.queue[k].val)
	}
	return out[len(out)-reachLag:]
}

// reachOf measures a state on the CPU, as the statistics pass would, in float32.
func reachOf(st *cpbf.State, g [3]float32) [2]float32 {
	v2, h := sim.MeasureReach(par.Pool{}, st.Pos, st.Vel, g)
	return [2]float32{float32(min(v2, math.MaxFloat32)), float32(h)}
}

// measure runs the statistics passes over the current state without queueing a record, so the statistics buffer
// holds the measurement of a state just loaded (after a step it holds the step's).
func (s *Solver) measure() {
	if s.n == 0 {
		return
	}
	s.upload(0)
	s.bind()
	s.run("pbf_stats.comp", s.n)
	p := s.progs.byName["pbf_stats_final.comp"]
	p.Use()
	p.SetUint("uGroups", uint32((s.n+compute.GroupSize-1)/compute.GroupSize))
	p.SetUint("uStep", uint32(s.steps))
	compute.Dispatch(compute.GroupSize, compute.GroupSize)
	gl.MemoryBarrier(gl.BUFFER_UPDATE_BARRIER_BIT | gl.SHADER_STORAGE_BARRIER_BIT)
}

// BeginFrame implements sim.Solver: it queues the measurement of the state now and plans the frame from the one
// queued reachLag frames ago (or the loaded state's, in the first frames after a reset or load), so the choice is a
// function of the run's states alone and never waits for the GPU.
func (s *Solver) BeginFrame(frameDt float64) int {
	r := &s.plan
	if s.n > 0 {
		if r.buf == nil {
			b, err := glh.NewBuffer((reachLag+1)*reachSlotBytes, gl.DYNAMIC_COPY)
			if err != nil { // no room for 48 bytes: plan from what is known
				s.pendingErr = err
			}
			r.buf = b
		}
		if r.buf != nil {
			e := reachEntry{slot: r.next}
			glh.Copy(r.buf, e.slot*reachSlotBytes, s.statsBuf, int(unsafe.Offsetof(statsRecord{}.MaxV2All)), 12)
			e.fence = gl.FenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0)
			r.next = (r.next + 1) % (reachLag + 1)
			r.queue = append(r.queue, e)
		}
	}
	m := r.fallback
	if len(r.queue) > reachLag {
		r.resolve(&r.queue[0])
		m = r.queue[0].val
		r.queue = append(r.queue[:0], r.queue[1:]...)
	}
	ahead := float64(reachLag+1) * frameDt
	speed := sim.FrameSpeed(float64(m[0]), float64(m[1]), s.Cfg.Gravity, ahead)
	r.substeps = s.Cfg.Step.Substeps(speed, float64(s.dv.Spacing), frameDt)
	return r.substeps
}
