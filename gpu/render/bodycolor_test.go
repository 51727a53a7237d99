package render

import (
	"math"
	"testing"
)

// The first body takes render.body_color; the next ones its hue turned, brightness and saturation kept, each of the
// first dozen far from the others; a grey base still gives colours.
func TestBodyColors(t *testing.T) {
	for _, base := range [][3]float32{{0.85, 0.55, 0.25}, {1, 0, 0}, {0.5, 0.5, 0.5}} {
		if BodyColor(base, 0) != base {
			t.Fatalf("body 0 of %v is %v", base, BodyColor(base, 0))
		}
		var cs [][3]float32
		for i := range 12 {
			c := BodyColor(base, i)
			hi := max(c[0], c[1], c[2])
			if math.Abs(float64(hi-max(base[0], base[1], base[2]))) > 1e-5 {
				t.Errorf("base %v body %d: %v, another brightness", base, i, c)
			}
			for j, o := range cs {
				d := math.Abs(float64(c[0]-o[0])) + math.Abs(float64(c[1]-o[1])) + math.Abs(float64(c[2]-o[2]))
				if d < 0.05*float64(hi) {
					t.Errorf("base %v: bodies %d and %d look alike: %v, %v", base, i, j, c, o)
				}
			}
			cs = append(cs, c)
		}
	}
}
