package grid

import (
	"math/rand"
	"slices"
	"testing"
)

// cloud makes n random points in [0,1]³, half uniform and half in tight clusters, a few outside the box.
func cloud(n int, seed int64) [][4]float32 {
	rng := rand.New(rand.NewSource(seed))
	pos := make([][4]float32, n)
	for i := range pos {
		switch {
		case i%10 == 0:
			pos[i] = [4]float32{rng.Float32()*1.4 - 0.2, rng.Float32()*1.4 - 0.2, rng.Float32()*1.4 - 0.2}
		case i%2 == 0:
			c := float32(i%7) / 7
			pos[i] = [4]float32{c + rng.Float32()*0.03, 0.5 + rng.Float32()*0.03, c + rng.Float32()*0.03}
		default:
			pos[i] = [4]float32{rng.Float32(), rng.Float32(), rng.Float32()}
		}
	}
	return pos
}

func ids(n int) []uint32 {
	id := make([]uint32, n)
	for i := range id {
		id[i] = uint32(i)
	}
	return id
}

func sortedCopy[T any](src []T, order []int32) []T {
	out := make([]T, len(order))
	for k, o := range order {
		out[k] = src[o]
	}
	return out
}

func TestBuildSortsByCellThenID(t *testing.T) {
	pos := cloud(5000, 1)
	id := ids(len(pos))
	rand.New(rand.NewSource(2)).Shuffle(len(id), func(a, b int) { id[a], id[b] = id[b], id[a] })
	g, err := New([3]float32{0, 0, 0}, [3]float32{1, 1, 1}, 0.07)
	if err != nil {
		t.Fatal(err)
	}
	g.Build(pos, id)
	sp, sid := sortedCopy(pos, g.Order), sortedCopy(id, g.Order)
	seen := make([]bool, len(pos))
	for _, o := range g.Order {
		if seen[o] {
			t.Fatalf("index %d appears twice in Order", o)
		}
		seen[o] = true
	}
	for k := 1; k < len(sp); k++ {
		c0 := g.Index(sp[k-1][0], sp[k-1][1], sp[k-1][2])
		c1 := g.Index(sp[k][0], sp[k][1], sp[k][2])
		if c1 < c0 || c1 == c0 && sid[k] <= sid[k-1] {
			t.Fatalf("sorted position %d: (cell %d, id %d) after (cell %d, id %d)", k, c1, sid[k], c0, sid[k-1])
		}
	}
	for c := 0; c < g.NumCells(); c++ {
		for k := g.Start[c]; k < g.Start[c+1]; k++ {
			if got := g.Index(sp[k][0], sp[k][1], sp[k][2]); got != int32(c) {
				t.Fatalf("particle at sorted %d is in cell %d, listed under %d", k, got, c)
			}
		}
	}
}

// The sorted arrangement depends only on positions and ids, not on the input order.
func TestBuildIgnoresInputOrder(t *testing.T) {
	pos := cloud(3000, 4)
	id := ids(len(pos))
	g, _ := New([3]float32{0, 0, 0}, [3]float32{1, 1, 1}, 0.05)
	g.Build(pos, id)
	want := sortedCopy(id, g.Order)

	perm := rand.New(rand.NewSource(5)).Perm(len(pos))
	pos2, id2 := make([][4]float32, len(pos)), make([]uint32, len(pos))
	for i, p := range perm {
		pos2[i], id2[i] = pos[p], id[p]
	}
	g.Build(pos2, id2)
	if got := sortedCopy(id2, g.Order); !slices.Equal(got, want) {
		t.Fatal("sorted ids differ when the input is permuted")
	}
}

// TestNeighborsMatchBruteForce holds both layouts of the lists to the brute force's sets, in its ascending order
// (the order the solvers sum in): Neighbors' contiguous lists, and NeighborsThen's blocked ones (Slot), with their
// padding and its callback's blocks. 500 particles leave a last block of 4.
func TestNeighborsMatchBruteForce(t *testing.T) {
	for _, tc := range []struct {
		n    int
		r    float32
		seed int64
	}{{2000, 0.05, 1}, {4000, 0.08, 2}, {500, 0.2, 3}} {
		pos := cloud(tc.n, tc.seed)
		id := ids(tc.n)
		g, err := New([3]float32{0, 0, 0}, [3]float32{1, 1, 1}, tc.r)
		if err != nil {
			t.Fatal(err)
		}
		g.Build(pos, id)
		sp := sortedCopy(pos, g.Order)
		const stride = 1024
		brute := Brute(sp, tc.r)

		nbr, count := make([]int32, tc.n*stride), make([]int32, tc.n)
		if clipped := g.Neighbors(sp, tc.r, stride, nbr, count); clipped != 0 {
			t.Fatalf("%d lists clipped at stride %d", clipped, stride)
		}
		for i := range sp {
			if got := nbr[i*stride : i*stride+int(count[i])]; !slices.Equal(got, brute[i]) {
				t.Fatalf("n=%d r=%g particle %d: grid %v, brute force %v", tc.n, tc.r, i, got, brute[i])
			}
		}

		blocked := make([]int32, BlockedLen(tc.n, stride))
		list := func(i, k int) []int32 { // particle i's first k slots
			out := make([]int32, k)
			for kk := range out {
				out[kk] = blocked[Slot(i, kk, stride)]
			}
			return out
		}
		visited := make([]int, tc.n)
		seen := make([][]int32, tc.n) // each list as then saw it
		then := func(lo, hi int) {
			if lo%Block != 0 || hi != min(lo+Block, tc.n) {
				t.Errorf("then got particles [%d, %d), not a block of %d starting at a multiple of it", lo, hi, Block)
			}
			for i := lo; i < hi; i++ {
				visited[i]++
				seen[i] = list(i, int(count[i]))
			}
		}
		if clipped := g.NeighborsThen(sp, tc.r, stride, blocked, count, then); clipped != 0 {
			t.Fatalf("%d lists clipped at stride %d", clipped, stride)
		}
		for lo := 0; lo < tc.n; lo += Block {
			hi := min(lo+Block, tc.n)
			most := 0
			for i := lo; i < hi; i++ {
				most = max(most, int(count[i]))
			}
			for l := range Block {
				i := lo + l
				if i < hi {
					if got := list(i, int(count[i])); !slices.Equal(got, brute[i]) {
						t.Fatalf("n=%d r=%g particle %d: blocked %v, brute force %v", tc.n, tc.r, i, got, brute[i])
					}
					if visited[i] != 1 || !slices.Equal(seen[i], brute[i]) {
						t.Fatalf("particle %d: then called %d times, saw %v of its list %v", i, visited[i], seen[i], brute[i])
					}
				}
				own, k0 := int32(min(i, hi-1)), 0
				if i < hi {
					k0 = int(count[i])
				}
				for k := k0; k < most; k++ {
					if v := blocked[Slot(lo, k, stride)+l]; v != own {
						t.Fatalf("block %d lane %d slot %d: padding %d, want %d", lo, l, k, v, own)
					}
				}
			}
		}
	}
}

func TestNeighborsClipAtStride(t *testing.T) {
	pos := make([][4]float32, 50)
	for i := range pos {
		pos[i] = [4]float32{0.5 + float32(i)*1e-4, 0.5, 0.5}
	}
	g, _ := New([3]float32{0, 0, 0}, [3]float32{1, 1, 1}, 0.1)
	g.Build(pos, ids(len(pos)))
	sp := sortedCopy(pos, g.Order)
	nbr, count := make([]int32, 50*8), make([]int32, 50)
	if clipped := g.Neighbors(sp, 0.1, 8, nbr, count); clipped != 50 {
		t.Errorf("clipped = %d, want all 50", clipped)
	}
	for i, c := range count {
		if c != 8 {
			t.Fatalf("count[%d] = %d, want the stride 8", i, c)
		}
	}
}

func TestNewRejectsBadGrids(t *testing.T) {
	if _, err := New([3]float32{0, 0, 0}, [3]float32{1, 1, 1}, 0); err == nil {
		t.Error("zero cell size accepted")
	}
	if _, err := New([3]float32{0, 0, 0}, [3]float32{1000, 1000, 1000}, 0.001); err == nil {
		t.Error("10^18 cells accepted")
	}
	if _, err := New([3]float32{0, 0, 0}, [3]float32{0, 1, 1}, 0.1); err == nil {
		t.Error("empty extent accepted")
	}
}

func BenchmarkBuildAndNeighbors(b *testing.B) {
	const n = 64000
	pos := make([][4]float32, 0, n)
	for z := 0; z < 40; z++ {
		for y := 0; y < 40; y++ {
			for x := 0; x < 40; x++ {
				pos = append(pos, [4]float32{float32(x) * 0.02, float32(y) * 0.02, float32(z) * 0.02})
			}
		}
	}
	id := ids(n)
	g, _ := New([3]float32{0, 0, 0}, [3]float32{0.8, 0.8, 0.8}, 0.04)
	nbr, count := make([]int32, n*64), make([]int32, n)
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		g.Build(pos, id)
		g.Neighbors(pos, 0.04, 64, nbr, count)
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "particles/s")
}

// BenchmarkNeighbors is the search alone on a jittered lattice in sorted order, at h = 2 spacings as the PBF and SPH
// solvers search (about 30 neighbours a particle, 8 particles a cell).
func BenchmarkNeighbors(b *testing.B) {
	const side, d = 40, float32(0.02)
	rng := rand.New(rand.NewSource(1))
	pos := make([][4]float32, 0, side*side*side)
	for z := 0; z < side; z++ {
		for y := 0; y < side; y++ {
			for x := 0; x < side; x++ {
				j := func(i int) float32 { return (float32(i) + 0.5 + 0.1*(rng.Float32()-0.5)) * d }
				pos = append(pos, [4]float32{j(x), j(y), j(z)})
			}
		}
	}
	n := len(pos)
	g, _ := New([3]float32{0, 0, 0}, [3]float32{side * d, side * d, side * d}, 2*d)
	g.Build(pos, ids(n))
	pos = sortedCopy(pos, g.Order)
	nbr, count := make([]int32, n*64), make([]int32, n)
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		g.Neighbors(pos, 2*d, 64, nbr, count)
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "particles/s")
}
