package mc

import "fmt"

// The cube's corners are numbered c = x + 2y + 4z with x, y, z ∈ {0, 1}; a case is the 8-bit mask of its inside
// corners (value < 0). Its 12 edges are numbered by axis, then by the lower corner in increasing order.

// cubeEdge is an edge of the unit cube: its lower corner and its axis (0 x, 1 y, 2 z).
type cubeEdge struct {
	corner, axis int
}

// cubeEdges lists the 12 edges; edgeIndex[c][axis] is the number of the edge leaving corner c along axis (−1 if
// c is on the upper side of the cube along that axis).
var cubeEdges, edgeIndex = listEdges()

// caseTris[mask] lists the triangles of a case as triples of edge numbers, oriented so that their right-hand
// normals point out of the inside region.
var caseTris = mustBuildCases()

func listEdges() ([12]cubeEdge, [8][3]int) {
	var edges [12]cubeEdge
	var index [8][3]int
	n := 0
	for a := range 3 {
		for c := range 8 {
			index[c][a] = -1
			if c&(1<<a) == 0 {
				edges[n] = cubeEdge{c, a}
				index[c][a] = n
				n++
			}
		}
	}
	return edges, index
}

// edgeBetween is the number of the edge joining corners c1 and c2, which differ in one bit.
func edgeBetween(c1, c2 int) int {
	lo, d := min(c1, c2), c1^c2
	for a := range 3 {
		if d == 1<<a {
			return edgeIndex[lo][a]
		}
	}
	panic(fmt.Sprintf("mc: corners %d and %d do not share an edge", c1, c2))
}

func cornerPos(c int) [3]float64 {
	return [3]float64{float64(c & 1), float64(c >> 1 & 1), float64(c >> 2 & 1)}
}

func edgeMid(e int) [3]float64 {
	p := cornerPos(cubeEdges[e].corner)
	p[cubeEdges[e].axis] = 0.5
	return p
}

func sub(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func dot(a, b [3]float64) float64    { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func cross(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

func mustBuildCases() [256][][3]int8 {
	t, err := buildCases()
	if err != nil {
		panic("mc: " + err.Error()) // the table depends on nothing but this file: a failure is a bug here
	}
	return t
}

// shareFace tells whether two cube edges lie on a common face of the cube.
func shareFace(e1, e2 int) bool {
	a, b := cubeEdges[e1], cubeEdges[e2]
	for f := range 3 {
		if f != a.axis && f != b.axis && a.corner&(1<<f) == b.corner&(1<<f) {
			return true
		}
	}
	return false
}

// appendLoop triangulates a loop of edge vertices. A mesh edge between two vertices on one face of the cube would
// also be an edge of the cube beyond that face, which may join them too, so it may only be one of the loop's own
// segments (which the neighbour traverses the other way): the loop is fanned from a vertex none of whose diagonals
// joins a vertex on a common face, so that every diagonal joins edges only this cube has. Every loop of the 256
// cases has such a vertex.
func appendLoop(tris [][3]int8, loop []int) ([][3]int8, error) {
	n := len(loop)
	for p := range n {
		ok := true
		for i := 2; i < n-1 && ok; i++ {
			ok = !shareFace(loop[p], loop[(p+i)%n])
		}
		if ok {
			for i := 1; i+1 < n; i++ {
				tris = append(tris, [3]int8{int8(loop[p]), int8(loop[(p+i)%n]), int8(loop[(p+i+1)%n])})
			}
			return tris, nil
		}
	}
	return tris, fmt.Errorf("the loop through edges %v has no fan without a diagonal across a face", loop)
}

// buildCases derives every case's triangles from one rule per cube face, so that two cubes sharing a face always
// cut it alike (no cracks):
//
//   - a face with one, two adjacent or three inside corners is crossed by one segment, between its two edges
//     with a sign change;
//   - a face with two diagonal inside corners (ambiguous) is crossed by two segments, each cutting off one inside
//     corner: inside corners never connect across a face. The rule depends only on the face's signs, not on which
//     cube looks at it.
//
// Each segment is directed so that, with n the face's outward normal and d the segment's direction, d × n points
// into the inside side of the face; then the segments chain through the crossed edges into closed loops that run
// counter-clockwise around the normal pointing out of the inside region (Stokes: the patch inside the cube lies on
// the loop's left). Each loop is triangulated by appendLoop.
func buildCases() ([256][][3]int8, error) {
	var table [256][][3]int8
	for mask := range 256 {
		in := func(c int) bool { return mask&(1<<c) != 0 }
		next := [12]int{}
		for i := range next {
			next[i] = -1
		}
		link := func(p, q, ref int, n [3]float64) error {
			mp, mq := edgeMid(p), edgeMid(q)
			if dot(cross(sub(mq, mp), n), sub(cornerPos(ref), mp)) < 0 {
				p, q = q, p
			}
			if next[p] >= 0 {
				return fmt.Errorf("case %#02x: edge %d starts two segments", mask, p)
			}
			next[p] = q
			return nil
		}
		for a := range 3 {
			u, v := (a+1)%3, (a+2)%3
			for s := range 2 {
				base := s << a
				ring := [4]int{base, base | 1<<u, base | 1<<u | 1<<v, base | 1<<v}
				var n [3]float64
				n[a] = float64(2*s - 1)
				var crossed []int // positions k in the ring whose edge (ring[k], ring[k+1]) changes sign
				for k := range 4 {
					if in(ring[k]) != in(ring[(k+1)%4]) {
						crossed = append(crossed, k)
					}
				}
				switch len(crossed) {
				case 0:
				case 2:
					ref := -1
					for _, c := range ring {
						if in(c) {
							ref = c
						}
					}
					e1 := edgeBetween(ring[crossed[0]], ring[(crossed[0]+1)%4])
					e2 := edgeBetween(ring[crossed[1]], ring[(crossed[1]+1)%4])
					if err := link(e1, e2, ref, n); err != nil {
						return table, err
					}
				case 4:
					for k, c := range ring {
						if !in(c) {
							continue
						}
						prev, nxt := ring[(k+3)%4], ring[(k+1)%4]
						if err := link(edgeBetween(prev, c), edgeBetween(c, nxt), c, n); err != nil {
							return table, err
						}
					}
				default:
					return table, fmt.Errorf("case %#02x: a face with %d sign changes", mask, len(crossed))
				}
			}
		}
		seen := [12]bool{}
		for start := range 12 {
			if next[start] < 0 || seen[start] {
				continue
			}
			var loop []int
			for e := start; !seen[e]; e = next[e] {
				if next[e] < 0 {
					return table, fmt.Errorf("case %#02x: the loop through edge %d is open", mask, e)
				}
				seen[e] = true
				loop = append(loop, e)
			}
			if loop[0] != start || next[loop[len(loop)-1]] != start {
				return table, fmt.Errorf("case %#02x: the segments from edge %d do not close into a loop", mask, start)
			}
			var err error
			if table[mask], err = appendLoop(table[mask], loop); err != nil {
				return table, fmt.Errorf("case %#02x: %w", mask, err)
			}
		}
	}
	return table, nil
}
