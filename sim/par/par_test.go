package par

import (
	"sync/atomic"
	"testing"
)

// Every index is visited exactly once, for any size, grain and worker count.
func TestForVisitsEachIndexOnce(t *testing.T) {
	for _, workers := range []int{0, 1, 3, 8} {
		for _, n := range []int{0, 1, 7, 1000, 12345} {
			for _, grain := range []int{0, 1, 64, 100000} {
				hits := make([]int32, n)
				var calls atomic.Int32
				Pool{Workers: workers}.For(n, grain, func(lo, hi int) {
					calls.Add(1)
					if lo < 0 || hi > n || lo >= hi {
						t.Errorf("bad chunk [%d, %d) of %d", lo, hi, n)
						return
					}
					for i := lo; i < hi; i++ {
						atomic.AddInt32(&hits[i], 1)
					}
				})
				for i, h := range hits {
					if h != 1 {
						t.Fatalf("workers %d n %d grain %d: index %d visited %d times", workers, n, grain, i, h)
					}
				}
				if n == 0 && calls.Load() != 0 {
					t.Errorf("an empty loop called the body")
				}
			}
		}
	}
}
