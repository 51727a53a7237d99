package grid

import (
	"math/rand"
	"slices"
	"testing"
)

// TestScanMatchesDefinition holds the search's candidate test, with SIMD where this build and CPU have it and
// without, to its definition: the indices of the rows' particles other than self closer than √r2, in the rows'
// order. The rows are random ranges, some ending at the array's last particle (the SIMD scan's partial loads), and
// a tenth of the candidates lie at exactly r2 (not neighbours) or one float below it.
func TestScanMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for trial := 0; trial < 2000; trial++ {
		n := 1 + rng.Intn(120)
		pos := make([][4]float32, n)
		self := int32(rng.Intn(n))
		const r = float32(3.0 / 32)
		const r2 = r * r // exact, as is every sum below
		for j := range pos {
			pos[j] = [4]float32{rng.Float32() * 0.3, rng.Float32() * 0.3, rng.Float32() * 0.3, rng.Float32()}
		}
		pos[self] = [4]float32{float32(rng.Intn(256)) / 1024, float32(rng.Intn(256)) / 1024, float32(rng.Intn(256)) / 1024, 0}
		for j := range pos {
			if j != int(self) && rng.Intn(10) == 0 { // on the sphere along x: d² == r2 exactly, or just inside
				dx := r
				if rng.Intn(2) == 0 {
					dx = r - 1.0/(1<<20)
				}
				pos[j] = [4]float32{pos[self][0] + dx, pos[self][1], pos[self][2], 0}
			}
		}
		var rows [][2]int32
		for b := 0; b < n && len(rows) < 9; {
			e := min(n, b+1+rng.Intn(40))
			rows = append(rows, [2]int32{int32(b), int32(e)})
			b = e + rng.Intn(5)
		}
		if trial%2 == 0 { // the array's end in the last row
			rows = append(rows[:len(rows)-1], [2]int32{rows[len(rows)-1][0], int32(n)})
		}
		var want []int32
		p := pos[self]
		for _, row := range rows {
			for j := row[0]; j < row[1]; j++ {
				ex, ey, ez := p[0]-pos[j][0], p[1]-pos[j][1], p[2]-pos[j][2]
				if j != self && ex*ex+ey*ey+ez*ez < r2 {
					want = append(want, j)
				}
			}
		}
		for name, sc := range map[string]scanner{"scan": newScanner(), "scalar": scalarScanner()} {
			buf := make([]int32, n+scanSlack)
			k := sc.scan(pos, rows, self, r2, buf)
			if got := buf[:k]; !slices.Equal(got, want) {
				t.Fatalf("trial %d (%s): rows %v self %d: got %v, want %v", trial, name, rows, self, got, want)
			}
		}
	}
}
