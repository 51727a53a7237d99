// Package par runs loops over index ranges on a bounded set of goroutines: one worker per available CPU, each
// taking fixed-size chunks, never one goroutine per element.
package par

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Pool is a bounded set of workers. The zero value uses GOMAXPROCS workers.
type Pool struct {
	Workers int
}

func (p Pool) workers() int {
	if p.Workers > 0 {
		return p.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// Size is the number of workers the pool runs loops on.
func (p Pool) Size() int { return p.workers() }

// For calls body(lo, hi) over [0, n) in chunks of at least grain elements, on up to Workers goroutines, and
// returns when all are done. Small loops run on the calling goroutine.
func (p Pool) For(n, grain int, body func(lo, hi int)) {
	if n <= 0 {
		return
	}
	w := p.workers()
	if grain < 1 {
		grain = 1
	}
	// aim for ~4 chunks per worker for balance, but never below the grain
	chunk := max(grain, (n+4*w-1)/(4*w))
	chunks := (n + chunk - 1) / chunk
	if w == 1 || chunks == 1 {
		body(0, n)
		return
	}
	w = min(w, chunks)
	var next atomic.Int64
	var wg sync.WaitGroup
	wg.Add(w)
	for g := 0; g < w; g++ {
		go func() {
			defer wg.Done()
			for {
				c := int(next.Add(1) - 1)
				if c >= chunks {
					return
				}
				lo := c * chunk
				body(lo, min(lo+chunk, n))
			}
		}()
	}
	wg.Wait()
}
