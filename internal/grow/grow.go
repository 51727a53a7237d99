// Package grow sizes the per-particle and per-cell arrays of the solvers.
package grow

// Resize returns b with length n, reusing its storage when it is large enough. A first allocation is exact;
// growing one (particles added while running: an emitter adds a layer every few steps) leaves half as much room
// again, so the arrays are not reallocated step after step.
func Resize[T any](b []T, n int) []T {
	if cap(b) < n {
		c := n
		if cap(b) > 0 {
			c = max(n, cap(b)*3/2)
		}
		return make([]T, n, c)
	}
	return b[:n]
}
