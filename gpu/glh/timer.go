package glh

import (
	"time"

	gl "github.com/go-gl/gl/v4.1-core/gl"

	"github.com/slosh/slosh/internal/stage"
)

// Timers measures GPU time per named pass with GL timestamp queries. Results arrive a few frames later: Poll
// never waits for the GPU, it returns the newest complete set. When the GPU falls more than len(ring) frames
// behind, frames are simply not timed, so timing never stalls the pipeline.
//
// With SetWall the passes are timed by the wall clock instead, each finished (glFinish) before the next begins:
// slower, but true where timer queries are not (llvmpipe runs the draws of a pass when a later call flushes them,
// so its timestamps give one pass's work to another).
type Timers struct {
	ring   [4]timerFrame
	next   int
	active *timerFrame
	latest []stage.Pass
	total  float64
	have   bool

	wall      bool
	wallFrame []stage.Pass // the sequence being timed by the wall clock
	wallMark  time.Time    // when its current pass began
	wallOn    bool         // a wall-clock sequence is being timed
}

type timerFrame struct {
	names   []string // names[k] is the pass that ends at queries[k+1]
	queries []uint32
	used    int
	pending bool
}

func (f *timerFrame) stamp() {
	if f.used == len(f.queries) {
		var q uint32
		gl.GenQueries(1, &q)
		f.queries = append(f.queries, q)
	}
	gl.QueryCounter(f.queries[f.used], gl.TIMESTAMP)
	f.used++
}

// SetWall switches to timing by the wall clock with a glFinish at every Begin and Mark (on), or back to timer
// queries. It takes effect at the next Begin.
func (t *Timers) SetWall(on bool) { t.wall = on }

// Begin starts timing a sequence of passes.
func (t *Timers) Begin() {
	t.active = nil
	t.wallOn = false
	if t.wall {
		gl.Finish()
		t.wallFrame, t.wallMark, t.wallOn = t.wallFrame[:0], time.Now(), true
		return
	}
	f := &t.ring[t.next]
	if f.pending {
		t.Poll()
		if f.pending {
			return // the GPU is far behind; skip this one
		}
	}
	f.names = f.names[:0]
	f.used = 0
	f.stamp()
	t.active = f
}

// Mark ends the pass that started at the previous Begin or Mark.
func (t *Timers) Mark(name string) {
	if t.wallOn {
		gl.Finish()
		now := time.Now()
		t.wallFrame = addPass(t.wallFrame, name, float64(now.Sub(t.wallMark).Nanoseconds())/1e6)
		t.wallMark = now
		return
	}
	if t.active == nil {
		return
	}
	t.active.names = append(t.active.names, name)
	t.active.stamp()
}

// End closes the sequence; its results become available to Poll once the GPU has run it.
func (t *Timers) End() {
	if t.wallOn {
		t.wallOn = false
		t.latest, t.total, t.have = append(t.latest[:0], t.wallFrame...), 0, true
		for _, p := range t.latest {
			t.total += p.Ms
		}
		return
	}
	if t.active == nil {
		return
	}
	t.active.pending = true
	t.active = nil
	t.next = (t.next + 1) % len(t.ring)
}

// Poll collects every finished sequence and returns the newest: per-pass milliseconds (passes with the same name
// added together) and their total. ok is false until one sequence has finished.
func (t *Timers) Poll() (passes []stage.Pass, totalMs float64, ok bool) {
	for k := 0; k < len(t.ring); k++ {
		f := &t.ring[(t.next+k)%len(t.ring)] // oldest first
		if !f.pending {
			continue
		}
		var avail int32
		gl.GetQueryObjectiv(f.queries[f.used-1], gl.QUERY_RESULT_AVAILABLE, &avail)
		if avail == 0 {
			break
		}
		stamps := make([]uint64, f.used)
		for i := 0; i < f.used; i++ {
			gl.GetQueryObjectui64v(f.queries[i], gl.QUERY_RESULT, &stamps[i])
		}
		t.latest = t.latest[:0]
		t.total = 0
		for i, name := range f.names {
			ms := float64(stamps[i+1]-stamps[i]) / 1e6
			t.total += ms
			t.latest = addPass(t.latest, name, ms)
		}
		f.pending = false
		t.have = true
	}
	return append([]stage.Pass(nil), t.latest...), t.total, t.have
}

// addPass adds ms to the pass called name in passes, appending it when it is not there yet.
func addPass(passes []stage.Pass, name string, ms float64) []stage.Pass {
	for j := range passes {
		if passes[j].Name == name {
			passes[j].Ms += ms
			return passes
		}
	}
	return append(passes, stage.Pass{Name: name, Ms: ms})
}

// Delete frees the queries; safe to call twice.
func (t *Timers) Delete() {
	for i := range t.ring {
		f := &t.ring[i]
		if len(f.queries) > 0 {
			gl.DeleteQueries(int32(len(f.queries)), &f.queries[0])
		}
		*f = timerFrame{}
	}
}
