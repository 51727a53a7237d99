package solid

import (
	"math"
	"math/rand"
	"testing"

	"github.com/slosh/slosh/sim/scene"
)

// The float32 obstacle distances agree with the scene's float64 SDFs.
func TestObstacleSDFMatchesScene(t *testing.T) {
	shapes := []scene.Obstacle{
		{Shape: scene.Shape{Kind: scene.ShapeSphere, Center: scene.Vec3{0.1, 0.2, 0.3}, Radius: 0.25}},
		{Shape: scene.Shape{Kind: scene.ShapeBox, Center: scene.Vec3{0, 0.1, 0}, Size: scene.Vec3{0.5, 0.3, 0.4}, Rotation: scene.Vec3{20, 35, -10}}},
		{Shape: scene.Shape{Kind: scene.ShapeCapsule, A: scene.Vec3{-0.3, 0, 0}, B: scene.Vec3{0.2, 0.3, 0.1}, Radius: 0.1}},
		{Shape: scene.Shape{Kind: scene.ShapeCylinder, Center: scene.Vec3{0, 0.1, 0}, Radius: 0.2, Height: 0.5, Rotation: scene.Vec3{30, 0, 10}}},
	}
	packed := PackObstacles(shapes)
	rng := rand.New(rand.NewSource(9))
	for i := range shapes {
		for n := 0; n < 3000; n++ {
			p := scene.Vec3{rng.Float64() - 0.5, rng.Float64() - 0.5, rng.Float64() - 0.5}
			want, wn := shapes[i].SDF(p)
			got, nx, ny, nz := packed[i].SDF(float32(p[0]), float32(p[1]), float32(p[2]))
			if math.Abs(float64(got)-want) > 1e-5 {
				t.Fatalf("%s at %v: distance %g, scene says %g", shapes[i].String(), p, got, want)
			}
			if math.Abs(want) > 1e-3 && (math.Abs(float64(nx)-wn[0]) > 1e-3 || math.Abs(float64(ny)-wn[1]) > 1e-3 || math.Abs(float64(nz)-wn[2]) > 1e-3) {
				t.Fatalf("%s at %v: normal (%g,%g,%g), scene says %v", shapes[i].String(), p, nx, ny, nz, wn)
			}
		}
	}
}
