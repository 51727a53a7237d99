package glh

import (
	gl "github.com/go-gl/gl/v4.1-core/gl"

	"github.com/slosh/slosh/internal/stage"
)

// Timers measures GPU time per named pass with GL timestamp queries. Results arrive a few frames later: Poll
// never waits for the GPU, it returns the newest complete set. When the GPU falls more than len(ring) frames
// behind, frames are simply not timed, so timing never stalls the pipeline.
type Timers struct {
	ring   [4]timerFrame
	next   int
	active *timerFrame
	latest []stage.Pass
	total  float64
	have   bool
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

// Begin starts timing a sequence of passes.
func (t *Timers) Begin() {
	t.active = nil
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
	if t.active == nil {
		return
	}
	t.active.names = append(t.active.names, name)
	t.active.stamp()
}

// End closes the sequence; its results become available to Poll once the GPU has run it.
func (t *Timers) End() {
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
			found := false
			for j := range t.latest {
				if t.latest[j].Name == name {
					t.latest[j].Ms += ms
					found = true
					break
				}
			}
			if !found {
				t.latest = append(t.latest, stage.Pass{Name: name, Ms: ms})
			}
		}
		f.pending = false
		t.have = true
	}
	return append([]stage.Pass(nil), t.latest...), t.total, t.have
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
