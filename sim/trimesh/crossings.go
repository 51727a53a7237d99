package trimesh

import "math"

// Crossings counts the pairs of m's triangles that share no vertex and of which one has an edge passing strictly
// through the other's interior: self-intersections. Touching and coplanar contacts are not counted. Candidate
// pairs come from a grid of cells about as large as the mean triangle, so a mesh of n well-shaped triangles costs
// about O(n).
func (m *Mesh) Crossings() int {
	n := len(m.Triangles)
	if n < 2 {
		return 0
	}
	tris := make([][3][3]float64, n)
	lo := make([][3]float64, n)
	hi := make([][3]float64, n)
	glo, ghi := m.Bounds()
	size := 0.0
	for i, tr := range m.Triangles {
		tris[i] = [3][3]float64{m.point(tr[0]), m.point(tr[1]), m.point(tr[2])}
		lo[i], hi[i] = tris[i][0], tris[i][0]
		for _, q := range tris[i][1:] {
			for a := range 3 {
				lo[i][a], hi[i][a] = min(lo[i][a], q[a]), max(hi[i][a], q[a])
			}
		}
		size += max(hi[i][0]-lo[i][0], hi[i][1]-lo[i][1], hi[i][2]-lo[i][2])
	}
	cell := size / float64(n)
	ext := max(ghi[0]-glo[0], ghi[1]-glo[1], ghi[2]-glo[2])
	// at most about 4n cells across the mesh's box, however thin its triangles are
	cell = max(cell, ext/math.Cbrt(4*float64(n)), 1e-30)
	var dims [3]int
	for a := range 3 {
		dims[a] = int((ghi[a]-glo[a])/cell) + 1
	}
	at := func(p [3]float64, a int) int { return min(dims[a]-1, max(0, int((p[a]-glo[a])/cell))) }
	bins := map[[3]int][]int32{}
	for i := range tris {
		for z := at(lo[i], 2); z <= at(hi[i], 2); z++ {
			for y := at(lo[i], 1); y <= at(hi[i], 1); y++ {
				for x := at(lo[i], 0); x <= at(hi[i], 0); x++ {
					k := [3]int{x, y, z}
					bins[k] = append(bins[k], int32(i))
				}
			}
		}
	}
	type pair struct{ i, j int32 }
	seen := map[pair]bool{}
	count := 0
	for _, bin := range bins {
		for x, i := range bin {
		next:
			for _, j := range bin[x+1:] {
				pr := pair{min(i, j), max(i, j)}
				if seen[pr] {
					continue
				}
				seen[pr] = true
				for a := range 3 {
					if hi[i][a] < lo[j][a] || hi[j][a] < lo[i][a] {
						continue next
					}
				}
				for _, vi := range m.Triangles[i] {
					for _, vj := range m.Triangles[j] {
						if vi == vj {
							continue next
						}
					}
				}
				for s := range 3 {
					if segmentCrosses(tris[i][s], tris[i][(s+1)%3], tris[j]) || segmentCrosses(tris[j][s], tris[j][(s+1)%3], tris[i]) {
						count++
						continue next
					}
				}
			}
		}
	}
	return count
}

// segmentCrosses says whether the segment s0–s1 passes strictly through the triangle t's interior.
func segmentCrosses(s0, s1 [3]float64, t [3][3]float64) bool {
	orient := func(a, b, c, d [3]float64) float64 { return dot(sub(b, a), cross(sub(c, a), sub(d, a))) }
	o0, o1 := orient(t[0], t[1], t[2], s0), orient(t[0], t[1], t[2], s1)
	if !(o0 > 0 && o1 < 0 || o0 < 0 && o1 > 0) {
		return false
	}
	u, v, w := orient(s0, s1, t[0], t[1]), orient(s0, s1, t[1], t[2]), orient(s0, s1, t[2], t[0])
	return u > 0 && v > 0 && w > 0 || u < 0 && v < 0 && w < 0
}
