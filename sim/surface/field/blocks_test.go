package field

import "testing"

// Sample's blocks hold φ itself at their grid points (no smoothing here), i fastest, at Cell × their index; the
// band is emptied by a call without particles.
func TestSampleBlocks(t *testing.T) {
	const s = 0.02
	pos := lattice([3]int{6, 5, 4}, s, [3]float64{0.1, 0.2, 0.3}, 0.2, 1, nil)
	cfg := DefaultConfig(s)
	cfg.Smooth = 0
	var m Mesher
	st, err := m.Sample(pos, cfg)
	if err != nil {
		t.Fatal(err)
	}
	blocks := 0
	outside := m.Blocks(func(o [3]int, phi []float32) {
		blocks++
		if o[0]%8 != 0 || o[1]%8 != 0 || o[2]%8 != 0 || len(phi) != 512 {
			t.Fatalf("block at %v with %d values", o, len(phi))
		}
		for _, c := range [][3]int{{0, 0, 0}, {7, 0, 0}, {3, 5, 1}, {0, 7, 6}, {7, 7, 7}} {
			x := [3]float64{cfg.Cell * float64(o[0]+c[0]), cfg.Cell * float64(o[1]+c[1]), cfg.Cell * float64(o[2]+c[2])}
			if got, want := phi[c[0]+8*(c[1]+8*c[2])], float32(m.Field().At(x)); got != want {
				t.Errorf("block %v, point %v: φ %g, want %g", o, c, got, want)
			}
		}
	})
	if blocks == 0 || blocks != st.Blocks || outside != float32(cfg.Support-cfg.Radius) {
		t.Errorf("%d blocks (stats %d), outside %g", blocks, st.Blocks, outside)
	}
	if _, err := m.Sample(nil, cfg); err != nil {
		t.Fatal(err)
	}
	m.Blocks(func([3]int, []float32) { t.Error("a block after sampling no particles") })
}
